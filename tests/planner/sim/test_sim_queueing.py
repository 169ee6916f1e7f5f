"""The simulator and ObjectStore against queueing theory: M/M/c waits (Erlang C) and M/G/1 processor sharing."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Generator
from typing import Any

import numpy as np
import simpy

from planner.sim import (
    ClientSpec,
    KeyPopularity,
    LatencyModel,
    ObjectStore,
    OpenLoop,
    OperationMix,
    ProviderModel,
    SimSpec,
    SizeDistribution,
    simulate_spec,
)
from planner.sim.store.store_records import RecordTable


def erlang_c_wait_s(arrival_per_s: float, service_per_s: float, servers: int) -> float:
    """Mean time in queue of M/M/c: C(c, a) / (c mu - lambda), with Erlang's C formula."""
    a = arrival_per_s / service_per_s
    rho = a / servers
    below = sum(a**k / math.factorial(k) for k in range(servers))
    top = a**servers / math.factorial(servers) / (1 - rho)
    probability_wait = top / (below + top)
    return probability_wait / (servers * service_per_s - arrival_per_s)


def test_mmc_mean_wait_matches_erlang_c() -> None:
    servers, arrival, service_mean_s = 4, 300.0, 0.010  # rho = 0.75
    provider = ProviderModel(
        provider_id="mmc", ttfb_head=LatencyModel.exponential(service_mean_s), ttfb_get=LatencyModel.constant(0.0)
    )
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=arrival),
        mix=OperationMix(get=0, put=0, head=1),
        sizes=SizeDistribution.fixed(0),
        keys=KeyPopularity(keys=1),
        client=ClientSpec(connections=servers),
    )
    result = simulate_spec(spec, provider, 120.0, seed=7, replications=6, warmup_s=5.0)
    head = result.operations["HEAD"]
    expected = erlang_c_wait_s(arrival, 1 / service_mean_s, servers)
    assert head.mean_wait_s.contains(expected), (head.mean_wait_s, expected)
    # Throughput: every arrival is served (rho < 1), so completions per second match lambda.
    assert abs(head.requests.mean / result.window_s - arrival) < 0.03 * arrival
    assert head.mean_latency_s.contains(expected + service_mean_s)


def test_mg1_processor_sharing_response_time() -> None:
    """E[T] = E[S] / (1 - rho) for M/G/1-PS, whatever the size distribution (insensitivity)."""
    link_bytes_per_s = 1e6
    sizes = SizeDistribution(sizes_bytes=[20_000, 180_000], weights=[1, 1])  # E[S] = 0.1 s
    arrival = 6.0  # rho = 0.6
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=arrival),
        mix=OperationMix(get=1, put=0),
        sizes=sizes,
        keys=KeyPopularity(keys=1000),
        client=ClientSpec(link_bits_per_s=link_bytes_per_s * 8, connections=10_000),
    )
    provider = ProviderModel(provider_id="ps", ttfb_get=LatencyModel.constant(0.0))
    result = simulate_spec(spec, provider, 1500.0, seed=3, replications=6, warmup_s=20.0)
    service_s = sizes.mean_bytes / link_bytes_per_s
    rho = arrival * service_s
    expected = service_s / (1 - rho)
    get = result.operations["GET"]
    assert get.mean_latency_s.contains(expected), (get.mean_latency_s, expected)
    assert abs(get.throughput_bytes_per_s.mean - arrival * sizes.mean_bytes) < 0.05 * arrival * sizes.mean_bytes


# -- the same queues through ObjectStore, the SimPy component: it takes the engine's request steps
# (planner.sim.engine.request_life), so it meets the same theory


def _store_replications(
    run: Callable[[simpy.Environment, ObjectStore, int], None], model: ProviderModel, client: ClientSpec, seeds: int
) -> list[RecordTable]:
    tables = []
    for seed in range(seeds):
        env = simpy.Environment()
        store = ObjectStore(env, model, client=client, seed=seed)
        run(env, store, seed)
        tables.append(store.recorder.table())
    return tables


def _interval(values: list[float]) -> tuple[float, float]:
    """The 95 % confidence interval of the mean of replications' values (Student's t, 5 degrees of freedom)."""
    mean = statistics.fmean(values)
    half = 2.571 * statistics.stdev(values) / math.sqrt(len(values))
    return mean - half, mean + half


def _poisson(
    env: simpy.Environment, rate_per_s: float, until_s: float, issue: Callable[[int], object], seed: int
) -> Generator[Any, Any, None]:
    rng = np.random.default_rng(seed)
    i = 0
    while env.now < until_s:
        yield env.timeout(float(rng.exponential(1 / rate_per_s)))
        issue(i)
        i += 1


def test_the_store_meets_erlang_c() -> None:
    """M/M/c through ObjectStore: 4 connections, HEADs of exponential service, rho 0.75."""
    servers, arrival, service_mean_s = 4, 300.0, 0.010
    model = ProviderModel(
        provider_id="mmc", ttfb_head=LatencyModel.exponential(service_mean_s), ttfb_get=LatencyModel.constant(0.0)
    )

    def run(env: simpy.Environment, store: ObjectStore, seed: int) -> None:
        env.process(_poisson(env, arrival, 120.0, lambda i: store.head(i), seed=100 + seed))
        env.run()

    waits: list[float] = []
    for table in _store_replications(run, model, ClientSpec(connections=servers, round_trip_s=0.0), 6):
        warm = table.start_s >= 5.0
        waits.append(float((table.connection_s - table.start_s)[warm].mean()))
    low, high = _interval(waits)
    expected = erlang_c_wait_s(arrival, 1 / service_mean_s, servers)
    assert low <= expected <= high, (low, high, expected)


def test_the_store_meets_processor_sharing() -> None:
    """M/G/1-PS through ObjectStore: GETs share the client's link, E[T] = E[S] / (1 - rho)."""
    link_bytes_per_s, arrival = 1e6, 6.0
    sizes = (20_000, 180_000)  # E[S] = 0.1 s, rho = 0.6
    model = ProviderModel(provider_id="ps", ttfb_get=LatencyModel.constant(0.0))
    client = ClientSpec(link_bits_per_s=link_bytes_per_s * 8, connections=10_000, round_trip_s=0.0)

    def run(env: simpy.Environment, store: ObjectStore, seed: int) -> None:
        rng = np.random.default_rng(seed)
        env.process(_poisson(env, arrival, 1500.0, lambda i: store.get(i, int(rng.choice(sizes))), seed=100 + seed))
        env.run()

    means: list[float] = []
    for table in _store_replications(run, model, client, 6):
        means.append(float(table.latency_s[table.start_s >= 20.0].mean()))
    service_s = sum(sizes) / 2 / link_bytes_per_s
    low, high = _interval(means)
    assert low <= service_s / (1 - arrival * service_s) <= high, (low, high)
