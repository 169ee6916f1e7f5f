"""Monthly cost against egress for the chosen option and the best option of every other provider: the
exact bill at each volume of a grid that holds today's egress and every break-even point, so the curves a
plot draws cross exactly where the break-even points say."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import numpy as np

from planner.costing.bills import add_months, price_table
from planner.costing.cdn_bills import behind, delivered_bill, served_egress_cap_bytes
from planner.decide.recommendation.inputs import Inputs
from planner.decide.recommendation.models import BreakEven, EgressCurve, EgressCurves, RankedOption
from planner.errors import PlannerError
from planner.pricing.models import PriceTable
from planner.workload import Workload

EGRESS_POINTS = 161


def egress_curves(inputs: Inputs, ranking: list[RankedOption], break_even: list[BreakEven]) -> EgressCurves | None:
    """The curves of the chosen option (else the first) and of each other provider's best priced option,
    on a grid from no egress to beyond the last break-even point; None when nothing is ranked."""
    chosen = next((o for o in ranking if o.chosen), ranking[0] if ranking else None)
    if chosen is None:
        return None
    options = [chosen]
    for option in ranking:  # the best option of every other provider, feasible ones first
        if option.cost.table_version != "-" and all(option.provider != o.provider for o in options):
            options.append(option)
    workload = inputs.workload
    current = float(workload.traffic.egress)
    stored = float(workload.stored_bytes())
    points = [b.at for b in break_even if b.dimension == "egress" and math.isfinite(b.at)]
    right = max(current * 2.0, max(points, default=0.0) * 1.15, stored * 0.5, 1e12)
    grid = [float(x) for x in np.unique(np.concatenate([np.linspace(0.0, right, EGRESS_POINTS), [current], points]))]
    curves = []
    for option in options:
        try:
            costs = _costs_at_egress(inputs, option, grid)
        except PlannerError:
            continue  # a class this workload cannot be priced in at some volume: no curve
        curves.append(
            EgressCurve(
                rank=option.rank,
                provider=option.provider,
                storage_class=option.storage_class,
                monthly_cost_usd=[float(cost) for cost in costs],
                free_egress_cap_bytes=served_egress_cap_bytes(
                    behind(workload, option.cdn), inputs.tables[option.provider], inputs.day
                ),
            )
        )
    return EgressCurves(egress_bytes=grid, curves=curves)


def _costs_at_egress(inputs: Inputs, option: RankedOption, egress_bytes: list[float]) -> list[Decimal]:
    """Month one's total at each monthly egress volume, everything else as in the workload, with the
    provider's table for month one (in its default region, as ``planner.costing.costs_at_egress``)."""
    day = add_months(inputs.day, 0)
    table = price_table(option.provider, day, inputs.prices.get(option.provider))
    return [
        _month_one(_with_egress(behind(inputs.workload, option.cdn), egress), table, option.storage_class, day)
        for egress in egress_bytes
    ]


def _with_egress(workload: Workload, egress: float) -> Workload:
    return workload.model_copy(update={"traffic": workload.traffic.model_copy(update={"egress": round(egress)})})


def _month_one(workload: Workload, table: PriceTable, storage_class: str, day: dt.date) -> Decimal:
    return delivered_bill(workload, table, storage_class, day).total_usd
