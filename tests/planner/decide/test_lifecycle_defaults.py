"""Two lifecycle fixes found on azure-blob: a provider without a ``standard`` class writes new objects to its
first (hottest) class unless ``--current`` names one, and an archive class that reads reach is judged on its
restore even when the workload states no bytes read (GETs of archived objects need a restore whatever their
size)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from planner.costing.lifecycle_bills import default_write_class, price_lifecycle
from planner.pricing import catalog
from planner.workload import parse_workload

WORKLOAD = """\
name: cold-tail
storage:
  stored: 10 TB
  objects: 1M
  age: {"0-30d": 40%, "30-90d": 30%, "90d+": 30%}
traffic:
  reads: 100k
  writes: 10k
  reads_by_age: {"0-30d": 90%, "30-90d": 9%, "90d+": 1%}
constraints: {providers: [azure-blob], months: 12}
"""


def test_the_default_write_class_is_standard_or_the_first() -> None:
    day = dt.date(2026, 12, 1)
    assert default_write_class(catalog.table_for("aws-s3", day)) == "standard"
    assert default_write_class(catalog.table_for("azure-blob", day)) == "hot"


def test_azure_blob_is_proposed_without_current(tmp_path: Path, run_cli: Any) -> None:
    path = tmp_path / "cold-tail.yaml"
    path.write_text(WORKLOAD)
    done = run_cli("--wide", "lifecycle", str(path), "-p", "azure-blob", "--as-of", "2026-12-01")
    assert done.code == 0, done.err
    today = next(line for line in done.out.splitlines() if line.startswith("today "))
    assert today.split()[:2] == ["today", "hot"]
    proposed = next(line for line in done.out.splitlines() if line.startswith("proposed "))
    # Archive's rehydration is not in the table, and the workload reads its old objects: no archive policy
    assert "archive" not in proposed
    assert "policies rejected, e.g. hot -> 0d cold -> 90d archive: archive objects must be restored before a read" in (
        done.out
    )
    assert "the workload reads (100,000 GETs a month) and gives no performance.max_restore" in done.out


def test_reads_reaching_an_archive_class_are_counted_by_class() -> None:
    workload = parse_workload(
        {
            "name": "w",
            "storage": {
                "stored": "10 TB",
                "objects": "1M",
                "age": {"0-30d": "40%", "30-90d": "30%", "90d+": "30%"},
                "lifecycle": [{"after": "30d", "to": "archive"}],
            },
            "traffic": {"reads": "100k", "writes": "10k", "reads_by_age": {"0-30d": "90%", "30-90d": "10%"}},
        }
    )
    cost = price_lifecycle(workload, "azure-blob", months=2, as_of=dt.date(2026, 12, 1), check_restore=False)
    # 10 % of 100,000 GETs fall on objects 30-90 days old, all in Archive under this policy
    assert [round(m.reads_by_class.get("archive", 0)) for m in cost.months] == [10_000, 10_000]
