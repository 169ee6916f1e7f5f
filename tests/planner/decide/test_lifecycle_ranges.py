"""A lifecycle rule's age as a range: ``sweep --vary storage.lifecycle.0.after=...`` and ``after: {low, high}``
under ``planner lifecycle --samples``, each priced month by month by ``planner.costing.lifecycle_bills``.

Hand-computed on 1 TB (10^12 B = 931.322574615 GB-months of 2^30 B) in 1,000,000 objects of 1 MB (above S3's
128 KiB least size for a move), all 0-30 days old, no reads or writes, over 2 months at aws-s3 (table
planner/pricing/tables/aws-s3/2025-12-01.yaml, whose Standard and Standard-IA prices come down its based_on
chain from 2019-03-27.yaml): S3 Standard $0.023/GB-month (first 51,200 GB), Standard-IA $0.0125/GB-month,
lifecycle transitions into Standard-IA $0.01 per 1,000; each line rounds to the cent.

- month 1, ages 0-30d, every policy: 931.322574615 x $0.023 = $21.42
- rule after 30d: month 2 (ages 30-60d) in Standard-IA: 931.322574615 x $0.0125 = $11.64, and 1,000,000
  transitions x $0.01 / 1,000 = $10.00: $21.64; total $43.06
- rule after 60d: month 2 still in Standard: $21.42; total $42.84
- rule after 45d: month 2 is 15 days in each: 931.322574615 x $0.023 x 15/30 = $10.71, 931.322574615 x
  $0.0125 x 15/30 = $5.82, transitions $10.00: $26.53; total $47.95
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from planner.decide.lifecycle_policy import sweep_rule_age
from planner.decide.lifecycle_ranges import sample_policy
from planner.workload import Uncertain, format_field_value, load_workload

D = Decimal
AS_OF = "2026-12-01"
DEC_2026 = dt.date(2026, 12, 1)
DAY_S = 86400.0

WORKLOAD = """\
name: archive-s3
storage:
  stored: 1 TB
  objects: 1M
  age: {{"0-30d": 100%}}
  lifecycle:
    - {{after: {after}, to: standard-ia}}
traffic:
  writes: 0
  reads: 0
constraints:
  providers: [aws-s3]
  storage_classes: [standard]
  months: 2
