"""One cell of the matrix: a load spread over the worker processes, its samples summarised, and the
figures as the profile's ``Cell``."""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planner.errors import MeasureError
from planner.measure.pool import WorkerPool
from planner.measure.profile import Cell, Operation
from planner.measure.run.options import MeasureOptions
from planner.measure.run.safety import Unsupported, refuses, s3_operation
from planner.measure.stats import CellFigures, load_figures
from planner.measure.worker import LoadResult, LoadTask, TaskKind

_LARGE_REQUEST_BYTES = 1 << 20
_THREADS_PER_PROCESS_LARGE = 16


class CellRunner:
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
        figures = load_figures(
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
    # a window in which no request completed measured nothing: the cell is missing, not a figure of 0
    nothing = figures.samples == 0
    return Cell(
        op=op,
        object_size_bytes=size,
        concurrency=concurrency,
        status="missing" if nothing else "measured",
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
        note="no request completed in the window: nothing was measured" + (f" ({figures.note})" if figures.note else "")
        if nothing
        else figures.note,
        engine=figures.engine,
    )
