"""Hand-computed bills at and across every tier boundary, allowance, minimum and rounding rule.

Each case names the price it checks; expected amounts are worked out by hand from the tables
(pricing/tables/...), never by calling the engine's own helpers.
"""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

import pytest

from planner.errors import PricingError
from planner.pricing.billing import estimate
from planner.pricing.breakdown import CostBreakdown
from planner.pricing.usage import Deletion, SizeBin, Usage

GB = 10**9
TB = 10**12
GIB = 2**30  # AWS's GB (S3 FAQ, "How much does Amazon S3 cost?": 1,073,741,824 bytes per GB)
TIB = 2**40
KIB = 1024
NOW = dt.date(2026, 12, 1)


def total(provider: str, storage_class: str, as_of: dt.date = NOW, **usage: object) -> Decimal:
    return estimate(provider, storage_class, Usage(**usage), as_of=as_of).total_usd  # type: ignore[arg-type]


def exact(provider: str, storage_class: str, as_of: dt.date = NOW, **usage: object) -> Decimal:
    """The bill before the invoice rounds its lines: quantity x unit price, summed."""
    bill = estimate(provider, storage_class, Usage(**usage), as_of=as_of)  # type: ignore[arg-type]
    return sum((item.amount_unrounded_usd or Decimal(0) for item in bill.line_items), Decimal(0))


def category(provider: str, storage_class: str, name: str, as_of: dt.date = NOW, **usage: object) -> Decimal:
    bill = estimate(provider, storage_class, Usage(**usage), as_of=as_of)  # type: ignore[arg-type]
    return bill.by_category().get(name, Decimal(0))


def exact_category(provider: str, storage_class: str, name: str, as_of: dt.date = NOW, **usage: object) -> Decimal:
    bill = estimate(provider, storage_class, Usage(**usage), as_of=as_of)  # type: ignore[arg-type]
    return sum((i.amount_unrounded_usd or Decimal(0) for i in bill.line_items if i.category == name), Decimal(0))


def test_the_s3_faq_storage_example_to_the_cent() -> None:
    # S3 FAQ, "How much does Amazon S3 cost?": 100 GB (107,374,182,400 bytes) for 15 days and 100 TB
    # (109,951,162,777,600 bytes) for 16 days of March = 42,259,901,212,262,400 byte-hours;
    # / 1,073,741,824 bytes per GB / 744 hours = 52,900 GB-months;
    # 51,200 GB x $0.023 = $1,177.60 + 1,700 GB x $0.022 = $37.40; total $1,215.00.
    byte_hours = 107_374_182_400 * 15 * 24 + 109_951_162_777_600 * 16 * 24
    assert byte_hours == 42_259_901_212_262_400
    average_bytes, remainder = divmod(byte_hours, 744)
    assert remainder == 0
    bill = estimate("aws-s3", "standard", Usage(stored_bytes=average_bytes), as_of=NOW)
    assert [(i.quantity, i.unit_price_usd, i.amount_usd) for i in bill.line_items] == [
        (Decimal(51_200), Decimal("0.023"), Decimal("1177.60")),
        (Decimal(1_700), Decimal("0.022"), Decimal("37.40")),
    ]
    assert bill.total_usd == Decimal("1215.00")
    assert bill.model_dump(mode="json")["total_usd"] == "1215.00"


