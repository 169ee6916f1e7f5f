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
from dataclasses import dataclass
from heapq import heappush
from typing import Any

import numpy as np

from planner.sim._network import FlowClass, FluidNetwork
from planner.sim.provider import BILLED_OPERATIONS, LatencyModel, ProviderModel
from planner.sim.spec import ClosedLoop, OpenLoop, SimSpec, TraceArrivals

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
IntArray = np.ndarray[Any, np.dtype[np.int64]]

LOGICAL_OPERATIONS: tuple[str, ...] = ("GET", "PUT", "HEAD", "LIST")
_GET, _PUT, _HEAD, _LIST = range(4)
# Billed operations; the first four are the logical ones, in the same order.
_B_GET, _B_PUT, _B_HEAD, _B_LIST, _B_CREATE, _B_PART, _B_COMPLETE = range(len(BILLED_OPERATIONS))
_BLOCK = 8192
_LINK_DOWN, _LINK_UP, _PROVIDER_READ, _PROVIDER_WRITE = range(4)
_INF = math.inf

# A part (one HTTP request and its retries) is a list with these fields: cheaper to make and
# read than an object. A whole-object request is a single part with no ``_Request``.
(
    _P_STEP,  # what happens when it leaves the heap (one of the steps below)
    _P_LOP,  # logical operation
    _P_BILLED,  # billed operation
    _P_KEY,
    _P_NBYTES,  # body bytes (0 for HEAD, LIST, create and complete)
    _P_ARRIVAL,
    _P_CONN,  # first time it held a connection (-1 before)
    _P_FIRST,  # time of its first byte (-1 before)
    _P_TRANSFER,  # when its body started moving
    _P_ATTEMPT,
    _P_RANGE,  # index of its range in a ranged GET
    _P_HOT,  # its id in ``hot_counts`` (key << 32 | range) while counted there, else -1
    _P_REQUEST,  # the split operation it belongs to, or None
    _P_ERROR,  # the rejection it is answered with
    _P_LATENCY,  # its first attempt's latency (a GET's first byte, an upload's response), drawn when it
    # arrived (-1: draw it when needed; a rejection resets it, so a retry draws its own)
) = range(15)
Part = list[Any]

# Steps, the values of ``_P_STEP``; ticks (a hot burst, a worker's think time) are one-field parts.
_FIRST_BYTE, _RESPONSE, _ERROR, _RETRY, _THINK, _BURST = range(6)

# Admission checks (``Replication._build_admission``): kind, state, scope, interval (s), slack (s), error.
_TOKENS, _HOT_REJECT, _HOT_DEGRADE = range(3)
_ANY_KEY = 1 << 62  # more than any key: a limit per key takes the key modulo this
_NEVER = 1 << 62  # more than any size: the split-from size of an operation never split
_Check = tuple[int, dict[int, float], int, float, float, str]


def _new_part(
    lop: int, billed: int, key: int, nbytes: int, now: float, request: _Request | None, latency: float = -1.0
) -> Part:
    return [_RESPONSE, lop, billed, key, nbytes, now, -1.0, -1.0, now, 1, 0, -1, request, "", latency]


def _draws(model: LatencyModel, rng: np.random.Generator, offset_s: float = 0.0) -> Iterator[float]:
    """Endless draws from a latency model (plus ``offset_s``), made in numpy blocks, handed out as floats."""
    while True:
        yield from (model.sample(rng, _BLOCK) + offset_s).tolist()


class _DrawTable(dict[int, Iterator[float]]):
    """Latency draws by ``billed | size << 3`` (a billed operation at an object size), made on first use."""

    def __init__(
        self,
        provider: ProviderModel,
        rng: np.random.Generator,
        offset_s: float,
        idle_share: float,
        utilisation: list[float],
        queued: list[bool],
    ) -> None:
        super().__init__()
        self._provider, self._rng, self._offset_s = provider, rng, offset_s
        self._idle_share, self._utilisation, self._queued = idle_share, utilisation, queued

    def __missing__(self, key: int) -> Iterator[float]:
        billed = key & 7
        model = self._provider.latency(
            BILLED_OPERATIONS[billed],
            key >> 3,
            self._idle_share,
            self._utilisation[billed],
            queued=self._queued[billed],
        )
        draws = self[key] = _draws(model, self._rng, self._offset_s)
        return draws


