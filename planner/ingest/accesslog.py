"""Traffic from S3 server access logs: the request mix, peak rates, ranged reads, egress and hot keys.

The log format (https://docs.aws.amazon.com/AmazonS3/latest/userguide/LogFormat.html) is one
request a line, fields separated by spaces; a field holding spaces is either bracketed (the time,
``[06/Feb/2019:00:00:38 +0000]``) or double-quoted (Request-URI, Referer, User-Agent), and ``-``
means no value. AWS adds fields at the end over time, so a parser reads the first 18 by position
and ignores the rest. Times have one-second resolution: per-second rates are exact, overlaps
within a second are estimated from the total times (Little's law over the second).

Cloudflare Logpush's ``http_requests`` dataset (newline-delimited JSON, one request an object;
fields as https://developers.cloudflare.com/logs/reference/log-fields/zone/http_requests/ names
them: ``ClientRequestHost``, ``ClientRequestMethod``, ``ClientRequestURI``, ``EdgeStartTimestamp``,
``EdgeEndTimestamp``, ``EdgeResponseStatus``, ``EdgeResponseBytes``, ``EdgeResponseBodyBytes``,
``CacheCacheStatus``) is read too, for a bucket served through Cloudflare (an R2 custom domain): a
JSON line with ``ClientRequestMethod`` is taken as such. Its requests carry no object size (ranged
reads are the 206 answers) and are timed from the edge receiving the request to its sending the last
byte (the in-flight count needs both); requests answered from Cloudflare's cache never reached the
bucket and are counted apart.

R2's Data Access Logs (https://developers.cloudflare.com/r2/buckets/data-access-logs/, events of the
``r2`` dataset exported as JSON lines, nested or with dotted keys): ``$metadata.timestamp`` (Unix
milliseconds), ``bucket``, ``action`` (the R2 operation), ``resource.key``, ``resource.size``,
``response.bytes`` (the response's Content-Length), ``response.status``. They log no turn-around
time and leave out every request answered 400 or above, so neither in-flight counts nor errors come
from them.

``read_logs`` streams files into fixed-size tallies (per-second counts, per-key counts for the
keys that matter), so a month of logs takes the memory of its seconds and its hot keys;
``write_trace`` keeps every request (time offset, operation, key, bytes, range) for replay.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import heapq
import math
import tempfile
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ConfigDict, Field

from planner.errors import InputError
from planner.files import open_stream, parse_json, text_lines
from planner.ingest.ages import plausible
from planner.ingest.escape import comment_text
from planner.ingest.inventory import replace_section
from planner.units import format_duration

# Operations (the log's REST.<VERB>.<THING>) to planner's operations.
OPERATIONS = {
    "REST.GET.OBJECT": "get",
    "REST.HEAD.OBJECT": "head",
    "REST.PUT.OBJECT": "put",
    "REST.POST.UPLOAD": "create-multipart",
    "REST.PUT.PART": "upload-part",
    "REST.POST.UPLOADS": "create-multipart",
    "REST.POST.COMPLETEUPLOAD": "complete-multipart",
    "REST.COPY.OBJECT": "copy",
    "REST.COPY.OBJECT_GET": "get",
    "REST.COPY.PART": "upload-part",
    "REST.GET.BUCKET": "list",
    "REST.DELETE.OBJECT": "delete",
    "REST.POST.MULTI_OBJECT_DELETE": "delete",
    "REST.DELETE.UPLOAD": "abort-multipart",
    "REST.POST.RESTORE": "restore",
}
_MONTHS = {
    name: number
    for number, name in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), start=1
    )
}
_KEY_LIMIT = 200_000  # distinct keys tallied exactly; beyond it, the rarest are dropped (hot keys survive)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class HotKey(_Model):
    key: str
    gets: int
    share_of_gets: float
    peak_per_s: int = Field(description="most GETs of it in one second")
    peak_in_flight: float = Field(description="most GETs of it in flight, averaged over one second (Little's law)")


class AccessLog(_Model):
    """What a set of access logs says about a bucket's traffic."""

    buckets: list[str]
    files: list[str]
    start: dt.datetime | None
    end: dt.datetime | None
    window_s: float = Field(description="from the first request's second to the end of the last one's")
    requests: dict[str, int] = Field(description="by planner operation (other operations by the log's own name)")
    errors: dict[str, int] = Field(default_factory=dict, description="by HTTP status, 4xx and 5xx")
    slow_downs: int = Field(0, description="503 SlowDown answers")
    get_bytes_sent: int = Field(0, description="bytes sent by GETs (the egress, wherever it went)")
    ranged_gets: int = Field(0, description="GETs that sent less than the whole object")
    mean_object_bytes: float | None = Field(None, description="mean size of the objects GETs read")
    peak_per_s: int = 0
    peak_second: dt.datetime | None = None
    peak_get_per_s: int = 0
    mean_per_s: float = 0.0
    hot_keys: list[HotKey] = Field(default_factory=list)
    distinct_keys: int = Field(0, description="keys read at least once (a lower bound past the tally's limit)")
    bad_lines: int = 0
    first_bad: list[str] = Field(default_factory=list)
    formats: list[str] = Field(
        default_factory=list, description="the log formats read (s3, cloudflare-http, r2-data-access)"
    )
    cached: int = Field(0, description="Cloudflare requests answered from its cache: they never reached the bucket")
    untimed_requests: int = Field(0, description="GETs logged without a turn-around time (no in-flight count)")
    unavailable: list[str] = Field(default_factory=list, description="figures the logs' format cannot give")


