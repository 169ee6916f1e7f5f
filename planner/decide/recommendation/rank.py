"""The fourth stage of ``recommend``: the judged options in order, the first one meeting every target on
evidence chosen."""

from __future__ import annotations

from planner.decide.recommendation.models import STATUS_ORDER, RankedOption
from planner.errors import PlannerError


def rank(options: list[RankedOption]) -> list[RankedOption]:
    """Options meeting every target on evidence first, then those whose targets are unverified, then
    rejected ones, each group by horizon cost then this month's; the first ``ok`` one is chosen."""
    if not any(o.cost.line_items or o.feasible for o in options):
        raise PlannerError("no provider and storage class could be priced for this workload")
    ordered = sorted(options, key=lambda o: (STATUS_ORDER.index(o.status), o.horizon_cost_usd, o.monthly_cost_usd))
    best = next((o for o in ordered if o.status == "ok"), None)
    return [
        o.model_copy(update={"rank": i + 1, "chosen": best is not None and o is best}) for i, o in enumerate(ordered)
    ]
