"""Ages from the user's data: ingest inventory writes storage.age, access-log --inventory reads_by_age."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from planner.files import load_yaml
from planner.ingest.ages import age_shares
from planner.ingest.inventory import read_inventory, storage_block
from planner.workload import load_workload, parse_workload

from .test_accesslog import START, _line
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


def _inventory_row(key: str, size: int, modified: dt.datetime) -> dict[str, object]:
    return {
        "bucket": "media",
        "key": key,
        "version_id": "",
        "is_latest": True,
        "is_delete_marker": False,
        "size": size,
        "last_modified_date": modified,
        "storage_class": "STANDARD",
        "intelligent_tiering_access_tier": "",
    }


def test_access_logs_joined_to_the_inventory_give_reads_by_age(tmp_path: Path, run_cli: Any) -> None:
    # the inventory (taken 2026-11-01): "a" written 2026-11-01, "b x" 2026-08-01, "c" 2026-01-01
    manifest = _write_csv_report(
        tmp_path / "inv",
        [
            _inventory_row("a", 10, dt.datetime(2026, 11, 1, tzinfo=dt.UTC)),
            _inventory_row("b x", 10, dt.datetime(2026, 8, 1, tzinfo=dt.UTC)),
            _inventory_row("c", 10, dt.datetime(2026, 1, 1, tzinfo=dt.UTC)),
        ],
    )
    # on 2026-11-02 09:00: 3 GETs of "a" (1 day old), 2 of "b x" (93 days), 1 of "c" (305 days) and 4 of a key
    # the inventory does not list
    gets = [("a", 3), ("b%20x", 2), ("c", 1), ("gone", 4)]
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = [_line(START, "REST.GET.OBJECT", key, 200, 10, 10, 5, "app") for key, n in gets for _ in range(n)]
    (logs / "log.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_cli("ingest", "access-log", str(logs), "--out", str(tmp_path / "w"), "--inventory", str(manifest))
    assert result.code == 0, result.err
    text = (tmp_path / "w" / "media.yaml").read_text(encoding="utf-8")
    assert (
        "  # reads by object age: 6 GETs joined to the inventory's last-modified dates (4 GETs of keys it does not"
        " list, or of older versions, left out)\n"
        "  reads_by_age:\n"
        '    "0-30d": "50.00000000%"\n'
        '    "30-90d": "0.00000000%"\n'
        '    "90-180d": "33.33333333%"\n'
        '    "180-365d": "16.66666667%"\n'
        '    "365d+": "0.00000000%"\n'
    ) in text
    # the logs give no stored bytes (load_workload asks for them): the traffic section parses
    data = load_yaml(text, "media.yaml")
    bins = parse_workload({**data, "storage": {"stored": "1 TB", "object_size": "1 MB"}}).traffic.read_age_bins()
    assert bins is not None and [(b.label, str(s)) for b, s in bins][2] == ("90-180d", "0.3333333333")
