"""The fluid network against a direct processor-sharing calculation, stream by stream."""

from __future__ import annotations

import math
from typing import Any

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.sim.engine.fluid_network import FluidNetwork


class _Start:
    """A stream to add to the network: the value of the timeout that starts it."""

    __slots__ = ("name", "nbytes")

    def __init__(self, name: int, nbytes: int) -> None:
        self.name, self.nbytes = name, nbytes


def _shared_finish_times(capacity: float, cap: float, streams: list[tuple[float, int]]) -> list[float]:
    """Each stream's end when all in flight split ``capacity`` evenly, each at most ``cap``."""
    left = {i: float(nbytes) for i, (_, nbytes) in enumerate(streams)}
    starts = sorted(range(len(streams)), key=lambda i: streams[i][0])
    ends = [math.nan] * len(streams)
    active: list[int] = []
    now = 0.0
    while starts or active:
        rate = min(cap, capacity / len(active)) if active else 0.0
        next_start = streams[starts[0]][0] if starts else math.inf
        next_end = now + min(left[i] for i in active) / rate if active else math.inf
        step = min(next_start, next_end) - now
        for i in active:
            left[i] -= rate * step
        now += step
        if next_end <= next_start:
            for i in [i for i in active if left[i] <= 1e-6 * (1 + streams[i][1])]:
                active.remove(i)
                ends[i] = now
        else:
            active.append(starts.pop(0))
    return ends


@settings(max_examples=60, deadline=None)
@given(
    capacity=st.floats(1e3, 1e6),
    cap=st.one_of(st.just(math.inf), st.floats(1e2, 2e6)),
    same_size=st.booleans(),
    streams=st.lists(st.tuples(st.floats(0, 5), st.integers(1, 200_000)), min_size=1, max_size=40),
)
def test_streams_end_when_processor_sharing_says(
    capacity: float, cap: float, same_size: bool, streams: list[tuple[float, int]]
) -> None:
    """Same-size streams keep their class in arrival order (a sorted list); mixed ones need the heap."""
    if same_size:
        streams = [(at, streams[0][1]) for at, _ in streams]
    env = simpy.Environment()
    ended: dict[int, float] = {}
    network = FluidNetwork(env, [capacity], lambda event: ended.__setitem__(event.name, env.now))
    flow = network.flow_class((0,), cap)
    assert flow is not None

    def start(event: Any) -> None:
        network.add(event.value, flow, event.value.nbytes, env.now)

    for name, (at, nbytes) in enumerate(streams):
        env.timeout(at, _Start(name, nbytes)).callbacks.append(start)
    env.run()
    expected = _shared_finish_times(capacity, cap, streams)
    assert [ended[i] for i in range(len(streams))] == pytest.approx(expected, rel=1e-6, abs=1e-6)
