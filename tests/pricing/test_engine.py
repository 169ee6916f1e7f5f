"""Hand-computed bills at and across every tier boundary, allowance, minimum and rounding rule.

Each case names the price it checks; expected amounts are worked out by hand from the tables
(pricing/tables/...), never by calling the engine's own helpers.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from planner.errors import PricingError
from pricing.engine import estimate
from pricing.models import CostBreakdown, Deletion, SizeBin, Usage

GB = 10**9
TB = 10**12
TIB = 2**40
KIB = 1024
NOW = dt.date(2026, 12, 1)


def total(provider: str, storage_class: str, as_of: dt.date = NOW, **usage: object) -> Decimal:
    return estimate(provider, storage_class, Usage(**usage), as_of=as_of).total_usd  # type: ignore[arg-type]


def category(provider: str, storage_class: str, name: str, as_of: dt.date = NOW, **usage: object) -> Decimal:
    bill = estimate(provider, storage_class, Usage(**usage), as_of=as_of)  # type: ignore[arg-type]
    return bill.by_category().get(name, Decimal(0))


# S3 Standard storage: $0.023 first 50 TB, $0.022 next 450 TB, $0.021 over 500 TB (GB = 10^9).
@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        (50 * TB, "1150"),  # 50,000 x 0.023
        (50 * TB + GB, "1150.022"),  # + 1 GB at 0.022
        (500 * TB, "11050"),  # 1150 + 450,000 x 0.022
        (500 * TB + GB, "11050.021"),  # + 1 GB at 0.021
        (600 * TB, "13150"),  # 11050 + 100,000 x 0.021
        (GB // 2, "0.0115"),  # half a GB-month, no rounding at AWS
    ],
)
def test_s3_standard_storage_tiers(stored: int, expected: str) -> None:
    assert total("aws-s3", "standard", stored_bytes=stored) == Decimal(expected)


# S3 internet egress after the 100 GB monthly allowance: 0.09 to 10 TB, 0.085 next 40, 0.07 next 100, 0.05 over 150.
@pytest.mark.parametrize(
    ("egress", "expected"),
    [
        (100 * GB, "0"),  # inside the free 100 GB
        (101 * GB, "0.09"),
        (10 * TB, "891"),  # 9,900 GB x 0.09
        (10 * TB + 100 * GB, "900"),  # 10,000 billable GB fill the first tier exactly
        (10 * TB + 101 * GB, "900.085"),  # one GB into the second tier
        (50 * TB + 100 * GB, "4300"),  # 900 + 40,000 x 0.085
        (150 * TB, "11293"),  # 900 + 3400 + 99,900 x 0.07
        (150 * TB + 100 * GB, "11300"),  # 900 + 3400 + 7000
        (150 * TB + 101 * GB, "11300.05"),
        (200 * TB, "13795"),  # seed 000's case study: 11300 + 49,900 x 0.05 (not the $22k it claims)
    ],
)
def test_s3_egress_tiers(egress: int, expected: str) -> None:
    assert category("aws-s3", "standard", "egress", egress_bytes=egress) == Decimal(expected)


def test_s3_egress_allowance_by_date() -> None:
    # 2021-11-30: 1 GB free per region; from 2021-12-01: 100 GB aggregated.
    assert total("aws-s3", "standard", dt.date(2021, 11, 30), egress_bytes=10 * TB) == Decimal("899.91")
    assert total("aws-s3", "standard", dt.date(2021, 12, 1), egress_bytes=10 * TB) == Decimal("891")


def test_s3_shared_egress_allowance_used_elsewhere() -> None:
    # The 100 GB is shared across AWS services: if EC2 used 60 GB of it, 40 GB remain: 9,960 GB x 0.09.
    assert total("aws-s3", "standard", egress_bytes=10 * TB, egress_allowance_used_bytes=60 * GB) == Decimal("896.4")


def test_s3_requests_and_free_delete() -> None:
    # 3,000 PUT at $0.005/1k + 30,000 GET at $0.0004/1k; DELETE is free.
    usage = {"put": 3000, "get": 30000, "delete": 10**6}
    assert total("aws-s3", "standard", requests=usage) == Decimal("0.027")


def test_s3_standard_ia_small_objects_padded_to_128_kib() -> None:
    # 1,000,000 objects of 64 KiB: 65.536 GB stored + 65.536 GB padding, at $0.0125.
    stored = 10**6 * 64 * KIB
    bill = estimate("aws-s3", "standard-ia", Usage(stored_bytes=stored, object_count=10**6), as_of=NOW)
    assert bill.by_category() == {"storage": Decimal("0.8192"), "minimum": Decimal("0.8192")}


def test_s3_ia_objects_at_the_minimum_size_are_not_padded() -> None:
    stored = 10**6 * 128 * KIB
    assert category("aws-s3", "standard-ia", "minimum", stored_bytes=stored, object_count=10**6) == 0


def test_size_histogram_pads_only_the_small_bin() -> None:
    # 1,000 objects of 100 KiB padded by 28 KiB each; 1,000 objects of 1 MiB not padded.
    bins = [SizeBin(bytes=100 * KIB, count=1000), SizeBin(bytes=1024 * KIB, count=1000)]
    stored = 1000 * 100 * KIB + 1000 * 1024 * KIB
    padding = category("aws-s3", "glacier-ir", "minimum", stored_bytes=stored, object_sizes=bins)
    assert padding == Decimal(1000 * 28 * KIB) / GB * Decimal("0.004")


@pytest.mark.parametrize(
    ("storage_class", "min_days", "price"),
    [
        ("standard-ia", 30, "0.0125"),
        ("glacier-ir", 90, "0.004"),
        ("glacier-flexible", 90, "0.0036"),
        ("deep-archive", 180, "0.00099"),
    ],
)
def test_s3_early_deletion_before_and_after_the_minimum(storage_class: str, min_days: int, price: str) -> None:
    # 1,000 GB deleted 10 days old pay (min - 10) remaining days over a 30-day month.
    early = Deletion(bytes=1000 * GB, objects=1, age_days=10)
    expected = Decimal(1000) * Decimal(min_days - 10) * Decimal(price) / 30  # may repeat: compare to 1e-12
    got = category("aws-s3", storage_class, "early_deletion", deletions=[early])
    assert got.quantize(Decimal("1e-12")) == expected.quantize(Decimal("1e-12"))
    on_time = Deletion(bytes=1000 * GB, objects=1, age_days=min_days)
    assert category("aws-s3", storage_class, "early_deletion", deletions=[on_time]) == 0


def test_s3_standard_has_no_early_deletion() -> None:
    assert category("aws-s3", "standard", "early_deletion", deletions=[Deletion(bytes=TB, age_days=0)]) == 0


def test_glacier_flexible_per_object_overhead() -> None:
    # 1 TB in 1,000,000 objects: 1,000 GB x 0.0036, + 32 KiB/object at 0.0036, + 8 KiB/object at Standard's 0.023.
    bill = estimate("aws-s3", "glacier-flexible", Usage(stored_bytes=TB, object_count=10**6), as_of=NOW)
    expected = Decimal("3.6") + Decimal("32.768") * Decimal("0.0036") + Decimal("8.192") * Decimal("0.023")
    assert bill.total_usd == expected


@pytest.mark.parametrize(
    ("option", "expected"),
    [("standard", "10.05"), ("bulk", "0"), ("expedited", "40")],  # 1,000 GB and 1,000 requests
)
def test_glacier_flexible_retrieval_options(option: str, expected: str) -> None:
    usage = {"retrieval_bytes": TB, "retrieval_requests": 1000, "retrieval_option": option}
    assert category("aws-s3", "glacier-flexible", "retrieval", **usage) == Decimal(expected)


def test_glacier_flexible_bulk_retrieval_was_not_free_before_the_2021_cut() -> None:
    usage = {"retrieval_bytes": TB, "retrieval_requests": 1000, "retrieval_option": "bulk"}
    # 1,000 GB x 0.0025 + 1 x 0.025
    assert category("aws-s3", "glacier-flexible", "retrieval", dt.date(2021, 11, 29), **usage) == Decimal("2.525")


def test_intelligent_tiering_access_tiers_and_monitoring() -> None:
    # 1,000 objects of 1 GB, half in Infrequent Access: 500 x 0.023 + 500 x 0.0125 + 1 x 0.0025 monitoring.
    usage = Usage(stored_bytes=TB, object_count=1000, access_tier_shares={"infrequent": Decimal("0.5")})
    assert estimate("aws-s3", "intelligent-tiering", usage, as_of=NOW).total_usd == Decimal("17.7525")


def test_intelligent_tiering_small_objects_are_not_monitored() -> None:
    usage = Usage(stored_bytes=1000 * 64 * KIB, object_count=1000, access_tier_shares={"infrequent": Decimal("0.5")})
    bill = estimate("aws-s3", "intelligent-tiering", usage, as_of=NOW)
    # All bytes stay in Frequent Access (0.065536 GB x 0.023), and no monitoring line.
    assert bill.total_usd == Decimal("0.065536") * Decimal("0.023")


# Cloudflare R2: 10 GB-month, 1 M Class A and 10 M Class B free; every unit rounded up.
@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"stored_bytes": 10 * GB}, "0"),
        ({"stored_bytes": 10 * GB + GB // 2}, "0.015"),  # 0.5 GB-month rounds up to 1
        ({"stored_bytes": 1010 * GB}, "15"),  # 1,000 GB x 0.015
        ({"requests": {"put": 10**6}}, "0"),
        ({"requests": {"put": 10**6 + 1}}, "4.50"),  # one op over the allowance bills a whole million
        ({"requests": {"put": 10**6, "list": 1}}, "4.50"),  # LIST is Class A too
        ({"requests": {"get": 10**7 + 1}}, "0.36"),
        ({"requests": {"delete": 10**9}}, "0"),
        ({"egress_bytes": 10**15}, "0"),  # 1 PB of egress, free
    ],
)
def test_r2_standard(usage: dict[str, object], expected: str) -> None:
    assert total("cloudflare-r2", "standard", **usage) == Decimal(expected)


def test_r2_infrequent_access_rounding_retrieval_and_minimum_duration() -> None:
    # 1,000 writes bill a whole million at $9 (cloudflare-docs#24658); 1.1 GB read bills 2 GB at $0.01.
    assert total("cloudflare-r2", "infrequent-access", requests={"put": 1000}) == Decimal("9")
    assert category("cloudflare-r2", "infrequent-access", "retrieval", retrieval_bytes=1_100_000_000) == Decimal("0.02")
    # 100 GB deleted at 10 days: 100 x 20/30 = 66.67 GB-month, rounded up to 67, at $0.01.
    early = [Deletion(bytes=100 * GB, age_days=10)]
    assert category("cloudflare-r2", "infrequent-access", "early_deletion", deletions=early) == Decimal("0.67")


def test_r2_bucket_fee_from_its_version() -> None:
    assert total("cloudflare-r2", "standard", dt.date(2026, 10, 8), buckets=100_001) == Decimal("0.10")
    assert total("cloudflare-r2", "standard", dt.date(2026, 10, 7), buckets=100_001) == 0
    assert total("cloudflare-r2", "standard", dt.date(2026, 10, 8), buckets=100_000) == 0


def test_r2_infrequent_access_did_not_exist_at_ga() -> None:
    with pytest.raises(PricingError, match="no storage class 'infrequent-access'"):
        estimate("cloudflare-r2", "infrequent-access", Usage(), as_of=dt.date(2023, 1, 1))


# Backblaze B2.
def test_b2_2026_storage_and_3x_egress_allowance() -> None:
    # $6.95/TB per 30 days after 10 GB free; egress free up to 3x stored, then $0.01/GB.
    assert total("backblaze-b2", "standard", stored_bytes=TB, egress_bytes=3 * TB) == Decimal("6.8805")
    assert total("backblaze-b2", "standard", stored_bytes=TB, egress_bytes=4 * TB) == Decimal("16.8805")
    assert total("backblaze-b2", "standard", stored_bytes=TB, requests={"get": 10**7, "list": 10**6}) == Decimal(
        "6.8805"
    )


def test_b2_the_day_before_and_the_day_of_the_2026_change() -> None:
    usage = {"stored_bytes": TB, "requests": {"get": 100_000, "list": 80_000}}
    # 2026-04-30: 990 GB x 0.006; 25,000 billable GETs (75,000 free) = 2.5 x 0.004; 5,000 LISTs = 5 x 0.004.
    assert total("backblaze-b2", "standard", dt.date(2026, 4, 30), **usage) == Decimal("5.97")
    assert total("backblaze-b2", "standard", dt.date(2026, 5, 1), **usage) == Decimal("6.8805")


def test_b2_egress_rules_around_2023_10_03() -> None:
    # Before: 1 GB a day free (30 GB a month), then $0.01. After: 3x stored free.
    usage = {"stored_bytes": TB, "egress_bytes": 100 * GB}
    assert category("backblaze-b2", "standard", "egress", dt.date(2023, 10, 2), **usage) == Decimal("0.70")
    assert category("backblaze-b2", "standard", "egress", dt.date(2023, 10, 3), **usage) == 0
    assert total("backblaze-b2", "standard", dt.date(2023, 10, 2), stored_bytes=TB) == Decimal("4.95")
    assert total("backblaze-b2", "standard", dt.date(2023, 10, 3), stored_bytes=TB) == Decimal("5.94")


def test_b2_egress_price_history() -> None:
    assert category("backblaze-b2", "standard", "egress", dt.date(2017, 4, 17), egress_bytes=100 * GB) == Decimal("5")
    assert category("backblaze-b2", "standard", "egress", dt.date(2017, 4, 18), egress_bytes=100 * GB) == Decimal("2")


# Wasabi: per TB-month (2^40 bytes), 1 TB minimum, 90-day minimum duration, egress <= stored.
def test_wasabi_minimum_and_the_2026_rise() -> None:
    assert total("wasabi", "standard", dt.date(2026, 6, 30), stored_bytes=TIB // 2) == Decimal("6.99")
    assert total("wasabi", "standard", dt.date(2026, 7, 1), stored_bytes=TIB // 2) == Decimal("7.99")
    assert total("wasabi", "standard", dt.date(2026, 7, 1), stored_bytes=0) == Decimal("7.99")
    assert total("wasabi", "standard", dt.date(2026, 7, 1), stored_bytes=10 * TIB) == Decimal("79.90")


def test_wasabi_timed_deleted_storage() -> None:
    # 1 TiB deleted at 30 days pays 60 more days: 2 TB-months at $7.99.
    early = [Deletion(bytes=TIB, age_days=30)]
    assert category("wasabi", "standard", "early_deletion", deletions=early) == Decimal("15.98")
    assert category("wasabi", "standard", "early_deletion", deletions=[Deletion(bytes=TIB, age_days=90)]) == 0


def test_wasabi_egress_policy_is_a_warning_not_a_price() -> None:
    ok = estimate("wasabi", "standard", Usage(stored_bytes=10 * TIB, egress_bytes=10 * TIB), as_of=NOW)
    over = estimate("wasabi", "standard", Usage(stored_bytes=10 * TIB, egress_bytes=10 * TIB + 2**30), as_of=NOW)

    def egress_warnings(bill: CostBreakdown) -> list[str]:
        return [w for w in bill.warnings if "egress" in w]

    assert egress_warnings(ok) == [] and ok.total_usd == over.total_usd
    assert len(egress_warnings(over)) == 1 and "exceeds 1x the stored" in egress_warnings(over)[0]


def test_wasabi_4_kb_minimum_object_size() -> None:
    # 1,000,000 objects of 1 KiB: 3 KiB padding each; the 1 TB minimum covers it all.
    usage = Usage(stored_bytes=10**6 * KIB, object_count=10**6)
    bill = estimate("wasabi", "standard", usage, as_of=NOW)
    assert bill.total_usd == Decimal("7.99")
    assert any("minimum billable object size" in item.description for item in bill.line_items)


# IDrive e2: 1 TB minimum at $5, 30-day minimum duration.
def test_idrive_e2_minimum_and_deleted_storage() -> None:
    assert total("idrive-e2", "standard", stored_bytes=200 * GB) == Decimal("5.00")
    assert total("idrive-e2", "standard", stored_bytes=3 * TB) == Decimal("15.00")
    early = [Deletion(bytes=3 * TB, age_days=10)]
    # 3 TB x 20/30 x $5
    assert category("idrive-e2", "standard", "early_deletion", stored_bytes=3 * TB, deletions=early) == Decimal("10")


def test_every_line_states_quantity_unit_price_and_version() -> None:
    usage = Usage(stored_bytes=200 * TB, object_count=25_000, egress_bytes=200 * TB, requests={"get": 30_000})
    bill = estimate("aws-s3", "standard", usage, as_of=NOW)
    assert bill.total_usd == sum(item.amount_usd for item in bill.line_items)
    for item in bill.line_items:
        assert item.table_version == "aws-s3@2025-12-01"
        assert item.amount_usd == item.quantity * item.unit_price_usd
        assert item.unit


@pytest.mark.parametrize(
    ("provider", "storage_class", "as_of", "message"),
    [
        ("nope", "standard", NOW, "unknown provider 'nope'"),
        ("aws-s3", "nope", NOW, "no storage class 'nope'"),
        ("aws-s3", "standard", dt.date(2000, 1, 1), "no aws-s3 price table in force on 2000-01-01"),
    ],
)
def test_unknown_provider_class_or_date(provider: str, storage_class: str, as_of: dt.date, message: str) -> None:
    with pytest.raises(PricingError, match=message):
        estimate(provider, storage_class, Usage(), as_of=as_of)


def test_an_operation_the_class_does_not_price_is_an_error() -> None:
    with pytest.raises(PricingError, match="operation 'select' is not priced"):
        estimate("cloudflare-r2", "standard", Usage(requests={"select": 1}), as_of=NOW)
