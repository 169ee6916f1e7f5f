"""A sweep: the cheapest option at every point of a grid of workload fields."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.present.text.tables import csv_text, heading, plain_number, table, usd
from planner.workload import format_field_value

if TYPE_CHECKING:  # the results' modules (and numpy behind them) only for the type checker: start-up
    from planner.decide.sweep import Sweep


def sweep(result: Sweep, fmt: str, *, width: int | None = None) -> str:
    """A sweep: per point the winner and its bill and the runner-up (CSV: every option at every point)."""
    fields = [a.field for a in result.axes]
    if fmt == "csv":
        return csv_text(
            [*fields, "option", "month_usd", "policy_breach", "winner"],
            [
                (
                    *(plain_number(cell.point[f]) for f in fields),
                    option,
                    plain_number(cost),
                    "yes" if option in cell.breaches else "",
                    "yes" if option == cell.winner else "",
                )
                for cell in result.cells
                for option, cost in cell.costs_usd.items()
            ],
        )
    rows = []
    for cell in result.cells:
        ranked = sorted((c, o) for o, c in cell.costs_usd.items() if o not in cell.breaches)
        runner = ranked[1] if len(ranked) > 1 else None
        rows.append(
            (
                *(format_field_value(f, cell.point[f]) for f in fields),
                cell.winner or "none (every option breaks a policy)",
                usd(cell.costs_usd[cell.winner]) if cell.winner else "-",
                f"{runner[1]} {usd(runner[0])}" if runner else "-",
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
        ]
    )
