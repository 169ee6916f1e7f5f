"""The event loop's bookkeeping: steps due at the same instant, each request issued and recorded once."""

from __future__ import annotations

from typing import Any
from unittest import mock

import numpy as np
import pytest

from planner.sim import (
    BandwidthCurve,
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
from planner.sim.engine.fluid_network import FluidNetwork
from planner.sim.engine.replication import Replication
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


def _plain_case() -> tuple[SimSpec, ProviderModel]:
    provider = ProviderModel(
        provider_id="plain",
        ttfb_get=LatencyModel(p50_s=0.010, p99_s=0.060),
        ttfb_put=LatencyModel(p50_s=0.020, p99_s=0.080),
        stream_read=BandwidthCurve.flat(1e9),
        stream_write=BandwidthCurve.flat(5e8),
    )
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=100.0),
        mix=OperationMix(get=0.8, put=0.2),
        sizes=SizeDistribution.fixed(2**20),
        keys=KeyPopularity(keys=100),
    )
    return spec, provider


@pytest.mark.parametrize(
    ("owner", "name"),
    [(Replication, "_after"), (Replication, "_issue"), (FluidNetwork, "add"), (FluidNetwork, "finish_next")],
)
def test_the_loop_calls_the_step_methods_a_mock_replaces(owner: type, name: str) -> None:
    """The loop runs as written: a step patched on its class is the one called (as a debugger,
    profiler or coverage sees it), and the run records what it did unpatched. Here every request
    is one part that is issued, sends its body once (``add``, ``finish_next``) and is pushed once
    (a GET's first byte, an upload's response), with no rejections."""
    spec, provider = _plain_case()
    unpatched = Replication(spec, provider, 1.0, np.random.default_rng(1)).run()
    with mock.patch.object(owner, name, autospec=True, side_effect=getattr(owner, name)) as spy:
        run = Replication(spec, provider, 1.0, np.random.default_rng(1)).run()
    assert len(run.lop) > 50
    assert spy.call_count == len(run.lop)
    assert np.array_equal(run.t_end, unpatched.t_end)


def test_a_replication_that_redefines_a_step_runs_it() -> None:
    class Counted(Replication):
        pushed = 0

        def _after(self, part: Any, delay: float, now: float) -> None:
            Counted.pushed += 1
            super()._after(part, delay, now)

    spec, provider = _plain_case()
    run = Counted(spec, provider, 1.0, np.random.default_rng(1)).run()
    assert Counted._loop is Replication._loop
    assert Counted.pushed >= len(run.lop) > 50  # every request's first byte or response was pushed
