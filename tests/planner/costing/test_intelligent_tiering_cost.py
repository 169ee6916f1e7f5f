"""``cost`` of S3 Intelligent-Tiering says what it assumes of its access tiers, and bills the archive tiers a
workload turns on (``storage.intelligent_tiering``) as ``planner lifecycle`` does, checking their days."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from planner.costing.bills import estimate_cost
from planner.workload import parse_workload

WORKLOAD = {
    "name": "tiered",
    "storage": {"stored": "100 TB", "object_size": "10 MB"},
    "traffic": {"egress": "1 TB", "reads": 1000},
}
DAY = dt.date(2026, 12, 1)


def _file(tmp_path: Path, **storage: Any) -> str:
    path = tmp_path / "w.json"
    path.write_text(json.dumps({**WORKLOAD, "storage": {**WORKLOAD["storage"], **storage}}))
    return str(path)


def test_a_bill_that_places_no_byte_in_a_cheaper_tier_says_so() -> None:
    frequent = estimate_cost(parse_workload(WORKLOAD), "aws-s3", "intelligent-tiering", as_of=DAY)
    assert any("every byte is billed at frequent access" in w for w in frequent.warnings)
    told = parse_workload({**WORKLOAD, "storage": {**WORKLOAD["storage"], "unread": {"30d": 0.6, "90d": 0.4}}})
    placed = estimate_cost(told, "aws-s3", "intelligent-tiering", as_of=DAY)
    assert not any("frequent access" in w for w in placed.warnings)
    assert placed.total_usd < frequent.total_usd


def test_archive_tiers_turned_on_are_billed_by_the_lifecycle_engine(tmp_path: Path, run_cli: Any) -> None:
    # the archive tiers had been left out of cost's bill: the same $26,399.28 with them as without
    args = ("-p", "aws-s3", "--class", "intelligent-tiering", "--as-of", "2026-12-01", "--months", "12")
    plain = run_cli("cost", _file(tmp_path), *args, "-f", "json")
    tiers = {"archive_access": "90d", "deep_archive_access": "180d"}
    tiered = run_cli("cost", _file(tmp_path, intelligent_tiering=tiers), *args, "-f", "json")
    assert plain.code == tiered.code == 0
    assert "archive" in tiered.out.lower()
    assert json.loads(tiered.out)["total_usd"] != json.loads(plain.out)["total_usd"]


@pytest.mark.parametrize(("tiers", "field"), [({"archive_access": "5d"}, "archive_access"),
                                              ({"deep_archive_access": "10000d"}, "deep_archive_access")])  # fmt: skip
def test_archive_tier_days_outside_the_providers_range_are_refused(
    tmp_path: Path, run_cli: Any, tiers: dict[str, str], field: str
) -> None:
    result = run_cli("cost", _file(tmp_path, intelligent_tiering=tiers), "-p", "aws-s3", "--class",
                     "intelligent-tiering", "--as-of", "2026-12-01")  # fmt: skip
    assert result.code == 2
    assert f"storage.intelligent_tiering.{field}: " in result.err and "is outside" in result.err
