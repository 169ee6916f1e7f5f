"""Google Cloud CDN (gcp-cdn@2026-12-05), cache data transfer out to North America and cache lookups, priced by
hand from https://cloud.google.com/cdn/pricing read on 2026-12-05. GiB = 2**30 bytes. Each unit price is read
through ``quoted``.

The page's words: "Destination | Price (per GiB) by monthly usage | < 10 TiB | 10 TiB-150 TiB | 150 TiB-500 TiB |
> 500 TiB ... North America (including Hawaii) | $0.08 | $0.055 | $0.03 | Contact Us"; "HTTP/HTTPS cache lookup
requests | $0.0075 per 10,000 requests". Past 500 TiB there is no list price: the table carries $0.03 on.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from planner.pricing.cdn_prices import CdnUsage, cdn_bill, cdn_table_for, route_between
from tests.pricing.field._quoted import problems, quoted, unquoted

D = Decimal
DAY = dt.date(2026, 12, 5)
TiB = 2**40

TABLE = cdn_table_for("gcp-cdn", DAY)
FIRST = quoted(TABLE, "data_out.tiers.0.price", "(including Hawaii) | $0.08", "0.08")
SECOND = quoted(TABLE, "data_out.tiers.1.price", "| $0.08 | $0.055 |", "0.055")
THIRD = quoted(TABLE, "data_out.tiers.2.price", "| $0.055 | $0.03 | Contact Us", "0.03")
PAST = quoted(TABLE, "data_out.tiers.3.price", "| $0.055 | $0.03 | Contact Us", "0.03")
LOOKUPS = quoted(TABLE, "requests.price", "$0.0075 per 10,000 requests", "0.0075")
NA = "Google Cloud CDN data out (North America)"


def _lines(served: int, lookups: int, day: dt.date = DAY) -> list[tuple[str, Decimal, Decimal, Decimal]]:
    route, version = route_between("gcs", "gcp-cdn", day)
    lines = cdn_bill(cdn_table_for("gcp-cdn", day), route, version, CdnUsage(served, lookups, 0), "GCS")
    return [(i.description, i.quantity, i.unit_price_usd, i.amount_usd) for i in lines if i.amount_usd]


def test_every_price_of_the_cdn_table_follows_from_its_quote() -> None:
    assert TABLE.version == "gcp-cdn@2026-12-05"
    assert unquoted(TABLE) == []
    assert problems(TABLE) == []


def test_a_small_month_in_the_first_tier() -> None:
    # 5 TiB = 5,120 GiB x $0.08 = $409.60; 1,000,000 lookups = 100 x $0.0075 = $0.75
    assert _lines(5 * TiB, 1_000_000) == [
        (f"{NA}, 0 to 10,240 GiB", D(5120), FIRST, D("409.60")),
        ("Google Cloud CDN requests", D(100), LOOKUPS, D("0.75")),
    ]


def test_a_middle_month_in_the_second_tier() -> None:
    # 100 TiB = 102,400 GiB: 10,240 x $0.08 = $819.20; 92,160 x $0.055 = $5,068.80
    assert _lines(100 * TiB, 0) == [
        (f"{NA}, 0 to 10,240 GiB", D(10240), FIRST, D("819.20")),
        (f"{NA}, 10,240 to 153,600 GiB", D(92160), SECOND, D("5068.80")),
    ]


def test_past_500_tib_the_150_to_500_tib_price_is_carried_on() -> None:
    # 600 TiB = 614,400 GiB: $819.20 + 143,360 x $0.055 = $7,884.80 + 358,400 x $0.03 = $10,752.00
    # + (614,400 - 512,000) = 102,400 x $0.03 = $3,072.00 ("Contact Us": no list price; carried on, unverified)
    assert _lines(600 * TiB, 0) == [
        (f"{NA}, 0 to 10,240 GiB", D(10240), FIRST, D("819.20")),
        (f"{NA}, 10,240 to 153,600 GiB", D(143360), SECOND, D("7884.80")),
        (f"{NA}, 153,600 to 512,000 GiB", D(358400), THIRD, D("10752.00")),
        (f"{NA}, over 512,000 GiB", D(102400), PAST, D("3072.00")),
    ]
    assert TABLE.data_out.tiers[-1].status == "unverified"
    # the version of 2026-09-20 billed $0.02 there, a figure of the page's older schedule: 102,400 x $0.02
    assert _lines(600 * TiB, 0, dt.date(2026, 12, 1))[-1][-1] == D("2048.00")
