"""planner pricing import aws quotes every price it reads from its price dimension.

The fixtures (tests/pricing/fixtures/aws-offer-*.json, hand-written in the offer file's format) give each
price dimension a description, a pricePerUnit and a unit; the AmazonS3 fixture is version 20260928230416, the
AWSDataTransfer one 20260916132208. A table's price follows from its quote (the loader checks it); these
tests check what the quote says and where it points.
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from planner.pricing import quotes
from planner.pricing.aws_offer import import_offer

FIXTURES = Path(__file__).parent / "fixtures"
READ = dt.date(2026, 12, 5)


@pytest.fixture(scope="module")
def eu_central() -> Any:
    s3 = json.loads((FIXTURES / "aws-offer-s3.json").read_text())
    transfer = json.loads((FIXTURES / "aws-offer-datatransfer.json").read_text())
    result = import_offer(s3, "offer.json", transfer, "transfer.json", regions=["eu-central-1"], read=READ)
    return result.tables[0].table


def test_a_storage_tier_quotes_its_price_dimension_and_the_region_file(eu_central: Any) -> None:
    tier = eu_central.classes["standard"].storage.tiers[0]
    # EUC1-TimedStorage-ByteHrs, 0-51200 GB: "per GB - first 50 TB / month of storage used", USD 0.0245000000
    assert tier.price == Decimal("0.0245")
    assert tier.quote.text == "per GB - first 50 TB / month of storage used (pricePerUnit.USD 0.0245000000, unit GB-Mo)"
    assert tier.quote.url == (
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonS3/20260928230416/eu-central-1/index.json"
    )
    assert tier.quote.read == READ
    assert tier.quote.derive is None


def test_a_request_price_per_request_is_quoted_with_its_scale_to_1000(eu_central: Any) -> None:
    tier1 = next(r for r in eu_central.classes["standard"].requests if r.id == "tier-1")
    # EUC1-Requests-Tier1: USD 0.0000054000 a request; x 1,000 = $0.0054 per 1,000
    assert tier1.price == Decimal("0.0054")
    assert tier1.quote.text == "Requests-Tier1 (pricePerUnit.USD 0.0000054000, unit Requests)"
    assert tier1.quote.derive == "* 1000"
    assert quotes.derive("* 1000", Decimal("0.0000054000")) == Decimal("0.0054")


def test_egress_quotes_the_data_transfer_offer(eu_central: Any) -> None:
    first = eu_central.egress.internet.tiers[0]
    assert first.quote.text.startswith(
        "$0.090 per GB - first 10 TB / month data transfer out beyond the global free tier"
    )
    assert "/AWSDataTransfer/20260916132208/eu-central-1/index.json" in first.quote.url


def test_a_price_kept_from_the_template_carries_no_quote_of_another_region(eu_central: Any) -> None:
    # the fixture prices no Deep Archive restore request: the option keeps the default table's figure,
    # unverified, and the default table's quote (us-east-1's page) is not carried over
    option = eu_central.classes["deep-archive"].retrieval.options["standard"]
    assert option.status == "unverified"
    assert option.quote is None
    # the Intelligent-Tiering archive tiers are not in the fixture either
    assert "access_tiers.archive" not in eu_central.classes["intelligent-tiering"].quotes
    assert "access_tiers.infrequent" in eu_central.classes["intelligent-tiering"].quotes


def test_every_price_the_offer_gives_follows_from_its_quote(eu_central: Any) -> None:
    read = list(quotes.readings(eu_central))
    quoted = [r for r in read if r.quote is not None and r.quote.url.startswith("https://pricing.")]
    assert len(quoted) > 30
    assert all(quotes.problem(r) is None for r in quoted)
