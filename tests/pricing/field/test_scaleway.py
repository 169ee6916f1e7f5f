"""Scaleway Object Storage (fr-par) priced by hand from its FAQ and changelog (scaleway/docs-content, read
2026-12-05): per GB-hour in EUR, 720 hours in the table's 30-day month, 75 GB out free then EUR 0.01 per GB,
billed in USD at the ECB's 1.1133 of 2026-10-28."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from planner.pricing import catalog, quotes
from planner.pricing.billing import bill
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Quote
from planner.pricing.usage import Usage

GB = 10**9
TB = 10**12
RATE = Decimal("1.1133")
DAY = dt.date(2026, 12, 1)


def quoted(table: PriceTable, field: str) -> Decimal:
    """The price at ``field`` in USD, after checking it carries a quote it follows from."""
    reading = next(r for r in quotes.readings(table) if r.field == field)
    assert reading.quote is not None and quotes.problem(reading) is None, field
    return reading.figure * RATE


def lines(
    storage_class: str, usage: Usage, day: dt.date = DAY
) -> tuple[PriceTable, dict[str, tuple[Decimal, Decimal]]]:
    table = catalog.table_for("scaleway", day)
    cost = bill(table, storage_class, usage)
    items = {i.category: (i.unit_price_usd, i.amount_usd) for i in cost.line_items if i.amount_usd}
    return table, items | {"total": (Decimal(0), cost.total_usd)}


def test_inside_the_free_egress() -> None:
    # 10 GB x 720 h = 7,200 GB-h x EUR 0.00002 = EUR 0.144 x 1.1133 = $0.1603; 50 GB out of the 75 free
    table, items = lines("standard", Usage(stored_bytes=10 * GB, egress_bytes=50 * GB))
    assert items == {
        "storage": (quoted(table, "classes.standard.storage.tiers.0.price"), Decimal("0.16")),
        "total": (Decimal(0), Decimal("0.16")),
    }


def test_a_middle_size() -> None:
    # 1,000 GB x 720 h x EUR 0.00002 = EUR 14.40 x 1.1133 = $16.0315; (175 - 75) GB x EUR 0.01 = EUR 1.00 = $1.1133
    table, items = lines("standard", Usage(stored_bytes=1000 * GB, egress_bytes=175 * GB))
    assert items["storage"] == (quoted(table, "classes.standard.storage.tiers.0.price"), Decimal("16.03"))
    assert items["egress"] == (quoted(table, "egress.internet.tiers.0.price"), Decimal("1.11"))
    assert items["total"][1] == Decimal("17.14")


def test_a_hundred_terabytes_in_standard_one_zone_at_its_2026_price() -> None:
    # "reduced from €0,0000165/GB/hour ... to €0,0000103/GB/hour": 100,000 GB x 720 h = 72,000,000 GB-h x EUR
    # 0.0000103 = EUR 741.60 x 1.1133 = $825.6233; 10 TB out: (10,000 - 75) GB x EUR 0.01 = EUR 99.25 = $110.4950
    table, items = lines("onezone-ia", Usage(stored_bytes=100 * TB, egress_bytes=10 * TB))
    assert table.version == "scaleway@2026-01-05"
    assert items["storage"] == (quoted(table, "classes.onezone-ia.storage.tiers.0.price"), Decimal("825.62"))
    assert items["egress"] == (quoted(table, "egress.internet.tiers.0.price"), Decimal("110.50"))
    assert items["total"][1] == Decimal("936.12")


def test_one_zone_before_the_cut_and_a_glacier_restore() -> None:
    # 2025 FAQ: "| One Zone - IA | €0,0000165/GB/hour": 1,000 GB x 720 h = 720,000 GB-h x EUR 0.0000165 =
    # EUR 11.88 x 1.1133 = $13.2260
    table, items = lines("onezone-ia", Usage(stored_bytes=1000 * GB), dt.date(2026, 1, 4))
    assert table.version == "scaleway@2025-04-02"
    assert items["storage"] == (quoted(table, "classes.onezone-ia.storage.tiers.0.price"), Decimal("13.23"))
    # "Restore to Standard class: €0.009/GB": 100 GB x EUR 0.009 = EUR 0.90 x 1.1133 = $1.00197
    table, items = lines("glacier", Usage(stored_bytes=1000 * GB, retrieval_bytes=100 * GB))
    assert items["retrieval"] == (quoted(table, "classes.glacier.retrieval.options.standard.per_gb"), Decimal("1.00"))


@pytest.mark.parametrize(
    ("text", "figure"),
    [("€0,0000165/GB/hour ~€0.012/GB/month", Decimal("0.0000165")), ("€0,0000103/GB/hour", Decimal("0.0000103"))],
)
def test_a_decimal_comma_after_a_zero_is_a_decimal(text: str, figure: Decimal) -> None:
    assert figure in quotes.figures(text)
    quote = Quote(text=text, url="scaleway/docs-content:pages/object-storage/faq.mdx", read=DAY)
    assert quotes.follows(figure, quote, "price")[0]
    # thousands still group as before, and a comma after any other digit is not a decimal
    assert quotes.figures("10,000 and 1,000,000; 10,5") == [Decimal(10000), Decimal(1000000), Decimal(10), Decimal(5)]
