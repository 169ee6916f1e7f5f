"""The load-generating worker processes: long-lived, spawned once per run, one task queue each.

Each process runs ``run_task`` (``measure.worker``) for every task it is handed, until the parent
sends ``None``, sets ``stop`` or disappears; its result goes back on the pool's one result queue.
A parent killed with SIGKILL cannot tell its workers: each watches its parent from a thread of its
own and exits within ``PARENT_POLL_S`` of its going, whatever its task is waiting on (a request
stuck until its read timeout, a result no one will read).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import threading
import time
from typing import Any

from planner.measure.s3client import classify_error
from planner.measure.worker import ClientSettings, LoadResult, LoadTask, run_task

PARENT_POLL_S = 0.5
"""How often a worker looks for its parent."""


def exit_with_parent(parent_pid: int) -> threading.Thread:
    """Start a daemon thread that ends this process (``os._exit``: no clean-up that could wait on a
    queue no one reads) as soon as ``parent_pid`` is no longer its parent. Portable: an orphan is
    re-parented on every POSIX system, and ``os.getppid`` on Windows keeps the pid it was started by
    (the thread then never fires, and the task's own checks remain)."""

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != parent_pid:
                os._exit(1)

    watcher = threading.Thread(target=watch, name="exit-with-parent", daemon=True)
    watcher.start()
    return watcher


def worker_main(settings: ClientSettings, tasks: Any, results: Any, stop: Any, parent_pid: int) -> None:
    """Process entry point: run tasks until told to stop or the parent disappears."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides how to stop
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    exit_with_parent(parent_pid)
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
