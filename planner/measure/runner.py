"""Run a measurement: safety checks, the cell matrix, the probes, output after every cell, cleanup.

Everything the run writes lives under ``planner-measure/<run-id>/`` and is journaled before it is
written; whatever happens (a finished run, Ctrl-C, SIGTERM, an exception) the ``finally`` block
stops the workers, deletes the journaled keys, aborts multipart uploads and writes the profile.
"""

from __future__ import annotations

import os
import platform
import secrets
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from planner.errors import InputError, MeasureError
from planner.measure import journal
from planner.measure.cleanup import CleanupReport, cleanup_run
from planner.measure.engines import EngineChoice, obstore_version
from planner.measure.profile import (
    OPERATIONS,
    Cell,
    ClientHost,
    Operation,
    Probes,
    Profile,
    RunInfo,
    Source,
    UnsupportedStep,
)
from planner.measure.s3client import Addressing, describe_client_error, make_client, sanitize_endpoint
from planner.measure.stats import MIN_SAMPLES, SHORT_WINDOW, CellFigures, summarise
from planner.measure.worker import ClientSettings, LoadResult, LoadTask, TaskKind, WorkerPool

PROBES = ("hot-object", "part-size", "range-get", "rate")
RUN_PREFIX_ROOT = journal.RUN_PREFIX_ROOT
_MAX_POOL_BYTES = 1 << 30  # GET/HEAD object pool per size
_LARGE_REQUEST_BYTES = 1 << 20
DELETE_WARMUP_S = 0.5
_MAX_DELETE_POOL = 200_000  # objects in one DELETE cell's list (each is a journal line)


def delete_warmup_s(warmup_s: float) -> float:
    """A DELETE cell's warm-up: every object it deletes is one fewer for the measured window."""
    return min(warmup_s, DELETE_WARMUP_S)


def delete_budget_s(cell_s: float) -> float:
    """How long writing a DELETE cell's objects may take: a minute, or twice the cell if longer."""
    return max(60.0, 2 * cell_s)


_THREADS_PER_PROCESS_LARGE = 16
PREFLIGHT_READ_TIMEOUT_S = 5.0
"""The safety checks' read timeout: an endpoint that accepts the connection and never answers a
HEAD bucket within this long is refused (a measured request may take longer: ``read_timeout_s``)."""


def tool_version() -> str:
    try:
        from importlib.metadata import version

        return f"planner {version('planner')}"
    except Exception:
        return "planner (unknown version)"


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


@dataclass
class MeasureOptions:
    endpoint: str | None
    bucket: str
    out: Path
    provider: str | None = None
    region: str | None = None
    sizes: list[int] = field(default_factory=lambda: [256 * 1024, 5 << 20, 50 << 20, 100 << 20])
    concurrency: list[int] = field(default_factory=lambda: [1, 5, 10])
    duration_s: float = 30.0
    warmup_s: float = 3.0
    ops: list[Operation] = field(default_factory=lambda: list(OPERATIONS))
    probes: list[str] = field(default_factory=lambda: list(PROBES))
    link_bits_per_s: float | None = None
    addressing: Addressing = "auto"
    verify_tls: bool = True
    engine: EngineChoice = "auto"  # the client for small-object requests (measure.engines)
    processes: int | None = None
    max_attempts: int = 3
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 60.0  # no byte for this long (before or within a body): a "timeout"
    run_id: str | None = None
    # probes
    probe_duration_s: float = 3.0
    hot_object_max: int = 256
    hot_object_range_bytes: int = 64 * 1024
    part_sizes: list[int] = field(default_factory=lambda: [5 << 20, 8 << 20, 16 << 20, 32 << 20])
    queue_depths: list[int] = field(default_factory=lambda: [1, 4, 8])
    range_object_size: int = 256 << 20
    range_streams: list[int] = field(default_factory=lambda: [4, 8, 16])
    rate_object_size: int = 4096
    rate_concurrency: list[int] = field(default_factory=lambda: [16, 64])
    # open-loop cells: Poisson arrivals at these rates, after each size's closed-loop cells
    open_rates_per_s: list[float] = field(default_factory=lambda: [10.0])
    open_peak_fractions: list[float] = field(default_factory=lambda: [0.5, 0.8])
    budget_s: float | None = None  # the whole run, probes included (see measure.plan.fit_budget)
    delete_write_s: float | None = None  # writing one DELETE list may take this long (default: delete_budget_s)

    def recorded(self) -> dict[str, Any]:
        """The options as stored in the profile (no endpoint userinfo, no paths outside ours)."""
        data = asdict(self)
        data["endpoint"] = sanitize_endpoint(self.endpoint) if self.endpoint else None
        data["out"] = self.out.name
        return data