def split_fields(line: str) -> list[str]:
    """The fields of one log line: spaces separate, ``[...]`` and ``"..."`` group (a quote inside a
    quoted field is escaped as ``\\"``)."""
    fields: list[str] = []
    i, n = 0, len(line)
    while i < n:
        if line[i] == " ":
            i += 1
            continue
        if line[i] == "[":
            end = line.find("]", i)
            if end < 0:
                raise ValueError("a [ without its ]")
            fields.append(line[i + 1 : end])
            i = end + 1
        elif line[i] == '"':
            out = []
            i += 1
            while i < n and line[i] != '"':
                if line[i] == "\\" and i + 1 < n:
                    i += 1
                out.append(line[i])
                i += 1
            if i >= n:
                raise ValueError('a " without its closing "')
            fields.append("".join(out))
            i += 1
        else:
            end = line.find(" ", i)
            end = n if end < 0 else end
            fields.append(line[i:end])
            i = end
    return fields


def _time(text: str) -> dt.datetime:
    # 06/Feb/2019:00:00:38 +0000
    day, month, rest = text.split("/", 2)
    year, hh, mm, rest2 = rest.split(":", 3)
    ss, zone = rest2.split(" ")
    offset = dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5])) * (1 if zone[0] == "+" else -1)
    moment = dt.datetime(int(year), _MONTHS[month], int(day), int(hh), int(mm), int(ss), tzinfo=dt.timezone(offset))
    return plausible(moment.astimezone(dt.UTC), "the request's time")


def _number(text: str, name: str) -> int:
    """A logged count (bytes, milliseconds): "-" is 0; a negative one makes the line unreadable."""
    value = 0 if text == "-" else int(text)
    if value < 0:
        raise ValueError(f"{name} {text!r} is negative")
    return value


class Request(BaseModel):
    """One logged request, as the trace keeps it."""

    model_config = ConfigDict(frozen=True)

    time: dt.datetime
    bucket: str
    operation: str
    key: str
    status: int
    error: str
    bytes_sent: int
    object_size: int
    total_ms: int
    partial: bool = Field(False, description="answered 206 Partial Content (a format without object sizes)")
    timed: bool = Field(True, description="whether total_ms was logged")
    cached: bool = Field(False, description="answered from a CDN's cache, not by the bucket")

    @property
    def ranged(self) -> bool:
        sized = self.object_size > 0 and self.bytes_sent < self.object_size
        return self.operation == "get" and (sized or self.partial)