# S3 Standard storage: $0.023 first 50 TB, $0.022 next 450 TB, $0.021 over 500 TB, in GB of 2**30
# bytes: the bounds are 51,200 and 512,000 GB (the FAQ's example bills the first tier as 51,200 GB).
@pytest.mark.parametrize(
    ("stored", "expected_exact", "expected_billed"),
    [
        (51_200 * GIB, "1177.6", "1177.60"),  # 51,200 x 0.023, the whole first tier
        (51_201 * GIB, "1177.622", "1177.62"),  # + 1 GB at 0.022 (a 2.2-cent line bills 2 cents)
        (512_000 * GIB, "11315.2", "11315.20"),  # 1177.60 + 460,800 x 0.022
        (512_001 * GIB, "11315.221", "11315.22"),  # + 1 GB at 0.021
        (600_000 * GIB, "13163.2", "13163.20"),  # 11315.20 + 88,000 x 0.021
        (GIB // 2, "0.0115", "0.01"),  # half a GB-month
    ],
)
def test_s3_standard_storage_tiers(stored: int, expected_exact: str, expected_billed: str) -> None:
    assert exact("aws-s3", "standard", stored_bytes=stored) == Decimal(expected_exact)
    assert total("aws-s3", "standard", stored_bytes=stored) == Decimal(expected_billed)


def test_s3_decimal_terabytes_are_fewer_aws_gigabytes() -> None:
    # 50 TB of 10**12 bytes is 46,566.13 GB of 2**30: all in the first tier, $1,071.02, not $1,150.
    assert exact("aws-s3", "standard", stored_bytes=50 * TB) == Decimal(50 * TB) / GIB * Decimal("0.023")
    assert total("aws-s3", "standard", stored_bytes=50 * TB) == Decimal("1071.02")


# S3 internet egress after the free 100 GB: the Price List's tiers count the GB "beyond the global
# free tier": 0.09 to 10,240 GB, 0.085 to 51,200, 0.07 to 153,600, 0.05 above (AWSDataTransfer 20260916132208).
@pytest.mark.parametrize(
    ("egress", "expected"),
    [
        (100 * GIB, "0"),  # inside the free 100 GB
        (101 * GIB, "0.09"),
        (10 * TIB, "912.60"),  # 10,140 GB x 0.09
        (10_340 * GIB, "921.60"),  # 10,240 billable GB fill the first tier exactly
        (10_341 * GIB, "921.69"),  # one GB into the second tier: 921.60 + 0.085 (a line of 0.09)
        (51_300 * GIB, "4403.20"),  # 921.60 + 40,960 x 0.085
        (51_301 * GIB, "4403.27"),  # one GB into the third tier at 0.07
        (153_700 * GIB, "11571.20"),  # 921.60 + 3,481.60 + 102,400 x 0.07
        (153_701 * GIB, "11571.25"),  # one GB at 0.05
        (200 * TB, "13199.43"),  # seed 000's case study: 186,264.51 GB; 11,571.20 + 32,564.51 x 0.05
    ],
)
def test_s3_egress_tiers(egress: int, expected: str) -> None:
    assert category("aws-s3", "standard", "egress", egress_bytes=egress) == Decimal(expected)


def test_s3_egress_allowance_by_date() -> None:
    # Before December 2021 the free GB came out of the first tier. The FAQ's transfer example:
    # 62 TB = 63,488 GB; 10,239 GB (10 x 1024 - 1 free) x $0.09 = $921.51, 40,960 GB x $0.085 =
    # $3,481.60, 12,288 GB x $0.070 = $860.16; total $5,263.27.
    before = dt.date(2021, 11, 30)
    assert total("aws-s3", "standard", before, egress_bytes=62 * TIB) == Decimal("5263.27")
    assert total("aws-s3", "standard", before, egress_bytes=10 * TIB) == Decimal("921.51")
    # From 2021-12-01: 100 GB aggregated, before the tiers: 10,140 GB x 0.09.
    assert total("aws-s3", "standard", dt.date(2021, 12, 1), egress_bytes=10 * TIB) == Decimal("912.60")


def test_s3_shared_egress_allowance_used_elsewhere() -> None:
    # The 100 GB is shared across AWS services: if EC2 used 60 GB of it, 40 GB remain: 10,200 GB x 0.09.
    assert total("aws-s3", "standard", egress_bytes=10 * TIB, egress_allowance_used_bytes=60 * GIB) == Decimal("918.00")


def test_s3_free_allowance_line_states_what_the_bill_takes_off() -> None:
    # 200,000 GB out: the free 100 GB come before the tiers, so they displace the last 100 GB at $0.05.
    usage = Usage(egress_bytes=200_000 * GIB)
    bill = estimate("aws-s3", "standard", usage, as_of=NOW)
    free = [i for i in bill.line_items if i.category == "free_allowance"]
    assert len(free) == 1 and "worth $5 off this bill" in free[0].description
    without = estimate("aws-s3", "standard", usage.model_copy(update={"egress_allowance_used_bytes": 100 * GIB}))
    assert without.total_usd - bill.total_usd == Decimal("5.00")
    # In the old layout the free GB comes out of the first tier: worth $0.09.
    old = estimate("aws-s3", "standard", Usage(egress_bytes=200_000 * GIB), as_of=dt.date(2021, 11, 30))
    assert any("worth $0.09 off this bill" in i.description for i in old.line_items)


def test_s3_requests_and_free_delete() -> None:
    # 3,000 PUT at $0.005/1k + 30,000 GET at $0.0004/1k; DELETE is free.
    usage = {"put": 3000, "get": 30000, "delete": 10**6}
    assert exact("aws-s3", "standard", requests=usage) == Decimal("0.027")


def test_line_rounding_and_total_rounding_differ() -> None:
    # 3,000 PUT x $0.005/1k = $0.015 and 37,500 GET x $0.0004/1k = $0.015: each line bills $0.02
    # (to the cent, half-up), so the bill is $0.04 where rounding the $0.03 sum would give $0.03.
    bill = estimate("aws-s3", "standard", Usage(requests={"put": 3000, "get": 37_500}), as_of=NOW)
    assert [i.amount_usd for i in bill.line_items] == [Decimal("0.02"), Decimal("0.02")]
    assert [i.amount_unrounded_usd for i in bill.line_items] == [Decimal("0.015"), Decimal("0.015")]
    assert bill.total_usd == Decimal("0.04")
    # A line under a cent bills a cent on AWS (consolidated-billing-linked-rounding): 1,000 GETs = $0.0004.
    assert total("aws-s3", "standard", requests={"get": 1000}) == Decimal("0.01")
    # R2 states no rule: to the cent, half-up, and a line under half a cent bills nothing.
    assert total("cloudflare-r2", "infrequent-access", retrieval_bytes=GB // 10) == Decimal("0.01")


def test_json_money_is_two_places_with_the_unrounded_figure_beside_it() -> None:
    bill = estimate("aws-s3", "standard", Usage(stored_bytes=51_201 * GIB), as_of=NOW)
    data = bill.model_dump(mode="json")
    assert data["total_usd"] == "1177.62"
    assert [(i["amount_usd"], i["amount_unrounded_usd"]) for i in data["line_items"]] == [
        ("1177.60", "1177.600"),
        ("0.02", "0.022"),
    ]
    assert "cent" in (bill.rounding or "") or "2 decimal places" in (bill.rounding or "")


def test_s3_standard_ia_small_objects_padded_to_128_kib() -> None:
    # 1,000,000 objects of 64 KiB: 61.035 GB stored + 61.035 GB padding (GB = 2**30), at $0.0125:
    # $0.7629 each, $0.76 each as billed.
    stored = 10**6 * 64 * KIB
    bill = estimate("aws-s3", "standard-ia", Usage(stored_bytes=stored, object_count=10**6), as_of=NOW)
    assert bill.by_category() == {"storage": Decimal("0.76"), "minimum": Decimal("0.76")}
    assert exact("aws-s3", "standard-ia", stored_bytes=stored, object_count=10**6) == Decimal(
        2 * stored
    ) / GIB * Decimal("0.0125")


def test_s3_ia_objects_at_the_minimum_size_are_not_padded() -> None:
    stored = 10**6 * 128 * KIB
    assert category("aws-s3", "standard-ia", "minimum", stored_bytes=stored, object_count=10**6) == 0


def test_size_histogram_pads_only_the_small_bin() -> None:
    # 1,000 objects of 100 KiB padded by 28 KiB each; 1,000 objects of 1 MiB not padded.
    bins = [SizeBin(bytes=100 * KIB, count=1000), SizeBin(bytes=1024 * KIB, count=1000)]
    stored = 1000 * 100 * KIB + 1000 * 1024 * KIB
    padding = exact_category("aws-s3", "glacier-ir", "minimum", stored_bytes=stored, object_sizes=bins)
    assert padding == Decimal(1000 * 28 * KIB) / GIB * Decimal("0.004")


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
    # 1,000 GB (of 2**30 bytes) deleted 10 days old pay (min - 10) remaining days over a 30-day month.
    early = Deletion(bytes=1000 * GIB, objects=1, age_days=10)
    expected = Decimal(1000) * Decimal(min_days - 10) * Decimal(price) / 30  # may repeat: compare to 1e-12
    got = exact_category("aws-s3", storage_class, "early_deletion", deletions=[early])
    assert got.quantize(Decimal("1e-12")) == expected.quantize(Decimal("1e-12"))
    on_time = Deletion(bytes=1000 * GIB, objects=1, age_days=min_days)
    assert category("aws-s3", storage_class, "early_deletion", deletions=[on_time]) == 0


# Small objects deleted early pay on the padded 128 KiB, as their storage does (AWS usage types
# EarlyDelete-SIA-SmObjects, EarlyDelete-ZIA-SmObjects, EarlyDelete-GIR-SmObjects).
@pytest.mark.parametrize(
    ("storage_class", "object_bytes", "age_days", "expected_exact", "expected_billed"),
    [
        # 1,000,000 objects of 32 KiB in Standard-IA living 10 days: padded 131,072,000,000 bytes =
        # 122.0703125 GB x 20/30 x $0.0125 = $1.0172526...: 30.5176 GB of data ($0.2543) + 91.5527 GB
        # of padding ($0.7629); billed $0.25 + $0.76.
        ("standard-ia", 32 * KIB, 10, Decimal("122.0703125") * 20 / 30 * Decimal("0.0125"), "1.01"),
        # One Zone-IA, the same objects: $0.01/GB: 122.0703125 x 20/30 x 0.01 = $0.8138; $0.20 + $0.61.
        ("onezone-ia", 32 * KIB, 10, Decimal("122.0703125") * 20 / 30 * Decimal("0.01"), "0.81"),
        # 1,000,000 objects of 64 KiB in Glacier IR deleted after 45 days: 122.0703125 GB x 45/30 x $0.004
        # = $0.732421875: 61.035 GB of data ($0.3662) + 61.035 GB of padding ($0.3662); billed $0.37 + $0.37.
        ("glacier-ir", 64 * KIB, 45, Decimal("122.0703125") * 45 / 30 * Decimal("0.004"), "0.74"),
    ],
)
def test_small_object_early_deletion_is_billed_on_the_padded_size(
    storage_class: str, object_bytes: int, age_days: int, expected_exact: Decimal, expected_billed: str
) -> None:
    objects = 10**6
    early = Deletion(bytes=objects * object_bytes, objects=objects, age_days=age_days)
    bill = estimate("aws-s3", storage_class, Usage(deletions=[early]), as_of=NOW)
    lines = [i for i in bill.line_items if i.category == "early_deletion"]
    assert len(lines) == 2 and "padded to 131,072 bytes" in lines[1].description
    got = sum((i.amount_unrounded_usd or Decimal(0) for i in lines), Decimal(0))
    assert got.quantize(Decimal("1e-12")) == expected_exact.quantize(Decimal("1e-12"))
    assert bill.total_usd == Decimal(expected_billed)


def test_objects_above_the_minimum_size_are_not_padded_on_early_deletion() -> None:
    early = Deletion(bytes=10**6 * 256 * KIB, objects=10**6, age_days=10)
    bill = estimate("aws-s3", "standard-ia", Usage(deletions=[early]), as_of=NOW)
    assert len([i for i in bill.line_items if i.category == "early_deletion"]) == 1


def test_s3_standard_has_no_early_deletion() -> None:
    assert category("aws-s3", "standard", "early_deletion", deletions=[Deletion(bytes=TB, age_days=0)]) == 0


def test_glacier_flexible_per_object_overhead() -> None:
    # 1 TB (10**12 bytes) in 1,000,000 objects: 931.32 GB x 0.0036, + 32 KiB/object at 0.0036,
    # + 8 KiB/object at Standard's 0.023 (GB = 2**30).
    bill = estimate("aws-s3", "glacier-flexible", Usage(stored_bytes=TB, object_count=10**6), as_of=NOW)
    expected = (
        Decimal(TB) / GIB * Decimal("0.0036")
        + Decimal(32_768 * 10**6) / GIB * Decimal("0.0036")
        + Decimal(8_192 * 10**6) / GIB * Decimal("0.023")
    )
    assert sum((i.amount_unrounded_usd or Decimal(0) for i in bill.line_items), Decimal(0)) == expected
    assert bill.total_usd == Decimal("3.35") + Decimal("0.11") + Decimal("0.18")


@pytest.mark.parametrize(
    ("option", "expected"),
    [("standard", "10.29"), ("bulk", "0"), ("expedited", "40.72")],  # 1,024 GB and 1,000 requests
)
def test_glacier_flexible_retrieval_options(option: str, expected: str) -> None:
    usage = {"retrieval_bytes": TIB, "retrieval_requests": 1000, "retrieval_option": option}
    assert category("aws-s3", "glacier-flexible", "retrieval", **usage) == Decimal(expected)


def test_glacier_flexible_bulk_retrieval_was_not_free_before_the_2021_cut() -> None:
    usage = {"retrieval_bytes": TIB, "retrieval_requests": 1000, "retrieval_option": "bulk"}
    # 1,024 GB x 0.0025 = $2.56; 1 x $0.025 = $0.025, a line of $0.03 (half-up).
    assert category("aws-s3", "glacier-flexible", "retrieval", dt.date(2021, 11, 29), **usage) == Decimal("2.59")


def test_intelligent_tiering_access_tiers_and_monitoring() -> None:
    # 1,000 objects of 1 GB, half in Infrequent Access: 500 x 0.023 + 500 x 0.0125 + 1 x 0.0025 monitoring
    # ($17.7525; the monitoring line is under a cent and bills $0.01).
    usage = Usage(stored_bytes=1000 * GIB, object_count=1000, access_tier_shares={"infrequent": Decimal("0.5")})
    bill = estimate("aws-s3", "intelligent-tiering", usage, as_of=NOW)
    assert sum((i.amount_unrounded_usd or Decimal(0) for i in bill.line_items), Decimal(0)) == Decimal("17.7525")
    assert bill.total_usd == Decimal("17.76")


def test_intelligent_tiering_small_objects_are_not_monitored() -> None:
    usage = Usage(stored_bytes=1000 * 64 * KIB, object_count=1000, access_tier_shares={"infrequent": Decimal("0.5")})
    bill = estimate("aws-s3", "intelligent-tiering", usage, as_of=NOW)
    # All bytes stay in Frequent Access (0.06103515625 GB x 0.023), and no monitoring line.
    assert [i.amount_unrounded_usd for i in bill.line_items] == [Decimal("0.06103515625") * Decimal("0.023")]


@pytest.mark.parametrize(
    ("as_of", "monitoring"),
    [(dt.date(2021, 8, 31), [Decimal("0.0025")]), (dt.date(2021, 9, 1), [])],
)
def test_intelligent_tiering_small_objects_paid_monitoring_until_september_2021(
    as_of: dt.date, monitoring: list[Decimal]
) -> None:
    # AWS News Blog (2021): "To date, S3 Intelligent-Tiering was intended for objects larger than 128 KB
    # ... As of today, monitoring and automation charges will no longer be collected for objects smaller
    # than 128 KB". Before: 1,000 objects of 64 KiB pay 1 x $0.0025, yet none of them moves tier, so
    # all bytes bill as Frequent Access (0.06103515625 GB x 0.023) whatever the infrequent share.
    usage = Usage(stored_bytes=1000 * 64 * KIB, object_count=1000, access_tier_shares={"infrequent": Decimal("0.5")})
    bill = estimate("aws-s3", "intelligent-tiering", usage, as_of=as_of)
    amounts = [i.amount_unrounded_usd for i in bill.line_items]
    assert amounts == [Decimal("0.06103515625") * Decimal("0.023"), *monitoring]


# Cloudflare R2: 10 GB-month, 1 M Class A and 10 M Class B free; every unit rounded up.
@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"stored_bytes": 10 * GB}, "0"),
        ({"stored_bytes": 10 * GB + GB // 2}, "0.02"),  # 0.5 GB-month rounds up to 1: $0.015, a line of $0.02
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
    # 0.99 TB x $6.95 = $6.8805, a line of $6.88.
    assert total("backblaze-b2", "standard", stored_bytes=TB, egress_bytes=3 * TB) == Decimal("6.88")
    assert total("backblaze-b2", "standard", stored_bytes=TB, egress_bytes=4 * TB) == Decimal("16.88")
    assert total("backblaze-b2", "standard", stored_bytes=TB, requests={"get": 10**7, "list": 10**6}) == Decimal("6.88")


def test_b2_the_day_before_and_the_day_of_the_2026_change() -> None:
    usage = {"stored_bytes": TB, "requests": {"get": 100_000, "list": 80_000}}
    # 2026-04-30: 990 GB x 0.006; 25,000 billable GETs (75,000 free) = 2.5 x 0.004; 5,000 LISTs = 5 x 0.004.
    assert total("backblaze-b2", "standard", dt.date(2026, 4, 30), **usage) == Decimal("5.97")
    assert total("backblaze-b2", "standard", dt.date(2026, 5, 1), **usage) == Decimal("6.88")


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
    # Half a TB stored and half a TB of minimum: two lines of 0.5 x $6.99 = $3.495, each $3.50 to the
    # cent (half-up, Wasabi states no rule): $7.00, a cent over the $6.99 minimum the lines add up to.
    assert total("wasabi", "standard", dt.date(2026, 6, 30), stored_bytes=TIB // 2) == Decimal("7.00")
    assert exact("wasabi", "standard", dt.date(2026, 6, 30), stored_bytes=TIB // 2) == Decimal("6.99")
    assert total("wasabi", "standard", dt.date(2026, 7, 1), stored_bytes=TIB // 2) == Decimal("8.00")  # 2 x $4.00
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
        assert item.amount_unrounded_usd == item.quantity * item.unit_price_usd
        assert item.amount_usd == item.amount_unrounded_usd.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
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


# S3 Intelligent-Tiering placed from how long data goes unread: Frequent $0.023 (Standard's tiers),
# Infrequent $0.0125 after 30 days without a read, Archive Instant $0.004 after 90, monitoring
# $0.0025 per 1,000 objects of at least 128 KiB (S3 pricing page; storage-class-intro.md).
# 10 TB = 10,240 GB (of 2**30 bytes) in 10,240 objects of 1 GB; monitoring 10.24 x 0.0025 = $0.0256.
@pytest.mark.parametrize(
    ("unread", "expected"),
    [
        ({30: "0", 90: "0"}, "235.55"),  # all Frequent: 10,240 x 0.023 = 235.52, + 0.03 monitoring
        ({30: "0.5", 90: "0.5"}, "138.27"),  # 5,120 x 0.023 = 117.76 + 5,120 x 0.004 = 20.48, + 0.03
        ({30: "1", 90: "1", 180: "1"}, "40.99"),  # all Archive Instant: 10,240 x 0.004 = 40.96, + 0.03
        # 40% read within 30 days (4,096 x 0.023 = 94.208 -> 94.21), 20% unread 30-90 days
        # (2,048 x 0.0125 = 25.60), 40% unread 90 days or more (4,096 x 0.004 = 16.384 -> 16.38), + 0.03.
        ({30: "0.6", 90: "0.4", 180: "0.1"}, "136.22"),
    ],
)
def test_intelligent_tiering_from_unread_shares(unread: dict[int, str], expected: str) -> None:
    usage = Usage(stored_bytes=10 * TIB, object_count=10_240, unread_shares={d: Decimal(s) for d, s in unread.items()})
    assert estimate("aws-s3", "intelligent-tiering", usage, as_of=NOW).total_usd == Decimal(expected)


def test_intelligent_tiering_unread_periods_between_the_tier_days() -> None:
    # Only 60d is given: data unread 60 days has certainly passed 30 (Infrequent); none is known to
    # have passed 90, so none is placed in Archive Instant (a lower bound on the saving).
    usage = Usage(stored_bytes=10 * TIB, object_count=10_240, unread_shares={60: Decimal("0.5")})
    bill = estimate("aws-s3", "intelligent-tiering", usage, as_of=NOW)
    assert bill.total_usd == Decimal("117.76") + Decimal("64.00") + Decimal("0.03")  # 5,120 x 0.0125 = 64


def test_intelligent_tiering_before_archive_instant_existed() -> None:
    # 2021-11-29: only the Infrequent tier: data unread 90 days stays there.
    usage = Usage(stored_bytes=10 * TIB, object_count=10_240, unread_shares={30: Decimal(1), 90: Decimal(1)})
    assert estimate("aws-s3", "intelligent-tiering", usage, as_of=dt.date(2021, 11, 29)).total_usd == Decimal(
        "128.03"
    )  # 10,240 x 0.0125 = 128.00, + 0.03


def test_a_negotiated_discount_is_taken_off_each_charged_line() -> None:
    # 15% off: 51,200 GB x $0.023 = $1,177.60 -> $1,000.96; 1,000,000 GETs x $0.0004/1k = $0.40 -> $0.34.
    usage = Usage(stored_bytes=51_200 * GIB, requests={"get": 10**6}, discounts={"aws-s3": Decimal("0.15")})
    bill = estimate("aws-s3", "standard", usage, as_of=NOW)
    assert [i.amount_usd for i in bill.line_items] == [Decimal("1000.96"), Decimal("0.34")]
    assert all(i.discount == Decimal("0.15") and "less the 15% discount" in i.description for i in bill.line_items)
    assert bill.total_usd == Decimal("1001.30")
    # A discount for another provider leaves this bill alone.
    other = usage.model_copy(update={"discounts": {"cloudflare-r2": Decimal("0.15")}})
    assert estimate("aws-s3", "standard", other, as_of=NOW).total_usd == Decimal("1178.00")


@pytest.mark.parametrize("region", ["us-east-1", "us-west-2", "eu-west-1"])
def test_a_line_is_sourced_no_better_than_the_price_it_rests_on(region: str) -> None:
    # Glacier's per-object overhead ("32 KB ... billed at S3 Glacier Flexible Retrieval and S3 Glacier Deep
    # Archive storage rates") rests on the overhead rule and on the class's storage price: its line is as
    # sourced as the weaker of them, never better than the storage line that quotes the same price.
    from planner.pricing import catalog

    table = catalog.table_for("aws-s3", NOW, region)
    usage = Usage(stored_bytes=10 * 2**40, object_count=1_000_000)
    for class_id in ("glacier-flexible", "deep-archive"):
        bill = estimate("aws-s3", class_id, usage, as_of=NOW, region=region)
        by_field: dict[str, set[str]] = {}
        for item in bill.line_items:
            if item.price_field is not None:
                by_field.setdefault(item.price_field, set()).add(item.price_status.value)
        storage = table.classes[class_id].storage
        field = f"classes.{class_id}.storage.tiers.0.price"
        own = storage.tiers[0].status or storage.status or table.classes[class_id].status or table.status
        assert by_field[field] <= {own.value, "unverified"}, (class_id, by_field[field], own)
        if own.value == "unverified":
            assert by_field[field] == {"unverified"}
