"""A free request allowance the account's classes share is taken once by a placement, not once per class.

OCI's price list (SKU B91627, "Object Storage - Requests": the first 50,000 requests a month free, then
$0.0034 per 10,000, one SKU for every tier; transcribed in planner/pricing/tables/oci/2026-06-11.yaml,
verified-secondary) gives one allowance per tenancy. A placement of Standard and Infrequent Access whose
traffic.reads_by_class sends GETs to both bills the hottest class first (Standard), which takes the allowance;
Infrequent Access finds what is left.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from planner.costing.bills import estimate_cost
from planner.workload import parse_workload

DAY = dt.date(2026, 12, 1)


def _requests(reads: str, ia_reads: str) -> dict[str, tuple[Decimal, Decimal]]:
    workload = parse_workload(
        {
            "name": "oci-tiers",
            "storage": {"placement": {"standard": "600 GB", "infrequent-access": "400 GB"}, "object_size": "1 MB"},
            "traffic": {
                "writes": 0,
                "reads": reads,
                "reads_by_class": {"infrequent-access": ia_reads},
                "egress": "0 B",
            },
        },
        "w.yaml",
    )
    bill = estimate_cost(workload, "oci", None, as_of=DAY)
    return {
        item.description: (item.quantity, item.amount_usd)
        for item in bill.line_items
        if item.category in {"requests", "free_allowance"} and "requests" in item.description
    }


def test_the_allowance_is_taken_once_across_the_placement() -> None:
    # Standard: 600,000 GETs, 50,000 free (5 units of 10,000), 550,000 billed: 55 x $0.0034 = $0.187 -> $0.19
    # Infrequent Access: 400,000 GETs, none left free: 40 x $0.0034 = $0.136 -> $0.14 (once: 35 units, $0.12)
    assert _requests("1M", "400k") == {
        "OCI Object Storage Standard: all requests: free allowance (50,000 a month)": (Decimal(5), Decimal("0.00")),
        "OCI Object Storage Standard: all requests (get)": (Decimal(55), Decimal("0.19")),
        "OCI Object Storage Infrequent Access: all requests (get)": (Decimal(40), Decimal("0.14")),
    }


def test_what_the_first_class_leaves_the_next_one_takes() -> None:
    # Standard: 20,000 GETs, all free (2 units); Infrequent Access: 100,000 GETs, the 30,000 left free
    # (3 units), 70,000 billed: 7 x $0.0034 = $0.0238 -> $0.02
    assert _requests("120k", "100k") == {
        "OCI Object Storage Standard: all requests: free allowance (50,000 a month)": (Decimal(2), Decimal("0.00")),
        "OCI Object Storage Infrequent Access: all requests: free allowance (50,000 a month, 20,000 of them taken"
        " by the account's other classes)": (Decimal(3), Decimal("0.00")),
        "OCI Object Storage Infrequent Access: all requests (get)": (Decimal(7), Decimal("0.02")),
    }
