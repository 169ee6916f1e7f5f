"""Oracle Cloud Object Storage as data: hand-computed bills checked against the price list figures its
table cites (Oracle's PaaS/IaaS price list of 2026-06-11 as transcribed, verified-secondary)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.pricing.primitives import Status
from planner.pricing.usage import Deletion, Usage

DAY = dt.date(2026, 12, 1)
GiB = 2**30


def test_oci_standard_first_10_gb_50k_requests_and_10_tb_egress_free() -> None:
    # B91628 $0.0255/GB-month over 10 GB; B91627 $0.0034 per 10,000 requests over 50,000; B88327 egress from
    # North America: first 10,240 GB free, then $0.0085/GB
    usage = Usage(stored_bytes=1000 * GiB, requests={"put": 100_000, "get": 1_000_000}, egress_bytes=12 * 1024 * GiB)
    cost = bill(catalog.table_for("oci", DAY), "standard", usage)
    items = {item.description: item.amount_usd for item in cost.line_items if item.amount_usd}
    assert items == {
        "OCI Object Storage Standard storage": Decimal("25.25"),  # 990 GB x $0.0255 = $25.245
        "all requests (put, get)": Decimal("0.36"),  # (1,100,000 - 50,000) / 10,000 = 105 x $0.0034 = $0.357
        "internet egress": Decimal("17.41"),  # (12,288 - 10,240) GB x $0.0085 = $17.408
    }
    assert cost.total_usd == Decimal("43.02")
    assert {item.price_status for item in cost.line_items} == {Status.verified_secondary}


def test_oci_infrequent_access_retrieval_and_31_day_minimum() -> None:
    # B93000 $0.01/GB-month over 10 GB; B93001 retrieval $0.01/GB; 31-day minimum (docs.oracle.com tiers page)
    usage = Usage(
        stored_bytes=500 * GiB,
        retrieval_bytes=40 * GiB,
        deletions=[Deletion(bytes=100 * GiB, objects=10, age_days=10)],
    )
    cost = bill(catalog.table_for("oci", DAY), "infrequent-access", usage)
    items = {item.description: item.amount_usd for item in cost.line_items if item.amount_usd}
    assert items["OCI Object Storage Infrequent Access storage"] == Decimal("4.90")  # 490 GB x $0.01
    assert items["OCI Object Storage Infrequent Access data retrieval (standard)"] == Decimal("0.40")  # 40 x $0.01
    early = [item for item in cost.line_items if item.category == "early_deletion"]
    # 100 GB deleted at 10 days of 31: 21 days left = 100 x 21/30 GB-months x $0.01 = $0.70
    assert [item.amount_usd for item in early] == [Decimal("0.70")]


def test_oci_archive_must_be_restored_and_its_unpriced_restore_is_unverified() -> None:
    # B91633 $0.0026/GB-month over 10 GB; no restore price found: $0, unverified
    table = catalog.table_for("oci", DAY)
    assert table.restore_required("archive")
    cost = bill(table, "archive", Usage(stored_bytes=1000 * GiB, retrieval_bytes=50 * GiB))
    by_description = {item.description: item for item in cost.line_items}
    assert by_description["OCI Archive Storage storage"].amount_usd == Decimal("2.57")  # 990 x $0.0026 = $2.574
    restore = by_description["OCI Archive Storage data retrieval (standard)"]
    assert (restore.amount_usd, restore.price_status) == (Decimal("0.00"), Status.unverified)
    assert table.classes["archive"].min_duration_days == 90
