"""The store's parts a model sees: its connection pool and link (probed and sampled), the provider's
limits as its price table states them, attempts and parts, and the evidence each figure carries."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
import simpy

from planner.errors import InputError
from planner.pricing.models import Limits, Multipart
from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    ConnectionPool,
    LatencyModel,
    Monitor,
    MultipartPolicy,
    ObjectStore,
    ProviderModel,
    RateLimit,
    StoreRecord,
)
from planner.sim.engine.request_life import part_sizes

MIB = 2**20
MODEL = ProviderModel(
    provider_id="hand",
    ttfb_get=LatencyModel.constant(0.05),
    ttfb_put=LatencyModel.constant(0.02),
    stream_read=BandwidthCurve.flat(8e9),
    stream_write=BandwidthCurve.flat(8e9),
)
S3_LIMITS = Limits(
    max_object_bytes=5 * 2**40,
    max_single_put_bytes=5 * 2**30,
    multipart=Multipart(min_part_bytes=5 * MIB, max_part_bytes=5 * 2**30, max_parts=10_000),
)


def test_the_pool_is_a_resource_a_probe_watches() -> None:
    """Two connections, three GETs of 0.05 s at once: the third waits 0.05 s for the first to end; a probe
    sees every take and give-back; the pool was busy 0.15 connection-seconds of 2 x 0.1."""
    env = simpy.Environment()
    store = ObjectStore(env, MODEL, client=ClientSpec(connections=2, round_trip_s=0.0))
    seen: list[tuple[float, int, int]] = []
    store.pool.probe(lambda now, in_use, waiting: seen.append((now, in_use, waiting)))
    events = [store.get(i, 0) for i in range(3)]
    assert (store.pool.count, len(store.pool.queue)) == (2, 1)
    env.run()
    assert [e.value.t_conn for e in events] == [0.0, 0.0, pytest.approx(0.05)]
    assert seen == [(0.0, 1, 0), (0.0, 2, 0), (0.0, 2, 1), (pytest.approx(0.05), 1, 1),
                    (pytest.approx(0.05), 2, 0), (pytest.approx(0.05), 1, 0), (pytest.approx(0.1), 0, 0)]  # fmt: skip
    assert store.pool.utilisation() == pytest.approx(0.15 / 0.2)


def test_a_model_holds_connections_of_a_pool_it_gives_the_store() -> None:
    """A model's own process holds the one connection for 1 s: the store's GET waits for it."""
    env = simpy.Environment()
    pool = ConnectionPool(1, env)
    store = ObjectStore(env, MODEL, pool=pool, client=ClientSpec(round_trip_s=0.0))
    assert store.pool is pool
    done: list[StoreRecord] = []

    def hold(env: simpy.Environment) -> Generator[simpy.Event, Any, None]:
        yield pool.request()
        yield env.timeout(1.0)
        pool.release()

    def read(env: simpy.Environment) -> Generator[simpy.Event, Any, None]:
        done.append((yield store.get("a/b", 0)))

    env.process(hold(env))
    env.process(read(env))
    env.run()
    assert done[0].t_conn == 1.0 and done[0].t_end == pytest.approx(1.05)
    with pytest.raises(InputError, match="pool"):
        ObjectStore(env, MODEL, pool=pool)  # one store a pool


def test_the_link_and_a_monitor_show_the_transfers() -> None:
    """One 100 MB GET on an 80 Mbit/s link: 10 s on the link at its full rate, sampled every second."""
    env = simpy.Environment()
    store = ObjectStore(env, MODEL, link=80e6, client=ClientSpec(round_trip_s=0.0))
    monitor = Monitor(env, 1.0, 12.0, pool=store.pool, link=store.link)
    store.get("big", 100_000_000)
    env.run(until=5.0)
    assert (store.link.transfers, store.link.utilisation) == (1, pytest.approx(1.0))
    env.run()
    assert store.link.transfers == 0
    assert monitor.in_use[:3] == [1, 1, 1] and monitor.in_use[-1] == 0
    assert monitor.link_bits_per_s[1:10] == [pytest.approx(80e6)] * 9  # moving from 0.05 s to 10.05 s
    assert monitor.mean("waiting") == 0.0


def test_a_put_past_the_single_put_limit_is_refused() -> None:
    """S3: "Upload an object in a single operation by using the AWS SDKs, REST API, or AWS CLI – With a single
    PUT operation, you can upload a single object up to 5 GB in size" (aws-s3 table's limits)."""
    env = simpy.Environment()
    store = ObjectStore(env, MODEL, limits=S3_LIMITS)
    with pytest.raises(InputError, match="single-PUT limit of 5,368,709,120 B"):
        store.put("huge", 5 * 2**30 + 1)
    store.put("at-limit", 5 * 2**30)  # exactly 5 GiB goes in one request


