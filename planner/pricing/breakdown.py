"""The bill the engine returns: a month's ``CostBreakdown`` for one provider and storage class, its
``LineItem`` lines, and the provider policies the usage breaks (``PolicyBreach``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Literal

from pydantic import Field

from planner.pricing.primitives import Money, Quantity, Status, _Model

Category = Literal[
    "storage", "egress", "requests", "retrieval", "minimum", "early_deletion", "transfer", "free_allowance", "other"
]


class LineItem(_Model):
    """One line of the bill. ``amount_usd`` is rounded as the provider's invoice rounds a line;
    ``amount_unrounded_usd`` is quantity x unit price (less any discount) before that rounding."""

    category: Category
    description: str
    quantity: Money
    unit: str
    unit_price_usd: Money
    amount_usd: Money
    amount_unrounded_usd: Money | None = None
    discount: Money | None = Field(None, description="the negotiated discount applied to this line, as a fraction")
    table_version: str
    price_status: Status


class PolicyBreach(_Model):
    """Usage beyond a limit the provider sets by policy rather than by price: it is not billed, but
    the provider may limit or suspend the account (Wasabi: egress up to 1x the stored volume)."""

    policy: Literal["free-egress"] = Field(description="which policy: free-egress is a cap on free egress")
    used_bytes: int = Field(ge=0, description="the usage the policy limits (bytes of egress this month)")
    limit_bytes: int = Field(ge=0, description="what the policy allows this month")
    limit_multiple_of_storage: Quantity = Field(description="the allowance as a multiple of the stored volume")
    stored_bytes: int = Field(ge=0)
    statement: str = Field(description="the breach in words, as the bill's warnings give it")


class CostBreakdown(_Model):
    """A month's bill for one provider and storage class: line items and their sum."""

    provider: str
    storage_class: str
    table_version: str
    as_of: dt.date | None = None
    region: str | None = Field(None, description="the region priced")
    region_note: str | None = Field(None, description="how the region's prices were found (e.g. the same everywhere)")
    currency: Literal["USD"] = "USD"
    line_items: list[LineItem]
    total_usd: Money = Field(description="the sum of the rounded line amounts, as an invoice adds them")
    rounding: str | None = Field(None, description="how each line's amount was rounded, and the rule's source")
    warnings: list[str] = Field(
        default_factory=list, description="caveats for people, each policy breach's statement among them"
    )
    policy_breaches: list[PolicyBreach] = Field(
        default_factory=list, description="provider policies the usage breaks (no price): what decides feasibility"
    )
    assumptions: list[str] = Field(
        default_factory=list,
        description="how usage the workload does not assign was placed (a placement's reads go to one class)",
    )
    standard_rate_bytes: int = Field(
        0,
        ge=0,
        description="bytes this bill put on the Standard-rate class's tiers beside its own class (S3 Glacier's 8 KB"
        " per object, restored copies): where the next class of a placement starts on those tiers",
    )
    request_allowance_taken: dict[str, int] = Field(
        default_factory=dict,
        description="free requests this bill took from allowances shared by the account's classes, by request class"
        " id: what the next class of a placement finds used",
    )
    billing_month: str | None = Field(None, description="the month billed: a 30-day month or a calendar month")

    def unrounded_total_usd(self) -> Decimal:
        """The sum of the lines before the invoice rounds them (what the vectorised sweep computes)."""
        return sum(
            (i.amount_unrounded_usd if i.amount_unrounded_usd is not None else i.amount_usd for i in self.line_items),
            Decimal(0),
        )

    def by_category(self) -> dict[str, Decimal]:
        totals: dict[str, Decimal] = {}
        for item in self.line_items:
            totals[item.category] = totals.get(item.category, Decimal(0)) + item.amount_usd
        return totals
