"""Two scenarios side by side for people (``planner diff``): the two sides, each line item's change,
the categories and the totals, from the ``ScenarioDiff`` that ``planner.decide.scenarios`` computes."""

from __future__ import annotations

from decimal import Decimal

from planner.decide.scenarios import ScenarioDiff
from planner.errors import InputError
from planner.present.text import heading, quantity, table, usd


def _change(amount: Decimal) -> str:
    if amount == 0:
        return usd(amount)
    return ("+" if amount > 0 else "-") + usd(abs(amount))


_MARKS = {"added": "+", "removed": "-", "changed": "~", "unchanged": " "}


def render_diff(result: ScenarioDiff, fmt: str, *, width: int | None = None) -> str:
    """The diff for people: the two sides, each line item's change, the categories and the totals."""
    if fmt not in ("table", "markdown"):
        raise InputError(f"{fmt!r} is not a diff format (use table, markdown or json)", source="--format")
    a, b = result.a, result.b
    how = f"both at {a.provider} {a.storage_class}" if result.mode == "provider" else "each at its recommendation"
    sides = table(
        ["", f"a: {a.workload}", f"b: {b.workload}", "change"],
        [
            ("priced at", f"{a.provider} {a.storage_class}", f"{b.provider} {b.storage_class}", ""),
            ("this month", usd(a.monthly_usd), usd(b.monthly_usd), _change(result.monthly_change_usd)),
            (
                "horizon",
                f"{usd(a.horizon_usd)} ({a.horizon_months} months)",
                f"{usd(b.horizon_usd)} ({b.horizon_months} months)",
                _change(result.horizon_change_usd),
            ),
            ("prices", a.table_version, b.table_version, ""),
        ],
        fmt,
        width=width,
    )
    lines = table(
        ["", "category", "item", "a quantity", "b quantity", "unit", "a", "b", "change"],
        [
            (
                _MARKS[line.status],
                line.category,
                line.description,
                quantity(line.quantity_a),
                quantity(line.quantity_b),
                line.unit,
                usd(line.amount_a_usd),
                usd(line.amount_b_usd),
                _change(line.change_usd),
            )
            for line in result.lines
        ],
        fmt,
        width=width,
    )
    categories = table(
        ["category", "a", "b", "change"],
        [(c.category, usd(c.amount_a_usd), usd(c.amount_b_usd), _change(c.change_usd)) for c in result.categories],
        fmt,
        width=width,
    )
    parts = [
        heading(f"{a.workload} -> {b.workload} ({how}, prices in force on {result.as_of})", fmt),
        sides,
        "",
        heading("This month, line by line (+ only in b, - only in a, ~ changed)", fmt, level=3),
        lines,
        "",
        heading("By category", fmt, level=3),
        categories,
        "",
        f"Monthly: {_change(result.monthly_change_usd)}. Over the horizon: {_change(result.horizon_change_usd)}.",
    ]
    parts += [f"note: {note}" for note in result.notes]
    return "\n".join(parts)
