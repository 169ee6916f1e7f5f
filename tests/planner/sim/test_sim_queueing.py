"""The simulator against queueing theory: M/M/c waits (Erlang C) and M/G/1 processor sharing."""

from __future__ import annotations

import math

from planner.sim import (
    ClientSpec,
    KeyPopularity,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    SimSpec,
    SizeDistribution,
    simulate_spec,
)


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
