"""A workload's bill: one month, or month by month over a horizon with growth.

Each month is priced with the table in force on that month's date, so a known price change
inside the horizon (Wasabi on 2026-07-01, B2 on 2026-05-01) shows where it happens.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from planner.costing.cdn_bills import delivery_path, with_cdn
from planner.errors import InputError, a_day, of_type, whole_number
from planner.pricing import catalog
from planner.pricing.bill_account import is_minimum_charge, with_minimum_charge
from planner.pricing.bill_lines import round_line
from planner.pricing.billing import bill
from planner.pricing.breakdown import CostBreakdown, LineItem
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Money
from planner.pricing.usage import Usage
from planner.units import format_bytes
from planner.workload import DAY_S, MONTH_S, Workload

WORKLOAD_MONTH_DAYS = round(MONTH_S / DAY_S)
"""The days of the month a workload's monthly figures are given for (``"4 TB/day"`` is 30 x 4 TB)."""
MAX_MONTHS = 120
"""the longest horizon (a workload's ``constraints.months`` and ``--months`` take the same)"""


class BillingOptions(BaseModel):
    """How a workload's month is billed beyond what the workload says: the restore tier, the days a
    restored copy is kept, and whether the month is a calendar month."""

    model_config = ConfigDict(frozen=True)

    retrieval: str | None = None
    """The archive retrieval tier restores use (e.g. bulk); None: each class's default."""
    restored_copy_days: Decimal = Decimal(1)
    """Days each restored copy is kept (the restore request's Days; 1 is the least it takes)."""
    calendar: bool = False
    """Bill each month's real length (AWS bills calendar months) instead of a 30-day month."""


DEFAULT_BILLING = BillingOptions()


def month_statement(day: dt.date, options: BillingOptions) -> str:
    """Which month a bill prices, in words, for the bill's readers."""
    days = calendar.monthrange(day.year, day.month)[1]
    if options.calendar:
        return (
            f"{day:%B %Y}, {days} days (calendar month): the workload's {WORKLOAD_MONTH_DAYS}-day monthly flows"
            f" x {days}/{WORKLOAD_MONTH_DAYS}, stored bytes as the month's average"
        )
    return f"{WORKLOAD_MONTH_DAYS} days (--calendar bills {day:%B %Y}'s {days})"


def in_calendar_month(usage: Usage, day: dt.date) -> Usage:
    """A 30-day month's usage as the calendar month of ``day`` bills it: the flows (requests, egress,
    transfer, retrievals, deletions) at the same daily rate over the month's days, the month's days for
    per-day allowances and prorating; stored bytes, an average over the month, unchanged."""
    days = calendar.monthrange(day.year, day.month)[1]
    scale = Fraction(days, WORKLOAD_MONTH_DAYS)

    def scaled(count: int) -> int:
        return round(count * scale)

    return usage.model_copy(
        update={
            "requests": {op: scaled(n) for op, n in usage.requests.items()},
            "egress_bytes": scaled(usage.egress_bytes),
            "inter_region_bytes": scaled(usage.inter_region_bytes),
            "retrieval_bytes": scaled(usage.retrieval_bytes),
            "upload_bytes": scaled(usage.upload_bytes),
            "retrieval_requests": scaled(usage.retrieval_requests),
            "deletions": [
                d.model_copy(update={"bytes": scaled(d.bytes), "objects": scaled(d.objects)}) for d in usage.deletions
            ],
            "month_days": days,
        }
    )


def check_retrieval(table: PriceTable, classes: Sequence[str], retrieval: str | None) -> None:
    """Refuse a retrieval tier that a class with tiers to choose from does not offer, or that no class
    billed offers (a class with one retrieval rate, such as Glacier Instant Retrieval, keeps it)."""
    if retrieval is None:
        return
    names = ", ".join(table.classes[c].name for c in classes)
    rates = [(table.classes[c].name, list(r.options)) for c in classes if (r := table.classes[c].retrieval)]
    for name, options in rates:
        if len(options) > 1 and retrieval not in options:
            raise InputError(
                f"{retrieval!r} is not a retrieval tier of {name} (tiers: {', '.join(options)})", source="--retrieval"
            )
    if not rates:
        raise InputError(
            f"{retrieval!r}: {names} charges no retrieval, so there is no tier to choose", source="--retrieval"
        )
    if not any(retrieval in options for _, options in rates):
        single = ", ".join(f"{name}: {options[0]}" for name, options in rates)
        raise InputError(f"{retrieval!r}: one retrieval rate, no tiers to choose ({single})", source="--retrieval")


