"""Simulated requests per CPU-second on a standard mixed workload, next to a bare SimPy loop.

The workload: 80 % GET / 20 % PUT of 1 MiB objects, Zipf keys with a replicated hot set,
Poisson arrivals at 2,500/s on a shared 25 Gbps link (about 85 % busy, so bandwidth sharing
is exercised), S3-like per-prefix rate limits, and a limit of 12 concurrent reads of one key
past which the provider answers 503 (R2's behaviour, its limit scaled to this load): about 6
retries with backoff per 100 GETs, so retries are in the figure. The bare loop is one SimPy
process doing one timeout per request, the floor any SimPy model pays; the ratio is the figure
to watch.

Each request is counted with its time to first byte, its transfer under shared bandwidth (a
max-min fair fluid on the link, each stream within its cap) and its retries. CPU seconds are
``time.process_time`` of the whole ``simulate_spec`` call (set-up, run and statistics). The two
are measured alternately, ``--repeat`` times each, in the same process; the best (least
disturbed by other work on the machine) and the median of each are printed, and the ratio of
the simulator's cost per request to the bare loop's for both. A third figure, the plain model,
is a generator process per request doing less than the simulator (no sharing, limits or
retries): the simulator's speed-up over it does not depend on how fast the machine is.
Run: ``python benchmarks/sim_speed.py [--seconds 20]``. Prints figures; never fails on speed.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Generator
from typing import Any

import numpy as np
import simpy

from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    HotObjectLimit,
    HotSet,
    KeyPopularity,
    LatencyModel,
    ObjectStore,
    OpenLoop,
    OperationMix,
    ProviderModel,
    RateLimit,
    SimSpec,
    SimulationResult,
    SizeDistribution,
    simulate_spec,
)
from planner.sim.engine.requests import RequestSource

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
        hot_object=HotObjectLimit(max_concurrent_reads=12, behaviour="reject"),
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


def simulated(spec: SimSpec, provider: ProviderModel, seconds: float) -> tuple[SimulationResult, float]:
    """One replication of ``seconds`` and the CPU seconds of the whole call."""
    start = time.process_time()
    result = simulate_spec(spec, provider, seconds, seed=1, replications=1)
    return result, time.process_time() - start


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


def plain_model(spec: SimSpec, provider: ProviderModel, requests: int) -> float:
    """CPU seconds for the plain SimPy model of the same requests: a generator process per request.

    Each request takes a connection (a ``simpy.Resource``), waits its TTFB and then its transfer
    at the stream's own rate. It has no bandwidth sharing, no rate limits and no retries, so it
    does less than the simulator: its speed is an upper bound on a plain model's.
    """
    rng = np.random.default_rng(1)
    assert isinstance(spec.arrivals, OpenLoop)
    gaps = rng.exponential(1.0 / spec.arrivals.mean_rate_per_s, requests).tolist()
    is_get = (rng.random(requests) < spec.mix.get).tolist()
    ttfb_get = provider.latency("get").sample(rng, requests).tolist()
    ttfb_put = provider.latency("put").sample(rng, requests).tolist()
    size = spec.sizes.sizes_bytes[0]
    read_s = size * 8 / provider.stream_bits_per_s("read", size)
    write_s = size * 8 / provider.stream_bits_per_s("write", size)
    env = simpy.Environment()
    connections = simpy.Resource(env, spec.client.connections)

    def request(env: simpy.Environment, i: int) -> Generator[Any, Any, None]:
        with connections.request() as held:
            yield held
            if is_get[i]:
                yield env.timeout(ttfb_get[i])
                yield env.timeout(read_s)
            else:
                yield env.timeout(write_s)
                yield env.timeout(ttfb_put[i])

    def arrivals(env: simpy.Environment) -> Generator[Any, Any, None]:
        for i in range(requests):
            yield env.timeout(gaps[i])
            env.process(request(env, i))

    env.process(arrivals(env))
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
    plain_cpu_s: list[float] = []
    for _ in range(args.repeat):
        result, cpu_s = simulated(spec, provider, args.seconds)
        sim_cpu_s.append(cpu_s)
        requests = sum(op.requests.mean for op in result.operations.values())
        bare_cpu_s.append(bare_loop(int(requests)))
        plain_cpu_s.append(plain_model(spec, provider, int(requests)))
    attempts = sum(e.mean for e in result.billed_requests.values())

    get = result.operations["GET"]
    print(f"workload: {args.rate:g}/s for {args.seconds:g} s, {int(requests)} requests, {int(attempts)} billed")
    print(
        f"  GET p99 latency {get.latency_p99_s.mean * 1000:.1f} ms, "
        f"read {get.throughput_bytes_per_s.mean * 8 / 1e9:.2f} Gbps, "
        f"{get.retries.mean:g} retries of {get.requests.mean:g} GETs"
    )
    for label, pick in (("best", min), ("median", statistics.median)):
        sim_s, bare_s, plain_s = pick(sim_cpu_s), pick(bare_cpu_s), pick(plain_cpu_s)
        print(f"{label}:")
        print(f"  simulator  : {requests / sim_s:12,.0f} requests per CPU-second ({sim_s:.3f} s)")
        print(f"  bare SimPy : {requests / bare_s:12,.0f} timeouts per CPU-second ({bare_s:.3f} s)")
        print(f"  plain model: {requests / plain_s:12,.0f} requests per CPU-second ({plain_s:.3f} s)")
        print(f"  ratio      : {sim_s / bare_s:12.2f}x the bare loop's cost per request")
        print(f"  speed-up   : {plain_s / sim_s:12.2f}x the plain process-per-request model")


# -- the SimPy component: planner.sim.ObjectStore in a user's SimPy model --


def store_model(spec: SimSpec, provider: ProviderModel, seconds: float) -> tuple[int, float]:
    """Requests ended and CPU seconds for the standard workload through ``ObjectStore``, driven by one
    open-loop SimPy process (a timeout per arrival, each request an event it issues and does not await):
    the cost a user's SimPy model pays per request for the whole provider model (first byte, shared
    link, rate and hot-object limits, retries), set-up and arrivals included. The workload is drawn
    before the run, as a model replaying a trace has it (the gaps between arrivals, a hot object's
    replicas in turn), so that the loop is the bare loop's plus a call to the store."""
    start = time.process_time()
    assert isinstance(spec.arrivals, OpenLoop)
    source = RequestSource(spec, np.random.default_rng(1))
    times = source.arrival_times(spec.arrivals, 0.0, seconds)
    lops, sizes, keys = source.requests(len(times))
    replicas = source.hot_replicas  # hot object h (key -1 - h): after the Zipf keys, replica i mod replicas
    replica_keys = source.key_count + (-1 - keys) * replicas + np.arange(len(keys)) % replicas
    requests = zip(
        np.diff(times, prepend=0.0).tolist(),
        lops.tolist(),
        np.where(keys < 0, replica_keys, keys).tolist(),
        sizes.tolist(),
        strict=True,
    )
    env = simpy.Environment()
    store = ObjectStore(env, provider, client=spec.client, prefixes=spec.keys.prefixes, seed=1)
    operations = (store.get, store.put)

    def arrivals(env: simpy.Environment) -> Generator[Any, Any, None]:
        timeout = env.timeout
        for gap, lop, key, size in requests:
            yield timeout(gap)
            operations[lop](key, size)

    env.process(arrivals(env))
    env.run()
    return len(store.recorder.table()), time.process_time() - start


