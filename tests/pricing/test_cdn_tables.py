"""CDN price tables and routes as data, and the CDN's own bill, checked by hand against the cited pages."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from planner.errors import PricingError
from planner.pricing import cdn_prices
from planner.pricing.cdn_prices import CdnUsage, cdn_bill, cdn_table_for, route_between

NOW = dt.date(2026, 12, 1)
TB = 10**12


def _amounts(lines: list) -> list[tuple[str, Decimal, Decimal]]:
    return [(line.category, line.quantity, line.amount_usd) for line in lines]


def test_every_cdn_the_issue_names_has_a_table_with_sources() -> None:
    assert cdn_prices.cdn_ids() == ["bunny", "cloudflare", "cloudfront", "fastly", "gcp-cdn"]
    for cdn in cdn_prices.cdn_ids():
        table = cdn_table_for(cdn, NOW)
        assert table.sources and table.status.value in ("verified-primary", "verified-secondary")


def test_an_unknown_cdn_is_a_pricing_error() -> None:
    with pytest.raises(
        PricingError, match=r"^unknown CDN 'akamai' \(known: bunny, cloudflare, cloudfront, fastly, gcp-cdn\)$"
    ):
        cdn_table_for("akamai", NOW)


@pytest.mark.parametrize(
    ("origin", "cdn", "kind"),
    [
        ("aws-s3", "cloudfront", "free"),  # aws.amazon.com/cloudfront/pricing: free origin fetches from S3
        ("backblaze-b2", "cloudflare", "free"),  # backblaze.com/blog/cdn-bandwidth-fees-what-you-need-to-know
        ("backblaze-b2", "bunny", "free"),
        ("backblaze-b2", "fastly", "free"),
        ("cloudflare-r2", "cloudflare", "free"),
        ("gcs", "gcp-cdn", "cache-fill"),  # cloud.google.com/cdn/pricing: cache fill $0.01/GiB NA/EU
        ("wasabi", "bunny", "internet"),  # no partnership: the bucket's own internet egress
        ("aws-s3", "cloudflare", "internet"),
    ],
)
def test_routes_are_data(origin: str, cdn: str, kind: str) -> None:
    route, version = route_between(origin, cdn, NOW)
    assert (route.kind, version) == (kind, "routes@2021-12-01")
    assert route.source


def test_fastly_bills_its_own_worked_example_and_the_monthly_minimum() -> None:
    # docs.fastly.com/en/guides/about-the-charges-on-your-bill: 10 GB and 10 million requests in North America
    # and Europe bill $8.70 (10 GB x $0.12 + 1,000 x 10,000 requests x $0.0075); the $50 monthly minimum
    # raises it by a $41.30 shortfall.
    route, version = route_between("backblaze-b2", "fastly", NOW)
    lines = cdn_bill(cdn_table_for("fastly", NOW), route, version, CdnUsage(10 * 10**9, 10_000_000, 0), "B2")
    assert _amounts(lines) == [
        ("egress", Decimal(10), Decimal("1.20")),
        ("requests", Decimal(1000), Decimal("7.50")),
        ("minimum", Decimal(1), Decimal("41.30")),
    ]
    assert lines[-1].description == "Fastly monthly minimum of $50: the shortfall"
    assert {line.table_version for line in lines} == {"fastly@2023-06-30"}


def test_bunny_raises_a_month_below_one_dollar_to_one_dollar() -> None:
    # docs.bunny.net/cdn/pricing: $0.01/GB in Europe and North America; docs.bunny.net/billing/add-funds:
    # usage below $1 a month is rounded up to $1. 20 GB = $0.20, shortfall $0.80.
    route, version = route_between("backblaze-b2", "bunny", NOW)
    lines = cdn_bill(cdn_table_for("bunny", NOW), route, version, CdnUsage(20 * 10**9, 5000, 10**9), "B2")
    assert _amounts(lines) == [
        ("egress", Decimal(20), Decimal("0.20")),
        ("transfer", Decimal(1), Decimal("0.00")),  # the B2 -> bunny.net fetch, free by partnership
        ("minimum", Decimal(1), Decimal("0.80")),
    ]


def test_cloud_cdn_bills_cache_egress_tiers_lookups_and_cache_fill() -> None:
    # cloud.google.com/cdn/pricing (field-2026.md 1.2): 200 TB = 186,264.514923 GiB of cache egress to North
    # America: 10,240 x $0.08 = $819.20; 143,360 x $0.055 = $7,884.80; 32,664.514923 x $0.03 = $979.94.
    # Lookups 4,000,000 = 400 x 10,000 x $0.0075 = $3.00. Cache fill 20 TB = 18,626.451492 GiB x $0.01
    # (within North America / Europe) = $186.26.
    route, version = route_between("gcs", "gcp-cdn", NOW)
    lines = cdn_bill(cdn_table_for("gcp-cdn", NOW), route, version, CdnUsage(200 * TB, 4_000_000, 20 * TB), "GCS")
    assert [(c, a) for c, _, a in _amounts(lines)] == [
        ("egress", Decimal("819.20")),
        ("egress", Decimal("7884.80")),
        ("egress", Decimal("979.94")),
        ("requests", Decimal("3.00")),
        ("transfer", Decimal("186.26")),
    ]
    assert lines[-1].description == "Google Cloud CDN cache fill from GCS"
    assert lines[-1].table_version == "routes@2021-12-01"


def test_an_internet_route_leaves_the_fetch_to_the_bucket_bill() -> None:
    route, version = route_between("wasabi", "bunny", NOW)
    lines = cdn_bill(cdn_table_for("bunny", NOW), route, version, CdnUsage(200 * TB, 0, 20 * TB), "Wasabi")
    assert _amounts(lines) == [("egress", Decimal(200_000), Decimal("2000.00"))]