class _TailTable(dict[int, Iterator[float] | None]):
    """Draws of how much longer than the median a GET body of ``size`` takes, made on first use
    (None where the model has no spread for it)."""

    def __init__(self, provider: ProviderModel, rng: np.random.Generator) -> None:
        super().__init__()
        self._provider, self._rng = provider, rng

    def __missing__(self, size: int) -> Iterator[float] | None:
        model = self._provider.body_tail("get", size)
        draws = self[size] = None if model is None or not model.p99_s else _draws(model, self._rng)
        return draws


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


class _ServiceTable(dict[int, float]):
    """Server service time by ``billed | size << 3``, asked of the provider's queue on first use."""

    def __init__(self, provider: ProviderModel) -> None:
        super().__init__()
        self._provider = provider

    def __missing__(self, key: int) -> float:
        operation = BILLED_OPERATIONS[key & 7]
        queue = self._provider.server_queue(operation)
        seconds = self[key] = queue.service_for(operation, key >> 3) if queue is not None else 0.0
        return seconds


class _FlowTable(dict[int, FlowClass | None]):
    """The network class of a transfer by its size (None: nothing bounds it), made on first use."""

    def __init__(self, make: Callable[[int], FlowClass | None]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, nbytes: int) -> FlowClass | None:
        flow = self[nbytes] = self._make(nbytes)
        return flow


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

    @classmethod
    def joined(cls, chunks: list[RawRun]) -> RawRun:
        """Chunks of one replication as one (the counters are the last chunk's, its totals)."""
        last = chunks[-1]
        arrays = {
            name: np.concatenate([getattr(chunk, name) for chunk in chunks])
            for name in (
                "lop", "t_arrival", "t_conn", "t_first", "t_end", "size", "ok", "transfer_lop", "transfer_start",
                "transfer_end", "transfer_bytes", "error_time",
            )
        }  # fmt: skip
        return cls(
            **arrays,
            errors=last.errors,
            retries=last.retries,
            billed=last.billed,
            unfinished=last.unfinished,
            events=last.events,
        )


class RequestSource:
    """The synthetic requests of a spec: Poisson arrival times shaped by its open loop, and each
    request's operation, size and key (a hot object ``h`` as key ``-1 - h``), drawn from ``rng``.
    The simulator draws from it, and so does the trace generator (planner.sim.trace), so a
    generated trace holds the requests a simulation of the same spec would."""

    def __init__(self, spec: SimSpec, rng: np.random.Generator) -> None:
        self.spec, self.rng = spec, rng
        keys = spec.keys
        self.key_count = keys.keys
        self.zipf_cdf: FloatArray | None = None
        if keys.zipf_exponent > 0:
            weights = np.arange(1, keys.keys + 1, dtype=np.float64) ** -keys.zipf_exponent
            cdf = np.cumsum(weights)
            self.zipf_cdf = cdf / cdf[-1]
        hot = keys.hot
        self.hot_replicas = hot.replicas if hot else 1
        self.op_cdf = np.cumsum(spec.mix.shares())
        self.size_values = np.array(spec.sizes.sizes_bytes, dtype=np.int64)
        self.size_cdf = np.cumsum(spec.sizes.probabilities())
        put_sizes = spec.put_sizes
        self.put_size_values = None if put_sizes is None else np.array(put_sizes.sizes_bytes, dtype=np.int64)
        self.put_size_cdf = None if put_sizes is None else np.cumsum(put_sizes.probabilities())

    def requests(self, count: int) -> tuple[IntArray, IntArray, IntArray]:
        """``count`` requests' operations, sizes and keys (a hot object ``h`` as key ``-1 - h``)."""
        rng, keys = self.rng, self.spec.keys
        lops = np.minimum(np.searchsorted(self.op_cdf, rng.random(count), side="right"), 3)
        sizes = self.size_values[
            np.minimum(np.searchsorted(self.size_cdf, rng.random(count), side="right"), len(self.size_values) - 1)
        ]
        if self.put_size_values is not None and self.put_size_cdf is not None:
            puts = lops == _PUT
            drawn = np.searchsorted(self.put_size_cdf, rng.random(int(puts.sum())), side="right")
            sizes[puts] = self.put_size_values[np.minimum(drawn, len(self.put_size_values) - 1)]
        if self.zipf_cdf is None:
            key_ids = rng.integers(0, self.key_count, count)
        else:
            key_ids = np.minimum(np.searchsorted(self.zipf_cdf, rng.random(count), side="right"), self.key_count - 1)
        hot = keys.hot
        if hot is not None and hot.share_of_reads > 0:
            is_hot = (lops == _GET) & (rng.random(count) < hot.share_of_reads)
            key_ids[is_hot] = -1 - rng.integers(0, hot.objects, int(is_hot.sum()))
            if hot.size_bytes is not None:
                sizes[is_hot] = hot.size_bytes
        return lops, sizes, key_ids

    def arrival_times(self, loop: OpenLoop, start_s: float, end_s: float) -> FloatArray:
        """Poisson arrivals in [start_s, end_s), thinned from the profile's peak rate."""
        rng, peak = self.rng, loop.max_rate_per_s
        expected = peak * (end_s - start_s)
        count = int(expected + 6 * math.sqrt(expected) + 16)
        times = np.cumsum(rng.exponential(1.0 / peak, count)) + start_s
        while times[-1] < end_s:
            more = np.cumsum(rng.exponential(1.0 / peak, count)) + times[-1]
            times = np.concatenate([times, more])
        times = times[times < end_s]
        if loop.profile in ("mean", "peak"):
            return times
        keep = rng.random(len(times)) < loop.rates_per_s(times) / peak
        return times[keep]


