"""Request traces: read one for replay (``simulate --trace``), or generate one from a workload.

A trace is CSV with a header: ``time_s`` (seconds, any origin: replay starts at the first),
``operation`` (get, put, head, list; other operations are counted and skipped), ``key``,
``bytes_sent`` and ``object_size`` (a GET moves ``bytes_sent``, or the object when that is 0; a
PUT writes ``object_size``), and optionally ``ranged`` and ``status``. ``planner ingest
access-log --trace`` writes one from S3 access logs, whose times have one-second resolution: the
requests of one second are spread evenly across it, and the replay says so.

``generate`` draws a workload's peak window with the simulator's own request source, so a
generated trace holds the requests a direct simulation of the workload would draw.
"""

from __future__ import annotations

import array
import csv
import dataclasses
import math
from collections import Counter
from pathlib import Path
from typing import IO

import numpy as np

from planner.errors import InputError
from planner.files import open_stream, text_lines
from planner.sim.requests import FloatArray, IntArray, RequestSource
from planner.sim.spec import OpenLoop, SimSpec, TraceArrivals

_OPS = {"get": 0, "put": 1, "head": 2, "list": 3}
_NAMES = {code: name for name, code in _OPS.items()}
MAX_TRACE_REQUESTS = 20_000_000
"""A generated trace is drawn as arrays of 32 bytes a request: 20 million take under 1 GB (peak RSS
of ``planner trace``, measured: 173 MB for 2 million requests, 292 MB for 4.9 million)."""
MAX_REPLAY_REQUESTS = 5_000_000
"""A replay (``simulate --trace``) holds its trace and its simulated requests: peak RSS 553 MB for
2 million requests and 1.14 GB for 4.9 million (measured), so 5 million stay inside 2 GB where
the 20 million documented before took 6.5 GB."""


MAX_TRACE_TIME_S = 1e12
"""Times (any origin) within 10^12 s of 0: Unix times in seconds or milliseconds fit, and the
replay's subtraction keeps microseconds."""
MAX_TRACE_BYTES = 5 * 2**40
"""S3's largest object, 5 TiB: no request moves more."""


def _seconds(text: str | None, field: str) -> float:
    """A trace's time: finite, within ``MAX_TRACE_TIME_S`` of 0; ValueError naming the field otherwise."""
    if text is None or not text.strip():
        raise ValueError(f"{field} is empty")
    if len(text) > 40:
        raise ValueError(f"{field} {text[:20]!r}... is not a number of seconds")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{field} {text!r} is not a number of seconds") from None
    if not math.isfinite(value) or abs(value) > MAX_TRACE_TIME_S:
        raise ValueError(f"{field} {text!r} is not a time within 10^12 s of 0")
    return value


def _byte_count(text: str | None, field: str) -> int:
    """A trace's byte count: a whole number from 0 to 5 TiB (empty is 0); ValueError naming the field otherwise."""
    if text is None or not text.strip():
        return 0
    if len(text) > 20:
        raise ValueError(f"{field} {text[:20]!r}... is not a byte count from 0 to 5 TiB")
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{field} {text!r} is not a whole number of bytes") from None
    if not 0 <= value <= MAX_TRACE_BYTES:
        raise ValueError(f"{field} {text!r} is not a byte count from 0 to 5 TiB")
    return value


