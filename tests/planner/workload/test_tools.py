"""A workload's ``tools:``: a backup or sync tool's month from its shipped profile, billed with the rest.

The restic case is hand-computed from its documented profile (planner/workload/tool_profiles/restic.yaml):
296 GiB in 1.4 M files, 2 % changed a day, a daily run, changes kept 30 days. One run changes 28,000 files and
296 x 2^30 x 0.02 = 6,356,551,598 bytes (6,062.08 MiB): PUTs 2 + 0.06252 x 6,062.08 = 381.0012, GETs 3 + 1 per
1,000 files (1,400 pages) = 1,403, LISTs 4, DELETEs 1 (the lock file). Thirty runs: 11,430 PUTs, 42,090 GETs,
120 LISTs; the retention deletes what the runs wrote (11,430 objects) besides the 30 locks: 11,460 DELETEs.
Stored: 296 GiB + 296 GiB x 0.02 x 30 = 473.6 GiB.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.workload import load_workload
from planner.workload.tools import ToolUse
from tests.planner.conftest import Result

GIB = 2**30

RESTIC = """\
name: laptops
storage:
  stored: 0 B
  object_size: 16 MiB
tools:
  - {tool: restic, files: 1.4M, bytes: 296 GiB, churn: 2%/day, schedule: daily, retention: 30d}
constraints:
  providers: [aws-s3, backblaze-b2]
"""


def _restic(**changes: object) -> ToolUse:
    fields: dict[str, object] = {"tool": "restic", "files": "1.4M", "bytes": "296 GiB", "churn": "2%/day"}
    return ToolUse.model_validate({**fields, "retention": "30d", **changes})


def test_a_month_of_daily_restic_runs() -> None:
    month = _restic().month()
    assert month.requests == {"put": 11_430, "get": 42_090, "list": 120, "delete": 11_460}
    assert month.upload_bytes == 30 * 6_356_551_598
    assert month.stored_bytes == round(Decimal(296 * GIB) * Decimal("1.6"))
    assert [(d.bytes, d.objects, d.age_days) for d in month.deletions] == [(30 * 6_356_551_598, 11_430, 30.0)]


def test_churn_per_week_is_the_same_share_a_day() -> None:
    assert _restic(churn="14%/week").churn == _restic().churn == Decimal("0.02")
    assert _restic(churn=0.02).month() == _restic().month()


def test_a_weekly_run_rounds_the_month_once() -> None:
    # 30/7 runs of 7 days' changes: new bytes 296 GiB x 0.14 = 44,495,861,187 a run (42,434.56 MiB);
    # PUTs (2 + 0.06252 x 42,434.56) x 30/7 = 11,378.9... -> 11,379; GETs 1,403 x 30/7 = 6,012.857 -> 6,013
    month = _restic(schedule="weekly").month()
    assert month.requests["put"] == 11_379
    assert month.requests["get"] == 6_013


def test_a_mirror_without_retention_keeps_only_the_current_files() -> None:
    month = _restic(retention=None).month()
    assert month.stored_bytes == 296 * GIB
    assert month.deletions == [] and month.requests["delete"] == 30


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tool": "borg"}, "no profile for 'borg'"),
        ({"churn": "2%/fortnight"}, "churn is a share per day, week or month"),
        ({"churn": "150%/day"}, "less than or equal to 1"),
        ({"churn": "nan%"}, "is not a churn"),
        ({"schedule": "yearly"}, "hourly"),
    ],
)
def test_bad_tool_fields_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(Exception, match=message):
        _restic(**changes)


def test_a_prune_needs_a_profile_with_a_prune_phase() -> None:
    with pytest.raises(InputError, match="restic's profile has no prune phase"):
        _restic(prune="weekly")


def test_cost_bills_the_tools_month(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    path = tmp_path / "laptops.yaml"
    path.write_text(RESTIC)
    result = run_cli("cost", str(path), "--provider", "aws-s3", "-f", "json")
    assert result.code == 0, result.err
    lines = {line["description"]: line for line in json.loads(result.out)["line_items"]}
    # "S3 Standard - General purpose storage ... First 50 TB / Month $0.023 per GB": 473.6 GiB-months
    storage = lines["S3 Standard storage, first 51,200 GB-month"]
    assert Decimal(storage["quantity"]).quantize(Decimal("0.1")) == Decimal("473.6")
    assert storage["amount_usd"] == "10.89"
    # "PUT, COPY, POST, LIST requests (per 1,000 requests) $0.005": 11,430 PUTs + 120 LISTs
    assert Decimal(lines["tier-1 requests (put, list)"]["quantity"]) == Decimal("11.55")
    assert lines["tier-1 requests (put, list)"]["amount_usd"] == "0.06"
    # "GET, SELECT, and all other requests (per 1,000 requests) $0.0004": 42,090 GETs
    assert lines["tier-2 requests (get)"]["amount_usd"] == "0.02"
    assert json.loads(result.out)["total_usd"] == "10.97"


def test_an_archive_class_counts_the_tools_reads(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    path = tmp_path / "laptops.yaml"
    path.write_text(RESTIC)
    assert load_workload(path).tools[0].tool == "restic"
    answer = json.loads(run_cli("recommend", str(path), "--no-simulate", "-f", "json").out)
    deep = next(o for o in answer["ranking"] if o["storage_class"] == "deep-archive")
    assert deep["status"] == "rejected"
    reasons = " ".join(r["statement"] for r in deep["rejections"])
    assert "the workload reads (42,090 GETs a month, 42,090 of them by its tools)" in reasons
