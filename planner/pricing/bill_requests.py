"""The request rules of a bill: requests by request class after their free allowances, free operations,
and per-GB charges on the bytes requests carry (S3 Express One Zone).

Each rule is a function of the month's usage, the price table and the bill being written
(``BillContext``) that returns its lines; ``planner.pricing.bill_rules`` lists them in billing order.
"""

from __future__ import annotations

from decimal import Decimal

from planner.errors import PricingError
from planner.pricing import rules
from planner.pricing.bill_lines import ZERO, BillContext
from planner.pricing.breakdown import LineItem
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage


def requests(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """Operations billed by request class after each class's free allowance (per month, or per day on the
    days with requests, shared between the account's classes where the table says so); free operations
    as free lines. An operation neither priced nor free is refused."""
    sc = bill.storage_class
    by_class: dict[str, int] = {}
    free_ops: dict[str, int] = {}
    owner = {op: rc.id for rc in sc.requests for op in rc.operations}
    for op, count in usage.requests.items():
        if count == 0:
            continue
        if op in sc.free_operations:
            free_ops[op] = free_ops.get(op, 0) + count
        elif op in owner:
            by_class[owner[op]] = by_class.get(owner[op], 0) + count
        else:
            raise PricingError(f"{table.version} {bill.storage_class_id}: operation {op!r} is not priced and not free")
    write = bill.writer.line
    items = [
        write("requests", f"{op} requests: free", Decimal(count), "requests", ZERO, bill.status())
        for op, count in free_ops.items()
    ]
    month_days = bill.month_days
    for index, rc in enumerate(sc.requests):
        count = by_class.get(rc.id, 0)
        if not count:
            continue
        status = bill.status(rc.status)
        unit = f"{rc.per:,} requests"
        used = usage.request_allowance_used.get(rc.id, 0) if rc.free_shared else 0
        days = usage.request_days
        free = min(count, rules.request_allowance(rc, month_days, used, days))
        if rc.free_shared and free:
            bill.allowance_taken[rc.id] = free
        if free:
            how = f"{rc.free_per_day:,} a day" if rc.free_per_day else f"{rc.free_per_month:,} a month"
            if rc.free_per_day and days is not None and days < month_days:
                how += f" on the {days} day{'s' if days != 1 else ''} with requests"
            if used:
                how += f", {used:,} of them taken by the account's other classes"
            items.append(
                write(
                    "free_allowance",
                    f"{rc.id} requests: free allowance ({how})",
                    Decimal(free) / rc.per,
                    unit,
                    ZERO,
                    status,
                )
            )
        billable = rules.request_units(Decimal(count), rc, month_days, table.billing.round_up, used, days)
        if billable > 0:
            ops = ", ".join(op for op in rc.operations if usage.requests.get(op))
            items.append(
                write(
                    "requests",
                    f"{rc.id} requests ({ops})",
                    billable,
                    unit,
                    rc.price,
                    status,
                    field=f"{bill.class_path}.requests.{index}.price",
                    quote=rc.quote,
                )
            )
    return items


def request_payload(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """Charges per unit of the bytes requests carry (S3 Express One Zone's upload and retrieval per GB)."""
    payload = bill.storage_class.request_payload
    if payload is None:
        return []
    status = bill.status(payload.status)
    items = []
    for what, count, price in (
        ("upload", usage.upload_bytes, payload.upload),
        ("retrieval", usage.retrieval_bytes, payload.retrieval),
    ):
        if count:
            items.append(
                bill.writer.line(
                    "requests",
                    f"{bill.storage_class.name} {what} per {payload.unit} of request payload",
                    rules.units_of(Decimal(count), payload.unit_bytes, table.billing.round_up),
                    payload.unit,
                    price,
                    status,
                    field=f"{bill.class_path}.request_payload.{what}",
                    quote=payload.quote,
                )
            )
    return items