def _billed_usage(usage: Usage, table: PriceTable, storage_class: str, day: dt.date, options: BillingOptions) -> Usage:
    """The workload's usage with the billing options applied: the retrieval tier (where the class offers
    it), the days restored copies are kept, the calendar month."""
    retrieval = table.classes[storage_class].retrieval
    update: dict[str, object] = {"restored_copy_days": options.restored_copy_days}
    if options.retrieval is not None and retrieval is not None and options.retrieval in retrieval.options:
        update["retrieval_option"] = options.retrieval
    usage = usage.model_copy(update=update)
    return in_calendar_month(usage, day) if options.calendar else usage


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
    billing_month: str | None = None
    """The months billed: 30 days each, or calendar months."""


def add_months(day: dt.date, months: int) -> dt.date:
    month_index = day.month - 1 + months
    year, month = day.year + month_index // 12, month_index % 12 + 1
    if year > dt.MAXYEAR:
        raise InputError(f"a {months}-month horizon from {day} runs past the year {dt.MAXYEAR}", source="--as-of")
    if months == 0:  # the day itself: a table that begins on the 29th to the 31st is in force on it
        return day
    return dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


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
            **({} if hot else {"egress_bytes": 0, "inter_region_bytes": 0, "buckets": 0, "upload_bytes": 0}),
        }
    )


def _of_class(item: LineItem, class_name: str) -> LineItem:
    """A line of one class of a placement, its description naming the class where it does not."""
    if class_name in item.description:
        return item
    return item.model_copy(update={"description": f"{class_name}: {item.description}"})


def _standard_rate_class(table: PriceTable, classes: Sequence[str]) -> str | None:
    """The class whose tiers the Standard-rate parts of archive classes (8 KB per object, restored copies) use."""
    for class_id in classes:
        overhead = table.classes[class_id].object_overhead
        if overhead is not None:
            return overhead.standard_rate_class
    copy = table.limits.restored_copy
    return copy.storage_class if copy is not None else None


