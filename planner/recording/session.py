"""One recording: run a command against the recording proxy, write every request as it ends, and say what the
run stands for (``per`` a day, week or month, ``times`` each).

Files in the ``--out`` folder, written as the run goes so a failed or stopped run keeps what it recorded:
``requests.csv`` (one row a request: time, S3 operation, billed operation, status, bytes in and out, object
size, bucket, key or its hash, ranged, presigned, keys deleted), ``trace.csv`` (the columns ``planner
simulate --trace`` replays), ``command.log`` (the command's own output) and, at the end, ``recording.json``
(the summary: counts by operation and status, the stored objects, partial or not, and why).
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import IO, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field

from planner.errors import InputError
from planner.pricing.primitives import OPERATIONS
from planner.recording.local import BUCKET, LocalServer
from planner.recording.proxy import ProxyRecord, RecordingProxy

_BILLED = frozenset(OPERATIONS)

Period = Literal["day", "week", "month"]
# Runs a month stands for, by period: AWS's 730-hour month.
PERIOD_RUNS: dict[str, Decimal] = {"day": Decimal(730) / 24, "week": Decimal(730) / 168, "month": Decimal(1)}
FILES = ("requests.csv", "trace.csv", "command.log", "recording.json")
REQUEST_COLUMNS = (
    "time_s",
    "method",
    "s3_operation",
    "operation",
    "status",
    "bytes_in",
    "bytes_out",
    "object_size",
    "bucket",
    "key",
    "ranged",
    "presigned",
    "keys",
    "duration_s",
)
TRACE_COLUMNS = ("time_s", "operation", "key", "bytes_sent", "object_size", "ranged", "status")
# Arguments that carry a secret: the value after such a flag (or after its '=') is never stored.
_SECRET_FLAG = re.compile(r"^-{1,2}[\w.-]*(secret|password|passwd|token|credential|access[-_]?key|api[-_]?key)", re.I)


class OperationCount(BaseModel):
    """Requests of one S3 operation that got one status."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    s3_operation: str
    operation: str | None = Field(description="the operation price tables bill it as (none: not billed anywhere)")
    status: int
    count: int
    keys: int = Field(0, description="objects a delete named (DeleteObjects names up to 1,000)")
    bytes_in: int
    bytes_out: int


class Recording(BaseModel):
    """What a recorded run did, and what it stands for."""

    model_config = ConfigDict(extra="forbid")

    command: list[str] = Field(description="the command, with the values of secret-bearing flags removed")
    endpoint: str = Field(description="where the requests went: 'local SeaweedFS' or the endpoint's address")
    started: dt.datetime
    duration_s: float
    exit_code: int | None = Field(description="the command's exit status (none: it did not run to an end)")
    partial: bool = Field(description="the run did not finish as the command meant: the counts are what it did")
    partial_reason: str | None = None
    per: Period = "month"
    times: int = Field(1, ge=1)
    requests: int = 0
    counts: list[OperationCount] = Field(default_factory=list)
    stored_object_sizes: list[int] | None = Field(
        None, description="sizes of the objects left in the bucket at the end (known for a local server)"
    )
    records: list[ProxyRecord] = Field(default_factory=list, exclude=True, repr=False)

    @property
    def runs_per_month(self) -> Decimal:
        return PERIOD_RUNS[self.per] * self.times

    def monthly(self, billed: bool | None = None) -> Counter[str]:
        """Requests a month by billed operation (a DeleteObjects counts once; its keys are in ``keys``)."""
        found: Counter[str] = Counter()
        for row in self.counts:
            if row.operation is not None:
                found[row.operation] += row.count
        return Counter({op: int((n * self.runs_per_month).to_integral_value()) for op, n in found.items()})


def redact(command: Sequence[str]) -> list[str]:
    """The command as it may be stored: secret-bearing flags' values and URLs' user:password removed."""
    kept: list[str] = []
    hide_next = False
    for arg in command:
        if hide_next:
            kept.append("***")
            hide_next = False
            continue
        if _SECRET_FLAG.match(arg):
            if "=" in arg:
                kept.append(arg.split("=", 1)[0] + "=***")
            else:
                kept.append(arg)
                hide_next = True
            continue
        kept.append(_without_userinfo(arg))
    return kept


