"""storage.placement: the bytes in each storage class today, priced class by class by `planner cost`.

Prices cited are the aws-s3 table in force on 2026-10-01 (aws-s3@2025-12-01, based on 2021-12-01):
S3 Standard $0.023 per GB-month for the first 51,200 GB, $0.022 for the next 460,800 GB; S3 Glacier
Flexible Retrieval $0.0036 per GB-month, plus 32,768 bytes an object at its own rate and 8,192 at
Standard's; GET $0.0004 per 1,000 (GB = 2^30 bytes).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from planner.costing.bills import estimate_cost, project_costs
from planner.errors import InputError
from planner.workload import parse_workload
from tests.planner.conftest import Result

DAY = dt.date(2026, 10, 1)
LIFECYCLE = """\
name: lifecycle
storage:
  placement: {standard: 55 TiB, glacier-flexible: 100 TiB}
  object_size: 1 GiB
traffic:
  reads: 1M
  writes: 0
"""


def _workload(storage: dict[str, object], traffic: dict[str, object] | None = None) -> object:
    return parse_workload({"name": "w", "storage": storage, "traffic": traffic or {"writes": 0}}, "w.yaml")


def test_stored_is_the_placements_sum_when_left_out() -> None:
    workload = parse_workload(
        {"name": "w", "storage": {"placement": {"standard": "40 TB", "glacier-flexible": "60 TB"}, "objects": 1000}},
        "w.yaml",
    )
    assert workload.storage.stored == 100 * 10**12
    assert workload.storage.placement == {"standard": 40 * 10**12, "glacier-flexible": 60 * 10**12}


@pytest.mark.parametrize(
    ("storage", "message"),
    [
        # 40 + 60 TB is 100 TB: 90 TB misses by 10 %, beyond the 0.5 % of figures rounded to three digits
        (
            {"stored": "90 TB", "placement": {"standard": "40 TB", "glacier-flexible": "60 TB"}},
            "storage: placement adds up to 100 TB but stored is 90 TB",
        ),
        ({"placement": {"standard": "40 TB", "glacierr": "60 TB"}}, "storage.placement: 'glacierr' is no provider's"),
        ({"placement": {"standard": "40 parsecs"}}, "placement.standard: '40 parsecs'"),
        ({"placement": {"standard": 40}}, "placement.standard: 40 has no unit"),
        ({"placement": {"standard": "0 B"}}, "every class holds 0 bytes"),
    ],
)
def test_a_bad_placement_is_one_error(storage: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_workload({"name": "w", "storage": {**storage, "objects": 1000}}, "w.yaml")


def test_a_placement_within_rounding_of_stored_loads() -> None:
    # 33.3 TB x 3 = 99.9 TB against 100 TB: 0.1 % apart, the rounding of three-figure values
    placement = {"standard": "33.3 TB", "standard-ia": "33.3 TB", "glacier-flexible": "33.3 TB"}
    workload = parse_workload({"name": "w", "storage": {"stored": "100 TB", "placement": placement, "objects": 9}}, "")
    assert workload.storage.stored == 100 * 10**12


def test_cost_prices_each_class_on_its_own_bytes_across_the_standard_tier_boundary() -> None:
    workload = parse_workload(__import__("yaml").safe_load(LIFECYCLE), "lifecycle.yaml")
    bill = estimate_cost(workload, "aws-s3", None, as_of=DAY)
    amounts = {item.description: item.amount_usd for item in bill.line_items}
    # Standard holds 55 TiB = 56,320 GB: 51,200 x $0.023 = $1,177.60, then 5,120 x $0.022 = $112.64 (the
    # tier ladder counts Standard's own bytes, not the 155 TiB of the whole bucket)
    assert amounts["S3 Standard storage, first 51,200 GB-month"] == Decimal("1177.60")
    assert amounts["S3 Standard storage, 51,200 to 512,000 GB-month"] == Decimal("112.64")
    # Glacier holds 100 TiB = 102,400 GB x $0.0036 = $368.64; its 102,400 objects of 1 GiB (the same
    # mean size in each class) add 102,400 x 32,768 B = 3.125 GB x $0.0036 = $0.01125 -> $0.01 and
    # 102,400 x 8,192 B = 0.78125 GB x $0.023 = $0.01796875 -> $0.02
    assert amounts["S3 Glacier (Flexible Retrieval) storage"] == Decimal("368.64")
    overhead = [i for i in bill.line_items if "per-object overhead: 102,400 objects" in i.description]
    assert [i.amount_usd for i in overhead] == [Decimal("0.01"), Decimal("0.02")]
    # the 1M GETs go to Standard (the hotter class): 1,000 x $0.0004 = $0.40, no Glacier retrieval
    assert amounts["S3 Standard: tier-2 requests (get)"] == Decimal("0.40")
    assert not [i for i in bill.line_items if i.category == "retrieval"]
    assert bill.total_usd == Decimal("1659.31")
    assert bill.storage_class == "standard + glacier-flexible"
    assert any("go to S3 Standard" in a for a in bill.assumptions)
    # the whole 155 TiB in one class is another alternative: 51,200 x $0.023 + 107,520 x $0.022 = $3,543.04
    whole = estimate_cost(workload, "aws-s3", "standard", as_of=DAY)
    assert whole.by_category()["storage"] == Decimal("3543.04") and not whole.assumptions


def test_placement_early_deletions_and_minimums_fall_on_each_class() -> None:
    # 1 TiB Standard, 1 TiB Standard-IA, objects of 64 KiB living 10 days: 2 TiB / 64 KiB = 33,554,432
    # objects, half of them in Standard-IA, each padded to the 128 KiB minimum ($0.0125 per GB-month)
    workload = _workload(
        {"placement": {"standard": "1 TiB", "standard-ia": "1 TiB"}, "object_size": "64 KiB", "retention": "10d"}
    )
    bill = estimate_cost(workload, "aws-s3", None, as_of=DAY)
    minimum = [i for i in bill.line_items if i.category == "minimum"]
    # 16,777,216 objects x 64 KiB of padding = 1,024 GB x $0.0125 = $12.80
    assert [(i.quantity, i.amount_usd) for i in minimum] == [(Decimal(1024), Decimal("12.80"))]
    early = [i for i in bill.line_items if i.category == "early_deletion"]
    # a 10-day life turns over 30/10 = 3x the bytes a month: 3 TiB of Standard-IA, deleted 20 days early,
    # 3,072 GB x 20/30 x $0.0125 = $25.60, and as much again for the padding to 128 KiB
    assert [i.amount_usd for i in early] == [Decimal("25.60"), Decimal("25.60")]
    assert all("Standard-Infrequent" in i.description for i in early)


def test_growth_goes_to_the_hot_class_in_a_projection() -> None:
    workload = _workload(
        {
            "placement": {"glacier-flexible": "100 GiB", "standard": "100 GiB"},
            "objects": 2,
            "growth_per_month": "100 GiB",
        }
    )
    months = project_costs(workload, "aws-s3", None, months=2, as_of=DAY).months
    glacier = [
        [i.quantity for i in m.cost.line_items if i.description == "S3 Glacier (Flexible Retrieval) storage"]
        for m in months
    ]
    standard = [
        [i.quantity for i in m.cost.line_items if i.description.startswith("S3 Standard storage")] for m in months
    ]
    assert glacier == [[Decimal(100)], [Decimal(100)]]
    assert standard == [[Decimal(100)], [Decimal(200)]]


def test_cli_cost_prices_the_placement_and_refuses_a_class_the_provider_lacks(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    path = tmp_path / "lifecycle.yaml"
    path.write_text(LIFECYCLE)
    priced = run_cli("cost", str(path), "-p", "aws-s3", "--as-of", "2026-10-01")
    assert priced.code == 0 and "$1,659.31" in priced.out and "assumed: every request" in priced.out
    elsewhere = run_cli("cost", str(path), "-p", "cloudflare-r2")
    assert elsewhere.code == 2
    assert elsewhere.err.strip().startswith(f"planner: {path}: storage.placement: 'glacier-flexible' is not")
    assert len(elsewhere.err.strip().splitlines()) == 1
    whole = run_cli("cost", str(path), "-p", "cloudflare-r2", "--class", "standard")
    assert whole.code == 0
    path.write_text(LIFECYCLE.replace("  placement:", '  stored: "1 PB"\n  placement:'))
    mismatch = run_cli("cost", str(path), "-p", "aws-s3")
    assert mismatch.code == 2 and "placement adds up to" in mismatch.err and "Traceback" not in mismatch.err


def test_reads_stated_per_class_pay_that_classes_requests_and_retrieval() -> None:
    # 1 TiB Standard, 10 TiB Standard-IA ($0.0125 per GB-month, GET $0.001 per 1,000, retrieval $0.01
    # per GB); 1M GETs of 1 MiB objects, 100k of them from Standard-IA; 1,000 GB (2^30 B) of egress
    workload = _workload(
        {"placement": {"standard": "1 TiB", "standard-ia": "10 TiB"}, "object_size": "1 MiB"},
        {"writes": 0, "reads": "1M", "egress": "1000 GiB", "reads_by_class": {"standard-ia": "100k"}},
    )
    bill = estimate_cost(workload, "aws-s3", None, as_of=DAY)
    lines = {i.description: (i.quantity, i.amount_usd) for i in bill.line_items}
    # Standard takes the other 900k GETs: 900 x $0.0004 = $0.36; Standard-IA its 100k: 100 x $0.001 = $0.10
    assert lines["S3 Standard: tier-2 requests (get)"] == (Decimal(900), Decimal("0.36"))
    assert lines["S3 Standard-Infrequent Access: tier-2 requests (get)"] == (Decimal(100), Decimal("0.10"))
    # a tenth of the bytes read come out of Standard-IA: 100 GB x $0.01 = $1.00
    retrieval = [(i.quantity, i.amount_usd) for i in bill.line_items if i.category == "retrieval"]
    assert retrieval == [(Decimal(100), Decimal("1.00"))]
    assert any("100,000 from S3 Standard-Infrequent Access" in a for a in bill.assumptions)
    # without reads_by_class every GET is Standard's and nothing is retrieved from Standard-IA
    plain = _workload(
        {"placement": {"standard": "1 TiB", "standard-ia": "10 TiB"}, "object_size": "1 MiB"},
        {"writes": 0, "reads": "1M", "egress": "1000 GiB"},
    )
    assert not [i for i in estimate_cost(plain, "aws-s3", None, as_of=DAY).line_items if i.category == "retrieval"]


@pytest.mark.parametrize(
    ("traffic", "message"),
    [
        ({"reads": 10, "reads_by_class": {"standard-ia": 20}}, "adds up to 20 GETs, more than the 10 reads"),
        ({"reads": 10, "reads_by_class": {"glacier-ir": 1}}, "'glacier-ir' holds nothing in storage.placement"),
    ],
)
def test_reads_by_class_must_fit_the_placement_and_the_reads(traffic: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        _workload({"placement": {"standard": "1 TiB", "standard-ia": "1 TiB"}, "objects": 10}, traffic)
    with pytest.raises(InputError, match="give the placement too"):
        _workload({"stored": "1 TiB", "objects": 10}, {"reads": 10, "reads_by_class": {"standard": 1}})


def test_a_sweep_that_moves_stored_keeps_the_placements_shares() -> None:
    from planner.decide.uncertainty import at

    workload = _workload({"placement": {"standard": "40 TB", "glacier-flexible": "60 TB"}, "objects": 1000})
    moved = at(workload, {"storage.stored": 200e12})
    bill = estimate_cost(moved, "aws-s3", None, as_of=DAY)
    glacier = next(i for i in bill.line_items if i.description == "S3 Glacier (Flexible Retrieval) storage")
    # 60 % of 200 TB = 1.2e14 bytes = 111,758.708953857421875 GB of 2^30 bytes
    assert glacier.quantity == Decimal("111758.708953857421875")


def test_the_report_shows_where_the_data_is_today(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from planner.present.report import write_report

    workload = _workload({"placement": {"standard": "40 TB", "glacier-flexible": "60 TB"}, "objects": 1000})
    out = write_report(workload, tmp_path / "r.md", as_of=DAY, profiles_dir=None, simulate=False)
    assert "| stored today in | standard 40 TB, glacier-flexible 60 TB |" in out.read_text(encoding="utf-8")
