"""The profiles of a cluster run's hosts moved onto the coordinator's clock and merged into one.

Each host's cell windows are shifted by its measured clock offset before ``merge_profiles`` sums
the cells every host measured in overlapping windows; the merged profile records the run and
every host (its prefix, clock offset, and whether and why it failed) in ``merge.inputs``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from planner.measure.host_run import HostOutcome, HostPlan
from planner.measure.journal import RUN_PREFIX_ROOT
from planner.measure.merge import METHOD, merge_profiles
from planner.measure.profile import MergeInfo, MergeInput, Profile, RunInfo, Source
from planner.measure.run.options import MeasureOptions


def merge_hosts(
    profiles: dict[str, Profile],
    hosts: list[HostPlan],
    outcomes: dict[str, HostOutcome],
    run_id: str,
    started_at: str,
    options: MeasureOptions,
    start: dict[str, Any] | None = None,
) -> Profile:
    """The hosts' profiles on the coordinator's clock, merged; the run and every host recorded."""
    by_label = {host.label: host for host in hosts}
    aligned: list[Profile] = []
    for label, profile in profiles.items():
        shift = by_label[label].clock_offset_s
        copy = profile.model_copy(deep=True)
        for cell in copy.cells:
            if cell.window_start_unix is not None:
                cell.window_start_unix = round(cell.window_start_unix - shift, 3)
            if cell.window_end_unix is not None:
                cell.window_end_unix = round(cell.window_end_unix - shift, 3)
        for client in copy.clients[:1]:
            client.hostname = label  # the merge names hosts by this; two workers may share a machine
        aligned.append(copy)
    merged = merge_profiles(aligned) if len(aligned) > 1 else _single(aligned[0], next(iter(profiles)))
    assert merged.merge is not None
    inputs: list[MergeInput] = []
    for host in hosts:
        outcome = outcomes[host.label]
        held = profiles.get(host.label)
        inputs.append(
            MergeInput(
                run_id=run_id,
                hostname=host.label,
                started_at=held.run.started_at if held is not None and held.run else None,
                finished_at=held.run.finished_at if held is not None and held.run else None,
                prefix=f"{RUN_PREFIX_ROOT}{run_id}/{host.label}/",
                clock_offset_s=round(host.clock_offset_s, 6),
                clock_rtt_s=round(host.clock_rtt_s, 6),
                complete=outcome.complete,
                error=outcome.error,
            )
        )
    merged.merge.inputs = inputs
    failed = [f"{label}: {o.error}" for label, o in outcomes.items() if not o.complete]
    merged.run = RunInfo(
        run_id=run_id,
        prefix=f"{RUN_PREFIX_ROOT}{run_id}/",
        started_at=started_at,
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        complete=not failed,
        stopped_reason="; ".join(failed) or None,
        options={**options.recorded(), "run_id": run_id, "hosts": len(hosts), "common_start": start or {}},
    )
    merged.source = Source(
        kind="merged",
        note=f"measured from {len(hosts)} hosts of a Dask cluster with a common start per load;"
        f" {len(profiles)} hosts contributed; probes from the first",
    )
    return merged


def _single(profile: Profile, label: str) -> Profile:
    """One host's profile in the merged form (the other hosts failed before measuring a cell)."""
    cells = []
    for cell in profile.cells:
        copy = cell.model_copy(deep=True)
        copy.hosts = [label]
        cells.append(copy)
    return profile.model_copy(
        update={
            "cells": cells,
            "run": None,
            "merge": MergeInfo(method=METHOD, overlapped=False, inputs=[]),
        },
        deep=True,
    )
