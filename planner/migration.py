"""Moving a workload between providers: where each byte lives month by month, what each side bills.

One timeline per strategy (bulk copy, copy-on-read, age-out, hybrid) follows the data stored at the
start: where it is each day, when it is copied, when it expires. Each month is billed on both sides
from that state, and the headline figures (duration, one-time cost, payback month) are read from the
timeline, never computed beside it.

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
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.costing import add_months, price_table
from planner.errors import InputError
from planner.evidence import Evidence, weakest
from planner.measure.profile import ProfileSummary
from planner.pricing.engine import bill, round_line
from planner.pricing.models import CostBreakdown, Deletion, LineItem, Money, PriceTable, Usage
from planner.units import format_bytes, format_duration, format_rate
from planner.workload import DAY_S, MONTH_S, Workload

ZERO = Decimal(0)
_NOISE = Decimal("1e-6")
MAX_COPY_HOURS = 10 * 365 * 24
"""A copy longer than ten years (the longest horizon) is not a plan: it is refused, naming its bound."""
Strategy = Literal["bulk", "copy-on-read", "age-out", "hybrid"]
STRATEGIES: tuple[Strategy, ...] = ("bulk", "copy-on-read", "age-out", "hybrid")
PREFERENCE: tuple[Strategy, ...] = ("age-out", "hybrid", "copy-on-read", "bulk")
"""On equal cost, the strategy that copies less."""
CopyHost = Literal["on-premises", "source-region", "destination-service"]
Check = Literal["list", "head", "none"]
LIST_PAGE_KEYS = 1000
"""Keys per LIST page (ListObjectsV2 returns at most 1,000 keys a request)."""
DESTINATION_SERVICES = {"cloudflare-r2": "Super Slurper (bulk) and Sippy (copy-on-read)"}
"""Destinations with their own migration service (developers.cloudflare.com/r2/data-migration/)."""


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
    strategy: Strategy | None = Field(None, description="force one strategy; default: the cheapest within the horizon")
    copy_host: CopyHost = Field(
        "on-premises",
        description="where the copy runs: a host outside both clouds, a VM in the source's region, "
        "or the destination's own migration service",
    )
    check: Check = Field(
        "list",
        description="how the copy tool checks the destination: one listing (1,000 keys a page), "
        "a HEAD per object, or not at all",
    )
    never_read_share: float = Field(0.0, ge=0, le=1, description="copy-on-read: share of objects never read")
    sweep_after_days: float | None = Field(
        None, ge=0, description="copy-on-read: bulk-copy what is still at the source after this many days"
    )
    age_out_within_days: float | None = Field(
        None, gt=0, description="hybrid: data expiring within this many days ages out (default: the horizon)"
    )
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
    stay_usd: Money = Field(description="the source's bill had the workload stayed")
    source_usd: Money = Field(description="the source's bill while moving, one-time charges included")
    destination_usd: Money = Field(description="the destination's bill while moving, one-time charges included")
    move_usd: Money = Field(description="source_usd + destination_usd")
    one_time_usd: Money = Field(description="the part of move_usd the migration itself adds (its line items)")
    cumulative_stay_usd: Money
    cumulative_move_usd: Money
    source_bytes: int = Field(description="bytes billed at the source, average over the month")
    destination_bytes: int = Field(description="bytes billed at the destination, average over the month")
    copied_bytes: int = Field(description="bytes copied from the source this month")
    at_source_share: float = Field(description="share of the stored bytes whose only copy is at the source, month end")
    moved_share: float = Field(description="share of the stored bytes not (only) at the source by the end of the month")
    completed_day: float | None = Field(
        None, description="day from the start on which the source stopped holding the only copy of any data"
    )


class StrategyOutcome(_Model):
    """One strategy's totals within the horizon, read from its timeline, or why it does not apply."""

    strategy: Strategy
    applicable: bool
    reason: str = ""
    total_move_usd: Money | None = None
    one_time_cost_usd: Money | None = None
    duration_days: float | None = None
    duration_evidence: Evidence | None = Field(
        None,
        description="the evidence of the copy bound that sets the duration; None where the workload's own "
        "figures (retention, reads) or the user's link set it",
    )
    payback_month: int | None = None


class MigrationPlan(_Model):
    workload: str
    source: str
    destination: str
    strategy: Strategy
    chosen_because: str
    start: dt.date
    stored_bytes: int
    objects: int
    copy_host: CopyHost
    one_time_cost_usd: Money = Field(description="sum of the timeline's one_time_usd")
    one_time: list[LineItem]
    duration_hours: float = Field(
        description="from the timeline: when the source holds no data only it has; inf if not within the horizon"
    )
    bottleneck: str
    duration_evidence: Evidence | None = Field(None, description="as StrategyOutcome.duration_evidence")
    bounds: list[DurationBound]
    monthly_before_usd: Money = Field(description="the timeline's first month of staying")
    monthly_after_usd: Money = Field(description="the timeline's last month of moving")
    payback_month: int | None = Field(description="first month whose cumulative cost of moving is at most staying's")
    timeline: list[TimelineMonth]
    compared: list[StrategyOutcome]
    left_behind_share: float = Field(
        0.0, description="share of the stored bytes still only at the source at the horizon"
    )
    assumptions: list[str] = Field(default_factory=list)


