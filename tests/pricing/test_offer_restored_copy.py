"""pricing import aws and the temporary copy a restore makes (limits.restored_copy): billed as the
shipped table of the region bills it, cited in the notes; where no shipped table of the region prices
it, not priced, and the written table's notes say so (it carried us-east-1's rule into every region)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from planner.pricing import catalog
from planner.pricing.aws_offer import import_offer

FIXTURES = Path(__file__).parent / "fixtures"


def _imported(region: str) -> Any:
    """The fixture offers (us-east-1 and eu-central-1) imported for ``region`` alone, their eu-central-1
    products moved to ``region`` when it is neither."""
    s3 = (FIXTURES / "aws-offer-s3.json").read_text()
    transfer = (FIXTURES / "aws-offer-datatransfer.json").read_text()
    if region != "us-east-1":
        s3 = s3.replace('"regionCode": "eu-central-1"', f'"regionCode": "{region}"')
        transfer = transfer.replace('"fromRegionCode": "eu-central-1"', f'"fromRegionCode": "{region}"')
    (table,) = import_offer(
        json.loads(s3), "offer.json", json.loads(transfer), "transfer.json", regions=[region]
    ).tables
    return table


@pytest.mark.parametrize(
    ("region", "version"), [("us-east-1", "aws-s3@2025-12-01"), ("us-west-2", "aws-s3/us-west-2@2026-09-01")]
)
def test_the_rule_of_the_regions_shipped_table_is_carried_and_cited(region: str, version: str) -> None:
    imported = _imported(region)
    shipped = catalog.table_for("aws-s3", imported.table.effective_from, region)
    assert shipped.version == version
    assert imported.table.limits.restored_copy == shipped.limits.restored_copy
    assert imported.table.limits.restored_copy.storage_class == "standard"
    note = f"The temporary copy a restore makes (limits.restored_copy) is billed as {version} bills it."
    assert imported.table.notes[-1] == note
    assert f"- {note}" in imported.text


@pytest.mark.parametrize(
    ("region", "why"),
    [
        ("eu-central-1", "aws-s3/eu-central-1@2026-09-01 does not price it"),
        ("ca-central-1", "no table of ca-central-1 is shipped"),
    ],
)
def test_where_no_shipped_table_prices_it_the_notes_say_it_is_not_priced(region: str, why: str) -> None:
    imported = _imported(region)
    assert imported.table.limits.restored_copy is None
    assert "restored_copy:" not in imported.text
    assert imported.table.notes[-1] == (
        f"The temporary copy a restore makes (limits.restored_copy) is not priced: {why}, and the offer file does"
        " not say which class bills it (S3 Standard, or Reduced Redundancy where that is cheaper)."
    )
