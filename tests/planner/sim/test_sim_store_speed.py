"""What ``ObjectStore`` keeps between requests stays the size of what is in flight (its hot-object counts),
and its step events share one callbacks list: the store's cost per request does not grow with the keys
it has read."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import simpy

from planner.sim import BandwidthCurve, HotObjectLimit, LatencyModel, ObjectStore, ProviderModel

MODEL = ProviderModel(
    provider_id="hand",
    ttfb_get=LatencyModel.constant(0.05),
    ttfb_put=LatencyModel.constant(0.02),
    stream_read=BandwidthCurve.flat(80e6),
    stream_write=BandwidthCurve.flat(80e6),
    hot_object=HotObjectLimit(max_concurrent_reads=2, behaviour="reject"),
)


def test_the_hot_object_counts_hold_only_the_reads_in_flight() -> None:
    """Each key read leaves the hot-object counts when its last read ends, as in the engine (they held
    a zero for every key ever read)."""
    env = simpy.Environment()
    store = ObjectStore(env, MODEL)
    in_flight: list[int] = []

    def reader(env: simpy.Environment) -> Generator[Any, Any, None]:
        for key in range(100):
            first = store.get(key, 1000)
            store.get(key, 1000)
            in_flight.append(len(store.hot_counts))
            yield first

    env.process(reader(env))
    env.run()
    assert in_flight == [1] * 100
    assert store.hot_counts == {}
    assert len(store.recorder.table()) == 200


def test_the_steps_on_simpys_queue_share_one_callbacks_list() -> None:
    env = simpy.Environment()
    store = ObjectStore(env, MODEL)
    for key in range(5):
        store.get(key, 1000)
    steps = [event for *_, event in env._queue]
    assert len(steps) == 5
    assert all(step.callbacks is store._on_step_callbacks for step in steps)
