"""planner pricing import aws: AWS Price List offer files to dated tables per region.

The fixtures (tests/pricing/fixtures/aws-offer-*.json) are written by hand in the offer file's exact
format (formatVersion v1.0: products by SKU with attributes, terms.OnDemand with priceDimensions) with
invented SKUs, and with the shapes real files are known to have: several SKUs on one usage type told apart
by operation (Requests-GLACIER-Tier1 PutObject vs S3-GlacierTransition), a $0 free-tier SKU and a Global-
usage type beside the egress ladder, inbound transfer, inter-region prices by destination, and usage types
the planner does not price (Select, Reduced Redundancy, Deep Archive staging). No real offer file was
found kept as a fixture in the public code corpus.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from planner.errors import InputError
from planner.pricing import catalog
from planner.pricing.aws_offer import import_offer
from planner.pricing.billing import bill
from planner.pricing.usage import Usage

FIXTURES = Path(__file__).parent / "fixtures"
GIB = 2**30


@pytest.fixture(scope="module")
def offers() -> tuple[dict[str, Any], dict[str, Any]]:
    s3 = json.loads((FIXTURES / "aws-offer-s3.json").read_text())
    transfer = json.loads((FIXTURES / "aws-offer-datatransfer.json").read_text())
    return s3, transfer


def run(s3: Any, transfer: Any | None = None, **kwargs: Any) -> Any:
    return import_offer(s3, "offer.json", transfer, "transfer.json" if transfer is not None else None, **kwargs)


def written(tmp_path: Path, s3: Any, transfer: Any) -> tuple[dict[str, Any], dict[tuple[str, str], Any]]:
    for table in run(s3, transfer).tables:
        path = tmp_path / table.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(table.text)
    return catalog.load_tables(tmp_path)  # type: ignore[arg-type]


def test_one_table_per_region_in_the_layout_the_catalog_reads(tmp_path: Path, offers: Any) -> None:
    result = run(*offers)
    assert sorted((t.region, t.path) for t in result.tables) == [
        ("eu-central-1", "aws-s3/eu-central-1/2026-09-01.yaml"),
        ("us-east-1", "aws-s3/2026-09-01.yaml"),
    ]
    default, regional = written(tmp_path, *offers)
    assert [t.version for t in default["aws-s3"]] == ["aws-s3@2026-09-01"]
    assert [t.version for t in regional[("aws-s3", "eu-central-1")]] == ["aws-s3/eu-central-1@2026-09-01"]
    # Select, Reduced Redundancy, Deep Archive staging, Requests-Tier4, the Glacier transition on Tier3,
    # the Global- egress aggregate and inbound transfer: nothing the planner prices.
    assert result.skipped_usage_types == 7


def test_prices_and_their_citations(tmp_path: Path, offers: Any) -> None:
    _, regional = written(tmp_path, *offers)
    table = regional[("aws-s3", "eu-central-1")][0]
    standard = table.classes["standard"]
    # EUC1-TimedStorage-ByteHrs: 0-51200 $0.0245, 51200-512000 $0.0235, over $0.0225 (the fixture's SKU FIXTURE0038S3)
    assert [(t.up_to, t.price) for t in standard.storage.tiers] == [
        (Decimal(51_200), Decimal("0.0245")),
        (Decimal(512_000), Decimal("0.0235")),
        (None, Decimal("0.0225")),
    ]
    assert standard.storage.tiers[0].source == (
        "AmazonS3 20260928230416 SKU FIXTURE0038S3 (EUC1-TimedStorage-ByteHrs),"
        " rate FIXTURE0038S3.JRTCKXETXF.6YS6EN2C00"
    )
    # $0.0000054 a request is $0.0054 per 1,000
    tier1 = next(r for r in standard.requests if r.id == "tier-1")
    assert (tier1.price, tier1.per, tier1.status and tier1.status.value) == (
        Decimal("0.0054"),
        1000,
        "verified-primary",
    )
    assert tier1.source is not None and "EUC1-Requests-Tier1" in tier1.source
    # Requests-GLACIER-Tier1 has two SKUs: the PUT one prices tier-1, the transition one lifecycle transitions
    glacier = {r.id: r for r in table.classes["glacier-flexible"].requests}
    assert glacier["tier-1"].source is not None and "FIXTURE" in glacier["tier-1"].source
    assert glacier["tier-1"].price == Decimal("0.036")
    assert glacier["lifecycle-transition"].status is not None
    assert glacier["lifecycle-transition"].status.value == "verified-primary"
    # restore requests (Requests-Tier3 RestoreObject, $0.000054) and bytes (Standard-Retrieval-Bytes RestoreObject)
    standard_restore = table.classes["glacier-flexible"].retrieval.options["standard"]  # type: ignore[union-attr]
    assert (standard_restore.per_gb, standard_restore.per_1000_requests) == (Decimal("0.012"), Decimal("0.054"))
    # Deep Archive's bytes come from the DeepArchiveRestoreObject SKU, not Glacier's
    assert table.classes["deep-archive"].retrieval.options["standard"].per_gb == Decimal("0.022")  # type: ignore[union-attr]
    # Intelligent-Tiering: access tiers and monitoring ($0.0000025 an object = $0.0025 per 1,000)
    tiering = table.classes["intelligent-tiering"]
    assert tiering.access_tiers == {
        "infrequent": Decimal("0.0135"),
        "archive-instant": Decimal("0.005"),
        # the opt-in archive tiers are not in the offer file: the default table's, and the note says so
        "archive": Decimal("0.0036"),
        "deep-archive": Decimal("0.00099"),
    }
    assert tiering.note is not None and "archive access tier, deep-archive access tier" in tiering.note
    assert tiering.monitoring is not None and tiering.monitoring.price == Decimal("0.0025")
    # What the offer file does not state comes from the default table and says so
    transition = next(r for r in table.classes["standard-ia"].requests if r.id == "lifecycle-transition")
    assert transition.status is not None and transition.status.value == "unverified"
    assert transition.source == "not in the offer file: aws-s3@2025-12-01's price"
    assert table.classes["standard-ia"].min_duration_days == 30  # not in the offer: the default table's rule


def test_egress_ignores_the_free_and_global_skus(tmp_path: Path, offers: Any) -> None:
    _, regional = written(tmp_path, *offers)
    table = regional[("aws-s3", "eu-central-1")][0]
    internet = table.egress.internet
    assert [(t.up_to, t.price) for t in internet.tiers] == [
        (Decimal(10_240), Decimal("0.09")),
        (Decimal(51_200), Decimal("0.085")),
        (Decimal(153_600), Decimal("0.07")),
        (None, Decimal("0.05")),
    ]
    assert internet.free_per_month == 100  # the allowance AWS states once for every region
    # inter-region: EUC1 to four destinations, all $0.02: the commonest price
    assert table.egress.inter_region is not None and table.egress.inter_region.tiers[0].price == Decimal("0.02")
    # From us-east-1 three destinations cost $0.02 and us-east-2 $0.01: the table keeps the commonest
    default = catalog.load_tables(tmp_path)[0]["aws-s3"][0]  # type: ignore[arg-type]
    assert default.egress.inter_region is not None and default.egress.inter_region.tiers[0].price == Decimal("0.02")


def test_an_imported_table_bills_as_hand_computed(tmp_path: Path, offers: Any) -> None:
    _, regional = written(tmp_path, *offers)
    table = regional[("aws-s3", "eu-central-1")][0]
    # 60,000 GB: 51,200 x 0.0245 = 1,254.40 + 8,800 x 0.0235 = 206.80; 10,340 GB out: 100 free, 10,240 x 0.09 = 921.60
    cost = bill(table, "standard", Usage(stored_bytes=60_000 * GIB, egress_bytes=10_340 * GIB))
    assert cost.total_usd == Decimal("2382.80")


def test_only_the_regions_asked(offers: Any) -> None:
    assert [t.region for t in run(*offers, regions=["eu-central-1"]).tables] == ["eu-central-1"]
    with pytest.raises(
        InputError, match=r"no prices for region 'sa-east-1' \(the offer prices: eu-central-1, us-east-1\)"
    ):
        run(*offers, regions=["sa-east-1"])


def _edited(offer: dict[str, Any], usagetype: str, **changes: Any) -> dict[str, Any]:
    edited = copy.deepcopy(offer)
    sku = next(s for s, p in edited["products"].items() if p["attributes"]["usagetype"] == usagetype)
    term = next(iter(edited["terms"]["OnDemand"][sku].values()))
    dimensions = list(term["priceDimensions"].values())
    for key, value in changes.items():
        if key == "drop_dimension":
            del term["priceDimensions"][next(iter(term["priceDimensions"]))]
        else:
            dimensions[0][key] = value
    return edited


@pytest.mark.parametrize(
    ("usagetype", "changes", "message"),
    [
        ("EUC1-TimedStorage-ByteHrs", {"unit": "TB-Mo"}, r"EUC1-TimedStorage-ByteHrs: unit 'TB-Mo' where GB-Mo"),
        ("EUC1-TimedStorage-ByteHrs", {"pricePerUnit": {"EUR": "0.02"}}, r"no USD price"),
        (
            "EUC1-TimedStorage-ByteHrs",
            {"drop_dimension": True},
            r"tiers leave a gap or overlap at 51200 \(expected 0\)",
        ),
        ("EUC1-Requests-Tier1", {"pricePerUnit": {"USD": "cheap"}}, r"'cheap' is not a number"),
    ],
)
def test_what_it_cannot_read_is_refused_in_one_line(
    offers: Any, usagetype: str, changes: dict[str, Any], message: str
) -> None:
    s3, transfer = offers
    with pytest.raises(InputError, match=message) as refused:
        run(_edited(s3, usagetype, **changes), transfer)
    assert str(refused.value).startswith("offer.json: ")
    assert "\n" not in str(refused.value)


def test_two_skus_at_two_prices_for_one_usage_type_are_refused(offers: Any) -> None:
    s3, transfer = copy.deepcopy(offers[0]), offers[1]
    sku = next(s for s, p in s3["products"].items() if p["attributes"]["usagetype"] == "EUC1-Requests-Tier2")
    s3["products"]["TWIN"] = {**s3["products"][sku], "sku": "TWIN"}
    term = copy.deepcopy(s3["terms"]["OnDemand"][sku])
    next(iter(next(iter(term.values()))["priceDimensions"].values()))["pricePerUnit"]["USD"] = "0.0000009"
    s3["terms"]["OnDemand"]["TWIN"] = term
    with pytest.raises(
        InputError, match=r"EUC1-Requests-Tier2: SKUs \S+ and TWIN price it differently in eu-central-1"
    ):
        run(s3, transfer)


def test_no_egress_without_the_transfer_offer(offers: Any) -> None:
    with pytest.raises(InputError, match=r"no internet egress price .*pass the AWSDataTransfer offer with --transfer"):
        run(offers[0])


def test_not_an_s3_offer(offers: Any) -> None:
    with pytest.raises(InputError, match=r"an offer for 'AWSDataTransfer', not AmazonS3"):
        run(offers[1])
    with pytest.raises(InputError, match=r"not an AWS Price List offer file"):
        run({"products": {}})
