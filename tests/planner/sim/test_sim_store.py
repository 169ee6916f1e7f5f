"""``ObjectStore``: a provider model as a SimPy component. Hand-computed records on hand-made models, the
provider's documented limits from its price table, the recorder, the bill, and one-line errors."""

from __future__ import annotations

import functools
import math
from collections.abc import Generator
from decimal import Decimal
from typing import Any

import pytest
import simpy

from planner.errors import InputError
from planner.measure.reference import load_reference
from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    HotObjectLimit,
    LatencyModel,
    MultipartPolicy,
    ObjectStore,
    ProviderModel,
    RangedGetPolicy,
    RateLimit,
    RetryPolicy,
    ServerQueue,
    StoreRecord,
)
from planner.sim.model.profile_adapter import provider_model_from_profile

MB = 1_000_000
MIB = 2**20

# 50 ms to first byte, 80 Mbit/s a stream (1 MB in 0.1 s), 10 ms HEAD
MODEL = ProviderModel(
    provider_id="hand",
    ttfb_get=LatencyModel.constant(0.05),
    ttfb_put=LatencyModel.constant(0.02),
    ttfb_head=LatencyModel.constant(0.01),
    stream_read=BandwidthCurve.flat(80e6),
    stream_write=BandwidthCurve.flat(80e6),
)


def run(store: ObjectStore, *calls: Any) -> list[StoreRecord]:
    """Issue ``calls`` (store method, args) at time 0, all at once, and the records they end with."""
    records: list[StoreRecord] = []

    def user(env: simpy.Environment) -> Generator[Any, Any, None]:
        events = [method(*args) for method, *args in calls]
        for event in events:
            records.append((yield event))

    store.env.process(user(store.env))
    store.env.run()
    return records


def test_a_get_takes_its_first_byte_then_its_body() -> None:
    store = ObjectStore(simpy.Environment(), MODEL)
    (record,) = run(store, (store.get, "photos/a.jpg", MB))
    assert (record.operation, record.key, record.bytes, record.status, record.attempts) == (
        "GET",
        "photos/a.jpg",
        MB,
        "200 OK",
        1,
    )
    assert record.ttfb_s == pytest.approx(0.05)
    assert record.latency_s == pytest.approx(0.05 + 0.1)  # 8 Mbit at 80 Mbit/s


def test_a_put_sends_its_body_then_waits_for_its_response() -> None:
    store = ObjectStore(simpy.Environment(), MODEL)
    (record,) = run(store, (store.put, "a", MB))
    assert record.ttfb_s == record.latency_s == pytest.approx(0.1 + 0.02)


def test_gets_share_the_client_link() -> None:
    # two 10 MB bodies on a 100 Mbit/s link: 50 Mbit/s each (below their 80 Mbit/s cap), 1.6 s
    store = ObjectStore(simpy.Environment(), MODEL, link=100e6)
    first, second = run(store, (store.get, "a", 10 * MB), (store.get, "b", 10 * MB))
    assert first.latency_s == second.latency_s == pytest.approx(0.05 + 1.6)
    summary = store.recorder.summary(0.0, 1.65)
    assert summary["GET"].throughput_bytes_per_s == pytest.approx(20 * MB / 1.65)


def test_requests_wait_for_the_server_queue() -> None:
    # one server holding each HEAD 0.1 s: three at once start at 0, 0.1 and 0.2, each answered 10 ms later
    model = MODEL.model_copy(update={"server_queues": [ServerQueue(operations=["head"], servers=1, service_s=0.1)]})
    store = ObjectStore(simpy.Environment(), model)
    records = run(store, *[(store.head, f"k{i}") for i in range(3)])
    assert [round(r.latency_s, 9) for r in records] == [0.01, 0.11, 0.21]


