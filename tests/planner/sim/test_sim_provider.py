"""The provider model: latency fits, stream curves, and the adapter from a profile summary."""

from __future__ import annotations

import numpy as np
import pytest

from planner.errors import InputError
from planner.measure.profile import ProfileSummary
from planner.measure.reference import load_reference
from planner.sim import (
    BandwidthCurve,
    BandwidthPoint,
    ClientSpec,
    ClosedLoop,
    LatencyModel,
    OperationMix,
    SimSpec,
    SizeDistribution,
    provider_model_from_profile,
    simulate_spec,
)
from planner.sim.model.profile_adapter import provider_model_from_summary, transfer_curve


def test_lognormal_passes_through_p50_and_p99_above_its_floor() -> None:
    model = LatencyModel(p50_s=0.045, p99_s=0.200, floor_s=0.040)
    draws = model.sample(np.random.default_rng(0), 400_000)
    assert draws.min() >= 0.040
    assert np.percentile(draws, 50) == pytest.approx(0.045, rel=0.01)
    assert np.percentile(draws, 99) == pytest.approx(0.200, rel=0.03)
    assert draws.mean() == pytest.approx(model.mean_s, rel=0.02)


def test_exponential_and_constant() -> None:
    rng = np.random.default_rng(1)
    assert LatencyModel.exponential(0.01).sample(rng, 200_000).mean() == pytest.approx(0.01, rel=0.02)
    assert set(LatencyModel.constant(0.04).sample(rng, 10).tolist()) == {0.04}


def test_latency_checks_its_order() -> None:
    with pytest.raises(ValueError, match="floor"):
        LatencyModel(p50_s=0.01, floor_s=0.02)
    with pytest.raises(ValueError, match="below p50"):
        LatencyModel(p50_s=0.05, p99_s=0.01)


def test_stream_curve_interpolates_in_log_size() -> None:
    curve = BandwidthCurve(
        points=[BandwidthPoint(size_bytes=1024, bits_per_s=1e6), BandwidthPoint(size_bytes=1024**3, bits_per_s=1e9)]
    )
    assert curve.bits_per_s(10) == 1e6
    assert curve.bits_per_s(1024**2) == pytest.approx(1e6 + (1e9 - 1e6) / 2)
    assert curve.bits_per_s(2**40) == 1e9
    assert BandwidthCurve().bits_per_s(5) == float("inf")


def test_from_profile_summary() -> None:
    summary = ProfileSummary(
        provider="cloudflare-r2",
        source_kind="published",
        ttfb_p50_s=0.040,
        get_stream_bytes_per_s=[(2**20, 50e6), (2**30, 200e6)],
        read_ceiling_bytes_per_s=55e9 / 8,
        write_ceiling_bytes_per_s=36e9 / 8,
        hot_object_limit=128,
        hot_object_behaviour="reject",
        hot_object_error="503 SlowDown",
        per_key_write_per_s=1.0,
    )
    model = provider_model_from_summary(summary)
    assert model.provider_id == "cloudflare-r2"
    assert model.ttfb_get.p50_s == model.ttfb_get.p99_s == 0.040
    # 1 GiB at 200 MB/s is a 5.369 s request, 40 ms of it before the first byte: the transfer
    # alone runs at 2^30 B / 5.329 s
    assert model.stream_bits_per_s("read", 2**30) == pytest.approx(2**30 * 8 / (2**30 / 200e6 - 0.040))
    assert model.read_ceiling_bits_per_s == pytest.approx(55e9)
    assert model.hot_object is not None and model.hot_object.max_concurrent_reads == 128
    assert [limit.scope for limit in model.rate_limits] == ["key"]
    assert "ttfb p99" in model.source


def test_from_profile_without_ttfb_says_what_is_missing() -> None:
    with pytest.raises(InputError, match="time to first byte"):
        provider_model_from_summary(ProfileSummary(provider="x", source_kind="measured"))


def test_stream_points_lose_the_latency_the_simulator_adds() -> None:
    # IDrive e2's 256 KiB GET: 18 MB/s a stream is 14.56 ms a request, 9.8 ms to the first byte,
    # so its bytes move at 262,144 B / 4.76 ms = 55 MB/s; a 4 KiB point is all latency and goes
    curve, dropped = transfer_curve([(4096, 0.4e6), (262144, 18e6)], 0.0098)
    assert dropped == [4096]
    (point,) = curve
    assert point.bits_per_s == pytest.approx(262144 * 8 / (262144 / 18e6 - 0.0098))
    assert point.bits_per_s / 8 == pytest.approx(55.0e6, rel=0.01)
    # whole-request time = latency + size / transfer rate again, as measured
    assert 0.0098 + 262144 * 8 / point.bits_per_s == pytest.approx(262144 / 18e6)


def test_one_stream_on_the_idrive_profile_takes_the_published_time_per_request() -> None:
    # IDrive e2's reference profile: 256 KiB GETs at 18 MB/s from one stream (seed 002), a
    # 9.8 ms TTFB: one closed-loop worker should see 14.56 ms a request, not TTFB + 14.56 ms
    profile = load_reference("idrive-e2")
    model, _ = provider_model_from_profile(profile)
    stream = dict(profile.summary().get_stream_bytes_per_s)[262144]
    spec = SimSpec(
        arrivals=ClosedLoop(workers=1),
        mix=OperationMix(get=1.0, put=0.0),
        sizes=SizeDistribution.fixed(262144),
        client=ClientSpec(link_bits_per_s=10e9, connections=4),
    )
    result = simulate_spec(spec, model, 5.0, seed=3, replications=1)
    assert result.operations["GET"].latency_p50_s.mean == pytest.approx(262144 / stream, rel=0.01)


def test_reference_models_say_how_each_part_is_backed() -> None:
    from planner.measure.reference import load_reference
    from planner.sim.model.profile_adapter import provider_model_from_profile

    r2, _ = provider_model_from_profile(load_reference("cloudflare-r2"))
    # seed 001 publishes R2's ~40 ms TTFB floor, nothing about its spread or GET streams
    assert r2.evidence_of("latency.get") == "published"
    assert r2.evidence_of("latency.tail") == "assumed"
    assert r2.stream_evidence("read", 4 * 2**20) == "assumed"
    idrive, _ = provider_model_from_profile(load_reference("idrive-e2"))
    # IDrive's latency is the HEAD cell's published mean, taken for GET: derived, not published
    assert idrive.evidence_of("latency.get") == "derived"
    sizes = [p.size_bytes for p in idrive.stream_read.points]
    assert idrive.stream_evidence("read", sizes[0]) == "published"
    assert idrive.stream_evidence("read", sizes[-1] * 4) == "derived"  # held flat: a lower bound
    assert idrive.stream_evidence("read", sizes[0] // 4) == "extrapolated"
    if len(sizes) > 1:
        assert idrive.stream_evidence("read", (sizes[0] + sizes[1]) // 2) == "derived"
