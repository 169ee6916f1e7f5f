"""Load-generating worker processes: each has its own clients (boto3, and obstore for small objects:
``measure.clients`` says which sends a task's requests) and a share of the threads.

Python threads share one GIL, so a single process cannot keep many fast requests in flight;
the parent spreads a cell's concurrency over several processes (``measure.pool.WorkerPool``), each running
``threads`` request threads between ``start_at`` and ``end_at`` (wall clock, the same on every
process of the host). In a closed loop each thread sends its next request as soon as the last
one ends; in an open loop (``arrival_rate_per_s``) the threads serve Poisson arrivals, at most
``threads`` at a time, and a request is timed from its scheduled arrival. Every attempt is timed
and every failed attempt recorded with its cause; retries are ours, botocore and obstore make one
attempt per call.

The request threads never touch the cross-process ``stop`` event: reading a multiprocessing
``Event`` takes a lock shared by every worker process, and doing so before each request kept
about half the threads of a multi-process cell waiting for that lock instead of for the
endpoint. The task's main thread watches ``stop`` (and the parent) and relays it to a
process-local ``threading.Event``.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import random
import resource
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from planner.measure.clients import EngineChoice, EngineName, SmallObjectClient, engine_for, make_store
from planner.measure.journal import JournalWriter
from planner.measure.s3client import Addressing, TruncatedBody, classify_error, make_client

TaskKind = Literal["get", "put", "head", "list", "delete", "upload_part", "put_keys"]
_READ_CHUNK = 1024 * 1024
LATE_ARRIVAL_S = 0.002
"""An open-loop arrival sent more than this after its scheduled time is late (the client fell behind)."""


@dataclass(frozen=True)
class ClientSettings:
    endpoint: str | None
    region: str | None
    addressing: Addressing = "auto"
    verify_tls: bool = True
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 60.0
    engine: EngineChoice = "auto"  # which client sends small-object requests (``measure.clients``)


@dataclass
class LoadTask:
    kind: TaskKind
    bucket: str
    threads: int
    start_at: float
    warmup_end: float
    end_at: float | None  # None: until the work list is done (put_keys, delete)
    journal: str
    object_size: int = 0
    keys: list[str] = field(default_factory=list)
    key_prefix: str = ""
    byte_range: tuple[int, int] | None = None  # inclusive, the same for every thread
    thread_ranges: list[tuple[int, int]] | None = None  # one range per thread
    list_prefix: str = ""
    max_attempts: int = 3
    record_keys: bool = False
    parent_pid: int = 0  # stop if the coordinating process disappears (SIGKILL)
    arrival_rate_per_s: float | None = None  # open loop: this process's Poisson arrival rate
    seed: int = 0  # open loop: arrival times are drawn from this seed
    task_id: int = 0


@dataclass
class LoadResult:
    task_id: int = 0
    starts: list[float] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)
    ttfbs: list[float] = field(default_factory=list)  # from the request's origin (see ``scheduled``)
    nbytes: list[int] = field(default_factory=list)
    scheduled: list[float] = field(default_factory=list)  # open loop: each success's scheduled arrival
    errors: list[tuple[float, str, bool]] = field(default_factory=list)  # (time, cause, retried)
    error_starts: list[float] = field(default_factory=list)  # when each failed attempt was sent
    late_arrivals: list[float] = field(default_factory=list)  # open loop: arrivals sent late (scheduled times)
    slow_sends: list[float] = field(default_factory=list)  # ... of which a thread was free in time for
    backoffs: list[tuple[float, float]] = field(default_factory=list)  # (from, to) of each retry's pause
    retries: int = 0
    failed_ops: int = 0
    written_keys: list[str] = field(default_factory=list)
    cpu_s: float = 0.0
    window_s: float = 0.0
    host_busy_fraction: float | None = None  # all processes of the host, over the same window (Linux)
    failure: str | None = None
    engine: EngineName = "boto3"  # the client that sent this task's requests


_payloads: dict[int, bytes] = {}


def _payload(size: int) -> bytes:
    """Random (incompressible) bytes, made once per size per process."""
    if size not in _payloads:
        _payloads[size] = os.urandom(size)
    return _payloads[size]


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _host_cpu_ticks() -> tuple[int, int] | None:
    """(busy, total) jiffies of every core since boot from /proc/stat; None where it does not exist."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = [int(v) for v in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # guest time is already counted in user time
    return total - idle, total


def _busy_fraction(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    if before is None or after is None or after[1] <= before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1])


def _backoff_s(attempt: int) -> float:
    return float(random.uniform(0.5, 1.0) * min(1.0, 0.05 * 2 ** (attempt - 1)))


