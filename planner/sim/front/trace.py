"""Request traces: read one for replay (``simulate --trace``), or generate one from a workload.

A trace is CSV with a header: ``time_s`` (seconds, any origin: replay starts at the first),
``operation`` (get, put, head, list; delete, copy and the multipart steps are counted and skipped;
any other is refused), ``key``,
``bytes_sent`` and ``object_size`` (a GET moves ``bytes_sent``, or the object when that is 0; a
PUT writes ``object_size``), and optionally ``ranged`` and ``status``. ``planner ingest
access-log --trace`` writes one from S3 access logs, whose times have one-second resolution: the
requests of one second are spread evenly across it, and the replay says so. Rows are in time
order; ``planner.sim.engine.trace_stream`` reads them in bounded memory.

``generate`` draws a workload's peak window with the simulator's own request source, so a
generated trace holds the requests a direct simulation of the workload would draw.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import numpy as np

from planner.errors import InputError
from planner.sim.engine import OPERATIONS, FloatArray, IntArray, RequestSource, open_trace
from planner.sim.spec import OpenLoop, SimSpec, TraceArrivals

_NAMES = {code: name for name, code in OPERATIONS.items()}
MAX_TRACE_REQUESTS = 100_000_000
"""A generated trace is drawn and written a stretch of about ``DRAW_REQUESTS`` at a time, so its
memory does not grow with its length; 10^8 requests are about 4.5 GB of CSV."""
DRAW_REQUESTS = 1_000_000
MAX_REPLAY_REQUESTS = 5_000_000
"""A trace read whole into memory (``read_trace``, a ``TraceArrivals`` of Python tuples): peak RSS
553 MB for 2 million requests and 1.14 GB for 4.9 million (measured). ``simulate --trace`` streams
instead (``planner.sim.engine.trace_stream``), in memory that does not grow with the trace."""


def read_trace(path: Path, *, limit: int = MAX_REPLAY_REQUESTS) -> tuple[TraceArrivals, list[str]]:
    """A trace file (CSV, or CSV compressed with gzip, bzip2 or zstd) read whole into memory as
    arrivals to replay, and notes on what the reading had to decide: the requests
    ``planner.sim.engine.trace_stream.open_trace`` streams, the same numbers, held at once."""
    with open_trace(path, limit=limit) as (trace, notes):
        return trace.arrivals(), notes


@dataclasses.dataclass(frozen=True)
class DrawnTrace:
    """A drawn trace as arrays (8 bytes a figure): what ``write_trace`` writes, without the
    Python objects a ``TraceArrivals`` holds."""

    times_s: FloatArray
    operations: IntArray
    sizes: IntArray
    keys: IntArray
    source: str

    def __len__(self) -> int:
        return len(self.times_s)

    def arrivals(self) -> TraceArrivals:
        return TraceArrivals(
            times_s=tuple(self.times_s.tolist()),
            operations=tuple(self.operations.tolist()),
            sizes=tuple(self.sizes.tolist()),
            keys=tuple(self.keys.tolist()),
            source=self.source,
        )


def draw(spec: SimSpec, duration_s: float, seed: int) -> DrawnTrace:
    """``duration_s`` of the spec's open loop, drawn as the simulator draws it (hot objects become
    keys after the others), as arrays."""
    if not isinstance(spec.arrivals, OpenLoop):
        raise InputError("only an open loop (a rate of arrivals) can be written as a trace", field="traffic")
    if spec.arrivals.max_rate_per_s * duration_s > MAX_TRACE_REQUESTS:
        raise InputError(
            f"{duration_s:g} s at {spec.arrivals.max_rate_per_s:.6g}/s is more than {MAX_TRACE_REQUESTS:,}"
            " requests expected: give a shorter --duration",
            source="--duration",
        )
    source = RequestSource(spec, np.random.default_rng(seed))
    times = source.arrival_times(spec.arrivals, 0.0, duration_s)
    lops, sizes, keys = source.requests(len(times))
    keys = np.where(keys < 0, spec.keys.keys - 1 - keys, keys)  # hot object h: key count + h
    return DrawnTrace(times, lops, sizes, keys, f"generated trace (seed {seed})")


def draw_stretches(spec: SimSpec, duration_s: float, seed: int) -> Iterator[DrawnTrace]:
    """``draw``'s trace a stretch of about ``DRAW_REQUESTS`` requests at a time, from one request
    source (a window of one stretch is ``draw``'s own), so memory holds one stretch."""
    if not isinstance(spec.arrivals, OpenLoop):
        raise InputError("only an open loop (a rate of arrivals) can be written as a trace", field="traffic")
    rate = spec.arrivals.max_rate_per_s
    if rate * duration_s <= DRAW_REQUESTS:
        yield draw(spec, duration_s, seed)
        return
    if rate * duration_s > MAX_TRACE_REQUESTS:
        draw(spec, duration_s, seed)  # refuses it
    source = RequestSource(spec, np.random.default_rng(seed))
    stretch_s = DRAW_REQUESTS / rate
    start = 0.0
    while start < duration_s:
        end = min(duration_s, start + stretch_s)
        times = source.arrival_times(spec.arrivals, start, end)
        lops, sizes, keys = source.requests(len(times))
        keys = np.where(keys < 0, spec.keys.keys - 1 - keys, keys)
        yield DrawnTrace(times, lops, sizes, keys, f"generated trace (seed {seed})")
        start = end


def generate(spec: SimSpec, duration_s: float, seed: int) -> TraceArrivals:
    """``duration_s`` of the spec's open loop, drawn as the simulator draws it, to replay."""
    return draw(spec, duration_s, seed).arrivals()


def write_trace(trace: TraceArrivals | DrawnTrace, handle: IO[str], *, header: bool = True) -> None:
    """The trace as CSV, in the format ``read_trace`` reads, written a block of rows at a time
    (``header=False``: rows to follow those of an earlier stretch)."""
    if header:
        handle.write("time_s,operation,key,bytes_sent,object_size\n")
    times = np.asarray(trace.times_s, dtype=np.float64)
    ops = np.asarray(trace.operations, dtype=np.int64)
    sizes = np.asarray(trace.sizes, dtype=np.int64)
    keys = np.asarray(trace.keys, dtype=np.int64)
    block = 100_000
    for start in range(0, len(times), block):
        stop = start + block
        part_ops = ops[start:stop]
        part_sizes = sizes[start:stop]
        rows = zip(
            times[start:stop].tolist(),
            part_ops.tolist(),
            keys[start:stop].tolist(),
            np.where(part_ops == 0, part_sizes, 0).tolist(),
            np.where(part_ops == 1, part_sizes, 0).tolist(),
            strict=True,
        )
        handle.write("".join(f"{t:.6f},{_NAMES[op]},k{key},{sent},{stored}\n" for t, op, key, sent, stored in rows))


def replay_window_s(trace: TraceArrivals) -> float:
    """The replayed window: the trace's span, in whole milliseconds above its last arrival."""
    return math.ceil(trace.span_s * 1000 + 1) / 1000
