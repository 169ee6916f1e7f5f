"""One replication of a workload against a provider model, on a SimPy event loop.

The hot path avoids a generator process per request: each request (or part) is itself the
event SimPy schedules, re-armed with the (shared) callback list for its next step (connection,
first byte, transfer, response, retry). The run loop is SimPy's own step, inlined, with two
time-ordered sources merged into it: the open-loop arrivals (drawn up front) and the fluid
network's next completion (``_network.FluidNetwork.next_at``), so neither costs a queued event.
Random numbers come from numpy in blocks; records go to flat lists turned into arrays once.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import simpy

from planner.sim._network import FlowClass, FluidNetwork, Schedule
from planner.sim.provider import BILLED_OPERATIONS, LatencyModel, ProviderModel
from planner.sim.spec import ClosedLoop, OpenLoop, SimSpec

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
IntArray = np.ndarray[Any, np.dtype[np.int64]]

LOGICAL_OPERATIONS: tuple[str, ...] = ("GET", "PUT", "HEAD", "LIST")
_GET, _PUT, _HEAD, _LIST = range(4)
_B_GET, _B_PUT, _B_HEAD, _B_LIST, _B_CREATE, _B_PART, _B_COMPLETE = range(len(BILLED_OPERATIONS))
_LOGICAL_TO_BILLED = (_B_GET, _B_PUT, _B_HEAD, _B_LIST)
_NORMAL = 1  # simpy.events.NORMAL
_BLOCK = 8192
_LINK_DOWN, _LINK_UP, _PROVIDER_READ, _PROVIDER_WRITE = range(4)


def _draws(model: LatencyModel, rng: np.random.Generator) -> Iterator[float]:
    """Endless draws from a latency model, made in numpy blocks and handed out as Python floats."""
    while True:
        yield from model.sample(rng, _BLOCK).tolist()


class _Request:
    """A logical operation split into several requests (ranged GET, multipart upload)."""

    __slots__ = (
        "completing",
        "failed",
        "key",
        "lop",
        "outstanding",
        "queued",
        "size",
        "t_arrival",
        "t_conn",
        "t_first",
    )

    def __init__(self, lop: int, key: int, size: int, now: float) -> None:
        self.lop, self.key, self.size, self.t_arrival = lop, key, size, now
        self.t_conn = -1.0
        self.t_first = -1.0
        self.outstanding = 0
        self.failed = False
        self.completing = False
        self.queued: list[int] = []  # part sizes a multipart upload has yet to send


class _Part:
    """One HTTP request and its retries; doubles as the SimPy event for its next step."""

    __slots__ = (
        "_ok",
        "attempt",
        "billed",
        "callbacks",
        "error",
        "hot",
        "key",
        "lop",
        "nbytes",
        "range_index",
        "request",
        "t_arrival",
        "t_conn",
        "t_first",
        "t_transfer",
    )

    def __init__(self, lop: int, billed: int, key: int, nbytes: int, now: float, request: _Request | None) -> None:
        self._ok = True
        self.callbacks: list[Callable[[Any], None]] | None = None
        self.lop, self.billed, self.key, self.nbytes = lop, billed, key, nbytes
        self.t_arrival = now
        self.t_conn = -1.0
        self.t_first = -1.0
        self.attempt = 1
        self.range_index = 0
        self.hot = False
        self.request = request
        # set before they are read: t_transfer when the body starts moving, error on a rejection
        self.t_transfer: float
        self.error: str


class _Tick:
    """A bare event: the next open-loop arrival, a hot burst, a worker's think time."""

    __slots__ = ("_ok", "callbacks", "index")

    def __init__(self, callback: Callable[[Any], None], index: int) -> None:
        self._ok = True
        self.callbacks = [callback]
        self.index = index


@dataclass
class RawRun:
    """What one replication recorded, as arrays for the statistics."""

    lop: IntArray
    t_arrival: FloatArray
    t_conn: FloatArray
    t_first: FloatArray
    t_end: FloatArray
    size: FloatArray
    ok: np.ndarray[Any, np.dtype[np.bool_]]
    transfer_lop: IntArray
    transfer_start: FloatArray
    transfer_end: FloatArray
    transfer_bytes: FloatArray
    error_time: FloatArray
    errors: dict[tuple[int, str], int]
    retries: list[int]
    billed: list[int]
    unfinished: int
    events: int


