"""``ingest inventory`` writes the age of the stored bytes (storage.age) that lifecycle pricing starts from."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from planner.ingest.ages import age_shares
from planner.ingest.inventory import read_inventory, storage_block
from planner.workload import load_workload

from .test_inventory import TAKEN, _population, _write_csv_report


def _age_days(row: dict[str, object]) -> int:
    # as the report holds it: to the second, the milliseconds dropped
    modified = row["last_modified_date"]
    assert isinstance(modified, dt.datetime)
    return int((TAKEN - modified.replace(microsecond=0)).total_seconds() // 86400)


def test_age_bins_meet_at_the_usual_lifecycle_ages() -> None:
    # 10 B at 0 days, 20 B at 29, 30 B at 30, 40 B at 400: 30 / 100 under 30 days, 30 in 30-90, 40 past 365
    assert age_shares({0: 10, 29: 20, 30: 30, 400: 40}) == {
        "0-30d": 0.3,
        "30-90d": 0.3,
        "90-180d": 0.0,
        "180-365d": 0.0,
        "365d+": 0.4,
    }


def test_the_inventory_writes_storage_age_from_last_modified(tmp_path: Path) -> None:
    rows = _population()
    summary = read_inventory([_write_csv_report(tmp_path, rows)], taken=TAKEN)
    current = [r for r in rows if r["is_latest"] and not r["is_delete_marker"]]
    total = sum(int(r["size"]) for r in current)  # type: ignore[call-overload]
    young = sum(int(r["size"]) for r in current if _age_days(r) < 30)  # type: ignore[call-overload]
    assert summary.age_shares["0-30d"] == pytest.approx(young / total, abs=1e-12)
    assert summary.age_shares["90-180d"] == 0.0  # the population is 0-89.5 days old
    (tmp_path / "w.yaml").write_text("name: media\n" + storage_block(summary), encoding="utf-8")
    workload = load_workload(tmp_path / "w.yaml")
    bins = workload.storage.age_bins()
    assert bins is not None
    assert [b.label for b, _ in bins] == ["0-30d", "30-90d", "90-180d", "180-365d", "365d+"]
    assert float(bins[0][1]) == pytest.approx(young / total, abs=1e-9)
