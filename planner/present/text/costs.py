"""One month's bill and a projection month by month."""

from __future__ import annotations

import json
from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from planner.evidence import weakest_price
from planner.present.text.tables import (
    csv_text,
    heading,
    line_item_row,
    marked_usd,
    plain_number,
    price_freshness,
    price_legends,
    reading_cells,
    table,
    wrap_prose,
)
from planner.pricing.breakdown import CostBreakdown, Freshness, LineItem
from planner.units import format_bytes

if TYPE_CHECKING:  # the results' modules (and numpy behind them) only for the type checker: start-up
    from planner.costing.bills import CostProjection


_OTHER = "other"
_COLUMNS: dict[str, tuple[str, ...]] = {
    "storage": ("storage", "minimum"),
    "egress": ("egress",),
    "requests": ("requests",),
}
"""A projection's amount columns and the line-item categories each sums (the rest is "other")."""


def price_status(items: Iterable[LineItem]) -> str:
    """The weakest sourcing among the prices of these line items (what the mark after their sum says)."""
    return weakest_price(item.price_status.value for item in items)


def _column_of(category: str) -> str:
    return next((column for column, categories in _COLUMNS.items() if category in categories), _OTHER)


def _column_status(bill: CostBreakdown, column: str) -> str:
    return price_status(item for item in bill.line_items if _column_of(item.category) == column)


def breakdown_json(bill: CostBreakdown) -> str:
    """A bill as JSON with, beside each amount, the sourcing of the weakest price it rests on: each line
    item's ``price_status`` and the total's."""
    return json.dumps({**bill.model_dump(mode="json"), "price_status": price_status(bill.line_items)}, indent=2)


def projection_json(result: CostProjection) -> str:
    """A projection as JSON with the sourcing of the weakest price beside each month's bill (by
    category too) and beside the total, and when the prices of all its months were read."""
    payload: dict[str, Any] = result.model_dump(mode="json")
    for shown, month in zip(payload["months"], result.months, strict=True):
        shown["cost"]["price_status"] = price_status(month.cost.line_items)
        shown["cost"]["price_status_by_category"] = {
            category: price_status(i for i in month.cost.line_items if i.category == category)
            for category in month.cost.by_category()
        }
    payload["price_status"] = price_status(i for m in result.months for i in m.cost.line_items)
    payload["freshness"] = Freshness.of(i for m in result.months for i in m.cost.line_items).model_dump(mode="json")
    return json.dumps(payload, indent=2)


def breakdown(bill: CostBreakdown, fmt: str, *, title: str | None = None, width: int | None = None) -> str:
    """One month's line items and total."""
    if fmt == "csv":  # the line items alone, as numbers
        headers = ["category", "item", "quantity", "unit", "unit_price_usd", "amount_usd", "amount_unrounded_usd"]
        readings = ["price_field", "price_read_on", "price_quoted", "price_stale"]
        return csv_text(
            [*headers, "discount", "table_version", "price_status", *readings],
            [
                (
                    i.category,
                    i.description,
                    plain_number(i.quantity),
                    i.unit,
                    plain_number(i.unit_price_usd),
                    plain_number(i.amount_usd),
                    plain_number(i.amount_unrounded_usd),
                    plain_number(i.discount),
                    i.table_version,
                    i.price_status,
                    *reading_cells(i),
                )
                for i in bill.line_items
            ],
        )
    rows = [line_item_row(item) for item in bill.line_items]
    weakest = price_status(bill.line_items)
    total = marked_usd(bill.total_usd, weakest)
    rows.append(("total", "", "", "", "", total))
    name = title or f"{bill.provider} {bill.storage_class}"
    parts = [
        heading(f"{name}: {total} a month", fmt),
        f"Prices: {bill.table_version}"
        + (f", in force on {bill.as_of}" if bill.as_of else "")
        + (f"; region {bill.region}" if bill.region else ""),
        *([f"Region: {bill.region_note}"] if bill.region_note else []),
        *([f"Month: {bill.billing_month}"] if bill.billing_month else []),
        "",
        table(["category", "item", "quantity", "unit", "unit price", "amount"], rows, fmt, width=width),
        *price_legends((item.price_status.value for item in bill.line_items), width=width),
        *price_freshness(bill.line_items, width=width),
    ]
    for assumption in bill.assumptions:
        parts.append(wrap_prose(f"assumed: {assumption}", "  ", width=width))
    for warning in bill.warnings:
        parts.append(wrap_prose(f"warning: {warning}", "  ", width=width))
    return "\n".join(parts)


def projection(result: CostProjection, fmt: str, *, width: int | None = None) -> str:
    """Month by month: storage, egress, requests, other and the total, each amount marked with the
    sourcing of the weakest price it rests on (CSV: a ``price_status`` column)."""
    if fmt == "csv":
        return csv_text(
            ["month", "priced_on", "stored_bytes", "category", "amount_usd", "table_version", "price_status"],
            [
                (
                    m.month,
                    m.as_of.isoformat(),
                    m.stored_bytes,
                    category,
                    plain_number(amount),
                    m.cost.table_version,
                    status,
                )
                for m in result.months
                for category, amount, status in [
                    *(
                        (category, amount, price_status(i for i in m.cost.line_items if i.category == category))
                        for category, amount in m.cost.by_category().items()
                    ),
                    ("total", m.cost.total_usd, price_status(m.cost.line_items)),
                ]
            ],
        )
    rows = []
    for month in result.months:
        cost = month.cost
        sums = {column: Decimal(0) for column in (*_COLUMNS, _OTHER)}
        for category, amount in cost.by_category().items():
            sums[_column_of(category)] += amount
        rows.append(
            (
                str(month.month),
                month.as_of.isoformat(),
                format_bytes(month.stored_bytes),
                *(marked_usd(amount, _column_status(cost, column)) for column, amount in sums.items()),
                marked_usd(cost.total_usd, price_status(cost.line_items)),
                cost.table_version,
            )
        )
    items = [item for month in result.months for item in month.cost.line_items]
    total = marked_usd(result.total_usd, price_status(items))
    rows.append(("total", "", "", "", "", "", "", total, ""))
    return "\n".join(
        [
            heading(f"{result.provider} {result.storage_class}: {total} over {len(result.months)} months", fmt),
            *([f"Months: {result.billing_month}"] if result.billing_month else []),
            table(
                ["month", "priced on", "stored", "storage", "egress", "requests", "other", "total", "prices"],
                rows,
                fmt,
                width=width,
            ),
            *price_legends((item.price_status.value for item in items), width=width),
            *price_freshness(items, width=width),
            *(
                wrap_prose(f"assumed: {a}", "  ", width=width)
                for a in (result.months[0].cost.assumptions if result.months else [])
            ),
        ]
    )
