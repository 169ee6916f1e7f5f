"""A request's life, written once: the steps the replication (``planner.sim.engine.replication``) and the SimPy
component (``planner.sim.store.object_store``) both take, and the client's connection pool they take them through.

A logical operation is issued as parts (``planner.sim.engine.request_parts``: a whole-object request is one part; a
ranged GET is one part a range; a multipart upload is Create, its parts ``queue_depth`` at a time, then
Complete). Each part, first attempt or retry, goes through the same steps:

- ``_begin``: take a connection from the pool (or wait for one, first come first served), count the
  request as billed, ask the provider's admission checks (rate limits, the hot-object limit) and send
  it: a GET waits for its first byte, an upload sends its body first, other operations their request;
- ``_first_byte``: a GET's first byte; its body then moves on the shared link (``fluid_network``);
- ``_body_done``: a body moved; a GET's may stall (the profile's tail), an upload's response follows;
- ``_reject`` and ``_on_error``: an error answer reaches the client; it is retried after a capped
  exponential backoff with full jitter, or the part has run out of attempts;
- ``_end``: the part gives its connection back (to the first part waiting), and what follows it
  starts (a retry later, the next parts of a split operation), or the operation ends (``_ended``).

What differs between the two drivers is the clock and what they keep, and each says it in a few
methods: ``_after`` and ``_at`` (the part's next step ``delay`` from now, or at a time: a heap on the
replication's own clock, a SimPy timeout in the store), ``_draw`` (a latency), ``_transfer`` (a body
moved), ``_count_error`` (an error answer), ``_error_billed`` and ``_ended`` (the operation's record).
The steps are methods, not closures, so that the drivers' own loops can call them without building
anything per request.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import simpy

from planner.errors import InputError
from planner.pricing.models import Limits
from planner.sim.engine.answer_tables import B_COMPLETE, B_CREATE, B_GET, B_PART
from planner.sim.engine.fluid_network import FlowClass, FluidNetwork
from planner.sim.engine.joint_tail import JointTail
from planner.sim.engine.provider_setup import admit, server_start
from planner.sim.engine.request_parts import (
    ERROR,
    FIRST_BYTE,
    P_ATTEMPT,
    P_BILLED,
    P_CONN,
    P_ERROR,
    P_FIRST,
    P_HOT,
    P_LATENCY,
    P_NBYTES,
    P_RANGE,
    P_REQUEST,
    P_STEP,
    P_TRANSFER,
    RESPONSE,
    RETRY,
    Part,
    Request,
    new_part,
)
from planner.sim.engine.requests import GET, PUT
from planner.sim.spec import ClientSpec

__all__ = ["ConnectionPool", "Probe", "RequestLife", "part_sizes"]

Probe = Callable[[float, int, int], None]
"""A probe on a pool: called with (time, connections in use, parts waiting) as each changes."""


class ConnectionPool:
    """The client's connections as a SimPy resource: ``capacity`` connections, ``count`` in use,
    ``queue`` the requests waiting for one (first come first served), ``utilisation`` their time-weighted
    use. A store's requests take one each; a model's own process may hold one too (``request`` gives
    the event that succeeds when it has one; ``release`` gives it back), and a model may make the pool
    and give it to its store (``ObjectStore(..., pool=pool)``; one store a pool). ``probe(callback)``
    attaches a probe called on every take and give-back (desmod's style); ``Monitor`` samples it at a
    fixed step instead.
    """

    __slots__ = ("capacity", "env", "free", "held_s", "owner", "probes", "queue", "since")

    def __init__(self, capacity: int, env: simpy.Environment | None = None) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise InputError(f"capacity {capacity!r}: give the pool's connections as a whole number of 1 or more",
                             field="capacity")  # fmt: skip
        self.capacity = capacity
        self.env = env
        self.free = capacity
        self.queue: deque[Any] = deque()
        """what waits for a connection, in order: parts of requests, or a model's own ``request`` events"""
        self.probes: list[Probe] = []
        self.owner: RequestLife | None = None
        """the store whose requests take its connections (one store a pool)"""
        self.held_s = 0.0
        """connection-seconds held, less those of the connections in use now: each take subtracts its time,
        each give-back adds its own"""
        self.since = -1.0
        """when a connection was first taken (-1: not yet): ``utilisation`` counts from then"""

    @property
    def count(self) -> int:
        """Connections in use."""
        return self.capacity - self.free

    def utilisation(self, now: float | None = None) -> float:
        """The share of the pool's connection-seconds in use from its first take to ``now`` (default: the
        environment's time)."""
        if now is None:
            if self.env is None:
                raise InputError("now: give the time (the pool has no environment)", field="now")
            now = self.env.now
        if self.since < 0.0 or now <= self.since:
            return 0.0
        return (self.held_s + self.count * now) / (self.capacity * (now - self.since))

    def probe(self, callback: Probe) -> None:
        """Call ``callback(time, in use, waiting)`` on every take and give-back of a connection."""
        if not callable(callback):
            raise InputError(f"callback {callback!r}: give a function of (time, in use, waiting)", field="callback")
        self.probes.append(callback)

    def request(self) -> simpy.Event:
        """An event that succeeds when the model's own process holds a connection (``release`` it after)."""
        if self.env is None:
            raise InputError("request: the pool has no environment to wait on", field="env")
        event = self.env.event()
        if self.free:
            self._take(self.env.now)
            event.succeed(self)
        else:
            self.queue.append(event)
            self.probed(self.env.now)
        return event

    def release(self) -> None:
        """Give back a connection a model's own process held (``request``)."""
        if self.env is None or self.free >= self.capacity:
            raise InputError("release: no connection of this pool is held", field="release")
        self._give_back(self.env.now)

    def _take(self, now: float) -> None:
        if self.since < 0.0:
            self.since = now
        self.free -= 1
        self.held_s -= now
        if self.probes:
            self.probed(now)

    def _give_back(self, now: float) -> None:
        self.free += 1
        self.held_s += now
        if self.probes:
            self.probed(now)
        if self.queue:
            waiting = self.hand_on(now)
            if waiting is not None and self.owner is not None:  # a store's part: the store begins it
                self.owner.ready.append(waiting)
                self.owner._begin_ready(now)

    def hand_on(self, now: float) -> Part | None:
        """A connection is free and parts or a model's requests wait: the first waiting takes it. Returns the
        part that takes it (the driver begins it), or None (a model's own request took it)."""
        waiting = self.queue.popleft()
        if waiting.__class__ is list:
            return waiting
        self._take(now)
        waiting.succeed(self)
        return None

    def probed(self, now: float) -> None:
        """Call the probes (``probe``)."""
        for probe in self.probes:
            probe(now, self.capacity - self.free, len(self.queue))


def part_sizes(size: int, part_bytes: int, limits: Limits | None) -> list[int]:
    """A multipart upload's part sizes, last first: ``part_bytes`` each, made larger where ``size`` would
    need more parts than the provider allows (as the AWS SDKs do) and never below its minimum part size
    (``limits.multipart``). Refuses a size past the provider's largest object."""
    multipart = limits.multipart if limits is not None else None
    if limits is not None and limits.max_object_bytes is not None and size > limits.max_object_bytes:
        raise InputError(
            f"PUT size {size:,} B: past the largest object the provider stores ({limits.max_object_bytes:,} B)",
            field="size",
        )
    if multipart is not None:
        part_bytes = max(part_bytes, multipart.min_part_bytes, -(-size // multipart.max_parts))
        if part_bytes > multipart.max_part_bytes:
            raise InputError(
                f"PUT size {size:,} B: {multipart.max_parts:,} parts of at most {multipart.max_part_bytes:,} B "
                "cannot hold it",
                field="size",
            )
    return [min(part_bytes, size - start) for start in range(0, size, part_bytes)][::-1]


class RequestLife:
    """The steps of a request's life (see the module's docstring); a driver sets the attributes below
    and defines ``_after``, ``_at``, ``_transfer``, ``_count_error``, ``_error_billed`` and ``_ended``."""

    client: ClientSpec
    pool: ConnectionPool
    ready: deque[Part]
    """parts to begin next, in order: the driver begins them (``_begin``) before its next event"""
    admission: list[list[Any]]
    latencies: Any  # a dict of latency draws by billed operation | size << 3 (the replication: a ``_DrawTable``)
    queues: list[list[float] | None]
    service_s: dict[int, float]
    spreads: list[Iterator[float] | None]
    network: FluidNetwork
    read_flows: dict[int, FlowClass | None]
    write_flows: dict[int, FlowClass | None]
    body_tails: dict[int, Iterator[float] | None] | None
    joint_tails: dict[int, JointTail | None] | None
    hot_counts: dict[int, float]
    billed: list[int]
    warmup_s: float
    duration_s: float
    """requests are counted (billed, errors, retries) from ``warmup_s`` to ``duration_s``"""
    max_attempts: int
    retry_base_s: float
    retry_cap_s: float
    limits: Limits | None

    # -- what each driver defines --

    def _after(self, part: Part, delay: float, now: float) -> None:
        raise NotImplementedError

    def _at(self, part: Part, at: float, now: float) -> None:
        raise NotImplementedError

    def _transfer(self, part: Part, lop: int, now: float) -> None:
        """A body moved, from ``part[P_TRANSFER]`` to ``now`` (an upload's, or a ranged GET's part's)."""
        raise NotImplementedError

    def _count_error(self, part: Part, retried: bool, now: float) -> None:
        raise NotImplementedError

    def _error_billed(self, error: str) -> bool:
        raise NotImplementedError

    def _ended(self, part: Part, request: Request | None, ok: bool, now: float) -> None:
        """The operation ended: ``request`` (None for the replication's whole-object request, then ``part``
        is all of it); ``ok`` unless a part ran out of attempts."""
        raise NotImplementedError

    def _uniform(self) -> float:
        raise NotImplementedError

    def _draw(self, billed: int, nbytes: int) -> float:
        """A latency of ``billed`` at ``nbytes``."""
        draws: Iterator[float] = self.latencies[billed | nbytes << 3]
        return next(draws)

    # -- issuing --

    def _split(self, request: Request, now: float) -> None:
        """Issue a split operation's first parts: a ranged GET's ranges, or a multipart upload's Create."""
        size = request.size
        if request.lop == GET:
            ranged = self.client.ranged_get
            assert ranged is not None
            chunk = -(-size // ranged.streams)
            starts = range(0, size, chunk)
            request.outstanding = request.parts = len(starts)
            for index, start in enumerate(starts):
                part = new_part(GET, B_GET, request.key_id, min(chunk, size - start), now, request)
                part[P_RANGE] = index
                self.ready.append(part)
        else:
            multipart = self.client.multipart
            assert multipart is not None
            request.queued = part_sizes(size, multipart.part_size_bytes, self.limits)
            request.parts = len(request.queued) + 2  # Create, the parts, Complete
            request.outstanding = 1
            self.ready.append(new_part(PUT, B_CREATE, request.key_id, 0, now, request))

    # -- the steps --

    def _begin(self, part: Part, now: float) -> None:
        """Take a connection (or wait for one), count the request, ask its admission checks, send it."""
        pool = self.pool
        free = pool.free
        if not free:
            pool.queue.append(part)
            if pool.probes:
                pool.probed(now)
            return
        if pool.since < 0.0:  # ``ConnectionPool._take``, written out (every request takes it)
            pool.since = now
        pool.free = free - 1
        pool.held_s -= now
        if pool.probes:
            pool.probed(now)
        if part[P_CONN] < 0.0:  # its first connection (a split operation's first part's: the operation's too)
            part[P_CONN] = now
            request = part[P_REQUEST]
            if request is not None and request.t_conn < 0.0:
                request.t_conn = now
        billed = part[P_BILLED]
        if self.warmup_s <= now < self.duration_s:
            self.billed[billed] += 1
        checks = self.admission[billed]
        if checks:
            error = admit(part, checks, now, self.latencies)
            if error is not None:
                self._reject(part, error, now)
                return
        if billed == B_GET:
            part[P_STEP] = FIRST_BYTE
        else:
            nbytes = part[P_NBYTES]
            flow = self.write_flows[nbytes]  # an upload's body (HEAD, LIST, ... move 0 bytes: None)
            if flow is not None:  # the body goes first, the response follows it
                part[P_TRANSFER] = now
                self.network.add(part, flow, nbytes, now)
                return
            if nbytes:  # nothing bounds the body (no link, no stream rate): its bytes move as it is sent
                part[P_TRANSFER] = now
                self._transfer(part, part[1], now)  # 1: _P_LOP
            part[P_STEP] = RESPONSE
        latency = part[P_LATENCY]  # ``_send``, written out (every request takes it)
        if latency < 0.0:
            latency = self._draw(billed, part[P_NBYTES])
        queue = self.queues[billed]
        if queue is None:
            self._after(part, latency, now)
        else:
            self._at(part, server_start(part, queue, self.service_s, self.spreads, now) + latency, now)

    def _send(self, part: Part, latency: float, now: float) -> None:
        """Send ``part`` (a request, or an upload's response): its next step comes ``latency`` (drawn if -1)
        after a server of its operation's queue, if any, takes it (``provider_setup.server_start``)."""
        billed = part[P_BILLED]
        if latency < 0.0:
            latency = self._draw(billed, part[P_NBYTES])
        queue = self.queues[billed]
        if queue is None:
            self._after(part, latency, now)
        else:
            self._at(part, server_start(part, queue, self.service_s, self.spreads, now) + latency, now)

    def _step(self, part: Part, now: float) -> None:
        """A part's next step is due: its first byte, a retry, or its end (answered, or rejected)."""
        step = part[P_STEP]
        if step == FIRST_BYTE:
            self._first_byte(part, now)
        elif step == RETRY:
            self.ready.append(part)
        else:
            self._end(part, now)

    def _first_byte(self, part: Part, now: float) -> None:
        part[P_FIRST] = part[P_TRANSFER] = now
        request = part[P_REQUEST]
        if request is not None and request.t_first < 0.0:  # a split operation's first byte is its first part's
            request.t_first = now
        nbytes = part[P_NBYTES]
        flow = self.read_flows[nbytes]  # None for no bytes
        if flow is not None:
            self.network.add(part, flow, nbytes, now)
            return
        self._end(part, now)  # nothing bounds its body: its bytes arrive with the first, and it ends

    def _body_done(self, part: Part, now: float) -> None:
        """A body moved: a GET's ends it (unless it stalls); an upload's response follows it."""
        if part[P_BILLED] == B_GET:
            if self.body_tails is not None and self._stalls(part, now):
                return
            self._end(part, now)
        else:
            self._transfer(part, part[1], now)  # 1: _P_LOP
            part[P_STEP] = RESPONSE
            self._send(part, part[P_LATENCY], now)

    def _stalls(self, part: Part, now: float) -> bool:
        """A GET whose body stalls (the profile measured a tail beyond its median body time): its
        last bytes come later, as its response. False if this one does not."""
        tail = self.body_tails[part[P_NBYTES]] if self.body_tails is not None else None
        if tail is None:
            return False
        part[P_STEP] = RESPONSE
        self._after(part, self._tail_s(part, tail), now)
        return True

    def _tail_s(self, part: Part, tail: Iterator[float]) -> float:
        """A stalling body's tail, at the rank of the part's TTFB where the profile paired them
        (``planner.sim.engine.joint_tail``); drawn apart for a retry, whose first byte's draw is not kept."""
        joint = self.joint_tails[part[P_NBYTES]] if self.joint_tails is not None else None
        if joint is None:
            return next(tail)
        ttfb_s = part[P_LATENCY]  # the first attempt's, drawn with its arrival
        if ttfb_s < 0.0:
            if part[P_ATTEMPT] != 1:
                return next(tail)
            ttfb_s = part[P_FIRST] - part[P_CONN]  # drawn when it was sent (a server queue's wait in it)
        return joint.tail_for(ttfb_s, self._uniform)

    def _reject(self, part: Part, error: str, now: float) -> None:
        """The provider refuses a part it was sent (counted as billed where it began; taken back if the
        driver's rule does not bill that answer): the answer reaches the client after a latency."""
        if self.warmup_s <= now < self.duration_s and not self._error_billed(error):
            self.billed[part[P_BILLED]] -= 1
        part[P_ERROR] = error
        part[P_LATENCY] = -1.0  # a retry draws its own
        part[P_STEP] = ERROR
        self._after(part, self._draw(part[P_BILLED], part[P_NBYTES]), now)

    def _on_error(self, part: Part, now: float) -> bool:
        """A rejection reached the client (its connection is free again): count it; True if the part is
        retried (capped exponential backoff with full jitter), False if it has run out of attempts."""
        retried = part[P_ATTEMPT] < self.max_attempts
        self._count_error(part, retried, now)
        if not retried:
            return False
        part[P_ATTEMPT] += 1
        ceiling = min(self.retry_cap_s, self.retry_base_s * 2.0 ** (part[P_ATTEMPT] - 2))
        part[P_STEP] = RETRY
        self._after(part, ceiling * self._uniform(), now)
        return True

    def _end(self, part: Part, now: float) -> None:
        """A part ends (answered in full, or rejected): its connection goes to the first part waiting, then
        to what follows the part (a retry later; the next parts of a split operation); an operation whose
        last part ended is over (``_ended``)."""
        pool = self.pool  # ``ConnectionPool._give_back``, written out, the part waiting begun next
        pool.free += 1
        pool.held_s += now
        if pool.probes:
            pool.probed(now)
        if pool.queue:
            waiting = pool.hand_on(now)
            if waiting is not None:
                self.ready.append(waiting)
        if part[P_STEP] == ERROR:
            if self._on_error(part, now):
                return  # it is retried
            ok = False
        else:
            ok = True
            hot_id = part[P_HOT]
            if hot_id >= 0:  # at 0 it leaves: the dict holds the keys in flight, not every key read
                hot_counts = self.hot_counts
                count = hot_counts[hot_id] - 1
                if count:
                    hot_counts[hot_id] = count
                else:
                    del hot_counts[hot_id]
                part[P_HOT] = -1
        request = part[P_REQUEST]
        if request is not None:
            request.attempts += part[P_ATTEMPT]
            if request.split:
                if ok and part[P_NBYTES] and part[P_BILLED] == B_GET:  # a range's body, a transfer of its own
                    self._transfer(part, GET, now)
                if self._next_parts(request, ok, now):
                    return  # its operation goes on
        self._ended(part, request, ok, now)

    def _next_parts(self, request: Request, ok: bool, now: float) -> bool:
        """Start what follows a part of a split operation (parts, then Complete); True while the
        operation goes on."""
        request.outstanding -= 1
        if not ok:
            request.failed = True
            request.queued.clear()
        if request.lop == PUT and not request.failed:
            multipart = self.client.multipart
            assert multipart is not None
            while request.queued and request.outstanding < multipart.queue_depth:
                request.outstanding += 1
                self.ready.append(new_part(PUT, B_PART, request.key_id, request.queued.pop(), now, request))
            if request.outstanding == 0 and not request.completing:
                request.completing = True
                request.outstanding = 1
                self.ready.append(new_part(PUT, B_COMPLETE, request.key_id, 0, now, request))
                return True
        return request.outstanding != 0

    def _begin_ready(self, now: float) -> None:
        """Begin the ready parts, in order."""
        ready = self.ready
        while ready:
            self._begin(ready.popleft(), now)