def test_a_rate_limited_key_answers_429_and_the_client_retries() -> None:
    # R2's one write a second per key: the second PUT at once is refused on all three attempts
    model = MODEL.model_copy(
        update={"rate_limits": [RateLimit(operations=["put"], scope="key", per_s=1, error="429 Too Many Requests")]}
    )
    client = ClientSpec(retry=RetryPolicy(max_attempts=3, base_s=0.1))
    store = ObjectStore(simpy.Environment(), model, client=client)
    first, second, other = run(store, (store.put, "k", 0), (store.put, "k", 0), (store.put, "other", 0))
    assert (first.status, first.attempts) == ("200 OK", 1)
    assert (second.status, second.attempts) == ("429 Too Many Requests", 3)
    assert not second.ok
    assert (other.status, other.attempts) == ("200 OK", 1)  # another key has its own bucket
    put = store.recorder.summary()["PUT"]
    assert (put.requests, put.failed, put.throttled, put.retries) == (3, 1, 3, 2)
    assert store.recorder.billed_requests == {"put": 5}


def test_a_hot_object_past_its_limit_is_refused() -> None:
    model = MODEL.model_copy(update={"hot_object": HotObjectLimit(max_concurrent_reads=2, behaviour="reject")})
    store = ObjectStore(simpy.Environment(), model, client=ClientSpec(retry=RetryPolicy(max_attempts=1)))
    records = run(store, *[(store.get, "hot", MB) for _ in range(3)])
    assert [r.status for r in records] == ["200 OK", "200 OK", "503 SlowDown"]


def test_large_objects_split_into_multipart_uploads_and_ranged_gets() -> None:
    client = ClientSpec(
        multipart=MultipartPolicy(threshold_bytes=8 * MIB, part_size_bytes=8 * MIB, queue_depth=2),
        ranged_get=RangedGetPolicy(threshold_bytes=16 * MIB, streams=4),
    )
    store = ObjectStore(simpy.Environment(), MODEL, client=client)
    put, get = run(store, (store.put, "big", 20 * MIB), (store.get, "big", 20 * MIB))
    assert (put.status, put.attempts, get.status, get.attempts) == ("200 OK", 5, "200 OK", 4)
    assert store.recorder.billed_requests == {
        "get": 4,
        "create-multipart": 1,
        "upload-part": 3,
        "complete-multipart": 1,
    }
    assert store.recorder.read_bytes == 20 * MIB
    # the ranged GET's four streams share nothing here: each moves 5 MiB at 80 Mbit/s after its first byte
    assert get.latency_s == pytest.approx(0.05 + 5 * MIB * 8 / 80e6)


def test_a_byte_range_is_one_request_of_its_length() -> None:
    store = ObjectStore(simpy.Environment(), MODEL)
    (record,) = run(store, (functools.partial(store.get, byte_range=(0, MB)), "a"))
    assert record.bytes == MB
    assert record.latency_s == pytest.approx(0.15)


def test_a_provider_store_is_the_engines_model_under_its_documented_limits() -> None:
    env = simpy.Environment()
    store = ObjectStore.for_provider(env, "cloudflare-r2")
    table = catalog.table_for("cloudflare-r2")
    expected, _ = provider_model_from_profile(load_reference("cloudflare-r2"), table.limits)
    # the store bills attempts by the table's error-response rule (R2: no charge for a 401 or 403)
    assert store.model == expected.model_copy(update={"error_responses": table.billing.error_responses})
    first, second = run(store, (store.put, "k", 1000), (store.put, "k", 1000))
    assert first.status == "200 OK"
    assert second.status == "429 Too Many Requests"


def test_the_bill_has_the_cost_engines_line_items() -> None:
    env = simpy.Environment()
    store = ObjectStore.for_provider(env, "cloudflare-r2")
    run(store, (store.put, "a", 1000), (store.put, "b", 1000), (store.get, "a", 1000))
    cost = store.bill(scale=1_000_000)
    table = catalog.table_for("cloudflare-r2")
    assert cost == bill(table, "standard", store.usage(scale=1_000_000), as_of=cost.as_of)
    requests = [item for item in cost.line_items if item.category == "requests"]
    # 2 million PUTs, the first million free (R2 class A), the second at $4.50 a million
    assert [(item.description, item.quantity, item.amount_usd) for item in requests] == [
        ("class-a requests (put)", Decimal(1), Decimal("4.50"))
    ]


