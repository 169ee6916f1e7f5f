"""One replication of a workload against a provider model, on the replication's own clock.

The hot path avoids a generator process and an object per request: each request (or part)
is a plain list of its fields (``_P_*`` below), and the run loop, a discrete-event loop written
for this model, merges three time-ordered sources: the open-loop arrivals (drawn up front),
a heap of the times of parts' next steps (first byte, response, error, retry; the step is the
part's ``_P_STEP``; the part by its time in ``pending``) and the fluid network's next completion
(``_network.FluidNetwork.next_at``). Each step of a request has one definition, whatever the
request (whole object or part of a ranged GET or multipart upload, first attempt or retry):
``_issue`` makes a request's parts and puts them on ``ready``; the loop begins a ready part (takes
a connection, asks the provider's admission checks, one list per billed operation, sends it),
moves its first byte and body on, and ends it (connection, record) in one place each. The clock
is ``now``, set by the loop and handed to each step and to the network. Random numbers come
from numpy up front (an open loop's requests and their first latencies) or in blocks; records
go to flat lists turned into arrays once."""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Iterator
from heapq import heappush

import numpy as np

from planner.sim._draws import RequestDraws
from planner.sim._parts import (
    _BURST,
    _ERROR,
    _FIRST_BYTE,
    _P_ARRIVAL,
    _P_ATTEMPT,
    _P_BILLED,
    _P_CONN,
    _P_ERROR,
    _P_FIRST,
    _P_HOT,
    _P_LATENCY,
    _P_LOP,
    _P_NBYTES,
    _P_RANGE,
    _P_REQUEST,
    _P_STEP,
    _P_TRANSFER,
    _RESPONSE,
    _RETRY,
    _THINK,
    Part,
    _new_part,
    _Request,
)
from planner.sim._records import RawRun
from planner.sim._setup import admit, provider_setup, server_start
from planner.sim._tables import _B_COMPLETE, _B_CREATE, _B_GET, _B_PART
from planner.sim.provider import BILLED_OPERATIONS, ProviderModel
from planner.sim.requests import _GET, _PUT, LOGICAL_OPERATIONS
from planner.sim.spec import ClosedLoop, OpenLoop, SimSpec, TraceArrivals

__all__ = ["RawRun", "Replication"]  # a replication and the record it returns

_INF = math.inf

_NEVER = 1 << 62  # more than any size: the split-from size of an operation never split