def _without_userinfo(arg: str) -> str:
    if "://" not in arg or "@" not in arg:
        return arg
    prefix, _, rest = arg.partition("://")
    return f"{prefix}://***@{rest.split('@', 1)[1]}" if "@" in rest.split("/", 1)[0] else arg


class _Writer:
    """Appends each record to the two CSV files as it ends (the proxy's thread calls it)."""

    def __init__(self, folder: Path, keep: int) -> None:
        self._lock = threading.Lock()
        self._requests_file: IO[str] = (folder / "requests.csv").open("x", newline="", encoding="utf-8")
        self._trace_file: IO[str] = (folder / "trace.csv").open("x", newline="", encoding="utf-8")
        self._requests = csv.writer(self._requests_file)
        self._trace = csv.writer(self._trace_file)
        self._requests.writerow(REQUEST_COLUMNS)
        self._trace.writerow(TRACE_COLUMNS)
        self.records: list[ProxyRecord] = []
        self._keep = keep
        self.count = 0
        self.tally: Counter[tuple[str, str | None, int]] = Counter()
        self.bytes_in: Counter[tuple[str, str | None, int]] = Counter()
        self.bytes_out: Counter[tuple[str, str | None, int]] = Counter()
        self.keys: Counter[tuple[str, str | None, int]] = Counter()

    def __call__(self, record: ProxyRecord) -> None:
        with self._lock:
            self.count += 1
            if len(self.records) < self._keep:
                self.records.append(record)
            group = (record.s3_operation, record.operation, record.status)
            self.tally[group] += 1
            self.bytes_in[group] += record.bytes_in
            self.bytes_out[group] += record.bytes_out
            self.keys[group] += record.keys
            self._requests.writerow(
                [
                    f"{record.time_s:.6f}",
                    record.method,
                    record.s3_operation,
                    record.operation or "",
                    record.status,
                    record.bytes_in,
                    record.bytes_out,
                    record.object_size,
                    record.bucket,
                    _cell(record.key),
                    int(record.ranged),
                    int(record.presigned),
                    record.keys,
                    f"{record.duration_s:.6f}",
                ]
            )
            replay = {"upload-part": "put"}.get(record.operation or "", record.operation or "other")
            self._trace.writerow(
                [
                    f"{record.time_s:.6f}",
                    replay,
                    _cell(record.key),
                    record.bytes_out if replay == "get" else record.bytes_in,
                    record.object_size,
                    int(record.ranged),
                    record.status,
                ]
            )
            self._requests_file.flush()
            self._trace_file.flush()

    def counts(self) -> list[OperationCount]:
        with self._lock:
            return [
                OperationCount(
                    s3_operation=s3,
                    operation=op,
                    status=status,
                    count=n,
                    keys=self.keys[(s3, op, status)],
                    bytes_in=self.bytes_in[(s3, op, status)],
                    bytes_out=self.bytes_out[(s3, op, status)],
                )
                for (s3, op, status), n in sorted(self.tally.items(), key=lambda item: (item[0][0], item[0][2]))
            ]

    def close(self) -> None:
        with self._lock:
            self._requests_file.close()
            self._trace_file.close()


