"""A lifecycle policy's cost where its inputs are ranges: at each point of a sweep, and over sampled outcomes.

``planner sweep`` prices one class per option (``planner cost``'s bill), which no lifecycle rule moves; when
it varies a rule of ``storage.lifecycle``, ``policy_points`` also prices that policy at each point of the grid
with ``planner.costing.lifecycle_bills.price_lifecycle`` (as ``planner lifecycle --price-only`` does: the policy is
today's), at each of the workload's providers: its total over the horizon and its last month. ``sample_policy``
does the same for ``planner lifecycle --samples``: the policy at N seeded outcomes of the workload's ranges
(a rule's age among them, ``after: {low: 30d, high: 90d}``), and the spread of those two figures.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

from planner.costing.lifecycle_bills import price_lifecycle
from planner.errors import InputError, PlannerError
from planner.pricing.primitives import Money
from planner.workload import DAY_S, Uncertain, Workload, at, draw
from planner.workload.model import is_rule_age

MAX_POLICY_BILLS = 20_000
"""Points (or outcomes) x providers x months one run may price month by month (about a minute)."""


class PolicyPoint(BaseModel):
    """The workload's lifecycle policy at one provider with some fields set: its cost, or why it cannot run."""

    model_config = ConfigDict(frozen=True)

    point: dict[str, float]
    provider: str
    total_usd: Money | None = Field(None, description="the policy's bills over the horizon, summed")
    last_month_usd: Money | None = Field(None, description="the horizon's last month, once the transitions are done")
    refused: str | None = Field(None, description="why the provider cannot run the policy at this point")


def price_policy_at(
    workload: Workload,
    point: dict[str, float],
    provider: str,
    *,
    months: int | None = None,
    as_of: dt.date | None = None,
    region: str | None = None,
    current_class: str | None = None,
) -> PolicyPoint:
    """``storage.lifecycle`` as today's policy with the fields of ``point`` set (a rule's age among them), priced
    month by month; a point the provider refuses (an age before its least, rules out of order) says why."""
    try:
        cost = price_lifecycle(
            at(workload, point),
            provider,
            start_class=current_class,
            current_class=current_class,
            applied=True,
            months=months,
            as_of=as_of,
            region=region,
        )
    except PlannerError as error:
        return PolicyPoint(point=point, provider=provider, refused=str(error))
    return PolicyPoint(
        point=point, provider=provider, total_usd=cost.total_usd, last_month_usd=cost.months[-1].total_usd
    )


def policy_points(
    workload: Workload, points: list[dict[str, float]], *, as_of: dt.date | None = None
) -> list[PolicyPoint]:
    """The workload's lifecycle policy at each point of a sweep, at each of its providers: whatever the axes
    vary (a rule's age, ``storage.lifecycle.N.after``, or any other field), the policy is billed there as
    ``planner lifecycle --price-only`` bills it; none without a policy. Refused when there would be more
    than ``MAX_POLICY_BILLS`` months to price."""
    if not workload.storage.lifecycle or not points:
        return []
    providers = workload.constraints.providers
    bills = len(points) * len(providers) * workload.constraints.months
    if bills > MAX_POLICY_BILLS:
        raise InputError(
            f"{len(points):,} points x {len(providers)} providers x {workload.constraints.months} months of"
            f" storage.lifecycle's bills is more than {MAX_POLICY_BILLS:,}: give fewer points",
            source="--vary",
        )
    return [price_policy_at(workload, point, p, as_of=as_of) for point in points for p in providers]


class PolicyOutcomes(BaseModel):
    """The workload's lifecycle policy at one provider over N seeded outcomes of its ranges."""

    model_config = ConfigDict(frozen=True)

    workload: str
    provider: str
    policy: str
    months: int
    samples: int
    seed: int
    inputs: list[Uncertain]
    central: PolicyPoint = Field(description="every input at its central value")
    total_usd: dict[str, Money] = Field(description="p10, p50, p90 of the total over the horizon, by outcome")
    last_month_usd: dict[str, Money] = Field(description="p10, p50, p90 of the horizon's last month")
    refused: int = Field(description="outcomes the provider cannot run the policy in (left out of the percentiles)")
    first_refusal: str | None = None


def _percentiles(values: list[Decimal]) -> dict[str, Decimal]:
    """p10, p50, p90 by the nearest rank (an outcome's own bill, to the cent)."""
    ordered = sorted(values)
    return {f"p{q}": ordered[min(len(ordered) - 1, max(0, -(-q * len(ordered) // 100) - 1))] for q in (10, 50, 90)}


def sample_policy(
    workload: Workload,
    provider: str,
    n: int,
    *,
    seed: int = 0,
    months: int | None = None,
    as_of: dt.date | None = None,
    region: str | None = None,
    current_class: str | None = None,
) -> PolicyOutcomes:
    """``storage.lifecycle`` priced (as today's policy) at ``n`` seeded outcomes of the workload's ranges; an
    outcome repeated (ages are whole days) is priced once."""
    import numpy as np

    inputs = workload.uncertain
    if not workload.storage.lifecycle:
        raise InputError("the workload has no storage.lifecycle to price", field="storage.lifecycle")
    if not inputs:
        raise InputError(
            "the workload has no input given as a range: give one as {low, high}, e.g. after: {low: 30d, high: 90d}",
            source="--samples",
        )
    horizon = months or workload.constraints.months
    draws = draw(inputs, n, np.random.default_rng(seed), workload.correlations)
    points = [{u.field: float(draws[u.field][i]) for u in inputs} for i in range(n)]
    # a rule's age is a whole day: outcomes that round to the same workload are priced once
    keys = [tuple(round(v / DAY_S) if is_rule_age(f) else v for f, v in p.items()) for p in points]
    distinct = dict.fromkeys(keys)
    if len(distinct) * horizon > MAX_POLICY_BILLS:
        raise InputError(
            f"{len(distinct):,} different outcomes x {horizon} months of storage.lifecycle's bills is more than"
            f" {MAX_POLICY_BILLS:,}: give fewer samples",
            source="--samples",
        )
    priced: dict[tuple[float, ...], PolicyPoint] = {}
    for key, point in zip(keys, points, strict=True):
        if key not in priced:
            priced[key] = price_policy_at(
                workload, point, provider, months=horizon, as_of=as_of, region=region, current_class=current_class
            )
    outcomes = [priced[key] for key in keys]
    kept = [o for o in outcomes if o.total_usd is not None and o.last_month_usd is not None]
    refusals = [o.refused for o in outcomes if o.refused is not None]
    central = price_policy_at(
        workload,
        {u.field: u.central for u in inputs},
        provider,
        months=horizon,
        as_of=as_of,
        region=region,
        current_class=current_class,
    )
    if not kept:
        raise InputError(f"the policy cannot run in any outcome: {refusals[0]}", source="--samples")
    return PolicyOutcomes(
        workload=workload.name,
        provider=provider,
        policy=" -> ".join(rule.describe() for rule in workload.storage.lifecycle),
        months=horizon,
        samples=n,
        seed=seed,
        inputs=inputs,
        central=central,
        total_usd=_percentiles([o.total_usd for o in kept if o.total_usd is not None]),
        last_month_usd=_percentiles([o.last_month_usd for o in kept if o.last_month_usd is not None]),
        refused=len(refusals),
        first_refusal=refusals[0] if refusals else None,
    )
