"""Rate limits: the simulator's admissions match a token bucket replayed over the same arrivals."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.sim import (
    ClientSpec,
    KeyPopularity,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    RateLimit,
    RetryPolicy,
    SimSpec,
    SizeDistribution,
)
from planner.sim.engine.replication import Replication


def _token_bucket(times: list[float], per_s: float, burst: float) -> list[bool]:
    """A bucket of ``burst`` tokens refilled at ``per_s``: each request takes one or is refused."""
    tokens, last, admitted = burst, 0.0, []
    for t in times:
        tokens = min(burst, tokens + (t - last) * per_s)
        last = t
        admitted.append(tokens >= 1.0)
        if tokens >= 1.0:
            tokens -= 1.0
    return admitted


@settings(max_examples=30, deadline=None)
@given(
    rate_per_s=st.floats(5, 400),
    per_s=st.floats(1, 300),
    burst=st.one_of(st.none(), st.floats(1, 50)),
    seed=st.integers(0, 2**16),
)
def test_admissions_match_a_token_bucket(rate_per_s: float, per_s: float, burst: float | None, seed: int) -> None:
    provider = ProviderModel(
        provider_id="limited",
        ttfb_get=LatencyModel.constant(0.0),
        ttfb_head=LatencyModel.constant(0.001),
        rate_limits=[RateLimit(operations=["head"], scope="bucket", per_s=per_s, burst=burst)],
    )
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=rate_per_s),
        mix=OperationMix(get=0, put=0, head=1),
        sizes=SizeDistribution.fixed(0),
        keys=KeyPopularity(keys=10),
        client=ClientSpec(connections=100_000, retry=RetryPolicy(max_attempts=1)),
    )
    run = Replication(spec, provider, 3.0, np.random.default_rng(seed)).run()
    order = np.argsort(run.t_arrival, kind="stable")
    expected = _token_bucket(run.t_arrival[order].tolist(), per_s, burst if burst is not None else max(1.0, per_s))
    assert run.ok[order].tolist() == expected
