"""One month's bill and a projection month by month."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from planner.present.text.tables import csv_text, heading, line_item_row, plain_number, table, usd, wrap_prose
from planner.pricing.models import CostBreakdown
from planner.units import format_bytes

if TYPE_CHECKING:  # the results' modules (and numpy behind them) only for the type checker: start-up
    from planner.costing.bills import CostProjection


def breakdown(bill: CostBreakdown, fmt: str, *, title: str | None = None, width: int | None = None) -> str:
    """One month's line items and total."""
    if fmt == "csv":  # the line items alone, as numbers
        headers = ["category", "item", "quantity", "unit", "unit_price_usd", "amount_usd", "amount_unrounded_usd"]
        return csv_text(
            [*headers, "discount", "table_version", "price_status"],
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
                )
                for i in bill.line_items
            ],
        )
    rows = [line_item_row(item) for item in bill.line_items]
    rows.append(("total", "", "", "", "", usd(bill.total_usd)))
    name = title or f"{bill.provider} {bill.storage_class}"
    parts = [
        heading(f"{name}: {usd(bill.total_usd)} a month", fmt),
        f"Prices: {bill.table_version}"
        + (f", in force on {bill.as_of}" if bill.as_of else "")
        + (f"; region {bill.region}" if bill.region else ""),
        *([f"Region: {bill.region_note}"] if bill.region_note else []),
        *([f"Month: {bill.billing_month}"] if bill.billing_month else []),
        "",
        table(["category", "item", "quantity", "unit", "unit price", "amount"], rows, fmt, width=width),
    ]
    for assumption in bill.assumptions:
        parts.append(wrap_prose(f"assumed: {assumption}", "  ", width=width))
    for warning in bill.warnings:
        parts.append(wrap_prose(f"warning: {warning}", "  ", width=width))
    return "\n".join(parts)


def projection(result: CostProjection, fmt: str, *, width: int | None = None) -> str:
    if fmt == "csv":
        return csv_text(
            ["month", "priced_on", "stored_bytes", "category", "amount_usd", "table_version"],
            [
                (m.month, m.as_of.isoformat(), m.stored_bytes, category, plain_number(amount), m.cost.table_version)
                for m in result.months
                for category, amount in [*m.cost.by_category().items(), ("total", m.cost.total_usd)]
            ],
        )
    rows = []
    for month in result.months:
        cost = month.cost
        by = cost.by_category()
        rows.append(
            (
                str(month.month),
                month.as_of.isoformat(),
                format_bytes(month.stored_bytes),
                usd(by.get("storage", Decimal(0)) + by.get("minimum", Decimal(0))),
                usd(by.get("egress", Decimal(0))),
                usd(by.get("requests", Decimal(0))),
                usd(
                    sum((v for k, v in by.items() if k not in ("storage", "minimum", "egress", "requests")), Decimal(0))
                ),
                usd(cost.total_usd),
                cost.table_version,
            )
        )
    rows.append(("total", "", "", "", "", "", "", usd(result.total_usd), ""))
    return "\n".join(
        [
            heading(
                f"{result.provider} {result.storage_class}: {usd(result.total_usd)} over {len(result.months)} months",
                fmt,
            ),
            *([f"Months: {result.billing_month}"] if result.billing_month else []),
            table(
                ["month", "priced on", "stored", "storage", "egress", "requests", "other", "total", "prices"],
                rows,
                fmt,
                width=width,
            ),
            *(
                wrap_prose(f"assumed: {a}", "  ", width=width)
                for a in (result.months[0].cost.assumptions if result.months else [])
            ),
        ]
    )
