"""The wake-up term (``planner.sim.model.wakeup``) at a window's arrival rate: the model's sparse latency,
the sparser cell's, less what a window at that rate does not pay of it, percentile by percentile."""

from __future__ import annotations

import numpy as np

from planner.sim.model.provider import BILLED_OPERATIONS, LatencyModel, ProviderModel, SizedLatency
from planner.sim.spec import OpenLoop, SimSpec


def with_wake_up_at(provider: ProviderModel, spec: SimSpec, duration_s: float) -> ProviderModel:
    """``provider`` with each operation's sparse latency lowered by its wake-up term's relief at that
    operation's mean arrival rate in the window (an open loop's; a closed loop keeps the sparser cell's
    latency), each percentile by the term's relief at that percentile (the same seconds at every size)
    and never below half its value."""
    if not provider.wake_up or not isinstance(spec.arrivals, OpenLoop):
        return provider
    rate_per_s = spec.arrivals.expected_arrivals(0.0, duration_s) / duration_s
    shares = dict(zip(BILLED_OPERATIONS[:4], spec.mix.shares(), strict=True))
    sparse = dict(provider.sparse_latency_by_size)
    for op, term in provider.wake_up.items():
        # an operation's rate, as its cells' offered rates are (a 10/s 80:20 cell's GETs: 8/s)
        relief = term.relief_at(rate_per_s * shares.get(op, 0.0))
        sized = sparse.get(op)
        if sized is None or not any(seconds > 0 for _, seconds in relief):
            continue
        sparse[op] = SizedLatency(points=[(size, _lowered(latency, relief)) for size, latency in sized.points])
    return provider.model_copy(update={"sparse_latency_by_size": sparse})


def _lowered(latency: LatencyModel, relief: list[tuple[float, float]]) -> LatencyModel:
    """``latency`` less ``relief`` ((probability, seconds), linear in probability between its knots and
    its end knots' beyond them), each knot at least half its value and none below the one before."""
    if latency.distribution != "empirical":
        return latency
    probabilities = [q for q, _ in latency.quantiles]
    values = np.array([v for _, v in latency.quantiles])
    seconds = np.interp(probabilities, [q for q, _ in relief], [r for _, r in relief])
    lowered = np.maximum.accumulate(np.maximum(values - seconds, 0.5 * values))
    return LatencyModel.empirical(list(zip(probabilities, lowered.tolist(), strict=True)))
