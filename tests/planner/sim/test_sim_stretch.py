"""A long steady window costs its requests up to a representative stretch, not its length; a window
shorter than the shortest request is refused (``planner.sim.engine.stretch``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.sim import ClosedLoop, LatencyModel, OpenLoop, ProviderModel, SimSpec, SizeDistribution, simulate_spec
from planner.sim.engine import stretch as stretch_module
from planner.sim.engine.stretch import LONG_WINDOW_S, Stretch, representative_stretch, shortest_request_s
from planner.sim.model.provider import BandwidthCurve
from planner.sim.spec import HotSet, KeyPopularity, OperationMix
from tests.planner.conftest import Result

_MODEL = ProviderModel(
    provider_id="test",
    ttfb_get=LatencyModel(p50_s=0.030, p99_s=0.080, floor_s=0.010),
    stream_read=BandwidthCurve.flat(1e9),
    stream_write=BandwidthCurve.flat(1e9),
    source="test",
)


def _spec(rate_per_s: float, **arrivals: object) -> SimSpec:
    return SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=rate_per_s, **arrivals),  # type: ignore[arg-type]
        mix=OperationMix(get=1.0, put=0.0),
        sizes=SizeDistribution.fixed(4096),
    )


def test_a_normal_window_runs_whole() -> None:
    # 10 minutes at 400/s (240,000 requests): shorter than a day; 10 days at 0.1/s: 86,400 requests
    assert representative_stretch(_spec(400.0), 600.0) == Stretch(simulated_s=600.0, count_factor=1.0)
    assert representative_stretch(_spec(0.1), 10 * LONG_WINDOW_S) == Stretch(10 * LONG_WINDOW_S, 1.0)


def test_a_long_steady_window_runs_100000_requests() -> None:
    # 1000 days at 100,000 reads a month (0.03858/s): 3.33 million requests; 100,000 of them take 30 days
    rate = 100_000 / (30 * 86_400)
    stretch = representative_stretch(_spec(rate), 1000 * 86_400.0)
    assert stretch.simulated_s == pytest.approx(30 * 86_400.0)
    assert stretch.count_factor == pytest.approx(1000 / 30)
    # at 10/s, a week's 6 million requests: 10,000 s
    assert representative_stretch(_spec(10.0), 7 * 86_400.0) == Stretch(10_000.0, 60.48)
    # with a warm-up, the stretch is counted after it
    assert representative_stretch(_spec(10.0), 3600.0 + 7 * 86_400.0, 3600.0) == Stretch(13_600.0, 60.48)
    # at 1,000/s, ten minutes at least
    assert representative_stretch(_spec(1000.0), 2 * 86_400.0) == Stretch(600.0, 288.0)


def test_a_periodic_window_runs_whole_periods() -> None:
    # a diurnal cycle of 7 hours at 10/s: 10,000 s round up to one period
    diurnal = _spec(10.0, peak_factor=2.0, profile="diurnal", period_s=7 * 3600.0)
    assert representative_stretch(diurnal, 70 * 3600.0) == Stretch(7 * 3600.0, 10.0)
    # hot bursts once at the start: the window is not the same throughout, so it runs whole
    once = _spec(10.0).model_copy(update={"keys": KeyPopularity(hot=HotSet(peak_concurrency=10))})
    assert representative_stretch(once, 7 * 86_400.0).whole


def test_a_stretch_gives_the_whole_windows_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same window, whole and as a tenth of it with counts scaled: counts agree within their noise
    (about 0.3 % for 100,000 Poisson arrivals, 1 % for 10,000), percentiles within a few per cent."""
    spec = _spec(10.0)
    whole = simulate_spec(spec, _MODEL, 10_000.0, seed=3)
    monkeypatch.setattr(stretch_module, "LONG_WINDOW_S", 1000.0)
    monkeypatch.setattr(stretch_module, "STRETCH_REQUESTS", 10_000)
    part = simulate_spec(spec, _MODEL, 10_000.0, seed=3)
    assert whole.simulated_s is None
    assert part.simulated_s == 1000.0
    assert part.window_s == whole.window_s == 10_000.0
    whole_get, part_get = whole.operations["GET"], part.operations["GET"]
    assert whole_get.requests.mean == pytest.approx(100_000, rel=0.01)
    assert part_get.requests.mean == pytest.approx(whole_get.requests.mean, rel=0.04)
    assert part.billed_requests["get"].mean == pytest.approx(part_get.requests.mean)
    assert part.scaled_billed_requests["get"] == pytest.approx(whole.scaled_billed_requests["get"], rel=0.04)
    for figure in ("latency_p50_s", "latency_p99_s", "ttfb_p50_s", "ttfb_p95_s"):
        assert getattr(part_get, figure).mean == pytest.approx(getattr(whole_get, figure).mean, rel=0.05), figure
    assert part_get.throughput_bytes_per_s.mean == pytest.approx(whole_get.throughput_bytes_per_s.mean, rel=0.04)
    # the series is the stretch's
    assert part.time_series.bin_s * len(part.time_series.requests) == pytest.approx(1000.0, rel=0.01)


