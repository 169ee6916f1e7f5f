"""The event loop's bookkeeping: steps due at the same instant, each request issued and recorded once."""

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
from planner.sim.spec import MultipartPolicy, RangedGetPolicy


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


def test_split_requests_of_an_open_loop_are_counted_once() -> None:
    """Ranged GETs and multipart uploads arriving in an open loop, all of which end within the
    drain: none is left unfinished (each arrival is one logical operation issued, not two)."""
    mib = 2**20
    provider = ProviderModel(provider_id="constant", ttfb_get=LatencyModel.constant(0.01))
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=50.0),
        mix=OperationMix(get=1, put=1),
        sizes=SizeDistribution.fixed(20 * mib),
        keys=KeyPopularity(keys=100),
        client=ClientSpec(
            link_bits_per_s=10e9,
            multipart=MultipartPolicy(threshold_bytes=16 * mib, part_size_bytes=5 * mib),
            ranged_get=RangedGetPolicy(threshold_bytes=16 * mib, streams=4),
        ),
    )
    run = Replication(spec, provider, 2.0, np.random.default_rng(3)).run()
    assert len(run.lop) > 50
    assert run.ok.all()
    assert run.unfinished == 0
