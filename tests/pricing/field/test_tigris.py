"""Tigris priced by hand from its pricing page (Tigris's copy at tigrisdata/tigris-os-docs docs/pricing, and
site.tigrisdata.com/pricing, read 2026-12-05). Its "GB" is a GiB: "1 GiB = 2^30 bytes ... we refer to this as
'GB'". Also: every price of the four providers' current versions follows from its quote."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from planner.pricing import catalog, quotes
from planner.pricing.billing import bill
from planner.pricing.models import PriceTable
from planner.pricing.transition_rules import _provider_rules
from planner.pricing.usage import Usage

GiB = 2**30
DAY = dt.date(2026, 12, 1)


def quoted(table: PriceTable, field: str) -> Decimal:
    reading = next(r for r in quotes.readings(table) if r.field == field)
    assert reading.quote is not None and quotes.problem(reading) is None, field
    return reading.figure


def lines(storage_class: str, usage: Usage) -> tuple[PriceTable, dict[str, tuple[Decimal, Decimal]], Decimal]:
    table = catalog.table_for("tigris", DAY)
    cost = bill(table, storage_class, usage)
    items = {i.description: (i.unit_price_usd, i.amount_usd) for i in cost.line_items if i.amount_usd}
    return table, items, cost.total_usd


def test_inside_the_free_tier() -> None:
    # "Standard storage | 5 GB / month", "Class A requests | 10,000 / month", "Class B requests | 100,000 / month"
    _, items, total = lines("standard", Usage(stored_bytes=4 * GiB, requests={"put": 5000, "get": 50_000}))
    assert items == {} and total == Decimal(0)


def test_the_pages_example_2_with_replication() -> None:
    # "95GB x $0.02/GB/month = $1.90" (5 free); 1,000,000 PUTs, 10,000 free: 990 x $0.005 = $4.95;
    # 10,000,000 GETs: 9,900 x $0.0005 = $4.95; "$0.02/GB/month for each additional region": 100 x 2 x $0.02
    usage = Usage(stored_bytes=100 * GiB, requests={"put": 1_000_000, "get": 10_000_000}, replica_regions=2)
    table, items, total = lines("standard", usage)
    assert items == {
        "Tigris Standard storage": (quoted(table, "classes.standard.storage.tiers.0.price"), Decimal("1.90")),
        "class-a requests (put)": (quoted(table, "classes.standard.requests.0.price"), Decimal("4.95")),
        "class-b requests (get)": (quoted(table, "classes.standard.requests.1.price"), Decimal("4.95")),
        "Tigris Standard replication to 2 more regions": (
            quoted(table, "classes.standard.replication.price"),
            Decimal("4.00"),
        ),
    }
    assert total == Decimal("15.80")


def test_ten_tebibytes_in_infrequent_access_with_a_retrieval() -> None:
    # "$0.01 / GB" a month, no free tier outside Standard: 10,240 GiB x $0.01 = $102.40; "Data Retrieval |
    # Free | $0.01 / GB": 1,024 GiB x $0.01 = $10.24; egress "Free"
    usage = Usage(stored_bytes=10 * 1024 * GiB, retrieval_bytes=1024 * GiB, egress_bytes=50 * 1024 * GiB)
    table, items, total = lines("infrequent-access", usage)
    assert items["Tigris Infrequent Access storage"] == (
        quoted(table, "classes.infrequent-access.storage.tiers.0.price"),
        Decimal("102.40"),
    )
    assert [v for k, v in items.items() if "retrieval" in k] == [
        (quoted(table, "classes.infrequent-access.retrieval.options.standard.per_gb"), Decimal("10.24"))
    ]
    assert quoted(table, "egress.internet.tiers.0.price") == 0
    assert total == Decimal("112.64")


@pytest.mark.parametrize(
    ("status", "billed"),
    [(200, True), (301, False), (304, False), (307, False), (403, False), (404, True), (412, False), (503, True)],
)
def test_the_error_responses_the_page_says_are_not_billed(status: int, billed: bool) -> None:
    # "You will not be charged for the following error responses: 301 ..., 307 ..., 400 ..., 403 ..., 405 ...,
    # 409 ..., 411 ..., 412 ..., 416 ..., 304 ..., 500 ..., and 501 ..."; 404 and 503 are not named
    rule = catalog.table_for("tigris", DAY).billing.error_responses
    assert rule is not None and rule.bills(status) is billed


@pytest.mark.parametrize("provider", ["storj", "hetzner", "scaleway", "tigris"])
def test_every_price_of_every_version_follows_from_its_quote(provider: str) -> None:
    for table in catalog.shipped_tables()[provider]:
        for reading in quotes.readings(table):
            assert reading.quote is not None, f"{table.version} {reading.field}: no quote"
            assert quotes.problem(reading) is None, f"{table.version} {reading.field}: {quotes.problem(reading)}"
            assert reading.quote.url and reading.quote.read == dt.date(2026, 12, 5)
        for class_id, storage_class in table.classes.items():
            assert storage_class.redundancy is not None, f"{table.version} {class_id}: no redundancy"


@pytest.mark.parametrize("provider", ["scaleway", "tigris"])
def test_every_lifecycle_figure_has_a_quote(provider: str) -> None:
    rules = _provider_rules(provider)
    assert rules is not None
    for version in rules.versions:
        assert set(version.figures()) == set(version.quotes), version.effective_from
