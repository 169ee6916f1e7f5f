"""Turn raw worker samples into a cell's figures: rates, percentiles, histograms, errors, CV,
requests in flight, client CPU and the flags that say how far the figures can be trusted.

Throughput counts each request's bytes spread evenly over its duration and integrates that over
the measured window (warm-up excluded), so a 100 MiB GET straddling the window edge counts for
the part inside it. Percentiles and histograms use the requests that *started* inside the
window (in an open loop: whose arrival was scheduled inside it, timed from that arrival). The
requests in flight are counted directly: every attempt's time on the wire (failed ones too)
integrated over the window, divided by the window.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from planner.measure.clients import EngineName
from planner.measure.profile import (
    MIB,
    CellFlag,
    LatencyHistogram,
    Percentiles,
    RequestCounts,
    coefficient_of_variation,
)
from planner.measure.worker import LoadResult

MIN_SAMPLES = 20
MIN_TAIL_SAMPLES = 1000
"""A p99.9 needs at least this many samples (one beyond it); below that it is not given."""
SATURATED_PROCESS_CPU = 0.8
"""One worker process at 80 % of a core: with the GIL, its threads queue for the interpreter
(a Python process doing I/O rarely gets much past 0.9 of a core, so 0.9 never fired)."""
SATURATED_CLIENT_CPU = 0.85  # all worker processes together use 85 % of the host's cores
SATURATED_HOST_CPU = 0.9
"""The whole host (every process: the client's, a local server's, anything else) is 90 % busy:
the client cannot get the CPU it needs, whatever its own processes show."""
IN_FLIGHT_SHORTFALL = 0.9
"""A closed loop with fewer than 90 % of its nominal requests in flight (time-averaged) ran a
lower concurrency than its label: the client, not the endpoint, kept requests from being sent."""
LATE_SHARE = 0.1
"""An open loop whose free workers sent over 10 % of the arrivals late could not keep time: the
client held them back (arrivals late because every worker was busy are the endpoint's queue at
the cap of requests in flight, and are data)."""
SHORT_WINDOW = 0.9  # a window under 90 % of the one asked for (a finite work list ran out)


@dataclass
class CellFigures:
    window_start: float
    window_end: float
    samples: int
    duration_s: float
    throughput_mib_per_s: float | None
    ops_per_s: float | None
    latency_s: Percentiles
    ttfb_s: Percentiles
    errors: dict[str, int]
    retries: int
    failed_ops: int
    requests: RequestCounts
    segment_s: float | None
    segments: int | None
    cv: float | None
    segment_ops_per_s: list[float]
    client_cpu_fraction: float | None
    client_max_process_cpu: float | None
    host_cpu_fraction: float | None
    processes: int
    flags: list[CellFlag]
    latency_histogram: LatencyHistogram | None = None
    ttfb_histogram: LatencyHistogram | None = None
    in_flight_mean: float | None = None
    late_arrivals: int | None = None
    notes: list[str] = field(default_factory=list)
    engine: EngineName | None = None  # the client that sent the requests, when every process used the same

    @property
    def note(self) -> str | None:
        return "; ".join(self.notes) if self.notes else None


def percentiles(values: np.ndarray, *, with_max: bool = True) -> Percentiles:
    """Mean, p50 to p99.9 and max; p99.9 only from ``MIN_TAIL_SAMPLES`` samples up.

    A percentile is a sample: the smallest with at least that share of the samples at or below it
    (no interpolation), the same rank ``LatencyHistogram.quantile`` reads, so the two agree within
    the histogram's bucket.
    """
    if values.size == 0:
        return Percentiles()
    quantiles = np.percentile(values, [50, 90, 95, 99, 99.9], method="inverted_cdf")
    p50, p90, p95, p99, p999 = (float(v) for v in quantiles)
    return Percentiles(
        mean=float(values.mean()),
        p50=p50,
        p90=p90,
        p95=p95,
        p99=p99,
        p999=p999 if values.size >= MIN_TAIL_SAMPLES else None,
        max=float(values.max()) if with_max else None,
    )


def histogram(values: np.ndarray) -> LatencyHistogram | None:
    return LatencyHistogram.from_samples(values.tolist()) if values.size else None


def time_in_flight(spans: list[tuple[np.ndarray, np.ndarray]], lo: float, hi: float) -> float:
    """Seconds of request time inside [lo, hi], summed over every (starts, ends) span given."""
    return float(sum(np.clip(np.minimum(ends, hi) - np.maximum(starts, lo), 0.0, None).sum() for starts, ends in spans))


def _overlap(starts: np.ndarray, ends: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Fraction of each request's duration that lies inside [lo, hi]."""
    durations = np.maximum(ends - starts, 1e-9)
    inside = np.clip(np.minimum(ends, hi) - np.maximum(starts, lo), 0.0, None)
    return np.asarray(inside / durations)


