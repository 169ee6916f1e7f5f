"""The four probes: hot-object limit, multipart part size, parallel range GET, small-object rates."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from planner.measure.profile import (
    HotObjectResult,
    HotObjectStep,
    PartSizePoint,
    PartSizeResult,
    RangeGetPoint,
    RangeGetResult,
    RatePoint,
    RateResult,
)
from planner.measure.run.safety import Unsupported
from planner.measure.stats import CellFigures

if TYPE_CHECKING:
    from planner.measure.run.cells import CellRunner
    from planner.measure.run.measurement import Measurement

THROTTLE_PREFIXES = ("503", "429")
_KNEE_GAIN = 1.10  # doubling concurrency must add 10 % ops/s ...
_KNEE_LATENCY = 1.5  # ... or the latency rise marks a knee


def probe_warmup_s(duration_s: float) -> float:
    """A probe step's warm-up: a quarter of its window, at most a second."""
    return min(1.0, duration_s / 4)


_warmup = probe_warmup_s


def _out_of_budget(run: Measurement, what: str) -> bool:
    """Whether another probe step would end past the run's budget (then it is recorded as left out)."""
    left = run.remaining_s()
    step_s = run.options.probe_duration_s + probe_warmup_s(run.options.probe_duration_s) + 1.0
    if left is None or left >= step_s:
        return False
    run.dropped.append(f"{what} (not started: {max(left, 0):.0f} s of the budget left)")
    return True


def hot_object_ramp(hot_object_max: int) -> list[int]:
    """The concurrencies the hot-object probe tries when nothing stops it early: 1, 2, 4, ... up to the max."""
    return [2**i for i in range(max(hot_object_max, 1).bit_length()) if 2**i <= hot_object_max]


def _throttled(figures: CellFigures) -> int:
    return sum(n for label, n in figures.errors.items() if label.startswith(THROTTLE_PREFIXES))


def _rejects(figures: CellFigures) -> bool:
    """Throttling answers on more than 1 % of the attempts (and at least two of them)."""
    throttled = _throttled(figures)
    return throttled >= 2 and throttled > 0.01 * (figures.samples + throttled)


class _HotObjectProbe:
    """The hot-object probe's one key and every step measured so far, by concurrency."""

    def __init__(self, cell_runner: CellRunner, run: Measurement) -> None:
        self.cell_runner = cell_runner
        self.run = run
        self.range_bytes = run.options.hot_object_range_bytes
        self.size = max(self.range_bytes, 1 << 20)
        self.key = f"{run.prefix}hot/object"
        self.steps: dict[int, HotObjectStep] = {}
        self.figures_at: dict[int, CellFigures] = {}

    def measure(self, concurrency: int) -> CellFigures:
        """One step: ``concurrency`` GETs of the range at a time, each sent once (no retries)."""
        duration = self.run.options.probe_duration_s
        figures, _ = self.cell_runner.measure(
            "get",
            concurrency,
            duration_s=duration,
            warmup_s=_warmup(duration),
            count_bytes=True,
            keys=[self.key],
            object_size=self.size,
            byte_range=(0, self.range_bytes - 1),
            max_attempts=1,
        )
        self.steps[concurrency] = HotObjectStep(
            concurrency=concurrency,
            samples=figures.samples,
            ops_per_s=figures.ops_per_s,
            errors=figures.errors,
            latency_s=figures.latency_s,
            ttfb_s=figures.ttfb_s,
            client_saturated="client-saturated" in figures.flags,
        )
        self.figures_at[concurrency] = figures
        self.run.reporter.info(
            f"  hot-object x{concurrency}: {figures.ops_per_s or 0:.0f} ops/s,"
            f" p50 {1000 * (figures.latency_s.p50 or 0):.1f} ms, throttled {_throttled(figures)}"
        )
        return figures

    def ramp(self) -> tuple[int | None, int | None, int | None]:
        """Double the concurrency from 1 until the service rejects a step, a knee shows, or the
        maximum or the budget is reached: (the last clean step, the rejected one, the knee)."""
        good: int | None = None
        concurrency = 1
        while concurrency <= self.run.options.hot_object_max and not (
            self.steps and _out_of_budget(self.run, f"hot-object x{concurrency}")
        ):
            figures = self.measure(concurrency)
            if _rejects(figures):
                return good, concurrency, None
            if good is not None:
                before = self.figures_at[good]
                gain = (figures.ops_per_s or 0) / max(before.ops_per_s or 1e-9, 1e-9)
                slower = (figures.latency_s.p50 or 0) > _KNEE_LATENCY * (before.latency_s.p50 or 0)
                if gain < _KNEE_GAIN and slower:
                    return good, None, good
            good = concurrency
            concurrency *= 2
        return good, None, None

    def bisect(self, good: int | None, bad: int) -> tuple[int, int]:
        """Bisect between the last clean and the first rejected step to within 5 % (or 1) of the
        limit, as the budget allows: (the highest clean concurrency, the lowest rejected one)."""
        low = good or 0
        while bad - low > max(1, int(0.05 * max(low, 1))) and not _out_of_budget(self.run, "hot-object bisection"):
            middle = (low + bad) // 2
            if _rejects(self.measure(middle)):
                bad = middle
            else:
                low = middle
        return low, bad


