"""Run a measurement: safety checks, the cell matrix, the probes, output after every cell, cleanup.

Everything the run writes lives under ``planner-measure/<run-id>/`` and is journaled before it is
written; whatever happens (a finished run, Ctrl-C, SIGTERM, an exception) the ``finally`` block
stops the workers, deletes the journaled keys, aborts multipart uploads and writes the profile.
"""

from __future__ import annotations

import os
import platform
import socket
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from planner.errors import InputError, MeasureError
from planner.measure import journal, plan, probes
from planner.measure.cleanup import CleanupReport, cleanup_run
from planner.measure.clients import obstore_version
from planner.measure.plan import CLEANUP_RESERVE_FRACTION, STEP_OVERHEAD_S
from planner.measure.pool import WorkerPool
from planner.measure.profile import Cell, ClientHost, Operation, Probes, Profile, RunInfo, Source, UnsupportedStep
from planner.measure.run.cells import CellRunner, figures_to_cell
from planner.measure.run.options import (
    MeasureOptions,
    Reporter,
    cell_label,
    data_key_count,
    delete_budget_s,
    delete_warmup_s,
    in_plan,
    knee_rounds,
    new_run_id,
    open_loop_steps,
    open_window_s,
    plan_steps,
)
from planner.measure.run.safety import (
    PREFLIGHT_READ_TIMEOUT_S,
    Terminated,
    Unsupported,
    preflight,
    shielded,
    signals_as_exceptions,
    write_atomic,
)
from planner.measure.s3client import describe_client_error, make_client, sanitize_endpoint
from planner.measure.stats import MIN_SAMPLES, SHORT_WINDOW, CellFigures
from planner.measure.worker import ClientSettings, LoadResult

_MAX_DELETE_POOL = 200_000  # objects in one DELETE cell's list (each is a journal line)


