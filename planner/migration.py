"""Moving a workload between providers: the one-time bill, how long it takes, when it pays back.

Every one-time charge is an increment the engine computes, never a formula of its own: the
source's bill for the month with the migration's egress, GETs and LISTs added, minus the bill
without them, so the source's tiers and free allowances apply as they would on the invoice.
The same holds for the destination's PUTs (multipart parts as the destination bills them),
the source's early-deletion charges and archive retrieval fees.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from measure.profile import ProfileSummary
from planner.costing import add_months, price_table
from planner.errors import InputError
from planner.evidence import Evidence, weakest
from planner.units import format_bytes, format_duration, format_rate
from planner.workload import DAY_S, Workload
from pricing.engine import bill, round_line
from pricing.models import CostBreakdown, Deletion, LineItem, Money, PriceTable, Usage

ZERO = Decimal(0)
MAX_COPY_HOURS = 10 * 365 * 24
"""A copy longer than ten years (the longest horizon) is not a plan: it is refused, naming its bound."""
Strategy = Literal["bulk", "copy-on-read"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class Endpoint(_Model):
    provider: str
    storage_class: str = "standard"

    @classmethod
    def parse(cls, text: str, option: str) -> Endpoint:
        provider, _, storage_class = text.partition(":")
        if not provider:
            raise InputError(f"{text!r}: use PROVIDER[:CLASS], e.g. aws-s3:standard", source=option)
        return cls(provider=provider, storage_class=storage_class or "standard")

    def __str__(self) -> str:
        return f"{self.provider}:{self.storage_class}"


class MigrationOptions(_Model):
    source: Endpoint
    destination: Endpoint
    strategy: Strategy = "bulk"
    start: dt.date | None = None
    months: int | None = Field(None, ge=1, le=120, description="horizon for the timeline (default: the workload's)")
    link_bits_per_s: float | None = Field(None, gt=0, description="copy link (default: the workload's client link)")
    concurrency: int | None = Field(None, ge=1, description="copy streams (default: the workload's client concurrency)")
    egress_waiver: bool = Field(
        False, description="the source waives egress for leaving customers (AWS does on request)"
    )
    data_age_days: float | None = Field(
        None, ge=0, description="age of all stored data at the move; default: uniform over the retention"
    )
    verify_days: float = Field(7.0, ge=0, description="days both copies are kept while the copy is verified")
    retrieval_option: str | None = Field(None, description="archive retrieval speed at the source (e.g. bulk)")
    source_prices: Path | None = None
    destination_prices: Path | None = None


class DurationBound(_Model):
    name: str
    hours: float
    detail: str
    evidence: Evidence | None = Field(
        None, description="how the rate behind it is backed (planner.evidence); None for the link the user states"
    )


def _profile_evidence(summary: ProfileSummary) -> Evidence:
    return "published" if summary.source_kind == "published" else "measured"


def _stream_evidence(summary: ProfileSummary, size: float) -> Evidence:
    """A per-stream figure at ``size``: a profile point as backed, between points derived, beyond them
    extrapolated."""
    sizes = [point[0] for point in summary.get_stream_bytes_per_s]
    if size in sizes:
        return _profile_evidence(summary)
    if sizes and sizes[0] < size < sizes[-1]:
        return weakest(_profile_evidence(summary), "derived")
    return "extrapolated"


class TimelineMonth(_Model):
    month: int
    as_of: dt.date
    stay_usd: Money
    move_usd: Money
    cumulative_stay_usd: Money
    cumulative_move_usd: Money
    moved_share: float = Field(description="share of the stored bytes at the destination by the end of the month")


class MigrationPlan(_Model):
    workload: str
    source: str
    destination: str
    strategy: Strategy
    start: dt.date
    stored_bytes: int
    objects: int
    one_time_cost_usd: Money
    one_time: list[LineItem]
    duration_hours: float
    bottleneck: str
    bounds: list[DurationBound]
    monthly_before_usd: Money
    monthly_after_usd: Money
    payback_months: float | None = Field(description="one-time cost / monthly saving; None if moving never pays back")
    payback_month: int | None = Field(description="first month whose cumulative cost of moving is at most staying's")
    timeline: list[TimelineMonth]
    left_behind_share: float = Field(0.0, description="copy-on-read: share of bytes never read, still at the source")
    assumptions: list[str] = Field(default_factory=list)


def _increment(table: PriceTable, storage_class: str, base: Usage, extra: Usage) -> CostBreakdown:
    """The bill of base + extra minus the bill of base, by category, as line items."""
    before = bill(table, storage_class, base)
    after = bill(table, storage_class, extra)
    return _difference(after, before, table)


def _difference(after: CostBreakdown, before: CostBreakdown, table: PriceTable) -> CostBreakdown:
    """Line items of ``after`` minus ``before``, matched by category, unit and unit price.

    Matching on the unit price keeps each tier its own line: moving 100 TB on top of 10 TB of
    normal egress shows the extra GB in each tier at that tier's price, so quantity x unit price
    is still the amount.
    """

    def key(item: LineItem) -> tuple[str, str, Decimal]:
        return (item.category, item.unit, item.unit_price_usd)

    quantities: dict[tuple[str, str, Decimal], Decimal] = {}
    template: dict[tuple[str, str, Decimal], LineItem] = {}
    for item in after.line_items:
        quantities[key(item)] = quantities.get(key(item), ZERO) + item.quantity
        template.setdefault(key(item), item)
    for item in before.line_items:
        quantities[key(item)] = quantities.get(key(item), ZERO) - item.quantity
        template.setdefault(key(item), item)
    items = []
    for k, quantity in quantities.items():
        if quantity == 0 or k[2] == 0:
            continue  # unchanged, or free (allowances, free operations)
        item = template[k]
        exact = quantity * item.unit_price_usd * (1 - (item.discount or ZERO))
        update = {"quantity": quantity, "amount_usd": round_line(exact, table), "amount_unrounded_usd": exact}
        items.append(item.model_copy(update=update))
    return CostBreakdown(
        provider=after.provider,
        storage_class=after.storage_class,
        table_version=after.table_version,
        line_items=items,
        total_usd=sum((i.amount_usd for i in items), ZERO),
        warnings=[w for w in after.warnings if w not in before.warnings],
    )


def _relabel(items: list[LineItem], prefix: str, added: dict[str, int] | None = None) -> list[LineItem]:
    """Prefix each line; request lines name only the operations the migration added."""
    relabelled = []
    for item in items:
        description = item.description
        if added and item.category == "requests" and " requests (" in description:
            group = description.split(" requests (")[0]
            ops = [op for op, n in added.items() if n and op in description.split(" requests (")[1]]
            description = f"{group} requests ({', '.join(ops)})" if ops else description
        relabelled.append(item.model_copy(update={"description": f"{prefix}: {description}"}))
    return relabelled


def _merge(a: Usage, **extra: object) -> Usage:
    """A usage with request counts added and other fields replaced or summed."""
    update: dict[str, object] = {}
    for key, value in extra.items():
        if key == "requests":
            merged = dict(a.requests)
            for op, count in value.items():  # type: ignore[attr-defined]
                merged[op] = merged.get(op, 0) + count
            update["requests"] = merged
        elif key in ("egress_bytes", "retrieval_bytes", "retrieval_requests"):
            update[key] = getattr(a, key) + value
        elif key == "deletions":
            update[key] = [*a.deletions, *value]  # type: ignore[misc]
        else:
            update[key] = value
    return a.model_copy(update=update)


def _upload_requests(workload: Workload, objects: int, table: PriceTable) -> dict[str, int]:
    """Requests to write ``objects`` objects of the workload's sizes at a destination."""
    requests = {"put": 0, "create-multipart": 0, "upload-part": 0, "complete-multipart": 0}
    for size, share in workload.object_sizes():
        count = objects * share
        parts = workload.parts_per_upload(size, table.limits)
        if parts == 1:
            requests["put"] += round(count)
        else:
            requests["create-multipart"] += round(count)
            requests["complete-multipart"] += round(count)
            requests["upload-part"] += round(count * parts)
    return {op: n for op, n in requests.items() if n}