def _cloudflare_time(value: object) -> dt.datetime:
    """EdgeStartTimestamp as Logpush writes it: RFC 3339 text, or unix seconds or nanoseconds (its
    timestamp_format option: rfc3339, unix, unixnano)."""
    if isinstance(value, str):
        return plausible(
            dt.datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(dt.UTC), "EdgeStartTimestamp"
        )
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _unix_time(value / 1e9 if value > 1e14 else float(value), "EdgeStartTimestamp")
    raise ValueError(f"EdgeStartTimestamp {value!r} is not a time")


def _unix_time(seconds: float, field: str) -> dt.datetime:
    """A Unix time as a UTC datetime; one outside the years 1 to 9999 (or NaN) is a ValueError naming the field."""
    try:
        moment = dt.datetime.fromtimestamp(seconds, tz=dt.UTC)
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"{field} {seconds!r} s is not a time between the years 1 and 9999") from None
    return plausible(moment, field)


# CacheCacheStatus values answered from the cache without asking the bucket ("revalidated" asked it)
_CACHE_ANSWERS = {"hit", "stale", "updating"}
# R2 Data Access Logs' action names (the S3 API's) to planner's operations
R2_ACTIONS = {
    "GetObject": "get",
    "HeadObject": "head",
    "PutObject": "put",
    "CopyObject": "copy",
    "ListObjectsV1": "list",
    "ListObjectsV2": "list",
    "CreateMultipartUpload": "create-multipart",
    "UploadPart": "upload-part",
    "UploadPartCopy": "upload-part",
    "CompleteMultipartUpload": "complete-multipart",
    "AbortMultipartUpload": "abort-multipart",
    "ListMultipartUploads": "list-parts",
    "ListParts": "list-parts",
    "DeleteObject": "delete",
    "DeleteObjects": "delete",
    "DeleteObjectsByPrefix": "delete",
}


def _cloudflare_operation(method: str, key: str, query: dict[str, list[str]]) -> str:
    """An S3 operation from an HTTP method and URI (the S3 API's own mapping of verbs and queries)."""
    if method == "GET":
        return "list" if not key or "list-type" in query else ("list-parts" if "uploadId" in query else "get")
    if method == "HEAD":
        return "head"
    if method == "PUT":
        return "upload-part" if "partNumber" in query else "put"
    if method == "POST":
        return "create-multipart" if "uploads" in query else "complete-multipart" if "uploadId" in query else "post"
    if method == "DELETE":
        return "abort-multipart" if "uploadId" in query else "delete"
    return method.lower() or "unknown"


def _field(record: dict[str, object], path: str) -> object:
    """A field of an exported event by its dotted name: a key of that name, or nested objects."""
    if path in record:
        return record[path]
    node: object = record
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def parse_json_line(line: str) -> tuple[str, Request]:
    """A JSON log line as (format, request): a Logpush ``http_requests`` record or an R2 Data Access
    Logs event."""
    record = parse_json(line)
    if isinstance(record, dict) and "ClientRequestMethod" in record:
        return "cloudflare-http", parse_cloudflare(record)
    if isinstance(record, dict) and "action" in record and _field(record, "$metadata.timestamp") is not None:
        return "r2-data-access", parse_r2(record)
    raise ValueError("neither http_requests (ClientRequestMethod) nor an R2 event (action, $metadata.timestamp)")