def _increment(table: PriceTable, storage_class: str, base: Usage, extra: Usage) -> CostBreakdown:
    """The bill of base + extra minus the bill of base, by category, as line items."""
    before = bill(table, storage_class, base)
    after = bill(table, storage_class, extra)
    return _difference(after, before, table)


def _young_deletions(young: tuple[float, float], mean_object: float) -> list[Deletion]:
    """A side's deletions before its minimum duration, from (bytes, bytes x their age in days)."""
    deleted, age_weighted = young
    if deleted < 1:
        return []
    objects = round(deleted / mean_object) if mean_object else 0
    return [Deletion(bytes=round(deleted), objects=objects, age_days=age_weighted / deleted)]


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
    from planner.recommendation import reference_summaries, stream_rate

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
        stream = stream_rate(summary.get_stream_bytes_per_s, mean)
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


class _Part(_Model):
    """A slice of the data stored at the start, with one schedule: copied by day t, kept at the source.

    Remaining lives at day 0 are uniform over [lo, hi] days (steady state under a retention), a
    single value when lo == hi (all data of one age), or unbounded (no retention).
    """

    share: float
    lo: float = math.inf
    hi: float = math.inf
    kind: Literal["bulk", "copy-on-read", "age-out"]
    copy_days: float = 0.0
    """bulk: days the copy of this part takes; copy-on-read: days the sweep takes for all of it."""
    sweep_day: float | None = None
    read_done_day: float = math.inf
    """copy-on-read: day from which fewer than one object is expected still unread."""

    def alive(self, t: float) -> float:
        """Share of this part's bytes not yet expired at day t."""
        if math.isinf(self.hi):
            return 1.0
        if self.hi <= self.lo:
            return 1.0 if t < self.lo else 0.0
        return min(1.0, max(0.0, (self.hi - max(self.lo, t)) / (self.hi - self.lo)))

    def remaining(self, t: float) -> tuple[float, float]:
        """Bounds of the remaining lives of the bytes still alive at day t."""
        return max(self.lo, t) - t, self.hi - t


def _coverage(workload: Workload, options: MigrationOptions, objects: int) -> Callable[[float], float]:
    """Share of the objects read at least once by day t (each read moves its object, as Sippy does).

    Uniform reads are the coupon collector's draws: after k reads over N objects the expected share
    never drawn is (1 - 1/N)^k. Hot objects take their share of the reads among themselves; a
    never-read share of the rest is never drawn at all.
    """
    reads_per_day = workload.reads_per_month() * DAY_S / MONTH_S
    hot = workload.traffic.hot_objects
    hot_count = min(hot.count, objects) if hot is not None and hot.share_of_reads > 0 else 0
    hot_share = hot.share_of_reads if hot is not None and hot_count else 0.0
    cold_readable = (objects - hot_count) * (1 - options.never_read_share)

    def drawn(population: float, draws: float) -> float:
        if population <= 0 or draws <= 0:
            return 0.0
        if population <= 1:
            return population
        return population * -math.expm1(draws * math.log1p(-1 / population))

    def coverage(t: float) -> float:
        if not objects:
            return 1.0
        covered = drawn(hot_count, hot_share * reads_per_day * t) + drawn(
            cold_readable, (1 - hot_share) * reads_per_day * t
        )
        return min(1.0, covered / objects)

    return coverage


def _reads_done_day(workload: Workload, options: MigrationOptions, objects: int) -> float:
    """Day from which fewer than one object is expected never to have been read (inf if some never are).

    N objects drawn uniformly r times a day keep N (1 - 1/N)^(r t) unread: below one after
    t = ln N / (-r ln(1 - 1/N)), about N ln N / r (the coupon collector's N H_N draws, less N x 0.58).
    """
    reads_per_day = workload.reads_per_month() * DAY_S / MONTH_S
    hot = workload.traffic.hot_objects
    hot_count = min(hot.count, objects) if hot is not None and hot.share_of_reads > 0 else 0
    hot_share = hot.share_of_reads if hot is not None and hot_count else 0.0
    cold = objects - hot_count
    if cold and options.never_read_share > 0:
        return math.inf

    def done(population: int, per_day: float) -> float:
        if population <= 1:
            return 0.0 if population == 0 else (math.inf if per_day <= 0 else 1 / per_day)
        if per_day <= 0:
            return math.inf
        return math.log(population) / (-per_day * math.log1p(-1 / population))

    return max(done(hot_count, hot_share * reads_per_day), done(cold, (1 - hot_share) * reads_per_day))