class Replication:
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
        self.idle_share, self.utilisation = self._window_load()
        # per billed operation, whether it waits in its server queue: not in a steady open loop at a
        # load its open-loop cells measured whole (their waits are in the latency drawn)
        steady = isinstance(arrivals, OpenLoop) and (arrivals.profile in ("mean", "peak") or arrivals.peak_factor == 1)
        steady = steady and (spec.keys.hot is None or not spec.keys.hot.peak_concurrency)
        self.queued = [
            not steady or provider.queued(op, u) for op, u in zip(BILLED_OPERATIONS, self.utilisation, strict=True)
        ]
        self.latencies = _DrawTable(provider, rng, client.round_trip_s, self.idle_share, self.utilisation, self.queued)
        self.load_extrapolated = [
            op
            for op, u, queued in zip(BILLED_OPERATIONS[:4], self.utilisation, self.queued, strict=False)
            if not queued and provider.load_extrapolated(op, u)
        ]
        """billed operations whose latency under this load is extrapolated past the last open-loop cell"""
        self.body_tails = _TailTable(provider, rng) if provider.body_tail_by_size else None
        # The server queues: per billed operation, the free times of its queue's servers (a heap
        # shared by the operations the queue serves), None for no queue; service times by
        # ``billed | size << 3``.
        self.queues: list[list[float] | None] = [None] * len(BILLED_OPERATIONS)
        self.service_s = _ServiceTable(provider)
        # per billed operation, draws of its queue's service spread (a multiplier of mean 1), or None
        self.spreads: list[Iterator[float] | None] = [None] * len(BILLED_OPERATIONS)
        for queue in provider.server_queues:
            free = [0.0] * queue.servers
            spread = _draws(queue.service_spread, rng) if queue.service_spread is not None else None
            for op in queue.operations:
                if self.queued[BILLED_OPERATIONS.index(op)]:
                    self.queues[BILLED_OPERATIONS.index(op)] = free
                    self.spreads[BILLED_OPERATIONS.index(op)] = spread
        self.uniforms: list[float] = []
        self.uniform_i = 0
        self._build_network()
        self._build_admission()
        self._build_keys()
        # Records, flat lists extended in the loop and turned into arrays once at the end.
        # operation, arrival, connection, first byte, end, size, ok: 7 numbers per request ended;
        # ok is 0 (failed), 1, or 2 for a whole-object GET whose transfer ran from its first byte
        # to its end and is not in ``transfers``
        self.records: list[float] = []
        # operation, start, end, bytes: 4 numbers per transfer (but those of records with ok 2)
        self.transfers: list[float] = []
        self.error_times: list[float] = []
        self.errors: dict[tuple[int, str], int] = {}
        self.retries = [0] * len(LOGICAL_OPERATIONS)
        self.billed = [0] * len(BILLED_OPERATIONS)
        self.issued = 0  # logical operations issued; those not recorded are unfinished
        self.ended = 0  # logical operations recorded and handed on
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

    # -- set-up: ask the provider model once, keep the answers where the hot path finds them --

    def _window_load(self) -> tuple[float, list[float]]:
        """The share of requests that find client and server idle, and per billed operation the
        utilisation of its server queue (the window's mean offered work over the queue's capacity).

        Idle: nothing else in flight, exp(-L) with L requests in flight on average by Little's law
        (Poisson arrivals at the window's mean rate times the busy latency of the operations and
        sizes drawn), and at most the share of time the busiest server queue is idle (1 - its
        utilisation); 0 for a closed loop without think time. A closed loop's utilisation is left
        at 0: its rate is what its latency allows, and the queue alone sets how it levels off."""
        provider, spec = self.provider, self.spec
        utilisation = [0.0] * len(BILLED_OPERATIONS)
        if not provider.sparse_latency_by_size and not provider.loaded_latency:
            return 0.0, utilisation
        arrivals = spec.arrivals
        sizes = list(zip(spec.sizes.sizes_bytes, spec.sizes.probabilities(), strict=True))
        put_sizes = sizes
        if spec.put_sizes is not None:
            put_sizes = list(zip(spec.put_sizes.sizes_bytes, spec.put_sizes.probabilities(), strict=True))

        def sizes_of(op: str) -> list[tuple[int, float]]:
            return put_sizes if op == "put" else sizes if op == "get" else [(0, 1.0)]

        busy_s = sum(
            share * sum(p * provider.latency(op, size).mean_s for size, p in sizes_of(op))
            for op, share in zip(BILLED_OPERATIONS[:4], spec.mix.shares(), strict=True)
            if share
        )
        if isinstance(arrivals, ClosedLoop):
            if arrivals.think_time_s == 0:
                return 0.0, utilisation
            in_flight = arrivals.workers * busy_s / (busy_s + arrivals.think_time_s)
            return math.exp(-in_flight), utilisation
        rate = arrivals.expected_arrivals(0.0, self.duration_s) / self.duration_s
        idle = math.exp(-rate * busy_s)
        for queue in provider.server_queues:
            busy = sum(
                rate * share * p * queue.service_for(op, size)
                for op, share in zip(BILLED_OPERATIONS[:4], spec.mix.shares(), strict=True)
                if op in queue.operations
                for size, p in sizes_of(op)
            )
            idle = min(idle, max(0.0, 1.0 - busy / queue.servers))
            for op in queue.operations:
                utilisation[BILLED_OPERATIONS.index(op)] = busy / queue.servers
        return (idle if provider.sparse_latency_by_size else 0.0), utilisation

    def _build_network(self) -> None:
        client, provider = self.spec.client, self.provider
        link = client.link_bits_per_s / 8 if client.link_bits_per_s is not None else math.inf
        if client.link_duplex == "shared":
            self.read_resources: tuple[int, ...] = (_LINK_DOWN, _PROVIDER_READ)
            self.write_resources: tuple[int, ...] = (_LINK_DOWN, _PROVIDER_WRITE)
        else:
            self.read_resources, self.write_resources = (_LINK_DOWN, _PROVIDER_READ), (_LINK_UP, _PROVIDER_WRITE)
        capacities = [link, link, provider.ceiling_bits_per_s("read") / 8, provider.ceiling_bits_per_s("write") / 8]
        self.network = FluidNetwork(None, capacities, None, timer=False)
        self.read_flows = _FlowTable(lambda nbytes: self._flow_class(True, nbytes))
        self.write_flows = _FlowTable(lambda nbytes: self._flow_class(False, nbytes))
        self.read_flows[0] = self.write_flows[0] = None  # no bytes, no transfer

    def _flow_class(self, read: bool, nbytes: int) -> FlowClass | None:
        cap = self.provider.stream_bits_per_s("read" if read else "write", nbytes) / 8
        return self.network.flow_class(self.read_resources if read else self.write_resources, cap)

    def _build_admission(self) -> None:
        """Per billed operation, the provider's admission checks of it, in the order they are asked
        (``_loop``, where a part begins): its rate limits, then (GETs) the hot-object limit. A check is a tuple
        ``(kind, state, scope, interval_s, slack_s, error)``:

        - ``_TOKENS``, a token bucket as its equivalent virtual schedule (GCRA): ``state`` holds, per
          scope id (the key modulo ``scope``: ``_ANY_KEY`` for a limit per key, the number of
          prefixes for one per prefix, 1 for one per bucket), the time ``due`` at which
          the bucket is full again but for one token; a request at ``now`` finds a token iff
          ``due - now <= slack_s``, (burst - 1) tokens' worth of time, and then takes it (``due``
          moves on by ``interval_s``, ``1 / per_s``, from ``max(due, now)``); a rejection leaves it as it is.
        - ``_HOT_REJECT`` or ``_HOT_DEGRADE``, concurrent reads of one byte range of one key: ``state``
          counts the reads in flight per ``key << 32 | range``; past ``scope`` of them the read is
          rejected, or its TTFB stretched by count / ``scope`` (``interval_s`` and ``slack_s`` unused).
        """
        provider = self.provider
        self.admission: list[list[_Check]] = [[] for _ in BILLED_OPERATIONS]
        for limit in provider.rate_limits:
            state: dict[int, float] = {}
            for op in limit.operations:
                modulus = {"key": _ANY_KEY, "prefix": self.spec.keys.prefixes, "bucket": 1}[limit.scope]
                interval_s = 1.0 / limit.per_s
                check = (_TOKENS, state, modulus, interval_s, (limit.burst_requests - 1.0) * interval_s, limit.error)
                self.admission[BILLED_OPERATIONS.index(op)].append(check)
        self.hot_counts: dict[int, float] = {}
        hot = provider.hot_object
        if hot is not None:
            kind = _HOT_DEGRADE if hot.behaviour == "degrade" else _HOT_REJECT
            self.admission[_B_GET].append((kind, self.hot_counts, hot.max_concurrent_reads, 0.0, 0.0, hot.error))

    def _build_keys(self) -> None:
        source = self.source = RequestSource(self.spec, self.rng)
        self.trace_arrays: tuple[FloatArray, IntArray, IntArray, IntArray] | None = None
        self.key_count, self.hot_replicas = source.key_count, source.hot_replicas
        self.hot_next_replica = [0] * (self.spec.keys.hot.objects if self.spec.keys.hot else 0)
        self.size_values, self.size_cdf = source.size_values, source.size_cdf

    # -- random draws in blocks --

    def _refill_draws(self) -> None:
        lops, sizes, keys = self._draw_requests(_BLOCK)
        self.draw_lop, self.draw_size, self.draw_key = lops.tolist(), sizes.tolist(), keys.tolist()
        self.draw_i = 0

    def _draw_requests(self, count: int) -> tuple[IntArray, IntArray, IntArray]:
        return self.source.requests(count)

    def _draw_latencies(self, codes: IntArray, sizes: IntArray) -> list[float]:
        """One latency per request, from the model of its (whole-object) operation at its size."""
        drawn = np.empty(len(codes))
        sized, idle = bool(self.provider.latency_by_size), self.idle_share
        for code in range(len(LOGICAL_OPERATIONS)):
            mine = codes == code
            if not mine.any():
                continue
            if not sized or code >= _HEAD:
                model = self.provider.latency(
                    BILLED_OPERATIONS[code],
                    0 if sized else None,
                    idle,
                    self.utilisation[code],
                    queued=self.queued[code],
                )
                drawn[mine] = model.sample(self.rng, int(mine.sum()))
                continue
            for size in np.unique(sizes[mine]).tolist():
                chosen = mine & (sizes == size)
                model = self.provider.latency(
                    BILLED_OPERATIONS[code], int(size), idle, self.utilisation[code], queued=self.queued[code]
                )
                drawn[chosen] = model.sample(self.rng, int(chosen.sum()))
        result: list[float] = (drawn + self.round_trip_s).tolist()
        return result

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

    def _open_chunk(self, loop: OpenLoop, start_s: float, end_s: float) -> None:
        """The open loop's arrivals in [start_s, end_s), each with its operation, size, key and latency."""
        times = self._arrival_times(loop, start_s, end_s)
        self.arrival_times = [*times.tolist(), _INF]
        lops, sizes, keys = self._draw_requests(len(times))
        self.arrival_lop, self.arrival_size, self.arrival_key = lops.tolist(), sizes.tolist(), keys.tolist()
        self.arrival_latency = self._draw_latencies(lops, sizes)

    def _arrival_times(self, loop: OpenLoop, start_s: float, end_s: float) -> FloatArray:
        return self.source.arrival_times(loop, start_s, end_s)

    def _trace_chunk(self, trace: TraceArrivals, start_s: float, end_s: float) -> None:
        """The trace's arrivals in [start_s, end_s) as they were recorded; only latencies are drawn."""
        if self.trace_arrays is None:
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
        self.arrival_latency = self._draw_latencies(lops[lo:hi], sizes[lo:hi])

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
        """
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
                # the request, ask the admission checks of its billed operation (``_build_admission``)
                # in order, then send it (an upload: start its body)
                part = ready.popleft()
                if not free_connections:
                    waiting.append(part)
                    continue
                free_connections -= 1
                if part[_P_CONN] < 0.0:  # its first connection (a split operation's first part: its too)
                    part[_P_CONN] = now
                    if part[_P_REQUEST] is not None:
                        self._first_connection(part[_P_REQUEST], now)
                billed = part[_P_BILLED]
                nbytes = part[_P_NBYTES]
                if warmup_s <= now < duration_s:
                    billed_counts[billed] += 1
                latency = part[_P_LATENCY]
                checks = admission[billed]
                if checks:
                    error, latency = self._admit(part, checks, latency, now)
                    if error is not None:
                        self._reject(part, error, now)
                        continue
                if billed == _B_GET:
                    part[_P_STEP] = _FIRST_BYTE
                else:
                    if billed in (_B_PUT, _B_PART):
                        flow = write_flows[nbytes]  # None for no bytes
                        if flow is not None:  # the body goes first, the response follows it
                            part[_P_TRANSFER] = now
                            add(part, flow, nbytes, now)
                            continue
                    part[_P_STEP] = _RESPONSE
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
                    billed = part[_P_BILLED]
                    if billed == _B_GET:  # a GET is answered in full
                        if body_tails is not None and self._stalls(part, now):
                            continue
                        ending = True
                    else:  # an upload's body: its response follows, sent below
                        nbytes = part[_P_NBYTES]
                        transfers.extend((part[_P_LOP], part[_P_TRANSFER], now, nbytes))
                        part[_P_STEP] = _RESPONSE
                        latency = part[_P_LATENCY]
                        ending = False
                else:
                    # a part's next step
                    if next_step_at > until_s:
                        break
                    now = heappop(heap)
                    part = pending.pop(now)
                    step = part[_P_STEP]
                    ending = True  # answered in full (``_RESPONSE``), or rejected (``_ERROR``)
                    if step == _FIRST_BYTE:
                        part[_P_FIRST] = part[_P_TRANSFER] = now
                        if part[_P_REQUEST] is not None:  # a split operation's first byte is its first part's
                            self._first_byte(part[_P_REQUEST], now)
                        nbytes = part[_P_NBYTES]
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
                    request = part[_P_REQUEST]
                    nbytes = part[_P_NBYTES]
                    if part[_P_STEP] == _ERROR:
                        if self._on_error(part, now):
                            continue  # it is retried
                        ok = 0
                    else:
                        hot_id = part[_P_HOT]
                        if hot_id >= 0:
                            hot_counts[hot_id] -= 1
                            part[_P_HOT] = -1
                        # a GET's body moved from ``_P_TRANSFER`` (its first byte) to now; a whole-object
                        # GET's record stands for that transfer too (ok 2), a part's goes to ``transfers``
                        if nbytes and part[_P_BILLED] == _B_GET:
                            ok = 2
                            if request is not None:
                                transfers.extend((_GET, part[_P_TRANSFER], now, nbytes))
                        else:
                            ok = 1
                    # the logical operation ended: its record, and a closed loop's worker moves on
                    if request is None:
                        t_first = part[_P_FIRST]
                        records.extend(
                            (
                                part[_P_LOP],
                                part[_P_ARRIVAL],
                                part[_P_CONN],
                                t_first if t_first >= 0.0 else now,
                                now,
                                nbytes,
                                ok,
                            )
                        )
                    elif not self._part_done(request, ok != 0, now):
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
        """Send ``part`` through its operation's server queue: a server takes it when one is free (the
        earliest of ``queue``'s free times) for a service time, and its next step comes ``latency``
        after that start."""
        billed = part[_P_BILLED]
        free = queue[0]
        start = free if free > now else now
        spread = self.spreads[billed]
        service = self.service_s[billed | part[_P_NBYTES] << 3]
        heapq.heapreplace(queue, start + (service if spread is None else service * next(spread)))
        self._push(part, start + latency)

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

    def _draw_size(self) -> int:
        index = int(np.searchsorted(self.size_cdf, self._uniform(), side="right"))
        return int(self.size_values[min(index, len(self.size_values) - 1)])

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
            # a whole-object request's billed operation is its logical one (the codes agree)
            self.ready.append(_new_part(lop, lop, key, size, now, None, latency))

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

    def _admit(self, part: Part, checks: list[_Check], latency: float, now: float) -> tuple[str | None, float]:
        """Ask a part's admission checks (``_build_admission``) in order: the refusal of the first
        that refuses it (None if all admit it), and its latency (drawn here if a hot-object check
        needs it, -1 if not drawn; longer if a hot object degrades it)."""
        billed, nbytes = part[_P_BILLED], part[_P_NBYTES]
        for kind, state, scope, interval_s, slack_s, refusal in checks:
            if kind == _TOKENS:
                scope_id = part[_P_KEY] % scope
                due = state.get(scope_id, now)
                if due - now > slack_s:
                    return refusal, latency
                state[scope_id] = (due if due > now else now) + interval_s
            else:  # past ``scope`` reads of this range in flight: reject, or degrade
                if latency < 0.0:
                    latency = next(self.latencies[billed | nbytes << 3])
                hot_id = part[_P_KEY] << 32 | part[_P_RANGE]
                count = state.get(hot_id, 0) + 1
                if count > scope:
                    if kind == _HOT_REJECT:
                        return refusal, latency
                    latency *= count / scope
                state[hot_id] = count
                part[_P_HOT] = hot_id
        return None, latency

    def _stalls(self, part: Part, now: float) -> bool:
        """A GET whose body stalls (the profile measured a tail beyond its median body time): its
        last bytes come later, as its response. False if this one does not."""
        tail = self.body_tails[part[_P_NBYTES]] if self.body_tails is not None else None
        if tail is None:
            return False
        part[_P_STEP] = _RESPONSE
        self._push(part, now + next(tail))
        return True

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
        records = np.fromiter(self.records, np.float64, len(self.records)).reshape(-1, 7)
        transfers = np.fromiter(self.transfers, np.float64, len(self.transfers)).reshape(-1, 4)
        error_times = np.array(self.error_times, dtype=np.float64)
        self.ended += len(records)
        self.records, self.transfers, self.error_times = [], [], []
        if len(self.put_off) > 1024:  # put-off searches from times already past are never asked again
            now = self.now
            self.put_off = {at: free for at, free in self.put_off.items() if at >= now}
        # the whole-object GETs whose records stand for their transfers too (ok 2)
        moved = records[records[:, 6] == 2.0]
        if len(moved):
            transfers = np.concatenate([transfers, moved[:, [0, 3, 4, 5]]])
        return RawRun(
            lop=records[:, 0].astype(np.int64),
            t_arrival=records[:, 1],
            t_conn=records[:, 2],
            t_first=records[:, 3],
            t_end=records[:, 4],
            size=records[:, 5],
            ok=records[:, 6] != 0.0,
            transfer_lop=transfers[:, 0].astype(np.int64),
            transfer_start=transfers[:, 1],
            transfer_end=transfers[:, 2],
            transfer_bytes=transfers[:, 3],
            error_time=error_times,
            errors=dict(self.errors),
            retries=list(self.retries),
            billed=list(self.billed),
            unfinished=self.issued - self.ended if final else 0,
            events=0,
        )