def _young_data(workload: Workload, options: MigrationOptions, min_days: int) -> tuple[float, float, str]:
    """(share of bytes younger than the minimum duration, their mean age in days, assumption)."""
    if not min_days:
        return 0.0, 0.0, ""
    if options.data_age_days is not None:
        if options.data_age_days >= min_days:
            return 0.0, 0.0, ""
        return 1.0, options.data_age_days, f"all data is {options.data_age_days:g} days old at the move"
    retention = workload.storage.retention
    if retention is not None:
        lifetime = retention / DAY_S
        # Steady state: ages uniform over the lifetime. The charge is linear in the remaining days,
        # so the young share at its mean age prices exactly like the whole distribution.
        young = min(min_days, lifetime)
        return young / lifetime, young / 2, f"object ages uniform over the {lifetime:g}-day retention"
    return 0.0, 0.0, "no retention or data age given: all data taken as older than the source's minimum duration"


def _ceiling_bound(
    summary: ProfileSummary, direction: str, who: str, stored: int, bounds: list[DurationBound], notes: list[str]
) -> None:
    """A provider's read or write ceiling bounds the copy only if it is a measured limit."""

    name = f"{direction}_ceiling_bytes_per_s"
    ceiling = getattr(summary, name)
    if not ceiling:
        return
    hours = stored / ceiling / 3600
    side = "source" if direction == "read" else "destination"
    if summary.is_exact(name):
        bounds.append(
            DurationBound(
                name=f"{side} {direction} ceiling",
                hours=hours,
                detail=f"{format_rate(ceiling * 8)}, {who}",
                evidence=_profile_evidence(summary),
            )
        )
    else:
        notes.append(
            f"the highest published {direction} rate for {who} is {format_rate(ceiling * 8)}: a demonstrated rate, "
            f"not a limit; at that rate the copy would take {hours:,.1f} hours, so measure before you plan on less"
        )


