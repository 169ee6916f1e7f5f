"""Storj priced by hand from its pages (storj/docs, read 2026-12-05): Simplified pricing since 2026-07-01,
the tiered schedule before it. Each line's unit price is checked against the quote it was read from."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from planner.pricing import catalog, quotes
from planner.pricing.billing import bill
from planner.pricing.models import PriceTable
from planner.pricing.usage import SizeBin, Usage

GB = 10**9
TB = 10**12
SIMPLIFIED = dt.date(2026, 12, 1)
TIERED = dt.date(2026, 6, 30)


def quoted(table: PriceTable, field: str) -> Decimal:
    """The price at ``field``, after checking it carries a quote it follows from."""
    reading = next(r for r in quotes.readings(table) if r.field == field)
    assert reading.quote is not None and quotes.problem(reading) is None, field
    return reading.figure


def priced(day: dt.date, storage_class: str, usage: Usage) -> tuple[PriceTable, dict[str, tuple[Decimal, Decimal]]]:
    table = catalog.table_for("storj", day)
    cost = bill(table, storage_class, usage)
    return table, {i.category: (i.unit_price_usd, i.amount_usd) for i in cost.line_items} | {
        "total": (Decimal(0), cost.total_usd)
    }


def test_as_of_picks_simplified_from_2026_07_01_and_the_tiers_before() -> None:
    assert catalog.table_for("storj", TIERED).version == "storj@2025-11-01"
    assert set(catalog.table_for("storj", TIERED).classes) == {
        "global-collaboration",
        "regional-workflows",
        "active-archive",
    }
    assert catalog.table_for("storj", dt.date(2026, 7, 1)).version == "storj@2026-07-01"
    assert set(catalog.table_for("storj", SIMPLIFIED).classes) == {"standard", "advanced"}


@pytest.mark.parametrize(
    ("storage_class", "stored", "egress", "storage_usd", "egress_usd", "shortfall_usd", "total_usd"),
    [
        # under the minimum: 100 GB x $0.007 = $0.70 ("$7/TB/month", 1 TB = 1,000 GB) and 50 GB x $0.007 =
        # $0.35 ("Egress ... $7/TB", no allowance): $1.05, so "you are charged $5": a $3.95 shortfall
        ("standard", 100 * GB, 50 * GB, "0.70", "0.35", "3.95", "5.00"),
        # a middle size: 2,000 GB x $0.007 = $14.00 and 1,500 GB x $0.007 = $10.50; above $5, no minimum line
        ("standard", 2 * TB, 1500 * GB, "14.00", "10.50", None, "24.50"),
        # a large one in Advanced ("$10/TB/month"): 500,000 GB x $0.010 = $5,000.00; 100,000 GB x $0.007 = $700.00
        ("advanced", 500 * TB, 100 * TB, "5000.00", "700.00", None, "5700.00"),
    ],
)
def test_simplified_at_three_sizes(
    storage_class: str,
    stored: int,
    egress: int,
    storage_usd: str,
    egress_usd: str,
    shortfall_usd: str | None,
    total_usd: str,
) -> None:
    table, lines = priced(SIMPLIFIED, storage_class, Usage(stored_bytes=stored, egress_bytes=egress))
    assert lines["storage"] == (quoted(table, f"classes.{storage_class}.storage.tiers.0.price"), Decimal(storage_usd))
    assert lines["egress"] == (quoted(table, "egress.internet.tiers.0.price"), Decimal(egress_usd))
    if shortfall_usd is None:
        assert "minimum" not in lines
    else:
        assert quoted(table, "billing.minimum_charge.price") == Decimal(5)
        assert lines["minimum"] == (Decimal(shortfall_usd), Decimal(shortfall_usd))
    assert lines["total"][1] == Decimal(total_usd)


def test_simplified_rounds_each_total_up_to_a_gb_and_bills_small_objects_as_50_kb() -> None:
    # "If your egress usage for the month is 1001 MB, it is billed as 2 GB of egress"; 1.5 GB stored -> 2 GB
    table, lines = priced(SIMPLIFIED, "standard", Usage(stored_bytes=1_500_000_000, egress_bytes=1_001_000_000))
    assert lines["storage"] == (Decimal("0.007"), Decimal("0.01"))  # 2 GB x $0.007 = $0.014
    assert lines["egress"] == (Decimal("0.007"), Decimal("0.01"))  # 2 GB x $0.007
    # "Objects smaller than the listed minimum (50 kB) are billed as if they meet that minimum": 2,000,000
    # objects of 10 kB = 20 GB stored, billed as 100 GB: 80 GB more at $0.007 = $0.56
    usage = Usage(stored_bytes=20 * GB, object_sizes=[SizeBin(bytes=10_000, count=2_000_000)])
    cost = bill(table, "standard", usage)
    padding = [i for i in cost.line_items if i.description.startswith("minimum billable object size")]
    assert [(i.quantity, i.amount_usd) for i in padding] == [(Decimal(80), Decimal("0.56"))]
    assert table.classes["standard"].min_object_bytes == 50_000 and table.classes["advanced"].min_duration_days == 30


def test_the_tiered_schedule_still_prices_june_2026() -> None:
    # tiered page: "Regional Workflows: 1X included; $0.01/GB additional", "$10/TB/month": 2 TB stored and 3 TB
    # out is 2,000 GB x $0.010 = $20.00 and (3,000 - 2,000) GB x $0.01 = $10.00
    table, lines = priced(TIERED, "regional-workflows", Usage(stored_bytes=2 * TB, egress_bytes=3 * TB))
    assert lines["storage"] == (quoted(table, "classes.regional-workflows.storage.tiers.0.price"), Decimal("20.00"))
    assert lines["egress"] == (
        quoted(table, "classes.regional-workflows.egress.internet.tiers.0.price"),
        Decimal("10.00"),
    )
    # the same month on Simplified pricing, Advanced: $20.00 + 3,000 GB x $0.007 = $21.00, no allowance
    _, simplified = priced(SIMPLIFIED, "advanced", Usage(stored_bytes=2 * TB, egress_bytes=3 * TB))
    assert simplified["total"][1] == Decimal("41.00")
