"""Run one measurement plan from every worker of a Dask distributed cluster, at the same moments.

Each worker is a host: it runs the plan as ``planner measure`` would (its own worker processes,
journal and cleanup), under its own prefix ``planner-measure/<run-id>/<host>/``, and returns its
profile. The coordinator (the process that runs ``planner measure --dask``) first measures every
worker's clock against its own (the best of a few round trips: the offset is within half of that
round trip), then holds every load at a barrier: a host that reaches a load reports the load's
position in the plan (step, n-th load of the step) and waits; when every running host has
reached that position or gone past it (a host whose DELETE list ran out measures once more, the
others do not), the coordinator gives the hosts waiting there one start time on its own clock,
which each host converts to its own with its offset. The host profiles' windows are moved onto
the coordinator's clock and merged with ``merge_profiles``: a cell is summed only where every
host measured it in overlapping windows.

A host that fails (its endpoint refuses it, its worker is lost) leaves the others running; the
merged profile names it and why in ``merge.inputs``. Every host deletes what it wrote from its own
journal, kept on that host in ``<tmp>/planner-measure-<run-id>/<host>/``; a host whose worker was
lost is cleaned up from that journal by a task on the same host when one is available, else the
report gives the command to run there.

This module is the coordinator and the cluster's plumbing (workers, labels, clocks, the barrier);
a host's own side of the run is ``measure.host_run`` and the merge of the hosts' profiles is
``measure.host_merge``.

Credentials never travel: each worker reads the AWS credential chain of its own host (its
environment, profile or instance role), as each worker process of a one-host run reads the
environment it inherits. Dask distributed is an optional extra (``objstore-planner[dask]``), imported
only through ``planner.cluster.require_distributed``.
"""

from __future__ import annotations

import contextlib
import inspect
import multiprocessing
import re
import socket
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from planner.cluster import require_distributed
from planner.errors import MeasureError
from planner.measure.host_merge import merge_hosts
from planner.measure.host_run import (
    COORDINATOR_SILENCE_S,
    HostOutcome,
    HostPlan,
    RunStopped,
    cleanup_host,
    go_name,
    host_dir,
    journal_of,
    run_host,
    scheduler_names,
)
from planner.measure.journal import RUN_PREFIX_ROOT
from planner.measure.profile import Cell, Profile
from planner.measure.run.options import MeasureOptions, Reporter, new_run_id
from planner.measure.run.safety import write_atomic
from planner.measure.s3client import describe_client_error

__all__ = [
    "COORDINATOR_SILENCE_S",
    "ClusterRun",
    "HostOutcome",
    "HostPlan",
    "RunStopped",
    "describe_outcomes",
    "host_dir",
    "host_labels",
    "measure_and_report",
    "measure_on_cluster",
    "merge_hosts",
    "plan_hosts",
    "releasable",
]

CLOCK_ROUNDS = 5
MIN_START_LEAD_S = 0.5
"""The least time between the coordinator choosing a start and the start: the start has to reach
every waiting host through the scheduler, and each host has to hand it to its processes."""
_POLL_S = 0.05
MAX_START_LEAD_S = 5.0
LOST_HOST_WAIT_S = 30.0
"""How long the coordinator waits for a worker on a lost host's machine to clean up from its journal."""
_HEARTBEAT_S = 1.0
_WORKER_CHECK_S = 2.0


# -- the hosts ------------------------------------------------------------------------------------


def _describe_worker() -> dict[str, Any]:
    """Run on each worker before anything else: what the plan needs to know of its host."""
    return {
        "hostname": socket.gethostname(),
        "daemon": multiprocessing.current_process().daemon,
        "tmp": tempfile.gettempdir(),
    }


def _label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:63] or "host"


