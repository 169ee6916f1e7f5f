"""S3 Intelligent-Tiering's archive tiers bill each archived object's metadata, as AWS's pricing page says:
"For each object archived to the Archive Access tier or Deep Archive Access tier in S3 Intelligent-Tiering,
Amazon S3 uses 8 KB of storage for the name of the object and other metadata (billed at S3 Standard storage
rates) and 32 KB of storage for index and related metadata (billed at S3 Glacier Flexible Retrieval and S3
Glacier Deep Archive storage rates)." (aws.amazon.com/s3/pricing, read 2026-12-05; KB = 1,024 bytes.)

Prices, aws-s3@2025-12-01 (us-east-1): "Archive Access Tier, All Storage / Month: $0.0036 per GB", "Deep
Archive Access Tier, All Storage / Month: $0.00099 per GB", "S3 Standard | First 50 TB / Month: $0.023 per
GB" (GB = 2^30 bytes); lines round half-up to the cent.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.pricing.usage import SizeBin, Usage

D = Decimal
MIB = 2**20


def test_archived_objects_bill_32_kb_at_their_tier_and_8_kb_at_s3_standard() -> None:
    table = catalog.table_for("aws-s3", dt.date(2026, 12, 1))
    # 1,024,000 objects of 1 MiB (1,000 GB), half in Archive Access and half in Deep Archive Access
    usage = Usage(
        stored_bytes=1_024_000 * MIB,
        object_sizes=[SizeBin(bytes=MIB, count=1_024_000)],
        access_tier_shares={"archive": D("0.5"), "deep-archive": D("0.5")},
    )
    lines = {i.description: (i.quantity, i.amount_usd) for i in bill(table, "intelligent-tiering", usage).line_items}
    overhead = {text: value for text, value in lines.items() if text.startswith("per-object overhead")}
    # 512,000 objects in each tier: x 32,768 bytes = 15.625 GB; x 8,192 bytes = 3.90625 GB.
    # Archive Access: 15.625 x $0.0036 = $0.05625 -> $0.06; Deep Archive Access: 15.625 x $0.00099 = $0.0155 ->
    # $0.02; at S3 Standard's first tier: 3.90625 x $0.023 = $0.0898 -> $0.09, twice (the second above the first).
    assert D(512_000 * 32_768) / 2**30 == D("15.625")
    assert overhead == {
        "per-object overhead: 512,000 objects in the archive access tier x 32,768 bytes at its rate": (
            D("15.625"),
            D("0.06"),
        ),
        "per-object overhead: 512,000 objects in the archive access tier x 8,192 bytes at S3 Standard rate": (
            D("3.90625"),
            D("0.09"),
        ),
        "per-object overhead: 512,000 objects in the deep-archive access tier x 32,768 bytes at its rate": (
            D("15.625"),
            D("0.02"),
        ),
        "per-object overhead: 512,000 objects in the deep-archive access tier x 8,192 bytes at S3 Standard rate,"
        " first 51,200 GB-month (above the 3.90625 GB-month of S3 Standard billed before it)": (
            D("3.90625"),
            D("0.09"),
        ),
    }
    # the archive tiers' bytes themselves: 500 GB x $0.0036 = $1.80 and 500 GB x $0.00099 = $0.495 -> $0.50
    assert lines["S3 Intelligent-Tiering storage (archive access)"][1] == D("1.80")
    assert lines["S3 Intelligent-Tiering storage (deep-archive access)"][1] == D("0.50")


def test_objects_in_the_other_tiers_carry_no_overhead() -> None:
    table = catalog.table_for("aws-s3", dt.date(2026, 12, 1))
    usage = Usage(
        stored_bytes=1_024_000 * MIB,
        object_sizes=[SizeBin(bytes=MIB, count=1_024_000)],
        access_tier_shares={"infrequent": D("0.5"), "archive-instant": D("0.5")},
    )
    lines = [i.description for i in bill(table, "intelligent-tiering", usage).line_items]
    assert not [text for text in lines if text.startswith("per-object overhead")]
