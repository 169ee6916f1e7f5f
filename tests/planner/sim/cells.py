"""Measured 4 KiB GET cells and open-loop GET specs the capacity, near-capacity and wake-up tests build
their profiles and windows from."""

from __future__ import annotations

from planner.measure.profile import Cell, Percentiles
from planner.sim import ClientSpec, KeyPopularity, OpenLoop, OperationMix, SimSpec, SizeDistribution

KIB, MIB = 1024, 2**20


def closed_get(concurrency: int, ops: float, p50: float) -> Cell:
    """A closed-loop 4 KiB GET cell: ``concurrency`` workers completing ``ops`` a second at a p50 of ``p50``."""
    return Cell(
        op="get",
        object_size_bytes=4 * KIB,
        concurrency=concurrency,
        samples=2000,
        ops_per_s=ops,
        throughput_mib_per_s=ops * 4 * KIB / MIB,
        latency_s=Percentiles(mean=p50 * 1.1, p50=p50, p90=p50 * 1.5, p99=p50 * 3),
        ttfb_s=Percentiles(p50=p50 * 0.97, p90=p50 * 1.45, p99=p50 * 2.9),
    )


def ladder_get(
    offered: float,
    completed: float,
    p50: float,
    p95: float,
    p99: float,
    *,
    duration_s: float = 16.0,
    ttfb_share: float = 0.98,
) -> Cell:
    """A 4 KiB open-loop GET cell as benchmarks/fidelity.py's ladder records it: 32 connections, latency
    from the scheduled arrival (so in flight, by Little's law, can pass 32), TTFB ``ttfb_share`` of it."""
    mean = 0.6 * p50 + 0.4 * p95
    return Cell(
        op="get",
        object_size_bytes=4 * KIB,
        concurrency=32,
        mode="open",
        offered_per_s=offered,
        in_flight_mean=completed * mean,
        duration_s=duration_s,
        samples=int(completed * duration_s),
        ops_per_s=completed,
        throughput_mib_per_s=completed * 4 * KIB / MIB,
        latency_s=Percentiles(mean=mean, p50=p50, p90=0.8 * p95, p95=p95, p99=p99),
        ttfb_s=Percentiles(
            p50=ttfb_share * p50, p90=0.8 * p95 * ttfb_share, p95=ttfb_share * p95, p99=ttfb_share * p99
        ),
    )


def open_gets(rate_per_s: float, connections: int) -> SimSpec:
    """Poisson 4 KiB GETs over 200 keys at ``rate_per_s`` through ``connections`` connections."""
    return SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=rate_per_s),
        mix=OperationMix(get=1, put=0),
        sizes=SizeDistribution.fixed(4 * KIB),
        keys=KeyPopularity(keys=200),
        client=ClientSpec(connections=connections),
    )
