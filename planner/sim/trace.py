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

import csv
import io
import math
from collections import Counter
from pathlib import Path
from typing import IO

import numpy as np

from planner.errors import InputError
from planner.sim.requests import RequestSource
from planner.sim.spec import OpenLoop, SimSpec, TraceArrivals

_OPS = {"get": 0, "put": 1, "head": 2, "list": 3}
_NAMES = {code: name for name, code in _OPS.items()}
MAX_TRACE_REQUESTS = 20_000_000
"""A replay holds its trace in memory: about 50 bytes a request once read."""


def read_trace(path: Path) -> tuple[TraceArrivals, list[str]]:
    """A trace file as arrivals to replay, and notes on what the reading had to decide."""
    from planner.files import check_input_file

    source = str(path)
    check_input_file(path, what="trace")
    times: list[float] = []
    ops: list[int] = []
    sizes: list[int] = []
    keys: list[int] = []
    key_ids: dict[str, int] = {}
    skipped: Counter[str] = Counter()
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = {"time_s", "operation", "key"} - set(reader.fieldnames or [])
            if missing:
                raise InputError(f"not a trace: no {', '.join(sorted(missing))} column", source=source)
            for row in reader:
                op = _OPS.get(row["operation"])
                if op is None:
                    skipped[row["operation"]] += 1
                    continue
                if len(times) >= MAX_TRACE_REQUESTS:
                    raise InputError(
                        f"more than {MAX_TRACE_REQUESTS:,} requests: replay a shorter stretch of it", source=source
                    )
                sent, size = int(row.get("bytes_sent") or 0), int(row.get("object_size") or 0)
                times.append(float(row["time_s"]))
                ops.append(op)
                sizes.append((sent or size) if op == 0 else size if op == 1 else 0)
                keys.append(key_ids.setdefault(row["key"], len(key_ids)))
    except (ValueError, KeyError) as error:
        raise InputError(f"line {reader.line_num}: {' '.join(str(error).split())[:80]}", source=source) from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise InputError(f"not a CSV trace ({' '.join(str(error).split())[:80]})", source=source) from None
    if not times:
        raise InputError("the trace holds no GET, PUT, HEAD or LIST", source=source)
    order = np.argsort(np.asarray(times), kind="stable")
    stamp = np.asarray(times)[order]
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
        operations=tuple(np.asarray(ops)[order].tolist()),
        sizes=tuple(np.asarray(sizes)[order].tolist()),
        keys=tuple(np.asarray(keys)[order].tolist()),
        source=f"trace {path.name}",
    )
    return arrivals, notes


def generate(spec: SimSpec, duration_s: float, seed: int) -> TraceArrivals:
    """``duration_s`` of the spec's open loop, drawn as the simulator draws it (hot objects become
    keys after the others)."""
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
    return TraceArrivals(
        times_s=tuple(times.tolist()),
        operations=tuple(lops.tolist()),
        sizes=tuple(sizes.tolist()),
        keys=tuple(keys.tolist()),
        source=f"generated trace (seed {seed})",
    )


def write_trace(trace: TraceArrivals, handle: IO[str]) -> None:
    """The trace as CSV, in the format ``read_trace`` reads."""
    handle.write("time_s,operation,key,bytes_sent,object_size\n")
    buffer = io.StringIO()
    for t, op, size, key in zip(trace.times_s, trace.operations, trace.sizes, trace.keys, strict=True):
        sent = size if op == 0 else 0
        stored = size if op == 1 else 0
        buffer.write(f"{t:.6f},{_NAMES[op]},k{key},{sent},{stored}\n")
        if buffer.tell() > 1 << 20:
            handle.write(buffer.getvalue())
            buffer = io.StringIO()
    handle.write(buffer.getvalue())


def replay_window_s(trace: TraceArrivals) -> float:
    """The replayed window: the trace's span, in whole milliseconds above its last arrival."""
    return math.ceil(trace.span_s * 1000 + 1) / 1000