def test_a_large_upload_takes_larger_parts_to_fit_ten_thousand() -> None:
    """100 GiB in 8 MiB parts would be 12,800 parts; S3 allows 10,000, so the parts grow to 100 GiB / 10,000
    (rounded up, 10,737,419 B): 10,000 parts, and the operation's requests are Create, those, Complete."""
    sizes = part_sizes(100 * 2**30, 8 * MIB, S3_LIMITS)
    assert len(sizes) == 10_000 and max(sizes) == 10_737_419 and sum(sizes) == 100 * 2**30
    env = simpy.Environment()
    client = ClientSpec(multipart=MultipartPolicy(part_size_bytes=8 * MIB, queue_depth=64), round_trip_s=0.0)
    store = ObjectStore(env, MODEL, client=client, limits=S3_LIMITS, record="none")
    event = store.put("huge", 100 * 2**30)
    env.run()
    record = event.value
    assert (record.parts, record.attempts, record.retries) == (10_002, 10_002, 0)
    billed = store.recorder.billed_requests
    assert (billed["create-multipart"], billed["upload-part"], billed["complete-multipart"]) == (1, 10_000, 1)


def test_attempts_count_what_the_provider_saw_and_parts_are_apart() -> None:
    """A key limited to 1 PUT a second, two PUTs at once: the second is refused and retried (its backoffs are
    shorter than the second, so it runs out of attempts); its attempts are every request the provider
    answered, its one part apart."""
    model = MODEL.model_copy(update={"rate_limits": [RateLimit(operations=["put"], scope="key", per_s=1.0)]})
    env = simpy.Environment()
    store = ObjectStore(env, model, client=ClientSpec(round_trip_s=0.0))
    first, second = store.put("k", 0), store.put("k", 0)
    env.run()
    assert (first.value.attempts, first.value.parts) == (1, 1)
    refused = sum(store.recorder.error_attempts.values())
    assert refused == 3 and not second.value.ok
    assert (second.value.attempts, second.value.parts, second.value.retries) == (3, 1, 2)  # every attempt refused


def test_every_figure_carries_its_evidence() -> None:
    """B2's shipped profile publishes a GET latency and read stream but no PUT latency or write stream: a
    PUT's figures are assumed, a GET's derived from what is published."""
    env = simpy.Environment()
    store = ObjectStore.for_provider(env, "backblaze-b2", link=1e9)
    put, get = store.put("a", 10 * MIB), store.get("b", 10 * MIB)
    env.run()
    assert put.value.evidence == {"ttfb_s": "assumed", "latency_s": "assumed"}
    assert get.value.evidence["ttfb_s"] == "derived"
    summary = store.recorder.summary()
    assert summary["PUT"].evidence["latency_p50_s"] == "assumed"
    assert summary["GET"].evidence["mean_ttfb_s"] == "derived"
    assert summary["GET"].evidence["throttled"] == "derived"  # the price table's documented limits


def test_a_strict_store_refuses_assumed_figures_naming_them() -> None:
    env = simpy.Environment()
    store = ObjectStore.for_provider(env, "backblaze-b2", link=1e9, strict=True)
    store.get("b", MIB)  # GET rests on published figures: it runs
    with pytest.raises(InputError, match=r"^strict: PUT on the backblaze-b2 model rests on assumed figures: "
                       r"latency\.put, stream\.write") as refused:  # fmt: skip
        store.put("a", MIB)
    assert refused.value.field == "strict"
