"""The bill the engine returns: a month's ``CostBreakdown`` for one provider and storage class, its
``LineItem`` lines, and the provider policies the usage breaks (``PolicyBreach``).

Each line names the price it rests on (``price_field``, a dotted field of its table version) and the day
that price's quote was read (``price_read_on``; None when the price has no quote). ``Freshness`` sums
that up for a bill, or for any lines: the oldest and newest reading, the readings older than 12 months
on the day it is asked, and the prices with no quote.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal
from typing import Literal

from pydantic import Field, computed_field

from planner.pricing.primitives import Money, Quantity, Status, StrictModel

Category = Literal[
    "storage", "egress", "requests", "retrieval", "minimum", "early_deletion", "transfer", "free_allowance", "other"
]


class LineItem(StrictModel):
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
    price_field: str | None = Field(
        None,
        description="the price the unit price is, as a dotted field of table_version"
        " (classes.standard.storage.tiers.0.price; 'A + B' for a price converted at a rate); none: a line at no"
        " price of a table (a free allowance)",
    )
    price_read_on: dt.date | None = Field(
        None, description="the day the quote of that price was read (the older of two); none: it has no quote"
    )

    @property
    def unquoted(self) -> bool:
        """Whether the line rests on a price of a table that has no quote."""
        return self.price_field is not None and self.price_read_on is None


STALE_AFTER_MONTHS = 12
"""A reading older than this many months on the day a bill is made is stale."""


def stale_before(today: dt.date) -> dt.date:
    """The oldest reading day that is not stale on ``today``: the same day 12 months earlier (28 February
    for 29 February)."""
    year = today.year - STALE_AFTER_MONTHS // 12
    return today.replace(year=year, day=28) if (today.month, today.day) == (2, 29) else today.replace(year=year)


class PriceReading(StrictModel):
    """One price a bill rests on: its field in a table version and the day its quote was read (none: no quote)."""

    table_version: str
    field: str
    read_on: dt.date | None


class Freshness(StrictModel):
    """When the prices some lines rest on were read, which readings are stale, and which prices have no quote."""

    judged_on: dt.date = Field(description="the day staleness was judged: a reading older than 12 months is stale")
    read_from: dt.date | None = Field(description="the oldest reading a line rests on (none: no quoted price)")
    read_to: dt.date | None = Field(description="the newest reading a line rests on")
    stale: list[PriceReading] = Field(description="readings older than 12 months, oldest first")
    unquoted_lines: int = Field(ge=0, description="lines resting on a price with no quote")
    unquoted: list[PriceReading] = Field(description="the prices with no quote those lines rest on")

    @classmethod
    def of(cls, items: Iterable[LineItem], today: dt.date | None = None) -> Freshness:
        """The freshness of ``items``' prices, judged on ``today`` (the day it is asked when omitted)."""
        day = today or dt.date.today()
        oldest_fresh = stale_before(day)
        read: dict[tuple[str, str], dt.date] = {}
        unquoted: dict[tuple[str, str], None] = {}
        lines = 0
        for item in items:
            if item.price_field is None:
                continue
            key = (item.table_version, item.price_field)
            if item.price_read_on is None:
                lines += 1
                unquoted[key] = None
            else:
                read[key] = item.price_read_on
        days = sorted(read.values())
        stale = [
            PriceReading(table_version=version, field=field, read_on=on)
            for (version, field), on in sorted(read.items(), key=lambda entry: entry[1])
            if on < oldest_fresh
        ]
        return cls(
            judged_on=day,
            read_from=days[0] if days else None,
            read_to=days[-1] if days else None,
            stale=stale,
            unquoted_lines=lines,
            unquoted=[PriceReading(table_version=version, field=field, read_on=None) for version, field in unquoted],
        )


class PolicyBreach(StrictModel):
    """Usage beyond a limit the provider sets by policy rather than by price: it is not billed, but
    the provider may limit or suspend the account (Wasabi: egress up to 1x the stored volume)."""

    policy: Literal["free-egress"] = Field(description="which policy: free-egress is a cap on free egress")
    used_bytes: int = Field(ge=0, description="the usage the policy limits (bytes of egress this month)")
    limit_bytes: int = Field(ge=0, description="what the policy allows this month")
    limit_multiple_of_storage: Quantity = Field(description="the allowance as a multiple of the stored volume")
    stored_bytes: int = Field(ge=0)
    statement: str = Field(description="the breach in words, as the bill's warnings give it")


_FRESHNESS = "when the prices the lines rest on were read, judged on the day the bill is written"


class CostBreakdown(StrictModel):
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

    @computed_field(description=_FRESHNESS)  # type: ignore[prop-decorator]
    @property
    def freshness(self) -> Freshness:
        return Freshness.of(self.line_items)

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