def test_a_long_closed_loop_runs_a_stretch_at_its_workers_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """A closed loop's rate is its workers over think time and mean latency: 4 workers, 10 ms think time
    and a mean latency of about 36 ms run about 87 requests a second; counts scale as an open loop's."""
    spec = SimSpec(
        arrivals=ClosedLoop(workers=4, think_time_s=0.010),
        mix=OperationMix(get=1.0, put=0.0),
        sizes=SizeDistribution.fixed(4096),
    )
    assert representative_stretch(spec, 7 * 86_400.0).whole  # no provider: its rate is unknown
    stretch = representative_stretch(spec, 7 * 86_400.0, provider=_MODEL)
    rate = 4 / (0.010 + _MODEL.ttfb_get.mean_s)
    assert stretch.simulated_s == pytest.approx(100_000 / rate)
    whole = simulate_spec(spec, _MODEL, 400.0, seed=5)
    monkeypatch.setattr(stretch_module, "LONG_WINDOW_S", 100.0)
    monkeypatch.setattr(stretch_module, "STRETCH_REQUESTS", 4000)
    monkeypatch.setattr(stretch_module, "_SHORTEST_STRETCH_S", 10.0)
    part = simulate_spec(spec, _MODEL, 400.0, seed=5)
    assert part.simulated_s == pytest.approx(4000 / rate)
    assert part.operations["GET"].requests.mean == pytest.approx(whole.operations["GET"].requests.mean, rel=0.04)
    assert part.operations["GET"].latency_p50_s.mean == pytest.approx(
        whole.operations["GET"].latency_p50_s.mean, rel=0.05
    )


def test_shortest_request_is_the_lowest_latency_floor_plus_the_round_trip() -> None:
    spec = _spec(1.0)
    assert shortest_request_s(spec, _MODEL) == pytest.approx(0.010)
    constant = _MODEL.model_copy(update={"ttfb_get": LatencyModel.constant(0.025)})
    far = spec.model_copy(update={"client": spec.client.model_copy(update={"round_trip_s": 0.020})})
    assert shortest_request_s(far, constant) == pytest.approx(0.045)


def test_simulate_runs_a_1000_day_window_in_its_stretch(run_cli: Callable[..., Result]) -> None:
    """Refused before (a 1000-day window of web-assets' 379 requests a second would have simulated 3.3e10
    requests): now its first ten minutes run and its counts are scaled to the window."""
    web = str(Path(__file__).parents[3] / "examples" / "web-assets.yaml")
    result = run_cli("simulate", web, "-p", "aws-s3", "--duration", "1000d", "--replications", "1", "-f", "json")
    assert result.code == 0, result.err
    peak = json.loads(result.out)["peak"]
    assert (peak["window_s"], peak["simulated_s"]) == (86_400_000.0, 600.0)
    # 190,734,864 of its 196,534,864 requests a month are GETs
    gets = 379.1 * 86_400_000 * 190_734_864 / 196_534_864
    assert peak["operations"]["GET"]["requests"]["mean"] == pytest.approx(gets, rel=0.01)


def test_simulate_refuses_a_window_shorter_than_the_shortest_request(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    # a closed loop of 4 workers issues its requests at once, so the request count does not refuse 1 ms;
    # cloudflare-r2's shipped reference answers none in less than its 40 ms TTFB floor (aws-s3's TTFB is
    # now a published p50/p90 lognormal with no floor)
    workload = tmp_path / "closed.yaml"
    workload.write_text(
        "name: closed\nstorage:\n  stored: 1 GB\n  object_size: 256 KiB\ntraffic:\n  reads: 100000\n  workers: 4\n",
        encoding="utf-8",
    )
    result = run_cli("simulate", str(workload), "-p", "cloudflare-r2", "--duration", "1ms", "--replications", "1")
    assert result.code == 2
    assert result.err.strip() == (
        "planner: --duration: a 1 ms window is shorter than the shortest request: cloudflare-r2's model answers"
        " none in less than 40 ms (give --duration 40ms or more; the percentiles of a steady load settle within"
        " minutes)"
    )
