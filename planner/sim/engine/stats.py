"""Small statistics the simulator needs without scipy: Student t quantiles and byte accounting."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

FloatArray = np.ndarray[Any, np.dtype[np.float64]]

# Two-sided 95 % Student t quantiles (t_{0.975, df}) for df = 1..30, from the standard tables.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_Z975 = 1.959963984540054


def t975(df: int) -> float:
    """t_{0.975, df}: tables to 30 degrees of freedom, the Cornish-Fisher expansion beyond."""
    if df < 1:
        raise ValueError("a confidence interval needs at least two replications")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def mean_and_half_width(values: list[float]) -> tuple[float, float | None]:
    """Mean of replication values and the 95 % CI half-width (None with fewer than two values)."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return math.nan, None
    mean = sum(finite) / len(finite)
    if len(finite) < 2:
        return mean, None
    variance = sum((v - mean) ** 2 for v in finite) / (len(finite) - 1)
    return mean, t975(len(finite) - 1) * math.sqrt(variance / len(finite))


def _ramp_sums(origins: FloatArray, weights: FloatArray, at: FloatArray) -> FloatArray:
    """For each time in ``at``: sum of weight * (time - origin) over origins before it."""
    order = np.argsort(origins, kind="stable")
    sorted_origins = origins[order]
    cum_w = np.concatenate([[0.0], np.cumsum(weights[order])])
    cum_wo = np.concatenate([[0.0], np.cumsum(weights[order] * sorted_origins)])
    k = np.searchsorted(sorted_origins, at, side="left")
    result: FloatArray = at * cum_w[k] - cum_wo[k]
    return result


def delivered_bytes(start: FloatArray, end: FloatArray, nbytes: FloatArray, at: FloatArray) -> FloatArray:
    """Bytes delivered by time ``at``, each transfer spread evenly over [start, end].

    A transfer's bytes arrive at a rate that changes with sharing; the even spread is exact
    for totals over its whole span and close enough for per-second bins.
    """
    span = end - start
    timed = span > 0
    rate = np.where(timed, nbytes / np.where(timed, span, 1.0), 0.0)
    total = _ramp_sums(start[timed], rate[timed], at) - _ramp_sums(end[timed], rate[timed], at)
    instant = ~timed
    if instant.any():
        order = np.sort(end[instant])
        sizes = nbytes[instant][np.argsort(end[instant], kind="stable")]
        cumulative = np.concatenate([[0.0], np.cumsum(sizes)])
        total = total + cumulative[np.searchsorted(order, at, side="right")]
    return total


RETAINED_SAMPLES = 200_000
"""Samples a ``StreamingQuantiles`` keeps exactly before it folds them into its histogram."""
_GROWTH = 1.001
_LOW_S = 1e-7
_BUCKETS = math.ceil(math.log(1e6 / _LOW_S) / math.log(_GROWTH)) + 2


def _bucket_counts(values: FloatArray) -> np.ndarray[Any, np.dtype[np.int64]]:
    """How many of ``values`` fall in each of ``StreamingQuantiles``' histogram buckets."""
    index = np.floor(np.log(np.maximum(values, _LOW_S) / _LOW_S) / math.log(_GROWTH)).astype(np.int64)
    return np.bincount(np.minimum(index, _BUCKETS - 1), minlength=_BUCKETS)


class StreamingQuantiles:
    """Percentiles of a stream of non-negative seconds in bounded memory.

    Up to ``retained`` samples are kept as they are and give numpy's exact (linearly
    interpolated) percentiles. Past that, every sample goes into a log histogram of buckets
    0.1 % wide from 0.1 us to 10^6 s (about 28,000 counters, whatever the count), and a
    percentile is its bucket's geometric middle, clamped to the smallest and largest sample
    seen: within 0.05 % of the exact value (half a bucket), plus the gap between neighbouring
    samples that numpy's interpolation would bridge. Below 0.1 us a sample counts in the first
    bucket (reported as the smallest sample seen).
    """

    __slots__ = ("_counts", "_max", "_min", "_samples", "count", "retained")

    def __init__(self, retained: int = RETAINED_SAMPLES) -> None:
        self.retained = retained
        self._samples: list[FloatArray] = []
        self._counts: np.ndarray[Any, np.dtype[np.int64]] | None = None
        self.count = 0
        self._min, self._max = math.inf, -math.inf

    @property
    def kept(self) -> int:
        """Samples held as they are (0 once the histogram took over)."""
        return sum(len(s) for s in self._samples)

    def add(self, values: FloatArray) -> None:
        if not values.size:
            return
        self.count += int(values.size)
        self._min = min(self._min, float(values.min()))
        self._max = max(self._max, float(values.max()))
        if self._counts is None:
            self._samples.append(np.array(values, dtype=np.float64))
            if self.kept <= self.retained:
                return
            self._counts = np.zeros(_BUCKETS, dtype=np.int64)
            values = np.concatenate(self._samples)
            self._samples = []
        self._counts += _bucket_counts(values)

    def merge(self, other: StreamingQuantiles) -> None:
        """Add everything ``other`` holds (another stretch of the same stream, summarised apart)."""
        if other._counts is None:
            for samples in other._samples:
                self.add(samples)
            return
        if self._counts is None:
            held = np.concatenate(self._samples) if self._samples else np.empty(0)
            self._counts, self._samples = _bucket_counts(held), []
        self._counts += other._counts
        self.count += other.count
        self._min, self._max = min(self._min, other._min), max(self._max, other._max)

    def percentiles(self, levels: tuple[float, ...]) -> list[float]:
        """The percentiles (0-100) of everything added; NaN when nothing was."""
        if not self.count:
            return [math.nan] * len(levels)
        if self._counts is None:
            values = np.concatenate(self._samples)
            out: list[float] = np.percentile(values, levels).tolist()
            return out
        cumulative = np.cumsum(self._counts)
        ranks = np.array(levels) / 100 * (self.count - 1)
        buckets = np.searchsorted(cumulative, ranks, side="right")
        middles = _LOW_S * _GROWTH ** (buckets + 0.5)
        return np.clip(middles, self._min, self._max).tolist()  # type: ignore[no-any-return]