class Replication(RequestDraws):
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
        client = spec.client
        self.free_connections = client.connections
        self.waiting: deque[Part] = deque()  # parts waiting for a connection
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
        # what the provider model answers once (``_setup``), where the hot path finds it
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
                self._push([_BURST], t)
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
        making it an event, without the heap's cost. Ties go to arrivals, then completions.

        Each step of a request is written once, here: a part that wants a connection (a new one,
        a retry, one that waited for a connection, the next part of a split operation) is put on
        ``ready`` wherever it arises, and the loop begins the ready parts, in order and at the
        current time, before it takes the next event; a part ending (answered or rejected) gives
        its connection back in one place; a request and an upload's response are sent in one.

        Why one function of about 175 lines (the project's only one over 100): every simulated
        request passes through each of these steps, and a Python call with its arguments costs
        about 450 instructions of the about 36,600 a request takes (valgrind on
        benchmarks/sim_speed.py's workload, the whole ``simulate_spec`` call), so the steps every
        request takes stay here; the steps only some requests take
        (a stalling body, a server queue, split operations, timers, errors) are methods it calls,
        and the admission checks are ``_setup.admit``, the function ``planner.sim.store`` asks too.
        """
        # the part's fields and the steps the loop reads most, as locals (a global is a look-up at each read)
        P_STEP, P_LOP, P_BILLED, P_NBYTES, P_ARRIVAL = _P_STEP, _P_LOP, _P_BILLED, _P_NBYTES, _P_ARRIVAL
        P_CONN, P_FIRST, P_TRANSFER, P_HOT, P_REQUEST = _P_CONN, _P_FIRST, _P_TRANSFER, _P_HOT, _P_REQUEST
        P_LATENCY, B_GET, FIRST_BYTE, ERROR = _P_LATENCY, _B_GET, _FIRST_BYTE, _ERROR
        network, heap, heappop, pending, push = self.network, self.heap, heapq.heappop, self.pending, self._push
        add, finish_next, issue, records = network.add, network.finish_next, self._issue, self.records
        closed_loop = self.think_s is not None
        ready, waiting, free_connections = self.ready, self.waiting, self.free_connections
        read_flows, write_flows, transfers, latencies = (
            self.read_flows,
            self.write_flows,
            self.transfers,
            self.latencies,
        )
        billed_counts, admission, hot_counts, body_tails = self.billed, self.admission, self.hot_counts, self.body_tails
        warmup_s, duration_s = self.warmup_s, self.duration_s
        queues = self.queues
        times, lops, sizes, keys = self.arrival_times, self.arrival_lop, self.arrival_size, self.arrival_key
        latencies_drawn = self.arrival_latency
        now = self.now
        i = 0
        next_arrival = times[0]
        while True:
            if ready:
                # begin a part: take a connection (or wait for one, first come first served), count
                # the request, ask the admission checks of its billed operation (``_setup._admission``)
                # in order, then send it (an upload: start its body)
                part = ready.popleft()
                if not free_connections:
                    waiting.append(part)
                    continue
                free_connections -= 1
                if part[P_CONN] < 0.0:  # its first connection (a split operation's first part: its too)
                    part[P_CONN] = now
                    if part[P_REQUEST] is not None:
                        self._first_connection(part[P_REQUEST], now)
                billed = part[P_BILLED]
                nbytes = part[P_NBYTES]
                if warmup_s <= now < duration_s:
                    billed_counts[billed] += 1
                checks = admission[billed]
                if checks:
                    error = admit(part, checks, now, latencies)
                    if error is not None:
                        self._reject(part, error, now)
                        continue
                latency = part[P_LATENCY]
                if billed == B_GET:
                    part[P_STEP] = FIRST_BYTE
                else:
                    flow = write_flows[nbytes]  # an upload's body (HEAD, LIST, ... move 0 bytes: None)
                    if flow is not None:  # the body goes first, the response follows it
                        part[P_TRANSFER] = now
                        add(part, flow, nbytes, now)
                        continue
                    part[P_STEP] = _RESPONSE
                # sent below
            else:
                next_step_at = heap[0]
                next_done = network.next_at
                if next_arrival <= next_step_at and next_arrival <= next_done:
                    # an open-loop arrival
                    if next_arrival > until_s:
                        break
                    now = next_arrival
                    issue(lops[i], keys[i], sizes[i], now, latencies_drawn[i])
                    i += 1
                    next_arrival = times[i]
                    continue
                if next_done <= next_step_at:
                    # a transfer ending
                    if next_done > until_s:
                        break
                    now = next_done
                    part = finish_next(now)
                    billed = part[P_BILLED]
                    if billed == B_GET:  # a GET is answered in full
                        if body_tails is not None and self._stalls(part, now):
                            continue
                        ending = True
                    else:  # an upload's body: its response follows, sent below
                        nbytes = part[P_NBYTES]
                        transfers += (part[P_LOP], part[P_TRANSFER], now, nbytes)
                        part[P_STEP] = _RESPONSE
                        latency = part[P_LATENCY]
                        ending = False
                else:
                    # a part's next step
                    if next_step_at > until_s:
                        break
                    now = heappop(heap)
                    part = pending.pop(now)
                    step = part[P_STEP]
                    ending = True  # answered in full (``_RESPONSE``), or rejected (``ERROR``)
                    if step == FIRST_BYTE:
                        part[P_FIRST] = part[P_TRANSFER] = now
                        if part[P_REQUEST] is not None:  # a split operation's first byte is its first part's
                            self._first_byte(part[P_REQUEST], now)
                        nbytes = part[P_NBYTES]
                        flow = read_flows[nbytes]  # None for no bytes
                        if flow is not None:
                            add(part, flow, nbytes, now)
                            continue
                        # nothing bounds its body: its bytes arrive with the first, and it ends
                    elif step == _RETRY:
                        ready.append(part)
                        continue
                    elif step >= _THINK:  # a timer: a closed-loop worker's think time ended, or a hot burst begins
                        self._on_timer(step, now)
                        continue
                if ending:
                    # the part ends (answered in full, or rejected): it gives its connection back,
                    # to the first one waiting for one
                    free_connections += 1
                    if waiting:
                        ready.append(waiting.popleft())
                    request = part[P_REQUEST]
                    nbytes = part[P_NBYTES]
                    if part[P_STEP] == ERROR:
                        if self._on_error(part, now):
                            continue  # it is retried
                        ok = 0.0
                    else:
                        hot_id = part[P_HOT]
                        if hot_id >= 0:
                            count = hot_counts[hot_id] - 1  # at 0 it leaves: the dict holds keys in flight
                            if count:
                                hot_counts[hot_id] = count
                            else:
                                del hot_counts[hot_id]
                            part[P_HOT] = -1
                        # a GET's body moved from ``P_TRANSFER`` (its first byte) to now; a whole-object
                        # GET's record stands for that transfer too (ok 2), a part's goes to ``transfers``
                        if nbytes and part[P_BILLED] == B_GET:
                            ok = 2.0
                            if request is not None:
                                transfers += (_GET, part[P_TRANSFER], now, nbytes)
                        else:
                            ok = 1.0
                    # the logical operation ended: its record, and a closed loop's worker moves on
                    if request is None:
                        t_first = part[P_FIRST]
                        records += (
                            part[P_LOP],
                            part[P_ARRIVAL],
                            part[P_CONN],
                            t_first if t_first >= 0.0 else now,
                            now,
                            nbytes,
                            ok,
                        )
                    elif not self._part_done(request, ok != 0.0, now):
                        continue  # its operation goes on
                    if closed_loop:
                        self._next_of_worker(now)
                    continue
            # send ``part`` (a request, or an upload's response): its next step comes ``latency``
            # (drawn here if -1) after a server of its operation's queue, if any, takes it
            if latency < 0.0:
                latency = next(latencies[billed | nbytes << 3])
            queue = queues[billed]
            if queue is None:
                push(part, now + latency)
            else:
                self._send_queued(part, queue, latency, now)
        self.free_connections = free_connections
        self.now = max(now, min(until_s, self.duration_s))

    def _send_queued(self, part: Part, queue: list[float], latency: float, now: float) -> None:
        """Send ``part`` through its operation's server queue (``_setup.server_start``): its next step
        comes ``latency`` after a server takes it."""
        self._push(part, server_start(part, queue, self.service_s, self.spreads, now) + latency)

    def _first_connection(self, request: _Request, now: float) -> None:
        if request.t_conn < 0.0:
            request.t_conn = now

    def _first_byte(self, request: _Request, now: float) -> None:
        if request.t_first < 0.0:
            request.t_first = now

    def _on_timer(self, step: int, now: float) -> None:
        if step == _THINK:
            self._issue_next(now)
        else:
            assert step == _BURST
            self._on_burst(now)

    def _on_burst(self, now: float) -> None:
        hot = self.spec.keys.hot
        assert hot is not None
        for hot_object in range(hot.objects):
            for _ in range(hot.peak_concurrency):
                size = hot.size_bytes if hot.size_bytes is not None else self._draw_size()
                self._issue(_GET, self._hot_key(hot_object), size, now, -1.0)

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
            if lop == _GET:
                self._issue_ranged(key, size, now)
            else:
                self._issue_multipart(key, size, now)
        else:
            if lop > _PUT:
                size = 0  # HEAD and LIST move no body
            # a whole-object request's billed operation is its logical one (the codes agree); its
            # part is ``_new_part(lop, lop, key, size, now, None, latency)`` written out, a call less
            self.ready.append([_RESPONSE, lop, lop, key, size, now, -1.0, -1.0, now, 1, 0, -1, None, "", latency])

    def _issue_ranged(self, key: int, size: int, now: float) -> None:
        ranged = self.spec.client.ranged_get
        assert ranged is not None
        request = _Request(_GET, key, size, now)
        chunk = -(-size // ranged.streams)
        starts = range(0, size, chunk)
        request.outstanding = len(starts)
        for index, start in enumerate(starts):
            part = _new_part(_GET, _B_GET, key, min(chunk, size - start), now, request)
            part[_P_RANGE] = index
            self.ready.append(part)

    def _issue_multipart(self, key: int, size: int, now: float) -> None:
        multipart = self.spec.client.multipart
        assert multipart is not None
        request = _Request(_PUT, key, size, now)
        part_bytes = multipart.part_size_bytes
        request.queued = [min(part_bytes, size - start) for start in range(0, size, part_bytes)][::-1]
        request.outstanding = 1
        self.ready.append(_new_part(_PUT, _B_CREATE, key, 0, now, request))

    # -- one request's life: connection, admission, latency, transfer, response --

    def _reject(self, part: Part, error: str, now: float) -> None:
        """The provider refuses a part it was sent (counted as billed where it began): unbilled if the
        provider does not bill that answer (``ProviderModel.bills_error``: AWS bills no 5xx)."""
        billed = self.bills_error.get(error)
        if billed is None:
            billed = self.bills_error[error] = self.provider.bills_error(error)
        if not billed and self.warmup_s <= now < self.duration_s:
            self.billed[part[_P_BILLED]] -= 1
        part[_P_ERROR] = error
        part[_P_LATENCY] = -1.0  # a retry draws its own
        part[_P_STEP] = _ERROR
        self._push(part, now + next(self.latencies[part[_P_BILLED] | part[_P_NBYTES] << 3]))

    def _on_error(self, part: Part, now: float) -> bool:
        """A rejection reached the client (its connection is free again): count it; True if the
        part is retried, False if it has run out of attempts (it failed)."""
        lop = part[_P_LOP]
        counted = self.warmup_s <= now < self.duration_s
        if counted:
            key = (lop, part[_P_ERROR])
            self.errors[key] = self.errors.get(key, 0) + 1
        self.error_times.append(now)
        if part[_P_ATTEMPT] >= self.max_attempts:
            return False
        part[_P_ATTEMPT] += 1
        if counted:
            self.retries[lop] += 1
        ceiling = min(self.retry_cap_s, self.retry_base_s * 2.0 ** (part[_P_ATTEMPT] - 2))
        part[_P_STEP] = _RETRY
        self._push(part, now + ceiling * self._uniform())
        return True

    def _stalls(self, part: Part, now: float) -> bool:
        """A GET whose body stalls (the profile measured a tail beyond its median body time): its
        last bytes come later, as its response. False if this one does not."""
        tail = self.body_tails[part[_P_NBYTES]] if self.body_tails is not None else None
        if tail is None:
            return False
        part[_P_STEP] = _RESPONSE
        self._push(part, now + self._tail_s(part, tail))
        return True

    def _tail_s(self, part: Part, tail: Iterator[float]) -> float:
        """A stalling body's tail, at the rank of the part's TTFB where the profile paired them
        (``planner.sim._joint``); drawn apart for a retry, whose first byte's draw is not kept."""
        joint = self.joint_tails[part[_P_NBYTES]] if self.joint_tails is not None else None
        if joint is None:
            return next(tail)
        ttfb_s = part[_P_LATENCY]  # the first attempt's, drawn with its arrival
        if ttfb_s < 0.0:
            if part[_P_ATTEMPT] != 1:
                return next(tail)
            ttfb_s = part[_P_FIRST] - part[_P_CONN]  # drawn when it was sent (a server queue's wait in it)
        return joint.tail_for(ttfb_s, self._uniform)

    def _part_done(self, request: _Request, ok: bool, now: float) -> bool:
        """One part of a split operation ended (failed unless ``ok``); start what follows it (parts,
        then Complete). True if the whole operation has ended, and then its record is written."""
        if self._next_parts(request, ok, now):
            return False
        t_first = request.t_first
        self.records.extend(
            (
                request.lop, request.t_arrival, request.t_conn, t_first if t_first >= 0.0 else now, now,
                request.size, not request.failed,
            )
        )  # fmt: skip
        return True

    def _next_parts(self, request: _Request, ok: bool, now: float) -> bool:
        """Start what follows a part of a split operation (parts, then Complete); True while the
        operation goes on."""
        request.outstanding -= 1
        if not ok:
            request.failed = True
            request.queued.clear()
        if request.lop == _PUT and not request.failed:
            multipart = self.spec.client.multipart
            assert multipart is not None
            while request.queued and request.outstanding < multipart.queue_depth:
                request.outstanding += 1
                self.ready.append(_new_part(_PUT, _B_PART, request.key, request.queued.pop(), now, request))
            if request.outstanding == 0 and not request.completing:
                request.completing = True
                request.outstanding = 1
                self.ready.append(_new_part(_PUT, _B_COMPLETE, request.key, 0, now, request))
                return True
        return request.outstanding != 0

    def _next_of_worker(self, now: float) -> None:
        """Closed loop: the worker whose request ended issues its next, after its think time."""
        think_s = self.think_s
        if think_s is not None and now < self.duration_s:
            if think_s > 0:
                self._push([_THINK], now + think_s)
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
