"""The wake-up term: sparse cells at two rates show what sparser traffic pays more (SeaweedFS is
slower at 10/s than at 20/s), and the simulator charges it by the window's rate."""

from __future__ import annotations

import pytest

from planner.measure.profile import Cell, Percentiles, Profile, Source
from planner.sim import OpenLoop, OperationMix, SimSpec, SizeDistribution, simulate_spec
from planner.sim.model.profile_adapter import provider_model_from_profile
from planner.sim.model.wake_window import with_wake_up_at
from planner.sim.model.wakeup import WakeUp

from .cells import KIB, MIB, closed_get, open_gets


def _sparse(rate: float, ttfb_p50: float) -> Cell:
    """A sparse 4 KiB open-loop GET cell (a few hundredths of a request in flight)."""
    latency = Percentiles(mean=ttfb_p50 * 1.06, p50=ttfb_p50 * 1.02, p90=ttfb_p50 * 1.2, p99=ttfb_p50 * 1.5)
    return Cell(
        op="get",
        object_size_bytes=4 * KIB,
        concurrency=16,
        mode="open",
        offered_per_s=rate,
        in_flight_mean=rate * ttfb_p50,
        duration_s=60.0,
        samples=int(rate * 60),
        ops_per_s=rate,
        throughput_mib_per_s=rate * 4 * KIB / MIB,
        latency_s=latency,
        ttfb_s=Percentiles(p50=ttfb_p50, p90=ttfb_p50 * 1.18, p99=ttfb_p50 * 1.48),
    )


def _profile(*sparse: Cell) -> Profile:
    closed = [closed_get(1, 900, 0.0011), closed_get(16, 2700, 0.0059)]
    return Profile(provider="local", cells=[*closed, *sparse], source=Source(kind="measured"))


def _ttfb_p50(profile: Profile, rate: float) -> float:
    model, _ = provider_model_from_profile(profile)
    spec = open_gets(rate, 16)
    return simulate_spec(spec, model, 600.0, seed=4).operations["GET"].ttfb_p50_s.mean


def test_the_term_is_fitted_from_sparse_cells_at_two_rates() -> None:
    model, notes = provider_model_from_profile(_profile(_sparse(10, 0.0030), _sparse(20, 0.0024)))
    term = model.wake_up["get"]
    assert (term.slow_rate_per_s, term.fast_rate_per_s) == (10, 20)
    assert term.extra_s == pytest.approx(0.0006)
    # p95 between the cells' p90 (1.18x p50) and p99 (1.48x), linear in -ln(1 - q): 3.54 + 0.90 x 0.301 ms
    assert (
        "GET wake-up term from its sparse 4 KiB cells: p50 3 ms and p95 3.81 ms at 10/s, 2.4 ms and 3.05 ms at "
        "20/s; between the two rates each percentile is a power of the rate, below the sparser the sparser "
        "cell's, above the busier the busier one's" in notes
    )
    # a power of the rate: at the geometric mean of the two rates, the geometric mean of the two p50s
    assert term.extra_at_s(10) == pytest.approx(0.0006)
    assert term.extra_at_s(200**0.5) == pytest.approx((0.0030 * 0.0024) ** 0.5 - 0.0024)
    assert term.extra_at_s(40) == 0.0 and term.extra_at_s(5) == pytest.approx(0.0006)


def test_the_tail_moves_with_the_rate_not_by_the_medians_difference() -> None:
    # the cells' p90 is 1.18x their p50: 3.54 ms at 10/s, 2.832 ms at 20/s, 0.708 ms apart where the
    # p50s are 0.6 ms apart; at 20/s the model's sparse latency is the busier cell's at every percentile
    model, _ = provider_model_from_profile(_profile(_sparse(10, 0.0030), _sparse(20, 0.0024)))
    spec = open_gets(20, 16)
    lowered = with_wake_up_at(model, spec, 60.0).sparse_latency_by_size["get"].at(4 * KIB)
    p50, p90 = lowered.quantile([0.5, 0.9]).tolist()
    assert p50 == pytest.approx(0.0024) and p90 == pytest.approx(0.0030 * 1.18 - 0.000708)
    # half way in log(rate): each percentile the geometric mean of the two cells'
    halfway = with_wake_up_at(model, open_gets(200**0.5, 16), 60.0).sparse_latency_by_size["get"].at(4 * KIB)
    assert halfway.quantile([0.9]).item() == pytest.approx((0.00354 * 0.002832) ** 0.5)


def test_the_model_at_10_per_s_is_slower_than_at_20_by_the_cells_difference() -> None:
    profile = _profile(_sparse(10, 0.0030), _sparse(20, 0.0024))
    slow, fast = _ttfb_p50(profile, 10), _ttfb_p50(profile, 20)
    assert slow == pytest.approx(0.0030, rel=0.03)
    assert slow - fast == pytest.approx(0.0006, rel=0.2)


def test_without_two_sparse_rates_the_term_is_off_and_the_notes_say_so() -> None:
    profile = _profile(_sparse(10, 0.0030))
    model, notes = provider_model_from_profile(profile)
    assert model.wake_up == {}
    assert any(note.startswith("GET wake-up term off: no sparse open-loop cells at two rates") for note in notes)
    assert _ttfb_p50(profile, 20) == pytest.approx(_ttfb_p50(profile, 10), rel=0.03)


def test_a_busier_sparse_cell_that_was_slower_gives_no_term() -> None:
    model, _ = provider_model_from_profile(_profile(_sparse(10, 0.0024), _sparse(20, 0.0030)))
    assert model.wake_up == {}
    assert WakeUp(slow_rate_per_s=10, fast_rate_per_s=20, quantiles=[(0.5, 0.0024, 0.0030)]).relief_s(20) == 0.0


def test_the_term_follows_the_operations_own_rate_as_its_cells_record_it() -> None:
    model, _ = provider_model_from_profile(_profile(_sparse(10, 0.0030), _sparse(20, 0.0024)))
    idle = model.sparse_latency_by_size["get"].at(4 * KIB).p50_s

    def get_p50_at(total_per_s: float) -> float:
        spec = SimSpec(
            arrivals=OpenLoop(mean_rate_per_s=total_per_s),
            mix=OperationMix(get=0.5, put=0.5),
            sizes=SizeDistribution.fixed(4 * KIB),
        )
        return with_wake_up_at(model, spec, 60.0).sparse_latency_by_size["get"].at(4 * KIB).p50_s

    # half the requests are GETs: 20/s in all is 10/s of GETs (the term in full), 40/s is 20/s (none)
    assert get_p50_at(20) == pytest.approx(idle)
    assert get_p50_at(40) == pytest.approx(idle - 0.0006)