def test_an_archive_class_reads_only_after_a_restore() -> None:
    env = simpy.Environment()
    store = ObjectStore.for_provider(env, "aws-s3", storage_class="deep-archive")
    with pytest.raises(InputError) as raised:
        store.get("cold", MB)
    assert str(raised.value) == (
        "key: GET 'cold': deep-archive objects are read only after a restore "
        "(yield store.restore('cold', ready_after_s=...) first)"
    )

    def user(env: simpy.Environment) -> Generator[Any, Any, None]:
        yield store.put("cold", MB)
        yield store.restore("cold", ready_after_s=12 * 3600)
        record = yield store.get("cold")
        assert record.status == "200 OK"

    env.process(user(env))
    env.run()
    assert env.now > 12 * 3600
    assert store.usage().retrieval_requests == 1


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda env: ObjectStore(env, MODEL, link=0),
            "link: link 0 bits/s: give the client's link speed in bits a second above 0 (None: unlimited)",
        ),
        (
            lambda env: ObjectStore(env, MODEL).put("a", -1),
            "size: PUT 'a': size -1 is not a byte count (give an int of 0 or more)",
        ),
        (
            lambda env: ObjectStore(env, MODEL).get("a", -5),
            "size: GET 'a': size -5 is not a byte count (give an int of 0 or more)",
        ),
        (
            lambda env: ObjectStore(env, MODEL).get("a"),
            "size: GET 'a': no such object (PUT it first, or give its size)",
        ),
        (
            lambda env: ObjectStore(env, MODEL).delete("a"),
            "latency_by_size.delete: DELETE 'a': the hand model has no latency_by_size['delete'] cell "
            "(give ObjectStore(..., delete_latency=LatencyModel(...)))",
        ),
        (
            lambda env: ObjectStore(env, MODEL).restore("a", ready_after_s=1),
            "key: restore 'a': standard objects are read without a restore",
        ),
        (
            lambda env: ObjectStore(env, MODEL, archive=True).restore("a", ready_after_s=math.nan),
            "ready_after_s: nan is not a delay in seconds from 0 to 1,000,000,000,000",
        ),
        (
            lambda env: ObjectStore(env, MODEL, archive=True).restore("a", ready_after_s=math.inf),
            "ready_after_s: inf is not a delay in seconds from 0 to 1,000,000,000,000",
        ),
        (
            lambda env: ObjectStore(env, MODEL).get("a", byte_range=(0.5, 10.5)),
            "byte_range: GET 'a': byte_range (0.5, 10.5) is not (first byte, length) in whole bytes of 0 or more",
        ),
        (
            lambda env: ObjectStore(env, MODEL).get("a", byte_range=(0, -1)),
            "byte_range: GET 'a': byte_range (0, -1) is not (first byte, length) in whole bytes of 0 or more",
        ),
        (
            lambda env: ObjectStore(env, MODEL).get("a", byte_range=(1, 2, 3)),
            "byte_range: GET 'a': byte_range (1, 2, 3) is not (first byte, length) in whole bytes of 0 or more",
        ),
        (
            lambda env: ObjectStore(env, MODEL).put("a", 1.5),
            "size: PUT 'a': size 1.5 is not a byte count (give an int of 0 or more)",
        ),
        (
            lambda env: ObjectStore(env, MODEL).put("a", True),
            "size: PUT 'a': size True is not a byte count (give an int of 0 or more)",
        ),
        (
            lambda env: ObjectStore(env, MODEL).put(["a"], 1),
            "key: PUT ['a']: a key is a string or a whole number",
        ),
        (
            lambda env: ObjectStore(env, MODEL).head(1.5),
            "key: HEAD 1.5: a key is a string or a whole number",
        ),
        (  # a GET without a size looks the key up first: an unhashable one is no key there either
            lambda env: ObjectStore(env, MODEL).get(["a"]),
            "key: GET ['a']: a key is a string or a whole number",
        ),
        (lambda env: ObjectStore(env, MODEL).get({}), "key: GET {}: a key is a string or a whole number"),
        (
            lambda env: ObjectStore(env, MODEL).list(3),
            "prefix: LIST 3: a prefix is a string",
        ),
        (
            lambda env: ObjectStore(env, MODEL).bill(scale=math.nan),
            "scale: nan is not a scale from 0 to 1,000,000,000,000",
        ),
        (lambda env: ObjectStore(env, MODEL).usage(scale=-1), "scale: -1 is not a scale from 0 to 1,000,000,000,000"),
        (
            lambda env: ObjectStore(env, MODEL).usage(stored_bytes=2.5),
            "stored_bytes: stored_bytes 2.5: give a whole number of bytes of 0 or more",
        ),
        (
            lambda env: ObjectStore(env, MODEL).bill(as_of="2026-12-05"),
            "as_of: '2026-12-05' is not a date (give a datetime.date, e.g. datetime.date(2026, 12, 1))",
        ),
        (
            lambda env: ObjectStore(env, MODEL, link=math.nan),
            "link: link nan bits/s: give the client's link speed in bits a second above 0 (None: unlimited)",
        ),
        (lambda env: ObjectStore(env, MODEL, seed=-1), "seed: seed -1: give a seed as a whole number of 0 or more"),
        (lambda env: ObjectStore(env, MODEL, seed=1.5), "seed: seed 1.5: give a seed as a whole number of 0 or more"),
        (
            lambda env: ObjectStore(env, MODEL, prefixes=0),
            "prefixes: prefixes 0: give a number of prefixes as a whole number of 1 or more",
        ),
        (lambda env: ObjectStore(None, MODEL), "env: env None: give the simpy.Environment the store runs on"),
        (lambda env: ObjectStore(env, "aws-s3"), "model: model str: give a ProviderModel"),
        (lambda env: ObjectStore(env, MODEL, client={}), "client: client dict: give a ClientSpec (or None)"),
    ],
)
def test_bad_input_is_one_line(make: Any, message: str) -> None:
    with pytest.raises(InputError) as raised:
        make(simpy.Environment())
    assert str(raised.value) == message
    assert "\n" not in str(raised.value)