def request_counts(results: list[LoadResult]) -> RequestCounts:
    """Every attempt of a load, whenever it ran (warm-up included): the exact request accounting."""
    succeeded = sum(len(r.starts) for r in results)
    retried = sum(1 for r in results for _, _, was_retried in r.errors if was_retried)
    failed = sum(1 for r in results for _, _, was_retried in r.errors if not was_retried)
    return RequestCounts(attempts=succeeded + retried + failed, succeeded=succeeded, failed=failed, retried=retried)


def choose_segment_s(duration_s: float) -> float:
    """About ten segments, at least 0.5 s each (warp's default analysis splits runs likewise)."""
    return max(0.5, duration_s / 10.0)


def _engine(results: list[LoadResult]) -> EngineName | None:
    engines = {r.engine for r in results if r.failure is None}
    return engines.pop() if len(engines) == 1 else None


def load_figures(
    results: list[LoadResult],
    *,
    window_start: float,
    window_end: float,
    cpu_count: int,
    link_bits_per_s: float | None,
    count_bytes: bool = True,
    segment_s: float | None = None,
    concurrency: int | None = None,
    open_loop: bool = False,
) -> CellFigures:
    """The figures of one load. ``concurrency`` (a closed loop's nominal) is checked against the
    requests that were actually in flight; ``open_loop`` times requests from their arrival."""
    starts, ends, ttfbs, sizes, origins = _samples(results, open_loop)
    asked_s = window_end - window_start
    window_end = _measured_end(ends, window_start, window_end, open_loop)
    duration = window_end - window_start
    weights = _overlap(starts, ends, window_start, window_end) if starts.size else np.zeros(0)
    in_window = (origins >= window_start) & (origins < window_end) if starts.size else np.zeros(0, dtype=bool)
    samples = int(in_window.sum())
    ops = float(weights.sum()) / duration if samples else None
    throughput = float((weights * sizes).sum()) / duration / MIB if samples and count_bytes else None
    seg = segment_s or choose_segment_s(duration)
    count = max(1, math.floor(duration / seg + 1e-9))
    segment_rates, segment_ops = _segment_rates(
        starts, ends, sizes, window_start, seg, count if samples else 0, count_bytes
    )
    errors, retries, failed = _window_errors(results, window_start, window_end)
    latency = (ends - origins)[in_window] if samples else np.zeros(0)
    ttfb = ttfbs[in_window] if samples else np.zeros(0)
    in_flight, backoff = _in_flight(results, starts, ends, window_start, window_end)
    late = sum(1 for r in results for due in r.late_arrivals if window_start <= due < window_end) if open_loop else None
    cpu = _client_cpu(results, cpu_count)

    flags, notes = _flags_and_notes(
        results,
        window_start=window_start,
        window_end=window_end,
        asked_s=asked_s,
        samples=samples,
        failed=failed,
        throughput=throughput,
        in_flight=in_flight,
        backoff=backoff,
        cpu=cpu,
        concurrency=concurrency,
        open_loop=open_loop,
        link_bits_per_s=link_bits_per_s,
    )

    return CellFigures(
        window_start=window_start,
        window_end=window_end,
        samples=samples,
        duration_s=duration,
        throughput_mib_per_s=throughput,
        ops_per_s=ops,
        latency_s=percentiles(latency),
        ttfb_s=percentiles(ttfb, with_max=False),
        errors=dict(errors),
        retries=retries,
        failed_ops=failed,
        requests=request_counts(results),
        segment_s=seg if count >= 2 else None,
        segments=count if count >= 2 else None,
        cv=coefficient_of_variation(segment_rates),
        segment_ops_per_s=segment_ops,
        client_cpu_fraction=cpu.fraction,
        client_max_process_cpu=cpu.max_process,
        host_cpu_fraction=cpu.host,
        processes=len(results),
        flags=flags,
        latency_histogram=histogram(latency),
        ttfb_histogram=histogram(ttfb),
        in_flight_mean=in_flight if samples or in_flight else None,
        late_arrivals=late,
        notes=notes,
        engine=_engine(results),
    )


