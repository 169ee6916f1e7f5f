"""What the replication's event loop moves: a part (one HTTP request and its retries) as a plain
list of fields, cheaper to make and read than an object; the steps a part takes; and the record
of a logical operation split into several parts (a ranged GET, a multipart upload)."""

from __future__ import annotations

from typing import Any

# A part (one HTTP request and its retries) is a list with these fields: cheaper to make and
# read than an object. A whole-object request is a single part with no ``Request``.
(
    P_STEP,  # what happens when it leaves the heap (one of the steps below)
    P_LOP,  # logical operation
    P_BILLED,  # billed operation
    P_KEY,
    P_NBYTES,  # body bytes (0 for HEAD, LIST, create and complete)
    P_ARRIVAL,
    P_CONN,  # first time it held a connection (-1 before)
    P_FIRST,  # time of its first byte (-1 before)
    P_TRANSFER,  # when its body started moving
    P_ATTEMPT,
    P_RANGE,  # index of its range in a ranged GET
    P_HOT,  # its id in ``hot_counts`` (range << 62 | key) while counted there, else -1
    P_REQUEST,  # the split operation it belongs to, or None
    P_ERROR,  # the rejection it is answered with
    P_LATENCY,  # its first attempt's latency (a GET's first byte, an upload's response), drawn when it
    # arrived (-1: draw it when needed; a rejection resets it, so a retry draws its own)
) = range(15)
Part = list[Any]

# Steps, the values of ``P_STEP``; ticks (a hot burst, a worker's think time) are one-field parts.
FIRST_BYTE, RESPONSE, ERROR, RETRY, THINK, BURST = range(6)


def new_part(  # written out in ``Replication._issue`` for a whole-object request
    lop: int, billed: int, key: int, nbytes: int, now: float, request: Request | None, latency: float = -1.0
) -> Part:
    return [RESPONSE, lop, billed, key, nbytes, now, -1.0, -1.0, now, 1, 0, -1, request, "", latency]


class Request:
    """A logical operation split into several requests (ranged GET, multipart upload)."""

    __slots__ = (
        "attempts",
        "completing",
        "failed",
        "key",
        "key_id",
        "lop",
        "outstanding",
        "parts",
        "queued",
        "size",
        "split",
        "t_arrival",
        "t_conn",
        "t_first",
    )

    def __init__(self, lop: int, key: int, size: int, now: float) -> None:
        self.lop, self.size, self.t_arrival = lop, size, now
        self.key: str | int = key  # the application's key (the store's: a string or a whole number)
        self.key_id = key  # the id the provider's checks see (the store's keys are strings; their ids ints)
        self.split = True  # a ranged GET or a multipart upload (a store's whole-object operation: False)
        self.attempts = 0  # requests the provider saw: every part's attempts
        self.parts = 1  # requests the operation is made of (a multipart upload's: Create, its parts, Complete)
        self.t_conn = -1.0
        self.t_first = -1.0
        self.outstanding = 0
        self.failed = False
        self.completing = False
        self.queued: list[int] = []  # part sizes a multipart upload has yet to send