def _commonest_throttle(figures: CellFigures) -> str | None:
    """The throttling answer (503 or 429 and its code) seen most often in a step."""
    counts: Counter[str] = Counter()
    for label, n in figures.errors.items():
        if label.startswith(THROTTLE_PREFIXES):
            counts[label] += n
    return counts.most_common(1)[0][0] if counts else None


def hot_object(cell_runner: CellRunner, run: Measurement) -> HotObjectResult:
    """Ramp concurrent GETs of one range of one key (doubling, then bisecting) until the service
    rejects (503/429) or throughput stops growing while latency rises (a knee: it degrades)."""
    probe = _HotObjectProbe(cell_runner, run)
    cell_runner.put_keys([probe.key], probe.size, 1)
    good, bad, knee = probe.ramp()
    steps = probe.steps
    result = HotObjectResult(range_bytes=probe.range_bytes, max_tested=max(steps))
    if bad is not None:
        low, bad = probe.bisect(good, bad)
        result.limit = low or None
        result.behaviour = "reject"
        result.error = _commonest_throttle(probe.figures_at[bad])
        result.note = f"rejects above {low} concurrent requests for one range of one key"
    elif knee is not None:
        result.limit = knee
        result.behaviour = "degrade"
        saturated = any(s.client_saturated for s in steps.values())
        result.note = "throughput stopped growing while latency rose" + (
            "; the client was saturated, so the knee may be the client's" if saturated else ""
        )
    else:
        result.note = f"no errors and no knee up to {max(steps)} concurrent requests"
    result.steps = [steps[c] for c in sorted(steps)]
    return result


def part_size(cell_runner: CellRunner, run: Measurement) -> PartSizeResult:
    """Multipart upload throughput per part size and queue depth (parts in flight); uploads are aborted."""
    options = run.options
    duration = options.probe_duration_s
    result = PartSizeResult()
    for size in options.part_sizes:
        for depth in options.queue_depths:
            figures, _ = cell_runner.measure(
                "upload_part",
                depth,
                duration_s=duration,
                warmup_s=_warmup(duration),
                count_bytes=True,
                object_size=size,
                key_prefix=f"{run.prefix}mpu/{size}/q{depth}/",
            )
            result.points.append(
                PartSizePoint(
                    part_size_bytes=size,
                    queue_depth=depth,
                    throughput_mib_per_s=figures.throughput_mib_per_s,
                    samples=figures.samples,
                    latency_s=figures.latency_s,
                    errors=figures.errors,
                    flags=figures.flags,
                )
            )
            run.reporter.info(f"  part-size {size >> 20} MiB x{depth}: {figures.throughput_mib_per_s or 0:.1f} MiB/s")
    usable = [p for p in result.points if p.throughput_mib_per_s is not None and "above-link" not in p.flags]
    if usable:
        best = max(usable, key=lambda p: p.throughput_mib_per_s or 0.0)
        result.best_part_size_bytes = best.part_size_bytes
        result.best_queue_depth = best.queue_depth
    return result


def split_ranges(size: int, streams: int) -> list[tuple[int, int]]:
    """``streams`` inclusive byte ranges covering ``size`` bytes, as equal as possible."""
    base, extra = divmod(size, streams)
    ranges: list[tuple[int, int]] = []
    start = 0
    for index in range(streams):
        length = base + (1 if index < extra else 0)
        if length:
            ranges.append((start, start + length - 1))
        start += length
    return ranges


