"""The SimPy ``ObjectStore`` and the built-in engine are one model: the same seeded workload, replayed
through ``simulate_spec`` and through the store driven by a generic open-loop SimPy process, agrees on
mean, p50, p95 and p99 latency and TTFB, throughput and throttled counts within the replications'
95 % confidence intervals (the two intervals overlap), on four specs: light load, near the server's
capacity, a hot key past its limit, large multipart uploads on a shared link."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import pytest
import simpy

from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    HotObjectLimit,
    HotSet,
    KeyPopularity,
    LatencyModel,
    MultipartPolicy,
    ObjectStore,
    OpenLoop,
    OperationMix,
    ProviderModel,
    ServerQueue,
    SimSpec,
    SizeDistribution,
    simulate_spec,
)
from planner.sim._stats import mean_and_half_width
from planner.sim.requests import RequestSource

MIB = 2**20
REPLICATIONS = 5

_MODEL = ProviderModel(
    provider_id="agreement",
    ttfb_get=LatencyModel(p50_s=0.030, p99_s=0.120, floor_s=0.010),
    ttfb_put=LatencyModel(p50_s=0.040, p99_s=0.150, floor_s=0.015),
    stream_read=BandwidthCurve.flat(400e6),
    stream_write=BandwidthCurve.flat(200e6),
)

SPECS: dict[str, tuple[SimSpec, ProviderModel, float]] = {
    "light load": (
        SimSpec(
            arrivals=OpenLoop(mean_rate_per_s=40), mix=OperationMix(get=0.8, put=0.2), sizes=SizeDistribution.fixed(MIB)
        ),
        _MODEL,
        20.0,
    ),
    "near capacity": (
        SimSpec(
            arrivals=OpenLoop(mean_rate_per_s=180),
            mix=OperationMix(get=0.7, put=0.3),
            sizes=SizeDistribution.fixed(4096),
        ),
        _MODEL.model_copy(
            update={"server_queues": [ServerQueue(operations=["get", "put"], servers=2, service_s=0.01)]}
        ),
        20.0,
    ),
    "hot key past its limit": (
        SimSpec(
            arrivals=OpenLoop(mean_rate_per_s=150),
            mix=OperationMix(get=1.0, put=0.0),
            sizes=SizeDistribution.fixed(MIB),
            keys=KeyPopularity(keys=1000, hot=HotSet(objects=1, share_of_reads=0.4)),
        ),
        _MODEL.model_copy(update={"hot_object": HotObjectLimit(max_concurrent_reads=3, behaviour="reject")}),
        20.0,
    ),
    "large multipart on a shared link": (
        SimSpec(
            arrivals=OpenLoop(mean_rate_per_s=1.5),
            mix=OperationMix(get=0.0, put=1.0),
            sizes=SizeDistribution.fixed(48 * MIB),
            client=ClientSpec(link_bits_per_s=1e9, multipart=MultipartPolicy(part_size_bytes=8 * MIB, queue_depth=4)),
        ),
        _MODEL,
        40.0,
    ),
}

FIGURES = (
    "mean_latency_s",
    "latency_p50_s",
    "latency_p95_s",
    "latency_p99_s",
    "ttfb_p50_s",
    "ttfb_p95_s",
    "ttfb_p99_s",
    "throughput_bytes_per_s",
)


def open_loop(env: simpy.Environment, store: ObjectStore, spec: SimSpec, duration_s: float, seed: int) -> None:
    """A generic open-loop SimPy process: the spec's Poisson arrivals, each request issued and not awaited
    (its record goes to the store's recorder). Hot objects' keys follow the engine's numbering."""
    assert isinstance(spec.arrivals, OpenLoop)
    source = RequestSource(spec, np.random.default_rng(seed))
    times = source.arrival_times(spec.arrivals, 0.0, duration_s).tolist()
    lops, sizes, keys = (a.tolist() for a in source.requests(len(times)))
    hot_replicas = source.hot_replicas
    next_replica: dict[int, int] = {}
    operations = (store.get, store.put)

    def arrivals(env: simpy.Environment) -> Generator[Any, Any, None]:
        for t, lop, size, key in zip(times, lops, sizes, keys, strict=True):
            yield env.timeout(t - env.now)
            if key < 0:  # hot object h: its replicas in turn, after the Zipf keys (as the engine)
                hot = -1 - key
                replica = next_replica.get(hot, 0)
                next_replica[hot] = (replica + 1) % hot_replicas
                key = source.key_count + hot * hot_replicas + replica
            operations[lop](key, size)

    env.process(arrivals(env))


def store_figures(spec: SimSpec, model: ProviderModel, duration_s: float) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {}
    for replication in range(REPLICATIONS):
        env = simpy.Environment()
        store = ObjectStore(env, model, client=spec.client, prefixes=spec.keys.prefixes, seed=100 + replication)
        open_loop(env, store, spec, duration_s, seed=200 + replication)
        env.run()
        for op, summary in store.recorder.summary(0.0, duration_s).items():
            for name in (*FIGURES, "throttled"):
                values.setdefault(f"{op}.{name}", []).append(float(getattr(summary, name)))
    return values


@pytest.mark.parametrize("name", list(SPECS))
def test_store_agrees_with_the_engine(name: str) -> None:
    spec, model, duration_s = SPECS[name]
    engine = simulate_spec(spec, model, duration_s, seed=7, replications=REPLICATIONS)
    store = store_figures(spec, model, duration_s)
    compared = 0
    for op, stats in engine.operations.items():
        if not stats.requests.mean:
            continue
        for figure in FIGURES:
            expected = getattr(stats, figure)
            mean, half = mean_and_half_width(store[f"{op}.{figure}"])
            assert half is not None and expected.ci95_half_width is not None
            gap = abs(mean - expected.mean)
            assert gap <= half + expected.ci95_half_width, (
                f"{name}: {op} {figure}: store {mean:.6g} ± {half:.3g}, engine {expected.mean:.6g} ± "
                f"{expected.ci95_half_width:.3g}"
            )
            compared += 1
        throttled_mean, throttled_half = mean_and_half_width(store[f"{op}.throttled"])
        engine_throttled = sum(e.mean for e in stats.errors.values())
        engine_half = sum(e.ci95_half_width or 0.0 for e in stats.errors.values())
        assert abs(throttled_mean - engine_throttled) <= (throttled_half or 0.0) + engine_half, (
            f"{name}: {op} throttled: store {throttled_mean:.6g}, engine {engine_throttled:.6g}"
        )
    assert compared >= len(FIGURES)
    if name == "hot key past its limit":  # the limit is passed: both answer 503s
        assert sum(e.mean for e in engine.operations["GET"].errors.values()) > 10
        assert np.mean(store["GET.throttled"]) > 10
