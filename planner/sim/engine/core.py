"""The core, ``simulate_spec``: replications of one window, summarised with confidence intervals."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from planner.errors import InputError
from planner.sim.engine.client_waits import without_second_wait
from planner.sim.engine.replication import Replication
from planner.sim.engine.replication_records import RawRun
from planner.sim.engine.requests import LOGICAL_OPERATIONS
from planner.sim.engine.stats import RETAINED_SAMPLES, StreamingQuantiles, delivered_bytes, mean_and_half_width
from planner.sim.engine.stretch import representative_stretch
from planner.sim.model import BILLED_OPERATIONS, ProviderModel, band_text, capacity_band, with_wake_up_at
from planner.sim.result import Estimate, OperationStats, RiskBand, SimulationResult, SLOVerdict, TimeSeries
from planner.sim.spec import OpenLoop, SimSpec, TraceArrivals

FloatArray = np.ndarray[Any, np.dtype[np.float64]]

_PERCENTILES = (50.0, 95.0, 99.0, 99.9)
_MAX_BINS = 600


@dataclass
class _Figures:
    """One replication's figures by name, before they are averaged."""

    values: dict[str, float] = field(default_factory=dict)
    series: dict[str, FloatArray] = field(default_factory=dict)


MAX_SIMULATED_REQUESTS = 50_000_000
"""Requests one replication of a window may simulate: about five minutes at 150,000 a second."""
MAX_CONCURRENT = 1_000_000
"""Requests one window may start at once (closed-loop workers, a hot object's burst)."""


def check_size(spec: SimSpec, duration_s: float) -> None:
    """Refuse, before any work, a window too large to simulate: one line with the limit and how to
    simulate a smaller one (the statistics of a few minutes of a steady load are those of hours)."""
    arrivals = spec.arrivals
    if isinstance(arrivals, OpenLoop | TraceArrivals):
        expected = arrivals.expected_arrivals(0.0, duration_s)
        if expected > MAX_SIMULATED_REQUESTS:
            rate = expected / duration_s
            longest = MAX_SIMULATED_REQUESTS / rate
            if longest < 1:
                raise InputError(
                    f"{rate:.3g} requests a second: planner simulates at most {MAX_SIMULATED_REQUESTS:,} requests in a"
                    " window, less than one second of this load (is the request count or the peak factor right?)",
                    field="traffic",
                )
            raise InputError(
                f"the window would simulate {expected:.3g} requests ({rate:.3g} a second for {duration_s:g} s);"
                f" planner simulates at most {MAX_SIMULATED_REQUESTS:,}: give --duration {max(math.floor(longest), 1)}s"
                " or less (the percentiles of a steady load settle within minutes)",
                source="--duration",
            )
    elif arrivals.workers > MAX_CONCURRENT:
        raise InputError(
            f"{arrivals.workers:,} workers: planner simulates at most {MAX_CONCURRENT:,} at once",
            field="traffic.workers",
        )
    hot = spec.keys.hot
    if hot is not None and hot.objects * hot.peak_concurrency > MAX_CONCURRENT:
        raise InputError(
            f"{hot.objects:,} hot objects x {hot.peak_concurrency:,} readers each start at once: planner simulates"
            f" at most {MAX_CONCURRENT:,} requests starting together",
            field="traffic.hot_objects.peak_concurrency",
        )


def simulate_spec(
    spec: SimSpec,
    provider_model: ProviderModel,
    duration_s: float,
    seed: int,
    replications: int = 1,
    *,
    warmup_s: float = 0.0,
    drain_s: float | None = None,
    progress: Callable[[], None] | None = None,
) -> SimulationResult:
    """Simulate ``duration_s`` of the workload ``replications`` times (seeded, reproducible);
    ``progress`` is called after each replication.

    Statistics cover requests arriving in [warmup_s, duration_s); afterwards no new requests
    start, and those in flight get ``drain_s`` (default: the window, at least 60 s) to end.
    """
    if duration_s <= 0 or not math.isfinite(duration_s):
        raise InputError(f"{duration_s!r} is not a window length (give seconds above 0)", field="duration_s")
    if not 0 <= warmup_s < duration_s:
        raise InputError(f"warm-up {warmup_s!r} s must be at least 0 and shorter than the window", field="warmup_s")
    if replications < 1:
        raise InputError(f"{replications!r} replications: give 1 or more", field="replications")
    stretch = representative_stretch(spec, duration_s, warmup_s, provider_model)
    check_size(spec, stretch.simulated_s)
    streams = np.random.SeedSequence(seed).spawn(replications)
    run_spec = without_second_wait(spec, provider_model, stretch.simulated_s)
    provider_model = with_wake_up_at(provider_model, spec, stretch.simulated_s)
    figures = []
    extrapolated: set[str] = set()
    for stream in streams:
        tally = Tally(stretch.simulated_s, warmup_s)
        replication = Replication(
            run_spec,
            provider_model,
            stretch.simulated_s,
            np.random.Generator(np.random.PCG64(stream)),
            warmup_s=warmup_s,
            drain_s=drain_s,
        )
        replication.run_chunks(tally.add)
        extrapolated.update(replication.load_extrapolated)
        figures.append(_scaled_counts(tally.figures(), stretch.count_factor))
        if progress is not None:
            progress()
    result = summarise(spec, provider_model, figures, duration_s, warmup_s, seed, series_s=stretch.simulated_s)
    update: dict[str, Any] = {"load_extrapolated": sorted(extrapolated)}
    update.update(_near_capacity(spec, provider_model, result))
    if not stretch.whole:
        update["simulated_s"] = stretch.simulated_s
    return result.model_copy(update=update)


