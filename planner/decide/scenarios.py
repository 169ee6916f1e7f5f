"""Two scenarios side by side, as ``infracost diff`` shows two plans: what each costs and why it differs.

With a provider both workloads are priced there (same class); without one each gets its own
recommendation. Either way the month-one bills are compared line by line, matched by category
and description (a line only one side has counts as 0 on the other), then by category, and the
horizon totals are compared too. Every amount is the engine's own ``Decimal``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.pricing.breakdown import CostBreakdown, LineItem
from planner.pricing.primitives import Money
from planner.workload import Workload

ZERO = Decimal(0)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class ScenarioSide(_Model):
    """One scenario as priced: where, for how much this month and over its horizon."""

    workload: str
    provider: str
    storage_class: str
    recommended: bool = Field(
        description="the recommender chose this option (False: priced where asked, or nothing met the targets)"
    )
    monthly_usd: Money
    horizon_months: int
    horizon_usd: Money
    table_version: str
    note: str | None = None


class LineDiff(_Model):
    """One line item (category + description) in both bills; absent on one side = 0 there."""

    category: str
    description: str
    unit: str
    quantity_a: Money
    quantity_b: Money
    amount_a_usd: Money
    amount_b_usd: Money
    change_usd: Money = Field(description="b - a")
    status: Literal["added", "removed", "changed", "unchanged"]


class CategoryDiff(_Model):
    category: str
    amount_a_usd: Money
    amount_b_usd: Money
    change_usd: Money


class ScenarioDiff(_Model):
    """Scenario b against scenario a: positive changes cost more in b."""

    as_of: dt.date
    mode: Literal["provider", "recommendation"]
    a: ScenarioSide
    b: ScenarioSide
    lines: list[LineDiff]
    categories: list[CategoryDiff]
    monthly_change_usd: Money
    horizon_change_usd: Money
    notes: list[str] = Field(default_factory=list)


def _side(
    workload: Workload, provider: str | None, storage_class: str, day: dt.date, simulate: bool
) -> tuple[ScenarioSide, CostBreakdown]:
    from planner.costing.bills import project_costs
    from planner.decide.recommendation import recommend

    months = workload.constraints.months
    if provider is not None:
        projection = project_costs(workload, provider, storage_class, months=months, as_of=day)
        bill = projection.months[0].cost
        side = ScenarioSide(
            workload=workload.name,
            provider=provider,
            storage_class=storage_class,
            recommended=False,
            monthly_usd=bill.total_usd,
            horizon_months=months,
            horizon_usd=projection.total_usd,
            table_version=bill.table_version,
        )
        return side, bill
    result = recommend(workload, as_of=day, simulate=simulate, curves=False)
    chosen = next((o for o in result.ranking if o.chosen), None)
    option = chosen or result.ranking[0]
    note = None
    if chosen is None:
        shown = "the cheapest with its targets unverified" if option.status == "unverified" else "the cheapest option"
        note = f"no option meets every target with evidence ({', '.join(result.failed_targets)}): {shown} is shown"
    side = ScenarioSide(
        workload=workload.name,
        provider=option.provider,
        storage_class=option.storage_class,
        recommended=chosen is not None,
        monthly_usd=option.monthly_cost_usd,
        horizon_months=result.months,
        horizon_usd=option.horizon_cost_usd,
        table_version=option.cost.table_version,
        note=note,
    )
    return side, option.cost


def _grouped(items: list[LineItem]) -> dict[tuple[str, str], tuple[str, Decimal, Decimal]]:
    """(category, description) -> (unit, quantity, amount), summing repeated lines."""
    grouped: dict[tuple[str, str], tuple[str, Decimal, Decimal]] = {}
    for item in items:
        key = (item.category, item.description)
        unit, quantity, amount = grouped.get(key, (item.unit, ZERO, ZERO))
        grouped[key] = (unit, quantity + item.quantity, amount + item.amount_usd)
    return grouped


def _line_diffs(a: CostBreakdown, b: CostBreakdown) -> list[LineDiff]:
    left, right = _grouped(a.line_items), _grouped(b.line_items)
    lines = []
    for key in [*left, *(k for k in right if k not in left)]:
        unit_a, quantity_a, amount_a = left.get(key, ("", ZERO, ZERO))
        unit_b, quantity_b, amount_b = right.get(key, ("", ZERO, ZERO))
        if key not in right:
            status: Literal["added", "removed", "changed", "unchanged"] = "removed"
        elif key not in left:
            status = "added"
        else:
            status = "unchanged" if (quantity_a, amount_a) == (quantity_b, amount_b) else "changed"
        lines.append(
            LineDiff(
                category=key[0],
                description=key[1],
                unit=unit_a or unit_b,
                quantity_a=quantity_a,
                quantity_b=quantity_b,
                amount_a_usd=amount_a,
                amount_b_usd=amount_b,
                change_usd=amount_b - amount_a,
                status=status,
            )
        )
    return lines


def _category_diffs(a: CostBreakdown, b: CostBreakdown) -> list[CategoryDiff]:
    left, right = a.by_category(), b.by_category()
    order = [*left, *(c for c in right if c not in left)]
    return [
        CategoryDiff(
            category=category,
            amount_a_usd=left.get(category, ZERO),
            amount_b_usd=right.get(category, ZERO),
            change_usd=right.get(category, ZERO) - left.get(category, ZERO),
        )
        for category in order
    ]


def diff_scenarios(
    a: Workload,
    b: Workload,
    *,
    provider: str | None,
    storage_class: str,
    as_of: dt.date | None,
    simulate: bool = True,
) -> ScenarioDiff:
    """Price ``a`` and ``b`` (at ``provider``, or each at its recommendation) and compare them line by line.

    ``simulate`` is passed to the recommender when there is no ``provider`` (as in ``planner recommend``).
    """
    day = as_of or dt.date.today()
    side_a, bill_a = _side(a, provider, storage_class, day, simulate)
    side_b, bill_b = _side(b, provider, storage_class, day, simulate)
    notes = [n for n in (side_a.note, side_b.note) if n]
    if side_a.horizon_months != side_b.horizon_months:
        notes.append(
            f"the horizons differ ({side_a.horizon_months} vs {side_b.horizon_months} months): "
            "the horizon change compares unequal spans"
        )
    if (side_a.provider, side_a.storage_class) != (side_b.provider, side_b.storage_class):
        notes.append(
            f"the scenarios are priced at different options ({side_a.provider} {side_a.storage_class} vs "
            f"{side_b.provider} {side_b.storage_class}): few line items match, compare the categories"
        )
    return ScenarioDiff(
        as_of=day,
        mode="provider" if provider is not None else "recommendation",
        a=side_a,
        b=side_b,
        lines=_line_diffs(bill_a, bill_b),
        categories=_category_diffs(bill_a, bill_b),
        monthly_change_usd=side_b.monthly_usd - side_a.monthly_usd,
        horizon_change_usd=side_b.horizon_usd - side_a.horizon_usd,
        notes=notes,
    )


__all__ = ["CategoryDiff", "LineDiff", "ScenarioDiff", "ScenarioSide", "diff_scenarios"]