def parse_r2(record: dict[str, object]) -> Request:
    """One R2 Data Access Logs event as a request (a Workers binding's event has no status: the logs
    hold only answers below 400, taken as 200)."""
    action = str(record["action"])
    milliseconds = _field(record, "$metadata.timestamp")
    if not isinstance(milliseconds, int | float) or isinstance(milliseconds, bool):
        raise ValueError(f"$metadata.timestamp {milliseconds!r} is not Unix milliseconds")
    status = _field(record, "response.status")
    return Request(
        time=_unix_time(milliseconds / 1000, "$metadata.timestamp"),
        bucket=str(_field(record, "bucket") or _field(record, "$metadata.service") or "r2"),
        operation=R2_ACTIONS.get(action, action),
        key=str(_field(record, "resource.key") or ""),
        status=int(str(status)) if status is not None else 200,
        error=str(_field(record, "response.errorCode") or ""),
        bytes_sent=_number(str(_field(record, "response.bytes") or 0), "response.bytes"),
        object_size=_number(str(_field(record, "resource.size") or 0), "resource.size"),
        total_ms=0,
        timed=False,
    )


def parse_cloudflare(record: dict[str, object]) -> Request:
    """One Logpush ``http_requests`` record as a request. The URI's path is taken as the key (an R2
    custom domain serves keys at the root; a path-style S3 URI keeps the bucket in it)."""
    if "EdgeStartTimestamp" not in record:
        raise ValueError("http_requests without EdgeStartTimestamp")
    start = _cloudflare_time(record["EdgeStartTimestamp"])
    end = record.get("EdgeEndTimestamp")
    total_ms = max(0, round((_cloudflare_time(end) - start).total_seconds() * 1000)) if end is not None else 0
    uri = urllib.parse.urlsplit(str(record.get("ClientRequestURI", "")))
    key = urllib.parse.unquote(uri.path.lstrip("/"))
    query = urllib.parse.parse_qs(uri.query, keep_blank_values=True)
    body = record.get("EdgeResponseBodyBytes", record.get("EdgeResponseBytes", 0))
    status = int(str(record.get("EdgeResponseStatus", 0)))
    return Request(
        time=start,
        bucket=str(record.get("ClientRequestHost", "")) or "cloudflare",
        operation=_cloudflare_operation(str(record["ClientRequestMethod"]).upper(), key, query),
        key=key,
        status=status,
        error="",
        bytes_sent=_number(str(body or 0), "EdgeResponseBodyBytes"),
        object_size=0,
        total_ms=total_ms,
        partial=status == 206,
        timed=end is not None,
        cached=str(record.get("CacheCacheStatus", "")).lower() in _CACHE_ANSWERS,
    )


def parse_line(line: str) -> Request | None:
    """One log line as a request; None for a blank line. Raises ValueError for a malformed one."""
    if not line.strip():
        return None
    fields = split_fields(line.rstrip("\r\n"))
    if len(fields) < 15:
        raise ValueError(f"{len(fields)} fields, a log line has at least 15")
    op = fields[6]
    return Request(
        time=_time(fields[2]),
        bucket=fields[1],
        operation=OPERATIONS.get(op, op),
        key="" if fields[7] == "-" else fields[7],
        status=int(fields[9]),
        error="" if fields[10] == "-" else fields[10],
        bytes_sent=_number(fields[11], "bytes sent"),
        object_size=_number(fields[12], "object size"),
        total_ms=_number(fields[13], "total time"),
    )


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """The lines of a log file (plain, gzip, bzip2 or zstd), numbered, each of bounded length."""
    with open_stream(path, what="readable access log") as raw:
        yield from enumerate(text_lines(raw, source=str(path), what="readable access log"), start=1)


def log_files(paths: Iterable[Path]) -> list[Path]:
    """Files, and the files inside folders (sorted, hidden files skipped)."""
    out: list[Path] = []
    given = list(paths)
    for path in given:
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
        else:
            out.append(path)
    if not out:
        raise InputError("no log files there (a folder of logs holds no file)", source=", ".join(map(str, given)))
    return out


