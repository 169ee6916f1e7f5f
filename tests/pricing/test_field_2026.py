"""The 2026 field as data: one hand-computed workload per new provider, each line checked against the
page its table cites, and the general rules those providers need (a base fee, a minimum charge, hourly
storage, per-GB request payload, per-tier minimum object sizes, replication, prices in EUR)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.pricing import catalog
from planner.pricing.arrays import monthly_bills, monthly_totals
from planner.pricing.billing import bill
from planner.pricing.primitives import Status
from planner.pricing.usage import SizeBin, Usage

DAY = dt.date(2026, 12, 1)
GB = 10**9
GiB = 2**30
TB = 10**12
TiB = 2**40
FIELD = ("gcs", "azure-blob", "tigris", "digitalocean-spaces", "hetzner", "storj", "scaleway", "akamai")


def lines(provider: str, storage_class: str, usage: Usage, day: dt.date = DAY) -> tuple[dict[str, Decimal], Decimal]:
    cost = bill(catalog.table_for(provider, day), storage_class, usage)
    return {item.description: item.amount_usd for item in cost.line_items if item.amount_usd}, cost.total_usd


def test_digitalocean_spaces_subscription_includes_250_gib_and_1_tib() -> None:
    # DO community answer (the table's source): $5 covers 250 GiB and 1 TiB outbound; $0.02/GiB, $0.01/GiB beyond
    items, total = lines("digitalocean-spaces", "standard", Usage(stored_bytes=500 * GiB, egress_bytes=2 * TiB))
    assert items == {
        "Spaces Standard storage": Decimal("5.00"),  # (500 - 250) GiB x $0.02
        "internet egress": Decimal("10.24"),  # (2,048 - 1,024) GiB x $0.01
        "monthly base fee": Decimal("5.00"),
    }
    assert total == Decimal("20.24")


def test_akamai_subscription_includes_250_gb_and_1_tb_of_transfer() -> None:
    # techdocs.akamai.com object-storage-pricing: $5 flat, 250 GB included, $0.02/GB beyond, overage $0.005/GB
    items, total = lines("akamai", "standard", Usage(stored_bytes=300 * GB, egress_bytes=1500 * GB))
    assert items == {
        "Akamai Object Storage storage": Decimal("1.00"),  # 50 GB x $0.02
        "internet egress": Decimal("2.50"),  # 500 GB x $0.005
        "monthly base fee": Decimal("5.00"),
    }
    assert total == Decimal("8.50")


@pytest.mark.parametrize(
    ("month_days", "storage_usd", "total_usd"),
    [
        # 3 TB for 744 h = 2,232 TB-h, 744 included; 1,488 x EUR 0.0087 = EUR 12.9456 x 1.1133 = $14.4123
        (31, "14.41", "23.31"),
        # the table's 30-day month: 720 h; 1,440 x EUR 0.0087 = EUR 12.528 x 1.1133 = $13.9474
        (None, "13.95", "22.85"),
    ],
)
def test_hetzner_bills_storage_by_the_hour_in_eur(month_days: int | None, storage_usd: str, total_usd: str) -> None:
    # 2026-04-01 prices: "a base of €6.49 per month ... It includes 1 TB of storage and 1 TB of egress. Beyond
    # that, storage is €0.0087 per TB-hour and egress €1 per TB". ECB rate 1.1133 USD/EUR (2026-10-28).
    usage = Usage(stored_bytes=3 * TB, egress_bytes=2500 * GB, month_days=month_days)
    cost = bill(catalog.table_for("hetzner", DAY), "standard", usage)
    by_category = {item.category: item for item in cost.line_items if item.amount_usd}
    assert by_category["storage"].amount_usd == Decimal(storage_usd)
    assert by_category["storage"].quantity == (1488 if month_days == 31 else 1440)
    # the 1 TB-hour an hour the base price includes, worth EUR 0.0087 x 744 = EUR 6.4728 = $7.206168 in USD
    if month_days == 31:
        free = [item.description for item in cost.line_items if item.category == "free_allowance"]
        assert "worth $7.206168 off this bill" in free[0]
    assert "(EUR 0.0087 per TB-hour at 1.1133 USD per EUR, 2026-10-28)" in by_category["storage"].description
    assert by_category["egress"].amount_usd == Decimal("1.67")  # 1.5 TB x EUR 1.00 x 1.1133 = $1.66995
    assert by_category["other"].amount_usd == Decimal("7.23")  # EUR 6.49 x 1.1133 = $7.225317
    assert cost.total_usd == Decimal(total_usd)
    # the rate is verified-secondary, so no line converted with it is verified-primary
    assert by_category["storage"].price_status == Status.verified_secondary


def test_a_users_exchange_rate_replaces_the_tables(tmp_path: Path) -> None:
    override = tmp_path / "rate.yaml"
    override.write_text(
        "provider: hetzner\nlabel: my-rate\nexchange_rate:\n  usd_per_unit: '1.20'\n  as_of: 2026-12-04\n"
        "  status: unverified\n  source: my bank\n",
        encoding="utf-8",
    )
    table = catalog.load_override(override, DAY)
    cost = bill(table, "standard", Usage(stored_bytes=TB))
    assert [(i.description, i.amount_usd) for i in cost.line_items if i.amount_usd] == [
        ("monthly base fee (EUR 6.49 per month at 1.2 USD per EUR, 2026-12-04)", Decimal("7.79"))  # 6.49 x 1.20
    ]
    assert cost.line_items[-1].price_status == Status.unverified


def test_storj_tiers_minimum_object_size_own_egress_and_the_5_dollar_minimum() -> None:
    # storj tiered page (2025-11-01, in force until 2026-07-01): Regional Workflows $10/TB-month, 1x egress
    # included then $0.01/GB
    tiered = dt.date(2026, 6, 30)
    items, total = lines("storj", "regional-workflows", Usage(stored_bytes=2 * TB, egress_bytes=3 * TB), tiered)
    assert items == {"Storj Regional Workflows storage": Decimal("20.00"), "internet egress": Decimal("10.00")}
    assert total == Decimal("30.00")  # above the $5 minimum: no minimum line
    # Active Archive: 100 kB minimum object size, $0.02/GB egress with no allowance, $6/TB-month
    usage = Usage(stored_bytes=50 * GB, object_sizes=[SizeBin(bytes=50_000, count=1_000_000)], egress_bytes=10 * GB)
    items, total = lines("storj", "active-archive", usage, tiered)
    assert items == {
        "Storj Active Archive storage": Decimal("0.30"),  # 50 GB x $0.006
        "minimum billable object size: 1,000,000 objects under 100,000 bytes billed as that size": Decimal("0.30"),
        "internet egress": Decimal("0.20"),  # 10 GB x $0.02, no allowance in this tier
        "minimum monthly charge of $5: the shortfall": Decimal("4.20"),
    }
    assert total == Decimal("5.00")
    # usage rounded up to a whole GB per tier total: 1.5 GB is billed as 2 GB
    items, _ = lines("storj", "global-collaboration", Usage(stored_bytes=1_500_000_000), tiered)
    assert items["Storj Global Collaboration storage"] == Decimal("0.03")  # 2 GB x $0.015


def test_tigris_requests_free_tier_free_egress_and_replication() -> None:
    # tigrisdata.com/docs/pricing: Standard $0.02/GB-month (5 GB free), Class A $0.005 and Class B $0.0005 per
    # 1,000 (10,000 and 100,000 free), no egress charge; site.tigrisdata.com/pricing: $0.02/GB-month a region.
    # Tigris's GB is a GiB: "1 GiB = 2^30 bytes ... we refer to this as 'GB'"
    usage = Usage(
        stored_bytes=100 * GiB,
        requests={"put": 1_000_000, "get": 10_000_000},
        egress_bytes=TB,
        replica_regions=2,
    )
    items, total = lines("tigris", "standard", usage)
    assert items == {
        "Tigris Standard storage": Decimal("1.90"),  # 95 GB x $0.02
        "class-a requests (put)": Decimal("4.95"),  # 990 x $0.005
        "class-b requests (get)": Decimal("4.95"),  # 9,900 x $0.0005
        "Tigris Standard replication to 2 more regions": Decimal("4.00"),  # 100 GB x 2 x $0.02
    }
    assert total == Decimal("15.80")


def test_scaleway_hourly_eur_prices_and_free_egress() -> None:
    # scaleway/docs-content FAQ: Standard Multi-AZ EUR 0.00002/GB-hour, 75 GB egress free then EUR 0.01/GB
    items, total = lines("scaleway", "standard", Usage(stored_bytes=1000 * GB, egress_bytes=175 * GB))
    assert list(items.values()) == [
        Decimal("16.03"),
        Decimal("1.11"),
    ]  # 720,000 GB-h x 0.00002 x 1.1133; 100 x 0.01 x 1.1133
    assert total == Decimal("17.14")


def test_gcs_always_free_and_egress() -> None:
    # transcription of cloud.google.com/storage/pricing (2026-09-20): Standard $0.020/GiB-month, Class A $0.005
    # and Class B $0.0004 per 1,000, egress $0.12/GiB; Always Free 5 GB-months, 5,000 A, 50,000 B, 100 GB egress
    usage = Usage(stored_bytes=1024 * GiB, requests={"put": 100_000, "get": 1_000_000}, egress_bytes=200 * GiB)
    items, total = lines("gcs", "standard", usage)
    assert items == {
        "GCS Standard storage": Decimal("20.38"),  # 1,019 GiB x $0.02
        "class-a requests (put)": Decimal("0.48"),  # 95 x $0.005 = $0.475
        "class-b requests (get)": Decimal("0.38"),  # 950 x $0.0004
        "internet egress, first 10,240 GiB": Decimal("12.00"),  # 100 GiB x $0.12
    }
    assert total == Decimal("33.24")


def test_azure_hot_lrs() -> None:
    # mitchpaulus/dotfiles notes/azure.md: Hot $0.018/GB, write $0.065 and read $0.005 per 10,000;
    # egress: first 100 GB free, then $0.087/GB
    usage = Usage(stored_bytes=1000 * GB, requests={"put": 100_000, "get": 1_000_000}, egress_bytes=500 * GB)
    items, total = lines("azure-blob", "hot", usage)
    assert items == {
        "Azure Hot (LRS) storage, first 51,200 GB-month": Decimal("18.00"),
        "write requests (put)": Decimal("0.65"),
        "read requests (get)": Decimal("0.50"),
        "internet egress": Decimal("34.80"),  # 400 GB x $0.087
    }
    assert total == Decimal("53.95")


def test_s3_express_one_zone_is_the_faqs_example_1() -> None:
    # aws.amazon.com/s3/faqs Example 1: 10 GB, 1,000,000 PUTs and 9,000,000 GETs of 10 KB = $2.58
    usage = Usage(
        stored_bytes=10 * GiB,
        requests={"put": 1_000_000, "get": 9_000_000},
        upload_bytes=10 * GiB,
        retrieval_bytes=90 * GiB,
    )
    items, total = lines("aws-s3", "express-one-zone", usage)
    assert items == {
        "S3 Express One Zone storage": Decimal("1.10"),
        "put requests (put)": Decimal("1.13"),
        "get requests (get)": Decimal("0.27"),
        "S3 Express One Zone upload per GB of request payload": Decimal("0.03"),
        "S3 Express One Zone retrieval per GB of request payload": Decimal("0.05"),
    }
    assert total == Decimal("2.58")


@pytest.mark.parametrize(
    ("provider", "storage_class", "usage"),
    [
        ("hetzner", "standard", {"stored_bytes": 3 * TB, "egress_bytes": 2 * TB}),
        ("storj", "standard", {"stored_bytes": 10 * GB, "object_count": 1000, "egress_bytes": 10 * GB}),
        ("digitalocean-spaces", "standard", {"stored_bytes": 300 * GiB}),
        ("tigris", "standard", {"stored_bytes": 100 * GB, "replica_regions": 2}),
        ("aws-s3", "express-one-zone", {"stored_bytes": GiB, "upload_bytes": 5 * GiB, "retrieval_bytes": 7 * GiB}),
    ],
)
def test_the_sweep_bills_the_new_rules_as_the_engine_does(provider: str, storage_class: str, usage: dict) -> None:
    table = catalog.table_for(provider, DAY)
    exact = bill(table, storage_class, Usage(**usage))
    arrays = {
        "stored_bytes": [usage["stored_bytes"]],
        "egress_bytes": [usage.get("egress_bytes", 0)],
        "upload_bytes": [usage.get("upload_bytes", 0)],
        "retrieval_bytes": [usage.get("retrieval_bytes", 0)],
        "replica_regions": usage.get("replica_regions", 0),
    }
    if "object_count" in usage:
        arrays["object_count"] = [usage["object_count"]]
    assert monthly_totals(table, storage_class, **arrays)[0] == pytest.approx(float(exact.unrounded_total_usd()))
    assert monthly_bills(table, storage_class, **arrays)[0][0] == pytest.approx(float(exact.total_usd))


# ---------------------------------------------------------------- providers are data


def test_no_code_names_a_provider_of_the_field() -> None:
    """They are table folders only: no Python file of planner names one of their ids."""
    root = Path(catalog.__file__).parents[1]
    named = [
        f"{path.relative_to(root)}: {provider}"
        for path in root.rglob("*.py")
        for provider in FIELD
        if re.search(rf"[\"']{re.escape(provider)}[\"':]", path.read_text(encoding="utf-8"))
    ]
    assert named == []
    assert set(FIELD) <= set(catalog.providers())


# ---------------------------------------------------------------- tables refused at load

TABLE = """\
schema_version: 1
provider: acme-s3
provider_name: Acme
region: test-1
currency: {currency}
status: unverified
sources: ["made up for a test"]
billing: {billing}
egress:
  internet: {{unit: GB, unit_bytes: 1000000000, tiers: [{{price: "0"}}]}}
