"""How much of a long window to simulate: a steady window's requests all draw from one distribution,
so past ``STRETCH_REQUESTS`` requests a longer stretch only narrows the sampling noise.
A steady (or periodic) open loop longer than that is simulated for a representative stretch from
its start, a whole number of its periods, and its counts are scaled to the window; its latency
percentiles, means and throughput are the stretch's. The cost of a window then grows with its
requests up to that many, and not past it, however long the window.

``shortest_request_s`` is the other end: a window shorter than any request the model can answer
is refused before anything runs (its figures would be a few requests' drain, not a window's)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.sim.provider import ProviderModel
from planner.sim.spec import OpenLoop, SimSpec

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
    if not isinstance(arrivals, OpenLoop):
        return None  # a trace is what it recorded; a closed loop's rate is unknown before it runs
    periods: set[float] = set()
    if arrivals.profile in ("diurnal", "burst") and arrivals.peak_factor != 1:
        periods.add(float(arrivals.period_s))
    hot = spec.keys.hot
    if hot is not None and hot.peak_concurrency:
        if hot.burst_every_s is None:
            return None  # one burst at the start: the window is not the same throughout
        periods.add(float(hot.burst_every_s))
    if len(periods) > 1:
        return None
    return periods.pop() if periods else 0.0


def representative_stretch(spec: SimSpec, duration_s: float, warmup_s: float = 0.0) -> Stretch:
    """The stretch of the window to simulate: the whole window, unless it is steady or periodic, longer
    than ``LONG_WINDOW_S`` and expects more than ``STRETCH_REQUESTS`` requests; then the time of
    ``STRETCH_REQUESTS`` requests (ten minutes at least), rounded up to whole periods."""
    whole = Stretch(simulated_s=duration_s, count_factor=1.0)
    period_s = _period_s(spec)
    counted_s = duration_s - warmup_s
    if period_s is None or counted_s <= LONG_WINDOW_S:
        return whole
    assert isinstance(spec.arrivals, OpenLoop)
    rate_per_s = spec.arrivals.mean_rate_per_s * (spec.arrivals.peak_factor if spec.arrivals.profile == "peak" else 1)
    expected = rate_per_s * counted_s
    if expected <= STRETCH_REQUESTS:
        return whole
    stretch_s = max(_SHORTEST_STRETCH_S, counted_s * STRETCH_REQUESTS / expected)
    if period_s > 0:
        stretch_s = math.ceil(stretch_s / period_s) * period_s
    if stretch_s >= counted_s:
        return whole
    return Stretch(simulated_s=warmup_s + stretch_s, count_factor=counted_s / stretch_s)


def shortest_request_s(spec: SimSpec, provider: ProviderModel) -> float:
    """The least time any request of ``spec`` can take on ``provider``: the lowest floor of the
    latencies of the operations it issues (a constant latency is its own floor), plus the client's
    round trip."""
    shares = dict(zip(("get", "put", "head", "list"), spec.mix.shares(), strict=True))
    sizes = set(spec.sizes.sizes_bytes) | set(spec.put_sizes.sizes_bytes if spec.put_sizes else [])
    floors = []
    for operation, share in shares.items():
        if not share:
            continue
        for size in sizes if operation in ("get", "put") else {0}:
            latency = provider.latency(operation, size)
            constant = latency.distribution == "lognormal" and (latency.p99_s is None or latency.p99_s == latency.p50_s)
            floors.append(latency.p50_s if constant else latency.floor_s)
    return min(floors, default=0.0) + spec.client.round_trip_s
