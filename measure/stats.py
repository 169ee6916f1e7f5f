"""Turn raw worker samples into a cell's figures: rates, percentiles, errors, CV, client CPU.

Throughput counts each request's bytes spread evenly over its duration and integrates that over
the measured window (warm-up excluded), so a 100 MiB GET straddling the window edge counts for
the part inside it. Percentiles use the requests that *started* inside the window.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from measure.profile import MIB, CellFlag, Percentiles, RequestCounts, coefficient_of_variation
from measure.worker import LoadResult

MIN_SAMPLES = 20
SATURATED_PROCESS_CPU = 0.9  # one process at 90 % of a core: the GIL is the limit
SATURATED_HOST_CPU = 0.9  # all workers together use 90 % of the host's cores


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
    processes: int
    flags: list[CellFlag]


def percentiles(values: np.ndarray, *, with_max: bool = True) -> Percentiles:
    if values.size == 0:
        return Percentiles()
    p50, p90, p99 = (float(v) for v in np.percentile(values, [50, 90, 99]))
    return Percentiles(
        mean=float(values.mean()),
        p50=p50,
        p90=p90,
        p99=p99,
        max=float(values.max()) if with_max else None,
    )


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


def summarise(
    results: list[LoadResult],
    *,
    window_start: float,
    window_end: float,
    cpu_count: int,
    link_bits_per_s: float | None,
    count_bytes: bool = True,
    segment_s: float | None = None,
) -> CellFigures:
    starts = np.array([s for r in results for s in r.starts], dtype=float)
    ends = np.array([e for r in results for e in r.ends], dtype=float)
    ttfbs = np.array([t for r in results for t in r.ttfbs], dtype=float)
    sizes = np.array([n for r in results for n in r.nbytes], dtype=float)
    window_end = max(window_end, window_start + 1e-6)
    if ends.size:
        # a finite work list (DELETE) may run out before the nominal end
        window_end = max(min(window_end, float(ends.max())), window_start + 1e-6)
    duration = window_end - window_start
    weights = _overlap(starts, ends, window_start, window_end) if starts.size else np.zeros(0)
    in_window = (starts >= window_start) & (starts < window_end) if starts.size else np.zeros(0, dtype=bool)
    samples = int(in_window.sum())
    ops = float(weights.sum()) / duration if samples else None
    throughput = float((weights * sizes).sum()) / duration / MIB if samples and count_bytes else None

    seg = segment_s or choose_segment_s(duration)
    count = max(1, math.floor(duration / seg + 1e-9))
    segment_rates: list[float] = []
    segment_ops: list[float] = []
    if samples and count >= 2:
        for index in range(count):
            lo = window_start + index * seg
            part = _overlap(starts, ends, lo, lo + seg)
            segment_ops.append(float(part.sum()) / seg)
            segment_rates.append(float((part * sizes).sum()) / seg if count_bytes else float(part.sum()) / seg)
    cv = coefficient_of_variation(segment_rates)

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
    requests = request_counts(results)
    latency = (ends - starts)[in_window] if samples else np.zeros(0)
    ttfb = ttfbs[in_window] if samples else np.zeros(0)

    busy = [r for r in results if r.window_s > 0]
    cpu_fraction = sum(r.cpu_s for r in busy) / (max(r.window_s for r in busy) * max(1, cpu_count)) if busy else None
    max_process = max((r.cpu_s / r.window_s for r in busy), default=None)

    flags: list[CellFlag] = []
    if samples < MIN_SAMPLES or failed > samples:
        # too few successes to stand for the cell, or most requests failed: the figures above are
        # the successes' own (a failure is never a zero in them), and the flag says how little
        # they rest on
        flags.append("too-few-samples")
    if (cpu_fraction is not None and cpu_fraction >= SATURATED_HOST_CPU) or (
        max_process is not None and max_process >= SATURATED_PROCESS_CPU
    ):
        flags.append("client-saturated")
    if link_bits_per_s and throughput is not None and throughput * MIB * 8 > link_bits_per_s:
        flags += ["above-link", "implausible"]

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
        requests=requests,
        segment_s=seg if count >= 2 else None,
        segments=count if count >= 2 else None,
        cv=cv,
        segment_ops_per_s=segment_ops,
        client_cpu_fraction=cpu_fraction,
        client_max_process_cpu=max_process,
        processes=len(results),
        flags=flags,
    )