classes:
  standard:
    name: Acme Standard
    storage: {{unit: GB-month, unit_bytes: 1000000000, tiers: {tiers}}}
    free_operations: [put, get]
"""


@pytest.mark.parametrize(
    ("currency", "billing", "tiers", "field", "message"),
    [
        (
            "USD",
            "{}",
            '[{up_to: 100, price: "0.02"}, {up_to: 50, price: "0.01"}, {price: "0.01"}]',
            "classes.standard.storage.tiers",
            "tier bounds must be positive and strictly increasing",
        ),
        ("USD", "{}", '[{price: "-0.02"}]', "classes.standard.storage.tiers", "a price cannot be negative"),
        (
            "USD",
            '{base_fee: {price: "-1", status: unverified, source: x}}',
            '[{price: "0.02"}]',
            "billing.base_fee.price",
            "greater than or equal to 0",
        ),
        (
            "USD",
            '{minimum_charge: {price: "5", status: unverified}}',
            '[{price: "0.02"}]',
            "billing.minimum_charge.source",
            "required",
        ),
        ("EUR", "{}", '[{price: "0.02"}]', "(top level)", "exchange_rate: required for prices in EUR"),
    ],
)
def test_a_bad_table_is_refused_at_load_naming_file_and_field(
    tmp_path: Path, currency: str, billing: str, tiers: str, field: str, message: str
) -> None:
    folder = tmp_path / "acme-s3"
    folder.mkdir()
    (folder / "2026-01-01.yaml").write_text(
        TABLE.format(currency=currency, billing=billing, tiers=tiers), encoding="utf-8"
    )
    with pytest.raises(InputError) as caught:
        catalog.load_tables(tmp_path)
    text = str(caught.value)
    assert "acme-s3/2026-01-01.yaml" in text and field in text and message in text
    assert "\n" not in text


def test_gcs_us_multi_region_is_a_region_table_without_always_free() -> None:
    # docs.cloud.google.com/storage/pricing (proxy copy): multi-region Standard $0.026/GiB-month; Class A
    # $0.005 per 1,000 (oneuptime.com, US multi-region); Always Free holds only in three US regions
    table = catalog.table_for("gcs", DAY, region="us")
    cost = bill(table, "standard", Usage(stored_bytes=TiB, requests={"put": 100_000}))
    assert [(i.description, i.amount_usd) for i in cost.line_items] == [
        ("GCS Standard (US multi-region) storage", Decimal("26.62")),  # 1,024 GiB x $0.026 = $26.624
        ("class-a requests (put)", Decimal("0.50")),  # 100 x $0.005, no free operations
    ]
    assert table.version == "gcs/us@2026-09-20"
