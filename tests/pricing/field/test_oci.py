"""Oracle Cloud Object Storage (oci@2026-06-11, us-ashburn-1), priced by hand from the price list of 2026-06-11 as
Chris-Wegenek/oci-intake-app transcribes it (the table's quotes). GB = 2**30 bytes (assumed: the Cost
Estimator's "first 10 TB" tier ends at 10,240 GB). Each unit price is read through ``quoted``.

The words used here: '"OCI Object Storage": {"sku": "B91628", "rate": 0.0255, ... "freeGb": 10' (per GB-month),
'"OCI Infrequent Access Storage": {"sku": "B93000", "rate": 0.0100, ... "retrievalRate": 0.0100',
'OBJ_REQUEST_RATE = 0.0034          # per 10,000 requests after free tier (B91627)' (the first 50,000 free),
and B88327's tiers '{"min": 0.0, "max": 10240.0, "rate": 0.0}, {"min": 10240.0, "max": null, "rate": 0.0085}'.
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
GB = 2**30
TB = 2**40

TABLE = catalog.table_for("oci", DAY)
STANDARD = quoted(TABLE, "classes.standard.storage.tiers.0.price", '"sku": "B91628", "rate": 0.0255', "0.0255")
IA = quoted(TABLE, "classes.infrequent-access.storage.tiers.0.price", '"sku": "B93000", "rate": 0.0100', "0.01")
IA_RETRIEVAL = quoted(
    TABLE, "classes.infrequent-access.retrieval.options.standard.per_gb", '"retrievalRate": 0.0100', "0.01"
)
REQUESTS = quoted(TABLE, "classes.standard.requests.0.price", "OBJ_REQUEST_RATE = 0.0034", "0.0034")
EGRESS = quoted(TABLE, "egress.internet.tiers.0.price", '{"min": 10240.0, "max": null, "rate": 0.0085}', "0.0085")


def _lines(storage_class: str, usage: Usage) -> list[tuple[str, Decimal, Decimal, Decimal]]:
    cost = bill(TABLE, storage_class, usage)
    return [(i.description, i.quantity, i.unit_price_usd, i.amount_usd) for i in cost.line_items if i.amount_usd]


def test_every_price_but_the_archive_restore_follows_from_its_quote() -> None:
    # no source read states a restore price for Archive: its $0 stays unquoted, and the table says so
    assert unquoted(TABLE) == [
        "classes.archive.retrieval.options.standard.per_gb",
        "classes.archive.retrieval.options.standard.per_1000_requests",
    ]
    assert problems(TABLE) == []
    assert any("Archive restore: its $0 retrieval price has no quote" in note for note in TABLE.notes)


def test_a_month_inside_the_free_tiers_costs_nothing() -> None:
    # 8 GB (of 10 free), 40,000 requests (of 50,000), 5 TB out (of the first 10 TB)
    usage = Usage(stored_bytes=8 * GB, requests={"put": 20_000, "get": 20_000}, egress_bytes=5 * TB)
    assert bill(TABLE, "standard", usage).total_usd == D("0.00")


def test_a_middle_month_past_every_free_allowance() -> None:
    # 1 TB = 1,024 GB: (1,024 - 10) x $0.0255 = $25.857 -> $25.86; 1,100,000 requests = 110 x 10,000, 5 free:
    # 105 x $0.0034 = $0.357 -> $0.36; 20 TB out = 20,480 GB: (20,480 - 10,240) x $0.0085 = $87.04; total $113.26
    usage = Usage(stored_bytes=TB, requests={"put": 100_000, "get": 1_000_000}, egress_bytes=20 * TB)
    assert _lines("standard", usage) == [
        ("OCI Object Storage Standard storage", D(1014), STANDARD, D("25.86")),
        ("all requests (put, get)", D(105), REQUESTS, D("0.36")),
        ("internet egress", D(10240), EGRESS, D("87.04")),
    ]
    assert bill(TABLE, "standard", usage).total_usd == D("113.26")


def test_a_large_infrequent_access_month() -> None:
    # 10 TB IA = 10,240 GB: (10,240 - 10) x $0.01 = $102.30; 1 TB read back: 1,024 x $0.01 = $10.24 (the price
    # list's first 10 GB free are not modelled, the table says so); 100 TB out: (102,400 - 10,240) = 92,160 x
    # $0.0085 = $783.36; total $895.90
    usage = Usage(stored_bytes=10 * TB, retrieval_bytes=TB, egress_bytes=100 * TB)
    assert _lines("infrequent-access", usage) == [
        ("OCI Object Storage Infrequent Access storage", D(10230), IA, D("102.30")),
        ("OCI Object Storage Infrequent Access data retrieval (standard)", D(1024), IA_RETRIEVAL, D("10.24")),
        ("internet egress", D(92160), EGRESS, D("783.36")),
    ]
    assert bill(TABLE, "infrequent-access", usage).total_usd == D("895.90")


def test_oci_states_no_error_billing_and_its_zones_are_unverified() -> None:
    assert TABLE.billing.error_responses is None
    assert any("no source read says which responses Oracle bills" in note for note in TABLE.notes)
    for storage_class in TABLE.classes.values():
        assert storage_class.redundancy is not None and storage_class.redundancy.status == "unverified"