def _duration_bounds(
    workload: Workload,
    options: MigrationOptions,
    objects: int,
    stored: int,
    source: PriceTable,
    destination: PriceTable,
) -> tuple[list[DurationBound], list[str]]:
    from planner.recommendation import _interpolate_stream, reference_summaries

    link = options.link_bits_per_s or workload.client.link
    concurrency = options.concurrency or workload.client.concurrency
    notes: list[str] = []
    bounds = [
        DurationBound(
            name="client link",
            hours=stored * 8 / link / 3600,
            detail=f"{format_bytes(stored)} over {format_rate(link)}",
        )
    ]
    summaries = reference_summaries([options.source.provider, options.destination.provider])
    src = summaries.get(options.source.provider)
    dst = summaries.get(options.destination.provider)
    if src is not None:
        summary, label = src
        _ceiling_bound(summary, "read", f"{options.source.provider} ({label})", stored, bounds, notes)
        mean = workload.storage.mean_object_bytes
        stream = _interpolate_stream(summary.get_stream_bytes_per_s, mean)
        ttfb = summary.ttfb_p50_s
        if stream or ttfb:
            # a stream figure is bytes over the whole request (its first byte included), and below the
            # smallest measured size a request takes that size's time: it is the time per object alone
            per_object = mean / stream if stream else (ttfb or 0.0)
            bounds.append(
                DurationBound(
                    name="per-request time",
                    hours=objects * per_object / concurrency / 3600,
                    detail=f"{objects:,} objects x {format_duration(per_object)} each / {concurrency} streams",
                    evidence=_stream_evidence(summary, mean)
                    if stream
                    else weakest(_profile_evidence(summary), "derived"),
                )
            )
        else:
            notes.append(f"no per-request figures for {options.source.provider}: the object-count bound is left out")
    if dst is not None:
        summary, label = dst
        _ceiling_bound(summary, "write", f"{options.destination.provider} ({label})", stored, bounds, notes)
    # the tables' documented per-prefix request rates (S3's), over the prefixes the keys are under
    prefixes = workload.storage.prefixes
    spread = f"over {prefixes:,} prefix(es)" if prefixes else "over 1 prefix (storage.prefixes not stated)"
    reads = {"get": objects}
    writes = _upload_requests(workload, objects, destination)
    sides = (("source", "GET", source, reads), ("destination", "PUT", destination, writes))
    for side, what, table, requests in sides:
        for rate in table.limits.request_rates:
            count = sum(n for op, n in requests.items() if op in rate.operations)
            if rate.scope != "prefix" or not count:
                continue
            per_s = rate.per_s * (prefixes or 1)
            bounds.append(
                DurationBound(
                    name=f"{side} {what} rate per prefix",
                    hours=count / per_s / 3600,
                    detail=f"{count:,} requests at {rate.per_s:,g}/s per prefix {spread} ({table.version})",
                    evidence="published",
                )
            )
    return bounds, notes