def read_logs(
    paths: Iterable[Path],
    *,
    trace: IO[str] | None = None,
    progress: Callable[[float], None] | None = None,
    each: Callable[[Request], None] | None = None,
) -> AccessLog:
    """Tally access logs (files or folders of them); with ``trace``, write every request to it as
    CSV (seconds from the first request, operation, key, bytes sent, object size, ranged); ``each`` is
    called with every request tallied."""
    files = log_files(paths)
    tally = _Tally()
    seen = 0
    with contextlib.ExitStack() as stack:
        rows = None if trace is None else stack.enter_context(TimeOrdered(trace))
        for path in files:
            seen = _read_file(path, tally, seen, rows, progress, each)
    return tally.access_log(files)


def _read_file(
    path: Path,
    tally: _Tally,
    seen: int,
    rows: TimeOrdered | None,
    progress: Callable[[float], None] | None,
    each: Callable[[Request], None] | None,
) -> int:
    """Tally one log file's lines (``rows``: the trace's); the lines read so far, with these."""
    for number, line in _lines(path):
        seen += 1
        if progress is not None and seen % 100_000 == 0:
            progress(seen)
        try:
            request = _parse_any(line, tally.formats)
        except (ValueError, KeyError, IndexError, TypeError, OverflowError) as error:  # Overflow: past 9999
            tally.bad_line(f"{path.name}:{number}", error)
            continue
        if request is None:
            continue
        if request.cached:
            tally.cached += 1
            continue
        second = tally.add(request)
        if each is not None:
            each(request)
        if rows is not None:
            rows.add(
                second,
                f"{second},{request.operation},{_csv(request.key)},{request.bytes_sent},"
                f"{request.object_size},{int(request.ranged)},{request.status}\n",
            )
    return seen


RUN_ROWS = 500_000
"""Trace rows sorted in memory at a time (about 60 MB); longer logs are sorted in runs on disk and merged."""


class TimeOrdered:
    """A trace's rows written in time order, however the logs interleave (S3 delivers a stretch of
    time in many files): up to ``RUN_ROWS`` are sorted in memory, a longer trace in sorted runs
    in temporary files, merged on leaving. Rows of one second keep the order they were read in."""

    def __init__(self, handle: IO[str], run_rows: int | None = None) -> None:
        self.handle, self.run_rows = handle, run_rows or RUN_ROWS
        self.rows: list[tuple[int, str]] = []
        self.runs: list[IO[str]] = []
        self.files = contextlib.ExitStack()

    def __enter__(self) -> TimeOrdered:
        return self

    def add(self, second: int, row: str) -> None:
        self.rows.append((second, row))
        if len(self.rows) >= self.run_rows:
            run = tempfile.TemporaryFile("w+", encoding="utf-8", prefix="planner-trace-run-")  # noqa: SIM115
            self.files.enter_context(run)  # closed (and so removed) on leaving
            self.rows.sort(key=_first)
            # one line a row in the run (a key's newline, quoted in the CSV, kept as NUL, which no key holds)
            run.writelines(f"{second} {row[:-1].replace(chr(10), chr(0))}\n" for second, row in self.rows)
            run.seek(0)
            self.runs.append(run)
            self.rows = []

    def __exit__(self, *exc: object) -> None:
        try:
            if exc[0] is None:
                self._write()
        finally:
            self.files.close()

    def _write(self) -> None:
        self.handle.write("time_s,operation,key,bytes_sent,object_size,ranged,status\n")
        self.rows.sort(key=_first)
        merged = heapq.merge(*(map(_split, run) for run in self.runs), iter(self.rows), key=_first)
        block: list[str] = []
        for _, row in merged:
            block.append(row)
            if len(block) >= 10_000:
                self.handle.write("".join(block))
                block = []
        self.handle.write("".join(block))


def _first(row: tuple[int, str]) -> int:
    return row[0]


def _split(line: str) -> tuple[int, str]:
    second, row = line.split(" ", 1)
    return int(second), row[:-1].replace("\0", "\n") + "\n"