def _near_capacity(spec: SimSpec, provider: ProviderModel, result: SimulationResult) -> dict[str, Any]:
    """A steady open loop near the knee of the model's ladder: its GET figures as bands, and a GET TTFB
    target inside its band at risk (``planner.sim.model.saturation``); nothing otherwise."""
    knee, arrivals, get = provider.knee, spec.arrivals, result.operations.get("GET")
    if knee is None or get is None or not isinstance(arrivals, OpenLoop):
        return {}
    offered_per_s = arrivals.max_rate_per_s * spec.mix.shares()[0]
    simulated = {name: getattr(get, name).mean for name in ("ttfb_p99_s", "latency_p50_s", "latency_p99_s")}
    band = capacity_band(knee, offered_per_s, simulated)
    if band is None:
        return {}
    ttfb = band.figures.get("ttfb_p99_s")
    slo = [
        verdict.model_copy(
            update={
                "at_risk": RiskBand(
                    low=ttfb.low, high=ttfb.high, band=band_text(ttfb), rests_on=f"the rounds of {band.rests_on}"
                )
            }
        )
        if verdict.target == "GET p99 TTFB (s)" and ttfb is not None and ttfb.contains(verdict.threshold)
        else verdict
        for verdict in result.slo
    ]
    return {"near_capacity": band, "slo": slo}


_COUNTS = (".requests", ".failed", ".retries")


def _scaled_counts(figures: _Figures, factor: float) -> _Figures:
    """A stretch's figures as its window's: counts (requests, failures, retries, errors, billed
    requests, unfinished) times ``factor``; means, percentiles, rates and the series as they are."""
    if factor == 1.0:
        return figures
    for name, value in figures.values.items():
        if name.endswith(_COUNTS) or ".errors." in name or name.startswith("billed.") or name == "unfinished":
            figures.values[name] = value * factor
    return figures


def bin_width(duration_s: float) -> float:
    width = 1.0
    while duration_s / width > _MAX_BINS:
        width *= 2
    return width