class _Recorder:
    """Per-thread sample lists, merged after the threads finish (no lock on the hot path)."""

    def __init__(self) -> None:
        self.result = LoadResult()

    def attempt(
        self,
        request: Callable[[float], tuple[float, int]],
        max_attempts: int,
        stop: threading.Event,
        scheduled: float | None = None,
    ) -> bool:
        """Send a request, retrying what may be retried; its time counts from ``scheduled`` if given
        (an open loop's arrival), else from when it was sent."""
        attempt = 0
        while True:
            started = time.time()
            try:
                ttfb, size = request(started if scheduled is None else scheduled)
            except Exception as error:  # every failure is data here
                label, retryable = classify_error(error)
                attempt += 1
                retried = retryable and attempt < max_attempts and not stop.is_set()
                self.result.errors.append((time.time(), label, retried))
                self.result.error_starts.append(started)
                if not retried:
                    self.result.failed_ops += 1
                    return False
                self.result.retries += 1
                paused = time.time()
                stop.wait(_backoff_s(attempt))
                self.result.backoffs.append((paused, time.time()))
                continue
            result = self.result
            result.starts.append(started)
            result.ends.append(time.time())
            result.ttfbs.append(ttfb)
            result.nbytes.append(size)
            if scheduled is not None:
                result.scheduled.append(scheduled)
            return True


def _merge(into: LoadResult, part: LoadResult) -> None:
    into.starts += part.starts
    into.ends += part.ends
    into.ttfbs += part.ttfbs
    into.nbytes += part.nbytes
    into.scheduled += part.scheduled
    into.errors += part.errors
    into.error_starts += part.error_starts
    into.late_arrivals += part.late_arrivals
    into.slow_sends += part.slow_sends
    into.backoffs += part.backoffs
    into.retries += part.retries
    into.failed_ops += part.failed_ops
    into.written_keys += part.written_keys


_clients: dict[ClientSettings, tuple[int, Any]] = {}


def _client(settings: ClientSettings, threads: int) -> Any:
    """This process's client, made once (building one costs tens of milliseconds of CPU, which a
    cell's start would otherwise spend) and remade only when a task needs a larger pool."""
    pool_size = threads + 2
    cached = _clients.get(settings)
    if cached is not None and cached[0] >= pool_size:
        return cached[1]
    client = make_client(
        settings.endpoint,
        settings.region,
        addressing=settings.addressing,
        max_pool_connections=pool_size,
        connect_timeout_s=settings.connect_timeout_s,
        read_timeout_s=settings.read_timeout_s,
        verify_tls=settings.verify_tls,
    )
    _clients[settings] = (pool_size, client)
    return client


_stores: dict[tuple[ClientSettings, str], SmallObjectClient] = {}


def _small_object_client(settings: ClientSettings, bucket: str) -> SmallObjectClient:
    """This process's obstore client for ``bucket``, made once (its connection pool has no cap)."""
    cached = _stores.get((settings, bucket))
    if cached is None:
        store = make_store(
            settings.endpoint,
            settings.region,
            bucket,
            addressing=settings.addressing,
            connect_timeout_s=settings.connect_timeout_s,
            read_timeout_s=settings.read_timeout_s,
            verify_tls=settings.verify_tls,
        )
        cached = _stores[(settings, bucket)] = SmallObjectClient(store)
    return cached


def task_request_bytes(task: LoadTask) -> int:
    """The bytes one request of ``task`` moves (a GET's range if it has one); 0 for metadata."""
    if task.kind not in ("get", "put", "put_keys", "upload_part"):
        return 0
    if task.byte_range is not None:
        return task.byte_range[1] - task.byte_range[0] + 1
    if task.thread_ranges:
        return max(last - first + 1 for first, last in task.thread_ranges)
    return task.object_size


class _Arrivals:
    """Poisson arrival times from ``start`` to ``end``, handed out in order to whichever thread asks."""

    def __init__(self, rate_per_s: float, start: float, end: float | None, seed: int) -> None:
        self._rng = random.Random(seed)
        self._rate = rate_per_s
        self._next = start + self._rng.expovariate(rate_per_s)
        self._end = end
        self._lock = threading.Lock()

    def take(self) -> float | None:
        with self._lock:
            due = self._next
            if self._end is not None and due >= self._end:
                return None
            self._next = due + self._rng.expovariate(self._rate)
            return due


def _timed(call: Callable[[], object], size: int = 0) -> Callable[[float], tuple[float, int]]:
    """A request that makes ``call`` and counts its time to the end as its TTFB (no body to stream)."""

    def request(started: float) -> tuple[float, int]:
        call()
        return time.time() - started, size

    return request


