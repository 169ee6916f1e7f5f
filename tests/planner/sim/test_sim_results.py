"""Reproducibility, confidence intervals, SLO verdicts, time series and month scaling."""

from __future__ import annotations

import math

import pytest

from planner.errors import InputError
from planner.sim import (
    ClientSpec,
    HotSet,
    KeyPopularity,
    MultipartPolicy,
    OpenLoop,
    OperationMix,
    ProviderModel,
    SimSpec,
    SizeDistribution,
    SLOTargets,
    simulate_spec,
)

MIB = 2**20


def _mixed(profile: str = "mean", slo: SLOTargets | None = None) -> SimSpec:
    return SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=400, peak_factor=2, profile=profile, period_s=10, burst_s=2),
        mix=OperationMix(get=0.8, put=0.2),
        sizes=SizeDistribution(sizes_bytes=[64 * 1024, MIB], weights=[3, 1]),
        keys=KeyPopularity(keys=5000, zipf_exponent=1.1, hot=HotSet(objects=2, share_of_reads=0.1, replicas=2)),
        client=ClientSpec(link_bits_per_s=2e9, connections=256),
        slo=slo or SLOTargets(),
    )


def test_same_seed_same_result(s3_model: ProviderModel) -> None:
    first = simulate_spec(_mixed(), s3_model, 5.0, seed=11, replications=2)
    second = simulate_spec(_mixed(), s3_model, 5.0, seed=11, replications=2)
    assert first.model_dump() == second.model_dump()


def test_different_seeds_differ_within_their_intervals(s3_model: ProviderModel) -> None:
    one = simulate_spec(_mixed(), s3_model, 5.0, seed=1, replications=5)
    two = simulate_spec(_mixed(), s3_model, 5.0, seed=2, replications=5)
    assert one.model_dump() != two.model_dump()
    for name in ("latency_p50_s", "ttfb_p99_s", "throughput_bytes_per_s", "requests"):
        a, b = getattr(one.operations["GET"], name), getattr(two.operations["GET"], name)
        assert a.ci95_half_width is not None and b.ci95_half_width is not None
        assert abs(a.mean - b.mean) <= a.ci95_half_width + b.ci95_half_width, name


def test_one_replication_has_no_interval(s3_model: ProviderModel) -> None:
    result = simulate_spec(_mixed(), s3_model, 2.0, seed=1)
    assert result.operations["GET"].latency_p99_s.ci95_half_width is None


def test_slo_verdicts(s3_model: ProviderModel) -> None:
    loose = SLOTargets(p99_ttfb_s=1.0, read_bytes_per_s=1e6, max_error_rate=0.01)
    tight = SLOTargets(p99_ttfb_s=0.001, read_bytes_per_s=1e12)
    assert simulate_spec(_mixed(slo=loose), s3_model, 3.0, seed=1, replications=3).slo_met
    verdicts = simulate_spec(_mixed(slo=tight), s3_model, 3.0, seed=1, replications=3).slo
    assert [v.met for v in verdicts] == [False, False]
    assert all(v.certain for v in verdicts)


def test_time_series_adds_up(s3_model: ProviderModel) -> None:
    result = simulate_spec(_mixed(), s3_model, 6.0, seed=5)
    series = result.time_series
    assert series.bin_s == 1.0 and len(series.requests) == 6
    moved = sum(op.throughput_bytes_per_s.mean for op in result.operations.values()) * result.window_s
    assert sum(series.bytes) == pytest.approx(moved, rel=1e-6)


@pytest.mark.parametrize("profile", ["mean", "peak", "burst", "diurnal"])
def test_billed_counts_scale_to_a_month_at_the_mean_rate(s3_model: ProviderModel, profile: str) -> None:
    spec = _mixed(profile)
    result = simulate_spec(spec, s3_model, 10.0, seed=3)
    total = sum(result.scaled_billed_requests.values())
    month_at_mean = 400 * spec.month_s
    assert total == pytest.approx(month_at_mean, rel=0.05)
    assert result.window_s == 10.0 and result.scaling


def test_multipart_uploads_bill_every_part(s3_model: ProviderModel) -> None:
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=5),
        mix=OperationMix(get=0, put=1),
        sizes=SizeDistribution.fixed(40 * MIB),
        client=ClientSpec(
            link_bits_per_s=10e9,
            connections=64,
            multipart=MultipartPolicy(threshold_bytes=16 * MIB, part_size_bytes=8 * MIB),
        ),
    )
    result = simulate_spec(spec, s3_model, 4.0, seed=1, drain_s=60)
    puts = result.operations["PUT"].requests.mean
    assert puts > 0 and result.operations["PUT"].failed.mean == 0
    billed = result.billed_requests
    assert "put" not in billed
    assert billed["create-multipart"].mean == pytest.approx(puts, abs=3)
    assert billed["upload-part"].mean == pytest.approx(5 * puts, abs=15)


def test_bad_window_is_an_input_error(s3_model: ProviderModel) -> None:
    with pytest.raises(InputError, match="duration_s"):
        simulate_spec(_mixed(), s3_model, 0.0, seed=1)
    with pytest.raises(InputError, match="warmup_s"):
        simulate_spec(_mixed(), s3_model, 5.0, seed=1, warmup_s=5.0)
    assert math.isfinite(simulate_spec(_mixed(), s3_model, 1.0, seed=1).scale_to_month)
