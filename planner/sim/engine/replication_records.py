"""What one replication recorded, as arrays for the statistics (``planner.sim.engine.core``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.sim.engine.requests import FloatArray, IntArray


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
    def recorded(
        cls,
        records: Sequence[float],
        transfers: Sequence[float],
        error_times: list[float],
        *,
        errors: dict[tuple[int, str], int],
        retries: list[int],
        billed: list[int],
        unfinished: int,
    ) -> RawRun:
        """A replication's flat record lists as arrays: ``records`` 7 numbers per request ended
        (operation, arrival, connection, first byte, end, size, ok; ok 2 for a whole-object GET whose
        record stands for its transfer too), ``transfers`` 4 per transfer (operation, start, end, bytes)."""
        # one contiguous array per field (a column of the flat records), which the statistics read faster
        requests = np.fromiter(records, np.float64, len(records)).reshape(-1, 7).T.copy()
        moves = np.fromiter(transfers, np.float64, len(transfers)).reshape(-1, 4).T
        # and the whole-object GETs whose records stand for their transfers too (ok 2)
        whole_gets = requests[6] == 2.0
        lop, start, end, nbytes = (
            np.concatenate([moves[field], requests[column][whole_gets]]) for field, column in enumerate((0, 3, 4, 5))
        )
        return cls(
            lop=requests[0].astype(np.int64),
            t_arrival=requests[1],
            t_conn=requests[2],
            t_first=requests[3],
            t_end=requests[4],
            size=requests[5],
            ok=requests[6] != 0.0,
            transfer_lop=lop.astype(np.int64),
            transfer_start=start,
            transfer_end=end,
            transfer_bytes=nbytes,
            error_time=np.array(error_times, dtype=np.float64),
            errors=errors,
            retries=retries,
            billed=billed,
            unfinished=unfinished,
            events=0,
        )

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
