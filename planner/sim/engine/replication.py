"""One replication of a workload against a provider model, on the replication's own clock.

The hot path avoids a generator process and an object per request: each request (or part)
is a plain list of its fields (``_P_*`` below), and the run loop, a discrete-event loop written
for this model, merges three time-ordered sources: the open-loop arrivals (drawn up front),
a heap of the times of parts' next steps (first byte, response, error, retry; the step is the
part's ``P_STEP``; the part by its time in ``pending``) and the fluid network's next completion
(``fluid_network.FluidNetwork.next_at``). Each step of a request has one definition, whatever the
request (whole object or part of a ranged GET or multipart upload, first attempt or retry) and
whichever driver takes it: ``planner.sim.engine.request_life.RequestLife``, which ``planner.sim.store.object_store``
takes too; this module is the replication's driver of it (its clock, its records). The clock
is ``now``, set by the loop and handed to each step and to the network. Random numbers come
from numpy up front (an open loop's requests and their first latencies) or in blocks; records
go to flat lists turned into arrays once."""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable
from heapq import heappush

import numpy as np

from planner.sim.engine.answer_tables import B_GET
from planner.sim.engine.draws import RequestDraws
from planner.sim.engine.provider_setup import provider_setup
from planner.sim.engine.replication_records import RawRun
from planner.sim.engine.request_life import ConnectionPool, RequestLife
from planner.sim.engine.request_parts import (
    BURST,
    FIRST_BYTE,
    P_ARRIVAL,
    P_BILLED,
    P_CONN,
    P_ERROR,
    P_FIRST,
    P_LOP,
    P_NBYTES,
    P_STEP,
    P_TRANSFER,
    RESPONSE,
    RETRY,
    THINK,
    Part,
    Request,
)
from planner.sim.engine.requests import GET, LOGICAL_OPERATIONS, PUT
from planner.sim.model import BILLED_OPERATIONS, ProviderModel
from planner.sim.spec import ClosedLoop, OpenLoop, SimSpec, TraceArrivals

__all__ = ["RawRun", "Replication"]  # a replication and the record it returns

_INF = math.inf

_NEVER = 1 << 62  # more than any size: the split-from size of an operation never split