class Replication:
    """Simulates ``spec`` against ``provider`` for ``duration_s`` of arrivals, then drains."""

    def __init__(
        self,
        spec: SimSpec,
        provider: ProviderModel,
        duration_s: float,
        rng: np.random.Generator,
        *,
        warmup_s: float = 0.0,
        drain_s: float | None = None,
    ) -> None:
        self.spec, self.provider, self.rng = spec, provider, rng
        self.duration_s, self.warmup_s = duration_s, warmup_s
        self.drain_s = max(60.0, duration_s) if drain_s is None else drain_s
        self.env = simpy.Environment()
        self._schedule = cast(Schedule, self.env.schedule)
        self._queue = cast(list[tuple[float, int, int, Any]], self.env._queue)
        self._eid = self.env._eid
        # Shared callback lists: SimPy's step reads an event's list and never changes it.
        self._then_first_byte: list[Callable[[Any], None]] = [self._on_first_byte]
        self._then_response: list[Callable[[Any], None]] = [self._on_response]
        self._then_error: list[Callable[[Any], None]] = [self._on_error]
        self._then_backoff_over: list[Callable[[Any], None]] = [self._on_backoff_over]
        client = spec.client
        self.free_connections = client.connections
        self.waiting: deque[_Part] = deque()
        self.max_attempts = client.retry.max_attempts
        self.ranged_threshold = client.ranged_get.threshold_bytes if client.ranged_get else math.inf
        self.multipart_threshold = client.multipart.threshold_bytes if client.multipart else math.inf
        arrivals = spec.arrivals
        self.think_s = arrivals.think_time_s if isinstance(arrivals, ClosedLoop) else None
        self.retry_base_s, self.retry_cap_s = client.retry.base_s, client.retry.max_backoff_s
        self.latencies = [_draws(provider.latency(op), rng) for op in BILLED_OPERATIONS]
        self.uniforms: list[float] = []
        self.uniform_i = 0
        self._build_network()
        self._build_limits()
        self._build_keys()
        # Records, flat lists extended in the hot path and turned into arrays once at the end.
        # operation, arrival, connection, first byte, end, size, ok: 7 numbers per request ended
        self.records: list[float] = []
        # operation, start, end, bytes: 4 numbers per transfer
        self.transfers: list[float] = []
        self.error_times: list[float] = []
        self.errors: dict[tuple[int, str], int] = {}
        self.retries = [0] * len(LOGICAL_OPERATIONS)
        self.billed = [0] * len(BILLED_OPERATIONS)
        self.in_flight = 0
        self.draw_lop: list[int] = []
        self.draw_size: list[int] = []
        self.draw_key: list[int] = []
        self.draw_i = 0
        self.arrival_times: list[float] = []

    # -- set-up: ask the provider model once, keep the answers where the hot path finds them --

    def _build_network(self) -> None:
        client, provider = self.spec.client, self.provider
        link = client.link_bits_per_s / 8 if client.link_bits_per_s is not None else math.inf
        if client.link_duplex == "shared":
            self.read_resources: tuple[int, ...] = (_LINK_DOWN, _PROVIDER_READ)
            self.write_resources: tuple[int, ...] = (_LINK_DOWN, _PROVIDER_WRITE)
        else:
            self.read_resources, self.write_resources = (_LINK_DOWN, _PROVIDER_READ), (_LINK_UP, _PROVIDER_WRITE)
        capacities = [link, link, provider.ceiling_bits_per_s("read") / 8, provider.ceiling_bits_per_s("write") / 8]
        self.network = FluidNetwork(self.env, capacities, self._on_transferred, timer=False)
        self.flows: dict[tuple[bool, int], FlowClass | None] = {}
        self.read_flows: dict[int, FlowClass | None] = {}  # the entries of flows, by direction and size
        self.write_flows: dict[int, FlowClass | None] = {}

    def _flow(self, read: bool, nbytes: int) -> FlowClass | None:
        key = (read, nbytes)
        if key not in self.flows:
            cap = self.provider.stream_bits_per_s("read" if read else "write", nbytes) / 8
            resources = self.read_resources if read else self.write_resources
            self.flows[key] = self.network.flow_class(resources, cap)
        return self.flows[key]

    def _build_limits(self) -> None:
        provider, keys = self.provider, self.spec.keys
        # Per billed operation: (bucket state, scope, rate, burst, error) for every limit counting it.
        self.limits: list[list[tuple[dict[int, list[float]], int, float, float, str]]] = [[] for _ in BILLED_OPERATIONS]
        for limit in provider.rate_limits:
            state: dict[int, list[float]] = {}
            for op in limit.operations:
                scope = ("key", "prefix", "bucket").index(limit.scope)
                entry = (state, scope, limit.per_s, limit.burst_requests, limit.error)
                self.limits[BILLED_OPERATIONS.index(op)].append(entry)
        self.prefixes = keys.prefixes
        hot = provider.hot_object
        self.hot_limit = hot.max_concurrent_reads if hot else 0
        self.hot_rejects = hot is not None and hot.behaviour == "reject"
        self.hot_error = hot.error if hot else ""
        self.hot_counts: dict[tuple[int, int], int] = {}

    def _build_keys(self) -> None:
        keys = self.spec.keys
        self.key_count = keys.keys
        self.zipf_cdf: FloatArray | None = None
        if keys.zipf_exponent > 0:
            weights = np.arange(1, keys.keys + 1, dtype=np.float64) ** -keys.zipf_exponent
            cdf = np.cumsum(weights)
            self.zipf_cdf = cdf / cdf[-1]
        hot = keys.hot
        self.hot_replicas = hot.replicas if hot else 1
        self.hot_next_replica = [0] * (hot.objects if hot else 0)
        self.op_cdf = np.cumsum(self.spec.mix.shares())
        self.size_values = np.array(self.spec.sizes.sizes_bytes, dtype=np.int64)
        self.size_cdf = np.cumsum(self.spec.sizes.probabilities())

    # -- random draws in blocks --

    def _refill_draws(self) -> None:
        rng, keys = self.rng, self.spec.keys
        lops = np.minimum(np.searchsorted(self.op_cdf, rng.random(_BLOCK), side="right"), 3)
        sizes = self.size_values[
            np.minimum(np.searchsorted(self.size_cdf, rng.random(_BLOCK), side="right"), len(self.size_values) - 1)
        ]
        if self.zipf_cdf is None:
            key_ids = rng.integers(0, self.key_count, _BLOCK)
        else:
            key_ids = np.minimum(np.searchsorted(self.zipf_cdf, rng.random(_BLOCK), side="right"), self.key_count - 1)
        hot = keys.hot
        if hot is not None and hot.share_of_reads > 0:
            is_hot = (lops == _GET) & (rng.random(_BLOCK) < hot.share_of_reads)
            key_ids[is_hot] = -1 - rng.integers(0, hot.objects, int(is_hot.sum()))
            if hot.size_bytes is not None:
                sizes[is_hot] = hot.size_bytes
        self.draw_lop, self.draw_size, self.draw_key = lops.tolist(), sizes.tolist(), key_ids.tolist()
        self.draw_i = 0

    def _uniform(self) -> float:
        i = self.uniform_i
        if i == len(self.uniforms):
            self.uniforms = self.rng.random(_BLOCK).tolist()
            i = 0
        self.uniform_i = i + 1
        return self.uniforms[i]

    def _hot_key(self, hot_object: int) -> int:
        """Round-robin over the replicas of a hot object; its keys follow the Zipf keys."""
        replica = self.hot_next_replica[hot_object]
        self.hot_next_replica[hot_object] = (replica + 1) % self.hot_replicas
        return self.key_count + hot_object * self.hot_replicas + replica

    # -- arrivals --

    def _start(self) -> None:
        arrivals = self.spec.arrivals
        if isinstance(arrivals, OpenLoop):
            self.arrival_times = self._arrival_times(arrivals).tolist()
        elif isinstance(arrivals, ClosedLoop):
            for _ in range(arrivals.workers):
                self._issue_next()
        hot = self.spec.keys.hot
        if hot is not None and hot.peak_concurrency:
            every = hot.burst_every_s or math.inf
            t = 0.0
            while t < self.duration_s:
                self._schedule(_Tick(self._on_burst, 0), _NORMAL, t)
                t += every

    def _arrival_times(self, loop: OpenLoop) -> FloatArray:
        """Poisson arrivals over the window, thinned from the profile's peak rate."""
        rng, peak = self.rng, loop.max_rate_per_s
        expected = peak * self.duration_s
        count = int(expected + 6 * math.sqrt(expected) + 16)
        times = np.cumsum(rng.exponential(1.0 / peak, count))
        while times[-1] < self.duration_s:
            more = np.cumsum(rng.exponential(1.0 / peak, count)) + times[-1]
            times = np.concatenate([times, more])
        times = times[times < self.duration_s]
        if loop.profile in ("mean", "peak"):
            return times
        keep = rng.random(len(times)) < loop.rates_per_s(times) / peak
        return times[keep]

    def _loop(self, until_s: float) -> None:
        """SimPy's ``run`` (its ``step`` inlined) with the arrivals and the network merged in.

        An arrival only schedules what follows it, and a network completion only ends streams,
        so handling either between the queued events around it, at its own time, is the same as
        making it an event, without the queue's cost. Ties go to arrivals, then completions.
        """
        env = self.env
        queue, heappop, issue = self._queue, heapq.heappop, self._issue_next
        network = self.network
        complete = network.complete
        times = self.arrival_times
        i, count = 0, len(times)
        next_arrival = times[0] if count else math.inf
        while True:
            next_event = queue[0][0] if queue else math.inf
            next_done = network.next_at
            if next_arrival <= next_event and next_arrival <= next_done:
                if next_arrival > until_s:
                    break
                env._now = next_arrival
                i += 1
                next_arrival = times[i] if i < count else math.inf
                issue()
            elif next_done <= next_event:
                if next_done > until_s:
                    break
                env._now = next_done
                complete()
            else:
                if next_event > until_s:
                    break
                env._now, _, _, event = heappop(queue)
                callbacks = event.callbacks
                event.callbacks = None
                for callback in callbacks:
                    callback(event)
                if not event._ok and not hasattr(event, "_defused"):
                    raise event._value  # what SimPy's step does with an event that failed unhandled
        env._now = max(env._now, min(until_s, self.duration_s))

    def _on_burst(self, tick: _Tick) -> None:
        hot = self.spec.keys.hot
        assert hot is not None
        for hot_object in range(hot.objects):
            for _ in range(hot.peak_concurrency):
                size = hot.size_bytes if hot.size_bytes is not None else self._draw_size()
                self._issue(_GET, self._hot_key(hot_object), size)

    def _draw_size(self) -> int:
        index = int(np.searchsorted(self.size_cdf, self._uniform(), side="right"))
        return int(self.size_values[min(index, len(self.size_values) - 1)])

    def _on_think(self, tick: _Tick) -> None:
        self._issue_next()

    def _issue_next(self) -> None:
        """The next request of the drawn stream (operation, key, size), issued now."""
        i = self.draw_i
        if i == len(self.draw_lop):
            self._refill_draws()
            i = 0
        self.draw_i = i + 1
        key = self.draw_key[i]
        if key < 0:
            key = self._hot_key(-1 - key)
        lop, size = self.draw_lop[i], self.draw_size[i]
        # The common case of ``_issue`` inline: a whole-object GET or PUT, or a HEAD or LIST.
        if lop == _GET:
            if size >= self.ranged_threshold:
                self._issue(lop, key, size)
                return
        elif lop == _PUT:
            if size >= self.multipart_threshold:
                self._issue(lop, key, size)
                return
        else:
            size = 0
        self.in_flight += 1
        part = _Part(lop, _LOGICAL_TO_BILLED[lop], key, size, self.env._now, None)
        if self.free_connections:
            self.free_connections -= 1
            self._begin(part)
        else:
            self.waiting.append(part)

    def _issue(self, lop: int, key: int, size: int) -> None:
        now = self.env._now
        self.in_flight += 1
        if lop == _GET:
            if size >= self.ranged_threshold:
                self._issue_ranged(key, size, now)
                return
            part = _Part(lop, _B_GET, key, size, now, None)
        elif lop == _PUT:
            if size >= self.multipart_threshold:
                self._issue_multipart(key, size, now)
                return
            part = _Part(lop, _B_PUT, key, size, now, None)
        else:
            part = _Part(lop, _LOGICAL_TO_BILLED[lop], key, 0, now, None)
        if self.free_connections:
            self.free_connections -= 1
            self._begin(part)
        else:
            self.waiting.append(part)

    def _issue_ranged(self, key: int, size: int, now: float) -> None:
        ranged = self.spec.client.ranged_get
        assert ranged is not None
        request = _Request(_GET, key, size, now)
        chunk = -(-size // ranged.streams)
        starts = range(0, size, chunk)
        request.outstanding = len(starts)
        for index, start in enumerate(starts):
            part = _Part(_GET, _B_GET, key, min(chunk, size - start), now, request)
            part.range_index = index
            self._acquire(part)

    def _issue_multipart(self, key: int, size: int, now: float) -> None:
        multipart = self.spec.client.multipart
        assert multipart is not None
        request = _Request(_PUT, key, size, now)
        step = multipart.part_size_bytes
        request.queued = [min(step, size - start) for start in range(0, size, step)][::-1]
        request.outstanding = 1
        self._acquire(_Part(_PUT, _B_CREATE, key, 0, now, request))

    # -- one request's life: connection, limits, latency, transfer, response --

    def _acquire(self, part: _Part) -> None:
        if self.free_connections:
            self.free_connections -= 1
            self._begin(part)
        else:
            self.waiting.append(part)

    def _release(self) -> None:
        if self.waiting:
            self._begin(self.waiting.popleft())
        else:
            self.free_connections += 1

    def _begin(self, part: _Part) -> None:
        """A connection is free: count the request, check the provider's limits, send it."""
        now = self.env._now
        if part.t_conn < 0:
            part.t_conn = now
            request = part.request
            if request is not None and request.t_conn < 0:
                request.t_conn = now
        billed = part.billed
        if self.warmup_s <= now < self.duration_s:
            self.billed[billed] += 1
        limits = self.limits[billed]
        if limits:
            for state, scope, per_s, burst, error in limits:
                scope_id = part.key if scope == 0 else part.key % self.prefixes if scope == 1 else 0
                bucket = state.get(scope_id)
                if bucket is None:
                    state[scope_id] = [burst - 1.0, now]
                    continue
                tokens = bucket[0] + (now - bucket[1]) * per_s
                if tokens > burst:
                    tokens = burst
                bucket[1] = now
                if tokens < 1.0:
                    bucket[0] = tokens
                    self._reject(part, error)
                    return
                bucket[0] = tokens - 1.0
        latency = next(self.latencies[billed])
        if billed == _B_GET:
            if self.hot_limit:
                hot_key = (part.key, part.range_index)
                count = self.hot_counts.get(hot_key, 0) + 1
                if count > self.hot_limit:
                    if self.hot_rejects:
                        self._reject(part, self.hot_error)
                        return
                    latency *= count / self.hot_limit
                self.hot_counts[hot_key] = count
                part.hot = True
            part.callbacks = self._then_first_byte
        elif billed in (_B_PUT, _B_PART):
            nbytes = part.nbytes
            flow = self.write_flows.get(nbytes) if nbytes else None
            if flow is None and nbytes and nbytes not in self.write_flows:
                flow = self.write_flows[nbytes] = self._flow(False, nbytes)
            if flow is not None:
                part.t_transfer = now
                self.network.add(part, flow, nbytes)
                return
            part.callbacks = self._then_response
        else:
            part.callbacks = self._then_response
        heapq.heappush(self._queue, (now + latency, _NORMAL, next(self._eid), part))

    def _on_first_byte(self, part: _Part) -> None:
        now = self.env._now
        part.t_first = now
        request = part.request
        if request is not None and request.t_first < 0:
            request.t_first = now
        nbytes = part.nbytes
        if nbytes:
            flow = self.read_flows.get(nbytes)
            if flow is None and nbytes not in self.read_flows:
                flow = self.read_flows[nbytes] = self._flow(True, nbytes)
            if flow is not None:
                part.t_transfer = now
                self.network.add(part, flow, nbytes)
                return
        self._finish(part)

    def _on_transferred(self, part: _Part) -> None:
        now = self.env._now
        self.transfers.extend((part.lop, part.t_transfer, now, part.nbytes))
        if part.billed == _B_GET:
            self._finish(part)
        else:
            part.callbacks = self._then_response
            latency = next(self.latencies[part.billed])
            heapq.heappush(self._queue, (now + latency, _NORMAL, next(self._eid), part))

    def _on_response(self, part: _Part) -> None:
        self._finish(part)

    def _reject(self, part: _Part, error: str) -> None:
        part.error = error
        part.callbacks = self._then_error
        self._schedule(part, _NORMAL, next(self.latencies[part.billed]))

    def _on_error(self, part: _Part) -> None:
        self._release()
        now = self.env._now
        counted = self.warmup_s <= now < self.duration_s
        if counted:
            key = (part.lop, part.error)
            self.errors[key] = self.errors.get(key, 0) + 1
        self.error_times.append(now)
        if part.attempt < self.max_attempts:
            part.attempt += 1
            if counted:
                self.retries[part.lop] += 1
            ceiling = min(self.retry_cap_s, self.retry_base_s * 2.0 ** (part.attempt - 2))
            part.callbacks = self._then_backoff_over
            self._schedule(part, _NORMAL, ceiling * self._uniform())
            return
        request = part.request
        if request is None:
            self._record(part.lop, part.t_arrival, part.t_conn, part.t_first, part.nbytes, False)
            return
        request.failed = True
        request.queued.clear()
        self._part_done(request)

    def _on_backoff_over(self, part: _Part) -> None:
        self._acquire(part)

    def _finish(self, part: _Part) -> None:
        """A request answered in full: free its connection, account for it, move its operation on."""
        if self.waiting:
            self._begin(self.waiting.popleft())
        else:
            self.free_connections += 1
        if part.hot:
            hot_key = (part.key, part.range_index)
            self.hot_counts[hot_key] -= 1
            part.hot = False
        request = part.request
        if request is None:
            # ``_record`` inline (the hot path)
            now = self.env._now
            self.in_flight -= 1
            t_first = part.t_first
            self.records.extend(
                (part.lop, part.t_arrival, part.t_conn, t_first if t_first >= 0 else now, now, part.nbytes, True)
            )
            if self.think_s is not None:
                self._next_of_worker(now)
        else:
            self._part_done(request)

    def _part_done(self, request: _Request) -> None:
        """One part of a split operation ended; start what follows it (parts, then Complete)."""
        request.outstanding -= 1
        now = self.env._now
        if request.lop == _PUT and not request.failed:
            multipart = self.spec.client.multipart
            assert multipart is not None
            while request.queued and request.outstanding < multipart.queue_depth:
                request.outstanding += 1
                self._acquire(_Part(_PUT, _B_PART, request.key, request.queued.pop(), now, request))
            if request.outstanding == 0 and not request.completing:
                request.completing = True
                request.outstanding = 1
                self._acquire(_Part(_PUT, _B_COMPLETE, request.key, 0, now, request))
                return
        if request.outstanding == 0:
            self._record(
                request.lop, request.t_arrival, request.t_conn, request.t_first, request.size, not request.failed
            )

    def _record(self, lop: int, t_arrival: float, t_conn: float, t_first: float, size: int, ok: bool) -> None:
        now = self.env._now
        self.in_flight -= 1
        self.records.extend((lop, t_arrival, t_conn, t_first if t_first >= 0 else now, now, size, ok))
        if self.think_s is not None:
            self._next_of_worker(now)

    def _next_of_worker(self, now: float) -> None:
        """Closed loop: the worker whose request ended issues its next, after its think time."""
        think_s = self.think_s
        if think_s is not None and now < self.duration_s:
            if think_s > 0:
                self._schedule(_Tick(self._on_think, 0), _NORMAL, think_s)
            else:
                self._issue_next()

    # -- run --

    def run(self) -> RawRun:
        self._start()
        self._loop(self.duration_s + self.drain_s)
        records = np.array(self.records, dtype=np.float64).reshape(-1, 7)
        transfers = np.array(self.transfers, dtype=np.float64).reshape(-1, 4)
        return RawRun(
            lop=records[:, 0].astype(np.int64),
            t_arrival=records[:, 1],
            t_conn=records[:, 2],
            t_first=records[:, 3],
            t_end=records[:, 4],
            size=records[:, 5],
            ok=records[:, 6].astype(np.bool_),
            transfer_lop=transfers[:, 0].astype(np.int64),
            transfer_start=transfers[:, 1],
            transfer_end=transfers[:, 2],
            transfer_bytes=transfers[:, 3],
            error_time=np.array(self.error_times, dtype=np.float64),
            errors=dict(self.errors),
            retries=list(self.retries),
            billed=list(self.billed),
            unfinished=self.in_flight,
            events=0,
        )
