"""One host's side of a measurement run across a Dask cluster (``measure.distributed``).

On its worker, a host runs the whole plan as ``planner measure`` would, under its own prefix and
folder, reporting its progress to the coordinator and waiting at each load for the common start
(``_HostLink.gate``); whatever happens it cleans up what it wrote and returns a ``HostOutcome``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.cluster import require_distributed
from planner.errors import MeasureError, PlannerError
from planner.measure import journal
from planner.measure.cleanup import cleanup_run
from planner.measure.profile import Cell, Profile
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions, Reporter
from planner.measure.s3client import describe_client_error, make_client

COORDINATOR_SILENCE_S = 60.0
"""A host that hears nothing from the coordinator for this long stops (and cleans up)."""
_LATE_S = 0.05
"""A start that reaches a host with less than this to go is late there: the host starts this much
later than the others (its processes need the time to receive the load) and the lead grows."""


@dataclass(frozen=True)
class HostPlan:
    """One worker of the cluster as a measuring host."""

    label: str  # the host's name in keys and in the profile
    address: str  # the Dask worker's address
    hostname: str
    workdir: str  # on that host: its profile and journal
    clock_offset_s: float  # its clock minus the coordinator's
    clock_rtt_s: float


@dataclass
class HostOutcome:
    label: str
    profile_json: str | None = None
    error: str | None = None
    complete: bool = False
    cleanup_clean: bool | None = None
    cleanup_deleted: int = 0
    cleanup_remaining: int = 0
    journal: str | None = None


class RunStopped(MeasureError):
    """The coordinator stopped the run, or went silent."""


def scheduler_names(run_id: str) -> tuple[str, str, str]:
    """The run's scheduler-held objects: the coordinator's inbox (a queue), the prefix of each
    load's start (an event and a variable per host and load) and the coordinator's heartbeat."""
    base = f"planner-measure-{run_id}"
    return f"{base}-inbox", f"{base}-go-", f"{base}-alive"


def go_name(go_prefix: str, host: str, seq: int) -> str:
    return f"{go_prefix}{host}-{seq}"


class _HostLink:
    """A host's line to the coordinator: progress out, the common start of every load in.

    A host waits on an ``Event`` (a wait that times out is quiet on the scheduler, where a
    ``Queue.get`` that times out logs an error) and reads the start from a ``Variable``.
    """

    def __init__(self, run_id: str, host: str) -> None:
        self._dask = require_distributed()
        inbox, self._go_prefix, alive = scheduler_names(run_id)
        self.host = host
        self._out = self._dask.Queue(inbox)
        self._alive = self._dask.Variable(alive)
        self.step_index = 0
        self.load_index = 0
        self._seq = 0

    def send(self, kind: str, **fields: Any) -> None:
        self._out.put({"kind": kind, "host": self.host, **fields})

    def gate(self) -> float:
        """Report this load's place in the plan and wait for its start; the start, Unix seconds here."""
        seq, self._seq = self._seq, self._seq + 1
        self.send("arrive", key=[self.step_index, self.load_index], seq=seq)
        self.load_index += 1
        name = go_name(self._go_prefix, self.host, seq)
        event = self._dask.Event(name)
        heard = time.monotonic()
        last_beat: Any = None
        while not event.wait(timeout=1.0):
            beat = None
            with contextlib.suppress(TimeoutError):
                beat = self._alive.get(timeout=1.0)
            if beat != last_beat:
                last_beat, heard = beat, time.monotonic()
            if time.monotonic() - heard > COORDINATOR_SILENCE_S:
                raise RunStopped(f"no word from the coordinator for {COORDINATOR_SILENCE_S:g} s")
        variable = self._dask.Variable(name)
        message = variable.get()
        variable.delete()
        event.clear()
        if "stop" in message:
            raise RunStopped(str(message["stop"]))
        start = float(message["start_local"])
        earliest = time.time() + _LATE_S
        if start < earliest:
            self.send("late", seconds=earliest - start)
        return max(start, earliest)


class _HostReporter(Reporter):
    """Sends the run's progress to the coordinator and tracks the plan step for the barrier."""

    def __init__(self, link: _HostLink) -> None:
        self.link = link

    def info(self, message: str) -> None:
        self.link.send("info", text=message)

    def step(self, label: str, index: int, total: int) -> None:
        if index != self.link.step_index:
            self.link.step_index, self.link.load_index = index, 0
        self.link.send("step", label=label, index=index, total=total)

    def cell(self, cell: Cell) -> None:
        self.link.send("cell", cell=cell.model_dump_json())


def host_dir(workdir: str, run_id: str, label: str) -> Path:
    return Path(workdir) / f"planner-measure-{run_id}" / label


def run_host(options: MeasureOptions, run_id: str, host: HostPlan) -> HostOutcome:
    """On a worker: the whole plan under the host's prefix, cleaned up whatever happens."""
    folder = host_dir(host.workdir, run_id, host.label)
    folder.mkdir(parents=True, exist_ok=True)
    own = dataclasses.replace(options, out=folder / "profile.json", run_id=run_id)
    link = _HostLink(run_id, host.label)
    measurement = Measurement(own, _HostReporter(link), host=host.label, start_gate=link.gate)
    outcome = HostOutcome(label=host.label, journal=str(measurement.journal_file))
    profile: Profile | None = None
    try:
        profile = measurement.run()
        outcome.complete = profile.run is not None and profile.run.complete
        if profile.run is not None and profile.run.stopped_reason:
            outcome.error = profile.run.stopped_reason
    except PlannerError as error:
        outcome.error = str(error)
    except Exception as error:  # the host's failure is data for the coordinator
        outcome.error = f"failed ({describe_client_error(error)})"
    if profile is None and measurement.cells:
        profile = measurement.profile(complete=False, stopped_reason=outcome.error)
    outcome.profile_json = profile.model_dump_json() if profile is not None and profile.cells else None
    report = measurement.cleanup_report
    if report is not None:
        outcome.cleanup_clean = report.clean
        outcome.cleanup_deleted = report.deleted
        outcome.cleanup_remaining = len(report.remaining)
    return outcome


def cleanup_host(options: MeasureOptions, journal_file: str) -> tuple[bool, int, int]:
    """On a worker of the host a lost worker ran on: delete what its journal lists."""
    client = make_client(options.endpoint, options.region, addressing=options.addressing, verify_tls=options.verify_tls)
    report = cleanup_run(client, options.bucket, Path(journal_file))
    return report.clean, report.deleted, len(report.remaining)


def journal_of(host: HostPlan, run_id: str) -> str:
    """Where ``host`` keeps the run's journal, on its own machine."""
    return str(journal.journal_path(host_dir(host.workdir, run_id, host.label), run_id))
