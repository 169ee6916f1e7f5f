"""What a migration adds to each side's bill, as increments the engine computes.

Every one-time charge is the bill of a month with the migration's work added minus the bill without
it, so each side's tiers, free allowances and minimums apply as they would on the invoice: the
source's egress, GETs, LISTs, retrievals and early deletions, the destination's PUTs (multipart
parts as it bills them), its checks and the early deletion of copies that expire soon after they
arrive. Never a formula of its own.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from decimal import Decimal

from planner.decide.migration.models import LIST_PAGE_KEYS, ZERO, Check, MigrationOptions
from planner.evidence import weakest_price
from planner.pricing.bill_lines import round_line
from planner.pricing.billing import bill
from planner.pricing.breakdown import CostBreakdown, LineItem
from planner.pricing.models import PriceTable
from planner.pricing.usage import Deletion, Usage
from planner.workload import Workload

_NOISE = Decimal("1e-6")
_WRITE_OPERATIONS = ("put", "create-multipart", "upload-part", "complete-multipart")


@dataclass
class MonthFlow:
    """What the data did in one month of a timeline, summed over its days (bytes x days for the
    levels, bytes for the flows): the record billing reads."""

    days: int = 0
    source_only: float = 0.0
    source: float = 0.0
    destination: float = 0.0
    total: float = 0.0
    new: float = 0.0
    copied: float = 0.0
    bulk_copied: float = 0.0
    listed_objects: float = 0.0
    verified_objects: float = 0.0
    source_young_bytes: float = 0.0
    """Bytes deleted at the source before its minimum duration."""
    source_young_age_days: float = 0.0
    """Those bytes x their age in days."""
    destination_young_bytes: float = 0.0
    """Copied bytes that expire at the destination before its minimum duration."""
    destination_young_life_days: float = 0.0
    """Those bytes x their life there in days."""


@dataclass(frozen=True)
class MonthPrices:
    """One month's tables and the workload's own month at each side: the same for every strategy."""

    as_of: dt.date
    source_table: PriceTable
    destination_table: PriceTable
    stay_usage: Usage
    destination_usage: Usage
    stay_usd: Decimal
    stay_price_status: str = "verified-primary"


@dataclass(frozen=True)
class BillingContext:
    """The figures every month of every timeline is billed with."""

    workload: Workload
    options: MigrationOptions
    mean_object: float
    source_minimum_days: int
    destination_minimum_days: int
    checks: Check


@dataclass(frozen=True)
class BilledMonth:
    source_usd: Decimal
    destination_usd: Decimal
    one_time: list[LineItem]
    warnings: list[str]
    source_price_status: str = "verified-primary"
    destination_price_status: str = "verified-primary"
    breaches: dict[str, str] = field(default_factory=dict)
    """a side's breach of a provider's policy this month (a free-egress cap), in words, by side"""


def young_deletions(young_bytes: float, age_weighted: float, mean_object: float) -> list[Deletion]:
    """A side's deletions before its minimum duration, from bytes and bytes x their age in days."""
    if young_bytes < 1:
        return []
    objects = round(young_bytes / mean_object) if mean_object else 0
    return [Deletion(bytes=round(young_bytes), objects=objects, age_days=age_weighted / young_bytes)]


def difference(after: CostBreakdown, before: CostBreakdown, table: PriceTable) -> CostBreakdown:
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
        if abs(quantity) < _NOISE or k[2] == 0:
            # unchanged (or changed by float noise in the timeline's byte counts, under a millionth
            # of a unit: a line of 1e-26 GB would otherwise bill AWS's minimum $0.01), or free
            continue
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
        policy_breaches=[b for b in after.policy_breaches if b not in before.policy_breaches],
    )


def relabel(items: list[LineItem], prefix: str, added: dict[str, int] | None = None) -> list[LineItem]:
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


def merge(a: Usage, **extra: object) -> Usage:
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


def upload_requests(workload: Workload, objects: int, table: PriceTable) -> dict[str, int]:
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


def get_ranges(workload: Workload) -> float:
    """GETs per object read: ranged reads split a large object as the client does."""
    if workload.client.read_streams <= 1:
        return 1.0
    return sum(
        share * max(1, min(workload.client.read_streams, math.ceil(size / workload.client.range_size)))
        for size, share in workload.object_sizes()
    )


