"""Access logs and bills read in memory that does not grow with them, and an access log's trace
written in time order however its files interleave."""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.ingest import accesslog, bill
from planner.ingest.accesslog import read_logs
from planner.sim.engine.trace_stream import open_trace

from .test_accesslog import START, _line
from .test_ingest import _row, _write_cur2


def _log(path: Path, seconds: Iterator[int], keys: int = 1000) -> int:
    """A log file of GETs at ``seconds`` after START, a key each from ``keys``; how many lines."""
    count = 0
    with path.open("w") as handle:
        for count, second in enumerate(seconds, start=1):
            t = START + dt.timedelta(seconds=second)
            handle.write(_line(t, "REST.GET.OBJECT", f"k/{count % keys}", 200, 500, 500, 9, "app") + "\n")
    return count


def test_an_access_log_trace_is_in_time_order_across_files_and_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(accesslog, "RUN_ROWS", 7)  # half a million, scaled down: sorted runs on disk, merged
    logs = tmp_path / "logs"
    logs.mkdir()
    # S3 delivers a stretch of time in many files: the later file holds the earlier requests
    _log(logs / "a", iter([50, 51, 51, 52, 60, 61, 62, 63, 64, 65]))
    _log(logs / "b", iter([10, 11, 12, 40, 41, 51, 70]))
    trace = io.StringIO()
    read_logs([logs], trace=trace)
    rows = list(csv.DictReader(io.StringIO(trace.getvalue())))
    seconds = [int(row["time_s"]) - int(START.timestamp()) for row in rows]
    assert seconds == [10, 11, 12, 40, 41, 50, 51, 51, 51, 52, 60, 61, 62, 63, 64, 65, 70]
    # within second 51, the order read: a's two, then b's
    assert [row["key"] for row in rows[6:9]] == ["k/2", "k/3", "k/6"]
    (tmp_path / "t.csv").write_text(trace.getvalue())
    with open_trace(tmp_path / "t.csv") as (replay, notes):
        assert replay.requests == 17 and "whole seconds" in notes[0]


def _peak_bytes(lines: int, path: Path, trace: bool) -> int:
    _log(path, iter(i * 600 // lines for i in range(lines)))  # ten minutes, every second of them
    tracemalloc.start()
    try:
        with open(os.devnull, "w") as nowhere:
            log = read_logs([path], trace=nowhere if trace else None)
        assert log.requests["get"] == lines
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_reading_an_access_log_holds_a_bounded_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accesslog, "RUN_ROWS", 500)  # the trace's rows in memory at once, scaled down
    monkeypatch.setattr(accesslog, "PAIR_LIMIT", 1000)  # a million (key, second) counts, scaled down
    small = _peak_bytes(1_000, tmp_path / "small", trace=False)
    large = _peak_bytes(10_000, tmp_path / "large", trace=False)  # ten times the lines, the same keys and seconds
    assert large < 1.5 * small, (small, large)
    # the trace: a run of 500 rows in memory, and a read buffer for each of the 20 runs merged (not their rows)
    traced = _peak_bytes(10_000, tmp_path / "traced", trace=True)
    assert traced - large < 20 * 80_000 + 500 * 300, (large, traced)


def _bill(path: Path, buckets: int) -> None:
    """A CUR 2.0 export of ``buckets`` buckets, each with storage and GETs on two rows of storage
    (the rows of one bucket far apart: the second half repeats the first)."""
    rows = []
    for half in range(2):
        for b in range(buckets):
            rows.append(_row("TimedStorage-ByteHrs", "StandardStorage", "512", "11.776", line_item_resource_id=f"b{b}"))
            if half:
                rows.append(_row("Requests-Tier2", "GetObject", "1000", "0.0004", line_item_resource_id=f"b{b}"))
    _write_cur2(path, rows)


def test_a_bill_read_in_parts_writes_what_the_whole_bill_writes(
    run_cli,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _bill(tmp_path / "cur.csv.gz", 60)
    whole = run_cli("ingest", "cur", str(tmp_path / "cur.csv.gz"), "--out", str(tmp_path / "whole"))
    monkeypatch.setattr(bill, "MAX_GROUPS", 25)  # 200,000, scaled down: 120 groups are written out 4 times
    monkeypatch.setattr(bill, "PARTS", 7)
    parts = run_cli("ingest", "cur", str(tmp_path / "cur.csv.gz"), "--out", str(tmp_path / "parts"))
    assert whole.code == parts.code == 0, parts.err
    assert parts.out.splitlines()[0] == whole.out.splitlines()[0]
    assert parts.out.splitlines()[0].startswith("read 120 S3 usage groups from 1 file")
    assert sorted(parts.out.splitlines()[1:]) == sorted(whole.out.replace("/whole/", "/parts/").splitlines()[1:])
    written = sorted(p.name for p in (tmp_path / "parts").iterdir())
    assert written == sorted(p.name for p in (tmp_path / "whole").iterdir()) and len(written) == 60
    for name in written:
        assert (tmp_path / "parts" / name).read_text() == (tmp_path / "whole" / name).read_text()
    # all or none: a part whose file exists already stops the whole bill, and nothing is written
    (tmp_path / "parts" / "b7.yaml").unlink()
    again = run_cli("ingest", "cur", str(tmp_path / "cur.csv.gz"), "--out", str(tmp_path / "parts"))
    assert again.code == 2 and "--force" in again.err and not (tmp_path / "parts" / "b7.yaml").exists()


def _bill_peak(path: Path, buckets: int) -> int:
    _bill(path, buckets)
    tracemalloc.start()
    try:
        with bill.bill_parts([path]) as parts:
            groups = sum(len(part.groups) for part in parts)
        assert groups == 2 * buckets
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_bill_of_many_buckets_is_read_in_bounded_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bill, "MAX_GROUPS", 200)  # 200,000, scaled down
    monkeypatch.setattr(bill, "PARTS", 16)
    small = _bill_peak(tmp_path / "small.csv.gz", 100)  # 200 groups: read whole
    large = _bill_peak(tmp_path / "large.csv.gz", 1000)  # ten times the buckets: in parts of about 125 groups
    assert large < 2 * small, (small, large)
