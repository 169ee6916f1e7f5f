"""Phenomena the seeds report, reproduced by provider models configured like them."""

from __future__ import annotations

import pytest

from planner.sim import (
    ClientSpec,
    ClosedLoop,
    HotObjectLimit,
    HotSet,
    KeyPopularity,
    OpenLoop,
    OperationMix,
    ProviderModel,
    RangedGetPolicy,
    RetryPolicy,
    SimSpec,
    SizeDistribution,
    simulate_spec,
)

KIB, MIB, GIB = 2**10, 2**20, 2**30


def _hot_reads(concurrency: int, replicas: int) -> SimSpec:
    """A batch of ``concurrency`` tasks all reading the same 64 KiB header at once (seed 001)."""
    return SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=1.0),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(64 * KIB),
        keys=KeyPopularity(keys=100, hot=HotSet(objects=1, peak_concurrency=concurrency, replicas=replicas)),
        client=ClientSpec(link_bits_per_s=100e9, connections=4096, retry=RetryPolicy(max_attempts=1)),
    )


def test_r2_rejects_past_128_concurrent_reads_of_one_range(r2_model: ProviderModel) -> None:
    result = simulate_spec(_hot_reads(256, replicas=1), r2_model, 2.0, seed=1)
    errors = result.operations["GET"].errors
    assert errors["503 SlowDown"].mean == 256 - 128


def test_r2_serves_128_concurrent_reads(r2_model: ProviderModel) -> None:
    result = simulate_spec(_hot_reads(128, replicas=1), r2_model, 2.0, seed=1)
    assert result.operations["GET"].errors == {}


def test_replicating_the_hot_object_makes_the_503s_vanish_even_at_2048(r2_model: ProviderModel) -> None:
    result = simulate_spec(_hot_reads(2048, replicas=16), r2_model, 2.0, seed=1)
    get = result.operations["GET"]
    assert get.errors == {}
    assert get.failed.mean == 0
    assert get.requests.mean >= 2048


def test_retries_after_503_are_billed(r2_model: ProviderModel) -> None:
    spec = _hot_reads(256, replicas=1).model_copy(
        update={"client": ClientSpec(link_bits_per_s=100e9, connections=4096, retry=RetryPolicy(max_attempts=4))}
    )
    result = simulate_spec(spec, r2_model, 2.0, seed=1)
    get = result.operations["GET"]
    assert get.retries.mean > 0
    assert result.billed_requests["get"].mean == get.requests.mean + get.retries.mean


@pytest.mark.parametrize("size_bytes", [16 * KIB, 64 * KIB, 128 * KIB])
def test_small_objects_are_bound_by_request_rate_at_the_ttfb_floor(r2_model: ProviderModel, size_bytes: int) -> None:
    """Under ~256 KiB, ops/s ~= connections / 40 ms, whatever the size (seed 001)."""
    connections = 64
    spec = SimSpec(
        arrivals=ClosedLoop(workers=connections),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(size_bytes),
        keys=KeyPopularity(keys=10_000),
        client=ClientSpec(link_bits_per_s=10e9, connections=connections),
    )
    result = simulate_spec(spec, r2_model, 10.0, seed=2)
    ops_per_s = result.operations["GET"].requests.mean / result.window_s
    assert ops_per_s <= connections / 0.040  # the floor bounds the rate
    assert ops_per_s == pytest.approx(connections / r2_model.ttfb_get.mean_s, rel=0.03)
    # and nowhere near the link: bandwidth is not what binds them
    assert result.operations["GET"].throughput_bytes_per_s.mean * 8 < 0.5 * 10e9


def _read_2gib(s3_model: ProviderModel, ranged: RangedGetPolicy | None) -> float:
    spec = SimSpec(
        arrivals=ClosedLoop(workers=1),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(2 * GIB),
        keys=KeyPopularity(keys=1),
        client=ClientSpec(link_bits_per_s=10e9, connections=64, ranged_get=ranged),
    )
    result = simulate_spec(spec, s3_model, 1.0, seed=4)
    get = result.operations["GET"]
    assert get.requests.mean == 1
    return get.mean_latency_s.mean


def test_sixteen_ranged_gets_read_2gib_about_13x_faster_within_10gbps(s3_model: ProviderModel) -> None:
    single_s = _read_2gib(s3_model, None)
    parallel_s = _read_2gib(s3_model, RangedGetPolicy(threshold_bytes=64 * MIB, streams=16))
    assert 2 * GIB * 8 / single_s == pytest.approx(700e6, rel=0.02)  # one stream: ~700 Mbps
    assert 2 * GIB * 8 / parallel_s <= 10e9  # the link is the limit
    assert 12.0 <= single_s / parallel_s <= 15.0  # seed 004: 12.6x to 13.6x on a real 10 Gbps NIC


def test_wasabi_like_degrade_stretches_latency_without_errors(r2_model: ProviderModel) -> None:
    """Seed 001: Wasabi's version of the hot-range test degraded gracefully with zero errors."""
    degrading = r2_model.model_copy(
        update={"hot_object": HotObjectLimit(max_concurrent_reads=128, behaviour="degrade")}
    )
    calm = simulate_spec(_hot_reads(128, replicas=1), degrading, 2.0, seed=1).operations["GET"]
    crowded = simulate_spec(_hot_reads(512, replicas=1), degrading, 2.0, seed=1).operations["GET"]
    assert crowded.errors == {} and crowded.failed.mean == 0
    assert crowded.ttfb_p99_s.mean > 2 * calm.ttfb_p99_s.mean
