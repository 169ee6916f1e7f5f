"""How much of a long window to simulate: a steady window's requests all draw from one distribution,
so past ``STRETCH_REQUESTS`` requests a longer stretch only narrows the sampling noise.
A steady (or periodic) open or closed loop longer than that is simulated for a representative stretch from
its start, a whole number of its periods, and its counts are scaled to the window; its latency
percentiles, means and throughput are the stretch's. The cost of a window then grows with its
requests up to that many, and not past it, however long the window.

``shortest_request_s`` is the other end: a window shorter than any request the model can answer
is refused before anything runs (its figures would be a few requests' drain, not a window's)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.sim.model import ProviderModel
from planner.sim.spec import ClosedLoop, OpenLoop, SimSpec, TraceArrivals

__all__ = ["LONG_WINDOW_S", "STRETCH_REQUESTS", "Stretch", "representative_stretch", "shortest_request_s"]

LONG_WINDOW_S = 86_400.0
"""A window of a day or less runs whole (its figures are the ones asked for, a 10-minute peak say);
a longer one may be simulated in part."""
STRETCH_REQUESTS = 100_000
"""Requests a representative stretch expects at least: percentiles of 100,000 requests per
replication pin a p99.9 on about 100 requests of its tail."""
_SHORTEST_STRETCH_S = 600.0
"""A stretch is ten minutes at least, however fast the requests come."""


@dataclass(frozen=True)
class Stretch:
    """The part of a window simulated: ``simulated_s`` from the window's start, warm-up included;
    the counts of its counted part times ``count_factor`` are the window's."""

    simulated_s: float
    count_factor: float

    @property
    def whole(self) -> bool:
        return self.count_factor == 1.0


def _period_s(spec: SimSpec) -> float | None:
    """The period the window's arrivals repeat with (0: steady; None: neither, simulate it whole)."""
    arrivals = spec.arrivals
    if isinstance(arrivals, TraceArrivals):
        return None  # a trace is what it recorded
    periods: set[float] = set()
    if isinstance(arrivals, OpenLoop) and arrivals.profile in ("diurnal", "burst") and arrivals.peak_factor != 1:
        periods.add(float(arrivals.period_s))
    hot = spec.keys.hot
    if hot is not None and hot.peak_concurrency:
        if hot.burst_every_s is None:
            return None  # one burst at the start: the window is not the same throughout
        periods.add(float(hot.burst_every_s))
    if len(periods) > 1:
        return None
    return periods.pop() if periods else 0.0


def representative_stretch(
    spec: SimSpec, duration_s: float, warmup_s: float = 0.0, provider: ProviderModel | None = None
) -> Stretch:
    """The stretch of the window to simulate: the whole window, unless it is steady or periodic, longer
    than ``LONG_WINDOW_S`` and expects more than ``STRETCH_REQUESTS`` requests; then the time of
    ``STRETCH_REQUESTS`` requests (ten minutes at least), rounded up to whole periods. A closed loop's
    rate is its workers over their think time and ``provider``'s mean latency (without ``provider``
    it runs whole)."""
    whole = Stretch(simulated_s=duration_s, count_factor=1.0)
    period_s = _period_s(spec)
    counted_s = duration_s - warmup_s
    if period_s is None or counted_s <= LONG_WINDOW_S:
        return whole
    arrivals = spec.arrivals
    if isinstance(arrivals, ClosedLoop):
        if provider is None:
            return whole
        rate_per_s = arrivals.workers / (arrivals.think_time_s + _mean_latency_s(spec, provider))
    else:
        assert isinstance(arrivals, OpenLoop)
        rate_per_s = arrivals.mean_rate_per_s * (arrivals.peak_factor if arrivals.profile == "peak" else 1)
    expected = rate_per_s * counted_s
    if expected <= STRETCH_REQUESTS:
        return whole
    stretch_s = max(_SHORTEST_STRETCH_S, counted_s * STRETCH_REQUESTS / expected)
    if period_s > 0:
        stretch_s = math.ceil(stretch_s / period_s) * period_s
    if stretch_s >= counted_s:
        return whole
    return Stretch(simulated_s=warmup_s + stretch_s, count_factor=counted_s / stretch_s)


def _sizes(spec: SimSpec, operation: str) -> list[tuple[int, float]]:
    """The sizes ``operation`` moves and their probabilities (none for HEAD and LIST)."""
    if operation not in ("get", "put"):
        return [(0, 1.0)]
    sizes = spec.put_sizes if operation == "put" and spec.put_sizes is not None else spec.sizes
    return list(zip(sizes.sizes_bytes, sizes.probabilities(), strict=True))


def _mean_latency_s(spec: SimSpec, provider: ProviderModel) -> float:
    """A request's mean latency on ``provider`` over the mix and sizes, plus the client's round trip
    (its transfer and any queue left out: an upper bound on a closed loop's rate)."""
    shares = zip(("get", "put", "head", "list"), spec.mix.shares(), strict=True)
    latency_s = sum(
        share * p * provider.latency(operation, size).mean_s
        for operation, share in shares
        if share
        for size, p in _sizes(spec, operation)
    )
    return max(latency_s + spec.client.round_trip_s, 1e-6)


def shortest_request_s(spec: SimSpec, provider: ProviderModel) -> float:
    """The least time any request of ``spec`` can take on ``provider``: the lowest floor of the
    latencies of the operations it issues (a constant latency is its own floor), plus the client's
    round trip."""
    shares = dict(zip(("get", "put", "head", "list"), spec.mix.shares(), strict=True))
    floors = []
    for operation, share in shares.items():
        if not share:
            continue
        for size, _ in _sizes(spec, operation):
            latency = provider.latency(operation, size)
            constant = latency.distribution == "lognormal" and (latency.p99_s is None or latency.p99_s == latency.p50_s)
            floors.append(latency.p50_s if constant else latency.floor_s)
    return min(floors, default=0.0) + spec.client.round_trip_s