def _parse_any(line: str, formats: set[str]) -> Request | None:
    """A line of any format read (a JSON object: Cloudflare's or R2's; else S3's), its format noted."""
    if line.lstrip().startswith("{"):
        kind, parsed = parse_json_line(line)
        formats.add(kind)
        return parsed
    request = parse_line(line)
    formats.add("s3")
    return request


MAX_UNREADABLE_FIRST = 100_000
"""Unreadable lines before the first request: past this many the input is refused as no log at all."""


class _Tally:
    """The requests read, in fixed-size tallies: per operation, status and second, and per key for
    the keys that matter (``_prune`` keeps ``_KEY_LIMIT`` of them)."""

    def __init__(self) -> None:
        self.ops: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.per_second: Counter[int] = Counter()
        self.get_per_second: Counter[int] = Counter()
        self.key_gets: Counter[str] = Counter()
        self.key_second: Counter[tuple[str, int]] = Counter()
        self.key_busy_ms: Counter[tuple[str, int]] = Counter()
        self.buckets: set[str] = set()
        self.bad: list[str] = []
        self.bad_count = self.slow = self.sent = self.ranged = self.sized = self.size_total = 0
        self.cached = self.untimed = self.unsized = 0
        self.formats: set[str] = set()
        self.first: dt.datetime | None = None
        self.last: dt.datetime | None = None

    def bad_line(self, where: str, error: Exception) -> None:
        self.bad_count += 1
        if self.bad_count > MAX_UNREADABLE_FIRST and not self.ops and not self.cached:
            # a file of nothing but unreadable lines is refused here, not read to its end (millions of tiny
            # rows in a small gzip would take minutes of CPU to find nothing)
            raise InputError(
                f"{where}: {MAX_UNREADABLE_FIRST:,} lines read and not one request among them (is it an S3"
                " access log, Cloudflare Logpush or R2 access log?)"
            )
        if len(self.bad) < 5:
            self.bad.append(f"{where}: {' '.join(str(error).split())[:80] or 'unreadable'}")

    def add(self, request: Request) -> int:
        """Count a request (not one answered from a cache); returns its second (Unix time)."""
        self.untimed += not request.timed and request.operation == "get"
        self.unsized += request.object_size == 0 and request.operation == "get"
        self.first = request.time if self.first is None else min(self.first, request.time)
        self.last = request.time if self.last is None else max(self.last, request.time)
        second = int(request.time.timestamp())
        self.buckets.add(request.bucket)
        self.ops[request.operation] += 1
        self.per_second[second] += 1
        if request.status >= 400:
            self.errors[str(request.status)] += 1
            self.slow += request.error == "SlowDown"
        if request.operation == "get":
            self._add_get(request, second)
        return second

    def _add_get(self, request: Request, second: int) -> None:
        self.get_per_second[second] += 1
        self.sent += request.bytes_sent
        self.ranged += request.ranged
        if request.object_size:
            self.sized += 1
            self.size_total += request.object_size
        if request.key:
            self.key_gets[request.key] += 1
            self.key_second[request.key, second] += 1
            self.key_busy_ms[request.key, second] += request.total_ms
            if len(self.key_gets) > _KEY_LIMIT:
                _prune(self.key_gets, self.key_second, self.key_busy_ms)
            if len(self.key_second) > PAIR_LIMIT:
                _prune_seconds(self.key_gets, self.key_second, self.key_busy_ms)

    def hot_keys(self) -> list[HotKey]:
        """The keys of at least 1 % of the GETs (of the ten most read), with their busiest second."""
        gets = self.ops.get("get", 0)
        hot = []
        for key, count in self.key_gets.most_common(10):
            if gets and count / gets >= 0.01:
                seconds = [(s, n) for (k, s), n in self.key_second.items() if k == key]
                hot.append(
                    HotKey(
                        key=key,
                        gets=count,
                        share_of_gets=count / gets,
                        peak_per_s=max(n for _, n in seconds),
                        peak_in_flight=max(self.key_busy_ms[key, s] for s, _ in seconds) / 1000,
                    )
                )
        return hot

    def access_log(self, files: list[Path]) -> AccessLog:
        first, last = self.first, self.last
        if first is None or last is None:
            raise InputError(
                "the logs hold no requests"
                + (f" ({self.bad_count:,} unreadable lines; the first, {self.bad[0]})" if self.bad else ""),
                source=str(files[0]) + (f" and {len(files) - 1} more" if len(files) > 1 else ""),
            )
        window = (last - first).total_seconds() + 1
        peak_second, peak = max(self.per_second.items(), key=lambda kv: (kv[1], -kv[0]))
        return AccessLog(
            buckets=sorted(self.buckets),
            files=[str(f) for f in files],
            start=first,
            end=last,
            window_s=window,
            requests=dict(self.ops.most_common()),
            errors=dict(self.errors),
            slow_downs=self.slow,
            get_bytes_sent=self.sent,
            ranged_gets=self.ranged,
            mean_object_bytes=self.size_total / self.sized if self.sized else None,
            peak_per_s=peak,
            peak_second=dt.datetime.fromtimestamp(peak_second, tz=dt.UTC),
            peak_get_per_s=max(self.get_per_second.values(), default=0),
            mean_per_s=sum(self.per_second.values()) / window,
            hot_keys=self.hot_keys(),
            distinct_keys=len(self.key_gets),
            bad_lines=self.bad_count,
            first_bad=self.bad,
            formats=sorted(self.formats),
            cached=self.cached,
            untimed_requests=self.untimed,
            unavailable=_unavailable(self.formats, self.untimed, self.unsized, self.ops.get("get", 0)),
        )