def range_get(cell_runner: CellRunner, run: Measurement) -> RangeGetResult:
    """One stream reading a large object vs N streams each reading its own range of it."""
    options = run.options
    size = options.range_object_size
    key = f"{run.prefix}range/object"
    cell_runner.put_keys([key], size, 1)
    duration = options.probe_duration_s
    result = RangeGetResult(object_size_bytes=size, link_bits_per_s=options.link_bits_per_s)
    single: float | None = None
    for streams in [1, *[s for s in options.range_streams if s > 1]]:
        fields: dict[str, Any] = {"thread_ranges": split_ranges(size, streams)} if streams > 1 else {}
        figures, _ = cell_runner.measure(
            "get",
            streams,
            duration_s=duration,
            warmup_s=_warmup(duration),
            count_bytes=True,
            keys=[key],
            object_size=size,
            **fields,
        )
        result.points.append(
            RangeGetPoint(
                streams=streams,
                throughput_mib_per_s=figures.throughput_mib_per_s,
                samples=figures.samples,
                flags=figures.flags,
            )
        )
        if streams == 1:
            single = figures.throughput_mib_per_s
        run.reporter.info(f"  range-get x{streams}: {figures.throughput_mib_per_s or 0:.1f} MiB/s")
    parallel = [p for p in result.points if p.streams > 1 and p.throughput_mib_per_s and "above-link" not in p.flags]
    if single and parallel:
        best = max(parallel, key=lambda p: p.throughput_mib_per_s or 0.0)
        assert best.throughput_mib_per_s is not None
        result.best_streams = best.streams
        result.speedup = best.throughput_mib_per_s / single
    return result


def rate(cell_runner: CellRunner, run: Measurement) -> RateResult:
    """Small-object ops/s per operation, ramping concurrency until ops/s stops growing; an operation
    the server does not support is recorded as such and the others go on."""
    options = run.options
    size = options.rate_object_size
    duration = options.probe_duration_s
    result = RateResult(object_size_bytes=size)
    keys = [f"{run.prefix}rate/{size}/{i:05d}" for i in range(max(16, max(options.rate_concurrency)))]
    if any(op in options.ops for op in ("get", "head", "list")):
        cell_runner.put_keys(keys, size)
    for op in options.ops:
        previous: float | None = None
        for concurrency in options.rate_concurrency:
            if _out_of_budget(run, f"probe rate {op} x{concurrency}"):
                break
            fields: dict[str, Any] = {}
            if op in ("get", "head"):
                fields = {"keys": keys, "object_size": size}
            elif op == "list":
                fields = {"list_prefix": f"{run.prefix}rate/{size}/"}
            elif op == "put":
                fields = {
                    "object_size": size,
                    "key_prefix": f"{run.prefix}rate-put/c{concurrency}/",
                    "record_keys": "delete" in options.ops,
                }
            try:
                if op == "delete":
                    known = [p.ops_per_s or 0.0 for p in result.points if p.op in ("put", "head")]
                    figures, results = run.measure_delete(
                        cell_runner,
                        size,
                        concurrency,
                        duration_s=duration,
                        warmup_s=_warmup(duration),
                        rate_hint=max(known, default=0.0),
                    )
                else:
                    figures, results = cell_runner.measure(
                        op, concurrency, duration_s=duration, warmup_s=_warmup(duration), count_bytes=False, **fields
                    )
            except Unsupported as error:  # this operation only: the others are still measured
                run.note_unsupported(f"probe rate {op} x{concurrency}", error)
                break
            if op == "put":
                run.remember_written(size, [k for r in results for k in r.written_keys])
            result.points.append(
                RatePoint(
                    op=op,
                    concurrency=concurrency,
                    ops_per_s=figures.ops_per_s,
                    samples=figures.samples,
                    errors=figures.errors,
                    flags=figures.flags,
                    bound="lower" if "client-saturated" in figures.flags else "exact",
                )
            )
            run.reporter.info(f"  rate {op} x{concurrency}: {figures.ops_per_s or 0:.0f} ops/s")
            current = figures.ops_per_s or 0.0
            if previous is not None and current < previous * _KNEE_GAIN:
                break
            previous = current
    return result
