"""Load-generating worker processes: each has its own boto3 client and a share of the threads.

Python threads share one GIL, so a single process cannot keep many fast requests in flight;
the parent spreads a cell's concurrency over several processes (``WorkerPool``), each running
``threads`` closed-loop request threads between ``start_at`` and ``end_at`` (wall clock, the
same on every process of the host). Every attempt is timed and every failed attempt recorded
with its cause; retries are ours, botocore makes one attempt per call.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import multiprocessing
import os
import queue
import random
import resource
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from measure.journal import JournalWriter
from measure.s3client import Addressing, TruncatedBody, classify_error, make_client

TaskKind = Literal["get", "put", "head", "list", "delete", "upload_part", "put_keys"]
_READ_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class ClientSettings:
    endpoint: str | None
    region: str | None
    addressing: Addressing = "auto"
    verify_tls: bool = True
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 60.0


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
    task_id: int = 0


@dataclass
class LoadResult:
    task_id: int = 0
    starts: list[float] = field(default_factory=list)
    ends: list[float] = field(default_factory=list)
    ttfbs: list[float] = field(default_factory=list)
    nbytes: list[int] = field(default_factory=list)
    errors: list[tuple[float, str, bool]] = field(default_factory=list)  # (time, cause, retried)
    retries: int = 0
    failed_ops: int = 0
    written_keys: list[str] = field(default_factory=list)
    cpu_s: float = 0.0
    window_s: float = 0.0
    failure: str | None = None


_payloads: dict[int, bytes] = {}


def _payload(size: int) -> bytes:
    """Random (incompressible) bytes, made once per size per process."""
    if size not in _payloads:
        _payloads[size] = os.urandom(size)
    return _payloads[size]


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _backoff_s(attempt: int) -> float:
    return float(random.uniform(0.5, 1.0) * min(1.0, 0.05 * 2 ** (attempt - 1)))


class _Recorder:
    """Per-thread sample lists, merged after the threads finish (no lock on the hot path)."""

    def __init__(self) -> None:
        self.result = LoadResult()

    def attempt(self, request: Callable[[float], tuple[float, int]], max_attempts: int, stop: Any) -> bool:
        attempt = 0
        while True:
            started = time.time()
            try:
                ttfb, size = request(started)
            except Exception as error:  # every failure is data here
                label, retryable = classify_error(error)
                attempt += 1
                retried = retryable and attempt < max_attempts and not stop.is_set()
                self.result.errors.append((time.time(), label, retried))
                if not retried:
                    self.result.failed_ops += 1
                    return False
                self.result.retries += 1
                time.sleep(_backoff_s(attempt))
                continue
            result = self.result
            result.starts.append(started)
            result.ends.append(time.time())
            result.ttfbs.append(ttfb)
            result.nbytes.append(size)
            return True


def _merge(into: LoadResult, part: LoadResult) -> None:
    into.starts += part.starts
    into.ends += part.ends
    into.ttfbs += part.ttfbs
    into.nbytes += part.nbytes
    into.errors += part.errors
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


def run_task(settings: ClientSettings, task: LoadTask, stop: Any) -> LoadResult:
    """Run one task's threads in this process and return the raw samples."""
    client = _client(settings, task.threads)
    journal = JournalWriter(task.journal)
    body = _payload(task.object_size) if task.kind in ("put", "put_keys", "upload_part") else b""
    recorders = [_Recorder() for _ in range(task.threads)]
    upload: dict[str, str] = {}
    part_numbers = itertools.count(1)
    part_lock = threading.Lock()
    key_counter = itertools.count()

    def running() -> bool:
        if stop.is_set() or (task.parent_pid and os.getppid() != task.parent_pid):
            return False
        return task.end_at is None or time.time() < task.end_at

    def get(key: str, byte_range: tuple[int, int] | None) -> Callable[[float], tuple[float, int]]:
        def request(started: float) -> tuple[float, int]:
            kwargs: dict[str, Any] = {"Bucket": task.bucket, "Key": key}
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

    def simple(call: Callable[[], object], size: int = 0) -> Callable[[float], tuple[float, int]]:
        def request(started: float) -> tuple[float, int]:
            call()
            return time.time() - started, size

        return request

    def thread_main(index: int) -> None:
        recorder = recorders[index]
        rng = random.Random(index * 7919 + os.getpid())
        delay = task.start_at - time.time()
        if delay > 0:
            time.sleep(delay)
        if task.kind in ("delete", "put_keys"):
            work = task.keys[index :: task.threads]
            for key in work:
                if not running():
                    break
                if task.kind == "put_keys":
                    journal.write({"put": key})
                    recorder.attempt(
                        simple(functools.partial(client.put_object, Bucket=task.bucket, Key=key, Body=body), len(body)),
                        task.max_attempts,
                        stop,
                    )
                else:
                    recorder.attempt(
                        simple(functools.partial(client.delete_object, Bucket=task.bucket, Key=key)),
                        task.max_attempts,
                        stop,
                    )
            return
        byte_range = task.byte_range
        if task.thread_ranges is not None:
            byte_range = task.thread_ranges[index % len(task.thread_ranges)]
        while running():
            if task.kind == "get":
                key = task.keys[rng.randrange(len(task.keys))]
                recorder.attempt(get(key, byte_range), task.max_attempts, stop)
            elif task.kind == "head":
                key = task.keys[rng.randrange(len(task.keys))]
                recorder.attempt(
                    simple(functools.partial(client.head_object, Bucket=task.bucket, Key=key)),
                    task.max_attempts,
                    stop,
                )
            elif task.kind == "list":
                recorder.attempt(
                    simple(
                        functools.partial(
                            client.list_objects_v2, Bucket=task.bucket, Prefix=task.list_prefix, MaxKeys=1000
                        )
                    ),
                    task.max_attempts,
                    stop,
                )
            elif task.kind == "put":
                key = f"{task.key_prefix}{os.getpid()}-{index}-{next(key_counter)}"
                journal.write({"put": key})
                if (
                    recorder.attempt(
                        simple(functools.partial(client.put_object, Bucket=task.bucket, Key=key, Body=body), len(body)),
                        task.max_attempts,
                        stop,
                    )
                    and task.record_keys
                ):
                    recorder.result.written_keys.append(key)
            elif task.kind == "upload_part":
                with part_lock:
                    number = next(part_numbers)
                if number > 10000:
                    return
                recorder.attempt(
                    simple(
                        functools.partial(
                            client.upload_part,
                            Bucket=task.bucket,
                            Key=upload["key"],
                            UploadId=upload["id"],
                            PartNumber=number,
                            Body=body,
                        ),
                        len(body),
                    ),
                    task.max_attempts,
                    stop,
                )

    total = LoadResult(task_id=task.task_id)
    try:
        if task.kind == "upload_part":
            key = f"{task.key_prefix}{os.getpid()}"
            journal.write({"put": key})
            created = client.create_multipart_upload(Bucket=task.bucket, Key=key)
            upload.update(key=key, id=created["UploadId"])
            journal.write({"mpu": key, "upload_id": created["UploadId"]})
        threads = [threading.Thread(target=thread_main, args=(i,), daemon=True) for i in range(task.threads)]
        for thread in threads:
            thread.start()
        # CPU is sampled over the measured window only (warm-up excluded).
        wait = task.warmup_end - time.time()
        if wait > 0:
            stop.wait(wait)
        cpu_start, wall_start = _cpu_seconds(), time.time()
        for thread in threads:
            thread.join()
        total.cpu_s = _cpu_seconds() - cpu_start
        total.window_s = time.time() - wall_start
        for recorder in recorders:
            _merge(total, recorder.result)
    finally:
        if upload:
            with contextlib.suppress(Exception):
                client.abort_multipart_upload(Bucket=task.bucket, Key=upload["key"], UploadId=upload["id"])
                journal.write({"mpu_done": upload["id"]})
        journal.close()
    return total