def _cell(text: str) -> str:
    """A key as a CSV cell a spreadsheet shows as text (no formula from a key that starts with = + - @)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _prepare(out: Path, force: bool) -> None:
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} exists and is not a folder", field="--out")
    if out.exists():
        present = [name for name in FILES if (out / name).exists()]
        if present and not force:
            message = f"{out} already holds a recording ({present[0]}): give --force to replace it"
            raise InputError(message, field="--out")
        for name in present:
            (out / name).unlink()
    else:
        try:
            out.mkdir(parents=True)
        except OSError as error:
            raise InputError(f"cannot make {out}: {error.strerror}", field="--out") from None


def _endpoint_name(endpoint: str) -> str:
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def record(
    command: Sequence[str],
    out: Path | str,
    *,
    endpoint: str | None = None,
    local: bool = False,
    bucket: str = BUCKET,
    hash_keys: bool = False,
    max_time_s: float | None = None,
    per: Period = "month",
    times: int = 1,
    force: bool = False,
    keep_records: int = 1_000_000,
    env: Mapping[str, str] | None = None,
) -> Recording:
    """Run ``command`` against a recording proxy in front of ``endpoint`` (an http:// S3 endpoint) or, with
    ``local``, a SeaweedFS server started for the run; every request is written to ``out`` as it ends.

    The command sees ``AWS_ENDPOINT_URL`` (and ``AWS_ENDPOINT_URL_S3``, ``PLANNER_RECORD_ENDPOINT``) set to the
    proxy and ``PLANNER_RECORD_BUCKET``; ``{endpoint}`` and ``{bucket}`` in its arguments are replaced by them.
    With ``local`` it also gets the server's credentials, made for the run; ``env`` adds to its environment
    (never stored). Returns the recording, partial
    when the command failed, could not start or ran past ``max_time_s`` (what it did is kept either way).
    """
    if not command:
        raise InputError("give the command to record after --", field="COMMAND")
    if local == (endpoint is not None):
        raise InputError("give one of --endpoint URL or --local", field="--endpoint")
    if endpoint is not None and urlsplit(endpoint).scheme != "http":
        raise InputError(
            f"{_endpoint_name(endpoint)!r}: the proxy records plain http:// endpoints (a local or LAN server);"
            " an https:// endpoint signs its host name, which a proxy address would change: use --local",
            field="--endpoint",
        )
    if max_time_s is not None and not (max_time_s > 0 and max_time_s < 10**7):
        raise InputError(f"{max_time_s} is not a number of seconds above 0", field="--max-time")
    if times < 1 or times > 10**6:
        raise InputError(f"{times} is not a count of runs from 1 to 1,000,000", field="--times")
    if per not in PERIOD_RUNS:
        raise InputError(f"{per!r} is not day, week or month", field="--per")
    folder = Path(out)
    _prepare(folder, force)
    writer = _Writer(folder, keep_records)
    started = dt.datetime.now(dt.UTC)
    clock = time.monotonic()
    exit_code: int | None = None
    reason: str | None = None
    stored: list[int] | None = None
    server = LocalServer(bucket) if local else None
    try:
        upstream = endpoint
        child_env = {**os.environ, **(env or {})}
        if server is not None:
            server.__enter__()
            upstream = server.endpoint
            for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
                child_env.pop(name, None)
            child_env.update(
                AWS_ACCESS_KEY_ID=server.access_key,
                AWS_SECRET_ACCESS_KEY=server.secret_key,
                AWS_DEFAULT_REGION="us-east-1",
                AWS_REGION="us-east-1",
            )
        assert upstream is not None
        proxy = RecordingProxy(upstream, writer, hash_keys=hash_keys)
        address = proxy.start()
        try:
            child_env.update(
                AWS_ENDPOINT_URL=address,
                AWS_ENDPOINT_URL_S3=address,
                PLANNER_RECORD_ENDPOINT=address,
                PLANNER_RECORD_BUCKET=bucket,
            )
            args = [arg.replace("{endpoint}", address).replace("{bucket}", bucket) for arg in command]
            exit_code, reason = _run(args, child_env, folder / "command.log", max_time_s)
        finally:
            proxy.stop()
        if server is not None:
            stored = server.stored()
    finally:
        writer.close()
        if server is not None:
            server.__exit__(None, None, None)
        recording = Recording(
            command=redact(command),
            endpoint="local SeaweedFS" if local else _endpoint_name(endpoint or ""),
            started=started,
            duration_s=round(time.monotonic() - clock, 3),
            exit_code=exit_code,
            partial=reason is not None or exit_code is None,
            partial_reason=reason if reason is not None or exit_code is not None else "the recording was interrupted",
            per=per,
            times=times,
            requests=writer.count,
            counts=writer.counts(),
            stored_object_sizes=stored,
            records=writer.records,
        )
        (folder / "recording.json").write_text(recording.model_dump_json(indent=2) + "\n", encoding="utf-8")
    if reason is not None and reason.startswith("no such command"):
        message = f"{command[0]!r}: {reason}; nothing was recorded ({folder / 'recording.json'})"
        raise InputError(message, field="COMMAND")
    return recording


def _run(
    args: list[str], env: Mapping[str, str], log_path: Path, max_time_s: float | None
) -> tuple[int | None, str | None]:
    """(exit status, why the run is partial or None)."""
    if shutil.which(args[0], path=env.get("PATH")) is None and not Path(args[0]).exists():
        return None, "no such command"
    with log_path.open("xb") as log:
        try:
            process = subprocess.Popen(args, env=dict(env), stdout=log, stderr=log, start_new_session=True)
        except OSError as error:
            return None, f"no such command ({error.strerror})"
        try:
            code = process.wait(timeout=max_time_s)
        except subprocess.TimeoutExpired:
            _stop_group(process)
            return None, f"stopped after --max-time {max_time_s:g} s"
        except BaseException:
            _stop_group(process)
            raise
    if code != 0:
        return code, f"the command exited with status {code}: {_last_line(log_path)}"
    return code, None


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=5)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)


def _last_line(path: Path) -> str:
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - 4096))
        lines = [line.strip() for line in handle.read().decode("utf-8", "replace").splitlines() if line.strip()]
    text = lines[-1] if lines else "(no output)"
    safe = "".join(c if c.isprintable() else "?" for c in text)
    return safe[:200]


def load_recording(path: Path | str, *, per: Period | None = None, times: int | None = None) -> Recording:
    """A recording read back: its folder (``recording.json``) or a ``requests.csv`` alone (counted again from
    its rows; the run stands for one a month unless ``per`` and ``times`` say otherwise)."""
    source = Path(path)
    if source.is_dir():
        source = source / "recording.json"
    if not source.is_file():
        message = f"{source} is not a recording (a folder planner record wrote, or its requests.csv)"
        raise InputError(message, field="--trace")
    from planner.files import read_input_text

    text = read_input_text(source, what="recording", limit_bytes=2**31)
    if source.suffix == ".json":
        try:
            recording = Recording.model_validate_json(text)
        except ValueError as error:
            raise InputError(f"not a recording: {str(error).splitlines()[0]}", source=str(source)) from None
    else:
        recording = _from_csv(text, str(source))
    changes: dict[str, object] = {}
    if per is not None:
        changes["per"] = per
    if times is not None:
        changes["times"] = times
    return recording.model_copy(update=changes) if changes else recording


def _from_csv(text: str, source: str) -> Recording:
    rows = csv.DictReader(text.splitlines())
    needed = ("s3_operation", "operation", "status", "bytes_in", "bytes_out")
    missing = [c for c in needed if c not in (rows.fieldnames or [])]
    if missing:
        raise InputError(f"not a requests.csv of planner record: no {missing[0]} column", source=source)
    tally: Counter[tuple[str, str | None, int]] = Counter()
    sums: dict[tuple[str, str | None, int], list[int]] = {}
    for line, row in enumerate(rows, start=2):
        try:
            group = (row["s3_operation"], row["operation"] or None, int(row["status"]))
            numbers = [int(row["bytes_in"]), int(row["bytes_out"]), int(row.get("keys") or 0)]
        except (TypeError, ValueError):
            message = "a status, byte count or key count is not a whole number"
            raise InputError(message, source=f"{source}:{line}") from None
        if group[1] is not None and group[1] not in _BILLED:
            raise InputError(f"unknown operation {group[1]!r}", source=f"{source}:{line}", field="operation")
        if not 100 <= group[2] <= 599 or min(numbers) < 0:
            raise InputError("a status outside 100-599 or a negative count", source=f"{source}:{line}")
        tally[group] += 1
        total = sums.setdefault(group, [0, 0, 0])
        for index, value in enumerate(numbers):
            total[index] += value
    counts = [
        OperationCount(
            s3_operation=s3, operation=op, status=status, count=n,
            bytes_in=sums[(s3, op, status)][0], bytes_out=sums[(s3, op, status)][1], keys=sums[(s3, op, status)][2],
        )
        for (s3, op, status), n in sorted(tally.items(), key=lambda item: (item[0][0], item[0][2]))
    ]  # fmt: skip
    return Recording(
        command=[],
        endpoint=f"read from {source}",
        started=dt.datetime.now(dt.UTC),
        duration_s=0.0,
        exit_code=None,
        partial=False,
        requests=sum(tally.values()),
        counts=counts,
    )