def side_bill(table: PriceTable, storage_class: str, usage: Usage) -> CostBreakdown | None:
    """A side with nothing stored and nothing done is no account at all: no bill, no minimums."""
    if not usage.stored_bytes and not any(usage.requests.values()) and not usage.egress_bytes and not usage.deletions:
        return None
    return bill(table, storage_class, usage)


def total(breakdown: CostBreakdown | None) -> Decimal:
    return ZERO if breakdown is None else breakdown.total_usd


def price_status(breakdown: CostBreakdown | None) -> str:
    """The weakest sourcing among the prices a side's bill rests on (no bill: nothing unverified)."""
    return (
        weakest_price(i.price_status.value for i in breakdown.line_items)
        if breakdown is not None
        else "verified-primary"
    )


def _scaled_requests(requests: dict[str, int], read_share: float, delete_share: float, writes: bool) -> dict[str, int]:
    scaled = {}
    for op, count in requests.items():
        if op in _WRITE_OPERATIONS:
            share = 1.0 if writes else 0.0
        elif op == "delete":
            share = delete_share
        else:
            share = read_share
        if round(count * share):
            scaled[op] = round(count * share)
    return scaled


def scaled(
    usage: Usage, stored: float, read_share: float, delete_share: float, writes: bool, mean_object: float
) -> Usage:
    """The workload's month at one side: its share of the bytes, reads, deletions; all writes or none."""
    bins = None
    if usage.object_sizes is not None and usage.stored_bytes:
        factor = stored / usage.stored_bytes
        bins = [b.model_copy(update={"count": round(b.count * factor)}) for b in usage.object_sizes]
    return usage.model_copy(
        update={
            "stored_bytes": round(stored),
            "object_count": None if bins is not None else (round(stored / mean_object) if mean_object else 0),
            "object_sizes": bins,
            "requests": _scaled_requests(usage.requests, read_share, delete_share, writes),
            "egress_bytes": round(usage.egress_bytes * read_share),
            "inter_region_bytes": round(usage.inter_region_bytes * read_share),
            "retrieval_bytes": round(usage.retrieval_bytes * read_share),
            "retrieval_requests": round(usage.retrieval_requests * read_share),
            "deletions": [
                d.model_copy(
                    update={"bytes": round(d.bytes * delete_share), "objects": round(d.objects * delete_share)}
                )
                for d in usage.deletions
                if round(d.bytes * delete_share)
            ],
        }
    )


def _source_usages(
    flow: MonthFlow, prices: MonthPrices, context: BillingContext, reads_follow_copies: bool
) -> tuple[Usage, Usage]:
    """The source's month without the move's work and with it (egress, GETs, LISTs, retrievals, the
    copies it keeps until verified, deletions before its minimum duration)."""
    options, mean_object = context.options, context.mean_object
    days = flow.days or 1
    source_only, source_held, total_bytes = flow.source_only / days, flow.source / days, flow.total / days
    read_at_source = 0.0 if reads_follow_copies else (source_only / total_bytes if total_bytes else 0.0)
    delete_share = source_held / total_bytes if total_bytes else 0.0
    base = scaled(prices.stay_usage, source_only, read_at_source, delete_share, False, mean_object)
    base = base.model_copy(update={"retrieval_option": options.retrieval_option})
    copied_objects = round(flow.copied / mean_object) if mean_object else 0
    list_pages = math.ceil(flow.listed_objects / LIST_PAGE_KEYS) if flow.listed_objects else 0
    young_deleted = young_deletions(flow.source_young_bytes, flow.source_young_age_days, mean_object)
    # the source also keeps the copies it has not deleted yet: stored as the workload's objects are
    kept_usage = scaled(prices.stay_usage, source_held, 0.0, 0.0, False, mean_object)
    restores = prices.source_table.restore_required(options.source.storage_class)
    extra = merge(
        base,
        stored_bytes=kept_usage.stored_bytes,
        object_count=kept_usage.object_count,
        object_sizes=kept_usage.object_sizes,
        egress_bytes=0 if options.egress_waiver else round(flow.copied),
        requests={"get": round(copied_objects * get_ranges(context.workload)), "list": list_pages},
        retrieval_bytes=round(flow.copied),
        retrieval_requests=copied_objects if restores else 0,
        deletions=young_deleted,
    )
    return base, extra


