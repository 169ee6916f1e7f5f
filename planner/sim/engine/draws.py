"""The requests a replication draws: its request source (keys, sizes and operations, drawn in
blocks), uniforms in blocks, hot objects' keys round-robin over their replicas, and the arrivals
of an open loop or a trace, a chunk at a time, each with its first latency. ``Replication``
builds on it; the event loop reads the arrival lists it fills."""

from __future__ import annotations

import math

import numpy as np

from planner.sim.engine.answer_tables import BLOCK, DrawTable
from planner.sim.engine.requests import FloatArray, IntArray, RequestSource
from planner.sim.engine.trace_stream import StreamedTrace
from planner.sim.spec import OpenLoop, SimSpec, TraceArrivals

_INF = math.inf


class RequestDraws:
    """The draws of one replication (seeded by its ``rng``); ``latencies`` is the replication's."""

    latencies: DrawTable  # set by the replication from its provider set-up

    def __init__(self, spec: SimSpec, rng: np.random.Generator) -> None:
        source = self.source = RequestSource(spec, rng)
        self.rng = rng
        self.trace_arrays: tuple[FloatArray, IntArray, IntArray, IntArray] | None = None
        self.key_count, self.hot_replicas = source.key_count, source.hot_replicas
        self.hot_next_replica = [0] * (spec.keys.hot.objects if spec.keys.hot else 0)
        self.size_values, self.size_cdf = source.size_values, source.size_cdf
        self.uniforms: list[float] = []
        self.uniform_i = 0
        self.draw_lop: list[int] = []
        self.draw_size: list[int] = []
        self.draw_key: list[int] = []
        self.draw_i = 0
        # Open loop: each arrival's time (then inf), operation, size and key, drawn up front.
        self.arrival_times: list[float] = [_INF]
        self.arrival_lop: list[int] = []
        self.arrival_size: list[int] = []
        self.arrival_key: list[int] = []
        self.arrival_latency: list[float] = []  # its operation's latency, for its first attempt

    # -- random draws in blocks --

    def _refill_draws(self) -> None:
        lops, sizes, keys = self._draw_requests(BLOCK)
        self.draw_lop, self.draw_size, self.draw_key = lops.tolist(), sizes.tolist(), keys.tolist()
        self.draw_i = 0

    def _draw_requests(self, count: int) -> tuple[IntArray, IntArray, IntArray]:
        return self.source.requests(count)

    def _uniform(self) -> float:
        i = self.uniform_i
        if i == len(self.uniforms):
            self.uniforms = self.rng.random(BLOCK).tolist()
            i = 0
        self.uniform_i = i + 1
        return self.uniforms[i]

    def _hot_key(self, hot_object: int) -> int:
        """Round-robin over the replicas of a hot object; its keys follow the Zipf keys."""
        replica = self.hot_next_replica[hot_object]
        self.hot_next_replica[hot_object] = (replica + 1) % self.hot_replicas
        return self.key_count + hot_object * self.hot_replicas + replica

    def _draw_size(self) -> int:
        index = int(np.searchsorted(self.size_cdf, self._uniform(), side="right"))
        return int(self.size_values[min(index, len(self.size_values) - 1)])

    def _open_chunk(self, loop: OpenLoop, start_s: float, end_s: float) -> None:
        """The open loop's arrivals in [start_s, end_s), each with its operation, size, key and latency."""
        times = self._arrival_times(loop, start_s, end_s)
        self.arrival_times = times.tolist()
        self.arrival_times.append(_INF)
        lops, sizes, keys = self._draw_requests(len(times))
        self.arrival_lop, self.arrival_size, self.arrival_key = lops.tolist(), sizes.tolist(), keys.tolist()
        self.arrival_latency = self.latencies.one_each(lops, sizes)

    def _arrival_times(self, loop: OpenLoop, start_s: float, end_s: float) -> FloatArray:
        return self.source.arrival_times(loop, start_s, end_s)

    def _trace_chunk(self, trace: TraceArrivals, start_s: float, end_s: float) -> None:
        """The trace's arrivals in [start_s, end_s) as they were recorded; only latencies are drawn
        (a ``StreamedTrace`` reads them from disk, a stretch at a time)."""
        if isinstance(trace, StreamedTrace):
            self.trace_arrays = trace.between(start_s, end_s)
            start_s, end_s = -_INF, _INF
        elif self.trace_arrays is None:
            self.trace_arrays = (
                np.asarray(trace.times_s, dtype=np.float64),
                np.asarray(trace.operations, dtype=np.int64),
                np.asarray(trace.sizes, dtype=np.int64),
                np.asarray(trace.keys, dtype=np.int64),
            )
        times, lops, sizes, keys = self.trace_arrays
        lo, hi = np.searchsorted(times, [start_s, end_s], side="left")
        self.arrival_times = [*times[lo:hi].tolist(), _INF]
        self.arrival_lop, self.arrival_size = lops[lo:hi].tolist(), sizes[lo:hi].tolist()
        self.arrival_key = keys[lo:hi].tolist()
        self.arrival_latency = self.latencies.one_each(lops[lo:hi], sizes[lo:hi])
