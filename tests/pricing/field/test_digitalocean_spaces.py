"""DigitalOcean Spaces (digitalocean-spaces@2026-01-01), priced by hand from DigitalOcean's staff answer the table
quotes (read again on 2026-12-05; the same figures, so no new version). GiB = 2**30 bytes. Each unit price is
read through ``quoted``.

The words: "as long as: 1. The total storage across all your Spaces is less than 250GB 2. The total outbound
bandwidth across all your Spaces is less than 1TB you will only be charged $5"; "The subscription includes 250
GiB of data storage ... Additional storage beyond this allotment is $0.02 per GiB"; "the additional outbound
transfer is $0.01 per GiB".
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
GiB = 2**30
TiB = 2**40

TABLE = catalog.table_for("digitalocean-spaces", DAY)
BASE = quoted(TABLE, "billing.base_fee.price", "you will only be charged $5", "5.00")
STORAGE = quoted(TABLE, "classes.standard.storage.tiers.0.price", "beyond this allotment is $0.02 per GiB", "0.02")
EGRESS = quoted(TABLE, "egress.internet.tiers.0.price", "outbound transfer is $0.01 per GiB", "0.01")


def _lines(usage: Usage) -> list[tuple[str, Decimal, Decimal, Decimal]]:
    cost = bill(TABLE, "standard", usage)
    return [(i.description, i.quantity, i.unit_price_usd, i.amount_usd) for i in cost.line_items if i.amount_usd]


def test_every_price_of_the_spaces_table_follows_from_its_quote() -> None:
    assert TABLE.version == "digitalocean-spaces@2026-01-01"
    assert unquoted(TABLE) == []
    assert problems(TABLE) == []


def test_a_month_inside_the_subscription_pays_the_5_dollars() -> None:
    # 100 GiB of the 250 included, 500 GiB of the 1,024 included
    usage = Usage(stored_bytes=100 * GiB, egress_bytes=500 * GiB)
    assert _lines(usage) == [("monthly base fee", D(1), BASE, D("5.00"))]


def test_a_middle_month_past_both_allowances() -> None:
    # (500 - 250) GiB x $0.02 = $5.00; (2,048 - 1,024) GiB x $0.01 = $10.24; + $5; total $20.24
    usage = Usage(stored_bytes=500 * GiB, egress_bytes=2 * TiB)
    assert _lines(usage) == [
        ("Spaces Standard storage", D(250), STORAGE, D("5.00")),
        ("internet egress", D(1024), EGRESS, D("10.24")),
        ("monthly base fee", D(1), BASE, D("5.00")),
    ]
    assert bill(TABLE, "standard", usage).total_usd == D("20.24")


def test_a_large_month_at_the_one_overage_rate() -> None:
    # 10 TiB: (10,240 - 250) x $0.02 = $199.80; 10 TiB out: (10,240 - 1,024) x $0.01 = $92.16; + $5; total $296.96
    usage = Usage(stored_bytes=10 * TiB, egress_bytes=10 * TiB)
    assert _lines(usage) == [
        ("Spaces Standard storage", D(9990), STORAGE, D("199.80")),
        ("internet egress", D(9216), EGRESS, D("92.16")),
        ("monthly base fee", D(1), BASE, D("5.00")),
    ]
    assert bill(TABLE, "standard", usage).total_usd == D("296.96")


def test_spaces_says_nothing_of_error_billing() -> None:
    assert TABLE.billing.error_responses is None
    assert any("billing.error_responses is left out" in note for note in TABLE.notes)