class Tally:
    """One replication's figures, added up chunk by chunk (``Replication.run_chunks``) in memory
    that does not grow with the window: counts and sums, per-bin series, and each operation's
    latency and TTFB percentiles from a ``StreamingQuantiles`` (exact up to its retained samples,
    within 0.05 % beyond)."""

    def __init__(self, duration_s: float, warmup_s: float, retained: int = RETAINED_SAMPLES) -> None:
        self.duration_s, self.warmup_s = duration_s, warmup_s
        self.edges = np.array([warmup_s, duration_s])
        width = bin_width(duration_s)
        bin_edges = np.arange(0.0, duration_s + width / 2, width)
        if bin_edges[-1] < duration_s:
            bin_edges = np.append(bin_edges, duration_s)
        self.bin_edges = bin_edges
        self.sums: dict[str, float] = {}
        self.latency = [StreamingQuantiles(retained) for _ in LOGICAL_OPERATIONS]
        self.ttfb = [StreamingQuantiles(retained) for _ in LOGICAL_OPERATIONS]
        self.series = {key: np.zeros(len(bin_edges) - 1) for key in ("requests", "errors", "bytes")}
        self.last: RawRun | None = None

    @property
    def retained_samples(self) -> int:
        """Latency and TTFB samples held as they are, all operations together."""
        return sum(q.kept for q in (*self.latency, *self.ttfb))

    def _add(self, name: str, value: float) -> None:
        self.sums[name] = self.sums.get(name, 0.0) + value

    def add(self, run: RawRun) -> None:
        in_window = (run.t_arrival >= self.warmup_s) & (run.t_arrival < self.duration_s)
        # each request's wait, latency and time to first byte, taken once for all operations
        waits, latencies, ttfbs = run.t_conn - run.t_arrival, run.t_end - run.t_arrival, run.t_first - run.t_arrival
        for code, name in enumerate(LOGICAL_OPERATIONS):
            mine = in_window & (run.lop == code)
            moved = run.transfer_lop == code
            requests = np.count_nonzero(mine)
            if not requests and not moved.any():  # none of this operation in this chunk
                for figure in ("requests", "failed", "wait_sum", "latency_sum", "done", "delivered"):
                    self._add(f"{name}.{figure}", 0.0)
                continue
            done = mine & run.ok
            latency = latencies[done]
            self._add(f"{name}.requests", float(requests))
            self._add(f"{name}.failed", float(requests - latency.size))
            self._add(f"{name}.wait_sum", float(waits[mine].sum()))
            self._add(f"{name}.latency_sum", float(latency.sum()))
            self._add(f"{name}.done", float(latency.size))
            self.latency[code].add(latency)
            self.ttfb[code].add(ttfbs[done])
            delivered = delivered_bytes(
                run.transfer_start[moved], run.transfer_end[moved], run.transfer_bytes[moved], self.edges
            )
            self._add(f"{name}.delivered", float(delivered[1] - delivered[0]))
        self.series["requests"] += np.histogram(run.t_end, self.bin_edges)[0]
        self.series["errors"] += np.histogram(run.error_time, self.bin_edges)[0]
        self.series["bytes"] += np.diff(
            delivered_bytes(run.transfer_start, run.transfer_end, run.transfer_bytes, self.bin_edges)
        )
        self.last = run

    def figures(self) -> _Figures:
        run = self.last
        assert run is not None, "no chunk was added"
        out = _Figures()
        v, sums = out.values, self.sums
        window_s = self.duration_s - self.warmup_s
        for code, name in enumerate(LOGICAL_OPERATIONS):
            requests, done = sums[f"{name}.requests"], sums[f"{name}.done"]
            v[f"{name}.requests"] = requests
            v[f"{name}.failed"] = sums[f"{name}.failed"]
            v[f"{name}.retries"] = float(run.retries[code])
            v[f"{name}.mean_wait_s"] = sums[f"{name}.wait_sum"] / requests if requests else math.nan
            v[f"{name}.mean_latency_s"] = sums[f"{name}.latency_sum"] / done if done else math.nan
            latency_at = self.latency[code].percentiles(_PERCENTILES)
            ttfb_at = self.ttfb[code].percentiles(_PERCENTILES)
            for p, latency_s, ttfb_s in zip(_PERCENTILES, latency_at, ttfb_at, strict=True):
                tag = _percentile_tag(p)
                v[f"{name}.latency_{tag}_s"] = latency_s
                v[f"{name}.ttfb_{tag}_s"] = ttfb_s
            v[f"{name}.throughput_bytes_per_s"] = sums[f"{name}.delivered"] / window_s
        for (code, error), count in run.errors.items():
            v[f"{LOGICAL_OPERATIONS[code]}.errors.{error}"] = float(count)
        for op, count in zip(BILLED_OPERATIONS, run.billed, strict=True):
            v[f"billed.{op}"] = float(count)
        v["unfinished"] = float(run.unfinished)
        out.series = {key: values.astype(np.float64) for key, values in self.series.items()}
        return out


def _figures(run: RawRun, spec: SimSpec, duration_s: float, warmup_s: float) -> _Figures:
    """The figures of one whole replication (``Tally`` of a single chunk)."""
    tally = Tally(duration_s, warmup_s)
    tally.add(run)
    return tally.figures()


def _percentile_tag(p: float) -> str:
    return "p999" if p == 99.9 else f"p{int(p)}"