def _copied(part: _Part, t: float, coverage: Callable[[float], float], verify_days: float) -> tuple[float, float]:
    """(share of the part's live bytes copied by day t, share still held at the source)."""
    if part.kind == "age-out":
        return 0.0, 1.0
    if part.kind == "bulk":
        copied = 1.0 if part.copy_days <= 0 else min(1.0, t / part.copy_days)
        return copied, 1.0 if t < part.copy_days + verify_days else 0.0
    if part.sweep_day is not None and t > part.sweep_day:
        before = coverage(part.sweep_day)
        rest_days = part.copy_days * (1 - before)
        swept = 1.0 if rest_days <= 0 else min(1.0, (t - part.sweep_day) / rest_days)
        copied = before + (1 - before) * swept
    else:
        copied = coverage(t)
    return copied, 1 - copied


def _done_day(part: _Part, coverage: Callable[[float], float]) -> tuple[float, bool]:
    """(day from which the source holds no byte of this part that only it has, whether a copy ends it)."""
    if part.kind == "bulk":
        copied = part.copy_days
    elif part.kind == "copy-on-read" and part.sweep_day is not None:
        copied = min(part.read_done_day, part.sweep_day + part.copy_days * (1 - coverage(part.sweep_day)))
    elif part.kind == "copy-on-read":
        copied = part.read_done_day
    else:
        copied = math.inf
    expired = part.hi if not math.isinf(part.hi) else math.inf
    return min(copied, expired), copied < expired


def _young(low: float, high: float, minimum: float) -> tuple[float, float]:
    """(share below ``minimum``, their mean) of a value uniform over [low, high] (a point if equal)."""
    if minimum <= 0 or low >= minimum:
        return 0.0, 0.0
    if high <= low:
        return 1.0, low
    upper = min(minimum, high)
    return (upper - low) / (high - low), (low + upper) / 2


@dataclass
class _Month:
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
    source_young: tuple[float, float] = (0.0, 0.0)
    """(bytes deleted at the source before its minimum duration, bytes x their age in days)."""
    destination_young: tuple[float, float] = (0.0, 0.0)
    """(copied bytes that expire at the destination before its minimum duration, bytes x their life there)."""