def store_main() -> None:
    """The component's cost per request beside the engine's and the bare SimPy loop's (goal: at most
    15x the bare loop's)."""
    parser = argparse.ArgumentParser(description="ObjectStore's cost per request")
    parser.add_argument("--seconds", type=float, default=20.0, help="simulated window (s)")
    parser.add_argument("--rate", type=float, default=2500.0, help="arrivals per second")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each; best and median are printed")
    args, _ = parser.parse_known_args()
    spec, provider = standard_workload(args.rate)
    store_s: list[float] = []
    sim_s: list[float] = []
    bare_s: list[float] = []
    requests = 0
    for _ in range(args.repeat):
        requests, cpu_s = store_model(spec, provider, args.seconds)
        store_s.append(cpu_s / requests)
        result, cpu_s = simulated(spec, provider, args.seconds)
        sim_s.append(cpu_s / sum(op.requests.mean for op in result.operations.values()))
        bare_s.append(bare_loop(requests) / requests)
    print(f"ObjectStore (a SimPy component in the user's model): {requests} requests of the same workload")
    for label, pick in (("best", min), ("median", statistics.median)):
        store, sim, bare = pick(store_s), pick(sim_s), pick(bare_s)
        print(f"{label}:")
        print(f"  ObjectStore: {1e6 * store:8.2f} us per request, {store / bare:6.2f}x the bare loop's (goal <= 15x)")
        print(f"  engine     : {1e6 * sim:8.2f} us per request, {sim / bare:6.2f}x the bare loop's (goal <= 7x)")
        print(f"  bare SimPy : {1e6 * bare:8.2f} us per timeout")


if __name__ == "__main__":
    main()
    store_main()