def test_a_delete_with_its_latency_given() -> None:
    store = ObjectStore(simpy.Environment(), MODEL, delete_latency=LatencyModel.constant(0.03))
    (record,) = run(store, (store.delete, "a"))
    assert (record.operation, record.latency_s) == ("DELETE", pytest.approx(0.03))
    assert store.recorder.billed_requests == {"delete": 1}


def test_an_object_is_stored_once_its_put_is_answered_and_gone_once_its_delete_is() -> None:
    store = ObjectStore(simpy.Environment(), MODEL, delete_latency=LatencyModel.constant(0.03))
    seen: list[int] = []

    def user(env: simpy.Environment) -> Generator[Any, Any, None]:
        put = store.put("a", MB)
        with pytest.raises(InputError, match="no such object"):  # not there while its PUT is in flight
            store.get("a")
        yield put
        seen.append(store.usage().stored_bytes)
        yield store.get("a")  # its size is the one PUT
        yield store.delete("a")
        seen.append(store.usage().stored_bytes)

    store.env.process(user(store.env))
    store.env.run()
    assert seen == [MB, 0]
    assert store.recorder.read_bytes == MB


def test_the_store_says_what_it_assumes() -> None:
    store = ObjectStore.for_provider(simpy.Environment(), "cloudflare-r2")
    assert store.assumptions[0].startswith("the load is not known ahead: every request waits in its server queue")
    assert any("PUT, HEAD and LIST server latency taken equal to GET TTFB" in note for note in store.assumptions)
