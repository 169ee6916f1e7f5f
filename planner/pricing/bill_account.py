"""The account rules of a bill: buckets beyond those included, the monthly base fee, and the minimum
monthly charge a month's lines are raised to (for one class, or once for a placement's classes).

Each rule is a function of the month's usage, the price table and the bill being written
(``BillContext``) that returns its lines; ``planner.pricing.bill_rules`` lists them in billing order.
"""

from __future__ import annotations

from decimal import Decimal

from planner.pricing import rules
from planner.pricing.bill_lines import ZERO, BillContext, number, reading, round_line, worst
from planner.pricing.breakdown import LineItem
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Status
from planner.pricing.usage import Usage


def buckets(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """Buckets beyond the number the account's price includes, per bucket-month."""
    fee = table.buckets
    if fee is None or usage.buckets <= fee.included:
        return []
    return [
        bill.writer.line(
            "other",
            f"buckets beyond the {fee.included:,} included",
            Decimal(usage.buckets - fee.included),
            "bucket-month",
            fee.price,
            bill.status(fee.status),
            field="buckets.price",
            quote=fee.quote,
        )
    ]


def base_fee(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """A fixed charge each month (a subscription or base price; what it includes is the prices' free units)."""
    fee = table.billing.base_fee
    if fee is None:
        return []
    return [
        bill.writer.line(
            "other",
            "monthly base fee",
            Decimal(1),
            "month",
            fee.price,
            bill.status(fee.status),
            field="billing.base_fee.price",
            quote=fee.quote,
        )
    ]


def minimum_charge(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """The shortfall that raises the month's lines so far to the table's minimum (Storj: "$5 minimum
    monthly fee"); the last rule, as it reads every line before it."""
    least = table.billing.minimum_charge
    if least is None:
        return []
    return with_minimum_charge(table, bill.items, bill.status(least.status))[len(bill.items) :]


_MINIMUM_CHARGE = "minimum monthly charge of"


def is_minimum_charge(item: LineItem) -> bool:
    """Whether ``item`` is the shortfall line of a minimum monthly charge (not a minimum object size's)."""
    return item.category == "minimum" and item.description.startswith(_MINIMUM_CHARGE)


def with_minimum_charge(table: PriceTable, items: list[LineItem], status: Status) -> list[LineItem]:
    """``items`` with a line of the shortfall that raises them to ``table``'s minimum monthly charge, on the
    rounded lines as the invoice adds them (and on the unrounded ones for the sweep); ``items`` unchanged when
    they reach it. A bill of several classes (a placement) calls it once on all their lines: the minimum is
    the account's, not each class's (Storj: "applies to all active storage accounts")."""
    least = table.billing.minimum_charge
    if least is None:
        return items
    rate = table.exchange_rate
    minimum_usd = rules.in_usd(least.price, None if rate is None else rate.usd_per_unit)
    charged = sum((item.amount_usd for item in items), ZERO)
    shortfall = rules.minimum_shortfall(charged, minimum_usd)
    if shortfall <= 0:
        return items
    unrounded = sum(
        (i.amount_unrounded_usd if i.amount_unrounded_usd is not None else i.amount_usd for i in items), ZERO
    )
    if rate is not None:
        status = worst(status, rate.status)
    field, read_on = reading(
        "billing.minimum_charge.price", least.quote, rate.quote if rate is not None else None, rate is not None
    )
    return [
        *items,
        LineItem(
            category="minimum",
            description=f"{_MINIMUM_CHARGE} ${number(minimum_usd)}: the shortfall",
            quantity=Decimal(1),
            unit="month",
            unit_price_usd=shortfall,
            amount_usd=round_line(shortfall, table),
            amount_unrounded_usd=rules.minimum_shortfall(unrounded, minimum_usd),
            table_version=table.version,
            price_status=status,
            price_field=field,
            price_read_on=read_on,
        ),
    ]
