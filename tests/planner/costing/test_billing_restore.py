"""`planner cost --retrieval` and `--restore-days`: restores from the archive classes at the tier chosen,
the temporary copy each restore makes, and S3 Glacier's 8 KB per object on S3 Standard's tiers.

Prices cited are the aws-s3 table in force on 2026-10-01 (aws-s3@2025-12-01; GB = 2^30 bytes), from
aws.amazon.com/s3/pricing as the table's sources quote it: S3 Standard $0.023 per GB-month for the first
51,200 GB and $0.022 above; Glacier Flexible Retrieval $0.0036 per GB-month, retrieval Expedited $0.03 per
GB + $10.00 per 1,000 requests; Deep Archive $0.00099 per GB-month, retrieval Standard $0.02 per GB + $0.10
per 1,000, Bulk $0.0025 per GB + $0.025 per 1,000; Glacier Instant Retrieval one rate, $0.03 per GB; GET
$0.0004 per 1,000. Each line is rounded to the cent; a line under a cent is billed as $0.01.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from planner.costing.bills import BillingOptions, estimate_cost
from planner.workload import parse_workload
from tests.planner.conftest import Result

DAY = dt.date(2026, 10, 1)
# 10 TiB in 10,240 objects of 1 GiB; 1 TiB (1,024 GB) read back inside the region in 1,024 GETs: from
# an archive class, 1,024 restores of 1,024 GB in all.
RESTORES = """\
name: restores
storage:
  stored: 10 TiB
  object_size: 1 GiB
traffic:
  internal_reads: 1 TiB
  reads: 1024
  writes: 0
