"""Akamai Object Storage (akamai@2026-01-01), priced by hand from
https://techdocs.akamai.com/cloud-computing/docs/object-storage-pricing read again on 2026-12-05 (the same figures
as when first read, so no new version). GB = 10**9 bytes (assumed). Each unit price is read through ``quoted``.

The page's words: "Object Storage costs a flat rate of $5 a month, and includes 250 gigabytes of storage";
"Storage overage per GB above 250 GB ... All data centers (except those listed below) $0.02/GB";
"Network transfer overage cost: All data centers (except those listed below) $0.005/GB"; and "1 TB of transfer
allowance is added to your account's monthly global network transfer pool".
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.pricing.usage import Usage
from tests.pricing.field._quoted import problems, quoted, unquoted

D = Decimal
DAY = dt.date(2026, 12, 5)
GB = 10**9

TABLE = catalog.table_for("akamai", DAY)
BASE = quoted(TABLE, "billing.base_fee.price", "flat rate of $5 a month", "5.00")
STORAGE = quoted(TABLE, "classes.standard.storage.tiers.0.price", "(except those listed below) $0.02/GB", "0.02")
EGRESS = quoted(TABLE, "egress.internet.tiers.0.price", "(except those listed below) $0.005/GB", "0.005")


def _lines(usage: Usage) -> list[tuple[str, Decimal, Decimal, Decimal]]:
    cost = bill(TABLE, "standard", usage)
    return [(i.description, i.quantity, i.unit_price_usd, i.amount_usd) for i in cost.line_items if i.amount_usd]


def test_every_price_of_the_akamai_table_follows_from_its_quote() -> None:
    assert TABLE.version == "akamai@2026-01-01"
    assert unquoted(TABLE) == []
    assert problems(TABLE) == []


def test_a_month_inside_the_subscription_pays_the_5_dollars() -> None:
    # 100 GB of the 250 included, 500 GB of the 1,000 added to the pool
    assert _lines(Usage(stored_bytes=100 * GB, egress_bytes=500 * GB)) == [("monthly base fee", D(1), BASE, D("5.00"))]


def test_a_middle_month_just_past_both_allowances() -> None:
    # (300 - 250) GB x $0.02 = $1.00; (1,500 - 1,000) GB x $0.005 = $2.50; + $5; total $8.50
    usage = Usage(stored_bytes=300 * GB, egress_bytes=1_500 * GB)
    assert _lines(usage) == [
        ("Akamai Object Storage storage", D(50), STORAGE, D("1.00")),
        ("internet egress", D(500), EGRESS, D("2.50")),
        ("monthly base fee", D(1), BASE, D("5.00")),
    ]
    assert bill(TABLE, "standard", usage).total_usd == D("8.50")


def test_a_large_month_at_the_one_overage_rate() -> None:
    # 10 TB: (10,000 - 250) x $0.02 = $195.00; 5 TB out: (5,000 - 1,000) x $0.005 = $20.00; + $5; total $220.00
    usage = Usage(stored_bytes=10_000 * GB, egress_bytes=5_000 * GB)
    assert _lines(usage) == [
        ("Akamai Object Storage storage", D(9750), STORAGE, D("195.00")),
        ("internet egress", D(4000), EGRESS, D("20.00")),
        ("monthly base fee", D(1), BASE, D("5.00")),
    ]
    assert bill(TABLE, "standard", usage).total_usd == D("220.00")


def test_akamai_says_nothing_of_error_billing() -> None:
    assert TABLE.billing.error_responses is None
    assert any("billing.error_responses is left out" in note for note in TABLE.notes)
