"""Prices by region: hand-computed S3 bills in eu-central-1 and ap-northeast-1, at and across tier
bounds in AWS's binary GB, and how a region no table prices is refused.

Each case cites the price it checks, as the shipped table (pricing/tables/aws-s3/<region>/) cites it.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from planner.errors import PricingError
from planner.pricing import catalog
from planner.pricing.billing import estimate
from planner.pricing.usage import Usage

GIB = 2**30  # AWS's GB in every region (S3 FAQ: 1,073,741,824 bytes per GB)
NOW = dt.date(2026, 12, 1)


def lines(region: str, category: str, **usage: object) -> list[tuple[Decimal, Decimal, Decimal]]:
    bill = estimate("aws-s3", "standard", Usage(**usage), as_of=NOW, region=region)  # type: ignore[arg-type]
    return [(i.quantity, i.unit_price_usd, i.amount_usd) for i in bill.line_items if i.category == category]


# eu-central-1 S3 Standard: $0.0245 first 50 TB (51,200 GB), $0.0235 next 450 TB, $0.0225 over 500 TB
# (512,000 GB): AWS Price List AmazonS3 offer published 2026-09-28, as quoted region by region in a public
# 2026 storage-cost module; $0.0245 also in three other 2026 files quoting the Price List (verified-secondary).
@pytest.mark.parametrize(
    ("stored_gib", "expected"),
    [
        (1_000, [(Decimal(1_000), Decimal("0.0245"), Decimal("24.50"))]),
        (51_200, [(Decimal(51_200), Decimal("0.0245"), Decimal("1254.40"))]),
        # 51,200 x 0.0245 = 1,254.40; 8,800 x 0.0235 = 206.80
        (
            60_000,
            [
                (Decimal(51_200), Decimal("0.0245"), Decimal("1254.40")),
                (Decimal(8_800), Decimal("0.0235"), Decimal("206.80")),
            ],
        ),
        # 460,800 x 0.0235 = 10,828.80; 1,000 x 0.0225 = 22.50
        (
            513_000,
            [
                (Decimal(51_200), Decimal("0.0245"), Decimal("1254.40")),
                (Decimal(460_800), Decimal("0.0235"), Decimal("10828.80")),
                (Decimal(1_000), Decimal("0.0225"), Decimal("22.50")),
            ],
        ),
    ],
)
def test_eu_central_1_standard_storage(stored_gib: int, expected: list[tuple[Decimal, Decimal, Decimal]]) -> None:
    assert lines("eu-central-1", "storage", stored_bytes=stored_gib * GIB) == expected


def test_eu_central_1_egress() -> None:
    # eu-central-1 internet egress, $0.09 first 10 TB (10,240 GB), $0.085 next 40 TB, after the 100 GB a month
    # free across all regions: the table marks these unverified (no public copy found; as us-east-1's).
    # 20,580 GB out: 100 free; 10,240 x 0.09 = 921.60; 10,240 x 0.085 = 870.40.
    egress = lines("eu-central-1", "egress", egress_bytes=20_580 * GIB)
    assert [(q, p, a) for q, p, a in egress] == [
        (Decimal(10_240), Decimal("0.09"), Decimal("921.60")),
        (Decimal(10_240), Decimal("0.085"), Decimal("870.40")),
    ]
    bill = estimate("aws-s3", "standard", Usage(egress_bytes=20_580 * GIB), as_of=NOW, region="eu-central-1")
    assert {i.price_status.value for i in bill.line_items if i.category == "egress"} == {"unverified"}
    assert bill.table_version == "aws-s3/eu-central-1@2026-09-01"


# ap-northeast-1 S3 Standard: $0.025 first 50 TB, $0.024 next 450 TB (AmazonS3 offer 2026-09-28 as above;
# APN1-TimedStorage-ByteHrs $0.025 also quoted from the 2026-09-18 offer in a public cost model).
@pytest.mark.parametrize(
    ("stored_gib", "expected"),
    [
        (100, [(Decimal(100), Decimal("0.025"), Decimal("2.50"))]),
        (51_200, [(Decimal(51_200), Decimal("0.025"), Decimal("1280.00"))]),
        # one GB past the bound: 1 x 0.024 = 0.024, a line of $0.02 on the invoice
        (
            51_201,
            [(Decimal(51_200), Decimal("0.025"), Decimal("1280.00")), (Decimal(1), Decimal("0.024"), Decimal("0.02"))],
        ),
    ],
)
def test_ap_northeast_1_standard_storage(stored_gib: int, expected: list[tuple[Decimal, Decimal, Decimal]]) -> None:
    assert lines("ap-northeast-1", "storage", stored_bytes=stored_gib * GIB) == expected


def test_ap_northeast_1_egress_at_the_first_bound() -> None:
    # APN1-DataTransfer-Out-Bytes: $0.114 for the first 10 TB (quoted from the Price List in a public 2026
    # cost model, verified-secondary); $0.089 next 40 TB (unverified). 100 GB free first.
    # 10,340 GB: 10,240 x 0.114 = 1,167.36. 10,341 GB: one more GB at 0.089 = $0.089, a $0.09 line.
    assert lines("ap-northeast-1", "egress", egress_bytes=10_340 * GIB) == [
        (Decimal(10_240), Decimal("0.114"), Decimal("1167.36"))
    ]
    assert lines("ap-northeast-1", "egress", egress_bytes=10_341 * GIB) == [
        (Decimal(10_240), Decimal("0.114"), Decimal("1167.36")),
        (Decimal(1), Decimal("0.089"), Decimal("0.09")),
    ]


def test_ap_northeast_1_requests() -> None:
    # APN1-Requests-Tier1 $0.0000047 and Tier2 $0.00000037 a request (AmazonS3 offer of 2026-09-18, quoted in a
    # public 2026 cost model): 1,000,000 PUTs = $4.70; 10,000,000 GETs = $3.70.
    requests = lines("ap-northeast-1", "requests", requests={"put": 1_000_000, "get": 10_000_000})
    assert sorted(a for _, _, a in requests) == [Decimal("3.70"), Decimal("4.70")]


def test_the_default_region_is_unchanged() -> None:
    # No region, or us-east-1 named, prices with the default tables: $0.023 first 50 TB (aws-s3@2025-12-01).
    default = estimate("aws-s3", "standard", Usage(stored_bytes=1_000 * GIB), as_of=NOW)
    named = estimate("aws-s3", "standard", Usage(stored_bytes=1_000 * GIB), as_of=NOW, region="us-east-1")
    assert default.table_version == named.table_version == "aws-s3@2025-12-01"
    assert default.total_usd == named.total_usd == Decimal("23.00")


def test_a_region_no_table_prices_is_refused_in_one_line() -> None:
    with pytest.raises(PricingError) as refused:
        catalog.table_for("aws-s3", NOW, "mars-east-1")
    message = str(refused.value)
    assert "\n" not in message
    assert "no aws-s3 price table for region 'mars-east-1'" in message
    assert "eu-central-1" in message  # it names the regions it has


def test_a_region_before_its_first_version_is_refused() -> None:
    with pytest.raises(
        PricingError, match=r"in eu-central-1 in force on 2025-01-01 \(the earliest begins 2026-09-01\)"
    ):
        catalog.table_for("aws-s3", dt.date(2025, 1, 1), "eu-central-1")


@pytest.mark.parametrize("provider", ["cloudflare-r2", "backblaze-b2", "wasabi", "idrive-e2"])
def test_one_price_everywhere_providers_take_a_region_and_say_so(provider: str) -> None:
    region = {"cloudflare-r2": "weur", "wasabi": "eu-central-2"}.get(provider, "eu-central")
    tables, note = catalog.region_versions(provider, region)
    assert tables == catalog.versions(provider)
    assert note is not None and "charges the same in every region" in note and region in note
    here = estimate(provider, "standard", Usage(stored_bytes=5 * 10**12), as_of=NOW, region=region)
    default = estimate(provider, "standard", Usage(stored_bytes=5 * 10**12), as_of=NOW)
    assert here.total_usd == default.total_usd


def test_a_region_a_provider_does_not_name_is_refused() -> None:
    with pytest.raises(PricingError, match=r"^Wasabi Hot Cloud Storage has no region 'eu-west-9' \(its regions: "):
        catalog.region_versions("wasabi", "eu-west-9")


def test_every_shipped_region_states_binary_units_and_bounds() -> None:
    # AWS bills GB of 2^30 bytes with 1,024-based tier bounds in every region.
    for region in catalog.regions("aws-s3"):
        table = catalog.table_for("aws-s3", NOW, region)
        assert table.billing.units is not None and table.billing.units.gb_bytes == GIB
        bounds = [t.up_to for t in table.classes["standard"].storage.tiers]
        assert bounds == [Decimal(51_200), Decimal(512_000), None], region
        assert [t.up_to for t in table.egress.internet.tiers] == [
            Decimal(10_240),
            Decimal(51_200),
            Decimal(153_600),
            None,
        ]
        if table.regional_folder:  # the regional tables cite a source for every price (us-east-1 cites per table)
            assert all(t.source for t in table.classes["standard"].storage.tiers), f"{region}: a price without a source"
            assert all(t.source for t in table.egress.internet.tiers), f"{region}: a price without a source"


def test_each_tier_carries_its_own_sourcing() -> None:
    # Tokyo's first egress tier ($0.114) is verified-secondary; the next ($0.089) has no source (unverified).
    bill = estimate("aws-s3", "standard", Usage(egress_bytes=10_341 * GIB), as_of=NOW, region="ap-northeast-1")
    statuses = [(i.unit_price_usd, i.price_status.value) for i in bill.line_items if i.category == "egress"]
    assert statuses == [(Decimal("0.114"), "verified-secondary"), (Decimal("0.089"), "unverified")]