def _unavailable(formats: set[str], untimed: int, unsized: int, gets: int) -> list[str]:
    """What the logs read cannot say, in words."""
    said = []
    if untimed:
        said.append(f"turn-around times ({untimed:,} GETs logged without one): no in-flight count for hot keys")
    if "cloudflare-http" in formats and gets and unsized:
        said.append(
            "object sizes (http_requests has none): ranged GETs are the 206 answers, and the mean object size"
            " is unknown"
        )
    if "cloudflare-http" in formats:
        said.append("error codes such as SlowDown (http_requests logs the status alone)")
    if "r2-data-access" in formats:
        said.append(
            "errors: R2's Data Access Logs leave out every request answered 400 or above, and deliver events"
            " best effort (some may be missing)"
        )
    return said


def _prune(key_gets: Counter[str], key_second: Counter[tuple[str, int]], key_busy_ms: Counter[tuple[str, int]]) -> None:
    """Keep the most-read half of the keys: a key read once or twice is never a hot key."""
    keep = {k for k, _ in heapq.nlargest(_KEY_LIMIT // 2, key_gets.items(), key=lambda kv: kv[1])}
    for key in [k for k in key_gets if k not in keep]:
        del key_gets[key]
    for pair in [p for p in key_second if p[0] not in keep]:
        del key_second[pair]
        key_busy_ms.pop(pair, None)


PAIR_LIMIT = 1_000_000
"""(key, second) counts kept at once (about 200 MB): a day of logs over a few popular keys has
tens of millions; past this, only the ``HOT_CANDIDATES`` most-read keys keep theirs."""
HOT_CANDIDATES = 20


def _prune_seconds(
    key_gets: Counter[str], key_second: Counter[tuple[str, int]], key_busy_ms: Counter[tuple[str, int]]
) -> None:
    """Keep the seconds of the keys that may be hot (the ``HOT_CANDIDATES`` most read so far; a
    hot key is one of the ten most read) and, if those still fill half the limit, each one's busier
    seconds (at least half its busiest so far): a busiest second is never dropped. A key that grows
    hot only after a prune has its seconds counted from then on."""
    keep = {k for k, _ in heapq.nlargest(HOT_CANDIDATES, key_gets.items(), key=lambda kv: kv[1])}
    for pair in [p for p in key_second if p[0] not in keep]:
        del key_second[pair]
        key_busy_ms.pop(pair, None)
    if len(key_second) > PAIR_LIMIT // 2:
        busiest: Counter[str] = Counter()
        for (key, _), count in key_second.items():
            busiest[key] = max(busiest[key], count)
        for pair in [p for p, count in key_second.items() if 2 * count < busiest[p[0]]]:
            del key_second[pair]
            key_busy_ms.pop(pair, None)


def _csv(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text


def traffic_block(log: AccessLog) -> str:
    """The workload's ``traffic:`` section from access logs, each figure with its source; monthly
    counts are the logged counts scaled from the logged window to a 30-day month."""
    scale = 30 * 86400 / log.window_s
    start = log.start.isoformat() if log.start else "?"
    lines = [
        "traffic:",
        f"  # {_format_names(log)} of {comment_text(', '.join(log.buckets))}:"
        f" {sum(log.requests.values()):,} requests over"
        f" {format_duration(log.window_s)} from {start}, scaled x{scale:.4g} to a 30-day month"
        + (" (a short window: the month's mix may differ)" if log.window_s < 7 * 86400 else ""),
    ]

    if log.cached:
        lines.append(
            f"  # {log.cached:,} requests answered from Cloudflare's cache are left out: they never reached the bucket"
        )
    lines += [f"  # the logs cannot give {what}" for what in log.unavailable]

    def monthly(ops: tuple[str, ...]) -> int:
        return round(sum(log.requests.get(op, 0) for op in ops) * scale)

    lines.append(f"  reads: {monthly(('get',))}")
    lines.append(f"  writes: {monthly(('put', 'copy', 'complete-multipart'))}")
    lines.append(f"  heads: {monthly(('head',))}")
    lines.append(f"  lists: {monthly(('list',))}")
    lines.append(
        f"  # bytes the GETs sent, scaled; the logs do not say which went to the internet and which"
        f" stayed in the region (ASSUMED: all egress); {log.ranged_gets:,} ranged GETs"
    )
    lines.append(f'  egress: "{round(log.get_bytes_sent * scale)} B"')
    lines.append(
        f"  # busiest second: {log.peak_per_s:,} requests at {log.peak_second.isoformat() if log.peak_second else '?'}"
        f" (mean {log.mean_per_s:.3g}/s)"
    )
    lines.append(f'  peak_rate: "{max(log.peak_per_s, 1)}/s"')
    if log.hot_keys:
        top = log.hot_keys[0]
        share = sum(h.share_of_gets for h in log.hot_keys)
        in_flight = (
            "an unknown number in flight then (the logs give no turn-around times: peak_concurrency 1 is ASSUMED)"
            if log.untimed_requests
            else f"about {top.peak_in_flight:.3g} in flight then (total times summed over the second)"
        )
        lines.append(
            f"  # {len(log.hot_keys)} keys each took at least 1 % of the GETs ({100 * share:.3g} % together);"
            f" the busiest, {top.key!r}, {top.peak_per_s} GETs in one second and {in_flight}"
        )
        lines.append("  hot_objects:")
        lines.append(f"    count: {len(log.hot_keys)}")
        lines.append(f"    share_of_reads: {min(share, 1.0):.6g}")
        lines.append(f"    peak_concurrency: {max(1, math.ceil(max(h.peak_in_flight for h in log.hot_keys)))}")
    return "\n".join(lines) + "\n"


def _format_names(log: AccessLog) -> str:
    names = {
        "s3": "S3 access logs",
        "cloudflare-http": "Cloudflare Logpush http_requests",
        "r2-data-access": "R2 Data Access Logs",
    }
    return " and ".join(names.get(f, f) for f in log.formats) or "S3 access logs"


def replace_traffic(text: str, block: str) -> str:
    """``text`` (a workload file) with its top-level ``traffic:`` section replaced by ``block``, or
    with ``block`` added when there is none."""
    return replace_section(text, "traffic", block, missing_ok=True)
