"""A GET body's tail is drawn at its TTFB's rank (``planner.sim.engine.joint_tail``): where a profile measured a
size's TTFB and total latency together, the simulated total's quantiles are the measured ones."""

from __future__ import annotations

import pytest

from planner.sim import LatencyModel, OpenLoop, ProviderModel, SimSpec, SizeDistribution, SizedLatency, simulate_spec
from planner.sim.engine.joint_tail import JointTail
from planner.sim.model.provider import BandwidthCurve
from planner.sim.spec import OperationMix

# A synthetic cell of 4 KiB GETs whose TTFB and total latency are both known: total = TTFB + tail at
# every quantile (p50 20 + 0 ms, p90 30 + 10 ms, p99 100 + 100 ms, p99.9 200 + 300 ms); the body
# moves in no time (a 1 Tbps stream), so the simulated total is TTFB plus tail.
_TTFB = LatencyModel.empirical([(0.0, 0.010), (0.5, 0.020), (0.9, 0.030), (0.99, 0.100), (0.999, 0.200)])
_TAIL = LatencyModel.empirical([(0.0, 0.0), (0.5, 0.0), (0.9, 0.010), (0.99, 0.100), (0.999, 0.300)])
_MODEL = ProviderModel(
    provider_id="synthetic",
    ttfb_get=_TTFB,
    stream_read=BandwidthCurve.flat(1e12),
    stream_write=BandwidthCurve.flat(1e12),
    body_tail_by_size={"get": SizedLatency(points=[(4096, _TAIL)])},
    source="test",
)


def test_the_total_latency_keeps_the_measured_p99() -> None:
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=50.0),
        mix=OperationMix(get=1.0, put=0.0),
        sizes=SizeDistribution.fixed(4096),
    )
    get = simulate_spec(spec, _MODEL, 2000.0, seed=1).operations["GET"]
    assert get.ttfb_p99_s.mean == pytest.approx(0.100, rel=0.03)
    # comonotone: p99 = 100 + 100 ms; drawn apart, the total's p99 was 153 ms (understated by a quarter)
    assert get.latency_p99_s.mean == pytest.approx(0.200, rel=0.03)
    assert get.latency_p50_s.mean == pytest.approx(0.020, rel=0.03)
    assert get.latency_p95_s.mean == pytest.approx(
        float(_TTFB.quantile([0.95])[0] + _TAIL.quantile([0.95])[0]), rel=0.03
    )


def test_a_ttfb_maps_to_the_tail_at_its_rank() -> None:
    joint = JointTail(_TTFB, _TAIL, offset_s=0.005)  # a 5 ms round trip on every first byte

    def never() -> float:
        raise AssertionError("no atom here")

    assert joint.tail_for(0.105, never) == pytest.approx(0.100)  # the p99 TTFB: the p99 tail
    assert joint.tail_for(0.025, never) == pytest.approx(0.0)  # the median
    assert joint.tail_for(10.0, never) == pytest.approx(float(_TAIL.quantile([0.99999])[0]))  # past the table
    constant = JointTail(LatencyModel.empirical([(0.0, 0.020), (0.999, 0.020)]), _TAIL, 0.0)
    # one value throughout: its rank is the uniform's
    assert constant.tail_for(0.020, lambda: 0.995) == pytest.approx(float(_TAIL.quantile([0.995])[0]), rel=0.05)