"""


@pytest.fixture
def restores(tmp_path: Path) -> Path:
    path = tmp_path / "restores.yaml"
    path.write_text(RESTORES)
    return path


def _amounts(result: Result) -> dict[str, Decimal]:
    assert result.code == 0, result.err
    bill = json.loads(result.out)
    return {item["description"]: Decimal(item["amount_usd"]) for item in bill["line_items"]} | {
        "total": Decimal(bill["total_usd"])
    }


# The lines every case shares, deep archive: 10,240 GB x $0.00099 = $10.1376 -> $10.14; 8 KB x 10,240
# objects = 0.078125 GB x $0.023 = $0.0018 -> $0.01; 1.024 x 1,000 GETs x $0.0004 -> $0.01; the restored
# copies: 1,024 GB kept 1 day of a 30-day month = 34.1333 GB-month x $0.023 = $0.785 -> $0.79.


@pytest.mark.parametrize(
    ("storage_class", "tier", "retrieval", "requests", "total"),
    [
        # Bulk: 1,024 GB x $0.0025 = $2.56; 1.024 x $0.025 = $0.0256 -> $0.03
        ("deep-archive", "bulk", "2.56", "0.03", "13.55"),
        # Standard (the default): 1,024 GB x $0.02 = $20.48; 1.024 x $0.10 = $0.1024 -> $0.10
        ("deep-archive", "standard", "20.48", "0.10", "31.54"),
        # Expedited: 1,024 GB x $0.03 = $30.72; 1.024 x $10.00 = $10.24; storage 10,240 GB x $0.0036 = $36.86
        ("glacier-flexible", "expedited", "30.72", "10.24", "78.64"),
    ],
)
def test_cost_prices_restores_at_the_tier_chosen(
    run_cli: Callable[..., Result],
    restores: Path,
    storage_class: str,
    tier: str,
    retrieval: str,
    requests: str,
    total: str,
) -> None:
    args = ["cost", str(restores), "-p", "aws-s3", "--class", storage_class, "--as-of", "2026-10-01"]
    amounts = _amounts(run_cli(*args, "--retrieval", tier, "--format", "json"))
    name = "S3 Glacier Deep Archive" if storage_class == "deep-archive" else "S3 Glacier (Flexible Retrieval)"
    assert amounts[f"{name} data retrieval ({tier})"] == Decimal(retrieval)
    assert amounts[f"{name} retrieval requests ({tier})"] == Decimal(requests)
    copy = [v for k, v in amounts.items() if k.startswith("restored copies: 1.1 TB kept 1 day of a 30-day month")]
    assert copy == [Decimal("0.79")]
    assert amounts["total"] == Decimal(total)
    if tier == "standard":  # the default tier is the same bill
        assert _amounts(run_cli(*args, "--format", "json")) == amounts


def test_the_restored_copy_is_kept_the_days_given() -> None:
    workload = parse_workload(yaml.safe_load(RESTORES), "restores.yaml")
    week = estimate_cost(workload, "aws-s3", "deep-archive", as_of=DAY, options=BillingOptions(restored_copy_days=7))
    (line,) = [i for i in week.line_items if i.description.startswith("restored copies")]
    # 1,024 GB x 7 days / 30 = 238.9333 GB-month x $0.023 = $5.4955 -> $5.50, at S3 Standard's price
    assert line.description.startswith("restored copies: 1.1 TB kept 7 days of a 30-day month at S3 Standard rate")
    assert (line.unit_price_usd, line.amount_usd) == (Decimal("0.023"), Decimal("5.50"))
    assert line.quantity.quantize(Decimal("0.0001")) == Decimal("238.9333")


@pytest.mark.parametrize(
    ("storage_class", "tier", "message"),
    [
        (
            "deep-archive",
            "expedited",
            "planner: --retrieval: 'expedited' is not a retrieval tier of S3 Glacier Deep Archive"
            " (tiers: standard, bulk)",
        ),
        (
            "standard",
            "bulk",
            "planner: --retrieval: 'bulk': S3 Standard charges no retrieval, so there is no tier to choose",
        ),
        (
            "glacier-ir",
            "bulk",
            "planner: --retrieval: 'bulk': one retrieval rate, no tiers to choose"
            " (S3 Glacier Instant Retrieval: standard)",
        ),
        (
            "glacier-flexible",
            "instant-ish",
            "planner: --retrieval: 'instant-ish' is not a retrieval tier of S3 Glacier (Flexible Retrieval) (tiers:"
            " expedited, standard, bulk)",
        ),
    ],
)
def test_a_tier_the_class_does_not_offer_is_refused(
    run_cli: Callable[..., Result], restores: Path, storage_class: str, tier: str, message: str
) -> None:
    result = run_cli("cost", str(restores), "-p", "aws-s3", "--class", storage_class, "--retrieval", tier)
    assert (result.code, result.err.strip(), result.out) == (2, message, "")


def test_glacier_instant_retrieval_keeps_its_one_rate(run_cli: Callable[..., Result], restores: Path) -> None:
    args = ["cost", str(restores), "-p", "aws-s3", "--class", "glacier-ir", "--as-of", "2026-10-01"]
    amounts = _amounts(run_cli(*args, "--retrieval", "standard", "--format", "json"))
    # 1,024 GB x $0.03 = $30.72; no restore, so no restored copy
    assert amounts["S3 Glacier Instant Retrieval data retrieval (standard)"] == Decimal("30.72")
    assert not [k for k in amounts if k.startswith("restored copies")]


def test_glacier_overhead_at_standard_rates_runs_up_standards_tiers() -> None:
    # 51,190 GB in S3 Standard and 2,621,440 objects in Glacier Flexible Retrieval, whose 8 KB each at S3
    # Standard rates (aws.amazon.com/s3/pricing: "40 KB of additional metadata for each archived object,
    # with 8 KB charged at S3 Standard rates and 32 KB charged at S3 Glacier Flexible Retrieval or S3 Deep
    # Archive rates") are 2,621,440 x 8,192 B = 20 GB. AWS's Pricing Calculator puts them on Standard's
    # tiers with the account's Standard storage: the first 10 GB fill the first 51,200 GB at $0.023 =
    # $0.23, the other 10 GB are over 50 TB at $0.022 = $0.22; $0.45, not 20 x $0.023 = $0.46 in a
    # first-tier line of their own.
    workload = parse_workload(
        {
            "name": "boundary",
            "storage": {"placement": {"standard": "51190 GiB", "glacier-flexible": "51190 GiB"}, "objects": 5242880},
            "traffic": {"writes": 0},
        },
        "boundary.yaml",
    )
    bill = estimate_cost(workload, "aws-s3", None, as_of=DAY)
    overhead = {
        i.description: (i.quantity, i.unit_price_usd, i.amount_usd)
        for i in bill.line_items
        if "8,192 bytes" in i.description
    }
    assert overhead == {
        "S3 Glacier (Flexible Retrieval): per-object overhead: 2,621,440 objects x 8,192 bytes at S3 Standard rate,"
        " first 51,200 GB-month"
        " (above the 51,190 GB-month of S3 Standard billed before it)": (
            Decimal(10),
            Decimal("0.023"),
            Decimal("0.23"),
        ),
        "S3 Glacier (Flexible Retrieval): per-object overhead: 2,621,440 objects x 8,192 bytes at S3 Standard rate,"
        " 51,200 to 512,000 GB-month"
        " (above the 51,190 GB-month of S3 Standard billed before it)": (
            Decimal(10),
            Decimal("0.022"),
            Decimal("0.22"),
        ),
    }
    # the 32 KB at the class's own rate: 2,621,440 x 32,768 B = 80 GB x $0.0036 = $0.288 -> $0.29
    (own,) = [i for i in bill.line_items if "32,768 bytes" in i.description]
    assert (own.quantity, own.unit_price_usd, own.amount_usd) == (Decimal(80), Decimal("0.0036"), Decimal("0.29"))


def test_a_single_archive_class_starts_standards_tiers_at_zero() -> None:
    # Deep Archive alone: its 8 KB per object is the only Standard storage, first tier, one line
    workload = parse_workload(yaml.safe_load(RESTORES), "restores.yaml")
    bill = estimate_cost(workload, "aws-s3", "deep-archive", as_of=DAY)
    (line,) = [i for i in bill.line_items if "8,192 bytes" in i.description]
    assert line.description == "per-object overhead: 10,240 objects x 8,192 bytes at S3 Standard rate"
    assert (line.quantity, line.unit_price_usd) == (Decimal("0.078125"), Decimal("0.023"))


def test_deep_archive_overhead_matches_aws_pricing_calculator() -> None:
    # AWS Pricing Calculator, S3 Glacier Deep Archive, 100 GB a month of 10 KB objects (its output as quoted
    # at serveraide.com/explain-aws-s3-glacier-storage-class-charges-141957): 10,485,760 objects; "x 32 KB
    # = 335,544,320.00 KB overhead / 1048576 KB in a GB = 320.00 GB overhead x 0.00099 USD = 0.3168 USD";
    # "x 8 KB ... = 80.00 GB overhead. Tiered price for: 80.00 GB, 80 GB x 0.023 USD = 1.84 USD"; "100 GB
    # x 0.00099 USD = 0.099 USD"; 2.2558 USD -> "2.26 USD". KB there is 1,024 bytes and GB 2^30, as the
    # table's 32,768 and 8,192 bytes are; the invoice rounds each line: $0.32 + $1.84 + $0.10 = $2.26.
    workload = parse_workload(
        {"name": "calc", "storage": {"stored": "100 GiB", "object_size": "10 KiB"}, "traffic": {"writes": 0}},
        "calc.yaml",
    )
    bill = estimate_cost(workload, "aws-s3", "deep-archive", as_of=DAY)
    storage = [(i.quantity, i.unit_price_usd, i.amount_usd) for i in bill.line_items if i.category == "storage"]
    assert storage == [
        (Decimal(100), Decimal("0.00099"), Decimal("0.10")),
        (Decimal(320), Decimal("0.00099"), Decimal("0.32")),
        (Decimal(80), Decimal("0.023"), Decimal("1.84")),
    ]
    assert bill.total_usd == Decimal("2.26")


@pytest.mark.parametrize("days", ["nan", "inf", "-1", "1e400", "a week"])
def test_restore_days_that_are_not_days_are_refused(run_cli: Callable[..., Result], restores: Path, days: str) -> None:
    result = run_cli("cost", str(restores), "-p", "aws-s3", "--class", "deep-archive", f"--restore-days={days}")
    message = f"planner: --restore-days: {days!r} is not a number of days from 0 to 36,500 (use e.g. 1 or 7)"
    assert (result.code, result.err.strip(), result.out) == (2, message, "")