def estimate_migration(workload: Workload, options: MigrationOptions) -> MigrationPlan:
    """Plan a move of ``workload`` from ``options.source`` to ``options.destination``."""
    start = options.start or dt.date.today()
    months = options.months or workload.constraints.months
    source_table = price_table(options.source.provider, start, options.source_prices)
    dest_table = price_table(options.destination.provider, start, options.destination_prices)
    for endpoint, table in ((options.source, source_table), (options.destination, dest_table)):
        if endpoint.storage_class not in table.classes:
            raise InputError(
                f"{table.version} has no storage class {endpoint.storage_class!r} "
                f"(classes: {', '.join(table.classes)})",
                source="--from" if endpoint is options.source else "--to",
            )
    if options.source == options.destination:
        raise InputError("source and destination are the same", source="--to")

    stored = workload.stored_bytes()
    objects = workload.object_count()
    src_class = options.source.storage_class
    dst_class = options.destination.storage_class
    source_usage = workload.usage_for(src_class, source_table.limits)
    assumptions: list[str] = []

    bounds, notes = _duration_bounds(workload, options, objects, stored, source_table, dest_table)
    assumptions += notes
    slowest = max(bounds, key=lambda b: b.hours)
    copy_hours = slowest.hours
    if copy_hours > MAX_COPY_HOURS:
        raise InputError(
            f"the copy would take {copy_hours / 24 / 365:,.0f} years, bound by the {slowest.name} "
            f"({slowest.detail}); planner plans copies of at most {MAX_COPY_HOURS / 24 / 365:.0f} years",
            source="migrate",
            field="--link" if slowest.name == "client link" else None,
        )

    get_ranges = (
        sum(
            share * max(1, min(workload.client.read_streams, math.ceil(size / workload.client.range_size)))
            for size, share in workload.object_sizes()
        )
        if workload.client.read_streams > 1
        else 1.0
    )
    lists = math.ceil(objects / 1000)

    if options.strategy == "bulk":
        one_time, timeline, left_behind = _bulk(
            workload,
            options,
            start,
            months,
            source_table,
            dest_table,
            source_usage,
            stored,
            objects,
            copy_hours,
            get_ranges,
            lists,
            assumptions,
        )
    else:
        one_time, timeline, left_behind = _copy_on_read(
            workload, options, start, months, source_table, dest_table, stored, objects, get_ranges, assumptions
        )
        copy_hours = math.inf if left_behind > 0 else copy_hours

    before = timeline[0].stay_usd
    after_month = bill(dest_table, dst_class, workload.usage_for(dst_class, dest_table.limits)).total_usd
    one_time_total = sum((i.amount_usd for i in one_time), ZERO)
    saving = before - after_month
    payback = float(one_time_total / saving) if saving > 0 else None
    payback_month = next((m.month for m in timeline if m.cumulative_move_usd <= m.cumulative_stay_usd), None)
    return MigrationPlan(
        workload=workload.name,
        source=str(options.source),
        destination=str(options.destination),
        strategy=options.strategy,
        start=start,
        stored_bytes=stored,
        objects=objects,
        one_time_cost_usd=one_time_total,
        one_time=one_time,
        duration_hours=copy_hours,
        bottleneck=slowest.name if options.strategy == "bulk" else "reads (objects move on first read)",
        bounds=bounds,
        monthly_before_usd=before,
        monthly_after_usd=after_month,
        payback_months=payback,
        payback_month=payback_month,
        timeline=timeline,
        left_behind_share=left_behind,
        assumptions=assumptions,
    )


