"""Hetzner Object Storage priced by hand, before and after its 2026-04-01 prices: EUR 4.99 base and EUR 0.0067
per TB-hour until then (product page), EUR 6.49 and EUR 0.0087 since (three summaries of Hetzner's price
adjustment); 1 TB stored (744 TB-h) and 1 TB out included, EUR 1.00 per TB beyond. Billed in USD at the
ECB's 1.1133 of 2026-10-28. The table's month is 30 days: 720 hours."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from planner.pricing import catalog, quotes
from planner.pricing.billing import bill
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage

TB = 10**12
GB = 10**9
RATE = Decimal("1.1133")
BEFORE = dt.date(2026, 3, 31)
AFTER = dt.date(2026, 12, 1)


def quoted(table: PriceTable, field: str) -> Decimal:
    """The price at ``field`` in USD, after checking it carries a quote it follows from."""
    reading = next(r for r in quotes.readings(table) if r.field == field)
    assert reading.quote is not None and quotes.problem(reading) is None, field
    return reading.figure * RATE


def lines(day: dt.date, usage: Usage) -> tuple[PriceTable, dict[str, tuple[Decimal, Decimal]], Decimal]:
    table = catalog.table_for("hetzner", day)
    cost = bill(table, "standard", usage)
    items = {i.category: (i.unit_price_usd, i.amount_usd) for i in cost.line_items if i.amount_usd}
    return table, items, cost.total_usd


@pytest.mark.parametrize(
    ("day", "version", "storage_usd", "base_usd", "total_usd"),
    [
        # 3 TB for 720 h = 2,160 TB-h, 720 included: 1,440 x EUR 0.0067 = EUR 9.648 x 1.1133 = $10.7411;
        # base EUR 4.99 x 1.1133 = $5.5554; 1.5 TB out beyond the 1 TB: 1.5 x EUR 1.00 x 1.1133 = $1.66995
        (BEFORE, "hetzner@2024-12-01", "10.74", "5.56", "17.97"),
        # the same month after: 1,440 x EUR 0.0087 = EUR 12.528 x 1.1133 = $13.9474; EUR 6.49 x 1.1133 = $7.2253
        (AFTER, "hetzner@2026-04-01", "13.95", "7.23", "22.85"),
    ],
)
def test_as_of_picks_the_prices_of_the_day(
    day: dt.date, version: str, storage_usd: str, base_usd: str, total_usd: str
) -> None:
    table, items, total = lines(day, Usage(stored_bytes=3 * TB, egress_bytes=2500 * GB))
    assert table.version == version
    assert items["storage"] == (quoted(table, "classes.standard.storage.tiers.0.price"), Decimal(storage_usd))
    assert items["other"] == (quoted(table, "billing.base_fee.price"), Decimal(base_usd))
    assert items["egress"] == (quoted(table, "egress.internet.tiers.0.price"), Decimal("1.67"))
    assert total == Decimal(total_usd)


def test_inside_the_included_terabytes_only_the_base_price() -> None:
    # 500 GB stored (360 TB-h of the 720 included) and 500 GB out (of the 1 TB): EUR 6.49 x 1.1133 = $7.23
    table, items, total = lines(AFTER, Usage(stored_bytes=500 * GB, egress_bytes=500 * GB))
    assert items == {"other": (quoted(table, "billing.base_fee.price"), Decimal("7.23"))}
    assert total == Decimal("7.23")


def test_a_hundred_terabytes() -> None:
    # 100 TB for 720 h = 72,000 TB-h, 720 included: 71,280 x EUR 0.0087 = EUR 620.136 x 1.1133 = $690.3974;
    # 20 TB out, 19 beyond the 1 TB: 19 x EUR 1.00 x 1.1133 = $21.1527; base $7.23
    table, items, total = lines(AFTER, Usage(stored_bytes=100 * TB, egress_bytes=20 * TB))
    assert items["storage"] == (quoted(table, "classes.standard.storage.tiers.0.price"), Decimal("690.40"))
    assert items["egress"] == (quoted(table, "egress.internet.tiers.0.price"), Decimal("21.15"))
    assert total == Decimal("718.78")


def test_small_objects_are_billed_as_64_kb() -> None:
    # "our minimum object size for billing purposes is 64 KB" (read as 64,000 bytes); one Ceph cluster
    table = catalog.table_for("hetzner", AFTER)
    assert table.classes["standard"].min_object_bytes == 64_000
    assert table.classes["standard"].redundancy is not None and table.classes["standard"].redundancy.zones == 1
