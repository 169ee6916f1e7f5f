"""A bill for objects larger than the provider stores says so (the price tables' ``limits.max_object_bytes``)."""

from __future__ import annotations

import datetime as dt

import pytest

from planner.costing.bills import estimate_cost
from planner.workload import parse_workload

NOW = dt.date(2026, 12, 1)


def _workload(object_size: str) -> object:
    return parse_workload({"name": "big", "storage": {"stored": "100 TB", "object_size": object_size}})


@pytest.mark.parametrize(
    ("provider", "object_size", "warned"),
    [
        # Wasabi: "5 TB" (limits.max_object_bytes 5,000,000,000,000): 5 TB fits, one byte more does not
        ("wasabi", "5 TB", False),
        ("wasabi", "5000000000001 B", True),
        # R2: 5 TiB less 5 GiB (5,492,189,429,760 bytes)
        ("cloudflare-r2", "5492189429760 B", False),
        ("cloudflare-r2", "5 TiB", True),
        # B2: 10 TB with the large-file API
        ("backblaze-b2", "10 TB", False),
        ("backblaze-b2", "11 TB", True),
    ],
)
def test_a_bill_warns_of_objects_past_the_largest_the_provider_stores(
    provider: str, object_size: str, warned: bool
) -> None:
    bill = estimate_cost(_workload(object_size), provider, as_of=NOW)  # type: ignore[arg-type]
    found = [w for w in bill.warnings if "larger than the largest object the provider stores" in w]
    assert bool(found) == warned, bill.warnings
    if warned:
        assert f"{provider}@" in found[0]