def _bulk(
    workload: Workload,
    options: MigrationOptions,
    start: dt.date,
    months: int,
    source_table: PriceTable,
    dest_table: PriceTable,
    source_usage: Usage,
    stored: int,
    objects: int,
    copy_hours: float,
    get_ranges: float,
    lists: int,
    assumptions: list[str],
) -> tuple[list[LineItem], list[TimelineMonth], float]:
    src_class = options.source.storage_class
    dst_class = options.destination.storage_class
    copy_days = copy_hours / 24
    # The copy may span several billing months: each month's tiers and allowances apply to its share.
    move_months = max(1, math.ceil(copy_days / 30))
    items: list[LineItem] = []
    for index in range(move_months):
        share = 1 / move_months
        extra = _merge(
            source_usage,
            egress_bytes=0 if options.egress_waiver else round(stored * share),
            requests={"get": round(objects * share * get_ranges), "list": round(lists * share)},
            retrieval_bytes=round(stored * share),
            retrieval_requests=round(objects * share) if src_class in ("glacier-flexible", "deep-archive") else 0,
            retrieval_option=options.retrieval_option,
        )
        base = source_usage.model_copy(update={"retrieval_option": options.retrieval_option})
        label = "source" if move_months == 1 else f"source, move month {index + 1}"
        added = {"get": 1, "list": 1}
        increment = _increment(source_table, src_class, base, extra)
        for warning in increment.warnings:
            if f"the move itself: {warning}" not in assumptions:
                assumptions.append(f"the move itself: {warning}")
        items += _relabel(increment.line_items, label, added)
    if options.egress_waiver:
        assumptions.append(f"{options.source.provider} waives internet egress for the move (ask for it in advance)")
    young_share, young_age, why = _young_data(workload, options, source_table.classes[src_class].min_duration_days)
    if why:
        assumptions.append(why)
    if young_share:
        extra = _merge(source_usage, deletions=[Deletion(bytes=round(stored * young_share), age_days=young_age)])
        items += _relabel(_increment(source_table, src_class, source_usage, extra).line_items, "source, deleted early")
    # Destination in the move month: its storage while the copy fills it (half on average) and is
    # verified (full), plus every PUT of the copy; its minimums and free tier apply.
    overlap_days = copy_days / 2 + options.verify_days
    dest_usage = Usage(
        stored_bytes=round(stored * min(overlap_days, 30) / 30),
        object_count=objects,
        requests=_upload_requests(workload, objects, dest_table),
    )
    dest_bill = bill(dest_table, dst_class, dest_usage)
    items += _relabel(
        [i for i in dest_bill.line_items if i.category != "free_allowance"],
        f"destination, move month ({overlap_days:.1f} days of overlap)",
    )
    assumptions.append(
        f"both copies are paid for {overlap_days:.1f} days: half the copy time plus {options.verify_days:g} days "
        "of verification"
    )
    timeline = _timeline(workload, options, start, months, source_table, dest_table, items, lambda m: 1.0)
    return items, timeline, 0.0