class _TaskRun:
    """One task in this process: its clients, payload, journal, and the request threads' shared state.

    ``halt`` is the process-local stop the request threads read (see the module docstring).
    """

    def __init__(self, settings: ClientSettings, task: LoadTask) -> None:
        self.task = task
        self.client = _client(settings, task.threads)
        self.engine = engine_for(task.kind, task_request_bytes(task), settings.engine)
        self.small = _small_object_client(settings, task.bucket) if self.engine == "obstore" else None
        self.halt = threading.Event()
        self.journal = JournalWriter(task.journal)
        self.body = _payload(task.object_size) if task.kind in ("put", "put_keys", "upload_part") else b""
        self.recorders = [_Recorder() for _ in range(task.threads)]
        self.upload: dict[str, str] = {}
        self._part_numbers = itertools.count(1)
        self._part_lock = threading.Lock()
        self._key_counter = itertools.count()
        self.arrivals = (
            _Arrivals(task.arrival_rate_per_s, task.start_at, task.end_at, task.seed)
            if task.arrival_rate_per_s
            else None
        )

    # -- the task's lifetime, on the task's main thread ---------------------------------------------

    def run(self, stop: Any) -> LoadResult:
        """Start the threads, relay ``stop`` to them until they end, and merge their samples."""
        task = self.task
        total = LoadResult(task_id=task.task_id, engine=self.engine)
        try:
            if task.kind == "upload_part":
                self._create_upload()
            threads = [threading.Thread(target=self.thread_main, args=(i,), daemon=True) for i in range(task.threads)]
            for thread in threads:
                thread.start()
            self._watch(threads, stop, total)
            for recorder in self.recorders:
                _merge(total, recorder.result)
        finally:
            if self.upload:
                with contextlib.suppress(Exception):
                    self.client.abort_multipart_upload(
                        Bucket=task.bucket, Key=self.upload["key"], UploadId=self.upload["id"]
                    )
                    self.journal.write({"mpu_done": self.upload["id"]})
            self.journal.close()
        return total

    def _create_upload(self) -> None:
        """The multipart upload every thread of an ``upload_part`` task sends its parts to (journalled)."""
        task = self.task
        key = f"{task.key_prefix}{os.getpid()}"
        self.journal.write({"put": key})
        created = self.client.create_multipart_upload(Bucket=task.bucket, Key=key)
        self.upload.update(key=key, id=created["UploadId"])
        self.journal.write({"mpu": key, "upload_id": created["UploadId"]})

    def _watch(self, threads: list[threading.Thread], stop: Any, total: LoadResult) -> None:
        """Wait for the threads, relaying ``stop`` (or the parent's end) to ``halt``; CPU is sampled
        over the measured window only (warm-up excluded)."""
        task = self.task
        cpu_start = wall_start = 0.0
        host_start: tuple[int, int] | None = None
        sampling = False
        while alive := [thread for thread in threads if thread.is_alive()]:
            now = time.time()
            if not sampling and now >= task.warmup_end:
                cpu_start, wall_start, host_start, sampling = _cpu_seconds(), now, _host_cpu_ticks(), True
            if stop.is_set() or (task.parent_pid and os.getppid() != task.parent_pid):
                self.halt.set()
            alive[0].join(timeout=0.05 if sampling else min(0.05, max(task.warmup_end - now, 0.001)))
        if sampling:
            total.cpu_s = _cpu_seconds() - cpu_start
            total.window_s = time.time() - wall_start
            total.host_busy_fraction = _busy_fraction(host_start, _host_cpu_ticks())

    # -- one request thread -------------------------------------------------------------------------

    def running(self) -> bool:
        task = self.task
        return not self.halt.is_set() and (task.end_at is None or time.time() < task.end_at)

    def thread_main(self, index: int) -> None:
        """Request thread ``index``: wait for the start, then work through its keys or send until the end."""
        task = self.task
        recorder = self.recorders[index]
        rng = random.Random(index * 7919 + os.getpid())
        delay = task.start_at - time.time()
        if delay > 0:
            time.sleep(delay)
        if task.kind in ("delete", "put_keys"):
            self._work_through_keys(index, recorder)
            return
        byte_range = task.byte_range
        if task.thread_ranges is not None:
            byte_range = task.thread_ranges[index % len(task.thread_ranges)]
        send = functools.partial(self._send, index, recorder, rng, byte_range)
        if self.arrivals is None:
            while self.running() and send(None):
                pass
            return
        self._open_loop(self.arrivals, recorder, send)

    def _work_through_keys(self, index: int, recorder: _Recorder) -> None:
        """PUT or DELETE this thread's share of the task's keys, each once (with its retries)."""
        task = self.task
        for key in task.keys[index :: task.threads]:
            if not self.running():
                break
            if task.kind == "put_keys":
                self.journal.write({"put": key})
                sent = recorder.attempt(_timed(self._put(key), len(self.body)), task.max_attempts, self.halt)
                if sent and task.record_keys:
                    recorder.result.written_keys.append(key)
            else:
                recorder.attempt(
                    _timed(functools.partial(self.client.delete_object, Bucket=task.bucket, Key=key)),
                    task.max_attempts,
                    self.halt,
                )

    def _open_loop(self, arrivals: _Arrivals, recorder: _Recorder, send: Callable[[float | None], bool]) -> None:
        """Take the next arrival and send it when it is due; it is late when it goes out more than
        LATE_ARRIVAL_S after that (no thread was free, or the client was too slow)."""
        while not self.halt.is_set():
            due = arrivals.take()
            if due is None:
                return
            wait = due - time.time()
            if wait > 0 and self.halt.wait(wait):
                return
            if time.time() - due > LATE_ARRIVAL_S:
                recorder.result.late_arrivals.append(due)
                if wait > 0:  # a worker was waiting for it: the client's own lag, not a full set of workers
                    recorder.result.slow_sends.append(due)
            if not send(due):
                return

    def _send(
        self,
        index: int,
        recorder: _Recorder,
        rng: random.Random,
        byte_range: tuple[int, int] | None,
        scheduled: float | None,
    ) -> bool:
        """One request (with its retries); False when the work is used up."""
        task, client, small, halt = self.task, self.client, self.small, self.halt
        if task.kind == "get":
            key = task.keys[rng.randrange(len(task.keys))]
            recorder.attempt(self._get(key, byte_range), task.max_attempts, halt, scheduled)
        elif task.kind == "head":
            key = task.keys[rng.randrange(len(task.keys))]
            call = (
                functools.partial(small.head, key)
                if small is not None
                else functools.partial(client.head_object, Bucket=task.bucket, Key=key)
            )
            recorder.attempt(_timed(call), task.max_attempts, halt, scheduled)
        elif task.kind == "list":
            call = functools.partial(client.list_objects_v2, Bucket=task.bucket, Prefix=task.list_prefix, MaxKeys=1000)
            recorder.attempt(_timed(call), task.max_attempts, halt, scheduled)
        elif task.kind == "put":
            key = f"{task.key_prefix}{os.getpid()}-{index}-{next(self._key_counter)}"
            self.journal.write({"put": key})
            sent = recorder.attempt(_timed(self._put(key), len(self.body)), task.max_attempts, halt, scheduled)
            if sent and task.record_keys:
                recorder.result.written_keys.append(key)
        elif task.kind == "upload_part":
            with self._part_lock:
                number = next(self._part_numbers)
            if number > 10000:
                return False
            call = functools.partial(
                client.upload_part,
                Bucket=task.bucket,
                Key=self.upload["key"],
                UploadId=self.upload["id"],
                PartNumber=number,
                Body=self.body,
            )
            recorder.attempt(_timed(call, len(self.body)), task.max_attempts, halt, scheduled)
        return True

    # -- the requests ---------------------------------------------------------------------------------

    def _get(self, key: str, byte_range: tuple[int, int] | None) -> Callable[[float], tuple[float, int]]:
        """A GET of ``key`` (or of ``byte_range`` of it) that reads the whole body and checks its length."""
        if self.small is not None:
            return functools.partial(self.small.get, key, byte_range)
        client, bucket = self.client, self.task.bucket

        def request(started: float) -> tuple[float, int]:
            kwargs: dict[str, Any] = {"Bucket": bucket, "Key": key}
            if byte_range is not None:
                kwargs["Range"] = f"bytes={byte_range[0]}-{byte_range[1]}"
            response = client.get_object(**kwargs)
            stream = response["Body"]
            try:
                first = stream.read(1)
                ttfb = time.time() - started
                size = len(first)
                while True:
                    chunk = stream.read(_READ_CHUNK)
                    if not chunk:
                        break
                    size += len(chunk)
            finally:
                stream.close()
            expected = int(response.get("ContentLength", size))
            if size != expected:
                raise TruncatedBody()
            return ttfb, size

        return request

    def _put(self, key: str) -> Callable[[], object]:
        if self.small is not None:
            return functools.partial(self.small.put, key, self.body)
        return functools.partial(self.client.put_object, Bucket=self.task.bucket, Key=key, Body=self.body)


def run_task(settings: ClientSettings, task: LoadTask, stop: Any) -> LoadResult:
    """Run one task's threads in this process and return the raw samples.

    ``stop`` (a multiprocessing event) is read by this thread only and relayed to the request
    threads through a thread-local event (see the module docstring).
    """
    return _TaskRun(settings, task).run(stop)