def worker_main(settings: ClientSettings, tasks: Any, results: Any, stop: Any, parent_pid: int) -> None:
    """Process entry point: run tasks until told to stop or the parent disappears."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides how to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        try:
            task = tasks.get(timeout=0.5)
        except queue.Empty:
            if os.getppid() != parent_pid:
                return
            continue
        if task is None:
            return
        try:
            result = run_task(settings, task, stop)
        except Exception as error:
            label, _ = classify_error(error)
            result = LoadResult(task_id=task.task_id, failure=label)
        results.put(result)


class WorkerPool:
    """Long-lived worker processes, one task queue each, so a task lands on the process meant."""

    def __init__(self, settings: ClientSettings, processes: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.stop = context.Event()
        self._results: Any = context.Queue()
        self._queues: list[Any] = []
        self._processes: list[Any] = []
        self._next_id = 1
        self._pending: set[int] = set()
        for _ in range(max(1, processes)):
            tasks = context.Queue()
            process = context.Process(
                target=worker_main, args=(settings, tasks, self._results, self.stop, os.getpid()), daemon=True
            )
            process.start()
            self._queues.append(tasks)
            self._processes.append(process)

    @property
    def size(self) -> int:
        return len(self._processes)

    def run(self, tasks: list[LoadTask]) -> list[LoadResult]:
        """Run task i on process i (at most ``size`` tasks) and wait for all results."""
        if len(tasks) > self.size:
            raise ValueError("more tasks than worker processes")
        pending: set[int] = set()
        for index, task in enumerate(tasks):
            task.task_id = self._next_id
            self._next_id += 1
            pending.add(task.task_id)
            self._pending.add(task.task_id)
            self._queues[index].put(task)
        results: list[LoadResult] = []
        while pending:
            try:
                result = self._results.get(timeout=0.5)
            except queue.Empty:
                dead = [p for p in self._processes if not p.is_alive()]
                if dead:
                    raise RuntimeError(f"a worker process died (exit code {dead[0].exitcode})") from None
                continue
            self._pending.discard(result.task_id)
            if result.task_id in pending:
                pending.discard(result.task_id)
                results.append(result)
        return results

    def drain(self, timeout_s: float = 30.0) -> None:
        """After an interrupt: let running tasks see ``stop`` and return, discarding their results."""
        self.stop.set()
        deadline = time.time() + timeout_s
        while self._pending and time.time() < deadline:
            try:
                result = self._results.get(timeout=0.2)
            except queue.Empty:
                if not any(p.is_alive() for p in self._processes):
                    return
                continue
            self._pending.discard(result.task_id)

    def close(self) -> None:
        for tasks in self._queues:
            with contextlib.suppress(Exception):
                tasks.put(None)
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
                process.join(timeout=2)