def _copy_on_read(
    workload: Workload,
    options: MigrationOptions,
    start: dt.date,
    months: int,
    source_table: PriceTable,
    dest_table: PriceTable,
    stored: int,
    objects: int,
    get_ranges: float,
    assumptions: list[str],
) -> tuple[list[LineItem], list[TimelineMonth], float]:
    """Objects move on first read (as Cloudflare's Sippy does); cold data stays at the source."""
    reads = workload.reads_per_month()
    rate = reads / objects if objects else 0.0

    def moved_share(month: float) -> float:
        # Reads fall uniformly on the objects: the share read at least once by month m is 1 - e^(-rm).
        return 1 - math.exp(-rate * month)

    assumptions.append(
        f"reads fall uniformly on the {objects:,} objects ({reads:,} reads a month): "
        f"{moved_share(1):.1%} of the data moves in the first month, {moved_share(months):.1%} by month {months}"
    )
    src_class = options.source.storage_class
    dst_class = options.destination.storage_class
    items: list[LineItem] = []
    for month in range(months):
        newly = moved_share(month + 1) - moved_share(month)
        moved_objects = round(objects * newly)
        if moved_objects == 0:
            continue
        base = Usage(stored_bytes=round(stored * (1 - moved_share(month))))
        extra = _merge(
            base,
            egress_bytes=0 if options.egress_waiver else round(stored * newly),
            requests={"get": round(moved_objects * get_ranges)},
            retrieval_bytes=round(stored * newly),
        )
        items += _relabel(_increment(source_table, src_class, base, extra).line_items, f"source, month {month + 1}")
        dest_base = Usage(stored_bytes=round(stored * moved_share(month + 1)))
        dest_extra = _merge(dest_base, requests=_upload_requests(workload, moved_objects, dest_table))
        items += _relabel(
            _increment(dest_table, dst_class, dest_base, dest_extra).line_items, f"destination, month {month + 1}"
        )
    left = 1 - moved_share(months)
    if left > 0.001:
        assumptions.append(
            f"{left:.1%} of the data is never read in {months} months and stays at {options.source}, still billed there"
        )
    timeline = _timeline(workload, options, start, months, source_table, dest_table, items, moved_share)
    return items, timeline, left


def _timeline(
    workload: Workload,
    options: MigrationOptions,
    start: dt.date,
    months: int,
    source_table: PriceTable,
    dest_table: PriceTable,
    one_time: list[LineItem],
    share_of: Callable[[float], float],
) -> list[TimelineMonth]:
    """Month by month: staying at the source vs moving (one-time costs where they fall)."""
    src = options.source
    dst = options.destination
    stay_total = move_total = ZERO
    timeline = []
    for month in range(months):
        day = add_months(start, month)
        src_table = price_table(src.provider, day, options.source_prices)
        dst_table = price_table(dst.provider, day, options.destination_prices)
        stay = bill(
            src_table, src.storage_class, workload.usage_for(src.storage_class, src_table.limits, month)
        ).total_usd
        if options.strategy == "bulk":
            # The move month still pays the source's normal bill; the destination takes over after.
            move = (
                stay
                if month == 0
                else bill(
                    dst_table, dst.storage_class, workload.usage_for(dst.storage_class, dst_table.limits, month)
                ).total_usd
            )
            share = 1.0
            if month == 0:
                move += sum((i.amount_usd for i in one_time), ZERO)
        else:
            share = share_of(month + 1)
            after = workload.usage_for(dst.storage_class, dst_table.limits, month)
            before = workload.usage_for(src.storage_class, src_table.limits, month)
            # Reads are served by the destination; what has not moved is still stored (and billed) at the source.
            left = before.model_copy(
                update={
                    "stored_bytes": round(before.stored_bytes * (1 - share)),
                    "egress_bytes": 0,
                    "requests": {},
                    "retrieval_bytes": 0,
                    "deletions": [],
                    "object_count": None,
                }
            )
            kept = after.model_copy(update={"stored_bytes": round(after.stored_bytes * share), "object_count": None})
            move = (
                bill(dst_table, dst.storage_class, kept).total_usd + bill(src_table, src.storage_class, left).total_usd
            )
            prefix = f"month {month + 1}"
            move += sum((i.amount_usd for i in one_time if i.description.split(":")[0].endswith(prefix)), ZERO)
        stay_total += stay
        move_total += move
        timeline.append(
            TimelineMonth(
                month=month + 1,
                as_of=day,
                stay_usd=stay,
                move_usd=move,
                cumulative_stay_usd=stay_total,
                cumulative_move_usd=move_total,
                moved_share=share,
            )
        )
    return timeline


__all__ = ["Endpoint", "MigrationOptions", "MigrationPlan", "estimate_migration"]
