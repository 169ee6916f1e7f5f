"""The synthetic requests of a spec: each one's operation, size and key, and an open loop's
arrival times, drawn in numpy blocks. The simulator (``planner.sim.engine.replication``) draws its requests
here, and so does the trace generator (``planner.sim.front.trace``)."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from planner.sim.spec import OpenLoop, SimSpec

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
IntArray = np.ndarray[Any, np.dtype[np.int64]]

LOGICAL_OPERATIONS: tuple[str, ...] = ("GET", "PUT", "HEAD", "LIST")
GET, PUT, HEAD, _LIST = range(4)
_SEARCH_IN_ORDER_FROM = 16_384  # entries (128 KiB) from which a table is searched in the draws' order


class RequestSource:
    """The synthetic requests of a spec: Poisson arrival times shaped by its open loop, and each
    request's operation, size and key (a hot object ``h`` as key ``-1 - h``), drawn from ``rng``.
    The simulator draws from it, and so does the trace generator (planner.sim.front.trace), so a
    generated trace holds the requests a simulation of the same spec would."""

    def __init__(self, spec: SimSpec, rng: np.random.Generator) -> None:
        self.spec, self.rng = spec, rng
        keys = spec.keys
        self.key_count = keys.keys
        self.zipf_cdf = _zipf_cdf(keys.keys, keys.zipf_exponent) if keys.zipf_exponent > 0 else None
        hot = keys.hot
        self.hot_replicas = hot.replicas if hot else 1
        self.op_cdf = np.cumsum(spec.mix.shares())
        self.size_values = np.array(spec.sizes.sizes_bytes, dtype=np.int64)
        self.size_cdf = np.cumsum(spec.sizes.probabilities())
        put_sizes = spec.put_sizes
        self.put_size_values = None if put_sizes is None else np.array(put_sizes.sizes_bytes, dtype=np.int64)
        self.put_size_cdf = None if put_sizes is None else np.cumsum(put_sizes.probabilities())

    def requests(self, count: int) -> tuple[IntArray, IntArray, IntArray]:
        """``count`` requests' operations, sizes and keys (a hot object ``h`` as key ``-1 - h``)."""
        rng, keys = self.rng, self.spec.keys
        lops = np.minimum(np.searchsorted(self.op_cdf, rng.random(count), side="right"), 3)
        sizes = self.size_values[
            np.minimum(np.searchsorted(self.size_cdf, rng.random(count), side="right"), len(self.size_values) - 1)
        ]
        if self.put_size_values is not None and self.put_size_cdf is not None:
            puts = lops == PUT
            drawn = np.searchsorted(self.put_size_cdf, rng.random(int(puts.sum())), side="right")
            sizes[puts] = self.put_size_values[np.minimum(drawn, len(self.put_size_values) - 1)]
        if self.zipf_cdf is None:
            key_ids = rng.integers(0, self.key_count, count)
        else:
            key_ids = np.minimum(_search_in_order(self.zipf_cdf, rng.random(count)), self.key_count - 1)
        hot = keys.hot
        if hot is not None and hot.share_of_reads > 0:
            is_hot = (lops == GET) & (rng.random(count) < hot.share_of_reads)
            key_ids[is_hot] = -1 - rng.integers(0, hot.objects, int(is_hot.sum()))
            if hot.size_bytes is not None:
                sizes[is_hot] = hot.size_bytes
        return lops, sizes, key_ids

    def arrival_times(self, loop: OpenLoop, start_s: float, end_s: float) -> FloatArray:
        """Poisson arrivals in [start_s, end_s), thinned from the profile's peak rate."""
        rng, peak = self.rng, loop.max_rate_per_s
        expected = peak * (end_s - start_s)
        count = int(expected + 6 * math.sqrt(expected) + 16)
        times = np.cumsum(rng.exponential(1.0 / peak, count)) + start_s
        while times[-1] < end_s:
            more = np.cumsum(rng.exponential(1.0 / peak, count)) + times[-1]
            times = np.concatenate([times, more])
        times = times[times < end_s]
        if loop.profile in ("mean", "peak"):
            return times
        keep = rng.random(len(times)) < loop.rates_per_s(times) / peak
        return times[keep]


@functools.lru_cache(maxsize=8)
def _zipf_cdf(keys: int, exponent: float) -> FloatArray:
    """The cumulative Zipf law over ``keys`` keys, made once for every replication and provider that
    draws from it (read-only: it is shared)."""
    weights = np.arange(1, keys + 1, dtype=np.float64) ** -exponent
    cumulative = np.cumsum(weights)
    cdf: FloatArray = cumulative / cumulative[-1]
    cdf.flags.writeable = False
    return cdf


def _search_in_order(cdf: FloatArray, draws: FloatArray) -> IntArray:
    """``np.searchsorted(cdf, draws, side="right")``, searched in the draws' sorted order: each search
    then starts where the last ended, so a large ``cdf`` (a Zipf law over many keys) is walked once
    instead of from its top for every draw, which costs less than the sort when ``cdf`` is larger
    than the CPU's cache. The same indices, in the draws' order."""
    if len(cdf) < _SEARCH_IN_ORDER_FROM:
        found: IntArray = np.searchsorted(cdf, draws, side="right")
        return found
    order = np.argsort(draws)
    found = np.empty(len(draws), dtype=np.int64)
    found[order] = np.searchsorted(cdf, draws[order], side="right")
    return found