def tool_version() -> str:
    try:
        from importlib.metadata import version

        return f"planner {version('objstore-planner')}"
    except Exception:
        return "planner (unknown version)"


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
        self._open_journal()
        pool: WorkerPool | None = None
        complete = False
        stopped: str | None = None
        started = False
        try:
            with signals_as_exceptions():
                preflight(preflight_client, options.bucket, self.prefix, self.endpoint or "AWS", self.journal_file)
                started = True
                self.write()
                pool = self._start_pool()
                cell_runner = CellRunner(pool, options.bucket, self.journal_file, options, self.start_gate)
                cell_runner.run("put_keys", pool.size, duration_s=None)  # start clients: imports, pools
                self._run_cells(cell_runner)
                self._run_probes(cell_runner)
                complete = True
        except KeyboardInterrupt:
            stopped = "interrupted (SIGINT)"
        except Terminated:
            stopped = "terminated (SIGTERM)"
        except BaseException as error:
            stopped = f"failed ({type(error).__name__})"
            raise
        finally:
            with shielded():
                self._finish(client, pool, started=started, complete=complete, stopped=stopped)
        return self.profile(complete=complete, stopped_reason=stopped)

    def _open_journal(self) -> None:
        """The run's first journal line (a folder that cannot hold it is refused before any request)."""
        try:
            journal.append(
                self.journal_file,
                {
                    "run_id": self.run_id,
                    "endpoint": self.endpoint,
                    "bucket": self.options.bucket,
                    "prefix": self.prefix,
                },
            )
        except OSError as error:
            raise MeasureError(
                f"{self.journal_file.parent}: cannot write the run's journal there ({error.strerror or error});"
                " choose an --out in a folder you can write to"
            ) from None
        self.reporter.info(
            f"endpoint {self.endpoint or '(AWS default)'}  bucket {self.options.bucket}  prefix {self.prefix}"
            "  (writes and deletes only under this prefix)"
        )

    def _start_pool(self) -> WorkerPool:
        options = self.options
        settings = ClientSettings(
            endpoint=options.endpoint,
            region=options.region,
            addressing=options.addressing,
            verify_tls=options.verify_tls,
            connect_timeout_s=options.connect_timeout_s,
            read_timeout_s=options.read_timeout_s,
            engine=options.engine,
        )
        return WorkerPool(settings, options.processes or os.cpu_count() or 1)

    def _finish(
        self, client: Any, pool: WorkerPool | None, *, started: bool, complete: bool, stopped: str | None
    ) -> None:
        """However the run ended: stop the workers, delete what the journal names, write the profile."""
        if pool is not None:
            pool.drain()
            pool.close()
        if stopped and started:
            self.reporter.info(f"{stopped}: cleaning up; finished cells are kept in {self.options.out}")
        elif stopped:
            self.reporter.info(f"{stopped} before the first cell: cleaning up; no profile was written")
        try:
            if started or journal.read(self.journal_file).keys:
                self.cleanup_report = cleanup_run(client, self.options.bucket, self.journal_file)
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

    # -- time budget -------------------------------------------------------------------------
    def remaining_s(self) -> float | None:
        """Seconds left of the budget (less the cleanup reserve); None without a budget."""
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

    def _run_cells(self, cell_runner: CellRunner) -> None:
        _CellMatrix(self, cell_runner).measure_all()

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
        cell_runner: CellRunner,
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
            keys = self._delete_pool(
                cell_runner, size, concurrency, rate * (duration_s + warmup_s), duration_s + warmup_s
            )
            return cell_runner.measure(
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
        self, cell_runner: CellRunner, size: int, concurrency: int, expected_ops: float, cell_s: float
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
            pool.extend(cell_runner.put_keys(extra, size, budget_s=write_s))
        taken, self._written_keys[size] = pool[:wanted], pool[wanted:]
        return taken

    def _run_probes(self, cell_runner: CellRunner) -> None:
        total = self._steps_total()
        done = total - len(self.options.probes)
        by_name: dict[str, Callable[[], None]] = {
            "hot-object": lambda: setattr(self.probes, "hot_object", probes.hot_object(cell_runner, self)),
            "part-size": lambda: setattr(self.probes, "part_size", probes.part_size(cell_runner, self)),
            "range-get": lambda: setattr(self.probes, "range_get", probes.range_get(cell_runner, self)),
            "rate": lambda: setattr(self.probes, "rate", probes.rate(cell_runner, self)),
        }
        for offset, name in enumerate(self.options.probes):
            label = f"probe {name}"
            self.reporter.step(label, done + offset + 1, total)
            if not self.admit(label, self.planned_s(label)):
                continue
            try:
                by_name[name]()
            except Unsupported as error:
                self.note_unsupported(label, error)
            self.write()
            self.finished_step(self.planned_s(label))


class _CellMatrix:
    """A run's cells in plan order: per operation and size, its closed-loop cells at each
    concurrency, then its open-loop rates; the objects the GET, HEAD and LIST cells read are
    written once per size, before the first cell that needs them."""

    def __init__(self, run: Measurement, cell_runner: CellRunner) -> None:
        self.run = run
        self.cell_runner = cell_runner
        self.options = run.options
        self.total = run._steps_total()
        self.index = 0
        self.prepared: dict[int, list[str]] = {}
        self.prep_taken_off: set[int] = set()  # preparations left out with the first cell that needed them

    def measure_all(self) -> None:
        for op in self.options.ops:
            sizes: list[int | None] = [None] if op == "list" else list(self.options.sizes)
            for size in sizes:
                for concurrency in self.options.concurrency:
                    if not in_plan(self.options, op, size, concurrency):
                        continue
                    self.index += 1
                    label = cell_label(op, size, concurrency)
                    self.run.reporter.step(label, self.index, self.total)
                    if self._admitted(op, size, label, label):
                        self._measure_cell(op, size, concurrency, label, label)
                self._measure_open_loop(op, size)

    def _measure_open_loop(self, op: Operation, size: int | None) -> None:
        """The open-loop cells of one operation and size, at the rates ``Measurement._open_rates`` gives,
        then the knee's further rounds of those of them that are fractions of the peak."""
        options, run = self.options, self.run
        cap = max(options.concurrency)
        first, again = open_loop_steps(options, op, size)
        if not first:
            return
        rates = run._open_rates(op, size)
        fixed = {float(f"{rate:.4g}") for rate in options.open_rates_per_s}
        loaded = [rate for rate in rates if rate not in fixed] if again else []
        runs = [(rate, first[min(i, len(first) - 1)], 1) for i, rate in enumerate(rates)]
        rounds = knee_rounds(options, op, size)
        repeats = [(rate, round_) for round_ in range(2, rounds + 1) for rate in loaded]
        runs += [(rate, again[min(i, len(again) - 1)], round_) for i, (rate, round_) in enumerate(repeats)]
        for rate, planned, round_ in runs:
            self.index += 1
            label = cell_label(op, size, cap, rate) + (f" round {round_}" if round_ > 1 else "")
            run.reporter.step(label, self.index, self.total)
            if self._admitted(op, size, label, planned):
                window_s = open_window_s(options, rate if rate in fixed else None)
                self._measure_cell(op, size, cap, label, planned, rate, window_s)
        for planned in first[len(rates) :] + again[len(repeats) :]:
            run.finished_step(run.planned_s(planned))
        self.index += len(first) + len(again) - len(runs)

    def _prep_label(self, size: int) -> str:
        return f"preparing {data_key_count(self.options, size)} objects of {size} B"

    def _data_size(self, op: Operation, size: int | None) -> int | None:
        if op in ("get", "head"):
            return size
        return min(self.options.sizes) if op == "list" else None

    def _ensure_data(self, size: int) -> list[str]:
        run = self.run
        if size not in self.prepared:
            run.reporter.step(self._prep_label(size), self.index, self.total)
            # under a budget the writing stops when it runs out; the cells use what was written
            left = run.remaining_s()
            self.prepared[size] = self.cell_runner.put_keys(
                run._data_keys(size), size, budget_s=None if left is None else max(left, 1.0)
            )
            run.finished_step(run.planned_s(self._prep_label(size)))
        if not self.prepared[size]:
            raise MeasureError(f"no object of {size} B could be written within the budget")
        return self.prepared[size]

    def _cell_fields(self, op: Operation, size: int | None, label: str) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        prefix = self.run.prefix
        if op in ("get", "head"):
            assert size is not None
            fields["keys"] = self._ensure_data(size)
            fields["object_size"] = size
        elif op == "list":
            smallest = min(self.options.sizes)
            self._ensure_data(smallest)
            fields["list_prefix"] = f"{prefix}data/{smallest}/"
        elif op == "put":
            assert size is not None
            fields["object_size"] = size
            fields["key_prefix"] = f"{prefix}put/{size}/{label}/"
            fields["record_keys"] = "delete" in self.options.ops
        return fields

    def _record(self, op: Operation, size: int | None, cell: Cell, results: list[LoadResult]) -> None:
        run = self.run
        if op == "put" and size is not None:
            run.remember_written(size, [key for r in results for key in r.written_keys])
        run.cells.append(cell)
        run.write()
        run.reporter.cell(cell)

    def _admitted(self, op: Operation, size: int | None, label: str, planned: str) -> bool:
        run = self.run
        needed = planned_s = run.planned_s(planned)
        data = self._data_size(op, size)
        if data is not None and data not in self.prepared:
            needed += run.planned_s(self._prep_label(data))
            if data not in self.prep_taken_off:
                planned_s = needed
        if run.admit(label, needed, planned_s):
            return True
        if data is not None:
            self.prep_taken_off.add(data)
        return False

    def _measure_cell(
        self,
        op: Operation,
        size: int | None,
        concurrency: int,
        label: str,
        planned: str,
        rate: float | None = None,
        window_s: float | None = None,
    ) -> None:
        """One cell: a closed loop of ``concurrency``, or an open loop at ``rate`` with at most that
        many in flight (for ``window_s``, default the cells' window); an operation the endpoint refuses
        is noted and the run goes on."""
        options, run = self.options, self.run
        try:
            if op == "delete":
                assert size is not None and rate is None
                figures, results = run.measure_delete(
                    self.cell_runner, size, concurrency, duration_s=options.duration_s, warmup_s=options.warmup_s
                )
            else:
                figures, results = self.cell_runner.measure(
                    op,
                    concurrency,
                    duration_s=options.duration_s if window_s is None else window_s,
                    warmup_s=options.warmup_s,
                    count_bytes=op in ("put", "get"),
                    arrival_rate_per_s=rate,
                    **self._cell_fields(op, size, f"c{concurrency}" if rate is None else f"r{rate:.6g}"),
                )
        except Unsupported as error:
            run.note_unsupported(label, error)
        else:
            warmup_s = delete_warmup_s(options.warmup_s) if op == "delete" else options.warmup_s
            cell = figures_to_cell(op, size, concurrency, figures, warmup_s, offered_per_s=rate)
            self._record(op, size, cell, results)
        run.finished_step(run.planned_s(planned))
