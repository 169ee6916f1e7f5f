"""Google Cloud Storage (gcs@2026-12-05 and gcs/us@2026-12-05), priced by hand from the words of
https://cloud.google.com/storage/pricing read on 2026-12-05. Each unit price below is read through ``quoted``:
the words named are in the table's quote and give the price. GiB = 2**30 bytes ("1 JEDEC GB is 2^30 bytes").

The page's words used here:
- at rest, us-central1: "Standard storage $0.000027397 / 1 gibibyte hour" (x 730 = $0.020 a GiB-month),
  "Coldline storage $0.000005479 / 1 gibibyte hour" (x 730 = $0.004);
- operations, single region (per 1,000): "Standard storage $0.005 $0.0065 $0.0004 $0.0005" (Class A flat, A
  hierarchical, B flat, B hierarchical), "Coldline storage $0.02 $0.026 $0.01 $0.013",
  "Nearline Storage and Durable Reduced Availability (DRA) storage $0.01 $0.013 $0.001 $0.0013";
- operations, dual-region or multi-region: "Standard storage $0.01 $0.013 $0.0004 $0.0005";
- internet egress: "0 gibibyte to 10 tebibyte $0.12", "10 tebibyte to 150 tebibyte $0.11",
  "150 tebibyte and above $0.08" (per GiB);
- within Google Cloud, bucket in Northern America to Northern America: "$0.02" per GiB;
- Always Free: "Standard storage 5 GB-months", "Class A Operations 5,000", "Class B Operations 50,000",
  "Data transfer 100 GB from North America".
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from planner.costing.lifecycle_bills import price_lifecycle
from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.pricing.usage import Usage
from planner.workload import parse_workload
from tests.pricing.field._quoted import problems, quoted, unquoted

D = Decimal
DAY = dt.date(2026, 12, 5)
BEFORE = dt.date(2026, 12, 1)  # the version of 2026-09-20 is in force
GiB = 2**30
TiB = 2**40

TABLE = catalog.table_for("gcs", DAY)
US = catalog.table_for("gcs", DAY, region="us")
STANDARD = quoted(TABLE, "classes.standard.storage.tiers.0.price", "Standard storage $0.000027397", "0.020")
COLDLINE = quoted(TABLE, "classes.coldline.storage.tiers.0.price", "Coldline storage $0.000005479", "0.004")
NEARLINE = quoted(TABLE, "classes.nearline.storage.tiers.0.price", "Nearline storage $0.000013699", "0.010")
CLASS_A = quoted(TABLE, "classes.standard.requests.0.price", "Standard storage $0.005", "0.005")
CLASS_B = quoted(TABLE, "classes.standard.requests.1.price", "$0.0065 $0.0004", "0.0004")
COLD_A = quoted(TABLE, "classes.coldline.requests.0.price", "Coldline storage $0.02", "0.02")
COLD_B = quoted(TABLE, "classes.coldline.requests.1.price", "$0.026 $0.01", "0.01")
NEAR_A = quoted(TABLE, "classes.nearline.requests.0.price", "storage $0.01 $0.013", "0.01")
EGRESS_1 = quoted(TABLE, "egress.internet.tiers.0.price", "0 gibibyte to 10 tebibyte $0.12", "0.12")
EGRESS_2 = quoted(TABLE, "egress.internet.tiers.1.price", "10 tebibyte to 150 tebibyte $0.11", "0.11")
EGRESS_3 = quoted(TABLE, "egress.internet.tiers.2.price", "150 tebibyte and above $0.08", "0.08")
TO_REGION = quoted(TABLE, "egress.inter_region.tiers.0.price", "Destination location: Northern America $0.02", "0.02")
US_CLASS_A = quoted(US, "classes.standard.requests.0.price", "Standard storage $0.01", "0.01")


def _lines(table: Any, storage_class: str, usage: Usage) -> list[tuple[str, Decimal, Decimal, Decimal]]:
    cost = bill(table, storage_class, usage)
    return [(i.description, i.quantity, i.unit_price_usd, i.amount_usd) for i in cost.line_items if i.amount_usd]


def test_every_price_of_the_current_gcs_tables_follows_from_its_quote() -> None:
    for table in (TABLE, US):
        assert table.version in ("gcs@2026-12-05", "gcs/us@2026-12-05")
        assert unquoted(table) == []
        assert problems(table) == []


def test_egress_at_200_tib_steps_down_past_10_and_150_tib() -> None:
    # 200 TiB = 204,800 GiB; the Always Free 100 GiB first, then the tiers on the 204,700 GiB left:
    # 10,240 x $0.12 = $1,228.80; (153,600 - 10,240) = 143,360 x $0.11 = $15,769.60;
    # (204,700 - 153,600) = 51,100 x $0.08 = $4,088.00; together $21,086.40.
    lines = _lines(TABLE, "standard", Usage(egress_bytes=200 * TiB))
    assert lines == [
        ("internet egress, first 10,240 GiB", D(10240), EGRESS_1, D("1228.80")),
        ("internet egress, 10,240 to 153,600 GiB", D(143360), EGRESS_2, D("15769.60")),
        ("internet egress, over 153,600 GiB", D(51100), EGRESS_3, D("4088.00")),
    ]
    assert sum(amount for *_, amount in lines) == D("21086.40")
    # the version of 2026-09-20 carried $0.12 on: 204,700 x $0.12 = $24,564.00, $3,477.60 more
    old = bill(catalog.table_for("gcs", BEFORE), "standard", Usage(egress_bytes=200 * TiB))
    assert old.total_usd == D("24564.00")


def test_coldline_operations_are_2_cents_and_1_cent_per_1000() -> None:
    # 100,000 writes = 100 x $0.02 = $2.00; 1,000,000 reads = 1,000 x $0.01 = $10.00
    lines = _lines(TABLE, "coldline", Usage(requests={"put": 100_000, "get": 1_000_000}))
    assert lines == [
        ("class-a requests (put)", D(100), COLD_A, D("2.00")),
        ("class-b requests (get)", D(1000), COLD_B, D("10.00")),
    ]
    # the version of 2026-09-20 had the rates before October 2022: $0.01 and $0.005, half
    old = bill(catalog.table_for("gcs", BEFORE), "coldline", Usage(requests={"put": 100_000, "get": 1_000_000}))
    assert [i.amount_usd for i in old.line_items if i.amount_usd] == [D("1.00"), D("5.00")]


def _bucket(rules: list[dict[str, Any]]) -> Any:
    # 1,000 GiB of 1 MiB objects (1,024,000 of them), written in the month before the policy starts
    storage = {"stored": "1000 GiB", "object_size": "1 MiB", "age": {"0-30d": "100%"}, "lifecycle": rules}
    return parse_workload({"name": "archive", "storage": storage, "traffic": {"writes": 0, "reads": 0}})


def test_a_lifecycle_move_into_coldline_pays_coldlines_class_a_rate() -> None:
    # The page: "changing an object from Standard storage to Coldline storage using Object Lifecycle Management
    # counts as a Class A operation and is billed at the Class A operation rate for Coldline storage."
    rules = [{"after": "30d", "to": "nearline"}, {"after": "90d", "to": "coldline"}]
    cost = price_lifecycle(_bucket(rules), "gcs", as_of=DAY, months=5)
    lines = {i.description: (i.quantity, i.unit_price_usd, i.amount_usd) for i in cost.months[3].line_items}
    # month 4 (ages 90-120d): 1,000 GiB x $0.004 = $4.00; 1,024,000 moves = 1,024 x $0.02 = $20.48
    assert lines == {
        "GCS Coldline, ages 90d+: GCS Coldline storage": (D(1000), COLDLINE, D("4.00")),
        "GCS Coldline, ages 90d+: class-a requests (lifecycle-transition)": (D(1024), COLD_A, D("20.48")),
    }
    # month 2 (ages 30-90d): 1,000 GiB x $0.010 = $10.00; the move into Nearline, 1,024 x $0.01 = $10.24
    month_2 = {i.description: (i.quantity, i.unit_price_usd, i.amount_usd) for i in cost.months[1].line_items}
    assert month_2 == {
        "GCS Nearline, ages 30-90d: GCS Nearline storage": (D(1000), NEARLINE, D("10.00")),
        "GCS Nearline, ages 30-90d: class-a requests (lifecycle-transition)": (D(1024), NEAR_A, D("10.24")),
    }
    # month 1 (ages 0-30d): (1,000 - 5 Always Free) x $0.020 = $19.90
    month_1 = [(i.description, i.quantity, i.unit_price_usd, i.amount_usd) for i in cost.months[0].line_items]
    assert ("GCS Standard, ages 0-30d: GCS Standard storage", D(995), STANDARD, D("19.90")) in month_1
    # months 1-5: $19.90, $20.24, $10.00 (Nearline alone), $24.48, $4.00
    assert cost.month_totals() == [D("19.90"), D("20.24"), D("10.00"), D("24.48"), D("4.00")]


def test_transfer_to_another_region_in_northern_america_is_2_cents_a_gib() -> None:
    # 1 TiB copied to a bucket in another Northern American region: 1,024 GiB x $0.02 = $20.48
    assert _lines(TABLE, "standard", Usage(inter_region_bytes=TiB)) == [
        ("inter-region transfer", D(1024), TO_REGION, D("20.48")),
    ]
    # the version of 2026-09-20 billed it nothing
    old = bill(catalog.table_for("gcs", BEFORE), "standard", Usage(inter_region_bytes=TiB))
    assert old.total_usd == D("0.00")


def test_a_month_inside_always_free_costs_nothing() -> None:
    # 4 GiB (of 5 GB-months), 4,000 Class A (of 5,000), 40,000 Class B (of 50,000), 80 GiB out (of 100 GB)
    usage = Usage(stored_bytes=4 * GiB, requests={"put": 4_000, "get": 40_000}, egress_bytes=80 * GiB)
    assert bill(TABLE, "standard", usage).total_usd == D("0.00")


def test_a_middle_month_in_the_second_egress_tier() -> None:
    # 1 TiB stored: (1,024 - 5) x $0.020 = $20.38; 100,000 PUTs: (100 - 5) x $0.005 = $0.475 -> $0.48;
    # 1,000,000 GETs: (1,000 - 50) x $0.0004 = $0.38; 20 TiB out: (20,480 - 100) = 20,380 GiB,
    # 10,240 x $0.12 = $1,228.80 and 10,140 x $0.11 = $1,115.40; total $2,365.44
    usage = Usage(stored_bytes=TiB, requests={"put": 100_000, "get": 1_000_000}, egress_bytes=20 * TiB)
    lines = _lines(TABLE, "standard", usage)
    assert lines == [
        ("GCS Standard storage", D(1019), STANDARD, D("20.38")),
        ("class-a requests (put)", D(95), CLASS_A, D("0.48")),
        ("class-b requests (get)", D(950), CLASS_B, D("0.38")),
        ("internet egress, first 10,240 GiB", D(10240), EGRESS_1, D("1228.80")),
        ("internet egress, 10,240 to 153,600 GiB", D(10140), EGRESS_2, D("1115.40")),
    ]
    assert bill(TABLE, "standard", usage).total_usd == D("2365.44")


def test_a_month_past_the_last_egress_tier() -> None:
    # 500 TiB stored: (512,000 - 5) x $0.020 = $10,239.90; 300 TiB out: (307,200 - 100) = 307,100 GiB,
    # $1,228.80 + $15,769.60 + (307,100 - 153,600) = 153,500 x $0.08 = $12,280.00; total $39,518.30
    usage = Usage(stored_bytes=500 * TiB, egress_bytes=300 * TiB)
    assert _lines(TABLE, "standard", usage) == [
        ("GCS Standard storage", D(511995), STANDARD, D("10239.90")),
        ("internet egress, first 10,240 GiB", D(10240), EGRESS_1, D("1228.80")),
        ("internet egress, 10,240 to 153,600 GiB", D(143360), EGRESS_2, D("15769.60")),
        ("internet egress, over 153,600 GiB", D(153500), EGRESS_3, D("12280.00")),
    ]
    assert bill(TABLE, "standard", usage).total_usd == D("39518.30")


def test_the_us_multi_region_pays_the_multi_region_class_a_rate_without_always_free() -> None:
    # "For buckets located in a dual-region or multi-region: ... Standard storage $0.01": 100,000 PUTs = 100 x $0.01
    assert _lines(US, "standard", Usage(requests={"put": 100_000})) == [
        ("class-a requests (put)", D(100), US_CLASS_A, D("1.00")),
    ]


def test_google_does_not_charge_4xx_or_5xx_responses() -> None:
    # "Generally, you are not charged for operations that return 307, 4xx, or 5xx responses."
    for table in (TABLE, US):
        rule = table.billing.error_responses
        assert rule is not None and "not charged for operations that return 307, 4xx, or 5xx" in rule.quote.text
        assert (rule.bills(503), rule.bills(429), rule.bills(404), rule.bills(200)) == (False, False, False, True)


def test_each_class_states_its_zones_and_regions() -> None:
    # "at least two different availability zones"; multi-region: "at least two separate geographic places"
    for table, regions in ((TABLE, 1), (US, 2)):
        for storage_class in table.classes.values():
            assert storage_class.redundancy is not None
            assert (storage_class.redundancy.zones, storage_class.redundancy.regions) == (2, regions)
            assert "at least two different availability zones" in storage_class.redundancy.quote.text
