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


def hot_object(cell_runner: CellRunner, run: Measurement) -> HotObjectResult:
    """Ramp concurrent GETs of one range of one key (doubling, then bisecting) until the service
    rejects (503/429) or throughput stops growing while latency rises (a knee: it degrades)."""
    options = run.options
    range_bytes = options.hot_object_range_bytes
    size = max(range_bytes, 1 << 20)
    key = f"{run.prefix}hot/object"
    cell_runner.put_keys([key], size, 1)
    duration = options.probe_duration_s
    steps: dict[int, HotObjectStep] = {}
    figures_at: dict[int, CellFigures] = {}

    def measure(concurrency: int) -> CellFigures:
        figures, _ = cell_runner.measure(
            "get",
            concurrency,
            duration_s=duration,
            warmup_s=_warmup(duration),
            count_bytes=True,
            keys=[key],
            object_size=size,
            byte_range=(0, range_bytes - 1),
            max_attempts=1,
        )
        steps[concurrency] = HotObjectStep(
            concurrency=concurrency,
            samples=figures.samples,
            ops_per_s=figures.ops_per_s,
            errors=figures.errors,
            latency_s=figures.latency_s,
            ttfb_s=figures.ttfb_s,
            client_saturated="client-saturated" in figures.flags,
        )
        figures_at[concurrency] = figures
        run.reporter.info(
            f"  hot-object x{concurrency}: {figures.ops_per_s or 0:.0f} ops/s,"
            f" p50 {1000 * (figures.latency_s.p50 or 0):.1f} ms, throttled {_throttled(figures)}"
        )
        return figures

    good: int | None = None
    bad: int | None = None
    knee: int | None = None
    concurrency = 1
    while concurrency <= options.hot_object_max and not (steps and _out_of_budget(run, f"hot-object x{concurrency}")):
        figures = measure(concurrency)
        if _rejects(figures):
            bad = concurrency
            break
        if good is not None:
            before = figures_at[good]
            gain = (figures.ops_per_s or 0) / max(before.ops_per_s or 1e-9, 1e-9)
            slower = (figures.latency_s.p50 or 0) > _KNEE_LATENCY * (before.latency_s.p50 or 0)
            if gain < _KNEE_GAIN and slower:
                knee = good
                break
        good = concurrency
        concurrency *= 2
    result = HotObjectResult(range_bytes=range_bytes, max_tested=max(steps))
    if bad is not None:
        low = good or 0
        # bisect to within 5 % (or 1) of the limit
        while bad - low > max(1, int(0.05 * max(low, 1))) and not _out_of_budget(run, "hot-object bisection"):
            middle = (low + bad) // 2
            if _rejects(measure(middle)):
                bad = middle
            else:
                low = middle
        result.limit = low or None
        result.behaviour = "reject"
        counts: Counter[str] = Counter()
        for label, n in figures_at[bad].errors.items():
            if label.startswith(THROTTLE_PREFIXES):
                counts[label] += n
        result.error = counts.most_common(1)[0][0] if counts else None
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