def _destination_usages(
    flow: MonthFlow, prices: MonthPrices, context: BillingContext, reads_follow_copies: bool
) -> tuple[Usage, Usage, dict[str, int]]:
    """The destination's month without the move's work and with it (uploads, checks, copies that
    expire before its minimum duration), and the request counts the move adds."""
    mean_object = context.mean_object
    days = flow.days or 1
    source_only, total_bytes = flow.source_only / days, flow.total / days
    read_at_source = 0.0 if reads_follow_copies else (source_only / total_bytes if total_bytes else 0.0)
    base = scaled(
        prices.destination_usage,
        flow.destination / days,
        1 - read_at_source,
        # copies expire at the destination younger than their age: charged below, not here
        flow.new / days / total_bytes if total_bytes else 0.0,
        True,
        mean_object,
    )
    check_requests: dict[str, int] = {}
    if context.checks == "head":
        check_requests["head"] = round(flow.bulk_copied / mean_object) if mean_object else 0
    if flow.verified_objects:
        check_requests["list"] = math.ceil(flow.verified_objects / LIST_PAGE_KEYS)
    expiring = young_deletions(flow.destination_young_bytes, flow.destination_young_life_days, mean_object)
    copied_objects = round(flow.copied / mean_object) if mean_object else 0
    table = prices.destination_table
    uploads = upload_requests(context.workload, copied_objects, table) if copied_objects else {}
    extra = merge(base, requests={**uploads, **{op: n for op, n in check_requests.items() if n}})
    extra = merge(extra, deletions=expiring)
    return base, extra, {**uploads, **check_requests}


def _move_items(
    before: CostBreakdown | None, after: CostBreakdown, table: PriceTable, minimum_days: int
) -> CostBreakdown:
    """One side's increment; a side opened only by the move bills its whole account to it."""
    empty = CostBreakdown(
        provider=after.provider,
        storage_class=after.storage_class,
        table_version=after.table_version,
        line_items=[],
        total_usd=ZERO,
        warnings=[],
    )
    increment = difference(after, before or empty, table)
    if before is None:
        # a side opened only by the move: its whole bill is the move's, free lines aside
        increment = increment.model_copy(
            update={"line_items": [i for i in increment.line_items if i.category != "free_allowance"]}
        )
    described = [
        i.model_copy(
            update={
                "description": f"deleted before the {minimum_days}-day minimum by the move "
                "(source copies removed, or copies that expire soon after they arrive)"
            }
        )
        if i.category == "early_deletion"
        else i
        for i in increment.line_items
    ]
    return increment.model_copy(update={"line_items": described})


def bill_month(
    index: int, flow: MonthFlow, prices: MonthPrices, context: BillingContext, reads_follow_copies: bool
) -> BilledMonth:
    """Both sides' bills for one month of a timeline, and the line items the move adds to them."""
    options = context.options
    source_base, source_extra = _source_usages(flow, prices, context, reads_follow_copies)
    destination_base, destination_extra, destination_added = _destination_usages(
        flow, prices, context, reads_follow_copies
    )
    source_after = side_bill(prices.source_table, options.source.storage_class, source_extra)
    destination_after = side_bill(prices.destination_table, options.destination.storage_class, destination_extra)
    sides = (
        (
            "source",
            prices.source_table,
            side_bill(prices.source_table, options.source.storage_class, source_base),
            source_after,
            {"get": 1, "list": 1},
            context.source_minimum_days,
        ),
        (
            "destination",
            prices.destination_table,
            side_bill(prices.destination_table, options.destination.storage_class, destination_base),
            destination_after,
            destination_added,
            context.destination_minimum_days,
        ),
    )
    items: list[LineItem] = []
    warnings: list[str] = []
    for side, table, before, after, added, minimum_days in sides:
        if after is None:
            continue
        increment = _move_items(before, after, table, minimum_days)
        items += relabel(increment.line_items, f"month {index + 1}, {side}", added)
        warnings += [w for w in increment.warnings if w not in warnings]
    breaches = {
        side: after.policy_breaches[0].statement
        for side, after in (("source", source_after), ("destination", destination_after))
        if after is not None and after.policy_breaches
    }
    return BilledMonth(
        source_usd=total(source_after),
        destination_usd=total(destination_after),
        one_time=items,
        warnings=warnings,
        breaches=breaches,
        source_price_status=price_status(source_after),
        destination_price_status=price_status(destination_after),
    )
