"""A workload's bill: one month, or month by month over a horizon with growth.

Each month is priced with the table in force on that month's date, so a known price change
inside the horizon (Wasabi on 2026-07-01, B2 on 2026-05-01) shows where it happens.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from planner.errors import InputError
from planner.workload import Workload
from pricing import catalog
from pricing.engine import bill
from pricing.models import CostBreakdown, Money, PriceTable


class MonthCost(BaseModel):
    model_config = ConfigDict(frozen=True)

    month: int
    as_of: dt.date
    stored_bytes: int
    cost: CostBreakdown


class CostProjection(BaseModel):
    """Month-by-month bills over a horizon and their sum."""

    model_config = ConfigDict(frozen=True)

    provider: str
    storage_class: str
    region: str | None = None
    months: list[MonthCost]
    total_usd: Money


def add_months(day: dt.date, months: int) -> dt.date:
    month_index = day.month - 1 + months
    year, month = day.year + month_index // 12, month_index % 12 + 1
    if year > dt.MAXYEAR:
        raise InputError(f"a {months}-month horizon from {day} runs past the year {dt.MAXYEAR}", source="--as-of")
    return dt.date(year, month, min(day.day, 28))


def price_table(provider: str, as_of: dt.date, prices: Path | None = None, region: str | None = None) -> PriceTable:
    """The shipped table in force (for ``region``, default the provider's default region), or a user's
    override file layered over it."""
    if prices is not None:
        table = catalog.load_override(prices, as_of, region)
        if table.provider != provider:
            raise InputError(
                f"the override is for {table.provider}, not {provider}", source=str(prices), field="provider"
            )
        return table
    return catalog.table_for(provider, as_of, region)


def _in_region(cost: CostBreakdown, provider: str, region: str | None) -> CostBreakdown:
    """The bill, saying which region it prices and, for a provider with one price everywhere, that it is."""
    if region is None or region == cost.region:
        return cost
    note = catalog.region_versions(provider, region)[1]
    return cost.model_copy(update={"region": region, "region_note": note})


def estimate_cost(
    workload: Workload,
    provider: str,
    storage_class: str = "standard",
    *,
    as_of: dt.date | None = None,
    month: int = 0,
    prices: Path | None = None,
    region: str | None = None,
) -> CostBreakdown:
    """The bill for one month of ``workload`` (month 0 is the month of ``as_of``) in ``region`` (default:
    the provider's default region)."""
    day = add_months(as_of or dt.date.today(), month)
    table = price_table(provider, day, prices, region)
    priced = bill(table, storage_class, workload.usage_for(storage_class, table.limits, month), as_of=day)
    priced = _in_region(priced, provider, region)
    contradictions = workload.consistency_warnings()
    return priced.model_copy(update={"warnings": [*priced.warnings, *contradictions]}) if contradictions else priced


def costs_at_egress(
    workload: Workload,
    provider: str,
    storage_class: str,
    egress_bytes: Sequence[float],
    *,
    as_of: dt.date | None = None,
    prices: Path | None = None,
) -> list[Decimal]:
    """Month one's total at each monthly egress volume, everything else as in the workload: the exact
    engine at every point (the curves a plot draws cross where the break-even solver says)."""
    totals = []
    for egress in egress_bytes:
        variant = workload.model_copy(update={"traffic": workload.traffic.model_copy(update={"egress": round(egress)})})
        totals.append(estimate_cost(variant, provider, storage_class, as_of=as_of, prices=prices).total_usd)
    return totals


def egress_cap_bytes(table: PriceTable, stored_bytes: float) -> float | None:
    """Monthly egress (bytes) above which the provider's free-egress policy is broken (IDrive e2: 3x
    stored; Wasabi: egress <= stored), or None."""
    policy = table.egress.fair_use_multiple_of_storage
    return None if policy is None or not stored_bytes else float(policy) * stored_bytes


def project_costs(
    workload: Workload,
    provider: str,
    storage_class: str = "standard",
    *,
    months: int | None = None,
    as_of: dt.date | None = None,
    prices: Path | None = None,
    region: str | None = None,
) -> CostProjection:
    """Bills for each month of the horizon (the workload's ``constraints.months`` by default)."""
    start = as_of or dt.date.today()
    horizon = months or workload.constraints.months
    monthly = []
    for month in range(horizon):
        cost = estimate_cost(workload, provider, storage_class, as_of=start, month=month, prices=prices, region=region)
        monthly.append(
            MonthCost(month=month + 1, as_of=cost.as_of or start, stored_bytes=workload.stored_bytes(month), cost=cost)
        )
    return CostProjection(
        provider=provider,
        storage_class=storage_class,
        region=monthly[0].cost.region if monthly else region,
        months=monthly,
        total_usd=sum((m.cost.total_usd for m in monthly), Decimal(0)),
    )
