"""A sweep: the cheapest option at every point of a grid of workload fields."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.present.text.tables import csv_text, heading, marked_usd, plain_number, price_legends, table, wrap_prose
from planner.workload import format_field_value

if TYPE_CHECKING:  # the results' modules (and numpy behind them) only for the type checker: start-up
    from planner.decide.sweep import Sweep


def sweep(result: Sweep, fmt: str, *, width: int | None = None) -> str:
    """A sweep: per point the winner and its bill and the runner-up (CSV: every option at every point)."""
    fields = [a.field for a in result.axes]
    if fmt == "csv":
        return sweep_csv(result)
    rows = []
    shown: list[str] = []  # the sourcing of each amount the table prints
    for cell in result.cells:
        ranked = sorted((c, o) for o, c in cell.costs_usd.items() if o not in cell.breaches)
        runner = ranked[1] if len(ranked) > 1 else None
        status = cell.price_status.get
        shown += [status(o, "") for o in (cell.winner, runner[1] if runner else None) if o is not None]
        rows.append(
            (
                *(format_field_value(f, cell.point[f]) for f in fields),
                cell.winner or "none (every option breaks a policy)",
                marked_usd(cell.costs_usd[cell.winner], status(cell.winner, "")) if cell.winner else "-",
                f"{runner[1]} {marked_usd(runner[0], status(runner[1], ''))}" if runner else "-",
                ", ".join(cell.breaches) or "-",
            )
        )
    title = f"Sweep of {result.workload} over {' x '.join(fields)} (prices in force on {result.as_of})"
    return "\n".join(
        [
            heading(title, fmt),
            table([*fields, "cheapest", "a month", "next", "breaks a policy"], rows, fmt, width=width),
            "",
            "Each amount is the month's bill planner cost prints at that point; an option that breaks a"
            " provider's policy there (a free-egress cap) is never the cheapest.",
            *price_legends(shown, width=width),
            *left_out(result, width=width),
            *policy_table(result, fmt, width=width),
        ]
    )


def sweep_csv(result: Sweep) -> str:
    """Every option at every point; with a lifecycle axis, also the policy at each point and provider
    (option ``<provider>:storage.lifecycle``, its last month in month_usd and its horizon's total and
    any refusal in two more columns, which only such a sweep has)."""
    fields = [a.field for a in result.axes]
    columns = [*fields, "option", "month_usd", "price_status", "policy_breach", "winner"]
    rows: list[tuple[str | None, ...]] = [
        (
            *(plain_number(cell.point[f]) for f in fields),
            option,
            plain_number(cost),
            cell.price_status.get(option, ""),
            "yes" if option in cell.breaches else "",
            "yes" if option == cell.winner else "",
        )
        for cell in result.cells
        for option, cost in cell.costs_usd.items()
    ]
    if not result.lifecycle:
        return csv_text(columns, rows)
    rows = [(*row, "", "") for row in rows]
    rows += [
        (
            *(plain_number(p.point[f]) for f in fields),
            f"{p.provider}:storage.lifecycle",
            plain_number(p.last_month_usd),
            "",
            "",
            "",
            plain_number(p.total_usd),
            p.refused,
        )
        for p in result.lifecycle
    ]
    return csv_text([*columns, "horizon_usd", "refused"], rows)


def policy_table(result: Sweep, fmt: str, *, width: int | None = None) -> list[str]:
    """The workload's storage.lifecycle at each point and provider: its total over the horizon and its last month."""
    if not result.lifecycle:
        return []
    fields = [a.field for a in result.axes]
    rows = [
        (
            *(format_field_value(f, p.point[f]) for f in fields),
            p.provider,
            f"${p.total_usd:,.2f}" if p.total_usd is not None else "-",
            f"${p.last_month_usd:,.2f}" if p.last_month_usd is not None else "-",
            p.refused or "",
        )
        for p in result.lifecycle
    ]
    return [
        "",
        heading("storage.lifecycle at each point: its total over constraints.months and its last month", fmt, level=3),
        table([*fields, "provider", "total", "last month", "refused"], rows, fmt, width=width),
    ]


def left_out(result: Sweep, *, width: int | None = None) -> list[str]:
    """The options --verified-only left out, each with the unverified prices it rests on."""
    return [
        wrap_prose(f"Left out (rests on unverified prices): {option}: {', '.join(prices)}", "  ", width=width)
        for option, prices in result.left_out.items()
    ]
