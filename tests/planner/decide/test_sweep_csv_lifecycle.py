"""``sweep -f csv`` with an axis that varies a lifecycle rule: the policy's rows are in the CSV as they are in
the text and JSON (figures hand-computed in tests/planner/decide/test_lifecycle_ranges.py: aws-s3, 1 TB in 1,000,000
objects, 2 months; the rule after 30d totals $43.06 with a last month of $21.64, after 60d $42.84 / $21.42)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from tests.planner.decide.test_lifecycle_ranges import AS_OF, _file


def test_the_csv_holds_the_policy_at_each_point(tmp_path: Path, run_cli: Any) -> None:
    path = _file(tmp_path, "30d")
    out = run_cli("sweep", str(path), "--vary", "storage.lifecycle.0.after=30d..60d:2", "--as-of", AS_OF, "-f", "csv")
    assert out.code == 0, out.err
    rows = list(csv.DictReader(io.StringIO(out.out)))
    assert list(rows[0]) == [
        "storage.lifecycle.0.after",
        "option",
        "month_usd",
        "price_status",
        "policy_breach",
        "winner",
        "horizon_usd",
        "refused",
    ]
    policy = [
        (r["storage.lifecycle.0.after"], r["month_usd"], r["horizon_usd"], r["refused"])
        for r in rows
        if r["option"] == "aws-s3:storage.lifecycle"
    ]
    assert policy == [("2592000.0", "21.64", "43.06", ""), ("5184000.0", "21.42", "42.84", "")]
    # the one-class rows keep their columns, the policy's two left empty
    standard = [r for r in rows if r["option"] == "aws-s3:standard"]
    assert [(r["month_usd"], r["winner"], r["horizon_usd"]) for r in standard] == [("21.42", "yes", "")] * 2


def test_a_sweep_of_another_field_holds_the_policy_too(tmp_path: Path, run_cli: Any) -> None:
    path = _file(tmp_path, "30d")
    out = run_cli("sweep", str(path), "--vary", "storage.stored=1TB..2TB:2", "--as-of", AS_OF, "-f", "csv")
    assert out.code == 0, out.err
    assert (
        out.out.splitlines()[0]
        == "storage.stored,option,month_usd,price_status,policy_breach,winner,horizon_usd,refused"
    )
