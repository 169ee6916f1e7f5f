"""A workload's bill: one month, or month by month over a horizon with growth.

Each month is priced with the table in force on that month's date, so a known price change
inside the horizon (Wasabi on 2026-07-01, B2 on 2026-05-01) shows where it happens.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from planner.errors import InputError
from planner.pricing import catalog
from planner.pricing.billing import bill, round_line
from planner.pricing.models import CostBreakdown, LineItem, Money, PriceTable, Usage
from planner.workload import Workload


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


def check_horizon(start: dt.date, months: int) -> None:
    """Refuse a horizon whose last month falls past the calendar (the year 9999), naming the horizon."""
    try:
        add_months(start, months - 1)
    except InputError:
        raise InputError(
            f"a {months}-month horizon from {start} runs past the year {dt.MAXYEAR}", source="--as-of"
        ) from None


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


def hottest_class(classes: Sequence[str], table: PriceTable) -> str:
    """The class a placement's reads and writes are taken to go to: the one with the highest first-tier
    storage price a byte (data kept where it costs most is kept there to be read); the first listed on a tie."""

    def price_per_byte(storage_class: str) -> Decimal:
        storage = table.classes[storage_class].storage
        return storage.tiers[0].price / storage.unit_bytes

    return max(classes, key=price_per_byte)


def _placement_bytes(workload: Workload, hot: str, month: int) -> dict[str, int]:
    """Each class's bytes in ``month``: the placement scaled to ``storage.stored`` (they agree within
    rounding), growth added to the hot class."""
    placement = workload.storage.placement
    assert placement is not None
    total, stored = sum(placement.values()), workload.storage.stored
    scaled = {cls: b * stored // total for cls, b in placement.items()}
    scaled[hot] += stored - sum(scaled.values()) + workload.storage.growth_per_month * month
    return scaled


def _class_usage(whole: Usage, share: Fraction, *, hot: bool, read_share: Fraction) -> Usage:
    """One class's part of the whole workload's usage: ``share`` of the objects and deletions,
    ``read_share`` of the GETs and the bytes they retrieve; the other requests, the egress and the
    buckets if it is the hot class."""

    def part(count: int, fraction: Fraction = share) -> int:
        return round(count * fraction)

    deletions = [
        d.model_copy(update={"bytes": part(d.bytes), "objects": part(d.objects)})
        for d in whole.deletions
        if part(d.objects) or part(d.bytes)
    ]
    deletes = sum(d.objects for d in deletions)
    requests = {op: n for op, n in whole.requests.items() if op not in ("delete", "get")} if hot else {}
    if part(whole.requests.get("get", 0), read_share):
        requests["get"] = part(whole.requests.get("get", 0), read_share)
    if deletes:
        requests["delete"] = deletes
    return whole.model_copy(
        update={
            "object_count": None if whole.object_count is None else part(whole.object_count),
            "object_sizes": None
            if whole.object_sizes is None
            else [b.model_copy(update={"count": part(b.count)}) for b in whole.object_sizes],
            "requests": requests,
            "deletions": deletions,
            "retrieval_bytes": part(whole.retrieval_bytes, read_share),
            "retrieval_requests": part(whole.retrieval_requests, read_share),
            **({} if hot else {"egress_bytes": 0, "inter_region_bytes": 0, "buckets": 0}),
        }
    )


def _of_class(item: LineItem, class_name: str) -> LineItem:
    """A line of one class of a placement, its description naming the class where it does not."""
    if class_name in item.description:
        return item
    return item.model_copy(update={"description": f"{class_name}: {item.description}"})


def placement_cost(workload: Workload, table: PriceTable, day: dt.date, month: int = 0) -> CostBreakdown:
    """The bill of what is really stored: each class of ``storage.placement`` priced on its own bytes
    (its tiers, minimums, overheads and early deletions), the traffic in the hottest class."""
    placement = workload.storage.placement
    assert placement is not None
    missing = [cls for cls in placement if cls not in table.classes]
    if missing:
        raise InputError(
            f"{missing[0]!r} is not a storage class of {table.version} (classes: {', '.join(table.classes)});"
            " give --class to price all of the data in one class",
            field="storage.placement",
        )
    hot = hottest_class(list(placement), table)
    by_class = _placement_bytes(workload, hot, month)
    stored = sum(by_class.values())
    reads = workload.reads_per_month()
    stated = workload.traffic.reads_by_class or {}
    read_shares = {cls: Fraction(n, reads) if reads else Fraction(0) for cls, n in stated.items()}
    read_shares[hot] = read_shares.get(hot, Fraction(0)) + 1 - sum(read_shares.values(), Fraction(0))
    bills = []
    for cls in [hot, *(c for c in placement if c != hot)]:
        whole = workload.usage_for(cls, table.limits, month)
        share = Fraction(by_class[cls], stored) if stored else Fraction(int(cls == hot))
        usage = _class_usage(whole, share, hot=cls == hot, read_share=read_shares.get(cls, Fraction(0)))
        bills.append(bill(table, cls, usage.model_copy(update={"stored_bytes": by_class[cls]}), as_of=day))
    names = [table.classes[c].name for c in placement]
    assumptions = []
    if len(placement) > 1:
        named = ", ".join(f"{n:,} from {table.classes[c].name}" for c, n in stated.items() if c != hot)
        reads_said = (
            f"the GETs traffic.reads_by_class names go to their classes ({named}), each with its share of the"
            " bytes read as retrieval; every other request, read"
            if named
            else "every request, read, retrieval"
        )
        assumptions = [
            f"{reads_said} and egress byte is taken to go to {table.classes[hot].name}, the placement's class"
            " with the highest storage price; the other classes pay storage, their minimums, overheads and"
            " early deletions",
            "objects and deletions are spread over the classes in proportion to their bytes (the same size mix in"
            " each class)",
        ]
        if workload.storage.growth_per_month:
            assumptions.append(f"growth is added to {table.classes[hot].name}")
    warnings = list(dict.fromkeys(w for b in bills for w in b.warnings))
    egress = table.egress
    if len(placement) > 1 and (egress.free_multiple_of_storage or egress.fair_use_multiple_of_storage):
        warnings.append(
            f"{table.provider_name}'s free egress is a multiple of the stored volume: it was measured against"
            f" {table.classes[hot].name}'s bytes alone, not the whole placement"
        )
    first = bills[0]
    return first.model_copy(
        update={
            "storage_class": " + ".join(c for c in placement),
            "line_items": [_of_class(item, table.classes[b.storage_class].name) for b in bills for item in b.line_items]
            if len(placement) > 1
            else first.line_items,
            "total_usd": sum((b.total_usd for b in bills), round_line(Decimal(0), table)),
            "warnings": warnings,
            "policy_breaches": first.policy_breaches,
            "assumptions": [f"placement: {', '.join(names)} priced on their own bytes", *assumptions],
        }
    )


def estimate_cost(
    workload: Workload,
    provider: str,
    storage_class: str | None = "standard",
    *,
    as_of: dt.date | None = None,
    month: int = 0,
    prices: Path | None = None,
    region: str | None = None,
) -> CostBreakdown:
    """The bill for one month of ``workload`` (month 0 is the month of ``as_of``) in ``region`` (default:
    the provider's default region); ``storage_class`` None prices the workload's placement where it
    states one (each class on its own bytes), else Standard."""
    day = add_months(as_of or dt.date.today(), month)
    table = price_table(provider, day, prices, region)
    if storage_class is None and workload.storage.placement is not None:
        priced = placement_cost(workload, table, day, month)
    else:
        storage_class = storage_class or "standard"
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
    storage_class: str | None = "standard",
    *,
    months: int | None = None,
    as_of: dt.date | None = None,
    prices: Path | None = None,
    region: str | None = None,
) -> CostProjection:
    """Bills for each month of the horizon (the workload's ``constraints.months`` by default)."""
    start = as_of or dt.date.today()
    horizon = months or workload.constraints.months
    check_horizon(start, horizon)
    monthly = []
    for month in range(horizon):
        cost = estimate_cost(workload, provider, storage_class, as_of=start, month=month, prices=prices, region=region)
        monthly.append(
            MonthCost(month=month + 1, as_of=cost.as_of or start, stored_bytes=workload.stored_bytes(month), cost=cost)
        )
    return CostProjection(
        provider=provider,
        storage_class=monthly[0].cost.storage_class if monthly else storage_class or "standard",
        region=monthly[0].cost.region if monthly else region,
        months=monthly,
        total_usd=sum((m.cost.total_usd for m in monthly), Decimal(0)),
    )
