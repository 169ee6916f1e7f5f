"""The event loop's bookkeeping: steps due at the same instant, each request recorded once."""

from __future__ import annotations

import numpy as np

from planner.sim import (
    ClientSpec,
    HotSet,
    KeyPopularity,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    SimSpec,
    SizeDistribution,
)
from planner.sim._engine import Replication


def test_a_burst_due_at_one_instant_is_served_in_full_at_that_instant() -> None:
    """3,000 reads with the same constant TTFB: every first byte lands at 25 ms, none lost."""
    provider = ProviderModel(provider_id="constant", ttfb_get=LatencyModel.constant(0.025))
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=1.0),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(0),
        keys=KeyPopularity(keys=10, hot=HotSet(objects=1, peak_concurrency=3000)),
        client=ClientSpec(connections=4096),
    )
    run = Replication(spec, provider, 1.0, np.random.default_rng(5)).run()
    burst = run.t_arrival == 0.0
    assert burst.sum() >= 3000
    assert run.ok.all()
    assert np.allclose(run.t_first[burst], 0.025, rtol=0, atol=1e-12)
    assert run.unfinished == 0
