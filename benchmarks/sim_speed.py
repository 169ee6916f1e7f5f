"""Simulated requests per CPU-second on a standard mixed workload, next to a bare SimPy loop.

The workload: 80 % GET / 20 % PUT of 1 MiB objects, Zipf keys with a replicated hot set,
Poisson arrivals at 2,500/s on a shared 25 Gbps link (about 85 % busy, so bandwidth sharing
is exercised), S3-like per-prefix rate limits and retries. The bare loop is one SimPy process
doing one timeout per request, the floor any SimPy model pays; the ratio is the figure to watch.

Each request is counted with its time to first byte, its transfer under shared bandwidth (a
max-min fair fluid on the link, each stream within its cap) and its retries. CPU seconds are
``time.process_time`` of the whole ``simulate_spec`` call (set-up, run and statistics). The two
are measured alternately, ``--repeat`` times each, in the same process; the best (least
disturbed by other work on the machine) and the median of each are printed, and the ratio of
the simulator's cost per request to the bare loop's for both.
Run: ``python benchmarks/sim_speed.py [--seconds 20]``. Prints figures; never fails on speed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Generator
from typing import Any

import simpy

from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    HotSet,
    KeyPopularity,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    RateLimit,
    SimSpec,
    SizeDistribution,
    simulate_spec,
)

MIB = 2**20


def standard_workload(rate_per_s: float = 2500.0) -> tuple[SimSpec, ProviderModel]:
    provider = ProviderModel(
        provider_id="bench-s3-like",
        ttfb_get=LatencyModel(p50_s=0.030, p99_s=0.120, floor_s=0.010),
        ttfb_put=LatencyModel(p50_s=0.040, p99_s=0.150, floor_s=0.015),
        stream_read=BandwidthCurve.flat(700e6),
        stream_write=BandwidthCurve.flat(400e6),
        rate_limits=[
            RateLimit(operations=["get", "head"], scope="prefix", per_s=5500),
            RateLimit(operations=["put"], scope="prefix", per_s=3500),
        ],
        source="benchmark",
    )
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=rate_per_s),
        mix=OperationMix(get=0.8, put=0.2),
        sizes=SizeDistribution.fixed(MIB),
        keys=KeyPopularity(
            keys=100_000,
            zipf_exponent=1.1,
            prefixes=2,
            hot=HotSet(objects=4, share_of_reads=0.1, replicas=4),
        ),
        client=ClientSpec(link_bits_per_s=25e9, connections=1024),
    )
    return spec, provider


def bare_loop(requests: int) -> float:
    """CPU seconds for a SimPy process doing one timeout per request."""
    env = simpy.Environment()

    def loop(env: simpy.Environment) -> Generator[Any, Any, None]:
        for _ in range(requests):
            yield env.timeout(0.0004)

    env.process(loop(env))
    start = time.process_time()
    env.run()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="simulated window (s)")
    parser.add_argument("--rate", type=float, default=2500.0, help="arrivals per second")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each; best and median are printed")
    args = parser.parse_args()
    spec, provider = standard_workload(args.rate)

    sim_cpu_s: list[float] = []
    bare_cpu_s: list[float] = []
    for _ in range(args.repeat):
        start = time.process_time()
        result = simulate_spec(spec, provider, args.seconds, seed=1, replications=1)
        sim_cpu_s.append(time.process_time() - start)
        requests = sum(op.requests.mean for op in result.operations.values())
        bare_cpu_s.append(bare_loop(int(requests)))
    attempts = sum(e.mean for e in result.billed_requests.values())

    get = result.operations["GET"]
    print(f"workload: {args.rate:g}/s for {args.seconds:g} s, {int(requests)} requests, {int(attempts)} billed")
    print(
        f"  GET p99 latency {get.latency_p99_s.mean * 1000:.1f} ms, "
        f"read {get.throughput_bytes_per_s.mean * 8 / 1e9:.2f} Gbps, retries {get.retries.mean:g}"
    )
    for label, pick in (("best", min), ("median", statistics.median)):
        sim_s, bare_s = pick(sim_cpu_s), pick(bare_cpu_s)
        print(f"{label}:")
        print(f"  simulator : {requests / sim_s:12,.0f} requests per CPU-second ({sim_s:.3f} s)")
        print(f"  bare SimPy: {requests / bare_s:12,.0f} timeouts per CPU-second ({bare_s:.3f} s)")
        print(f"  ratio     : {sim_s / bare_s:12.2f}x the bare loop's cost per request")


if __name__ == "__main__":
    main()
