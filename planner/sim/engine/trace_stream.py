"""Traces replayed in bounded memory: the CSV is read once, checked line by line, and its requests
kept on disk as fixed-size binary records; the simulator then reads them a stretch of time at a
time (``Replication.run_chunks``), carrying its state (requests in flight, queues, connections)
from one stretch to the next, so memory holds one stretch of requests however long the trace.

A trace must be in time order (``planner trace`` and ``ingest access-log --trace`` write it so):
a request before the one above it, a negative or unreadable byte count, an operation that is not
one a trace holds, or more requests than one machine replays, is refused with its line number.
Keys are numbered by a 55-bit hash of their text (``key_number``), the same on every machine, so
requests to one object share a number in every time window without a table of every key in memory.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import math
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO

import numpy as np

from planner.errors import InputError
from planner.files import MAX_LINE_BYTES, open_stream, text_lines
from planner.sim.spec import TraceArrivals

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
IntArray = np.ndarray[Any, np.dtype[np.int64]]

OPERATIONS = {"get": 0, "put": 1, "head": 2, "list": 3}
"""The operations the simulator models, by their codes."""
NOT_MODELLED = frozenset(
    {
        "delete",
        "copy",
        "create-multipart",
        "upload-part",
        "complete-multipart",
        "abort-multipart",
        "list-parts",
        "restore",
        "post",
        "unknown",
    }
)
"""Operations a trace may hold that the simulator does not model: counted, not replayed
(``unknown`` is what ``ingest access-log`` writes for a logged operation it cannot name)."""

RECORD = np.dtype([("t", "<f8"), ("op", "i1"), ("size", "<i8"), ("key", "<i8")])
"""A request on disk: 25 bytes (time from the trace's first request, operation code, bytes, key number)."""
INDEX_EVERY = 65_536
"""Every this many records, the time of one is kept in memory, to find a time with one short read."""
BLOCK_ROWS = 262_144
"""Rows read before they are written out as records: the reading's memory (about 30 MB)."""
MAX_ONE_MACHINE_REQUESTS = 50_000_000
"""Requests one machine replays: the most one replication simulates (``planner.sim.engine.core.check_size``);
a longer trace is replayed in time windows on a Dask cluster (``--dask``)."""
MAX_CLUSTER_REQUESTS = 1_000_000_000
"""Requests a trace replayed on a Dask cluster may hold: 25 GB of records on disk."""
MAX_TRACE_TIME_S = 1e12
"""Times (any origin) within 10^12 s of 0: Unix times in seconds or milliseconds fit, and the
replay's subtraction keeps microseconds."""
MAX_TRACE_BYTES = 5 * 2**40
"""S3's largest object, 5 TiB: no request moves more."""
_KEY_MEMO = 500_000


KEY_MODULUS = 2**55 - 55
"""A prime: a key's number is its UTF-8 bytes read as a base-256 number, modulo this (a polynomial
hash; for a hundred million distinct keys, one pair sharing a number is expected about once in seven
traces, and a shared number only merges two objects' per-key limits)."""


def key_number(key: str) -> int:
    """A key's number: ``KEY_MODULUS``'s polynomial hash of its bytes, the same in every process."""
    return int.from_bytes(key.encode("utf-8", "surrogatepass"), "big") % KEY_MODULUS


def key_numbers(offsets: IntArray, data: np.ndarray[Any, np.dtype[np.uint8]]) -> IntArray:
    """``key_number`` of each of many keys at once: key i is ``data[offsets[i]:offsets[i + 1]]``
    (an Arrow string array's buffers), hashed a byte position at a time over every key that long."""
    starts, lengths = offsets[:-1], np.diff(offsets)
    numbers = np.zeros(len(starts), dtype=np.int64)
    for position in range(int(lengths.max()) if len(lengths) else 0):
        longer = np.flatnonzero(lengths > position)
        step = numbers[longer] * 256 + data[starts[longer] + position]  # below 2^63: no overflow
        numbers[longer] = step % KEY_MODULUS
    return numbers


def _seconds(text: str, field: str) -> float:
    """A trace's time: finite, within ``MAX_TRACE_TIME_S`` of 0; ValueError naming the field otherwise."""
    if not text.strip():
        raise ValueError(f"{field} is empty")
    if len(text) > 40:
        raise ValueError(f"{field} {text[:20]!r}... is not a number of seconds")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{field} {text!r} is not a number of seconds") from None
    if not -MAX_TRACE_TIME_S <= value <= MAX_TRACE_TIME_S:  # NaN too
        raise ValueError(f"{field} {text!r} is not a time within 10^12 s of 0")
    return value


def _byte_count(text: str, field: str) -> int:
    """A trace's byte count: a whole number from 0 to 5 TiB (empty is 0); ValueError naming the field otherwise."""
    if not text.strip():
        return 0
    if len(text) > 20:
        raise ValueError(f"{field} {text[:20]!r}... is not a byte count from 0 to 5 TiB")
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{field} {text!r} is not a whole number of bytes") from None
    if value < 0:
        raise ValueError(f"{field} {text!r} is negative: a byte count is 0 or more")
    if value > MAX_TRACE_BYTES:
        raise ValueError(f"{field} {text!r} is more than 5 TiB, the largest object")
    return value


class StreamedTrace(TraceArrivals):
    """A trace kept on disk (``RECORD``s in ``spill``), read a stretch of time at a time.

    The view covers records ``first`` to ``stop`` of the file, its times shifted by ``offset_s`` (a
    time window starts at 0 wherever it lies in the trace); ``window_s`` is its span. Built by
    ``open_trace`` (never validated as a ``TraceArrivals``: its requests are not in memory)."""

    spill: str
    first: int
    stop: int
    offset_s: float
    window_s: float
    index_times: tuple[float, ...]
    largest_key: int
    scheduler: str | None = None
    """The Dask scheduler that replays it in time windows in parallel (``planner.sim.front.trace_windows``);
    None: this process replays it whole, a stretch at a time."""

    @property
    def requests(self) -> int:
        return self.stop - self.first

    @property
    def span_s(self) -> float:
        return self.window_s

    @property
    def key_count(self) -> int:
        return self.largest_key + 1

    @property
    def max_rate_per_s(self) -> float:
        return self.requests / self.span_s

    def expected_arrivals(self, start_s: float, end_s: float) -> float:
        return float(self.position(end_s) - self.position(start_s))

    def _read(self, start: int, count: int) -> np.ndarray[Any, np.dtype[np.void]]:
        with open(self.spill, "rb") as handle:
            records: np.ndarray[Any, np.dtype[np.void]] = np.fromfile(
                handle, dtype=RECORD, count=max(count, 0), offset=start * RECORD.itemsize
            )
        return records

    def position(self, at_s: float) -> int:
        """The first record of the view at or after ``at_s`` (view time); ``stop`` if none is."""
        stored = at_s + self.offset_s
        block = max(int(np.searchsorted(self.index_times, stored, side="left")) - 1, 0)
        start = max(block * INDEX_EVERY, self.first)
        times = self._read(start, min(INDEX_EVERY + 1, self.stop - start))["t"]
        found = start + int(np.searchsorted(times, stored, side="left"))
        return min(max(found, self.first), self.stop)

    def between(self, start_s: float, end_s: float) -> tuple[FloatArray, IntArray, IntArray, IntArray]:
        """The view's requests arriving in [start_s, end_s): times (view time), operations, bytes, keys."""
        lo, hi = self.position(start_s), self.position(end_s)
        records = self._read(lo, hi - lo)
        times: FloatArray = records["t"] - self.offset_s if self.offset_s else records["t"].astype(np.float64)
        return (
            times,
            records["op"].astype(np.int64),
            records["size"].astype(np.int64),
            records["key"].astype(np.int64),
        )

    def window(self, start_s: float, end_s: float) -> StreamedTrace:
        """The requests arriving in [start_s, end_s) of this view, as a view of their own from 0."""
        lo, hi = self.position(start_s), self.position(end_s)
        return self.model_copy(
            update={
                "first": lo,
                "stop": hi,
                "offset_s": self.offset_s + start_s,
                "window_s": end_s - start_s,
            }
        )

    def arrivals(self) -> TraceArrivals:
        """The view's requests in memory, as a ``TraceArrivals`` (a trace of a few million at most)."""
        times, ops, sizes, keys = self.between(-math.inf, math.inf)
        return TraceArrivals(
            times_s=tuple(times.tolist()),
            operations=tuple(ops.tolist()),
            sizes=tuple(sizes.tolist()),
            keys=tuple(keys.tolist()),
            source=self.source,
        )


@dataclasses.dataclass
class _Reading:
    """What the first pass over a trace finds besides its records."""

    count: int = 0
    first_s: float | None = None
    last_s: float = -math.inf
    last_text: str = ""
    whole_seconds: bool = True
    largest_key: int = 0
    skipped: Counter[str] = dataclasses.field(default_factory=Counter)
    index_times: list[float] = dataclasses.field(default_factory=list)


def _columns(header: list[str] | None, source: str) -> tuple[int, int, int, int | None, int | None]:
    names = [name.strip() for name in header or []]
    missing = {"time_s", "operation", "key"} - set(names)
    if missing:
        raise InputError(f"not a trace: no {', '.join(sorted(missing))} column", source=source)
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise InputError(f"line 1: the header names {', '.join(map(repr, twice))} twice", source=source)

    def at(name: str) -> int | None:
        return names.index(name) if name in names else None

    return (
        names.index("time_s"),
        names.index("operation"),
        names.index("key"),
        at("bytes_sent"),
        at("object_size"),
    )


def _scan(path: Path, spill: BinaryIO, limit: int, block_rows: int) -> _Reading:
    """Read the CSV once, checking each line, and write its replayed requests to ``spill``."""
    source = str(path)
    found = _Reading()
    memo: dict[str, int] = {}
    times: list[float] = []
    ops: list[int] = []
    sizes: list[int] = []
    keys: list[int] = []

    def flush() -> None:
        if found.first_s is None:
            return
        _write_block(found, spill, np.array(times), np.array(ops), np.array(sizes), np.array(keys, dtype=np.int64))
        times.clear()
        ops.clear()
        sizes.clear()
        keys.clear()

    with open_stream(path, what="CSV trace") as raw:
        reader = csv.reader(text_lines(raw, source=source, what="CSV trace"))
        try:
            header = next(reader, None)
            i_time, i_op, i_key, i_sent, i_size = _columns(header, source)
            width = len(header or [])
            last, last_text = -math.inf, ""
            for row in reader:
                if len(row) != width:
                    if not row:
                        continue
                    raise IndexError  # fewer fields than the header names, or more
                text = row[i_time]
                try:
                    t = float(text)
                except ValueError:
                    t = _seconds(text, "time_s")
                if not -MAX_TRACE_TIME_S <= t <= MAX_TRACE_TIME_S:
                    t = _seconds(text, "time_s")
                if t < last:
                    raise ValueError(f"time_s {text.strip()} is before the line above's {last_text}: out of time order")
                if t != last:
                    last, last_text = t, text.strip()
                name = row[i_op]
                op = OPERATIONS.get(name)
                if op is None:
                    if name in NOT_MODELLED:
                        found.skipped[name] += 1
                        continue
                    raise ValueError(
                        f"operation {name[:40]!r} is not one a trace holds (get, put, head, list, or"
                        " delete, copy and the multipart steps, which are counted, not replayed)"
                    )
                if found.count >= limit:
                    raise InputError(
                        f"line {reader.line_num}: more than {limit:,} requests, the most one machine replays (one"
                        " replication's limit): give --dask SCHEDULER to replay it in time windows on a cluster",
                        source=source,
                    )
                sent = 0 if i_sent is None else _count(row[i_sent], "bytes_sent")
                stored = 0 if i_size is None else _count(row[i_size], "object_size")
                size = (sent or stored) if op == 0 else stored if op == 1 else 0
                key = row[i_key]
                number = memo.get(key)
                if number is None:
                    if len(memo) >= _KEY_MEMO:
                        memo.clear()
                    number = memo[key] = key_number(key)
                if t != math.floor(t):
                    found.whole_seconds = False
                if found.first_s is None:
                    found.first_s = t
                found.count += 1
                times.append(t)
                ops.append(op)
                sizes.append(size)
                keys.append(number)
                if len(times) >= block_rows:
                    flush()
        except InputError:
            raise
        except IndexError:
            raise InputError(
                f"line {reader.line_num}: not as many fields as the header names ({width})", source=source
            ) from None
        except (ValueError, TypeError) as error:
            raise InputError(f"line {reader.line_num}: {' '.join(str(error).split())[:160]}", source=source) from None
        except csv.Error as error:
            raise InputError(
                f"line {reader.line_num}: not CSV ({' '.join(str(error).split())[:80]})", source=source
            ) from None
    flush()
    found.last_s = last
    return found


def _write_block(
    found: _Reading, spill: BinaryIO, times: FloatArray, ops: IntArray, sizes: IntArray, keys: IntArray
) -> None:
    """A block of requests (the last ``len(times)`` of ``found.count``) written out as records."""
    assert found.first_s is not None
    records = np.empty(len(times), dtype=RECORD)
    records["t"], records["op"], records["size"], records["key"] = times, ops, sizes, keys
    records["t"] -= found.first_s
    base = found.count - len(times)  # the block's first record
    found.index_times += records["t"][(-base) % INDEX_EVERY :: INDEX_EVERY].tolist()
    found.largest_key = max(found.largest_key, int(records["key"].max()))
    records.tofile(spill)


_DECIMAL = r"^[0-9]+(\.[0-9]*)?$|^-[0-9]+(\.[0-9]*)?$"
_WHOLE = r"^[0-9]{0,13}$"


def _scan_arrow(path: Path, spill: BinaryIO, limit: int) -> _Reading | None:
    """``_scan`` with pyarrow's CSV reader (the ``ingest`` extra), a block at a time, when every
    field is plain (times decimal numbers, byte counts whole numbers of up to 13 digits, operations
    known, no request past ``limit``): the same records, many times faster. None, with nothing
    decided, at the first field that is not plain: ``_scan`` then reads it, line by line, and names
    the line of anything wrong."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        from pyarrow import csv as pa_csv
    except ImportError:
        return None
    found = _Reading()
    codes = {**OPERATIONS, **dict.fromkeys(NOT_MODELLED, -1)}
    read = pa_csv.ReadOptions(block_size=ARROW_CHUNK_BYTES + MAX_LINE_BYTES, use_threads=False)
    last = -math.inf
    with open_stream(path, what="CSV trace") as raw:
        try:
            names = [name.strip() for name in raw.readline(MAX_LINE_BYTES).decode("utf-8-sig").split(",")]
            if not {"time_s", "operation", "key"} <= set(names) or len(set(names)) < len(names):
                return None
            wanted = [name for name in ("time_s", "operation", "key", "bytes_sent", "object_size") if name in names]
            convert = pa_csv.ConvertOptions(
                column_types=dict.fromkeys(wanted, pa.string()), include_columns=wanted, strings_can_be_null=False
            )
            for batch in _arrow_batches(raw, ",".join(names).encode() + b"\n", read, convert):
                if not batch.num_rows:
                    continue
                stamps = batch.column("time_s")
                if not pc.all(pc.match_substring_regex(stamps, _DECIMAL)).as_py():
                    return None
                times = pc.cast(stamps, pa.float64()).to_numpy()
                if np.any(np.abs(times) > MAX_TRACE_TIME_S) or times[0] < last or np.any(np.diff(times) < 0):
                    return None
                last = float(times[-1])
                operations = batch.column("operation").dictionary_encode()
                mapped = np.array(
                    [codes.get(str(name), -2) for name in operations.dictionary.to_pylist()], dtype=np.int64
                )
                if np.any(mapped == -2):
                    return None
                op = mapped[operations.indices.to_numpy()] if len(mapped) else np.empty(0, dtype=np.int64)
                counted = [pc.cast(batch.column(c), pa.string()) for c in ("bytes_sent", "object_size") if c in names]
                figures = []
                for column in counted:
                    if not pc.all(pc.match_substring_regex(column, _WHOLE)).as_py():
                        return None
                    number = pc.cast(pc.if_else(pc.equal(column, ""), "0", column), pa.int64()).to_numpy()
                    if np.any(number > MAX_TRACE_BYTES):
                        return None
                    figures.append(number)
                sent = figures[0] if "bytes_sent" in names else np.zeros(len(op), dtype=np.int64)
                stored = figures[-1] if "object_size" in names else np.zeros(len(op), dtype=np.int64)
                kept = op >= 0
                if (~kept).any():
                    skipped_names = np.asarray(operations.dictionary.to_pylist(), dtype=object)[
                        operations.indices.to_numpy()[~kept]
                    ]
                    found.skipped.update(skipped_names.tolist())
                if found.count + int(kept.sum()) > limit:
                    return None
                op = op[kept]
                if not len(op):
                    continue
                keys = batch.column("key").filter(pa.array(kept)).dictionary_encode()
                numbers = _arrow_key_numbers(keys.dictionary)
                t = times[kept]
                size = np.where(
                    op == 0, np.where(sent[kept] > 0, sent[kept], stored[kept]), np.where(op == 1, stored[kept], 0)
                )
                if found.first_s is None:
                    found.first_s = float(t[0])
                found.whole_seconds = found.whole_seconds and bool(np.all(t == np.floor(t)))
                found.count += len(op)
                _write_block(found, spill, t, op, size, numbers[keys.indices.to_numpy()])
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, ValueError, KeyError):
            return None
    found.last_s = last
    return found


ARROW_CHUNK_BYTES = 8 * 2**20
"""CSV handed to Arrow at a time: its streaming reader reads ahead as fast as it can parse, which a
slower consumer lets grow to most of the file (850 MB for 20 million lines, measured)."""


def _arrow_batches(raw: IO[bytes], header: bytes, read: Any, convert: Any) -> Iterator[Any]:
    """The record batches of the rest of ``raw``, about ``ARROW_CHUNK_BYTES`` of whole lines at a time."""
    from pyarrow import csv as pa_csv

    while True:
        chunk = raw.read(ARROW_CHUNK_BYTES)
        if not chunk:
            return
        if not chunk.endswith(b"\n"):
            chunk += raw.readline(MAX_LINE_BYTES)  # to the end of the line (a quoted newline: Arrow refuses it)
        yield from pa_csv.read_csv(io.BytesIO(header + chunk), read_options=read, convert_options=convert).to_batches()


def _arrow_key_numbers(keys: Any) -> IntArray:
    """``key_numbers`` of an Arrow string array (no nulls), from its offsets and bytes."""
    import pyarrow as pa

    keys = keys.cast(pa.large_string())  # 64-bit offsets
    _, offset_buffer, data_buffer = keys.buffers()
    offsets = np.frombuffer(offset_buffer, dtype=np.int64)[keys.offset : keys.offset + len(keys) + 1]
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, dtype=np.uint8)
    return key_numbers(offsets, data)


def _count(text: str, field: str) -> int:
    """A byte count, quickly when it is a plain whole number in range."""
    if not text:
        return 0
    try:
        value = int(text)
    except ValueError:
        return _byte_count(text, field)
    if not 0 <= value <= MAX_TRACE_BYTES:
        return _byte_count(text, field)
    return value


def _spread_seconds(spill: str, count: int, block_rows: int) -> list[float]:
    """Spread each second's requests evenly across it, in place (a trace of whole seconds: access
    logs), a block at a time; the index's times, again."""
    index: list[float] = []
    with open(spill, "r+b") as handle:
        start = 0
        rows = block_rows
        while start < count:
            handle.seek(start * RECORD.itemsize)
            records = np.fromfile(handle, dtype=RECORD, count=min(rows, count - start))
            stamps = records["t"]
            end = start + len(records)
            if end < count:  # the last second may go on in the next block: leave it for then
                whole = int(np.searchsorted(stamps, stamps[-1], side="left"))
                if whole == 0:  # one second of more requests than a block: read a longer block
                    rows *= 2
                    continue
                records, stamps, end = records[:whole], stamps[:whole], start + whole
            rows = block_rows
            _, first, counts = np.unique(stamps, return_index=True, return_counts=True)
            within = np.arange(len(stamps)) - np.repeat(first, counts)
            records["t"] = stamps + within / np.repeat(counts, counts)
            handle.seek(start * RECORD.itemsize)
            records.tofile(handle)
            index += records["t"][(-start) % INDEX_EVERY :: INDEX_EVERY].tolist()
            start = end
    return index