def _samples(
    results: list[LoadResult], open_loop: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every successful request's start, end, TTFB, bytes and origin (what its latency is timed
    from: its start, or in an open loop its scheduled arrival), from every worker process."""
    starts = np.array([s for r in results for s in r.starts], dtype=float)
    ends = np.array([e for r in results for e in r.ends], dtype=float)
    ttfbs = np.array([t for r in results for t in r.ttfbs], dtype=float)
    sizes = np.array([n for r in results for n in r.nbytes], dtype=float)
    origins = np.array([t for r in results for t in r.scheduled], dtype=float) if open_loop else starts
    if origins.size != starts.size:
        raise ValueError("an open-loop load must give every request its scheduled arrival")
    return starts, ends, ttfbs, sizes, origins


def _measured_end(ends: np.ndarray, window_start: float, window_end: float, open_loop: bool) -> float:
    """The measured window's end: the nominal one, or the last request's end if that came first."""
    window_end = max(window_end, window_start + 1e-6)
    if ends.size and not open_loop:
        # a finite work list (DELETE) may run out before the nominal end; an open loop's last
        # arrival may simply come a while before it (at 10/s, 0.1 s on average)
        window_end = max(min(window_end, float(ends.max())), window_start + 1e-6)
    return window_end


def _segment_rates(
    starts: np.ndarray,
    ends: np.ndarray,
    sizes: np.ndarray,
    window_start: float,
    seg: float,
    count: int,
    count_bytes: bool,
) -> tuple[list[float], list[float]]:
    """Per segment of the window: the rate the CV is taken of (bytes/s, or ops/s) and the ops/s;
    none for fewer than two segments."""
    segment_rates: list[float] = []
    segment_ops: list[float] = []
    if count >= 2:
        for index in range(count):
            lo = window_start + index * seg
            part = _overlap(starts, ends, lo, lo + seg)
            segment_ops.append(float(part.sum()) / seg)
            segment_rates.append(float((part * sizes).sum()) / seg if count_bytes else float(part.sum()) / seg)
    return segment_rates, segment_ops


def _window_errors(results: list[LoadResult], window_start: float, window_end: float) -> tuple[Counter[str], int, int]:
    """Errors by label in the window (and a second after it), the retried and the failed ones;
    a worker that failed as a whole counts as one error."""
    errors: Counter[str] = Counter()
    retries = failed = 0
    for result in results:
        for at, label, retried in result.errors:
            if window_start <= at <= window_end + 1.0:
                errors[label] += 1
                retries += retried
                failed += not retried
        if result.failure:
            errors[f"worker: {result.failure}"] += 1
    return errors, retries, failed


def _in_flight(
    results: list[LoadResult], starts: np.ndarray, ends: np.ndarray, window_start: float, window_end: float
) -> tuple[float, float]:
    """Requests in flight and in a retry's back-off, time-averaged over the window."""
    duration = window_end - window_start
    # requests in flight: every attempt on the wire, the failed ones too (a retry's back-off is not)
    failed_spans = [
        (np.array(r.error_starts, dtype=float), np.array([at for at, _, _ in r.errors], dtype=float))
        for r in results
        if r.error_starts and len(r.error_starts) == len(r.errors)
    ]
    in_flight = time_in_flight([(starts, ends), *failed_spans], window_start, window_end) / duration
    backoff = time_in_flight(
        [(np.array([a for a, _ in r.backoffs], dtype=float), np.array([b for _, b in r.backoffs], dtype=float))
         for r in results if r.backoffs],
        window_start,
        window_end,
    ) / duration  # fmt: skip
    return in_flight, backoff


