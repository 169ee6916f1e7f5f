"""`planner cost --calendar`: each month billed at its real length, as AWS bills calendar months.

AWS bills storage by byte-hours over the hours of the calendar month (the S3 FAQ's example divides by
744 hours for a 31-day month), so an average stored volume costs the same in any month, while what a
workload does each day (its egress, requests, deletions) adds up over 28 to 31 days. planner's month
is 30 days (a workload's "5 TB/day" is 150 TB a month); --calendar scales those flows to the month's
days and says which month it billed.

Prices cited are the aws-s3 table in force in November and December 2026 (aws-s3@2025-12-01; GB =
2^30 bytes): internet egress after the 100 GB a month free, $0.09 per GB for the first 10,240 GB, $0.085
for the next 40,960 GB, $0.07 from 51,200 to 153,600 GB (AWSDataTransfer 20260916132208 as the table
cites it); S3 Standard $0.023 per GB-month for the first 51,200 GB.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from planner.costing.bills import BillingOptions, estimate_cost, project_costs
from planner.workload import parse_workload
from tests.planner.conftest import Result

DAILY = {"name": "daily", "storage": {"stored": "1 TB", "object_size": "1 GB"}, "traffic": {"egress": "5 TB/day"}}
CALENDAR = BillingOptions(calendar=True)


def _egress(day: dt.date, options: BillingOptions) -> tuple[Decimal, Decimal]:
    workload = parse_workload({**DAILY, "traffic": {"egress": "5 TB/day", "reads": 0, "writes": 0}}, "daily.yaml")
    bill = estimate_cost(workload, "aws-s3", "standard", as_of=day, options=options)
    return bill.by_category()["egress"], bill.total_usd


def test_a_31_day_month_of_5_tb_a_day_costs_325_96_more_than_a_30_day_one() -> None:
    # November: 30 x 5 TB = 150 x 10^12 B = 139,698.3868 GB; 100 free, then 10,240 x $0.09 = $921.60,
    # 40,960 x $0.085 = $3,481.60 and 88,398.3868 x $0.07 = $6,187.89.
    # December: 31 x 5 TB = 144,354.9991 GB; the same first two tiers and 93,054.9991 x $0.07 = $6,513.85.
    # The one more day is 5 x 10^12 B = 4,656.6129 GB, all in the $0.07 tier: 4,656.6129 x $0.07 =
    # $325.9629 -> $325.96 (the two $0.07 lines round to $6,187.89 and $6,513.85: $325.96 apart).
    november = _egress(dt.date(2026, 11, 1), CALENDAR)
    december = _egress(dt.date(2026, 12, 1), CALENDAR)
    assert november[0] == Decimal("921.60") + Decimal("3481.60") + Decimal("6187.89")
    assert december[0] == Decimal("921.60") + Decimal("3481.60") + Decimal("6513.85")
    # storage (1 TB = 931.3226 GB x $0.023 = $21.42) is the same in both: the whole difference is the day
    assert december[1] - november[1] == Decimal("325.96")


def test_the_default_month_is_30_days_whatever_the_calendar() -> None:
    default = BillingOptions()
    assert _egress(dt.date(2026, 11, 1), default) == _egress(dt.date(2026, 12, 1), default)
    # February 2027 has 28 days: 2 x 4,656.6129 GB x $0.07 = $651.93 less than a 30-day month
    assert _egress(dt.date(2026, 11, 1), CALENDAR)[0] - _egress(dt.date(2027, 2, 1), CALENDAR)[0] == Decimal("651.93")


@pytest.fixture
def daily(tmp_path: Path) -> Path:
    path = tmp_path / "daily.yaml"
    path.write_text("name: daily\nstorage: {stored: 1 TB, object_size: 1 GB}\ntraffic: {egress: 5 TB/day, reads: 0}\n")
    return path


def test_cost_says_which_month_it_bills(run_cli: Callable[..., Result], daily: Path) -> None:
    args = ["cost", str(daily), "-p", "aws-s3", "--as-of", "2026-12-01"]
    thirty = run_cli("--wide", *args)
    assert thirty.code == 0, thirty.err
    assert "Month: 30 days (--calendar bills December 2026's 31)" in thirty.out.splitlines()
    calendar = run_cli("--wide", *args, "--calendar")
    assert calendar.code == 0, calendar.err
    assert (
        "Month: December 2026, 31 days (calendar month): the workload's 30-day monthly flows x 31/30, stored bytes"
        " as the month's average"
    ) in calendar.out.splitlines()
    assert "aws-s3 standard: $10,612.51° a month" in thirty.out  # 921.60 + 3,481.60 + 6,187.89 + 21.42
    assert "aws-s3 standard: $10,938.47° a month" in calendar.out  # $325.96 more


def test_a_projection_bills_each_calendar_month_its_own_days(run_cli: Callable[..., Result], daily: Path) -> None:
    workload = parse_workload({**DAILY, "traffic": {"egress": "5 TB/day", "reads": 0}}, "daily.yaml")
    start = dt.date(2026, 11, 1)
    projection = project_costs(workload, "aws-s3", "standard", months=4, as_of=start, options=CALENDAR)
    # November 30 days, December 31, January 31, February 28: each month's egress as above
    egress = [m.cost.by_category()["egress"] - Decimal("4403.20") for m in projection.months]
    assert egress == [Decimal("6187.89"), Decimal("6513.85"), Decimal("6513.85"), Decimal("5535.96")]
    assert projection.billing_month == (
        "calendar months, each its own days (the workload's 30-day monthly flows scaled to them)"
    )
    result = run_cli("cost", str(daily), "-p", "aws-s3", "--as-of", "2026-11-01", "--months", "4", "--calendar")
    assert result.code == 0, result.err
    assert "Months: calendar months, each its own days" in result.out


@pytest.mark.parametrize(
    ("provider", "november", "december"),
    [
        # B2 prices storage "per TB per 30 days", billed by the byte-hour: 100 TB less the 0.01 TB free =
        # 99.99 x $6.95 = $694.93 in 30 days; 31 days: (100 x 31/30 - 0.01) x $6.95 = 103.3233 x $6.95 = $718.10
        ("backblaze-b2", "694.93", "718.10"),
        # Wasabi's rate is daily ("$0.00022754 per GB per day x 30 days"): 100 TB = 90.9495 TiB x $7.99 =
        # $726.69 in 30 days; 31 days: 93.9811 x $7.99 = $750.91
        ("wasabi", "726.69", "750.91"),
        # AWS bills the month's byte-hours over its hours: 100 TB = 93,132.2575 GB, 51,200 x $0.023 +
        # 41,932.2575 x $0.022 = $2,100.11 in either month
        ("aws-s3", "2100.11", "2100.11"),
    ],
)
def test_storage_priced_per_30_days_bills_a_calendar_months_days(provider: str, november: str, december: str) -> None:
    workload = parse_workload(
        {"name": "s", "storage": {"stored": "100 TB", "object_size": "100 MB"}, "traffic": {"writes": 0, "reads": 0}},
        "s.yaml",
    )
    totals = [
        estimate_cost(workload, provider, "standard", as_of=day, options=CALENDAR).total_usd
        for day in (dt.date(2026, 11, 1), dt.date(2026, 12, 1))
    ]
    assert totals == [Decimal(november), Decimal(december)]