"""


def _file(tmp_path: Path, after: str) -> Path:
    path = tmp_path / "archive.yaml"
    path.write_text(WORKLOAD.format(after=after))
    return path


def test_sweep_prices_the_policy_at_each_age_of_its_rule(tmp_path: Path, run_cli: Any) -> None:
    path = _file(tmp_path, "30d")
    args = ["sweep", str(path), "--vary", "storage.lifecycle.0.after=30d..60d:3", "--as-of", AS_OF]
    out = run_cli("--wide", *args, "-f", "json")
    assert out.code == 0, out.err
    priced = json.loads(out.out)["lifecycle"]
    assert [(p["point"]["storage.lifecycle.0.after"] / DAY_S, p["provider"]) for p in priced] == [
        (30, "aws-s3"),
        (45, "aws-s3"),
        (60, "aws-s3"),
    ]
    assert [(D(p["total_usd"]), D(p["last_month_usd"])) for p in priced] == [
        (D("43.06"), D("21.64")),
        (D("47.95"), D("26.53")),
        (D("42.84"), D("21.42")),
    ]
    # the one-class bill planner cost prints does not move with the rule
    assert {D(cell["costs_usd"]["aws-s3:standard"]) for cell in json.loads(out.out)["cells"]} == {D("21.42")}
    text = run_cli("--wide", *args)
    assert text.code == 0, text.err
    assert "storage.lifecycle at each point: its total over constraints.months and its last month" in text.out
    rows = [line.split() for line in text.out.splitlines() if line.startswith(("30d ", "45d ", "60d "))]
    assert [row for row in rows if "aws-s3" in row] == [
        ["30d", "aws-s3", "$43.06", "$21.64"],
        ["45d", "aws-s3", "$47.95", "$26.53"],
        ["60d", "aws-s3", "$42.84", "$21.42"],
    ]


def test_a_sweep_of_other_fields_prices_the_policy_too(tmp_path: Path, run_cli: Any) -> None:
    """A sweep reads the whole workload: its policy is billed at every point, whatever the axis."""
    path = _file(tmp_path, "30d")
    out = run_cli("sweep", str(path), "--vary", "storage.stored=1TB..2TB:2", "--as-of", AS_OF, "-f", "json")
    assert out.code == 0, out.err
    policy = json.loads(out.out)["lifecycle"]
    assert [(p["point"], p["provider"]) for p in policy] == [
        ({"storage.stored": 1e12}, "aws-s3"),
        ({"storage.stored": 2e12}, "aws-s3"),
    ]
    assert Decimal(policy[0]["total_usd"]) < Decimal(policy[1]["total_usd"])


def test_a_rule_index_past_the_list_is_one_line_naming_the_field(tmp_path: Path, run_cli: Any) -> None:
    path = _file(tmp_path, "30d")
    out = run_cli("sweep", str(path), "--vary", "storage.lifecycle.1.after=30d..60d:2", "--as-of", AS_OF)
    assert out.code == 2
    assert out.err.strip().splitlines() == [
        "planner: --vary: storage.lifecycle.1.after: storage.lifecycle has 1 item(s), numbered from 0: no item 1"
    ]


def test_a_rule_age_given_as_a_range_in_the_file(tmp_path: Path, run_cli: Any) -> None:
    path = _file(tmp_path, "{low: 30d, high: 60d}")
    workload = load_workload(path)
    assert workload.uncertain == [
        Uncertain(field="storage.lifecycle.0.after", kind="uniform", low=30 * DAY_S, high=60 * DAY_S)
    ]
    assert workload.storage.lifecycle is not None and workload.storage.lifecycle[0].after_days == 45  # the midpoint
    answer = sample_policy(workload, "aws-s3", 200, seed=3, as_of=DEC_2026)
    assert (answer.central.total_usd, answer.central.last_month_usd) == (D("47.95"), D("26.53"))
    # each percentile is the policy's total at a whole day of the range, as --vary-age prices that day
    by_day = sweep_rule_age(workload, "aws-s3", 0, list(range(30, 61)), as_of=DEC_2026)
    totals = {p.total_usd for p in by_day.points}
    assert (by_day.points[0].total_usd, by_day.points[15].total_usd, by_day.points[30].total_usd) == (
        D("43.06"),
        D("47.95"),
        D("42.84"),
    )
    assert answer.total_usd["p10"] <= answer.total_usd["p50"] <= answer.total_usd["p90"]
    assert {answer.total_usd[q] for q in ("p10", "p50", "p90")} <= totals
    assert answer.refused == 0
    out = run_cli("lifecycle", str(path), "-p", "aws-s3", "--samples", "200", "--seed", "3", "--as-of", AS_OF)
    assert out.code == 0, out.err
    assert "every input central  $47.95      $26.53" in out.out
    assert "ranges: storage.lifecycle.0.after uniform 30d..60d; seed 3" in out.out


def test_an_outcome_is_priced_at_a_whole_day_of_age(tmp_path: Path) -> None:
    workload = load_workload(_file(tmp_path, "{low: 30d, high: 31d}"))
    # the midpoint, 30.5 days, rounds to a whole day (round half to even: 30d)
    assert workload.storage.lifecycle is not None and workload.storage.lifecycle[0].after_days == 30
    answer = sample_policy(workload, "aws-s3", 50, seed=0, as_of=DEC_2026)
    # 30d: $43.06 (above); 31d: month 2 holds 1 day in Standard, 931.322574615 x $0.023 / 30 = $0.71, 29 in
    # Standard-IA, 931.322574615 x $0.0125 x 29/30 = $11.25, and the transitions $10.00: $21.96; total $43.38
    assert (answer.total_usd["p10"], answer.total_usd["p90"]) == (D("43.06"), D("43.38"))
    assert (answer.last_month_usd["p10"], answer.last_month_usd["p90"]) == (D("21.64"), D("21.96"))


def test_samples_without_a_range_is_one_line_naming_the_option(tmp_path: Path, run_cli: Any) -> None:
    out = run_cli("lifecycle", str(_file(tmp_path, "30d")), "-p", "aws-s3", "--samples", "10", "--as-of", AS_OF)
    assert out.code == 2
    assert out.err.strip().splitlines() == [
        "planner: --samples: the workload has no input given as a range: give one as {low, high}, e.g."
        " after: {low: 30d, high: 90d}"
    ]


def test_recommend_samples_send_a_rule_age_range_to_lifecycle(tmp_path: Path, run_cli: Any) -> None:
    # recommend's outcomes price each class holding all the data: a policy's range is lifecycle --samples'
    path = _file(tmp_path, "{low: 30d, high: 60d}")
    out = run_cli("recommend", str(path), "--samples", "20", "--no-simulate", "--as-of", AS_OF, "-f", "json")
    assert out.code == 2
    assert f"planner lifecycle {path} --provider aws-s3 --samples 20" in out.err
    policy = run_cli("lifecycle", str(path), "--provider", "aws-s3", "--samples", "20", "--as-of", AS_OF, "-f", "json")
    assert policy.code == 0, policy.err
    assert json.loads(policy.out)["samples"] == 20


def test_a_rule_age_shows_as_days() -> None:
    assert format_field_value("storage.lifecycle.0.after", 45 * DAY_S) == "45d"