def host_labels(workers: dict[str, dict[str, Any]]) -> dict[str, str]:
    """A key-safe label per worker address: its hostname, with the worker's name added where
    several workers share a host (and a number where even that is not unique)."""
    hostnames = {address: _label(str(info["hostname"])) for address, info in workers.items()}
    labels: dict[str, str] = {}
    for address in sorted(workers):
        label = hostnames[address]
        if list(hostnames.values()).count(label) > 1:
            label = _label(f"{label}-{workers[address].get('name', '')}")
        while label in labels.values():
            label = _label(f"{label}-{len(labels)}")
        labels[address] = label
    return labels


def _clock_offsets(client: Any, addresses: list[str]) -> dict[str, tuple[float, float]]:
    """(offset, round trip) per worker: its clock minus ours, from the quickest of a few round trips."""
    best: dict[str, tuple[float, float]] = {}
    for _ in range(CLOCK_ROUNDS):
        for address in addresses:
            before = time.time()
            remote = float(client.run(time.time, workers=[address])[address])
            after = time.time()
            round_trip = after - before
            if address not in best or round_trip < best[address][1]:
                best[address] = (remote - (before + after) / 2, round_trip)
    return best


# -- the coordinator --------------------------------------------------------------------------------


@dataclass
class ClusterRun:
    """What ``measure_on_cluster`` did: the merged profile (if any host measured) and every host's outcome."""

    run_id: str
    profile: Profile | None
    hosts: list[HostPlan]
    outcomes: dict[str, HostOutcome] = field(default_factory=dict)
    host_files: dict[str, Path] = field(default_factory=dict)

    @property
    def failed(self) -> dict[str, str]:
        return {label: o.error or "failed" for label, o in self.outcomes.items() if not o.complete}


Key = tuple[int, int]
_DONE: Key = (1 << 62, 0)


def releasable(waiting: dict[str, Key], position: dict[str, Key], running: set[str]) -> tuple[Key, list[str]] | None:
    """The plan position whose waiting hosts may start now, and those hosts.

    ``position`` is where each running host is: the load it waits at, or the last one it was
    released at. The earliest waited-at position is released once every running host has
    reached it or gone past it; a host behind it will probably arrive there, so the others wait.
    """
    if not waiting:
        return None
    earliest = min(waiting.values())
    if all(position.get(host, (-1, -1)) >= earliest for host in running):
        return earliest, sorted(host for host, key in waiting.items() if key == earliest)
    return None