def placement_cost(
    workload: Workload, table: PriceTable, day: dt.date, month: int = 0, options: BillingOptions = DEFAULT_BILLING
) -> CostBreakdown:
    """The bill of what is really stored: each class of ``storage.placement`` priced on its own bytes
    (its tiers, minimums, overheads and early deletions), the traffic in the hottest class. The archive
    classes' Standard-rate parts go on Standard's tiers above the placement's Standard bytes."""
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
    check_retrieval(table, list(placement), options.retrieval)
    standard = _standard_rate_class(table, list(placement))
    standard_bytes = by_class.get(standard, 0) if standard is not None else 0
    bills = []
    allowance_used: dict[str, int] = {}  # free requests the placement's classes took from shared allowances
    for cls in [hot, *(c for c in placement if c != hot)]:
        whole = workload.usage_for(cls, table.limits, month)
        share = Fraction(by_class[cls], stored) if stored else Fraction(int(cls == hot))
        usage = _class_usage(whole, share, hot=cls == hot, read_share=read_shares.get(cls, Fraction(0)))
        elsewhere = 0 if cls == standard else standard_bytes
        usage = usage.model_copy(
            update={
                "stored_bytes": by_class[cls],
                "standard_rate_bytes_elsewhere": elsewhere,
                "request_allowance_used": dict(allowance_used),
            }
        )
        bills.append(bill(table, cls, _billed_usage(usage, table, cls, day, options), as_of=day))
        standard_bytes += bills[-1].standard_rate_bytes
        for rc_id, taken in bills[-1].request_allowance_taken.items():
            allowance_used[rc_id] = allowance_used.get(rc_id, 0) + taken
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
    line_items = first.line_items
    if len(placement) > 1:
        line_items = [
            _of_class(item, table.classes[b.storage_class].name)
            for b in bills
            for item in b.line_items
            if not is_minimum_charge(item)
        ]
        least = table.billing.minimum_charge
        if least is not None:  # one minimum for the account, not one for each class's bill
            line_items = with_minimum_charge(table, line_items, least.status)
    return first.model_copy(
        update={
            "storage_class": " + ".join(c for c in placement),
            "line_items": line_items,
            "total_usd": sum((item.amount_usd for item in line_items), round_line(Decimal(0), table)),
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
    options: BillingOptions = DEFAULT_BILLING,
) -> CostBreakdown:
    """The bill for one month of ``workload`` (month 0 is the month of ``as_of``) in ``region`` (default:
    the provider's default region); ``storage_class`` None prices the workload's placement where it
    states one (each class on its own bytes), else Standard. ``options`` choose the restore tier, the
    days restored copies are kept and a calendar month."""
    _check_arguments(workload, provider, storage_class, options)
    month = whole_number(month, "month", low=0, high=MAX_MONTHS - 1)
    day = add_months(a_day(as_of, "as_of") or dt.date.today(), month)
    table = price_table(provider, day, prices, region)
    path = delivery_path(workload, provider, day, table.region)  # a CDN in front: the origin bills the misses
    workload = path.origin if path is not None else workload
    if storage_class is None and workload.storage.placement is not None:
        priced = placement_cost(workload, table, day, month, options)
    else:
        storage_class = storage_class or "standard"
        usage = workload.usage_for(storage_class, table.limits, month)
        if storage_class in table.classes:  # else the engine's error names the classes
            check_retrieval(table, [storage_class], options.retrieval)
            usage = _billed_usage(usage, table, storage_class, day, options)
        priced = bill(table, storage_class, usage, as_of=day)
    priced = _in_region(priced, provider, region).model_copy(update={"billing_month": month_statement(day, options)})
    priced = with_cdn(priced, path) if path is not None else priced
    oversized = oversized_objects(workload, table)
    added = [*workload.consistency_warnings(), *([oversized] if oversized is not None else [])]
    return priced.model_copy(update={"warnings": [*priced.warnings, *added]}) if added else priced


def _check_arguments(workload: Workload, provider: str, storage_class: str | None, options: BillingOptions) -> None:
    """The library's arguments of a bill, each refused by its keyword if it is not what the bill takes."""
    of_type(workload, Workload, "workload", "a planner.Workload (planner.load_workload(path))")
    of_type(provider, str, "provider", "a provider id, e.g. 'aws-s3'")
    if storage_class is not None:
        of_type(storage_class, str, "storage_class", "a storage class id, e.g. 'standard', or None")
    of_type(options, BillingOptions, "options", "a BillingOptions")


def oversized_objects(workload: Workload, table: PriceTable) -> str | None:
    """What is wrong when the workload's largest object is past the largest the provider stores
    (``limits.max_object_bytes``): the bill prices data the provider cannot hold. With ``storage.objects``
    the size is the mean, so some object is at least that large. None when they fit."""
    largest = table.limits.max_object_bytes
    biggest = max((size for size, share in workload.object_sizes() if share > 0), default=0.0)
    if largest is None or biggest <= largest:
        return None
    sized = "objects averaging" if workload.storage.objects is not None else "objects of"
    status = (table.limits.status or table.status).value
    return (
        f"{sized} {format_bytes(biggest)} ({biggest:,.0f} bytes) are larger than the largest object the provider"
        f" stores, {format_bytes(largest)} ({largest:,} bytes; {table.version}, {status})"
    )


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
    options: BillingOptions = DEFAULT_BILLING,
) -> CostProjection:
    """Bills for each month of the horizon (the workload's ``constraints.months`` by default)."""
    _check_arguments(workload, provider, storage_class, options)
    start = a_day(as_of, "as_of") or dt.date.today()
    horizon = workload.constraints.months if months is None else whole_number(months, "months", low=1, high=MAX_MONTHS)
    check_horizon(start, horizon)
    monthly = []
    for month in range(horizon):
        cost = estimate_cost(
            workload, provider, storage_class, as_of=start, month=month, prices=prices, region=region, options=options
        )
        monthly.append(
            MonthCost(month=month + 1, as_of=cost.as_of or start, stored_bytes=workload.stored_bytes(month), cost=cost)
        )
    return CostProjection(
        provider=provider,
        storage_class=monthly[0].cost.storage_class if monthly else storage_class or "standard",
        region=monthly[0].cost.region if monthly else region,
        months=monthly,
        total_usd=sum((m.cost.total_usd for m in monthly), Decimal(0)),
        billing_month=(
            f"calendar months, each its own days (the workload's {WORKLOAD_MONTH_DAYS}-day monthly flows scaled"
            " to them)"
            if options.calendar
            else f"{WORKLOAD_MONTH_DAYS} days each (--calendar bills each calendar month's days)"
        ),
    )