class Reporter:
    """Progress callbacks; the CLI renders them with rich, tests may leave them silent."""

    def info(self, message: str) -> None:
        pass

    def step(self, label: str, index: int, total: int) -> None:
        pass

    def progress(self, elapsed_s: float, remaining_s: float) -> None:
        """Time so far (monotonic clock) and the plan's estimate of the time left, after every step."""

    def cell(self, cell: Cell) -> None:
        pass

    def done(self) -> None:
        pass


class Unsupported(MeasureError):
    """The server refused every request of one operation as unsupported (400, 405 or 501)."""

    def __init__(self, operation: str, error: str) -> None:
        super().__init__(f"the server does not support {operation} ({error})")
        self.operation = operation
        self.error = error


UNSUPPORTED_STATUS = ("400", "405", "501")
"""Answers that say the server does not do what was asked (501 NotImplemented; 400 and 405 from
servers that lack an operation, e.g. a 400 to CreateMultipartUpload), unlike 403/404 or a 5xx."""


def refuses(label: str) -> bool:
    """Whether an error label is a refusal of the operation itself (see ``UNSUPPORTED_STATUS``)."""
    return label.split(" ", 1)[0] in UNSUPPORTED_STATUS or "NotImplemented" in label


def s3_operation(kind: str, fields: dict[str, Any]) -> str:
    """The S3 API call a load sends, as the server's documentation names it."""
    if kind == "get" and (fields.get("byte_range") is not None or fields.get("thread_ranges")):
        return "GetObject with a Range header"
    names = {
        "get": "GetObject",
        "put": "PutObject",
        "put_keys": "PutObject",
        "head": "HeadObject",
        "list": "ListObjectsV2",
        "delete": "DeleteObject",
        "upload_part": "UploadPart",
    }
    return names.get(kind, kind)


class Terminated(BaseException):
    """SIGTERM, turned into an exception so the cleanup in ``finally`` runs."""


OPEN_LOOP_OPS: tuple[Operation, ...] = ("get", "put")
"""Operations that get open-loop cells: the requests a workload sends at a rate (a DELETE cell's
work list is finite; HEAD and LIST follow GET closely enough on the servers measured)."""


def open_loop_rates(options: MeasureOptions) -> list[str]:
    """The open-loop arrival rates asked for, as shown: "10/s", "0.5x peak"."""
    return [f"{rate:g}/s" for rate in options.open_rates_per_s] + [
        f"{fraction:g}x peak" for fraction in options.open_peak_fractions
    ]


def plan_steps(options: MeasureOptions) -> list[str]:
    """Human-readable list of the cells and probes a run will perform (for --dry-run and progress)."""
    steps: list[str] = []
    for op in options.ops:
        sizes: list[int | None] = [None] if op == "list" else list(options.sizes)
        for size in sizes:
            for concurrency in options.concurrency:
                steps.append(_cell_label(op, size, concurrency))
            if op in OPEN_LOOP_OPS:
                steps += [
                    f"{_cell_label(op, size, max(options.concurrency))} open {rate}"
                    for rate in open_loop_rates(options)
                ]
    steps += [f"probe {name}" for name in options.probes]
    return steps


