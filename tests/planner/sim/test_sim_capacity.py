"""Server capacity and the measured surface: latency grows with offered load, the knee sits at the
capacity, M/D/1 and M/D/c waits, and a measured profile's cells become the model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from planner.measure.profile import Cell, LatencyHistogram, Percentiles, Profile, Source
from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    KeyPopularity,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    ServerQueue,
    SimSpec,
    SizeDistribution,
    SizedLatency,
    simulate_spec,
)
from planner.sim.model.profile_adapter import provider_model_from_profile
from planner.sim.model.profile_cells import latency_from_cell
from planner.sim.model.provider import BILLED_OPERATIONS

from .cells import ladder_get, open_gets

KIB, MIB = 1024, 2**20


def _queued(service_s: float, servers: int = 1, base_s: float = 0.001) -> ProviderModel:
    return ProviderModel(
        provider_id="queued",
        ttfb_get=LatencyModel.constant(base_s),
        stream_read=BandwidthCurve.flat(1e9),  # a body's bytes are counted as they move: 8 us for 1000 B
        server_queues=[ServerQueue(operations=["get"], servers=servers, service_s=service_s)],
    )


def _gets(rate_per_s: float) -> SimSpec:
    return SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=rate_per_s),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(1000),
        keys=KeyPopularity(keys=100),
        client=ClientSpec(connections=100_000),
    )


def md1_wait_s(arrival_per_s: float, service_s: float) -> float:
    """Mean wait in M/D/1 (Pollaczek-Khinchine): rho s / (2 (1 - rho))."""
    rho = arrival_per_s * service_s
    return rho * service_s / (2 * (1 - rho))


def test_latency_rises_with_offered_load_as_md1_says() -> None:
    # one server of 1 ms a request (1,000/s) behind a 1 ms unloaded latency that includes the service
    model = _queued(service_s=0.001)
    means = []
    for rate in (100.0, 500.0, 800.0):
        result = simulate_spec(_gets(rate), model, 60.0, seed=5, replications=4, warmup_s=2.0)
        get = result.operations["GET"]
        expected = 0.001 + md1_wait_s(rate, 0.001)
        assert get.mean_latency_s.contains(expected) or get.mean_latency_s.mean == pytest.approx(expected, rel=0.03), (
            rate,
            get.mean_latency_s,
            expected,
        )
        means.append(get.mean_latency_s.mean)
    assert means[0] < means[1] < means[2]
    # unloaded, the latency is the drawn one: the queue adds nothing the unloaded cells already show
    assert means[0] == pytest.approx(0.001 + md1_wait_s(100.0, 0.001), rel=0.02)


def test_the_knee_sits_at_the_configured_capacity() -> None:
    model = _queued(service_s=1 / 400)  # 400 requests a second
    below = simulate_spec(_gets(300.0), model, 30.0, seed=2, replications=2, warmup_s=1.0).operations["GET"]
    above = simulate_spec(_gets(600.0), model, 30.0, seed=2, replications=2, warmup_s=1.0).operations["GET"]
    # below the knee everything offered is served with a bounded wait; past it the server moves
    # its capacity and the backlog (so the latency) grows through the window
    assert below.throughput_bytes_per_s.mean / 1000 == pytest.approx(300, rel=0.05)
    assert above.throughput_bytes_per_s.mean / 1000 == pytest.approx(400, rel=0.03)
    assert below.latency_p99_s.mean < 0.05
    backlog_s = (600 - 400) * 30 / 400  # requests queued by the end of the window, in service time
    assert above.latency_p99_s.mean > 0.8 * backlog_s


def test_c_servers_share_the_load_like_md_c() -> None:
    # two servers of 2 ms (1,000/s in all) at 50 % load wait far less than one of 1 ms at the same load
    # would be told apart from: M/D/2 waits sit below M/D/1 with the same service time (Cosmetatos)
    two = simulate_spec(_gets(500.0), _queued(0.002, servers=2, base_s=0.002), 60.0, seed=4, replications=3)
    one = simulate_spec(_gets(250.0), _queued(0.002, servers=1, base_s=0.002), 60.0, seed=4, replications=3)
    wait_two = two.operations["GET"].mean_latency_s.mean - 0.002
    wait_one = one.operations["GET"].mean_latency_s.mean - 0.002
    assert wait_one == pytest.approx(md1_wait_s(250.0, 0.002), rel=0.08)
    assert 0 < wait_two < wait_one


def test_empirical_latency_reproduces_its_quantiles() -> None:
    model = LatencyModel.empirical([(0.0, 0.001), (0.5, 0.002), (0.9, 0.004), (0.99, 0.010), (0.999, 0.030)])
    draws = model.sample(np.random.default_rng(1), 400_000)
    for level, value in ((0.5, 0.002), (0.9, 0.004), (0.99, 0.010), (0.999, 0.030)):
        assert np.quantile(draws, level) == pytest.approx(value, rel=0.03)
    assert draws.min() >= 0.001
    assert model.p50_s == pytest.approx(0.002) and model.p99_s == pytest.approx(0.010)


def test_sized_latency_interpolates_every_quantile_in_log_size() -> None:
    small = LatencyModel.empirical([(0.0, 0.001), (0.5, 0.002), (0.99, 0.008)])
    large = LatencyModel.empirical([(0.0, 0.004), (0.5, 0.006), (0.99, 0.020)])
    sized = SizedLatency(points=[(4 * KIB, small), (4 * MIB, large)])
    middle = sized.at(128 * KIB)  # half way in log size
    assert middle.p50_s == pytest.approx(0.004)
    assert middle.p99_s == pytest.approx(0.014)
    assert sized.at(1) is small and sized.at(64 * MIB) is large


def _cell(op: str, size: int, concurrency: int, ops: float, p50: float, ttfb50: float | None = None) -> Cell:
    latency = Percentiles(mean=p50 * 1.1, p50=p50, p90=p50 * 1.5, p99=p50 * 3)
    ttfb = Percentiles(p50=ttfb50, p90=ttfb50 * 1.5, p99=ttfb50 * 3) if ttfb50 is not None else Percentiles()
    return Cell(
        op=op,  # type: ignore[arg-type]
        object_size_bytes=size,
        concurrency=concurrency,
        samples=1000,
        ops_per_s=ops,
        throughput_mib_per_s=ops * size / MIB,
        latency_s=latency,
        ttfb_s=ttfb,
    )


def _measured(cells: list[Cell]) -> Profile:
    return Profile(provider="local", cells=cells, source=Source(kind="measured"))


def test_a_measured_profile_gives_latency_by_operation_and_size_and_the_capacity_where_it_levels() -> None:
    # GET 4 KiB: 400/s at 1 worker (2.5 ms), 500/s at 16 (32 ms): levels off at 500/s
    cells = [
        _cell("get", 4 * KIB, 1, 400, 0.0025, 0.0024),
        _cell("get", 4 * KIB, 16, 500, 0.032, 0.031),
        _cell("get", 4 * MIB, 1, 120, 0.008, 0.006),
        _cell("get", 4 * MIB, 16, 150, 0.100, 0.070),
        # PUT 4 KiB: grows with concurrency (never levels): no capacity for it
        _cell("put", 4 * KIB, 1, 200, 0.005),
        _cell("put", 4 * KIB, 16, 3000, 0.005),
    ]
    model, notes = provider_model_from_profile(_measured(cells))
    assert model.latency("get", 4 * KIB).p50_s == pytest.approx(0.0024)
    assert model.latency("get", 4 * MIB).p50_s == pytest.approx(0.006)
    assert model.latency("put", 4 * KIB).p50_s == pytest.approx(0.005)
    queue = model.server_queue("get")
    assert queue is not None and model.server_queue("put") is None
    # the knee: the best rate the levelled cells reached, per size
    assert queue.capacity_for("get", 4 * KIB) == pytest.approx(500)
    assert queue.capacity_for("get", 4 * MIB) == pytest.approx(150)
    assert model.evidence_of("latency.put") == "measured"
    assert model.evidence_of("latency.size") == "measured"
    assert model.evidence_of("capacity.get") == "derived"
    assert model.evidence_of("capacity.put") == "assumed"
    assert model.evidence_of("latency.head") == "assumed"
    assert any("PUT capacity" in note and "left unbounded" in note for note in notes)
    # the 4 MiB GET moves its body in latency p50 - TTFB p50 = 2 ms after its first byte
    assert model.stream_bits_per_s("read", 4 * MIB) == pytest.approx(4 * MIB * 8 / 0.002)


def test_the_simulated_knee_sits_at_the_measured_capacity() -> None:
    cells = [_cell("get", 4 * KIB, 1, 400, 0.0025, 0.0024), _cell("get", 4 * KIB, 16, 500, 0.032, 0.031)]
    model, _ = provider_model_from_profile(_measured(cells))
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=700.0),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(4 * KIB),
        client=ClientSpec(connections=100_000),
    )
    get = simulate_spec(spec, model, 20.0, seed=1, replications=2).operations["GET"]
    assert get.throughput_bytes_per_s.mean / (4 * KIB) == pytest.approx(500, rel=0.03)


def test_schema_2_fields_take_precedence_open_loop_cells_histograms_and_in_flight() -> None:
    sparse_samples = np.random.default_rng(3).lognormal(math.log(0.005), 0.4, 2000)
    sparse = _cell("get", 4 * KIB, 16, 10, 0.0051, 0.005)
    sparse.mode, sparse.offered_per_s = "open", 10.0
    sparse.ttfb_histogram = LatencyHistogram.from_samples(sparse_samples.tolist())
    saturated = _cell("get", 4 * KIB, 16, 300, 0.050, 0.049)
    saturated.mode, saturated.offered_per_s = "open", 400.0
    # a closed loop whose nominal 16 workers only kept 2 requests in flight: not levelled
    closed = _cell("get", 4 * KIB, 16, 250, 0.008, 0.0078)
    closed.in_flight_mean = 2.0
    model, notes = provider_model_from_profile(_measured([closed, sparse, saturated]))
    # busy (back to back), a request's latency is the closed loop's; one that finds client and
    # server idle draws from the sparse open loop's histogram
    assert model.latency("get", 4 * KIB).p50_s == pytest.approx(0.0078)
    idle = model.latency("get", 4 * KIB, idle_share=1.0)
    assert idle.p50_s == pytest.approx(float(np.median(sparse_samples)), rel=0.04)
    assert idle.quantile([0.99])[0] == pytest.approx(float(np.quantile(sparse_samples, 0.99)), rel=0.06)
    half = model.latency("get", 4 * KIB, idle_share=0.5).sample(np.random.default_rng(2), 100_000)
    # half the draws from each: below the busy p50, half of the busy ones and the sparse ones below it
    expected = 0.5 * 0.5 + 0.5 * np.mean(sparse_samples < 0.0078)
    assert np.mean(half < 0.0078) == pytest.approx(expected, abs=0.02)
    queue = model.server_queue("get")
    assert queue is not None and queue.capacity_for("get", 4 * KIB) == pytest.approx(300)
    assert model.evidence_of("latency.sparse") == "measured"
    assert any("sparse open-loop cells" in note for note in notes)


def test_latency_from_percentiles_keeps_the_cells_mean() -> None:
    percentiles = Percentiles(mean=0.0028, p50=0.0025, p90=0.0035, p99=0.008)
    model = latency_from_cell(percentiles, None)
    assert model is not None
    assert model.mean_s == pytest.approx(0.0028, rel=0.02)
    assert model.p50_s == pytest.approx(0.0025) and model.p99_s == pytest.approx(0.008)


def test_published_references_keep_their_summary_model() -> None:
    from planner.measure.reference import load_reference

    r2, _ = provider_model_from_profile(load_reference("cloudflare-r2"))
    assert not r2.server_queues and not r2.latency_by_size
    assert r2.evidence_of("capacity") == "assumed"


def test_sparse_arrivals_draw_the_idle_latency_and_busy_ones_the_back_to_back_latency() -> None:
    # back to back a request takes about 1 ms; one that finds client and server idle about 5 ms
    busy = LatencyModel.empirical([(0.0, 0.0008), (0.5, 0.001), (0.99, 0.0012)])
    idle = LatencyModel.empirical([(0.0, 0.004), (0.5, 0.005), (0.99, 0.006)])
    model = ProviderModel(
        provider_id="idle",
        ttfb_get=busy,
        stream_read=BandwidthCurve.flat(1e9),
        latency_by_size={"get": SizedLatency(points=[(1000, busy)])},
        sparse_latency_by_size={"get": SizedLatency(points=[(1000, idle)])},
    )
    sparse = simulate_spec(_gets(1.0), model, 300.0, seed=1).operations["GET"]
    assert sparse.latency_p50_s.mean == pytest.approx(0.005, rel=0.02)
    # 2,000/s of 1 ms requests: 2 in flight on average (Little), exp(-2) of arrivals find none
    crowded = simulate_spec(_gets(2000.0), model, 5.0, seed=1).operations["GET"]
    share = math.exp(-2000.0 * busy.mean_s)
    assert crowded.latency_p50_s.mean == pytest.approx(0.001, rel=0.05)
    expected = share * idle.mean_s + (1 - share) * busy.mean_s
    assert crowded.mean_latency_s.mean == pytest.approx(expected, rel=0.05)


def test_a_derived_latency_reads_closed_loop_cells_only() -> None:
    # Little's law on a closed loop: 4 workers at 400/s are 10 ms a request; an open loop offered
    # 10/s completes 10/s whatever its latency, so its "4 workers / 10/s" would read 400 ms
    from planner.sim.model.profile_adapter import derived_latency_s

    closed = _cell("head", 0, 4, 400, 0.0)
    closed.latency_s = Percentiles()
    opened = closed.model_copy(update={"mode": "open", "offered_per_s": 10.0, "ops_per_s": 10.0})
    seconds, how = derived_latency_s(_measured([opened, closed]))
    assert seconds == pytest.approx(0.010) and "Little's law" in how
    seconds, how = derived_latency_s(_measured([opened]))
    assert how.startswith("DEFAULT")


def _open(op: str, size: int, offered: float, completed: float, mean_s: float) -> Cell:
    cell = _cell(op, size, 32, completed, mean_s / 1.1, mean_s / 1.1 * 0.95)
    cell.mode, cell.offered_per_s = "open", offered
    cell.in_flight_mean = completed * mean_s
    return cell


def test_open_loop_cells_set_the_knee_and_the_server_count() -> None:
    # planner measure's closed loops level off at 500/s (their client's limit on shared cores); a
    # lighter open-loop driver kept up with 200-700/s and fell behind at 1,000/s (800/s completed),
    # its mean latency rising as four servers of 5 ms (M/M/4 of 800/s) on top of the 2.75 ms back to back
    closed = [_cell("get", 4 * KIB, 1, 400, 0.0025, 0.0024), _cell("get", 4 * KIB, 16, 500, 0.032, 0.031)]
    from planner.sim.model.measured_surface import erlang_c_wait_s

    ladder = [_open("get", 4 * KIB, r, r, 0.00275 + erlang_c_wait_s(r, 0.005, 4)) for r in (200, 400, 600, 700)]
    ladder.append(_open("get", 4 * KIB, 1000, 800, 0.040))
    model, notes = provider_model_from_profile(_measured(closed + ladder))
    queue = model.server_queue("get")
    # several servers (the closed-loop spread is narrower than exponential, so fewer than M/M/4's 4)
    assert queue is not None and queue.servers > 1
    assert queue.capacity_for("get", 4 * KIB) == pytest.approx(800)
    assert any(f"shared by {queue.servers} server(s)" in note for note in notes)
    # simulated, latency rises with the offered rate and the knee sits at 800/s
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=1200.0),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(4 * KIB),
        client=ClientSpec(connections=100_000),
    )
    over = simulate_spec(spec, model, 20.0, seed=1, replications=2).operations["GET"]
    assert over.throughput_bytes_per_s.mean / (4 * KIB) == pytest.approx(800, rel=0.03)
    means = []
    for rate in (200.0, 600.0, 700.0):
        below = spec.model_copy(update={"arrivals": OpenLoop(mean_rate_per_s=rate)})
        means.append(simulate_spec(below, model, 20.0, seed=2, replications=2).operations["GET"].mean_latency_s.mean)
    assert means[0] < means[1] < means[2]
    # the rise from 200/s to 700/s as the cells show it (M/M/4), within the service spread's difference
    measured_rise = erlang_c_wait_s(700, 0.005, 4) - erlang_c_wait_s(200, 0.005, 4)
    assert means[2] - means[0] == pytest.approx(measured_rise, rel=0.35)


def test_an_open_loop_that_kept_up_raises_a_closed_loop_capacity() -> None:
    closed = [_cell("get", 4 * KIB, 1, 400, 0.0025, 0.0024), _cell("get", 4 * KIB, 16, 500, 0.032, 0.031)]
    kept_up = _open("get", 4 * KIB, 650, 650, 0.006)
    model, _ = provider_model_from_profile(_measured([*closed, kept_up]))
    queue = model.server_queue("get")
    assert queue is not None and queue.capacity_for("get", 4 * KIB) >= 650


def _steep_knee() -> Profile:
    """SeaweedFS as measured on two cores shared with its client: a knee far steeper than M/G/c's,
    575/s 2.0 ms, 1,151/s 4.8 ms, 1,726/s 22.7 ms (p50), 2,302/s offered gets 2,056/s."""
    closed = [_cell("get", 4 * KIB, 1, 550, 0.0018, 0.0017), _cell("get", 4 * KIB, 16, 1900, 0.0084, 0.0082)]
    ladder = [
        ladder_get(575, 575, 0.0020, 0.0035, 0.0050, duration_s=8.0, ttfb_share=0.97),
        ladder_get(1151, 1151, 0.0048, 0.0200, 0.0350, duration_s=8.0, ttfb_share=0.97),
        ladder_get(1726, 1726, 0.0227, 0.1040, 0.1500, duration_s=8.0, ttfb_share=0.97),
        ladder_get(2302, 2056, 0.4680, 0.9000, 1.1000, duration_s=8.0, ttfb_share=0.97),
    ]
    return _measured(closed + ladder)


def _ttfb_p50_at(model: ProviderModel, rate: float, seed: int = 3) -> float:
    spec = open_gets(rate, 100_000)
    return simulate_spec(spec, model, 10.0, seed=seed).operations["GET"].ttfb_p50_s.mean


def test_latency_under_load_follows_the_open_loop_cells_where_the_queue_alone_cannot() -> None:
    model, notes = provider_model_from_profile(_steep_knee())
    assert set(model.loaded_latency) == {"get"} and model.evidence_of("latency.load.get") == "measured"
    assert any("latency under load from its open-loop cells" in note for note in notes)
    queue_only = model.model_copy(update={"loaded_latency": {}})
    # at each cell's own rate the simulated TTFB p50 is the cell's (0.97 x its latency p50)
    for rate, p50 in ((1151, 0.0048), (1726, 0.0227)):
        assert _ttfb_p50_at(model, rate) == pytest.approx(0.97 * p50, rel=0.2)
    # the M/G/c queue alone falls far short at 1,726/s: the excess is what closes the gap
    assert _ttfb_p50_at(queue_only, 1726) < 0.5 * 0.97 * 0.0227
    # between the cells it lies between them, rising with the load; past the capacity the queue's
    # backlog takes over and completes no more than the capacity
    between = _ttfb_p50_at(model, 1543)
    assert 0.97 * 0.0048 < between < 0.97 * 0.0227
    assert _ttfb_p50_at(model, 1300) < between
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=2600.0),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(4 * KIB),
        client=ClientSpec(connections=100_000),
    )
    over = simulate_spec(spec, model, 10.0, seed=1).operations["GET"]
    assert over.throughput_bytes_per_s.mean / (4 * KIB) == pytest.approx(2056, rel=0.03)


def test_the_excess_interpolates_in_load_over_slack() -> None:
    one = LatencyModel.empirical([(0.0, 0.0), (0.5, 0.002), (0.99, 0.010)])
    two = LatencyModel.empirical([(0.0, 0.0), (0.5, 0.020), (0.99, 0.100)])
    from planner.sim.model.provider import LoadedLatency

    loaded = LoadedLatency(points=[(0.5, one), (0.8, two)])
    assert loaded.excess_at(0.0) is None
    # x = u / (1 - u): 0.25 -> 1/3, 0.5 -> 1, 0.65 -> 1.857, 0.8 -> 4
    # below the first point in proportion to x: a third of 0.5's excess
    assert loaded.excess_at(0.25).p50_s == pytest.approx(0.002 / 3)  # type: ignore[union-attr]
    # between points the power of x joining them: 2 ms x (20 / 2) ** (ln 1.857 / ln 4)
    power = math.log(0.65 / 0.35) / math.log(4)
    assert loaded.excess_at(0.65).p50_s == pytest.approx(0.002 * 10**power)  # type: ignore[union-attr]
    assert loaded.excess_at(0.95) is two


def _stalling() -> Profile:
    """SeaweedFS on two shared cores as the fidelity harness measured it: under load the median stays
    near the unloaded 3 ms while the tail stalls (p95 18 ms at 65/s, 72 ms at 129/s, 377 ms at 194/s)."""
    closed = [_cell("get", 4 * KIB, 1, 300, 0.0030, 0.0029), _cell("get", 4 * KIB, 16, 260, 0.060, 0.059)]
    ladder = [
        ladder_get(65, 65, 0.0027, 0.018, 0.040, duration_s=8.0, ttfb_share=0.97),
        ladder_get(129, 129, 0.0033, 0.072, 0.139, duration_s=8.0, ttfb_share=0.97),
        ladder_get(194, 194, 0.0047, 0.377, 0.484, duration_s=8.0, ttfb_share=0.97),
    ]
    return _measured(closed + ladder)


def _small_gets(rate_per_s: float) -> SimSpec:
    """4 KiB GETs in a steady open loop at ``rate_per_s``, on as many connections as they need."""
    return SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=rate_per_s),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(4 * KIB),
        client=ClientSpec(connections=100_000),
    )


def _ttfb_at(model: ProviderModel, arrivals: OpenLoop) -> tuple[float, float]:
    """TTFB p50 and p95, each the median of three seeds: between the cells' p50 and p90 the measured
    quantile function is steep (a 1 % shift in probability moves it a millisecond)."""
    spec = SimSpec(
        arrivals=arrivals,
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(4 * KIB),
        keys=KeyPopularity(keys=200),
        client=ClientSpec(connections=100_000),
    )
    runs = [simulate_spec(spec, model, 30.0, seed=seed).operations["GET"] for seed in (1, 2, 3)]
    return float(np.median([g.ttfb_p50_s.mean for g in runs])), float(np.median([g.ttfb_p95_s.mean for g in runs]))


def test_a_steady_load_the_cells_measured_is_drawn_from_them_not_queued() -> None:
    model, _ = provider_model_from_profile(_stalling())
    loaded = model.loaded_latency["get"]
    queue = model.server_queue("get")
    assert queue is not None and loaded.whole
    last = loaded.whole[-1][0]
    # a steady load below the capacity is drawn from the cells (past the last one extrapolated);
    # at no load, or at the capacity and past it, the queue runs
    assert loaded.covers(last) and loaded.covers(last / 2) and loaded.covers(0.99)
    assert not loaded.covers(0.0) and not loaded.covers(1.0) and not loaded.covers(1.2)
    assert not model.queued("get", last) and model.queued("get", 1.0)
    # between the last cell (194/s) and the capacity (300/s) latency goes on rising
    p50_last, p95_last = _ttfb_at(model, OpenLoop(mean_rate_per_s=194))
    p50_on, p95_on = _ttfb_at(model, OpenLoop(mean_rate_per_s=250))
    assert p50_on > p50_last and p95_on > 1.5 * p95_last
    # at the cells' rates the median stays at the cell's (0.97 x its latency p50) and the tail is
    # its p95; queueing as well (M/G/c fitted to the mean, the excess net of its mean wait) puts a
    # wait under the median: 9 ms at 129/s, 23 ms at 194/s
    queued = model.model_copy(update={"loaded_latency": {"get": loaded.model_copy(update={"whole": []})}})
    for rate, cell_p50, cell_p95 in ((129, 0.0033, 0.072), (194, 0.0047, 0.377)):
        p50, p95 = _ttfb_at(model, OpenLoop(mean_rate_per_s=rate))
        assert p50 == pytest.approx(0.97 * cell_p50, rel=0.15)
        assert p95 == pytest.approx(0.97 * cell_p95, rel=0.2)
        assert _ttfb_at(queued, OpenLoop(mean_rate_per_s=rate))[0] > 2 * 0.97 * cell_p50


def test_a_varying_rate_runs_the_queue_whatever_the_cells_measured() -> None:
    from planner.sim.engine.replication import Replication

    model, _ = provider_model_from_profile(_stalling())
    spec = _small_gets(129)
    get = BILLED_OPERATIONS.index("get")
    steady = Replication(spec, model, 10.0, np.random.default_rng(1))
    assert not steady.queued[get] and steady.queues[get] is None
    # a diurnal cycle peaks at twice the mean, past every cell: the queue's waits are simulated
    cycle = spec.model_copy(
        update={"arrivals": OpenLoop(mean_rate_per_s=129, profile="diurnal", peak_factor=1.8, period_s=20)}
    )
    varying = Replication(cycle, model, 10.0, np.random.default_rng(1))
    assert varying.queued[get] and varying.queues[get] is not None


def test_the_whole_excess_interpolates_as_the_queued_one() -> None:
    from planner.sim.model.provider import LoadedLatency

    net = LatencyModel.empirical([(0.0, 0.0), (0.5, 0.001), (0.99, 0.004)])
    one = LatencyModel.empirical([(0.0, 0.0), (0.5, 0.002), (0.99, 0.010)])
    two = LatencyModel.empirical([(0.0, 0.0), (0.5, 0.020), (0.99, 0.100)])
    loaded = LoadedLatency(points=[(0.5, net), (0.8, net)], whole=[(0.5, one), (0.8, two)])
    power = math.log(0.65 / 0.35) / math.log(4)
    assert loaded.excess_at(0.65, whole=True).p50_s == pytest.approx(0.002 * 10**power)  # type: ignore[union-attr]
    assert loaded.excess_at(0.65).p50_s == pytest.approx(0.001)  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="utilisations"):
        LoadedLatency(points=[(0.5, net)], whole=[(0.6, one)])
    # past the last point: the queued excess stands; the whole one grows as the power of x joining the
    # last two points (p50: 2 -> 20 ms from x = 1 to 4, power ln 10 / ln 4 = 1.66), at least as x
    # (p99: 10 -> 100 ms, the same power); at 0.9, x = 9
    assert loaded.excess_at(0.9) is net
    power = math.log(10) / math.log(4)
    assert loaded.excess_at(0.9, whole=True).p50_s == pytest.approx(0.020 * (9 / 4) ** power)  # type: ignore[union-attr]
    flat = LoadedLatency(points=[(0.5, net), (0.8, net)], whole=[(0.5, two), (0.8, two)])
    assert flat.excess_at(0.9, whole=True).p50_s == pytest.approx(0.020 * 9 / 4)  # type: ignore[union-attr]
    assert loaded.excess_at(1.0, whole=True) is two


def test_a_body_that_stalls_lengthens_the_latency_not_the_time_to_first_byte() -> None:
    # a lone 4 MiB GET: TTFB p50 6 ms / p90 9 ms / p99 18 ms, latency 8 / 14 / 30 ms: the body takes
    # 2 ms at the median, and beyond it 3 ms more at p90 ((14 - 9) - 2) and 10 ms at p99 ((30 - 18) - 2)
    cell = Cell(
        op="get",
        object_size_bytes=4 * MIB,
        concurrency=1,
        samples=1000,
        ops_per_s=120,
        throughput_mib_per_s=480,
        latency_s=Percentiles(mean=0.009, p50=0.008, p90=0.014, p99=0.030),
        ttfb_s=Percentiles(p50=0.006, p90=0.009, p99=0.018),
    )
    model, notes = provider_model_from_profile(_measured([cell]))
    tail = model.body_tail("get", 4 * MIB)
    assert tail is not None and model.evidence_of("latency.body.get") == "measured"
    assert tail.quantile([0.5, 0.9, 0.99]).tolist() == pytest.approx([0.0, 0.003, 0.010])
    assert any("body time beyond its median" in note for note in notes)
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=2.0),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(4 * MIB),
        client=ClientSpec(connections=100_000),
    )
    with_tail = simulate_spec(spec, model, 3000.0, seed=4).operations["GET"]
    without = simulate_spec(spec, model.model_copy(update={"body_tail_by_size": {}}), 3000.0, seed=4).operations["GET"]
    # the time to first byte is the same; the latency's tail grows by the stalls, its median by less
    # than a millisecond (the stall is drawn apart from the first byte, not with it)
    assert with_tail.ttfb_p50_s.mean == pytest.approx(without.ttfb_p50_s.mean, rel=0.05)
    assert 0 <= with_tail.latency_p50_s.mean - without.latency_p50_s.mean < 0.0012
    # (drawn independently, the p99 of the sum grows by 3 ms, not by the stall's own 10 ms p99)
    assert with_tail.latency_p99_s.mean - without.latency_p99_s.mean > 0.002


def test_latency_past_the_last_measured_load_is_labelled_extrapolated() -> None:
    from planner.sim.result import figure_evidence

    model, _ = provider_model_from_profile(_stalling())
    spec = _small_gets(129)
    # 129/s is a cell's own load; 250/s lies past the last cell (194/s) and below the capacity (300/s)
    within = simulate_spec(spec, model, 5.0, seed=1)
    past = simulate_spec(spec.model_copy(update={"arrivals": OpenLoop(mean_rate_per_s=250)}), model, 5.0, seed=1)
    assert within.load_extrapolated == [] and past.load_extrapolated == ["get"]
    assert figure_evidence(model, 4 * KIB, within.load_extrapolated)["GET.ttfb"] == "derived"
    assert figure_evidence(model, 4 * KIB, past.load_extrapolated)["GET.ttfb"] == "extrapolated"
    assert figure_evidence(model, 4 * KIB, past.load_extrapolated)["GET.tail"] == "extrapolated"
    # a model without open-loop cells queues instead and extrapolates nothing of the kind
    queued = simulate_spec(spec, model.model_copy(update={"loaded_latency": {}}), 5.0, seed=1)
    assert queued.load_extrapolated == []
