"""What a test says, the simulator can say: a closed loop of N workers (checked against Mean Value
Analysis of the machine-repairman model), a hot object read without a simultaneous burst, and
separate GET and PUT size mixes."""

from __future__ import annotations

import pytest

from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    ClosedLoop,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    SimSpec,
    SizeDistribution,
    simulate_spec,
    spec_from_workload,
)
from planner.workload import parse_workload


def mva(workers: int, service_s: float, think_s: float) -> tuple[float, float]:
    """Exact MVA of N workers, one FCFS exponential server of mean ``service_s`` and a think (delay)
    station of mean ``think_s``: (throughput a second, mean response time)."""
    queue = 0.0
    throughput = response = 0.0
    for n in range(1, workers + 1):
        response = service_s * (1 + queue)
        throughput = n / (response + think_s)
        queue = throughput * response
    return throughput, response


@pytest.mark.parametrize("workers", [1, 3, 8])
def test_a_closed_loop_of_n_workers_matches_mean_value_analysis(workers: int) -> None:
    # one connection is the single FCFS server: a request waits for it, then holds it for an
    # exponential 10 ms; each worker thinks 20 ms (a delay station; MVA is insensitive to its law)
    service_s, think_s = 0.010, 0.020
    model = ProviderModel(
        provider_id="repairman",
        ttfb_get=LatencyModel.exponential(service_s),
        stream_read=BandwidthCurve(),  # no transfer time: the body arrives with the first byte
    )
    spec = SimSpec(
        arrivals=ClosedLoop(workers=workers, think_time_s=think_s),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(1000),
        client=ClientSpec(connections=1),
    )
    result = simulate_spec(spec, model, 200.0, seed=workers, replications=2)
    get = result.operations["GET"]
    throughput, response = mva(workers, service_s, think_s)
    assert get.requests.mean / result.window_s == pytest.approx(throughput, rel=0.03)
    assert get.mean_latency_s.mean == pytest.approx(response, rel=0.05)


def _workload(**traffic: object) -> object:
    return parse_workload(
        {
            "name": "closed",
            "storage": {"stored": "1 TB", "object_size": "1 MiB"},
            "traffic": {"reads": 2_592_000, "writes": 259_200, **traffic},
            "client": {"concurrency": 32},
        }
    )


def test_traffic_workers_make_the_peak_window_a_closed_loop() -> None:
    workload = _workload(workers=12, think_time="50 ms")
    peak = spec_from_workload(workload, window="peak")  # type: ignore[arg-type]
    mean = spec_from_workload(workload, window="mean")  # type: ignore[arg-type]
    assert isinstance(peak.arrivals, ClosedLoop) and isinstance(mean.arrivals, OpenLoop)
    assert (peak.arrivals.workers, peak.arrivals.think_time_s) == (12, pytest.approx(0.050))
    with pytest.raises(Exception, match="not both"):
        _workload(workers=4, peak_rate="300/s")
    with pytest.raises(Exception, match="give workers too"):
        _workload(think_time="1 s")


def test_a_hot_object_without_a_burst_takes_its_share_of_reads_and_no_simultaneous_readers() -> None:
    workload = _workload(hot_objects={"count": 1, "share_of_reads": 0.5, "peak_concurrency": 0})
    peak = spec_from_workload(workload, window="peak")  # type: ignore[arg-type]
    assert peak.keys.hot is not None and peak.keys.hot.peak_concurrency == 0
    assert peak.keys.hot.share_of_reads == 0.5
    assert peak.client.connections == 32  # no readers' connections added


def test_gets_and_puts_draw_sizes_from_their_own_mixes() -> None:
    model = ProviderModel(
        provider_id="plain",
        ttfb_get=LatencyModel.constant(0.001),
        stream_read=BandwidthCurve.flat(1e9),
        stream_write=BandwidthCurve.flat(1e9),
    )
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=200.0),
        mix=OperationMix(get=0.5, put=0.5),
        sizes=SizeDistribution.fixed(10_000),
        put_sizes=SizeDistribution(sizes_bytes=[1_000_000, 3_000_000], weights=[1, 1]),
        client=ClientSpec(connections=1000),
    )
    result = simulate_spec(spec, model, 50.0, seed=3)
    get, put = result.operations["GET"], result.operations["PUT"]
    # bytes a second over requests a second: the mean size of each operation's own mix
    assert get.throughput_bytes_per_s.mean * result.window_s / get.requests.mean == pytest.approx(10_000, rel=0.01)
    assert put.throughput_bytes_per_s.mean * result.window_s / put.requests.mean == pytest.approx(2_000_000, rel=0.05)