@dataclass(frozen=True)
class _ClientCpu:
    """The client's CPU over a load: every worker process's share of the host's cores, the
    busiest process's share of one core, and the whole host's busy fraction."""

    fraction: float | None
    max_process: float | None
    host: float | None

    def saturation(self) -> list[str]:
        """Why the client's CPU, not the endpoint, may have set the pace (empty if it did not)."""
        saturated: list[str] = []
        if self.max_process is not None and self.max_process >= SATURATED_PROCESS_CPU:
            saturated.append(
                f"a worker process used {self.max_process:.2f} of a core (the interpreter lock is the limit)"
            )
        if self.fraction is not None and self.fraction >= SATURATED_CLIENT_CPU:
            saturated.append(f"the client used {self.fraction:.0%} of the host's cores")
        if self.host is not None and self.host >= SATURATED_HOST_CPU:
            saturated.append(
                f"the host's CPU was {self.host:.0%} busy (all processes), so the client could not get more"
            )
        return saturated


def _client_cpu(results: list[LoadResult], cpu_count: int) -> _ClientCpu:
    busy = [r for r in results if r.window_s > 0]
    return _ClientCpu(
        fraction=sum(r.cpu_s for r in busy) / (max(r.window_s for r in busy) * max(1, cpu_count)) if busy else None,
        max_process=max((r.cpu_s / r.window_s for r in busy), default=None),
        host=max((r.host_busy_fraction for r in busy if r.host_busy_fraction is not None), default=None),
    )


def _flags_and_notes(
    results: list[LoadResult],
    *,
    window_start: float,
    window_end: float,
    asked_s: float,
    samples: int,
    failed: int,
    throughput: float | None,
    in_flight: float,
    backoff: float,
    cpu: _ClientCpu,
    concurrency: int | None,
    open_loop: bool,
    link_bits_per_s: float | None,
) -> tuple[list[CellFlag], list[str]]:
    """How far a load's figures can be trusted: too few samples, a short window, a client that set
    the pace (its CPU, fewer requests in flight than asked, late arrivals), a rate above the link."""
    duration = window_end - window_start
    flags: list[CellFlag] = []
    notes: list[str] = []
    if samples < MIN_SAMPLES or failed > samples:
        # too few successes to stand for the cell, or most requests failed: the figures above are
        # the successes' own (a failure is never a zero in them), and the flag says how little
        # they rest on
        flags.append("too-few-samples")
    if 0 < samples < MIN_TAIL_SAMPLES:
        notes.append(f"p99.9 not given: {samples} samples (it needs at least {MIN_TAIL_SAMPLES})")
    if asked_s > 0 and duration < SHORT_WINDOW * asked_s:
        flags.append("short-window")
        notes.append(f"measured over {duration:.3g} s of the {asked_s:.3g} s asked (the work list ran out)")
    saturated = cpu.saturation()
    if (
        concurrency
        and not open_loop
        and samples
        and duration >= SHORT_WINDOW * asked_s
        and in_flight + backoff < IN_FLIGHT_SHORTFALL * concurrency
    ):
        saturated.append(f"{in_flight:.1f} requests in flight on average of the {concurrency} asked")
    arrivals = samples + failed
    slow = sum(1 for r in results for due in r.slow_sends if window_start <= due < window_end)
    if open_loop and slow > LATE_SHARE * arrivals:
        saturated.append(f"{slow} of {arrivals} arrivals sent late by a worker that was free for them")
    if saturated:
        flags.append("client-saturated")
        notes.append("client-bound: " + "; ".join(saturated))
    if link_bits_per_s and throughput is not None and throughput * MIB * 8 > link_bits_per_s:
        flags += ["above-link", "implausible"]
    return flags, notes