class Replication(RequestDraws, RequestLife):
    """Simulates ``spec`` against ``provider`` for ``duration_s`` of arrivals, then drains."""

    CHUNK_REQUESTS = 250_000
    """An open loop's arrivals are drawn, and its records handed on, this many (expected) at a time."""
    CHUNK_S = 60.0
    """The shortest stretch of simulated time handed on at once (a closed loop's stretch)."""

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
        self.duration_s, self.warmup_s = float(duration_s), float(warmup_s)
        self.drain_s = max(60.0, duration_s) if drain_s is None else drain_s
        self.now = 0.0
        """The simulated time where the loop stopped (it keeps its clock in a local while it runs and
        passes it to each step it takes)."""
        # The times of the parts' next steps, and the part due at each: a heap of bare floats
        # sifts faster than one of tuples. A step due at a time already taken is put off to the
        # next float (``_free_time``), so same-time steps keep the order they were scheduled in.
        # The sentinel keeps heap[0] readable.
        self.heap: list[float] = [_INF]
        self.pending: dict[float, Part] = {}
        self.put_off: dict[float, float] = {}
        client = self.client = spec.client
        self.limits = None  # the model's: the client's multipart policy as given
        self.pool = ConnectionPool(client.connections)
        self.ready: deque[Part] = deque()  # parts the loop begins next (``_loop``), in order
        self.max_attempts = client.retry.max_attempts
        self.split_from: list[int] = [
            client.ranged_get.threshold_bytes if client.ranged_get else _NEVER,
            client.multipart.threshold_bytes if client.multipart else _NEVER,
            _NEVER,
            _NEVER,
        ]
        """Per logical operation, the size in bytes from which it is split: a ranged GET, a multipart upload."""
        arrivals = spec.arrivals
        self.think_s = arrivals.think_time_s if isinstance(arrivals, ClosedLoop) else None
        self.retry_base_s, self.retry_cap_s = client.retry.base_s, client.retry.max_backoff_s
        self.round_trip_s = client.round_trip_s
        # what the provider model answers once (``provider_setup``), where the hot path finds it
        setup = provider_setup(spec, provider, self.duration_s, rng)
        self.idle_share, self.utilisation, self.queued = setup.idle_share, setup.utilisation, setup.queued
        self.latencies, self.body_tails = setup.latencies, setup.body_tails
        self.joint_tails = setup.joint_tails
        self.load_extrapolated = setup.load_extrapolated
        """billed operations whose latency under this load is extrapolated past the last open-loop cell"""
        self.queues, self.service_s, self.spreads = setup.queues, setup.service_s, setup.spreads
        self.network, self.read_flows, self.write_flows = setup.network, setup.read_flows, setup.write_flows
        self.admission, self.hot_counts = setup.admission, setup.hot_counts
        RequestDraws.__init__(self, spec, rng)
        # Records, flat lists extended in the loop and turned into arrays once at the end.
        # operation, arrival, connection, first byte, end, size, ok: 7 numbers per request ended;
        # ok is 0 (failed), 1, or 2 for a whole-object GET whose transfer ran from its first byte
        # to its end and is not in ``transfers`` (written as floats, which the array takes as they are)
        self.records: list[float] = []
        # operation, start, end, bytes: 4 numbers per transfer (but those of records with ok 2)
        self.transfers: list[float] = []
        self.error_times: list[float] = []
        self.errors: dict[tuple[int, str], int] = {}
        self.retries = [0] * len(LOGICAL_OPERATIONS)
        self.billed = [0] * len(BILLED_OPERATIONS)
        """requests billed in the window by billed operation: every attempt sent, less the error answers
        the provider does not bill"""
        self.bills_error: dict[str, bool] = {}  # whether an error answer is billed, by answer, asked once
        self.issued = 0  # logical operations issued; those not recorded are unfinished
        self.ended = 0  # logical operations recorded and handed on

    # -- arrivals --

    def _start(self) -> None:
        arrivals = self.spec.arrivals
        if isinstance(arrivals, ClosedLoop):
            for _ in range(arrivals.workers):
                self._issue_next(self.now)
        hot = self.spec.keys.hot
        if hot is not None and hot.peak_concurrency:
            every = hot.burst_every_s or math.inf
            t = 0.0
            while t < self.duration_s:
                self._push([BURST], t)
                t += every

    def _push(self, part: Part, at: float) -> None:
        """``part``'s next step is due at ``at`` (or just after, if a step is due at ``at`` already)."""
        if self.pending.setdefault(at, part) is not part:  # one hash when the time is free
            at = self._free_time(at)
            self.pending[at] = part
        heappush(self.heap, at)

    def _free_time(self, at: float) -> float:
        """A float from ``at`` on that no pending step is due at, later than any found before for ``at``.

        ``put_off`` remembers where the last search from ``at`` ended, so a burst of ``k`` steps
        due at one time costs ``k`` look-ups, not ``k**2 / 2``.
        """
        pending, wanted = self.pending, at
        at = self.put_off.get(wanted, wanted)
        while at in pending:
            at = math.nextafter(at, _INF)
        self.put_off[wanted] = at
        return at

    def _loop(self, until_s: float) -> None:
        """The event loop: arrivals, the heap of parts' next steps and the network, in time order.

        An arrival only schedules what follows it, and a network completion only ends streams,
        so handling either between the queued steps around it, at its own time, is the same as
        making it an event, without the heap's cost. Ties go to arrivals, then completions. The
        steps themselves are ``RequestLife``'s (``planner.sim.engine.request_life``), the ones the SimPy
        component takes: a part that wants a connection (a new one, a retry, one that waited for a
        connection, the next part of a split operation) is put on ``ready`` wherever it arises, and the
        loop begins the ready parts, in order and at the current time, before it takes the next event.
        """
        network, heap, heappop, pending = self.network, self.heap, heapq.heappop, self.pending
        finish_next, issue, ready = network.finish_next, self._issue, self.ready
        begin, first_byte, end, body_done, on_timer = (
            self._begin,
            self._first_byte,
            self._end,
            self._body_done,
            self._on_timer,
        )
        times, lops, sizes, keys = self.arrival_times, self.arrival_lop, self.arrival_size, self.arrival_key
        latencies_drawn = self.arrival_latency
        body_tails = self.body_tails
        now = self.now
        i = 0
        next_arrival = times[0]
        while True:
            if ready:
                begin(ready.popleft(), now)
                continue
            next_step_at = heap[0]
            next_done = network.next_at
            if next_arrival <= next_step_at and next_arrival <= next_done:  # an open-loop arrival
                if next_arrival > until_s:
                    break
                now = next_arrival
                issue(lops[i], keys[i], sizes[i], now, latencies_drawn[i])
                i += 1
                next_arrival = times[i]
            elif next_done <= next_step_at:  # a transfer ending
                if next_done > until_s:
                    break
                now = next_done
                part = finish_next(now)
                if part[P_BILLED] == B_GET and body_tails is None:  # ``_body_done``'s common case: a GET ends
                    end(part, now)
                else:
                    body_done(part, now)
            else:  # a part's next step
                if next_step_at > until_s:
                    break
                now = heappop(heap)
                part = pending.pop(now)
                step = part[P_STEP]  # ``RequestLife._step``, its dispatch written out
                if step == FIRST_BYTE:
                    first_byte(part, now)
                elif step == RETRY:
                    ready.append(part)
                elif step >= THINK:  # a timer: a closed-loop worker's think time ended, or a hot burst
                    on_timer(step, now)
                else:
                    end(part, now)
        self.now = max(now, min(until_s, self.duration_s))

    # -- the driver's part of ``RequestLife``: the clock, the records --

    def _after(self, part: Part, delay: float, now: float) -> None:
        at = now + delay  # ``_push``, written out (every step of every request takes it)
        if self.pending.setdefault(at, part) is not part:
            at = self._free_time(at)
            self.pending[at] = part
        heappush(self.heap, at)

    def _at(self, part: Part, at: float, now: float) -> None:
        self._push(part, at)

    def _transfer(self, part: Part, lop: int, now: float) -> None:
        self.transfers += (lop, part[P_TRANSFER], now, part[P_NBYTES])

    def _error_billed(self, error: str) -> bool:
        """Whether the provider bills an error answer (``ProviderModel.bills_error``: AWS bills no 5xx)."""
        billed = self.bills_error.get(error)
        if billed is None:
            billed = self.bills_error[error] = self.provider.bills_error(error)
        return billed

    def _count_error(self, part: Part, retried: bool, now: float) -> None:
        lop = part[P_LOP]
        if self.warmup_s <= now < self.duration_s:
            key = (lop, part[P_ERROR])
            self.errors[key] = self.errors.get(key, 0) + 1
            if retried:
                self.retries[lop] += 1
        self.error_times.append(now)

    def _ended(self, part: Part, request: Request | None, ok: bool, now: float) -> None:
        """The operation's record: operation, arrival, connection, first byte, end, size, ok (0 failed, 1, or
        2 for a whole-object GET whose transfer ran from its first byte to its end and is not in
        ``transfers``); then a closed loop's worker moves on."""
        if request is None:
            nbytes = part[P_NBYTES]
            t_first = part[P_FIRST]
            self.records += (
                part[P_LOP],
                part[P_ARRIVAL],
                part[P_CONN],
                t_first if t_first >= 0.0 else now,
                now,
                nbytes,
                (2.0 if nbytes and part[P_BILLED] == B_GET else 1.0) if ok else 0.0,
            )
        else:
            t_first = request.t_first
            self.records.extend(
                (
                    request.lop, request.t_arrival, request.t_conn, t_first if t_first >= 0.0 else now, now,
                    request.size, not request.failed,
                )
            )  # fmt: skip
        if self.think_s is not None:
            self._next_of_worker(now)

    def _on_timer(self, step: int, now: float) -> None:
        if step == THINK:
            self._issue_next(now)
        else:
            assert step == BURST
            self._on_burst(now)

    def _on_burst(self, now: float) -> None:
        hot = self.spec.keys.hot
        assert hot is not None
        for hot_object in range(hot.objects):
            for _ in range(hot.peak_concurrency):
                size = hot.size_bytes if hot.size_bytes is not None else self._draw_size()
                self._issue(GET, self._hot_key(hot_object), size, now, -1.0)

    def _issue_next(self, now: float) -> None:
        """The next request of the drawn stream (operation, key, size), issued now."""
        i = self.draw_i
        if i == len(self.draw_lop):
            self._refill_draws()
            i = 0
        self.draw_i = i + 1
        self._issue(self.draw_lop[i], self.draw_key[i], self.draw_size[i], now, -1.0)

    def _issue(self, lop: int, key: int, size: int, now: float, latency: float) -> None:
        """A logical operation arrives: a whole-object request, or a split one (ranged GET,
        multipart upload). ``key`` -1 - h is hot object h (one of its replicas); ``latency`` is the
        first attempt's, drawn with the arrival (-1: drawn when needed)."""
        self.issued += 1
        if key < 0:
            key = self._hot_key(-1 - key)
        if size >= self.split_from[lop]:
            self._split(Request(lop, key, size, now), now)
        else:
            if lop > PUT:
                size = 0  # HEAD and LIST move no body
            # a whole-object request's billed operation is its logical one (the codes agree); its
            # part is ``_new_part(lop, lop, key, size, now, None, latency)`` written out, a call less
            self.ready.append([RESPONSE, lop, lop, key, size, now, -1.0, -1.0, now, 1, 0, -1, None, "", latency])

    def _next_of_worker(self, now: float) -> None:
        """Closed loop: the worker whose request ended issues its next, after its think time."""
        think_s = self.think_s
        if think_s is not None and now < self.duration_s:
            if think_s > 0:
                self._push([THINK], now + think_s)
            else:
                self._issue_next(now)

    # -- run --

    def run(self) -> RawRun:
        """The whole replication as one record (``run_chunks`` bounds the memory of a long one)."""
        chunks: list[RawRun] = []
        self.run_chunks(chunks.append)
        return RawRun.joined(chunks)

    def run_chunks(self, consume: Callable[[RawRun], None]) -> None:
        """Run the replication, handing what it recorded to ``consume`` a stretch of time at a time
        and forgetting it: memory holds one stretch's requests (about ``CHUNK_REQUESTS`` for an open
        loop, ``CHUNK_S`` of simulated time for a closed one) and those in flight, however long the
        window. The counters (errors, retries, billed, unfinished) are each chunk's totals so far."""
        self._start()
        arrivals = self.spec.arrivals
        if isinstance(arrivals, OpenLoop | TraceArrivals):
            chunk_s = max(self.CHUNK_S, self.CHUNK_REQUESTS / arrivals.max_rate_per_s)
        else:
            chunk_s = self.CHUNK_S
        start = 0.0
        while start < self.duration_s:
            end = min(self.duration_s, start + chunk_s)
            if isinstance(arrivals, OpenLoop):
                self._open_chunk(arrivals, start, end)
            elif isinstance(arrivals, TraceArrivals):
                self._trace_chunk(arrivals, start, end)
            self._loop(end)
            consume(self._take(final=False))
            start = end
        self.arrival_times = [_INF]
        self._loop(self.duration_s + self.drain_s)
        consume(self._take(final=True))

    def _take(self, *, final: bool) -> RawRun:
        """What was recorded since the last call, as arrays; the lists start again empty."""
        self.ended += len(self.records) // 7
        run = RawRun.recorded(
            self.records,
            self.transfers,
            self.error_times,
            errors=dict(self.errors),
            retries=list(self.retries),
            billed=list(self.billed),
            unfinished=self.issued - self.ended if final else 0,
        )
        self.records, self.transfers, self.error_times = [], [], []
        if len(self.put_off) > 1024:  # put-off searches from times already past are never asked again
            now = self.now
            self.put_off = {at: free for at, free in self.put_off.items() if at >= now}
        return run
