"""Shared bandwidth as a fluid: streams split capacities max-min fairly (processor sharing).

Streams are grouped in classes: same resources (client link, provider ceiling) and same
per-stream cap. Every stream of a class runs at the class rate, so a class keeps one virtual
clock, the bytes one of its streams has been offered since the clock started, and a heap of
finish tags (virtual time at arrival + bytes). Rates change only when a stream arrives or leaves;
then, and only if some resource is over-subscribed, rates are re-filled. One timer, for the next
completion of any class, drives the whole network, so a transfer costs a heap push, a heap pop
and (usually) one event, whatever the number of streams in flight.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import Any, cast

import simpy

_NORMAL = 1  # simpy.events.NORMAL

Schedule = Callable[[Any, int, float], None]
"""``Environment.schedule`` as the simulator calls it: any object with ``callbacks`` and ``_ok``."""
_TOLERANCE = 1e-9  # relative slack on finish tags: float rounding must not strand a finished stream


class _Wakeup:
    """A bare event for SimPy's queue: the network's completion timer."""

    __slots__ = ("_ok", "callbacks")

    def __init__(self, callback: Callable[[Any], None]) -> None:
        self._ok = True
        self.callbacks = [callback]


class FlowClass:
    """Streams with the same resources and per-stream cap (bytes/s)."""

    __slots__ = ("cap", "heap", "n", "rate", "resources", "t0", "v0")

    def __init__(self, resources: tuple[int, ...], cap: float) -> None:
        self.resources = resources
        self.cap = cap
        self.rate = cap
        self.n = 0
        self.v0 = 0.0  # virtual time (bytes served per stream) at t0
        self.t0 = 0.0
        self.heap: list[tuple[float, int, Any]] = []


def _cap_of(flow: FlowClass) -> float:
    return flow.cap


class FluidNetwork:
    """Capacities in bytes/s (``inf`` for none); ``on_done(stream)`` is called as each transfer ends."""

    def __init__(self, env: simpy.Environment, capacities: list[float], on_done: Callable[[Any], None]) -> None:
        self._env = env
        self._schedule = cast(Schedule, env.schedule)
        self._capacity = capacities
        self._demand = [0.0] * len(capacities)  # sum of the caps of the streams using each resource
        self._unbounded = [0] * len(capacities)  # streams with no cap of their own, per resource
        self._classes: list[FlowClass] = []
        self._by_key: dict[tuple[tuple[int, ...], float], FlowClass] = {}
        self._on_done = on_done
        self._congested = False
        self._timer: _Wakeup | None = None
        self._timer_at = math.inf
        self._seq = 0
        self._single = False  # every class uses the same one resource: water-filling is one pass

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
            shared = {flow.resources for flow in self._classes}
            self._single = len(shared) == 1 and len(bounded) == 1
        return found

    def add(self, stream: Any, flow: FlowClass, nbytes: float) -> None:
        """Start moving ``nbytes`` for ``stream`` now."""
        now = self._env._now
        if flow.n:
            tag = flow.v0 + flow.rate * (now - flow.t0) + nbytes
        else:
            flow.v0, flow.t0 = 0.0, now
            flow.rate = flow.cap if flow.cap < math.inf else 1.0  # a refill corrects it if congested
            tag = nbytes
        self._seq += 1
        heapq.heappush(flow.heap, (tag, self._seq, stream))
        flow.n += 1
        over = self._congested
        cap = flow.cap
        if cap < math.inf:
            demand, capacity = self._demand, self._capacity
            for r in flow.resources:
                d = demand[r] + cap
                demand[r] = d
                if d > capacity[r]:
                    over = True
        else:
            for r in flow.resources:
                self._unbounded[r] += 1
            over = True
        if over:
            self._refill(now)
            self._arm(self._next_completion())
        else:
            at = flow.t0 + (tag - flow.v0) / flow.rate
            if at < self._timer_at:
                self._arm(at)

    def _arm(self, at: float) -> None:
        # A later completion keeps the armed timer: it fires early, finds nothing, re-arms.
        if at < self._timer_at:
            timer = _Wakeup(self._on_timer)
            self._timer, self._timer_at = timer, at
            self._schedule(timer, _NORMAL, at - self._env._now)

    def _next_completion(self) -> float:
        best = math.inf
        for flow in self._classes:
            if flow.n:
                at = flow.t0 + (flow.heap[0][0] - flow.v0) / flow.rate
                if at < best:
                    best = at
        return best

    def _on_timer(self, event: _Wakeup) -> None:
        if event is not self._timer:
            return
        self._timer, self._timer_at = None, math.inf
        now = self._env._now
        finished: list[Any] = []
        earliest: FlowClass | None = None
        earliest_at = math.inf
        heappop = heapq.heappop
        for flow in self._classes:
            if not flow.n:
                continue
            served = flow.v0 + flow.rate * (now - flow.t0)
            limit = served + _TOLERANCE * (1.0 + served)
            heap = flow.heap
            while heap and heap[0][0] <= limit:
                finished.append(heappop(heap)[2])
                self._leave(flow, 1)
            if heap:
                at = flow.t0 + (heap[0][0] - flow.v0) / flow.rate
                if at < earliest_at:
                    earliest, earliest_at = flow, at
        if not finished and earliest is not None and earliest_at <= now:
            # Rounding left the next finish at "now" without reaching its tag: it is done.
            finished.append(heappop(earliest.heap)[2])
            self._leave(earliest, 1)
        if finished and self._congested:
            self._refill(now)
            self._arm(self._next_completion())
        elif earliest_at < math.inf:
            self._arm(earliest_at)
        on_done = self._on_done
        for stream in finished:
            on_done(stream)

    def _leave(self, flow: FlowClass, count: int) -> None:
        flow.n -= count
        if flow.cap < math.inf:
            less = flow.cap * count
            for r in flow.resources:
                self._demand[r] -= less
        else:
            for r in flow.resources:
                self._unbounded[r] -= count

    def _refill(self, now: float) -> None:
        """Re-divide capacity among the busy classes: max-min fair, each class within its cap."""
        busy = []
        for flow in self._classes:
            if flow.n:
                flow.v0 += flow.rate * (now - flow.t0)
                flow.t0 = now
                busy.append(flow)
        if not self._oversubscribed():
            self._recount_demand()
            if not self._oversubscribed():
                self._congested = False
                for flow in busy:
                    flow.rate = flow.cap
                return
        self._congested = True
        if self._single:
            self._fill_one(busy)
            return
        remaining = list(self._capacity)
        unfrozen = busy
        while unfrozen:
            streams = [0] * len(remaining)
            lowest_cap = math.inf
            for flow in unfrozen:
                for r in flow.resources:
                    streams[r] += flow.n
                if flow.cap < lowest_cap:
                    lowest_cap = flow.cap
            level, bottleneck = math.inf, -1
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

    def _fill_one(self, busy: list[FlowClass]) -> None:
        """Water-filling on a single shared resource: lowest caps first, the rest share equally."""
        remaining = self._capacity[busy[0].resources[0]]
        streams = 0
        for flow in busy:
            streams += flow.n
        if len(busy) > 1:
            busy.sort(key=_cap_of)
        for flow in busy:
            share = remaining / streams
            if flow.cap <= share:
                flow.rate = flow.cap
                remaining -= flow.cap * flow.n
                streams -= flow.n
            else:
                flow.rate = max(share, 1e-9)
                remaining -= share * flow.n
                streams -= flow.n

    def _oversubscribed(self) -> bool:
        capacity, demand = self._capacity, self._demand
        for r, count in enumerate(self._unbounded):  # noqa: SIM110 (hot path: a loop beats any())
            if count or demand[r] > capacity[r] * (1 + 1e-12):
                return True
        return False

    def _recount_demand(self) -> None:
        # Incremental sums drift with float rounding; re-add them before trusting "no congestion".
        demand = [0.0] * len(self._capacity)
        for flow in self._classes:
            if flow.n and flow.cap < math.inf:
                for r in flow.resources:
                    demand[r] += flow.n * flow.cap
        self._demand = demand