def summarise(
    spec: SimSpec,
    provider: ProviderModel,
    figures: list[_Figures],
    duration_s: float,
    warmup_s: float,
    seed: int,
    *,
    series_s: float | None = None,
) -> SimulationResult:
    def estimate(name: str, default: float = 0.0) -> Estimate:
        mean, half = mean_and_half_width([f.values.get(name, default) for f in figures])
        return Estimate(mean=mean, ci95_half_width=half)

    names = {name for f in figures for name in f.values}
    shares = dict(zip(LOGICAL_OPERATIONS, spec.mix.shares(), strict=True))
    operations: dict[str, OperationStats] = {}
    for op in LOGICAL_OPERATIONS:
        if shares[op] == 0 and all(f.values[f"{op}.requests"] == 0 for f in figures):
            continue
        prefix = f"{op}.errors."
        errors = {name[len(prefix) :]: estimate(name) for name in sorted(names) if name.startswith(prefix)}
        stat = {
            key: estimate(f"{op}.{key}", math.nan)
            for key in OperationStats.model_fields
            if key not in ("operation", "errors")
        }
        operations[op] = OperationStats(operation=op, errors=errors, **stat)
    billed = {
        op: estimate(f"billed.{op}") for op in BILLED_OPERATIONS if any(f.values[f"billed.{op}"] for f in figures)
    }
    window_s = duration_s - warmup_s
    arrivals = spec.arrivals
    if isinstance(arrivals, OpenLoop):
        expected = arrivals.expected_arrivals(warmup_s, duration_s)
        scale = arrivals.mean_rate_per_s * spec.month_s / expected
        scaling = (
            f"month requests at the mean rate ({arrivals.mean_rate_per_s:g}/s over {spec.month_s:g} s) "
            f"over the {expected:.6g} the {arrivals.profile!r} window expects in {window_s:g} s"
        )
    elif isinstance(arrivals, TraceArrivals):
        scale = spec.month_s / window_s
        scaling = f"{arrivals.source}: the {window_s:g} s trace repeated over the month ({spec.month_s:g} s)"
    else:
        scale = spec.month_s / window_s
        scaling = f"closed loop: the {window_s:g} s window repeated over the month ({spec.month_s:g} s)"
    scaled = {op: round(e.mean * scale) for op, e in billed.items()}
    series = TimeSeries(
        bin_s=bin_width(series_s or duration_s),
        **{key: np.mean([f.series[key] for f in figures], axis=0).tolist() for key in ("requests", "errors", "bytes")},
    )
    return SimulationResult(
        provider_id=provider.provider_id,
        seed=seed,
        replications=len(figures),
        window_s=window_s,
        warmup_s=warmup_s,
        operations=operations,
        billed_requests=billed,
        scale_to_month=scale,
        scaled_billed_requests=scaled,
        scaling=scaling,
        error_billing=provider.error_billing,
        slo=_verdicts(spec, figures),
        time_series=series,
        unfinished_requests=estimate("unfinished"),
        throttled=_throttled(figures),
    )


THROTTLES = ("503", "429")
"""Error answers that say slow down: their count is the window's throttles."""


def _throttled(figures: list[_Figures]) -> Estimate:
    """Throttled answers in the window: each replication's sum over operations and kinds, then their
    mean and 95 % interval (a sum of the per-kind intervals would overstate it)."""
    sums = [
        math.fsum(
            count
            for name, count in f.values.items()
            if ".errors." in name and name.split(".errors.", 1)[1].startswith(THROTTLES)
        )
        for f in figures
    ]
    mean, half = mean_and_half_width(sums)
    return Estimate(mean=mean, ci95_half_width=half)


def _verdicts(spec: SimSpec, figures: list[_Figures]) -> list[SLOVerdict]:
    slo = spec.slo
    verdicts = []

    def judge(target: str, threshold: float, values: list[float], at_most: bool) -> None:
        mean, half = mean_and_half_width(values)
        achieved = Estimate(mean=mean, ci95_half_width=half)
        met = mean <= threshold if at_most else mean >= threshold
        certain = (
            (achieved.high <= threshold or achieved.low > threshold)
            if at_most
            else (achieved.low >= threshold or achieved.high < threshold)
        )
        verdicts.append(SLOVerdict(target=target, threshold=threshold, achieved=achieved, met=met, certain=certain))

    if slo.p99_ttfb_s is not None:
        judge("GET p99 TTFB (s)", slo.p99_ttfb_s, [f.values["GET.ttfb_p99_s"] for f in figures], True)
    if slo.read_bytes_per_s is not None:
        judge(
            "GET throughput (bytes/s)",
            slo.read_bytes_per_s,
            [f.values["GET.throughput_bytes_per_s"] for f in figures],
            False,
        )
    if slo.write_bytes_per_s is not None:
        judge(
            "PUT throughput (bytes/s)",
            slo.write_bytes_per_s,
            [f.values["PUT.throughput_bytes_per_s"] for f in figures],
            False,
        )
    if slo.max_error_rate is not None:
        rates = []
        for f in figures:
            requests = sum(f.values[f"{op}.requests"] for op in LOGICAL_OPERATIONS)
            failed = sum(f.values[f"{op}.failed"] for op in LOGICAL_OPERATIONS)
            rates.append(failed / requests if requests else 0.0)
        judge("failed requests / requests", slo.max_error_rate, rates, True)
    return verdicts
