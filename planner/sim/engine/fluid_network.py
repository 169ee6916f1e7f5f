"""Shared bandwidth as a fluid: streams split capacities max-min fairly (processor sharing).

Streams are grouped in classes: same resources (client link, provider ceiling) and same
per-stream cap. Every stream of a class runs at the class rate, so a class keeps one virtual
clock (the bytes each of its streams has been offered since ``t0``) and a heap of finish tags
(virtual time at arrival + bytes): a stream's remaining work is in those service units and never
has to be touched when rates change. Rates change only when a stream arrives or leaves; then,
and only if some resource is over-subscribed, they are re-filled. ``next_at`` is the time of the
next completion of any class; the owner's event loop, on its own clock, polls it (``timer=False``,
ending one stream a ``finish_next(now)``) or the network arms one SimPy timer for it
(``timer=True``). The network keeps no clock: every call gives it the time. A
transfer costs a heap push and a heap pop, whatever the number of streams in flight, and less
while a class's streams arrive in the order they finish (streams of one size always do): its
heap is then a sorted list, appended to and popped from the front.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import Any

import simpy
from simpy.events import NORMAL

_INF = math.inf

_SLACK = 1 + 1e-12  # demand within this factor of a capacity is not congestion (float drift)
_IN_ORDER_MAX = 1024  # streams a class keeps as a sorted list at most (popping the front is O(n))


class FlowClass:
    """Streams with the same resources and per-stream cap (bytes/s)."""

    __slots__ = ("at", "cap", "heap", "in_order", "n", "rate", "resources", "t0", "v0")

    def __init__(self, resources: tuple[int, ...], cap: float) -> None:
        self.resources = resources
        self.cap = cap
        self.rate = cap
        self.n = 0
        self.v0 = 0.0  # virtual time (bytes served per stream) at t0
        self.t0 = 0.0
        self.at = _INF  # when the stream at the head of the heap finishes at the current rate
        self.heap: list[tuple[float, int, Any]] = []
        # While streams arrive in finish order (always, when they move the same bytes), the heap
        # is a sorted list: appended to and popped from the front, no sifting.
        self.in_order = True


def _cap_of(flow: FlowClass) -> float:
    return flow.cap


class FluidNetwork:
    """Capacities in bytes/s (``inf`` for none); ``on_done(stream)`` is called as each transfer ends.

    The caller gives the time: ``add(stream, flow, nbytes, now)`` starts a transfer and
    ``finish_next(now)`` ends the one due at ``next_at``. With ``timer=False`` nothing is
    scheduled: the owner keeps its own clock and calls ``finish_next(next_at)`` when it reaches
    ``next_at`` (``env`` may then be None). With ``timer=True`` the network arms one timer on
    ``env`` for ``next_at`` and calls ``on_done`` for each stream it ends.

    While every class uses one resource (the usual case: one client link), capacity is re-shared
    by a one-pass water-filling (``_refill_single``), chosen as classes are made.
    """

    def __init__(
        self,
        env: simpy.Environment | None,
        capacities: list[float],
        on_done: Callable[[Any], None] | None,
        *,
        timer: bool = True,
    ) -> None:
        self._env = env
        self._capacity = capacities
        self._demand = [0.0] * len(capacities)  # sum of the caps of the streams using each resource
        self._unbounded = [0] * len(capacities)  # streams with no cap of their own, per resource
        self._classes: list[FlowClass] = []
        self._by_key: dict[tuple[tuple[int, ...], float], FlowClass] = {}
        self._on_done = on_done
        self._congested = False
        self._timer: simpy.Timeout | None = None
        self._timer_at = _INF
        self._seq = 0
        self._single = -1  # the one resource every class uses (water-filling is one pass), or -1
        self._single_capacity = _INF  # its capacity
        self._single_congested = _INF  # the demand on it past which it is congested (``_SLACK``)
        self._refill: Callable[[float], None] = self._refill_many
        """Re-divide capacity among the busy classes (max-min fair, each within its cap); set ``next_at``."""
        self._use_timer = timer
        if timer:
            assert env is not None, "a network with a timer needs the environment to arm it on"
            self._timer_env: simpy.Environment = env
            # the timer is a SimPy timeout; every timer's callbacks are this one list (SimPy only reads an
            # event's callbacks, and nothing else sees the timers)
            self._timer_callbacks: list[Callable[[Any], None]] = [self._on_timer]
        self.next_at = _INF
        """Time of the next completion (``inf`` with nothing in flight)."""
        self._due: FlowClass | None = None  # the class whose head finishes at next_at

    def flow_classes(self) -> tuple[FlowClass, ...]:
        """The classes of streams the network has met, lowest cap first (each with its ``n`` in flight)."""
        return tuple(self._classes)

    def flow_class(self, resources: tuple[int, ...], cap: float) -> FlowClass | None:
        """The class for streams using ``resources`` at most ``cap`` each; None if nothing bounds them."""
        bounded = tuple(r for r in resources if math.isfinite(self._capacity[r]))
        if not bounded and not math.isfinite(cap):
            return None
        key = (bounded, cap)
        found = self._by_key.get(key)
        if found is None:
            found = FlowClass(bounded, cap)
            self._by_key[key] = found
            self._classes.append(found)
            self._classes.sort(key=_cap_of)  # water-filling visits the lowest caps first
            shared = {flow.resources for flow in self._classes}
            self._single = bounded[0] if len(shared) == 1 and len(bounded) == 1 else -1
            self._single_capacity = self._capacity[self._single] if self._single >= 0 else _INF
            self._single_congested = self._single_capacity * _SLACK
            self._refill = self._refill_single if self._single >= 0 else self._refill_many
        return found

    def add(self, stream: Any, flow: FlowClass, nbytes: float, now: float) -> None:
        """Start moving ``nbytes`` for ``stream`` at ``now``."""
        n = flow.n
        cap = flow.cap
        heap = flow.heap
        seq = self._seq = self._seq + 1
        if not n:
            flow.v0 = 0.0
            flow.t0 = now
            flow.rate = cap if cap < _INF else 1.0  # a refill corrects it if congested
            flow.in_order = True
            tag = nbytes
            heap.append((tag, seq, stream))
            first = True  # it finishes first in its class
        else:
            tag = flow.v0 + flow.rate * (now - flow.t0) + nbytes
            if flow.in_order and tag >= heap[-1][0] and n < _IN_ORDER_MAX:
                heap.append((tag, seq, stream))
                first = False  # after the n streams before it
            else:
                flow.in_order = False  # a sorted list is a heap already
                heapq.heappush(heap, (tag, seq, stream))
                first = heap[0][1] == seq
        flow.n = n + 1
        if cap == _INF:
            for r in flow.resources:
                self._unbounded[r] += 1
            self._refill(now)
        elif self._congested:
            self._refill(now)  # which recounts the demand
        else:
            demand, single = self._demand, self._single
            if single >= 0:  # every class uses this one resource (``flow_class``)
                d = demand[single] = demand[single] + cap
                over = d > self._single_capacity
            else:
                over = False
                capacity = self._capacity
                for r in flow.resources:
                    d = demand[r] = demand[r] + cap
                    if d > capacity[r]:
                        over = True
            if over:
                self._refill(now)
            elif first:  # (else its class's next finish stays)
                at = flow.t0 + (tag - flow.v0) / flow.rate
                if at < now:  # rounding: a stream cannot finish before it starts
                    at = now
                if at < flow.at:
                    flow.at = at
                    if at < self.next_at:
                        self.next_at = at
                        self._due = flow
        if self._use_timer and self.next_at < self._timer_at:  # an earlier completion: arm for it
            self._arm(now)

    def finish_next(self, now: float) -> Any:
        """End the transfer due at ``next_at`` (which is ``now``), re-share the capacity, return its stream.

        Streams due at the same instant end one a call, each call a new ``next_at`` at most now.
        """
        flow = self._due
        assert flow is not None, "finish_next() with nothing in flight"
        heap = flow.heap
        stream = (heap.pop(0) if flow.in_order else heapq.heappop(heap))[2]
        left = flow.n = flow.n - 1
        if not left:
            flow.at = _INF
        cap = flow.cap
        if cap == _INF:
            for r in flow.resources:
                self._unbounded[r] -= 1
        if self._congested:
            self._refill(now)  # which recounts the demand and times every busy class's next finish
        else:
            if cap < _INF:
                demand, single = self._demand, self._single
                if single >= 0:  # every class uses this one resource (``flow_class``)
                    demand[single] -= cap
                else:
                    for r in flow.resources:
                        demand[r] -= cap
            if left:
                at = flow.t0 + (heap[0][0] - flow.v0) / flow.rate
                flow.at = at if at > now else now  # rounding: not before now
            best, due = _INF, None
            for other in self._classes:
                if other.at < best:
                    best, due = other.at, other
            self.next_at, self._due = best, due
        return stream

    def complete(self, now: float) -> None:
        """End the transfers due by ``now`` and tell the owner of each (``on_done``)."""
        on_done = self._on_done
        assert on_done is not None, "a network without on_done is drained with finish_next()"
        while self.next_at <= now:
            on_done(self.finish_next(now))

    # -- timer mode --

    def _arm(self, now: float) -> None:
        # A later completion keeps the armed timer: it fires early, finds nothing, re-arms.
        at = self.next_at
        if at < self._timer_at:
            timer = simpy.Timeout(self._timer_env, max(at - now, 0.0))
            timer.callbacks = self._timer_callbacks
            self._timer, self._timer_at = timer, at

    def _on_timer(self, event: simpy.Timeout) -> None:
        """End the transfers due now (``complete``, here inline: once a transfer) and arm for the next
        with the timer that fired (``Environment.schedule`` takes a processed event again) unless a
        transfer begun meanwhile armed one."""
        if event is not self._timer:
            return  # an earlier completion came after it was armed: a newer timer stands
        env = self._timer_env
        now = env.now
        self._timer, self._timer_at = None, _INF
        on_done, finish_next = self._on_done, self.finish_next
        assert on_done is not None
        while self.next_at <= now:
            on_done(finish_next(now))
        at = self.next_at
        if at < self._timer_at:  # the timer that fired, processed, goes back on SimPy's queue
            event.callbacks = self._timer_callbacks
            env.schedule(event, NORMAL, max(at - now, 0.0))
            self._timer, self._timer_at = event, at

    # -- sharing --

    def _refill_many(self, now: float) -> None:
        """Re-divide capacity among the busy classes (max-min fair, each within its cap); set ``next_at``."""
        busy = []
        for flow in self._classes:
            if flow.n:
                flow.v0 += flow.rate * (now - flow.t0)
                flow.t0 = now
                busy.append(flow)
        if not busy:
            self._congested = False
            self._demand = [0.0] * len(self._capacity)
            self.next_at, self._due = _INF, None
            return
        if self._recount_demand() or self._oversubscribed():
            self._congested = True
            self._fill_many(busy)
        else:
            self._congested = False
            for flow in busy:
                flow.rate = flow.cap
        best, due = _INF, None
        for flow in busy:
            at = now + (flow.heap[0][0] - flow.v0) / flow.rate
            if at < now:
                at = now
            flow.at = at
            if at < best:
                best, due = at, flow
        self.next_at, self._due = best, due

    def _refill_single(self, now: float) -> None:
        """``_refill`` when every class uses one resource: water-filling in one pass, lowest caps first.

        The demand is recounted exactly here (the incremental sum only gates the cheap path, so it is
        kept only while the resource is not congested), and a class whose rate stays keeps its
        virtual clock's origin.
        """
        classes = self._classes
        streams = 0
        demand = 0.0
        for flow in classes:
            n = flow.n
            if n:
                streams += n
                demand += n * flow.cap
        congested = self._congested = demand > self._single_congested
        if not congested:  # then every stream is bounded and the demand finite
            self._demand[self._single] = demand
        remaining = self._single_capacity
        best, due = _INF, None
        for flow in classes:
            n = flow.n
            if not n:
                continue
            rate = flow.cap
            if congested:
                share = remaining / streams
                if rate > share:
                    rate = share if share > 1e-9 else 1e-9
                remaining -= rate * n
                streams -= n
            if rate != flow.rate:
                flow.v0 += flow.rate * (now - flow.t0)
                flow.t0 = now
                flow.rate = rate
            at = flow.t0 + (flow.heap[0][0] - flow.v0) / rate
            if at < now:
                at = now
            flow.at = at
            if at < best:
                best, due = at, flow
        self.next_at, self._due = best, due

    def _fill_many(self, busy: list[FlowClass]) -> None:
        """Progressive filling over several resources: freeze the bottleneck's classes, repeat."""
        remaining = list(self._capacity)
        unfrozen = busy
        while unfrozen:
            streams = [0] * len(remaining)
            lowest_cap = _INF
            for flow in unfrozen:
                for r in flow.resources:
                    streams[r] += flow.n
                if flow.cap < lowest_cap:
                    lowest_cap = flow.cap
            level, bottleneck = _INF, -1
            for r, count in enumerate(streams):
                if count and remaining[r] < level * count:
                    level, bottleneck = remaining[r] / count, r
            if lowest_cap <= level:
                level = lowest_cap
                frozen = [f for f in unfrozen if f.cap <= lowest_cap]
            else:
                frozen = [f for f in unfrozen if bottleneck in f.resources]
            rate = max(level, 1e-9)
            for flow in frozen:
                flow.rate = rate
                for r in flow.resources:
                    remaining[r] = max(0.0, remaining[r] - rate * flow.n)
            unfrozen = [f for f in unfrozen if f not in frozen]

    def _oversubscribed(self) -> bool:
        capacity, demand = self._capacity, self._demand
        for r, count in enumerate(self._unbounded):  # noqa: SIM110 (hot path: a loop beats any())
            if count or demand[r] > capacity[r] * _SLACK:
                return True
        return False

    def _recount_demand(self) -> bool:
        """Re-add the demand sums before judging congestion (incremental sums drift); returns False."""
        demand = [0.0] * len(self._capacity)
        for flow in self._classes:
            if flow.n and flow.cap < _INF:
                for r in flow.resources:
                    demand[r] += flow.n * flow.cap
        self._demand = demand
        return False
