"""What ``planner ingest cur`` reads and writes: usage groups, the bill, ingested workloads and the
reconciliation with planner's prices."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal[
    "storage",
    "overhead",
    "requests",
    "egress",
    "inter-region",
    "ingress",
    "early-deletion",
    "retrieval",
    "other",
    "cdn",
]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class UsageGroup(_Model):
    """The rows of one region (or bucket), usage type and operation, summed."""

    scope: str = Field(description="the region, or the bucket where the export names resources")
    region: str
    usage_type: str = Field(description="the usage type without its region prefix")
    operation: str = Field(description="the bill's operation (StandardStorage, GetObject, ...)")
    kind: Kind
    storage_class: str | None = None
    planner_operation: str | None = Field(None, description="planner's operation id, for requests")
    quantity: Decimal
    unit: str
    billed_usd: Decimal = Field(description="unblended cost (FOCUS: BilledCost)")
    list_usd: Decimal | None = Field(None, description="public on-demand cost (FOCUS: ListCost)")
    rates: list[Decimal] = Field(default_factory=list, description="the bill's distinct unit prices")
    rows: int
    first_lines: list[str] = Field(description="where the first rows are (file:line)")


class BadRow(_Model):
    where: str
    reason: str


class Bill(_Model):
    """What ``read_bill`` found: S3 usage groups and what it could not read."""

    format: Literal["cur", "focus"]
    files: list[str]
    periods: list[dt.date] = Field(description="billing periods (first days) the rows belong to")
    groups: list[UsageGroup]
    bad_rows: int = 0
    first_bad: list[BadRow] = Field(default_factory=list)
    other_rows: int = Field(0, description="rows of other services, taxes and credits, not read")
    notes: list[str] = Field(default_factory=list)


class IngestedWorkload(_Model):
    name: str
    scope: str
    region: str
    text: str = Field(description="the workload file, with each figure's provenance as a comment")


class ReconcileLine(_Model):
    scope: str
    region: str
    usage_type: str
    operation: str
    quantity: Decimal
    unit: str
    billed_usd: Decimal
    list_usd: Decimal | None = Field(
        None, description="the bill's list cost (FOCUS ListCost): planner is set beside it where the bill has it"
    )
    planner_usd: Decimal | None
    difference_usd: Decimal | None = Field(description="planner less the list cost where the bill has one, else billed")
    table_version: str | None
    cause: str = Field(description="why the two differ, or why planner has no figure")


class Reconciliation(_Model):
    lines: list[ReconcileLine]
    billed_usd: Decimal
    planner_usd: Decimal = Field(description="planner's sum over the lines it could price")
    priced_billed_usd: Decimal = Field(description="the bill's sum over the same lines")
    priced_list_usd: Decimal | None = Field(
        None, description="the bill's list cost over the same lines, where every one has it (FOCUS)"
    )
    placements: list[ReconcileLine] = Field(
        default_factory=list,
        description="each ingested workload's storage.placement priced as planner cost prices it, beside the"
        " bill's storage and object-overhead rows (not in the totals above: the same rows, priced another way)",
    )