def _connect(scheduler: str) -> Any:
    dask = require_distributed()
    try:
        return dask.Client(scheduler, timeout=15, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise MeasureError(f"cannot reach the Dask scheduler at {_shown(scheduler)} ({type(error).__name__})") from None


def _shown(scheduler: str) -> str:
    """The scheduler address without any userinfo."""
    return re.sub(r"//[^/@]*@", "//", scheduler)


def plan_hosts(client: Any, scheduler: str) -> list[HostPlan]:
    """Every worker of the cluster as a host, with its clock offset; refuses workers that cannot run a plan."""
    workers = _workers(client)
    if not workers:
        raise MeasureError(f"the Dask cluster at {_shown(scheduler)} has no workers")
    described = client.run(_describe_worker)
    daemonic = sorted(address for address, info in described.items() if info["daemon"])
    if daemonic:
        raise MeasureError(
            f"{len(daemonic)} Dask workers run as daemon processes, which cannot start the measurement's worker"
            " processes; start the workers with DASK_DISTRIBUTED__WORKER__DAEMON=False"
        )
    for address, info in described.items():
        info["name"] = workers.get(address, {}).get("name", "")
    labels = host_labels(described)
    offsets = _clock_offsets(client, sorted(described))
    return [
        HostPlan(
            label=labels[address],
            address=address,
            hostname=str(described[address]["hostname"]),
            workdir=str(described[address]["tmp"]),
            clock_offset_s=offsets[address][0],
            clock_rtt_s=offsets[address][1],
        )
        for address in sorted(described)
    ]


class _Coordinator:
    """Holds every host's loads at the barrier and collects the hosts' outcomes."""

    def __init__(self, client: Any, run_id: str, hosts: list[HostPlan], reporter: Reporter) -> None:
        self._dask = require_distributed()
        inbox, self._go_prefix, alive = scheduler_names(run_id)
        self.client = client
        self.run_id = run_id
        self.hosts = {host.label: host for host in hosts}
        self.reporter = reporter
        self.inbox = self._dask.Queue(inbox, client=client)
        self.alive = self._dask.Variable(alive, client=client)
        self.lead_s = max(MIN_START_LEAD_S, 4 * max(host.clock_rtt_s for host in hosts))
        self.waiting: dict[str, Key] = {}
        self.seq: dict[str, int] = {}
        self.position: dict[str, Key] = {}
        self.running = set(self.hosts)
        self.outcomes: dict[str, HostOutcome] = {}
        self.stopping: str | None = None
        self.late_starts = 0
        self.lost: list[str] = []
        self._beat = 0

    def heartbeat(self) -> None:
        self._beat += 1
        self.alive.set(self._beat)

    def handle(self, message: dict[str, Any]) -> None:
        host = str(message.get("host"))
        kind = message.get("kind")
        if host not in self.hosts:
            return
        if kind == "arrive":
            key = message["key"]
            self.waiting[host] = self.position[host] = (int(key[0]), int(key[1]))
            self.seq[host] = int(message["seq"])
        elif kind == "late":
            late_s = float(message["seconds"])
            self.late_starts += 1
            self.lead_s = min(MAX_START_LEAD_S, max(2 * self.lead_s, self.lead_s + 2 * late_s))
            shown = f"{late_s * 1e3:.0f} ms"
            self.reporter.info(f"{host}: a common start arrived {shown} late; lead now {self.lead_s:.2g} s")
        elif kind == "info":
            self.reporter.info(f"{host}: {message['text']}")
        elif kind == "step":
            self.reporter.step(f"{message['label']} ({host})", int(message["index"]), int(message["total"]))
        elif kind == "cell":
            self.reporter.info(f"{host}: {_cell_summary(Cell.model_validate_json(message['cell']))}")

    def _answer(self, host: str, message: dict[str, Any]) -> None:
        del self.waiting[host]
        name = go_name(self._go_prefix, host, self.seq[host])
        self._dask.Variable(name, client=self.client).set(message)
        self._dask.Event(name, client=self.client).set()

    def release(self) -> None:
        if self.stopping is not None:
            for host in list(self.waiting):
                self._answer(host, {"stop": self.stopping})
            return
        while (found := releasable(self.waiting, self.position, self.running)) is not None:
            start = time.time() + self.lead_s
            for host in found[1]:
                self._answer(host, {"start_local": start + self.hosts[host].clock_offset_s})

    def finish(self, host: str, outcome: HostOutcome) -> None:
        self.outcomes[host] = outcome
        self.running.discard(host)
        self.waiting.pop(host, None)
        self.position[host] = _DONE

    def read_inbox(self) -> None:
        for message in self.inbox.get(batch=True):
            self.handle(message)


def _cell_summary(cell: Cell) -> str:
    size = "-" if cell.object_size_bytes is None else f"{cell.object_size_bytes} B"
    rate = "-" if cell.ops_per_s is None else f"{cell.ops_per_s:.1f}"
    mib = "-" if cell.throughput_mib_per_s is None else f"{cell.throughput_mib_per_s:.1f}"
    return f"{cell.op} {size} x{cell.concurrency}: {rate} ops/s, {mib} MiB/s, n={cell.samples}"


def measure_on_cluster(options: MeasureOptions, scheduler: str, reporter: Reporter | None = None) -> ClusterRun:
    """Run ``options``' plan from every worker of the cluster at ``scheduler``; write the merged
    profile to ``options.out`` and each host's own next to it (``<stem>.<host>.json``)."""
    require_distributed()
    reporter = reporter or Reporter()
    run_id = options.run_id or new_run_id()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    client = _connect(scheduler)
    try:
        hosts = plan_hosts(client, scheduler)
        clocks = ", ".join(f"{h.label} (clock {h.clock_offset_s * 1e3:+.1f} ms)" for h in hosts)
        reporter.info(f"{len(hosts)} hosts: {clocks}; each writes under {RUN_PREFIX_ROOT}{run_id}/<host>/")
        coordinator = _Coordinator(client, run_id, hosts, reporter)
        coordinator.heartbeat()
        futures = {
            host.label: client.submit(
                run_host,
                options,
                run_id,
                host,
                key=f"planner-measure-{run_id}-{host.label}",
                workers=[host.address],
                allow_other_workers=False,
                pure=False,
            )
            for host in hosts
        }
        _coordinate(client, coordinator, futures, options)
        outcomes = coordinator.outcomes
        start = {"start_lead_s": round(coordinator.lead_s, 3), "late_starts": coordinator.late_starts}
    finally:
        with contextlib.suppress(Exception):
            client.close()
    run = ClusterRun(run_id=run_id, profile=None, hosts=hosts, outcomes=outcomes)
    profiles: dict[str, Profile] = {}
    for host in hosts:
        outcome = outcomes[host.label]
        if outcome.profile_json is None:
            continue
        profile = Profile.model_validate_json(outcome.profile_json)
        path = options.out.with_name(f"{options.out.stem}.{host.label}{options.out.suffix}")
        write_atomic(path, profile.model_dump_json(indent=2) + "\n")
        run.host_files[host.label] = path
        profiles[host.label] = profile
    if profiles:
        run.profile = merge_hosts(profiles, hosts, outcomes, run_id, started_at, options, start)
        write_atomic(options.out, run.profile.model_dump_json(indent=2) + "\n")
    return run


def _coordinate(client: Any, coordinator: _Coordinator, futures: dict[str, Any], options: MeasureOptions) -> None:
    """The barrier loop until every host has an outcome (a Ctrl-C stops every host, which cleans up)."""
    hosts = coordinator.hosts
    next_beat = next_check = 0.0
    while coordinator.running:
        try:
            for label in sorted(coordinator.running):
                future = futures[label]
                if future.done():
                    coordinator.finish(label, _outcome(label, future))
            now = time.monotonic()
            if now >= next_check:
                next_check = now + _WORKER_CHECK_S
                _check_workers(client, coordinator, futures)
            if now >= next_beat:
                next_beat = now + _HEARTBEAT_S
                coordinator.heartbeat()
            coordinator.read_inbox()
            coordinator.release()
            time.sleep(_POLL_S)
        except KeyboardInterrupt:
            if coordinator.stopping is not None:
                raise
            coordinator.stopping = "interrupted (SIGINT)"
            coordinator.reporter.info("interrupted: stopping every host (each cleans up what it wrote)")
    for label in hosts:
        coordinator.outcomes.setdefault(label, HostOutcome(label=label, error=coordinator.stopping or "no outcome"))
    with contextlib.suppress(Exception):
        coordinator.alive.delete()  # the scheduler keeps a variable until it is deleted
    _clean_up_lost(client, coordinator, options)


def _outcome(label: str, future: Any) -> HostOutcome:
    try:
        outcome = future.result()
    except Exception as error:  # the task itself failed on the worker (before or after the run)
        return HostOutcome(label=label, error=f"the worker's task failed ({describe_client_error(error)})")
    assert isinstance(outcome, HostOutcome)
    return outcome


def _workers(client: Any) -> dict[str, dict[str, Any]]:
    """Every worker the scheduler knows (recent versions list only the first few unless asked)."""
    if "n_workers" in inspect.signature(client.scheduler_info).parameters:
        return dict(client.scheduler_info(n_workers=-1)["workers"])
    return dict(client.scheduler_info()["workers"])


def _machine(address: str) -> str:
    """The host part of a worker address (``tcp://10.0.0.5:40123`` -> ``10.0.0.5``)."""
    return address.split("://")[-1].rsplit(":", 1)[0].strip("[]")


def _check_workers(client: Any, coordinator: _Coordinator, futures: dict[str, Any]) -> None:
    """A host whose worker left the cluster has failed (its journal stays on its machine)."""
    try:
        present = _workers(client)
    except Exception:
        return
    for label in sorted(coordinator.running):
        host = coordinator.hosts[label]
        if host.address in present:
            continue
        futures[label].cancel()
        outcome = HostOutcome(label=label, error=f"its Dask worker {host.address} left the cluster")
        outcome.journal = journal_of(host, coordinator.run_id)
        coordinator.finish(label, outcome)
        coordinator.lost.append(label)


def _clean_up_lost(client: Any, coordinator: _Coordinator, options: MeasureOptions) -> None:
    """After the run: each lost host's objects deleted from its journal by a task on a worker of
    the same machine (a nanny restarts a lost worker there), waiting up to ``LOST_HOST_WAIT_S``
    for one; a host with none left keeps ``cleanup_clean`` unset and the report says what to run."""
    pending: dict[str, Any] = {}
    deadline = time.monotonic() + LOST_HOST_WAIT_S
    for label in coordinator.lost:
        host, outcome = coordinator.hosts[label], coordinator.outcomes[label]
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                same = [a for a, info in _workers(client).items() if _machine(a) == _machine(host.address)]
                if same:
                    pending[label] = client.submit(cleanup_host, options, outcome.journal, workers=same, pure=False)
                    break
            time.sleep(0.5)
    for label, future in pending.items():
        outcome = coordinator.outcomes[label]
        try:
            clean, deleted, remaining = future.result(timeout=max(1.0, deadline - time.monotonic()) + 300)
        except Exception as error:
            coordinator.reporter.info(f"{label}: cleanup from its journal failed ({describe_client_error(error)})")
            continue
        outcome.cleanup_clean, outcome.cleanup_deleted, outcome.cleanup_remaining = bool(clean), deleted, remaining


def describe_outcomes(run: ClusterRun) -> list[str]:
    """One line per host: what it did, and for a failed or unclean one, why and what to run."""
    lines = []
    for host in run.hosts:
        outcome = run.outcomes[host.label]
        state = "complete" if outcome.complete else f"FAILED: {outcome.error}"
        if outcome.cleanup_clean:
            cleaned = f"cleanup deleted {outcome.cleanup_deleted} objects"
        elif outcome.journal is None:
            cleaned = "cleanup unknown (no word from the host)"
        else:
            cleaned = (
                f"cleanup incomplete: on {host.hostname} run planner measure cleanup --run-id {run.run_id}"
                f" --journal {outcome.journal}"
            )
        lines.append(f"{host.label}: {state}; {cleaned}")
    return lines


def measure_and_report(options: MeasureOptions, scheduler: str, reporter: Reporter) -> None:
    """``planner measure --dask``: run, report through ``reporter``, and raise a one-line
    ``MeasureError`` when a host failed (after the other hosts' results are written)."""
    try:
        run = measure_on_cluster(options, scheduler, reporter)
    finally:
        reporter.done()
    for cell in run.profile.cells if run.profile is not None else []:
        reporter.cell(cell)
    for line in describe_outcomes(run):
        reporter.info(line)
    failed = run.failed
    if run.profile is None:
        raise MeasureError("every host failed: " + "; ".join(f"{label}: {error}" for label, error in failed.items()))
    reporter.info(
        f"wrote {options.out} ({len(run.profile.cells)} cells merged from {len(run.host_files)} hosts;"
        f" each host's own profile beside it: {', '.join(path.name for path in run.host_files.values())})"
    )
    if failed:
        label, error = next(iter(failed.items()))
        more = f" (and {len(failed) - 1} more hosts)" if len(failed) > 1 else ""
        raise MeasureError(f"host {label} failed: {error}{more}; the other hosts' results are in {options.out}")
