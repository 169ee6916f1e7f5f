"""The wake-up term (``planner.sim.wakeup``) at a window's arrival rate: the model's sparse latency,
the sparser cell's, less what a window at that rate does not pay of it."""

from __future__ import annotations

from planner.sim.provider import BILLED_OPERATIONS, LatencyModel, ProviderModel, SizedLatency
from planner.sim.spec import OpenLoop, SimSpec


def with_wake_up_at(provider: ProviderModel, spec: SimSpec, duration_s: float) -> ProviderModel:
    """``provider`` with each operation's sparse latency lowered by its wake-up term's relief at that
    operation's mean arrival rate in the window (an open loop's; a closed loop keeps the sparser cell's
    latency), every quantile by the same seconds and never below half its value."""
    if not provider.wake_up or not isinstance(spec.arrivals, OpenLoop):
        return provider
    rate_per_s = spec.arrivals.expected_arrivals(0.0, duration_s) / duration_s
    shares = dict(zip(BILLED_OPERATIONS[:4], spec.mix.shares(), strict=True))
    sparse = dict(provider.sparse_latency_by_size)
    for op, term in provider.wake_up.items():
        # an operation's rate, as its cells' offered rates are (a 10/s 80:20 cell's GETs: 8/s)
        relief_s = term.relief_s(rate_per_s * shares.get(op, 0.0))
        sized = sparse.get(op)
        if sized is None or relief_s <= 0:
            continue
        sparse[op] = SizedLatency(points=[(size, _lowered(latency, relief_s)) for size, latency in sized.points])
    return provider.model_copy(update={"sparse_latency_by_size": sparse})


def _lowered(latency: LatencyModel, seconds: float) -> LatencyModel:
    if latency.distribution != "empirical":
        return latency
    return LatencyModel.empirical([(q, max(v - seconds, 0.5 * v)) for q, v in latency.quantiles])
