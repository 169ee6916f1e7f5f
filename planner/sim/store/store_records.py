"""What an ``ObjectStore`` keeps: each operation's ``StoreRecord`` and the ``Recorder`` of a run.

A ``StoreRecord`` is one operation as the application saw it (the value of the event an operation
returns, filled in by the store as the operation goes); the ``Recorder`` keeps what the store did as
flat lists and reads them back as the engine's arrays (``RawRun``), error counts, bytes read,
requests billed and an ``OperationSummary`` per operation.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import simpy

from planner.errors import InputError, real_number
from planner.evidence import Evidence
from planner.pricing.models import ErrorResponses
from planner.sim.engine import RawRun, Request, delivered_bytes
from planner.sim.model import BILLED_OPERATIONS, error_status

__all__ = ["OPERATIONS", "OperationSummary", "Record", "RecordTable", "Recorder", "StoreRecord"]

OPERATIONS: tuple[str, ...] = ("GET", "PUT", "HEAD", "LIST", "DELETE")
"""The store's operations; the first four are the engine's logical operations, in its order."""
_PRICED_AS = (*BILLED_OPERATIONS, "delete")
STATUS_OK = "200 OK"
FLUSH_AT = 7 * 4096
"""numbers of records a store writes to a list before the recorder moves them into its array"""
MAX_TIME_S = 1e12
"""the largest time or delay the store takes, in seconds (about 31,700 years: a float still tells 0.1 ms apart)"""
_NONE_QUEUED: list[int] = []  # the queued parts of every operation but a multipart upload: never added to


class StoreRecord(Request):
    """One operation as the application saw it, from its call to its last byte, retries included: filled
    in as the operation goes (it is the operation's state in the store, a ``request_parts.Request``), complete
    when its event succeeds with it."""

    __slots__ = ("event", "marks", "sampled", "status", "t_end")

    key: str | int
    """the key the application gave (a string, or a whole number)"""

    def __init__(self, event: simpy.Event, lop: int, key: str | int, key_id: int, size: int, now: float) -> None:
        # ``Request``'s fields set here, not by its ``__init__``: one call less on every request
        self.lop, self.key, self.size, self.t_arrival = lop, key, size, now
        self.t_conn = self.t_first = self.t_end = -1.0
        self.outstanding = 1
        self.failed = self.completing = False
        self.queued = _NONE_QUEUED  # part sizes a multipart upload has yet to send (its own list then)
        self.event: simpy.Event | None = event
        self.key_id = key_id
        self.attempts = 0  # requests the provider saw: every part's every attempt
        self.parts = 1  # requests the operation is made of (a multipart upload's: Create, its parts, Complete)
        self.status = ""  # "" in flight; "200 OK", or the refusal of a part that ran out of attempts
        self.split = False  # a ranged GET or a multipart upload
        self.sampled = True  # recorded (``ObjectStore(..., record=...)``)
        self.marks: Marks | None = None  # how the store's figures are backed (``evidence``)

    @property
    def operation(self) -> str:
        return OPERATIONS[self.lop]

    @property
    def evidence(self) -> dict[str, Evidence]:
        """How ``ttfb_s`` and ``latency_s`` are backed (``planner.evidence``: measured, published, derived,
        extrapolated, assumed), by the store's model at this operation and size."""
        if self.marks is None:
            return {"ttfb_s": "assumed", "latency_s": "assumed"}
        found = self.marks(OPERATIONS[self.lop], self.size)
        return {"ttfb_s": found["mean_ttfb_s"], "latency_s": found["mean_latency_s"]}

    @property
    def retries(self) -> int:
        """Requests sent again after an error answer (``attempts`` less ``parts``)."""
        return self.attempts - self.parts

    @property
    def bytes(self) -> int:
        return self.size

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    @property
    def start_s(self) -> float:
        """When the application asked."""
        return self.t_arrival

    @property
    def ttfb_s(self) -> float:
        """Call to first byte (a write's: its response, after its body)."""
        return self.t_first - self.t_arrival

    @property
    def latency_s(self) -> float:
        """Call to last byte."""
        return self.t_end - self.t_arrival

    def __repr__(self) -> str:
        return (
            f"StoreRecord({self.operation} {self.key!r} {self.bytes} B: {self.status}, ttfb {self.ttfb_s:.6f} s, "
            f"latency {self.latency_s:.6f} s, {self.attempts} attempt(s))"
        )


@dataclass(frozen=True)
class OperationSummary:
    """One operation's figures over a stretch of simulated time (requests that arrived in it)."""

    operation: str
    requests: int
    failed: int
    throttled: int
    """error responses (503, 429), every attempt counted"""
    retries: int
    mean_latency_s: float
    latency_p50_s: float
    latency_p95_s: float
    latency_p99_s: float
    mean_ttfb_s: float
    ttfb_p50_s: float
    ttfb_p95_s: float
    ttfb_p99_s: float
    throughput_bytes_per_s: float
    """bytes moved per second over the stretch (each transfer spread over its span)"""
    sample_one_in: int = 1
    """the store recorded one operation in this many (``record=N``): the counts and throughput are the
    sample's, not the whole load's"""
    evidence: dict[str, Evidence] = field(default_factory=dict)
    """how each figure above is backed, by its field's name (``planner.evidence``): a simulation is at best
    derived from its model, and no better than the weakest figure of the model it rests on"""


Marks = Callable[[str, float], dict[str, Evidence]]
"""How each figure of an operation's summary is backed, given the operation and its mean size (bytes)."""


Record = Literal["all", "none"] | int
"""What a store keeps of each operation: ``"all"``, ``"none"`` (counts and bills only), or one in N."""


@dataclass(frozen=True)
class RecordTable:
    """The operations a store recorded, one column each (numpy arrays of equal length), for a model to
    filter: ``table.where(table.operation == "GET")``."""

    operation: np.ndarray[Any, np.dtype[np.str_]]
    start_s: np.ndarray[Any, np.dtype[np.float64]]
    """when the application asked"""
    connection_s: np.ndarray[Any, np.dtype[np.float64]]
    """when its first request had a connection"""
    first_byte_s: np.ndarray[Any, np.dtype[np.float64]]
    end_s: np.ndarray[Any, np.dtype[np.float64]]
    bytes: np.ndarray[Any, np.dtype[np.int64]]
    ok: np.ndarray[Any, np.dtype[np.bool_]]

    @property
    def ttfb_s(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        return self.first_byte_s - self.start_s

    @property
    def latency_s(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        return self.end_s - self.start_s

    def __len__(self) -> int:
        return len(self.start_s)

    def where(self, mask: np.ndarray[Any, np.dtype[np.bool_]]) -> RecordTable:
        """The rows where ``mask`` holds."""
        return RecordTable(**{name: getattr(self, name)[mask] for name in _COLUMNS})


_COLUMNS = ("operation", "start_s", "connection_s", "first_byte_s", "end_s", "bytes", "ok")


def record_every(record: object) -> int:
    """``record`` as one operation kept in so many (0: none kept), or a one-line refusal naming it."""
    if record == "all":
        return 1
    if record == "none":
        return 0
    if isinstance(record, bool) or not isinstance(record, int | np.integer) or record < 1:
        raise InputError(
            f"record {record!r}: give 'all', 'none' or N (one operation in N) of 1 or more", field="record"
        )
    return int(record)


class Recorder:
    """What a store did: a record of each operation ended, each body moved and each error answered,
    kept as flat arrays of floats (7, 4 numbers each) until asked, for every operation, none, or one in
    ``every``; and, whatever is recorded, the requests billed and the bytes read."""

    def __init__(self, record: Record = "all") -> None:
        self.every = record_every(record)
        """one operation in ``every`` is recorded (1: all; 0: none)"""
        self.records: array[float] | None = array("d") if self.every else None
        """operation, arrival, connection, first byte, end, bytes, ok (2: a whole GET whose record stands
        for its transfer too), as ``planner.sim.engine.replication_records.RawRun.recorded`` reads them"""
        self.transfers: array[float] | None = array("d") if self.every else None
        # the store extends these lists (a list takes a tuple of floats several times faster than an
        # array) and ``flush`` moves them into the arrays every ``FLUSH_AT`` numbers and before a read
        self.pending_records: list[float] = []
        self.pending_transfers: list[float] = []
        self.errors: list[tuple[float, int, str, bool]] = []
        """(time, operation, error, retried) of each error response of a recorded operation"""
        self.billed = [0] * len(_PRICED_AS)
        """requests sent by operation (``_PRICED_AS``), retries included: the attempts the provider saw, which
        it bills but for the error answers its rule does not (``billed_under``)"""
        self.error_attempts: dict[tuple[int, str], int] = {}
        """error answers by (operation as ``_PRICED_AS`` numbers it, error), every attempt counted"""
        self.read_bytes = 0
        """bytes GETs read (whole objects' and the parts' of ranged GETs), every operation counted"""
        self.restores = 0
        self.restored_bytes = 0
        self.marks: Marks | None = None
        """how the store's figures are backed (the store sets it; ``summary`` marks each figure with it)"""

    def flush(self) -> None:
        """Move the numbers the store wrote since the last flush into the arrays."""
        if self.records is not None and self.transfers is not None:
            self.records.fromlist(self.pending_records)
            self.transfers.fromlist(self.pending_transfers)
        self.pending_records.clear()
        self.pending_transfers.clear()

    def _kept(self, what: str) -> tuple[array[float], array[float]]:
        self.flush()
        if self.records is None or self.transfers is None:
            raise InputError(
                f"{what}: the store records no operation (ObjectStore(..., record='none'))", field="record"
            )
        return self.records, self.transfers

    def raw_run(self, what: str = "raw_run") -> RawRun:
        """Everything recorded, as the arrays the engine's statistics read."""
        records, transfers = self._kept(what)
        return RawRun.recorded(
            records,
            transfers,
            [t for t, *_ in self.errors],
            errors=self.throttled(),
            retries=[sum(1 for _, lop, _, retried in self.errors if retried and lop == code) for code in range(5)],
            billed=self.billed[: len(BILLED_OPERATIONS)],
            unfinished=0,
        )

    def table(self) -> RecordTable:
        """The recorded operations as a columnar table."""
        records, _ = self._kept("table")
        columns = np.frombuffer(records, dtype=np.float64).reshape(-1, 7).T
        return RecordTable(
            operation=np.array(OPERATIONS)[columns[0].astype(np.int64)],
            start_s=columns[1].copy(),
            connection_s=columns[2].copy(),
            first_byte_s=columns[3].copy(),
            end_s=columns[4].copy(),
            bytes=columns[5].astype(np.int64),
            ok=columns[6] != 0.0,
        )

    def throttled(self, start_s: float = 0.0, end_s: float = math.inf) -> dict[tuple[int, str], int]:
        """Error responses by (operation, error) answered in [start_s, end_s)."""
        counts: dict[tuple[int, str], int] = {}
        for t, lop, error, _ in self.errors:
            if start_s <= t < end_s:
                counts[lop, error] = counts.get((lop, error), 0) + 1
        return counts

    @property
    def billed_requests(self) -> dict[str, int]:
        """Requests sent so far by the price tables' operation names (retries included): billed where the
        provider bills every error answer (``billed_under`` takes its rule)."""
        return {op: n for op, n in zip(_PRICED_AS, self.billed, strict=True) if n}

    def billed_under(self, rule: ErrorResponses | None) -> dict[str, int]:
        """Requests billed so far by the price tables' operation names: every attempt, less the error answers
        ``rule`` does not bill (None: the rule is not stated, every attempt is billed)."""
        billed = list(self.billed)
        if rule is not None:
            for (code, error), count in self.error_attempts.items():
                status = error_status(error)
                if status is not None and not rule.bills(status):
                    billed[code] -= count
        return {op: n for op, n in zip(_PRICED_AS, billed, strict=True) if n}

    def unbilled_errors(self, rule: ErrorResponses | None) -> int:
        """Error answers ``rule`` does not bill (every attempt counted)."""
        if rule is None:
            return 0
        return sum(
            count
            for (_, error), count in self.error_attempts.items()
            if (status := error_status(error)) is not None and not rule.bills(status)
        )

    def summary(self, since: float | None = None, until: float | None = None) -> dict[str, OperationSummary]:
        """Figures per operation for the recorded operations that arrived in [since, until): by default from
        the store's first operation (not from t = 0: a store first used late in a model is measured from
        then) to the last end; percentiles over those that succeeded. Throughput is over the same span."""
        run = self.raw_run("summary")
        window = [
            None if value is None else real_number(value, name, low=-MAX_TIME_S, high=MAX_TIME_S, what="a time")
            for name, value in (("since", since), ("until", until))
        ]
        since, until = window
        start_s = float(run.t_arrival.min()) if since is None and run.t_arrival.size else float(since or 0.0)
        if until is not None and until <= start_s:
            raise InputError(f"summary: until {until!r} is not after since ({start_s!r})", field="until")
        counted_to = math.inf if until is None else float(until)  # errors and arrivals counted up to here
        end_s = float(max(run.t_end.max(initial=0.0), start_s + 1e-9)) if until is None else float(until)
        # delivered by the instant before the window: a body moved at once (nothing bounds it) as the window
        # opens is in it
        edges = np.array([math.nextafter(start_s, -math.inf), end_s])
        throttled = self.throttled(start_s, counted_to)
        out: dict[str, OperationSummary] = {}
        for code, name in enumerate(OPERATIONS):
            mine = (run.lop == code) & (run.t_arrival >= start_s) & (run.t_arrival < counted_to)
            if not mine.any():
                continue
            done = mine & run.ok
            latency = run.t_end[done] - run.t_arrival[done]
            ttfb = run.t_first[done] - run.t_arrival[done]
            moved = run.transfer_lop == code
            delivered = delivered_bytes(
                run.transfer_start[moved], run.transfer_end[moved], run.transfer_bytes[moved], edges
            )
            lat = np.percentile(latency, (50, 95, 99)).tolist() if latency.size else [math.nan] * 3
            first = np.percentile(ttfb, (50, 95, 99)).tolist() if ttfb.size else [math.nan] * 3
            out[name] = OperationSummary(
                operation=name,
                requests=int(mine.sum()),
                failed=int((mine & ~run.ok).sum()),
                throttled=sum(n for (lop, _), n in throttled.items() if lop == code),
                retries=sum(
                    1 for t, lop, _, retried in self.errors if retried and lop == code and start_s <= t < counted_to
                ),
                mean_latency_s=float(latency.mean()) if latency.size else math.nan,
                latency_p50_s=lat[0],
                latency_p95_s=lat[1],
                latency_p99_s=lat[2],
                mean_ttfb_s=float(ttfb.mean()) if ttfb.size else math.nan,
                ttfb_p50_s=first[0],
                ttfb_p95_s=first[1],
                ttfb_p99_s=first[2],
                throughput_bytes_per_s=float(delivered[1] - delivered[0]) / (end_s - start_s),
                sample_one_in=self.every,
                evidence={} if self.marks is None else self.marks(name, float(run.size[mine].mean())),
            )
        return out