def data_key_count(options: MeasureOptions, size: int) -> int:
    """Objects written once per size for the GET, HEAD and LIST cells."""
    return max(1, min(max(options.concurrency) * 2, _MAX_POOL_BYTES // max(size, 1), 64))


def _cell_label(op: str, size: int | None, concurrency: int, offered_per_s: float | None = None) -> str:
    from planner.units import format_bytes

    shown = "-" if size is None else format_bytes(size, binary=True).replace(" ", "")
    label = f"{op} {shown} x{concurrency}"
    return label if offered_per_s is None else f"{label} open {offered_per_s:.3g}/s"


def client_host() -> ClientHost:
    import boto3
    import botocore

    return ClientHost(
        hostname=socket.gethostname(),
        cpu_count=os.cpu_count(),
        platform=platform.platform(),
        python_version=platform.python_version(),
        boto3_version=boto3.__version__,
        botocore_version=botocore.__version__,
        obstore_version=obstore_version(),
    )


def write_atomic(path: Path, text: str) -> None:
    """Write a file so a reader (or a crash) sees the old or the new content, never half."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


class Engine:
    """Spreads a load over the worker processes and summarises the samples."""

    def __init__(
        self,
        pool: WorkerPool,
        bucket: str,
        journal_file: Path,
        options: MeasureOptions,
        start_gate: Callable[[], float] | None = None,
    ) -> None:
        self.pool = pool
        self.start_gate = start_gate  # a load's start, Unix seconds on this host (several hosts: a common start)
        self.bucket = bucket
        self.journal_file = journal_file
        self.options = options
        self.cpu_count = os.cpu_count() or 1

    def _split(self, concurrency: int, request_bytes: int = 0) -> list[int]:
        """Threads per worker process: spread over every process while the GIL is the limit (small
        requests), on as few as needed for large transfers, which wait in the kernel: a second
        process then only competes for the cores with a server on the same host."""
        processes = min(self.pool.size, concurrency)
        if request_bytes >= _LARGE_REQUEST_BYTES:
            processes = min(processes, -(-concurrency // _THREADS_PER_PROCESS_LARGE))
        base, extra = divmod(concurrency, processes)
        return [base + (1 if i < extra else 0) for i in range(processes)]

    def run(
        self,
        kind: TaskKind,
        concurrency: int,
        *,
        duration_s: float | None,
        warmup_s: float = 0.0,
        keys: list[str] | None = None,
        split_keys: bool = False,
        max_attempts: int | None = None,
        arrival_rate_per_s: float | None = None,
        **fields: Any,
    ) -> tuple[list[LoadResult], float, float]:
        """Run a load; returns raw results and the measured window (start, end) on the wall clock.

        With ``arrival_rate_per_s`` it is an open loop: Poisson arrivals at that rate, at most
        ``concurrency`` in flight; each process draws its share of the rate (in proportion to its
        threads) from its own seed, and independent Poisson streams add up to one at the sum.
        """
        operation = s3_operation(kind, fields)
        request_bytes = int(fields.get("object_size", 0)) if kind in ("get", "put", "upload_part", "put_keys") else 0
        if fields.get("byte_range") is not None:
            first, last = fields["byte_range"]
            request_bytes = last - first + 1
        elif fields.get("thread_ranges"):
            request_bytes = min(last - first + 1 for first, last in fields["thread_ranges"])
        shares = self._split(max(1, concurrency), request_bytes)
        # the gate may wait, and gives the instant itself: one reading of the clock, so every host of a
        # common start records the same scheduled instant
        start_at = self.start_gate() if self.start_gate is not None else time.time() + 0.3
        warmup_end = start_at + warmup_s
        end_at = None if duration_s is None else warmup_end + duration_s
        tasks = []
        thread_ranges = fields.pop("thread_ranges", None)
        offset = 0
        seed = secrets.randbits(32)
        for index, threads in enumerate(shares):
            task_keys = list(keys or [])
            if split_keys:
                task_keys = task_keys[index :: len(shares)]
            task = LoadTask(
                kind=kind,
                bucket=self.bucket,
                threads=threads,
                start_at=start_at,
                warmup_end=warmup_end,
                end_at=end_at,
                journal=str(self.journal_file),
                keys=task_keys,
                max_attempts=max_attempts or self.options.max_attempts,
                thread_ranges=thread_ranges[offset : offset + threads] if thread_ranges else None,
                parent_pid=os.getpid(),
                arrival_rate_per_s=arrival_rate_per_s * threads / sum(shares) if arrival_rate_per_s else None,
                seed=seed + index,
                **fields,
            )
            offset += threads
            tasks.append(task)
        results = self.pool.run(tasks)
        failures = [r.failure for r in results if r.failure]
        if failures and all(r.failure for r in results):
            # a task fails as a whole only before its requests: for UploadPart, at CreateMultipartUpload
            operation = "CreateMultipartUpload" if kind == "upload_part" else operation
            if all(refuses(failure) for failure in failures):
                raise Unsupported(operation, failures[0])
            raise MeasureError(f"every worker failed: {operation}: {failures[0]}")
        labels = {label for r in results for _, label, _ in r.errors}
        if labels and not any(r.starts for r in results) and all(refuses(label) for label in labels):
            raise Unsupported(operation, sorted(labels)[0])
        return results, warmup_end, end_at if end_at is not None else time.time()

    def measure(
        self,
        kind: TaskKind,
        concurrency: int,
        *,
        duration_s: float,
        warmup_s: float,
        count_bytes: bool,
        arrival_rate_per_s: float | None = None,
        **fields: Any,
    ) -> tuple[CellFigures, list[LoadResult]]:
        results, start, end = self.run(
            kind,
            concurrency,
            duration_s=duration_s,
            warmup_s=warmup_s,
            arrival_rate_per_s=arrival_rate_per_s,
            **fields,
        )
        figures = summarise(
            results,
            window_start=start,
            window_end=end,
            cpu_count=self.cpu_count,
            link_bits_per_s=self.options.link_bits_per_s,
            count_bytes=count_bytes,
            concurrency=concurrency,
            open_loop=arrival_rate_per_s is not None,
        )
        return figures, results

    def put_keys(
        self, keys: list[str], size: int, concurrency: int = 16, *, budget_s: float | None = None
    ) -> list[str]:
        """Write objects untimed (data for GET/HEAD/LIST/DELETE); fails loudly if any write fails.

        With ``budget_s`` the writing stops after that long and only the keys written so far are
        returned (the others were never sent, nor journaled); without it every key is written.
        """
        if not keys:
            return []
        results, _, _ = self.run(
            "put_keys",
            min(concurrency, len(keys)),
            duration_s=budget_s,
            keys=keys,
            split_keys=True,
            object_size=size,
            record_keys=True,
        )
        failed = sum(r.failed_ops for r in results)
        if failed:
            errors = [label for r in results for _, label, _ in r.errors]
            raise MeasureError(f"could not write {failed} test objects ({errors[0] if errors else 'unknown'})")
        written = {key for r in results for key in r.written_keys}
        return [key for key in keys if key in written]


def figures_to_cell(
    op: Operation,
    size: int | None,
    concurrency: int,
    figures: CellFigures,
    warmup_s: float,
    offered_per_s: float | None = None,
) -> Cell:
    return Cell(
        op=op,
        object_size_bytes=size,
        concurrency=concurrency,
        status="measured",
        mode="closed" if offered_per_s is None else "open",
        offered_per_s=offered_per_s,
        in_flight_mean=figures.in_flight_mean,
        late_arrivals=figures.late_arrivals,
        latency_histogram=figures.latency_histogram,
        ttfb_histogram=figures.ttfb_histogram,
        duration_s=figures.duration_s,
        warmup_s=warmup_s,
        window_start_unix=round(figures.window_start, 3),
        window_end_unix=round(figures.window_end, 3),
        samples=figures.samples,
        throughput_mib_per_s=figures.throughput_mib_per_s,
        ops_per_s=figures.ops_per_s,
        latency_s=figures.latency_s,
        ttfb_s=figures.ttfb_s,
        errors=figures.errors,
        retries=figures.retries,
        failed_ops=figures.failed_ops,
        requests=figures.requests,
        segment_s=figures.segment_s,
        segments=figures.segments,
        cv=figures.cv,
        client_cpu_fraction=figures.client_cpu_fraction,
        client_max_process_cpu=figures.client_max_process_cpu,
        host_cpu_fraction=figures.host_cpu_fraction,
        processes=figures.processes,
        flags=figures.flags,
        note=figures.note,
        engine=figures.engine,
    )


@contextmanager
def _signals_as_exceptions() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be set there; a run in a thread is stopped by whoever started it
        return

    def on_term(signum: int, frame: FrameType | None) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _shielded() -> Iterator[None]:
    """Ignore SIGINT/SIGTERM while cleaning up so a second Ctrl-C does not leave objects behind."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
    old_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)


def preflight(client: Any, bucket: str, prefix: str, endpoint: str, journal_file: Path) -> None:
    """Refuse an unreachable or unwritable bucket, or a run prefix that already holds objects."""
    from botocore.exceptions import NoCredentialsError

    where = f"bucket {bucket!r} at {endpoint}"
    try:
        client.head_bucket(Bucket=bucket)
    except NoCredentialsError:
        raise MeasureError(
            "no credentials found (set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE)"
        ) from None
    except Exception as error:
        label = describe_client_error(error)
        if label.startswith("404"):
            raise MeasureError(f"{where} does not exist") from None
        if label.startswith("403"):
            raise MeasureError(f"no permission to access {where} ({label})") from None
        raise MeasureError(f"cannot reach {where} ({label})") from None
    try:
        listed = client.list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=1)
    except Exception as error:
        raise MeasureError(f"cannot list {where} ({describe_client_error(error)})") from None
    if listed.get("KeyCount", len(listed.get("Contents", []))):
        raise MeasureError(f"run prefix {prefix} in {where} already holds objects; refusing to touch it")
    probe_key = f"{prefix}.write-check"
    journal.append(journal_file, {"put": probe_key})
    try:
        client.put_object(Bucket=bucket, Key=probe_key, Body=b"planner write check")
    except Exception as error:
        raise MeasureError(
            f"cannot write to {where} ({describe_client_error(error)}); planner measure needs permission"
            " to put and delete objects (use a scratch bucket)"
        ) from None
    try:
        client.delete_object(Bucket=bucket, Key=probe_key)
    except Exception as error:
        raise MeasureError(
            f"can write but not delete in {where} ({describe_client_error(error)}); refusing to leave objects"
        ) from None