def read_trace(path: Path) -> tuple[TraceArrivals, list[str]]:
    """A trace file (CSV, or CSV compressed with gzip, bzip2 or zstd) as arrivals to replay, and notes
    on what the reading had to decide. Columns are read into typed arrays (8 bytes a figure), so the
    memory of the reading grows with the requests kept; a byte-order mark is accepted."""
    source = str(path)
    times = array.array("d")
    ops = array.array("b")
    sizes = array.array("q")
    keys = array.array("q")
    key_ids: dict[str, int] = {}
    skipped: Counter[str] = Counter()
    with open_stream(path, what="CSV trace") as raw:
        reader = csv.DictReader(text_lines(raw, source=source, what="CSV trace"))
        try:
            missing = {"time_s", "operation", "key"} - set(reader.fieldnames or [])
            if missing:
                raise InputError(f"not a trace: no {', '.join(sorted(missing))} column", source=source)
            for row in reader:
                op = _OPS.get(row["operation"])
                if op is None:
                    skipped[str(row["operation"])[:40]] += 1
                    continue
                if len(times) >= MAX_REPLAY_REQUESTS:
                    raise InputError(
                        f"more than {MAX_REPLAY_REQUESTS:,} requests, the most a replay holds within 2 GB of"
                        " memory: replay a shorter stretch of it",
                        source=source,
                    )
                sent, size = (
                    _byte_count(row.get("bytes_sent"), "bytes_sent"),
                    _byte_count(row.get("object_size"), "object_size"),
                )
                times.append(_seconds(row["time_s"], "time_s"))
                ops.append(op)
                sizes.append((sent or size) if op == 0 else size if op == 1 else 0)
                keys.append(key_ids.setdefault(str(row["key"]), len(key_ids)))
        except (ValueError, KeyError, TypeError) as error:
            raise InputError(f"line {reader.line_num}: {' '.join(str(error).split())[:120]}", source=source) from None
        except csv.Error as error:
            raise InputError(f"not a CSV trace ({' '.join(str(error).split())[:80]})", source=source) from None
    del key_ids
    if not times:
        raise InputError("the trace holds no GET, PUT, HEAD or LIST", source=source)
    recorded = np.frombuffer(times, dtype=np.float64)
    order = np.argsort(recorded, kind="stable")
    stamp = recorded[order]
    notes = []
    if np.all(stamp == np.floor(stamp)) and len(stamp) > 1:
        # one-second resolution (access logs): spread each second's requests evenly across it
        _, first, counts = np.unique(stamp, return_index=True, return_counts=True)
        within = np.arange(len(stamp)) - np.repeat(first, counts)
        stamp = stamp + within / np.repeat(counts, counts)
        notes.append("the trace's times are whole seconds: each second's requests are spread evenly across it")
    stamp = stamp - stamp[0]
    if skipped:
        listed = ", ".join(f"{name} x{count:,}" for name, count in skipped.most_common(5))
        notes.append(f"not replayed (the simulator models GET, PUT, HEAD and LIST): {listed}")
    arrivals = TraceArrivals(
        times_s=tuple(stamp.tolist()),
        operations=tuple(np.frombuffer(ops, dtype=np.int8)[order].tolist()),
        sizes=tuple(np.frombuffer(sizes, dtype=np.int64)[order].tolist()),
        keys=tuple(np.frombuffer(keys, dtype=np.int64)[order].tolist()),
        source=f"trace {path.name}",
    )
    return arrivals, notes


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
            f"{duration_s:g} s at {spec.arrivals.max_rate_per_s:.6g}/s is more than {MAX_TRACE_REQUESTS:,} requests:"
            " give a shorter --duration",
            source="--duration",
        )
    source = RequestSource(spec, np.random.default_rng(seed))
    times = source.arrival_times(spec.arrivals, 0.0, duration_s)
    lops, sizes, keys = source.requests(len(times))
    keys = np.where(keys < 0, spec.keys.keys - 1 - keys, keys)  # hot object h: key count + h
    return DrawnTrace(times, lops, sizes, keys, f"generated trace (seed {seed})")


def generate(spec: SimSpec, duration_s: float, seed: int) -> TraceArrivals:
    """``duration_s`` of the spec's open loop, drawn as the simulator draws it, to replay."""
    return draw(spec, duration_s, seed).arrivals()


def write_trace(trace: TraceArrivals | DrawnTrace, handle: IO[str]) -> None:
    """The trace as CSV, in the format ``read_trace`` reads, written a block of rows at a time."""
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
