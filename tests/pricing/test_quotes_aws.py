"""Every AWS price in force today carries the words it was read from, and follows from them.

Tables: aws-s3 (us-east-1, the 2025-12-01 version in force on 2026-12-05, and every regional table), the
CloudFront CDN table, the routes between buckets and CDNs, and the aws-s3 lifecycle rules. The loader
already refuses a figure that does not follow from its quote; these tests hold that no price is left
without one, and check a few figures by hand against the quoted words.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest

from planner.pricing import catalog, cdn_prices, quotes
from planner.pricing.models import PriceTable
from planner.pricing.transition_rules import lifecycle_rules

TODAY = dt.date(2026, 12, 5)
PAGE = "https://aws.amazon.com/s3/pricing/"


def _regional() -> list[PriceTable]:
    return [versions[-1] for (provider, _), versions in catalog.regional_tables().items() if provider == "aws-s3"]


def _unquoted(table: object) -> list[str]:
    return [r.field for r in quotes.readings(table) if r.quote is None]  # type: ignore[arg-type]


def test_every_aws_s3_price_in_force_in_us_east_1_has_a_quote_that_gives_it() -> None:
    table = catalog.table_for("aws-s3", TODAY)
    readings = list(quotes.readings(table))
    assert len(readings) == 63
    assert _unquoted(table) == []
    for reading in readings:
        assert reading.quote is not None
        assert reading.quote.url and reading.quote.read <= TODAY
        assert quotes.problem(reading) is None, reading.field


# What no source found gives for a region (no stored copy of the pricing page shows another region's tables,
# and no offer file was read): the upper storage and egress tiers, inter-region transfer, lifecycle
# transitions, retrievals, and Intelligent-Tiering's access tiers and monitoring. These stay unquoted (and
# unverified) until `planner pricing import aws` reads the offer files, which quotes every price it gives.
NO_SOURCE_FOUND = re.compile(
    r"egress\.internet\.tiers\.[123]\.price|egress\.inter_region\.tiers\.0\.price"
    r"|classes\.[a-z-]+\.storage\.tiers\.[12]\.price|classes\.[a-z-]+\.requests\.2\.price"
    r"|classes\.[a-z-]+\.retrieval\.options\.[a-z]+\.per_(gb|1000_requests)"
    r"|classes\.intelligent-tiering\.(access_tiers\.[a-z-]+|monitoring\.price)"
)


@pytest.mark.parametrize("table", _regional(), ids=lambda t: t.version)
def test_a_regional_price_is_quoted_wherever_a_source_gives_it(table: PriceTable) -> None:
    readings = list(quotes.readings(table))
    quoted = [r for r in readings if r.quote is not None]
    assert all(quotes.problem(r) is None for r in quoted)
    # every first storage tier, PUT and GET price and the first egress tier is quoted; what is not, no
    # source was found for
    assert [field for field in _unquoted(table) if not NO_SOURCE_FOUND.fullmatch(field)] == []
    first_tiers = [r for r in readings if r.field.endswith(("storage.tiers.0.price", "internet.tiers.0.price"))]
    assert first_tiers and all(r.quote is not None for r in first_tiers)


def test_the_regional_tables_are_all_there() -> None:
    regions = sorted(region for provider, region in catalog.regional_tables() if provider == "aws-s3")
    assert regions == ["ap-northeast-1", "ap-southeast-1", "eu-central-1", "eu-west-1", "sa-east-1", "us-west-2"]


def test_cloudfront_and_the_routes_quote_every_price_and_every_kind() -> None:
    cloudfront = cdn_prices.cdn_table_for("cloudfront", TODAY)
    assert _unquoted(cloudfront) == []
    assert all(quotes.problem(r) is None for r in quotes.readings(cloudfront))
    routes = cdn_prices.routes_for(TODAY)
    assert _unquoted(routes) == []
    assert [(r.origin, r.cdn) for r in routes.routes if r.quote is None] == []


def test_the_aws_lifecycle_rules_quote_every_figure() -> None:
    for day in (dt.date(2020, 1, 1), TODAY):
        rules = lifecycle_rules("aws-s3", day)
        assert set(rules.figures()) == set(rules.quotes)


def test_storage_and_requests_follow_from_the_pricing_page_rows() -> None:
    table = catalog.table_for("aws-s3", TODAY)
    standard = table.classes["standard"]
    # "S3 Standard | First 50 TB / Month: $0.023 per GB" -> $0.023 per GB-month up to 51,200 GB (50 x 1,024)
    first = standard.storage.tiers[0]
    assert first.quote is not None and "First 50 TB / Month: $0.023 per GB" in first.quote.text
    assert (first.up_to, first.price) == (Decimal(51200), Decimal("0.023"))
    assert first.quote.url == PAGE
    # "GET, SELECT, and all other requests (per 1,000 requests): $0.0004" -> $0.0004 per 1,000
    get = next(r for r in standard.requests if r.id == "tier-2")
    assert get.quote is not None and get.quote.text.endswith("$0.0004")
    assert (get.price, get.per) == (Decimal("0.0004"), 1000)
    # "S3 Express One Zone | All Storage / Month: $0.11 per GB": the price since the April 2025 cut
    express = table.classes["express-one-zone"].storage.tiers[0]
    assert express.price == Decimal("0.11") and express.quote is not None and "$0.11 per GB" in express.quote.text
    # "S3Glacier Flexible Retrieval Bulk data retrievals and requests are free of charge." -> 0 and 0
    bulk = table.classes["glacier-flexible"].retrieval.options["bulk"]  # type: ignore[union-attr]
    assert (bulk.per_gb, bulk.per_1000_requests) == (0, 0)
    assert bulk.quote is not None and "free of charge" in bulk.quote.text


def test_a_figure_that_does_not_follow_from_its_quote_is_named() -> None:
    table = catalog.table_for("aws-s3", TODAY)
    reading = next(r for r in quotes.readings(table) if r.field == "classes.standard.storage.tiers.0.price")
    wrong = quotes.Reading(reading.field, Decimal("0.025"), reading.quote)
    # the row gives 3 ("S3"), 50 and 0.023: 0.025 follows from none
    assert quotes.problem(wrong) == "0.025 does not follow from its quote, which gives 3, 50, 0.023"


def test_redundancy_is_stated_for_every_class_with_its_quote() -> None:
    table = catalog.table_for("aws-s3", TODAY)
    zones = {name: c.redundancy.zones for name, c in table.classes.items() if c.redundancy is not None}
    # storage-class-intro.md's comparison: ">= 3" Availability Zones, "1" for One Zone-IA; Express One Zone
    # "redundantly stored on multiple devices within a single Availability Zone"
    assert zones == {
        "standard": 3,
        "standard-ia": 3,
        "intelligent-tiering": 3,
        "glacier-ir": 3,
        "glacier-flexible": 3,
        "deep-archive": 3,
        "onezone-ia": 1,
        "express-one-zone": 1,
    }
    assert "single Availability Zone" in table.classes["express-one-zone"].redundancy.quote.text  # type: ignore[union-attr]


def test_error_responses_follow_the_error_code_billing_page() -> None:
    # "Bucket owners aren't billed for HTTP 5XX server error responses, such as HTTP 503 Slow Down errors."
    # "For AccessDenied (HTTP 403 Forbidden), S3 doesn't charge the bucket owner when the request is
    # initiated outside of the bucket owner's individual AWS account or the bucket owner's AWS organization."
    rule = catalog.table_for("aws-s3", TODAY).billing.error_responses
    assert rule is not None
    assert rule.bills(503) is False
    assert rule.bills(500) is False
    assert rule.bills(403, outside_account=True) is False
    assert rule.bills(403) is True  # from inside the account: a 4XX, billed
    assert rule.bills(404) is True
    assert rule.quote.url == "https://docs.aws.amazon.com/AmazonS3/latest/userguide/ErrorCodeBilling.html"


def test_the_403_rule_is_in_force_from_august_2024_only() -> None:
    before = catalog.table_for("aws-s3", dt.date(2024, 8, 18)).billing.error_responses
    after = catalog.table_for("aws-s3", dt.date(2024, 8, 19)).billing.error_responses
    assert before is not None and after is not None
    assert before.bills(403, outside_account=True) is True
    assert after.bills(403, outside_account=True) is False
    assert before.bills(503) is False