class Measurement:
    """One run of ``planner measure``; ``run()`` returns the profile it wrote."""

    def __init__(
        self,
        options: MeasureOptions,
        reporter: Reporter | None = None,
        *,
        clock: Callable[[], float] | None = None,
        host: str | None = None,
        start_gate: Callable[[], float] | None = None,
    ) -> None:
        """``host``: one host of a several-host run, which writes under ``<run prefix><host>/``;
        ``start_gate``: called before every load, returns its common start (Unix seconds, this host's clock)."""
        from planner.measure import plan

        self.dropped: list[str] = []
        if options.budget_s is not None:
            try:
                options, fitted, self.plan = plan.fit_budget(options, options.budget_s)
            except ValueError as error:
                raise InputError(str(error), source="--budget") from None
            self.dropped = [f"{item} (to fit the budget)" for item in fitted]
        else:
            self.plan = plan.estimate(options)
        self.options = options
        self.reporter = reporter or Reporter()
        self.clock = clock or time.monotonic
        self._started_s = self.clock()
        self._planned_left_s = self.plan.seconds
        self.unsupported: list[UnsupportedStep] = []
        self.run_id = options.run_id or new_run_id()
        self.prefix = journal.run_prefix(self.run_id) + (f"{host}/" if host else "")
        self.start_gate = start_gate
        self.endpoint = sanitize_endpoint(options.endpoint) if options.endpoint else None
        self.journal_file = journal.journal_path(options.out.resolve().parent, self.run_id)
        self.cells: list[Cell] = []
        self.probes = Probes()
        self.started_at = datetime.now(UTC).isoformat(timespec="seconds")
        self.cleanup_report: CleanupReport | None = None
        self._host: ClientHost | None = None
        self._written_keys: dict[int, list[str]] = {}
        self._delete_serial = 0

    # -- output -------------------------------------------------------------------------------
    def profile(self, *, complete: bool, stopped_reason: str | None = None) -> Profile:
        finished = datetime.now(UTC).isoformat(timespec="seconds") if complete or stopped_reason else None
        return Profile(
            provider=self.options.provider,
            endpoint=self.endpoint,
            region=self.options.region,
            bucket=self.options.bucket,
            date=self.started_at[:10],
            tool_version=tool_version(),
            link_bits_per_s=self.options.link_bits_per_s,
            clients=[self._host] if self._host else [],
            run=RunInfo(
                run_id=self.run_id,
                prefix=self.prefix,
                started_at=self.started_at,
                finished_at=finished,
                complete=complete,
                stopped_reason=stopped_reason,
                options=self.options.recorded(),
                unsupported=list(self.unsupported),
                budget_s=self.options.budget_s,
                estimated_s=round(self.plan.seconds, 1),
                elapsed_s=round(self.clock() - self._started_s, 3),
                dropped=list(self.dropped),
            ),
            cells=list(self.cells),
            probes=self.probes,
            source=Source(kind="measured", note="measured by planner measure"),
        )

    def write(self, *, complete: bool = False, stopped_reason: str | None = None) -> None:
        profile = self.profile(complete=complete, stopped_reason=stopped_reason)
        write_atomic(self.options.out, profile.model_dump_json(indent=2) + "\n")

    # -- the run ------------------------------------------------------------------------------
    def run(self) -> Profile:
        options = self.options
        self._started_s = self.clock()
        self._host = client_host()
        preflight_client = make_client(
            options.endpoint,
            options.region,
            addressing=options.addressing,
            connect_timeout_s=options.connect_timeout_s,
            read_timeout_s=min(options.read_timeout_s, PREFLIGHT_READ_TIMEOUT_S),
            verify_tls=options.verify_tls,
        )
        client = make_client(
            options.endpoint,
            options.region,
            addressing=options.addressing,
            max_pool_connections=32,
            connect_timeout_s=options.connect_timeout_s,
            read_timeout_s=options.read_timeout_s,
            verify_tls=options.verify_tls,
        )
        try:
            journal.append(
                self.journal_file,
                {"run_id": self.run_id, "endpoint": self.endpoint, "bucket": options.bucket, "prefix": self.prefix},
            )
        except OSError as error:
            raise MeasureError(
                f"{self.journal_file.parent}: cannot write the run's journal there ({error.strerror or error});"
                " choose an --out in a folder you can write to"
            ) from None
        self.reporter.info(
            f"endpoint {self.endpoint or '(AWS default)'}  bucket {options.bucket}  prefix {self.prefix}"
            "  (writes and deletes only under this prefix)"
        )
        pool: WorkerPool | None = None
        complete = False
        stopped: str | None = None
        started = False
        try:
            with _signals_as_exceptions():
                preflight(preflight_client, options.bucket, self.prefix, self.endpoint or "AWS", self.journal_file)
                started = True
                self.write()
                settings = ClientSettings(
                    endpoint=options.endpoint,
                    region=options.region,
                    addressing=options.addressing,
                    verify_tls=options.verify_tls,
                    connect_timeout_s=options.connect_timeout_s,
                    read_timeout_s=options.read_timeout_s,
                    engine=options.engine,
                )
                pool = WorkerPool(settings, options.processes or os.cpu_count() or 1)
                engine = Engine(pool, options.bucket, self.journal_file, options, self.start_gate)
                engine.run("put_keys", pool.size, duration_s=None)  # start clients: imports, pools
                self._run_cells(engine)
                self._run_probes(engine)
                complete = True
        except KeyboardInterrupt:
            stopped = "interrupted (SIGINT)"
        except Terminated:
            stopped = "terminated (SIGTERM)"
        except BaseException as error:
            stopped = f"failed ({type(error).__name__})"
            raise
        finally:
            with _shielded():
                if pool is not None:
                    pool.drain()
                    pool.close()
                if stopped and started:
                    self.reporter.info(f"{stopped}: cleaning up; finished cells are kept in {options.out}")
                elif stopped:
                    self.reporter.info(f"{stopped} before the first cell: cleaning up; no profile was written")
                try:
                    if started or journal.read(self.journal_file).keys:
                        self.cleanup_report = cleanup_run(client, options.bucket, self.journal_file)
                    else:  # refused before writing anything: nothing to clean, and nothing to wait for
                        self.cleanup_report = CleanupReport()
                except Exception as error:
                    self.reporter.info(
                        f"cleanup failed ({describe_client_error(error)}); finish with planner measure cleanup"
                        f" --run-id {self.run_id}"
                    )
                if not started and self.cleanup_report is not None and self.cleanup_report.clean:
                    self.journal_file.unlink(missing_ok=True)
                if started:
                    self.write(complete=complete, stopped_reason=stopped)
                self._report_cleanup()
                self.reporter.done()
        return self.profile(complete=complete, stopped_reason=stopped)

    # -- time budget -------------------------------------------------------------------------
    def remaining_s(self) -> float | None:
        """Seconds left of the budget (less the cleanup reserve); None without a budget."""
        from planner.measure.plan import CLEANUP_RESERVE_FRACTION

        if self.options.budget_s is None:
            return None
        return self.options.budget_s * (1 - CLEANUP_RESERVE_FRACTION) - (self.clock() - self._started_s)

    def admit(self, label: str, seconds: float, planned_s: float | None = None) -> bool:
        """Whether a step estimated at ``seconds`` may start; one that would end past the budget is
        left out, recorded in ``dropped`` and its ``planned_s`` (default ``seconds``) taken off the plan."""
        left = self.remaining_s()
        if left is None or seconds <= left:
            return True
        self.dropped.append(f"{label} (not started: {max(left, 0):.0f} s of the budget left, needs ~{seconds:.0f} s)")
        self.finished_step(seconds if planned_s is None else planned_s)
        return False

    def finished_step(self, planned_s: float) -> None:
        """A step is done (or left out): report the time so far and the plan's estimate of what is left."""
        self._planned_left_s = max(0.0, self._planned_left_s - planned_s)
        self.reporter.progress(self.clock() - self._started_s, self._planned_left_s)

    def planned_s(self, label: str) -> float:
        step = self.plan.step(label)
        if step is not None:
            return step.seconds
        from planner.measure.plan import STEP_OVERHEAD_S

        return self.options.warmup_s + self.options.duration_s + STEP_OVERHEAD_S

    def note_unsupported(self, step: str, error: Unsupported) -> None:
        self.unsupported.append(UnsupportedStep(step=step, operation=error.operation, error=error.error))
        self.reporter.info(f"  {step}: unsupported by the server ({error.operation}: {error.error}); going on")

    def _report_cleanup(self) -> None:
        report = self.cleanup_report
        if report is None:
            return
        if report.clean:
            self.reporter.info(f"cleanup: deleted {report.deleted} objects under {self.prefix}")
        else:
            self.reporter.info(
                f"cleanup incomplete: {len(report.remaining)} objects remain; finish with planner measure"
                f" cleanup --run-id {self.run_id} (journal {self.journal_file})"
            )
        if report.foreign:
            self.reporter.info(f"{len(report.foreign)} objects under {self.prefix} were not written by this run")

    def _steps_total(self) -> int:
        return len(plan_steps(self.options))

    def _data_keys(self, size: int) -> list[str]:
        count = data_key_count(self.options, size)
        return [f"{self.prefix}data/{size}/{i:05d}" for i in range(count)]

    def _run_cells(self, engine: Engine) -> None:
        options = self.options
        total = self._steps_total()
        index = 0
        prepared: dict[int, list[str]] = {}

        def prep_label(size: int) -> str:
            return f"preparing {data_key_count(options, size)} objects of {size} B"

        def data_size(op: Operation, size: int | None) -> int | None:
            if op in ("get", "head"):
                return size
            return min(options.sizes) if op == "list" else None

        def ensure_data(size: int) -> list[str]:
            if size not in prepared:
                self.reporter.step(prep_label(size), index, total)
                # under a budget the writing stops when it runs out; the cells use what was written
                left = self.remaining_s()
                prepared[size] = engine.put_keys(
                    self._data_keys(size), size, budget_s=None if left is None else max(left, 1.0)
                )
                self.finished_step(self.planned_s(prep_label(size)))
            if not prepared[size]:
                raise MeasureError(f"no object of {size} B could be written within the budget")
            return prepared[size]

        def cell_fields(op: Operation, size: int | None, label: str) -> dict[str, Any]:
            fields: dict[str, Any] = {}
            if op in ("get", "head"):
                assert size is not None
                fields["keys"] = ensure_data(size)
                fields["object_size"] = size
            elif op == "list":
                smallest = min(options.sizes)
                ensure_data(smallest)
                fields["list_prefix"] = f"{self.prefix}data/{smallest}/"
            elif op == "put":
                assert size is not None
                fields["object_size"] = size
                fields["key_prefix"] = f"{self.prefix}put/{size}/{label}/"
                fields["record_keys"] = "delete" in options.ops
            return fields

        def record(op: Operation, size: int | None, cell: Cell, results: list[LoadResult]) -> None:
            if op == "put" and size is not None:
                self.remember_written(size, [key for r in results for key in r.written_keys])
            self.cells.append(cell)
            self.write()
            self.reporter.cell(cell)

        prep_taken_off: set[int] = set()  # preparations left out with the first cell that needed them

        def admitted(op: Operation, size: int | None, label: str, planned: str) -> bool:
            needed = planned_s = self.planned_s(planned)
            data = data_size(op, size)
            if data is not None and data not in prepared:
                needed += self.planned_s(prep_label(data))
                if data not in prep_taken_off:
                    planned_s = needed
            if self.admit(label, needed, planned_s):
                return True
            if data is not None:
                prep_taken_off.add(data)
            return False

        def measure_cell(
            op: Operation, size: int | None, concurrency: int, label: str, planned: str, rate: float | None = None
        ) -> None:
            """One cell: a closed loop of ``concurrency``, or an open loop at ``rate`` with at most that
            many in flight; an operation the endpoint refuses is noted and the run goes on."""
            try:
                if op == "delete":
                    assert size is not None and rate is None
                    figures, results = self.measure_delete(
                        engine, size, concurrency, duration_s=options.duration_s, warmup_s=options.warmup_s
                    )
                else:
                    figures, results = engine.measure(
                        op,
                        concurrency,
                        duration_s=options.duration_s,
                        warmup_s=options.warmup_s,
                        count_bytes=op in ("put", "get"),
                        arrival_rate_per_s=rate,
                        **cell_fields(op, size, f"c{concurrency}" if rate is None else f"r{rate:.6g}"),
                    )
            except Unsupported as error:
                self.note_unsupported(label, error)
            else:
                warmup_s = delete_warmup_s(options.warmup_s) if op == "delete" else options.warmup_s
                cell = figures_to_cell(op, size, concurrency, figures, warmup_s, offered_per_s=rate)
                record(op, size, cell, results)
            self.finished_step(self.planned_s(planned))

        for op in options.ops:
            sizes: list[int | None] = [None] if op == "list" else list(options.sizes)
            for size in sizes:
                for concurrency in options.concurrency:
                    index += 1
                    label = _cell_label(op, size, concurrency)
                    self.reporter.step(label, index, total)
                    if admitted(op, size, label, label):
                        measure_cell(op, size, concurrency, label, label)
                if op not in OPEN_LOOP_OPS:
                    continue
                cap = max(options.concurrency)
                planned_open = [f"{_cell_label(op, size, cap)} open {rate}" for rate in open_loop_rates(options)]
                rates = self._open_rates(op, size)
                for position, rate in enumerate(rates):
                    index += 1
                    label = _cell_label(op, size, cap, rate)
                    planned = planned_open[min(position, len(planned_open) - 1)]
                    self.reporter.step(label, index, total)
                    if admitted(op, size, label, planned):
                        measure_cell(op, size, cap, label, planned, rate)
                for planned in planned_open[len(rates) :]:
                    self.finished_step(self.planned_s(planned))
                index += len(open_loop_rates(options)) - len(rates)

    def _open_rates(self, op: str, size: int | None) -> list[float]:
        """This operation and size's open-loop arrival rates: the fixed ones, then fractions of the
        best closed-loop rate measured for it; a rate within 5 % of a lower one, or above 90 % of
        that peak (it would only measure the client's queue), is left out."""
        peak = max(
            (
                c.ops_per_s or 0.0
                for c in self.cells
                if c.op == op and c.object_size_bytes == size and c.mode == "closed" and "implausible" not in c.flags
            ),
            default=0.0,
        )
        wanted = [*self.options.open_rates_per_s, *(peak * f for f in self.options.open_peak_fractions)]
        rates: list[float] = []
        for rate in sorted(r for r in wanted if r > 0):
            if peak and rate > 0.9 * peak:
                continue
            if rates and rate < rates[-1] * 1.05:
                continue
            rates.append(float(f"{rate:.4g}"))
        return rates

    def remember_written(self, size: int, keys: list[str]) -> None:
        self._written_keys.setdefault(size, []).extend(keys)

    def measure_delete(
        self,
        engine: Engine,
        size: int,
        concurrency: int,
        *,
        duration_s: float,
        warmup_s: float,
        rate_hint: float = 0.0,
    ) -> tuple[CellFigures, list[LoadResult]]:
        """A DELETE cell: its work list is finite, so it is sized for the cell and re-run once if it ran out.

        A DELETE is a metadata operation, about as fast as a HEAD and often far faster than a PUT, so the
        list is sized from the fastest rate seen so far at this size (`rate_hint` adds the caller's own,
        e.g. the rate probe's), for a warm-up of at most ``DELETE_WARMUP_S`` (the connections are
        already open; every object deleted in the warm-up is one fewer in the window). A list that
        runs out before the window's end is measured again once with a list sized from the rate it
        observed. Writing a list takes at most ``delete_budget_s``; a list that still cannot last
        the window gives a cell flagged ``short-window``, never a rate that seems to cover it.
        """
        warmup_s = delete_warmup_s(warmup_s)

        def once(rate: float) -> tuple[CellFigures, list[LoadResult]]:
            keys = self._delete_pool(engine, size, concurrency, rate * (duration_s + warmup_s), duration_s + warmup_s)
            return engine.measure(
                "delete",
                concurrency,
                duration_s=duration_s,
                warmup_s=warmup_s,
                count_bytes=False,
                keys=keys,
                split_keys=True,
            )

        expected = max(self._best_rate("put", size) * 3, self._best_rate("head", size) * 1.2, rate_hint * 3)
        first_started = self.clock()
        figures, results = once(expected)
        if figures.duration_s >= SHORT_WINDOW * duration_s:  # the list lasted (a slow server's few samples stand)
            return figures, results
        left = self.remaining_s()
        if left is not None and left < 2 * (self.clock() - first_started):
            self.dropped.append(f"delete x{concurrency} {size} B: its list ran out; no second try within the budget")
            return figures, results
        starts = [s for r in results for s in r.starts]
        ends = [e for r in results for e in r.ends]
        observed = len(starts) / max(max(ends) - min(starts), 1e-3) if starts else 0.0
        self.reporter.info(
            f"  delete x{concurrency}: the {len(starts)} objects ran out before the window ended;"
            " measuring again with more"
        )
        return once(max(expected, observed) * 2)

    def _best_rate(self, op: str, size: int) -> float:
        rates = (c.ops_per_s or 0.0 for c in self.cells if c.op == op and c.object_size_bytes == size)
        return max(rates, default=0.0)

    def _delete_pool(
        self, engine: Engine, size: int, concurrency: int, expected_ops: float, cell_s: float
    ) -> list[str]:
        """Keys for a DELETE cell: objects the PUT cells wrote, topped up with untimed writes for at
        most ``delete_budget_s(cell_s)`` (no cap on bytes: a fast server deletes a great many)."""
        pool = self._written_keys.setdefault(size, [])
        wanted = min(int(max(40 * concurrency, MIN_SAMPLES * 2, expected_ops * 1.5)), _MAX_DELETE_POOL)
        if len(pool) < wanted:
            start = self._delete_serial
            self._delete_serial += wanted - len(pool)
            extra = [f"{self.prefix}delete/{size}/{i:07d}" for i in range(start, self._delete_serial)]
            write_s = self.options.delete_write_s or delete_budget_s(cell_s)
            left = self.remaining_s()
            write_s = write_s if left is None else max(1.0, min(write_s, left))
            pool.extend(engine.put_keys(extra, size, budget_s=write_s))
        taken, self._written_keys[size] = pool[:wanted], pool[wanted:]
        return taken

    def _run_probes(self, engine: Engine) -> None:
        from planner.measure import probes

        total = self._steps_total()
        done = total - len(self.options.probes)
        runners: dict[str, Callable[[], None]] = {
            "hot-object": lambda: setattr(self.probes, "hot_object", probes.hot_object(engine, self)),
            "part-size": lambda: setattr(self.probes, "part_size", probes.part_size(engine, self)),
            "range-get": lambda: setattr(self.probes, "range_get", probes.range_get(engine, self)),
            "rate": lambda: setattr(self.probes, "rate", probes.rate(engine, self)),
        }
        for offset, name in enumerate(self.options.probes):
            label = f"probe {name}"
            self.reporter.step(label, done + offset + 1, total)
            if not self.admit(label, self.planned_s(label)):
                continue
            try:
                runners[name]()
            except Unsupported as error:
                self.note_unsupported(label, error)
            self.write()
            self.finished_step(self.planned_s(label))