def _scaled(
    usage: Usage, stored: float, read_share: float, delete_share: float, writes: bool, mean_object: float
) -> Usage:
    """The workload's month at one side: its share of the bytes, reads, deletions; all writes or none."""
    write_ops = ("put", "create-multipart", "upload-part", "complete-multipart")
    requests = {}
    for op, count in usage.requests.items():
        if op in write_ops:
            share = 1.0 if writes else 0.0
        elif op == "delete":
            share = delete_share
        else:
            share = read_share
        if round(count * share):
            requests[op] = round(count * share)
    bins = None
    if usage.object_sizes is not None and usage.stored_bytes:
        factor = stored / usage.stored_bytes
        bins = [b.model_copy(update={"count": round(b.count * factor)}) for b in usage.object_sizes]
    return usage.model_copy(
        update={
            "stored_bytes": round(stored),
            "object_count": None if bins is not None else (round(stored / mean_object) if mean_object else 0),
            "object_sizes": bins,
            "requests": requests,
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


def _side_bill(table: PriceTable, storage_class: str, usage: Usage) -> CostBreakdown | None:
    """A side with nothing stored and nothing done is no account at all: no bill, no minimums."""
    if not usage.stored_bytes and not any(usage.requests.values()) and not usage.egress_bytes and not usage.deletions:
        return None
    return bill(table, storage_class, usage)


def _total(breakdown: CostBreakdown | None) -> Decimal:
    return ZERO if breakdown is None else breakdown.total_usd


class _Run(_Model):
    strategy: Strategy
    timeline: list[TimelineMonth]
    one_time: list[LineItem]
    done_day: float
    done_by_copy: bool
    warnings: list[str]


def _run(
    strategy: Strategy,
    parts: list[_Part],
    workload: Workload,
    options: MigrationOptions,
    start: dt.date,
    months: int,
    coverage: Callable[[float], float],
) -> _Run:
    """Day by day, where the data stored at the start lives; month by month, what each side bills."""
    src, dst = options.source, options.destination
    stored = workload.stored_bytes()
    objects = workload.object_count()
    mean_object = workload.storage.mean_object_bytes or (stored / objects if objects else 0.0)
    bounds = [start] + [add_months(start, m + 1) for m in range(months)]
    first_source = price_table(src.provider, start, options.source_prices)
    first_destination = price_table(dst.provider, start, options.destination_prices)
    source_minimum = first_source.classes[src.storage_class].min_duration_days
    destination_minimum = first_destination.classes[dst.storage_class].min_duration_days
    retention_days = workload.storage.retention / DAY_S if workload.storage.retention is not None else None
    checks = "none" if options.copy_host == "destination-service" else options.check

    def state(t: float) -> tuple[float, float, float]:
        """(bytes only at the source, bytes held at the source, start-of-move bytes copied) at day t."""
        only = held = copied_bytes = 0.0
        for part in parts:
            alive = stored * part.share * part.alive(t)
            copied, kept = _copied(part, t, coverage, options.verify_days)
            only += alive * (1 - copied)
            held += alive * kept
            copied_bytes += alive * copied
        return only, held, copied_bytes

    agg = [_Month() for _ in range(months)]
    for index in range(months):
        month = agg[index]
        first_day = (bounds[index] - start).days
        last_day = (bounds[index + 1] - start).days
        total_now = float(workload.stored_bytes(index))
        src_young = [0.0, 0.0]
        dst_young = [0.0, 0.0]
        for day in range(first_day, last_day):
            t0, t1, middle = float(day), float(day + 1), day + 0.5
            only, held, copied_bytes = state(middle)
            legacy = sum(stored * p.share * p.alive(middle) for p in parts)
            new = max(0.0, total_now - legacy)
            month.days += 1
            month.source_only += only
            month.source += held
            month.destination += copied_bytes + new
            month.new += new
            month.total += only + copied_bytes + new
            for part in parts:
                if not part.alive(t0):
                    continue
                c0, k0 = _copied(part, t0, coverage, options.verify_days)
                c1, k1 = _copied(part, t1, coverage, options.verify_days)
                # a bulk copy that ends within the day copies at the middle of its own part of the day
                copy_at = (t0 + min(t1, part.copy_days)) / 2 if part.kind == "bulk" and part.copy_days > t0 else middle
                alive = stored * part.share * part.alive(copy_at)
                moved_today = alive * max(0.0, c1 - c0)
                month.copied += moved_today
                if part.kind == "bulk" or (part.sweep_day is not None and t0 >= part.sweep_day):
                    month.bulk_copied += moved_today
                    starts = (
                        day == 0 if part.kind == "bulk" else part.sweep_day is not None and t0 <= part.sweep_day < t1
                    )
                    if starts and mean_object:
                        # the copy tool pages through every key still at the source, copied or not
                        at_source = sum(
                            stored
                            * other.share
                            * other.alive(t0)
                            * _copied(other, t0, coverage, options.verify_days)[1]
                            for other in parts
                        )
                        month.listed_objects += at_source / mean_object
                low, high = part.remaining(copy_at)
                if moved_today and not math.isinf(high):
                    share, mean_life = _young(low, high, destination_minimum)
                    dst_young[0] += moved_today * share
                    dst_young[1] += moved_today * share * mean_life
                # a bulk copy's source is deleted at one moment: the end of its verification
                when = part.copy_days + options.verify_days if part.kind == "bulk" else middle
                deleted = stored * part.share * part.alive(when) * max(0.0, k0 - k1)
                low, high = part.remaining(when)
                if deleted and source_minimum:
                    if retention_days is not None and not math.isinf(high):
                        share, mean_age = _young(retention_days - high, retention_days - low, source_minimum)
                    elif options.data_age_days is not None:
                        share, mean_age = _young(
                            options.data_age_days + when, options.data_age_days + when, source_minimum
                        )
                    else:
                        share, mean_age = 0.0, 0.0
                    src_young[0] += deleted * share
                    src_young[1] += deleted * share * mean_age
        month.source_young = (src_young[0], src_young[1])
        month.destination_young = (dst_young[0], dst_young[1])
    # The destination is checked once the bulk copy is over: a listing of what was copied, or a HEAD each.
    bulk_objects = sum(m.bulk_copied for m in agg) / mean_object if mean_object else 0.0
    last_bulk = max((i for i, m in enumerate(agg) if m.bulk_copied), default=None)
    if last_bulk is not None and checks == "list":
        agg[last_bulk].verified_objects = bulk_objects

    done_day, done_by_copy = max((_done_day(p, coverage) for p in parts), default=(0.0, False))
    timeline: list[TimelineMonth] = []
    one_time: list[LineItem] = []
    warnings: list[str] = []
    stay_total = move_total = ZERO
    for index, month in enumerate(agg):
        as_of = bounds[index]
        src_table = price_table(src.provider, as_of, options.source_prices)
        dst_table = price_table(dst.provider, as_of, options.destination_prices)
        stay_usage = workload.usage_for(src.storage_class, src_table.limits, index)
        stay = bill(src_table, src.storage_class, stay_usage).total_usd
        days = month.days or 1
        source_only, source_held = month.source_only / days, month.source / days
        destination_bytes, total = month.destination / days, month.total / days
        read_at_source = 0.0 if strategy == "copy-on-read" else (source_only / total if total else 0.0)
        source_base = _scaled(
            stay_usage, source_only, read_at_source, source_held / total if total else 0.0, False, mean_object
        )
        source_base = source_base.model_copy(update={"retrieval_option": options.retrieval_option})
        copied_objects = round(month.copied / mean_object) if mean_object else 0
        list_pages = math.ceil(month.listed_objects / LIST_PAGE_KEYS) if month.listed_objects else 0
        young_deleted = _young_deletions(month.source_young, mean_object)
        # the source also keeps the copies it has not deleted yet: stored as the workload's objects are
        kept_usage = _scaled(stay_usage, source_held, 0.0, 0.0, False, mean_object)
        source_extra = _merge(
            source_base,
            stored_bytes=kept_usage.stored_bytes,
            object_count=kept_usage.object_count,
            object_sizes=kept_usage.object_sizes,
            egress_bytes=0 if options.egress_waiver else round(month.copied),
            requests={"get": round(copied_objects * _get_ranges(workload)), "list": list_pages},
            retrieval_bytes=round(month.copied),
            retrieval_requests=copied_objects if src_table.restore_required(src.storage_class) else 0,
            deletions=young_deleted,
        )
        destination_base = _scaled(
            workload.usage_for(dst.storage_class, dst_table.limits, index),
            destination_bytes,
            1 - read_at_source,
            # copies expire at the destination younger than their age: charged below, not here
            month.new / days / total if total else 0.0,
            True,
            mean_object,
        )
        check_requests: dict[str, int] = {}
        if checks == "head":
            check_requests["head"] = round(month.bulk_copied / mean_object) if mean_object else 0
        if month.verified_objects:
            check_requests["list"] = math.ceil(month.verified_objects / LIST_PAGE_KEYS)
        expiring = _young_deletions(month.destination_young, mean_object)
        uploads = _upload_requests(workload, copied_objects, dst_table) if copied_objects else {}
        destination_extra = _merge(
            destination_base, requests={**uploads, **{op: n for op, n in check_requests.items() if n}}
        )
        destination_extra = _merge(destination_extra, deletions=expiring)
        source_before = _side_bill(src_table, src.storage_class, source_base)
        source_after = _side_bill(src_table, src.storage_class, source_extra)
        destination_before = _side_bill(dst_table, dst.storage_class, destination_base)
        destination_after = _side_bill(dst_table, dst.storage_class, destination_extra)
        month_items: list[LineItem] = []
        for side, table, before, after, added in (
            ("source", src_table, source_before, source_after, {"get": 1, "list": 1}),
            ("destination", dst_table, destination_before, destination_after, {**uploads, **check_requests}),
        ):
            if after is None:
                continue
            empty = CostBreakdown(
                provider=after.provider,
                storage_class=after.storage_class,
                table_version=after.table_version,
                line_items=[],
                total_usd=ZERO,
                warnings=[],
            )
            increment = _difference(after, before or empty, table)
            if before is None:
                # a side opened only by the move: its whole bill is the move's, free lines aside
                increment = increment.model_copy(
                    update={"line_items": [i for i in increment.line_items if i.category != "free_allowance"]}
                )
            minimum = source_minimum if side == "source" else destination_minimum
            described = [
                i.model_copy(
                    update={
                        "description": f"deleted before the {minimum}-day minimum by the move "
                        "(source copies removed, or copies that expire soon after they arrive)"
                    }
                )
                if i.category == "early_deletion"
                else i
                for i in increment.line_items
            ]
            month_items += _relabel(described, f"month {index + 1}, {side}", added)
            warnings += [w for w in increment.warnings if w not in warnings]
        one_time += month_items
        source_usd, destination_usd = _total(source_after), _total(destination_after)
        move = source_usd + destination_usd
        stay_total += stay
        move_total += move
        end_only, _, _ = state(float((bounds[index + 1] - start).days))
        end_total = float(workload.stored_bytes(index)) or 1.0
        first_day = (bounds[index] - start).days
        last_day = (bounds[index + 1] - start).days
        timeline.append(
            TimelineMonth(
                month=index + 1,
                as_of=as_of,
                stay_usd=stay,
                source_usd=source_usd,
                destination_usd=destination_usd,
                move_usd=move,
                one_time_usd=sum((i.amount_usd for i in month_items), ZERO),
                cumulative_stay_usd=stay_total,
                cumulative_move_usd=move_total,
                source_bytes=round(source_held),
                destination_bytes=round(destination_bytes),
                copied_bytes=round(month.copied),
                at_source_share=min(1.0, end_only / end_total),
                moved_share=max(0.0, 1 - end_only / end_total),
                completed_day=done_day if first_day < done_day <= last_day else None,
            )
        )
    return _Run(
        strategy=strategy,
        timeline=timeline,
        one_time=one_time,
        done_day=done_day,
        done_by_copy=done_by_copy,
        warnings=warnings,
    )


def _get_ranges(workload: Workload) -> float:
    """GETs per object read: ranged reads split a large object as the client does."""
    if workload.client.read_streams <= 1:
        return 1.0
    return sum(
        share * max(1, min(workload.client.read_streams, math.ceil(size / workload.client.range_size)))
        for size, share in workload.object_sizes()
    )


def _parts(
    strategy: Strategy, workload: Workload, options: MigrationOptions, copy_days: float | None, cutoff_days: float
) -> list[_Part] | str:
    """The strategy's slices of the data stored at the start, or why the strategy does not apply."""
    retention = workload.storage.retention / DAY_S if workload.storage.retention is not None else None
    if retention is None:
        lo = hi = math.inf
    elif options.data_age_days is not None:
        lo = hi = max(0.0, retention - options.data_age_days)
    else:
        lo, hi = 0.0, retention
    if strategy == "bulk":
        if copy_days is None:
            return "the copy would take longer than planner plans for"
        return [_Part(share=1.0, lo=lo, hi=hi, kind="bulk", copy_days=copy_days)]
    if strategy == "copy-on-read":
        if options.sweep_after_days is not None and copy_days is None:
            return "the sweep's copy would take longer than planner plans for"
        return [
            _Part(
                share=1.0,
                lo=lo,
                hi=hi,
                kind="copy-on-read",
                read_done_day=_reads_done_day(workload, options, workload.object_count()),
                copy_days=copy_days or 0.0,
                sweep_day=options.sweep_after_days,
            )
        ]
    if retention is None:
        return "the workload states no retention (storage.retention): its data never ages out"
    if strategy == "age-out":
        return [_Part(share=1.0, lo=lo, hi=hi, kind="age-out")]
    within = cutoff_days
    if hi <= within:
        return f"all the data expires within {within:g} days: the hybrid is age-out"
    if lo >= within:
        return f"no data expires within {within:g} days: the hybrid is a bulk copy"
    if copy_days is None:
        return "the copy would take longer than planner plans for"
    aged = (within - lo) / (hi - lo)
    return [
        _Part(share=aged, lo=lo, hi=within, kind="age-out"),
        _Part(share=1 - aged, lo=within, hi=hi, kind="bulk", copy_days=copy_days * (1 - aged)),
    ]


def _usd(amount: Decimal) -> str:
    return f"${amount:,.2f}"


def estimate_migration(workload: Workload, options: MigrationOptions) -> MigrationPlan:
    """Plan a move of ``workload`` from ``options.source`` to ``options.destination``.

    Every applicable strategy is run on its own timeline; the cheapest within the horizon is chosen
    unless ``options.strategy`` forces one.
    """
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
    if options.copy_host == "destination-service" and options.destination.provider not in DESTINATION_SERVICES:
        raise InputError(
            f"{options.destination.provider} has no migration service planner knows of "
            f"(known: {', '.join(f'{p}: {s}' for p, s in DESTINATION_SERVICES.items())})",
            source="--copy-from",
        )

    stored = workload.stored_bytes()
    objects = workload.object_count()
    assumptions: list[str] = []
    bounds, notes = _duration_bounds(workload, options, objects, stored, source_table, dest_table)
    if options.copy_host == "destination-service":
        bounds = [
            b.model_copy(
                update={
                    "name": "copy service rate",
                    "detail": f"{b.detail}: the service's rate is not published, the given link stands in for it",
                }
            )
            if b.name == "client link"
            else b
            for b in bounds
        ]
    assumptions += notes
    slowest = max(bounds, key=lambda b: b.hours)
    if slowest.hours > MAX_COPY_HOURS:
        raise InputError(
            f"the copy would take {slowest.hours / 24 / 365:,.0f} years, bound by the {slowest.name} "
            f"({slowest.detail}); planner plans copies of at most {MAX_COPY_HOURS / 24 / 365:.0f} years",
            source="migrate",
            field="--link" if slowest.name == "client link" else None,
        )
    copy_days: float | None = slowest.hours / 24
    horizon_days = float((add_months(start, months) - start).days)
    coverage = _coverage(workload, options, objects)

    cutoff_days, cutoff_note = _age_out_cutoff(workload, options, start, horizon_days)
    compared: list[StrategyOutcome] = []
    runs: dict[Strategy, _Run] = {}
    for strategy in STRATEGIES:
        parts = _parts(strategy, workload, options, copy_days, cutoff_days)
        if isinstance(parts, str):
            compared.append(StrategyOutcome(strategy=strategy, applicable=False, reason=parts))
            continue
        run = _run(strategy, parts, workload, options, start, months, coverage)
        runs[strategy] = run
        compared.append(
            StrategyOutcome(
                strategy=strategy,
                applicable=True,
                total_move_usd=run.timeline[-1].cumulative_move_usd,
                one_time_cost_usd=sum((m.one_time_usd for m in run.timeline), ZERO),
                duration_days=_duration_days(run.timeline),
                duration_evidence=slowest.evidence if run.done_by_copy else None,
                payback_month=_payback_month(run.timeline),
            )
        )
    if options.strategy is not None:
        if options.strategy not in runs:
            (outcome,) = [c for c in compared if c.strategy == options.strategy]
            raise InputError(f"{options.strategy} does not apply: {outcome.reason}", source="--strategy")
        chosen = options.strategy
        because = f"forced by --strategy {chosen}"
    else:
        if not runs:
            raise InputError(
                "no strategy applies: " + "; ".join(f"{c.strategy}: {c.reason}" for c in compared), source="migrate"
            )
        chosen = min(runs, key=lambda s: (runs[s].timeline[-1].cumulative_move_usd, PREFERENCE.index(s)))
        because = _why(chosen, {s: r.timeline[-1].cumulative_move_usd for s, r in runs.items()}, months)
    run = runs[chosen]
    timeline = run.timeline
    assumptions += [f"the move itself: {w}" for w in run.warnings]
    assumptions += _assumptions(chosen, workload, options, objects, coverage, horizon_days)
    if chosen == "hybrid":
        assumptions.append(cutoff_note)

    duration_days = _duration_days(timeline)
    plan_bounds, bottleneck = _strategy_bounds(chosen, bounds, slowest, workload, options, copy_days)
    return MigrationPlan(
        workload=workload.name,
        source=str(options.source),
        destination=str(options.destination),
        strategy=chosen,
        chosen_because=because,
        start=start,
        stored_bytes=stored,
        objects=objects,
        copy_host=options.copy_host,
        one_time_cost_usd=sum((m.one_time_usd for m in timeline), ZERO),
        one_time=run.one_time,
        duration_hours=math.inf if duration_days is None else duration_days * 24,
        bottleneck=bottleneck,
        duration_evidence=slowest.evidence if run.done_by_copy else None,
        bounds=plan_bounds,
        monthly_before_usd=timeline[0].stay_usd,
        monthly_after_usd=timeline[-1].move_usd,
        payback_month=_payback_month(timeline),
        timeline=timeline,
        compared=compared,
        left_behind_share=timeline[-1].at_source_share,
        assumptions=assumptions,
    )


def _age_out_cutoff(
    workload: Workload, options: MigrationOptions, start: dt.date, horizon_days: float
) -> tuple[float, str]:
    """Hybrid: data with fewer days left than this ages out; the rest is copied.

    Unless given, the break-even: a byte with r days left costs r x (the source's storage price less the
    destination's) to keep, and the copy's egress and requests to move; below r* = copy price /
    storage difference, keeping it is cheaper. Prices are the engine's increments for the whole data, so
    tiers and allowances count as they would. Capped at the horizon.
    """
    if options.age_out_within_days is not None:
        return (
            options.age_out_within_days,
            f"data with under {options.age_out_within_days:g} days left ages out (given)",
        )
    src, dst = options.source, options.destination
    source_table = price_table(src.provider, start, options.source_prices)
    dest_table = price_table(dst.provider, start, options.destination_prices)
    stored = workload.stored_bytes()
    objects = workload.object_count()
    if not stored:
        return horizon_days, "nothing stored: the hybrid is age-out"
    base = Usage(stored_bytes=0, object_count=0)
    copy = _merge(
        base,
        egress_bytes=0 if options.egress_waiver else stored,
        requests={"get": objects, "list": math.ceil(objects / LIST_PAGE_KEYS)},
        retrieval_bytes=stored,
    )
    copy_usd = _total(_side_bill(source_table, src.storage_class, copy)) + _total(
        _side_bill(dest_table, dst.storage_class, Usage(requests=_upload_requests(workload, objects, dest_table)))
    )
    held = Usage(stored_bytes=stored, object_count=objects)
    saving_per_month = (
        bill(source_table, src.storage_class, held).total_usd - bill(dest_table, dst.storage_class, held).total_usd
    )
    if saving_per_month <= 0:
        return horizon_days, (
            f"storing at {src} costs no more than at {dst}: all data expiring within the horizon ages out"
        )
    days = float(copy_usd / saving_per_month) * MONTH_S / DAY_S
    cutoff = min(days, horizon_days)
    return cutoff, (
        f"data with under {cutoff:,.0f} days left ages out: copying all of it costs {_usd(copy_usd)} "
        f"(egress and requests), storing it at {dst} saves {_usd(saving_per_month)} a month, so data that "
        f"expires within {days:,.0f} days is cheaper left to expire"
    )


def _duration_days(timeline: list[TimelineMonth]) -> float | None:
    return next((m.completed_day for m in timeline if m.completed_day is not None), None)


def _payback_month(timeline: list[TimelineMonth]) -> int | None:
    return next((m.month for m in timeline if m.cumulative_move_usd <= m.cumulative_stay_usd), None)


def _why(chosen: Strategy, totals: dict[Strategy, Decimal], months: int) -> str:
    ranked = sorted(totals, key=lambda s: (totals[s], PREFERENCE.index(s)))
    text = f"{chosen} costs {_usd(totals[chosen])} over the {months} months"
    if len(ranked) > 1:
        runner = ranked[1]
        text += f", {_usd(totals[runner] - totals[chosen])} less than {runner}"
    reasons = {
        "age-out": "the data expires at the source, so none of it is copied and no egress is paid",
        "hybrid": "data that expires soon ages out at the source; only the rest is copied",
        "copy-on-read": "only data that is read is copied, in the reads the workload makes anyway",
        "bulk": "one copy moves everything at once, so the source's bill stops soonest",
    }
    return f"{text}: {reasons[chosen]}"


def _assumptions(
    strategy: Strategy,
    workload: Workload,
    options: MigrationOptions,
    objects: int,
    coverage: Callable[[float], float],
    horizon_days: float,
) -> list[str]:
    notes = ["new writes go to the destination from the first day; reads go to wherever the data is"]
    retention = workload.storage.retention
    if retention is not None:
        age = (
            f"all data is {options.data_age_days:g} days old at the start"
            if options.data_age_days is not None
            else f"object ages uniform over the {retention / DAY_S:g}-day retention"
        )
        notes.append(f"{age}: data expires at its retention age wherever it is")
    if strategy == "copy-on-read":
        reads = workload.reads_per_month()
        hot = workload.traffic.hot_objects
        pattern = f"{reads:,} reads a month over {objects:,} objects"
        if hot is not None and hot.share_of_reads:
            pattern += f", {hot.share_of_reads:.0%} of them on {hot.count:,} hot objects"
        if options.never_read_share:
            pattern += f", {options.never_read_share:.0%} of the rest never read"
        notes.append(
            f"an object moves on its first read ({pattern}): {coverage(30):.1%} read within 30 days, "
            f"{coverage(horizon_days):.1%} within the horizon; the source's copy is deleted once moved; "
            "all of it has moved once fewer than one object is expected unread"
        )
        if options.sweep_after_days is not None:
            notes.append(f"what is left at the source after {options.sweep_after_days:g} days is bulk-copied")
    if options.egress_waiver:
        notes.append(f"{options.source.provider} waives internet egress for the move (ask for it in advance)")
    host = {
        "on-premises": "the copy runs on a host outside both clouds: the source bills internet egress",
        "source-region": "the copy runs on a VM in the source's region: the source still bills internet egress; "
        "the VM and any NAT gateway it sends through (AWS bills NAT data processing per GB) are not priced here",
        "destination-service": f"the copy is {options.destination.provider}'s own migration service "
        f"({DESTINATION_SERVICES.get(options.destination.provider, '')}): the source bills its LISTs, GETs and "
        "egress, the destination the PUTs it makes; the service's own checks are not billed here",
    }
    notes.append(host[options.copy_host])
    if strategy in ("bulk", "hybrid"):
        notes.append(f"the source keeps its copy for {options.verify_days:g} days after the copy while it is verified")
    return notes


def _strategy_bounds(
    strategy: Strategy,
    bounds: list[DurationBound],
    slowest: DurationBound,
    workload: Workload,
    options: MigrationOptions,
    copy_days: float | None,
) -> tuple[list[DurationBound], str]:
    retention = workload.storage.retention
    expiry = (
        DurationBound(
            name="retention",
            hours=retention / 3600,
            detail=f"stored data expires within {retention / DAY_S:g} days (storage.retention)",
        )
        if retention is not None
        else None
    )
    if strategy == "bulk":
        return bounds, slowest.name
    if strategy == "age-out" and expiry is not None:
        return [expiry], "retention (data expires at the source)"
    if strategy == "hybrid" and expiry is not None:
        return [*bounds, expiry], f"{slowest.name} for the copied part, retention for the rest"
    reads = DurationBound(
        name="first reads",
        hours=math.inf if options.sweep_after_days is None else options.sweep_after_days * 24,
        detail=f"{workload.reads_per_month():,} reads a month (the workload's); objects move on first read",
    )
    extra = [expiry] if expiry is not None else []
    # the bulk copy's bounds stay: they time the sweep, and say what a bulk copy would take
    return [reads, *extra, *bounds], "reads (objects move on first read)"


__all__ = [
    "Endpoint",
    "MigrationOptions",
    "MigrationPlan",
    "StrategyOutcome",
    "TimelineMonth",
    "estimate_migration",
]