@contextlib.contextmanager
def open_trace(
    path: Path,
    *,
    limit: int = MAX_ONE_MACHINE_REQUESTS,
    spill_dir: Path | None = None,
    block_rows: int = BLOCK_ROWS,
) -> Iterator[tuple[StreamedTrace, list[str]]]:
    """A trace file (CSV, or CSV compressed with gzip, bzip2 or zstd) read once into records on
    disk (``spill_dir``, default the temporary folder; removed on leaving), as a ``StreamedTrace`` to
    replay, and notes on what the reading had to decide. Memory holds ``block_rows`` rows at a time."""
    descriptor, spill = tempfile.mkstemp(prefix="planner-trace-", suffix=".records", dir=spill_dir)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            fast = _scan_arrow(path, handle, limit) if block_rows == BLOCK_ROWS else None
            if fast is None:  # a field that is not plain, or no pyarrow: line by line, naming any bad line
                handle.seek(0)
                handle.truncate()
            found = fast or _scan(path, handle, limit, block_rows)
        if not found.count:
            raise InputError("the trace holds no GET, PUT, HEAD or LIST", source=str(path))
        notes = []
        index = found.index_times
        last_s = found.last_s - (found.first_s or 0.0)
        if found.whole_seconds and found.count > 1:
            index = _spread_seconds(spill, found.count, block_rows)
            notes.append("the trace's times are whole seconds: each second's requests are spread evenly across it")
            with open(spill, "rb") as handle:
                last_s = float(
                    np.fromfile(handle, dtype=RECORD, count=1, offset=(found.count - 1) * RECORD.itemsize)["t"][0]
                )
        if found.skipped:
            listed = ", ".join(f"{name} x{count:,}" for name, count in found.skipped.most_common(5))
            notes.append(f"not replayed (the simulator models GET, PUT, HEAD and LIST): {listed}")
        trace = StreamedTrace.model_construct(
            times_s=(),
            operations=(),
            sizes=(),
            keys=(),
            source=f"trace {path.name}",
            spill=spill,
            first=0,
            stop=found.count,
            offset_s=0.0,
            window_s=max(last_s, 1.0) if found.count > 1 else 1.0,
            index_times=tuple(index),
            largest_key=found.largest_key,
        )
        yield trace, notes
    finally:
        with contextlib.suppress(OSError):
            os.unlink(spill)
