"""Azure Blob Storage (azure-blob@2026-12-05: block blobs, flat namespace, LRS, East US), priced by hand from the
Retail Prices API's rows for 'General Block Blob v2' in eastus as the table quotes them. GB = 10**9 bytes
(assumed; Azure does not say). Each unit price is read through ``quoted``.

The rows used here (unitPrice, per '1 GB/Month' or per '10K' operations):
- "Hot LRS Data Stored | 0 | $0.0208", "Hot LRS Data Stored | 51,200 | $0.019968",
  "Hot LRS Data Stored | 512,000 | $0.019136" (tierMinimumUnits in GB);
- "Hot LRS Write Operations | 0 | $0.05 | 10K", "Hot Read Operations | 0 | $0.004 | 10K";
- "blobRow('Cool LRS', 'Cool LRS Data Stored', 0.0152", "blobRow('Cool LRS', 'Cool LRS Write Operations', 0.1)";
- egress "first 100GB/month is free" then "$0.087" per GB; Cool retrieval "$0.01" per GB (copy of late 2023).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.pricing.usage import Usage
from tests.pricing.field._quoted import problems, quoted, unquoted

D = Decimal
DAY = dt.date(2026, 12, 5)
BEFORE = dt.date(2026, 12, 1)
GB = 10**9

TABLE = catalog.table_for("azure-blob", DAY)
HOT_1 = quoted(TABLE, "classes.hot.storage.tiers.0.price", "Hot LRS Data Stored | 0 | $0.0208", "0.0208")
HOT_2 = quoted(TABLE, "classes.hot.storage.tiers.1.price", "Hot LRS Data Stored | 51,200 | $0.019968", "0.019968")
HOT_3 = quoted(TABLE, "classes.hot.storage.tiers.2.price", "Hot LRS Data Stored | 512,000 | $0.019136", "0.019136")
HOT_WRITE = quoted(TABLE, "classes.hot.requests.0.price", "Hot LRS Write Operations | 0 | $0.05 | 10K", "0.05")
HOT_READ = quoted(TABLE, "classes.hot.requests.1.price", "Hot Read Operations | 0 | $0.004 | 10K", "0.004")
COOL = quoted(TABLE, "classes.cool.storage.tiers.0.price", "'Cool LRS Data Stored', 0.0152", "0.0152")
COOL_WRITE = quoted(TABLE, "classes.cool.requests.0.price", "'Cool LRS Write Operations', 0.1)", "0.1")
COOL_RETRIEVAL = quoted(TABLE, "classes.cool.retrieval.options.standard.per_gb", "| Free | Free | $0.01 |", "0.01")
EGRESS = quoted(TABLE, "egress.internet.tiers.0.price", "($0.087 x 400GB)", "0.087")


def _lines(storage_class: str, usage: Usage) -> list[tuple[str, Decimal, Decimal, Decimal]]:
    cost = bill(TABLE, storage_class, usage)
    return [(i.description, i.quantity, i.unit_price_usd, i.amount_usd) for i in cost.line_items if i.amount_usd]


def test_every_price_of_the_current_azure_table_follows_from_its_quote() -> None:
    assert TABLE.version == "azure-blob@2026-12-05"
    assert unquoted(TABLE) == []
    assert problems(TABLE) == []


def test_flat_namespace_operations_are_the_general_block_blob_v2_rows() -> None:
    # 100,000 writes = 10 x 10,000 x $0.05 = $0.50; 1,000,000 reads = 100 x $0.004 = $0.40
    assert _lines("hot", Usage(requests={"put": 100_000, "get": 1_000_000})) == [
        ("write requests (put)", D(10), HOT_WRITE, D("0.50")),
        ("read requests (get)", D(100), HOT_READ, D("0.40")),
    ]
    # the version of 2023-11-01 had the hierarchical-namespace rates ($0.065 and $0.005): 30 % and 25 % more
    old = bill(catalog.table_for("azure-blob", BEFORE), "hot", Usage(requests={"put": 100_000, "get": 1_000_000}))
    assert [i.amount_usd for i in old.line_items if i.amount_usd] == [D("0.65"), D("0.50")]


def test_a_small_month_inside_the_free_egress() -> None:
    # 10 GB Hot x $0.0208 = $0.208 -> $0.21; 80 GB out is inside the first 100 GB a month
    assert _lines("hot", Usage(stored_bytes=10 * GB, egress_bytes=80 * GB)) == [
        ("Azure Hot (LRS) storage, first 51,200 GB-month", D(10), HOT_1, D("0.21")),
    ]


def test_a_middle_month_in_the_second_storage_tier() -> None:
    # 100,000 GB Hot: 51,200 x $0.0208 = $1,064.96 and 48,800 x $0.019968 = $974.4384 -> $974.44;
    # 5,000 GB out: (5,000 - 100) x $0.087 = $426.30; total $2,465.70
    usage = Usage(stored_bytes=100_000 * GB, egress_bytes=5_000 * GB)
    assert _lines("hot", usage) == [
        ("Azure Hot (LRS) storage, first 51,200 GB-month", D(51200), HOT_1, D("1064.96")),
        ("Azure Hot (LRS) storage, 51,200 to 512,000 GB-month", D(48800), HOT_2, D("974.44")),
        ("internet egress", D(4900), EGRESS, D("426.30")),
    ]
    assert bill(TABLE, "hot", usage).total_usd == D("2465.70")


def test_a_month_past_the_last_storage_tier() -> None:
    # 600,000 GB Hot: $1,064.96 + 460,800 x $0.019968 = $9,201.2544 -> $9,201.25 + 88,000 x $0.019136 =
    # $1,683.968 -> $1,683.97; 20,000 GB out: 19,900 x $0.087 = $1,731.30; total $13,681.48
    usage = Usage(stored_bytes=600_000 * GB, egress_bytes=20_000 * GB)
    assert _lines("hot", usage) == [
        ("Azure Hot (LRS) storage, first 51,200 GB-month", D(51200), HOT_1, D("1064.96")),
        ("Azure Hot (LRS) storage, 51,200 to 512,000 GB-month", D(460800), HOT_2, D("9201.25")),
        ("Azure Hot (LRS) storage, over 512,000 GB-month", D(88000), HOT_3, D("1683.97")),
        ("internet egress", D(19900), EGRESS, D("1731.30")),
    ]
    assert bill(TABLE, "hot", usage).total_usd == D("13681.48")


def test_cool_storage_writes_and_retrieval() -> None:
    # 1,000 GB Cool x $0.0152 = $15.20; 100,000 writes = 10 x $0.1 = $1.00; 100 GB read back x $0.01 = $1.00
    usage = Usage(stored_bytes=1_000 * GB, requests={"put": 100_000}, retrieval_bytes=100 * GB)
    assert _lines("cool", usage) == [
        ("Azure Cool (LRS) storage, first 51,200 GB-month", D(1000), COOL, D("15.20")),
        ("write requests (put)", D(10), COOL_WRITE, D("1.00")),
        ("Azure Cool (LRS) data retrieval (standard)", D(100), COOL_RETRIEVAL, D("1.00")),
    ]


def test_azure_bills_failed_requests_but_not_throttling_or_failed_authentication() -> None:
    # "REST operations aren't billed when authentication fails. After an identity is authenticated, all operations
    # and requests that the identity makes are billed, including the ones that don't succeed." 503: not billable.
    rule = TABLE.billing.error_responses
    assert rule is not None and "including the ones that don't succeed" in rule.quote.text
    assert (rule.bills(503), rule.bills(500), rule.bills(404), rule.bills(200)) == (False, True, True, True)


def test_lrs_keeps_its_copies_in_one_datacenter() -> None:
    for storage_class in TABLE.classes.values():
        assert storage_class.redundancy is not None
        assert (storage_class.redundancy.zones, storage_class.redundancy.regions) == (1, 1)
        assert "single physical datacenter" in storage_class.redundancy.quote.text
