"""The engine's raw records for fixed specs and seeds, pinned: a change to the event loop, the
network or the admission checks that alters what a run records (a draw taken in another order, a
tie broken another way, a rounding) changes a fingerprint here. The fingerprints were taken from
the engine before its hot path was folded into one definition of each step (some have changed
since, for the reasons given by them)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    ClosedLoop,
    HotObjectLimit,
    HotSet,
    KeyPopularity,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    RateLimit,
    ServerQueue,
    SimSpec,
    SizeDistribution,
    SizedLatency,
)
from planner.sim.engine.replication import RawRun, Replication
from planner.sim.spec import MultipartPolicy, RangedGetPolicy, TraceArrivals

MIB = 2**20


def _provider(
    *,
    rate: float,
    scope: str | None = None,
    hot: str | None = None,
    queued: int = 0,
    by_size: bool = False,
) -> ProviderModel:
    return ProviderModel(
        provider_id="golden",
        ttfb_get=LatencyModel(p50_s=0.030, p99_s=0.120, floor_s=0.010),
        ttfb_put=LatencyModel(p50_s=0.040, p99_s=0.150, floor_s=0.015),
        stream_read=BandwidthCurve.flat(700e6),
        stream_write=BandwidthCurve.flat(400e6),
        rate_limits=[
            RateLimit(operations=["get", "put", "upload-part"], scope=scope, per_s=rate / 3),
            RateLimit(operations=["head"], scope=scope, per_s=rate / 20, burst=2, error="429"),
        ]
        if scope
        else [],
        hot_object=HotObjectLimit(max_concurrent_reads=2, behaviour=hot) if hot else None,
        server_queues=[
            ServerQueue(
                operations=["get", "put", "upload-part"],
                servers=queued,
                service_s=queued / rate * 1.1,
                service_by_size={"put": [(1000, queued / rate * 2), (MIB, queued / rate * 4)]},
                service_spread=LatencyModel.empirical([(0.0, 0.5), (0.5, 0.9), (0.99, 3.0)]) if queued > 1 else None,
            )
        ]
        if queued
        else [],
        latency_by_size={
            "get": SizedLatency(
                points=[
                    (1000, LatencyModel.empirical([(0.0, 0.001), (0.5, 0.002), (0.99, 0.010)])),
                    (3 * MIB, LatencyModel.empirical([(0.0, 0.004), (0.5, 0.006), (0.9, 0.009), (0.999, 0.050)])),
                ]
            )
        }
        if by_size
        else {},
        source="test",
    )


def _spec(
    *,
    arrivals: OpenLoop | ClosedLoop | TraceArrivals,
    sizes: list[int],
    put_share: float = 0.3,
    link_gbps: float = 5.0,
    duplex: str = "shared",
    connections: int = 64,
    split: bool = False,
    hot_set: HotSet | None = None,
    round_trip_s: float = 0.0,
) -> SimSpec:
    return SimSpec(
        arrivals=arrivals,
        mix=OperationMix(get=1 - put_share - 0.05, put=put_share, head=0.05),
        sizes=SizeDistribution(sizes_bytes=sizes),
        keys=KeyPopularity(keys=1000, prefixes=2, zipf_exponent=1.2, hot=hot_set),
        client=ClientSpec(
            link_bits_per_s=link_gbps * 1e9,
            link_duplex=duplex,
            connections=connections,
            multipart=MultipartPolicy(threshold_bytes=16 * MIB, part_size_bytes=5 * MIB) if split else None,
            ranged_get=RangedGetPolicy(threshold_bytes=16 * MIB, streams=4) if split else None,
            round_trip_s=round_trip_s,
        ),
    )


def _trace() -> TraceArrivals:
    rng = np.random.default_rng(5)
    count = 1500
    return TraceArrivals(
        times_s=tuple(np.sort(rng.uniform(0.0, 1.5, count)).tolist()),
        operations=tuple(rng.choice([0, 0, 0, 1, 2], count).tolist()),
        sizes=tuple(rng.choice([1000, MIB, 3 * MIB], count).tolist()),
        keys=tuple(rng.integers(0, 40, count).tolist()),
    )


# name: (spec, provider, window s, warm-up s)
CASES: dict[str, tuple[SimSpec, ProviderModel, float, float]] = {
    "open, prefix limits, hot set rejecting": (
        _spec(arrivals=OpenLoop(mean_rate_per_s=2500), sizes=[MIB], hot_set=HotSet(objects=2, share_of_reads=0.3)),
        _provider(rate=2500, scope="prefix", hot="reject"),
        1.5,
        0.0,
    ),
    "open, key limits, hot set degrading, warm-up": (
        _spec(
            arrivals=OpenLoop(mean_rate_per_s=1500),
            sizes=[1000, MIB],
            hot_set=HotSet(objects=2, share_of_reads=0.4, replicas=2),
            duplex="full",
        ),
        _provider(rate=1500, scope="key", hot="degrade"),
        1.5,
        0.5,
    ),
    "open, bucket limits, server queue with spread and sizes": (
        _spec(arrivals=OpenLoop(mean_rate_per_s=1200), sizes=[0, 1000, MIB, 3 * MIB], put_share=0.4),
        _provider(rate=1200, scope="bucket", queued=3, by_size=True),
        1.5,
        0.0,
    ),
    "open, ranged and multipart, one server, round trip": (
        _spec(
            arrivals=OpenLoop(mean_rate_per_s=300),
            sizes=[MIB, 20 * MIB],
            split=True,
            link_gbps=20.0,
            connections=32,
            round_trip_s=0.02,
        ),
        _provider(rate=300, scope="prefix", queued=1),
        1.5,
        0.0,
    ),
    "open, few connections, unbounded link": (
        _spec(arrivals=OpenLoop(mean_rate_per_s=800), sizes=[1000, 3 * MIB], connections=8, link_gbps=1e6),
        _provider(rate=800),
        1.5,
        0.0,
    ),
    "closed, no think time, hot burst, limits": (
        _spec(
            arrivals=ClosedLoop(workers=48),
            sizes=[1000, MIB],
            hot_set=HotSet(objects=1, share_of_reads=0.2, peak_concurrency=6, burst_every_s=0.5),
            connections=32,
        ),
        _provider(rate=2000, scope="prefix", hot="reject"),
        1.0,
        0.2,
    ),
    "closed, think time, ranged and multipart": (
        _spec(arrivals=ClosedLoop(workers=16, think_time_s=0.01), sizes=[MIB, 20 * MIB], split=True, link_gbps=10),
        _provider(rate=600, scope="key", queued=2),
        1.0,
        0.0,
    ),
    "trace, limits and hot keys": (
        _spec(arrivals=_trace(), sizes=[MIB], connections=24),
        _provider(rate=900, scope="key", hot="reject"),
        1.5,
        0.0,
    ),
}


def fingerprint(run: RawRun) -> str:
    """A digest of everything a run recorded (times rounded to 1e-9 s; transfers as a set of rows,
    since the row a transfer is written to is bookkeeping, not behaviour)."""
    digest = hashlib.sha256()
    records = np.column_stack([run.lop, run.t_arrival, run.t_conn, run.t_first, run.t_end, run.size, run.ok])
    transfers = np.column_stack([run.transfer_lop, run.transfer_start, run.transfer_end, run.transfer_bytes])
    transfers = transfers[np.lexsort(transfers.T[::-1])]
    for array in (records, transfers, np.sort(run.error_time)):
        digest.update(np.round(array.astype(np.float64), 9).tobytes())
    digest.update(repr((sorted(run.errors.items()), run.retries, run.billed, run.unfinished)).encode())
    return digest.hexdigest()[:16]


# The four cases with a hot set changed once, on purpose: a read answered in full used to give its
# connection to the request waiting for one (which began at once) before it left the hot-object
# count, so a waiting read of the same range was judged with the finished read still counted; now
# a part ending leaves the count first and the waiting part begins after. The old engine with just
# that order changed gives these fingerprints exactly; over 30 seeds each, errors, requests and
# mean latency agree within their standard errors.
GOLDEN = {
    "open, prefix limits, hot set rejecting": "16b257ea44031cfd",  # was 730b20c15d567717
    "open, key limits, hot set degrading, warm-up": "0bf36e9c0b654234",  # was ee3a8f4706d0e03c
    "open, bucket limits, server queue with spread and sizes": "0027db2cae4861f1",
    # was 96a15705dd617a58: the loop counted an open-loop arrival split into parts (ranged GET,
    # multipart upload) as issued twice, so 223 of these requests, all of which end, were called
    # unfinished; every other figure of the case is as it was
    "open, ranged and multipart, one server, round trip": "db33e03b455b2cdc",
    "open, few connections, unbounded link": "aa06188d098a8cfe",
    "closed, no think time, hot burst, limits": "1b96ef90c34f8c0f",  # was 317869daa657f783
    "closed, think time, ranged and multipart": "6469f84ec68064b6",
    "trace, limits and hot keys": "24e09501f2e22b3f",  # was 1967bb5a0a4cf6c8
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_engine_records_what_it_recorded_before(name: str) -> None:
    spec, provider, window_s, warmup_s = CASES[name]
    run = Replication(spec, provider, window_s, np.random.default_rng(20261203), warmup_s=warmup_s).run()
    assert len(run.lop) > 100, "the case records too little to pin anything"
    assert fingerprint(run) == GOLDEN[name]
