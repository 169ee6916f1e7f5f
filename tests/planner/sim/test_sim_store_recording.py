"""What an ``ObjectStore`` keeps: all, none or one operation in N (``record=``), as a columnar table; a
summary's window from the store's first operation; memory flat in the number of distinct object sizes."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import pytest
import simpy

from planner.errors import InputError
from planner.sim import BandwidthCurve, LatencyModel, ObjectStore, ProviderModel
from planner.sim.engine.answer_tables import SIZE_CLASSES_PER_OCTAVE, size_class

MB = 1_000_000

# 50 ms to first byte, 20 ms after a PUT's body, 80 Mbit/s a stream (1 MB in 0.1 s)
MODEL = ProviderModel(
    provider_id="hand",
    ttfb_get=LatencyModel.constant(0.05),
    ttfb_put=LatencyModel.constant(0.02),
    stream_read=BandwidthCurve.flat(80e6),
    stream_write=BandwidthCurve.flat(80e6),
)


def ten_puts_and_gets(store: ObjectStore, start_s: float = 0.0) -> None:
    """From ``start_s``, PUT then GET ten 1 MB objects one after another."""

    def user(env: simpy.Environment) -> Generator[Any, Any, None]:
        yield env.timeout(start_s)
        for i in range(10):
            yield store.put(f"k{i}", MB)
            yield store.get(f"k{i}")

    store.env.process(user(store.env))
    store.env.run()


def test_recording_all_gives_a_columnar_table_a_model_can_filter() -> None:
    store = ObjectStore(simpy.Environment(), MODEL)
    ten_puts_and_gets(store)
    table = store.recorder.table()
    assert len(table) == 20
    gets = table.where(table.operation == "GET")
    assert len(gets) == 10 and gets.bytes.dtype == np.int64 and gets.ok.all()
    # each PUT takes 0.1 s of body and 0.02 s of response, each GET 0.05 s to first byte and 0.1 s of body
    assert gets.ttfb_s == pytest.approx([0.05] * 10)
    assert gets.latency_s == pytest.approx([0.15] * 10)
    assert gets.start_s[1] - gets.start_s[0] == pytest.approx(0.12 + 0.15)


def test_recording_none_keeps_the_bill_and_refuses_a_summary() -> None:
    store = ObjectStore(simpy.Environment(), MODEL, record="none")
    ten_puts_and_gets(store)
    assert store.recorder.billed_requests == {"get": 10, "put": 10}
    assert store.recorder.read_bytes == 10 * MB
    assert store.usage().egress_bytes == 10 * MB
    with pytest.raises(InputError) as raised:
        store.recorder.summary()
    assert str(raised.value) == "record: summary: the store records no operation (ObjectStore(..., record='none'))"


def test_recording_one_in_n_keeps_that_share_and_says_so() -> None:
    store = ObjectStore(simpy.Environment(), MODEL, record=4)
    ten_puts_and_gets(store)
    # operations 1, 5, 9, 13, 17 of 20: PUT k0, PUT k2, PUT k4, PUT k6, PUT k8
    table = store.recorder.table()
    assert list(table.operation) == ["PUT"] * 5
    summary = store.recorder.summary()
    assert (summary["PUT"].requests, summary["PUT"].sample_one_in) == (5, 4)
    assert store.recorder.billed_requests == {"get": 10, "put": 10}  # billed whatever is recorded


@pytest.mark.parametrize("record", ["some", 0, -2, 1.5, True])
def test_a_bad_record_is_refused_in_one_line(record: Any) -> None:
    with pytest.raises(InputError, match=r"^record: record .*: give 'all', 'none' or N \(one operation in N\)"):
        ObjectStore(simpy.Environment(), MODEL, record=record)


def test_a_summary_runs_from_the_stores_first_operation() -> None:
    # first used at 3,600 s: ten PUTs (0.12 s each) and GETs (0.15 s each) take 2.7 s and move 20 MB
    store = ObjectStore(simpy.Environment(), MODEL)
    ten_puts_and_gets(store, start_s=3600.0)
    summary = store.recorder.summary()
    assert summary["PUT"].throughput_bytes_per_s == pytest.approx(10 * MB / 2.7)
    assert summary["GET"].throughput_bytes_per_s == pytest.approx(10 * MB / 2.7)
    # a window given: the first PUT and GET arrive in [3600, 3600.27)
    first = store.recorder.summary(since=3600.0, until=3600.27)
    assert (first["PUT"].requests, first["GET"].requests) == (1, 1)
    with pytest.raises(InputError, match=r"^until: summary: until 3600.0 is not after since"):
        store.recorder.summary(since=3600.0, until=3600.0)
    with pytest.raises(InputError, match=r"^since: nan is not a time from -1,000,000,000,000 to 1,000,000,000,000"):
        store.recorder.summary(since=float("nan"))


def test_size_classes_are_within_one_and_a_fifth_percent() -> None:
    sizes = np.unique(np.random.default_rng(1).lognormal(np.log(256 * 2**10), 2.0, 20_000).astype(np.int64) + 256)
    classes = np.array([size_class(int(s)) for s in sizes])
    # half a class (1.09 %), and the rounding to whole bytes of the smallest
    assert np.abs(classes / sizes - 1).max() <= 0.012
    assert size_class(100) == 100 and size_class(2**20) == 2**20


def test_memory_is_flat_in_the_number_of_distinct_sizes() -> None:
    # 5,000 GETs of distinct sizes between 1 MB and 2 MB: one octave, at most 33 size classes asked of the model
    store = ObjectStore(simpy.Environment(), MODEL)
    sizes = np.random.default_rng(2).choice(np.arange(MB, 2 * MB), 5000, replace=False).tolist()

    def user(env: simpy.Environment) -> Generator[Any, Any, None]:
        for size in sizes:
            yield store.get("k", size)

    store.env.process(user(store.env))
    store.env.run()
    assert len(store.recorder.table()) == 5000
    asked = [key >> 3 for key in store.latencies.inner]  # type: ignore[attr-defined]
    assert len(asked) <= SIZE_CLASSES_PER_OCTAVE + 1
    assert len(store.latencies) <= 4096  # exact sizes remembered at most


@pytest.mark.parametrize("provider", ["aws-s3", "cloudflare-r2", "backblaze-b2", "wasabi", "idrive-e2"])
def test_delete_runs_on_every_shipped_profile_with_heads_latency_said(provider: str) -> None:
    store = ObjectStore.for_provider(simpy.Environment(), provider)
    records = []

    def user(env: simpy.Environment) -> Generator[Any, Any, None]:
        records.append((yield store.put("k", 1000)))
        records.append((yield store.delete("k")))

    store.env.process(user(store.env))
    store.env.run()
    assert [r.status for r in records] == ["200 OK", "200 OK"]
    assert store.objects == {}
    assert store.delete_latency == store.model.latency("head")
    assert any(line.startswith("DELETE's latency: assumed equal to HEAD's") for line in store.assumptions)


def _ttfbs(store: ObjectStore) -> list[float]:
    records = []

    def user(env: simpy.Environment) -> Generator[Any, Any, None]:
        for i in range(20):
            records.append((yield store.get(f"k{i}", 1000)))

    store.env.process(user(store.env))
    store.env.run()
    return [r.ttfb_s for r in records]


def test_two_unseeded_stores_of_one_model_draw_apart_and_a_given_seed_repeats() -> None:
    spread = MODEL.model_copy(update={"ttfb_get": LatencyModel(p50_s=0.03, p99_s=0.12, floor_s=0.01)})
    env = simpy.Environment()
    first, second = ObjectStore(env, spread), ObjectStore(env, spread)
    assert _ttfbs(first) != _ttfbs(second)
    assert _ttfbs(ObjectStore(simpy.Environment(), spread)) == _ttfbs(ObjectStore(simpy.Environment(), spread))
    named = [ObjectStore(simpy.Environment(), spread, seed=3, name="backups") for _ in range(2)]
    assert _ttfbs(named[0]) == _ttfbs(named[1]) != _ttfbs(ObjectStore(simpy.Environment(), spread, seed=3))
