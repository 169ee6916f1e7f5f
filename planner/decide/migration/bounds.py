"""How long a copy takes: each limit that bounds it (the link, the providers' measured ceilings,
per-request time, documented per-prefix request rates), the slowest of them, and which of them
bound each strategy."""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.decide.migration.charges import upload_requests
from planner.decide.migration.models import MAX_COPY_HOURS, DurationBound, MigrationOptions, Strategy
from planner.decide.recommendation import reference_summaries, stream_rate
from planner.errors import InputError
from planner.evidence import Evidence, weakest
from planner.measure.profile import ProfileSummary
from planner.pricing.models import PriceTable
from planner.units import format_bytes, format_duration, format_rate
from planner.workload import DAY_S, Workload


@dataclass(frozen=True)
class CopyBounds:
    """What bounds a bulk copy of everything stored, the slowest bound, and what the profiles leave unsaid."""

    bounds: list[DurationBound]
    slowest: DurationBound
    notes: list[str]

    @property
    def copy_days(self) -> float:
        return self.slowest.hours / 24


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


def _per_request_bound(
    summary: ProfileSummary, workload: Workload, objects: int, concurrency: int
) -> DurationBound | None:
    """The source's time per object over the copy's streams, from its profile (None without figures)."""
    mean = workload.storage.mean_object_bytes
    stream = stream_rate(summary.get_stream_bytes_per_s, mean)
    ttfb = summary.ttfb_p50_s
    if not (stream or ttfb):
        return None
    # a stream figure is bytes over the whole request (its first byte included), and below the
    # smallest measured size a request takes that size's time: it is the time per object alone
    per_object = mean / stream if stream else (ttfb or 0.0)
    return DurationBound(
        name="per-request time",
        hours=objects * per_object / concurrency / 3600,
        detail=f"{objects:,} objects x {format_duration(per_object)} each / {concurrency} streams",
        evidence=_stream_evidence(summary, mean) if stream else weakest(_profile_evidence(summary), "derived"),
    )


def _profile_bounds(
    workload: Workload, options: MigrationOptions, objects: int, stored: int
) -> tuple[list[DurationBound], list[str]]:
    """The source's read ceiling and per-request time, the destination's write ceiling, from their profiles."""
    concurrency = options.concurrency or workload.client.concurrency
    bounds: list[DurationBound] = []
    notes: list[str] = []
    summaries = reference_summaries([options.source.provider, options.destination.provider])
    src = summaries.get(options.source.provider)
    dst = summaries.get(options.destination.provider)
    if src is not None:
        summary, label = src
        _ceiling_bound(summary, "read", f"{options.source.provider} ({label})", stored, bounds, notes)
        per_request = _per_request_bound(summary, workload, objects, concurrency)
        if per_request is not None:
            bounds.append(per_request)
        else:
            notes.append(f"no per-request figures for {options.source.provider}: the object-count bound is left out")
    if dst is not None:
        summary, label = dst
        _ceiling_bound(summary, "write", f"{options.destination.provider} ({label})", stored, bounds, notes)
    return bounds, notes


def _prefix_rate_bounds(
    workload: Workload, objects: int, source: PriceTable, destination: PriceTable
) -> list[DurationBound]:
    """The tables' documented per-prefix request rates (S3's), over the prefixes the keys are under."""
    prefixes = workload.storage.prefixes
    spread = f"over {prefixes:,} prefix(es)" if prefixes else "over 1 prefix (storage.prefixes not stated)"
    reads = {"get": objects}
    writes = upload_requests(workload, objects, destination)
    sides = (("source", "GET", source, reads), ("destination", "PUT", destination, writes))
    bounds = []
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
    return bounds


def _link_bound(workload: Workload, options: MigrationOptions, stored: int) -> DurationBound:
    """The copy's link; with the destination's own service, the link stands in for its unpublished rate."""
    link = options.link_bits_per_s or workload.client.link
    bound = DurationBound(
        name="client link",
        hours=stored * 8 / link / 3600,
        detail=f"{format_bytes(stored)} over {format_rate(link)}",
    )
    if options.copy_host != "destination-service":
        return bound
    detail = f"{bound.detail}: the service's rate is not published, the given link stands in for it"
    return bound.model_copy(update={"name": "copy service rate", "detail": detail})


def copy_bounds(
    workload: Workload,
    options: MigrationOptions,
    objects: int,
    stored: int,
    source: PriceTable,
    destination: PriceTable,
) -> CopyBounds:
    """Every bound on a bulk copy of what is stored; refused when the slowest is over ten years."""
    profile_bounds, notes = _profile_bounds(workload, options, objects, stored)
    bounds = [
        _link_bound(workload, options, stored),
        *profile_bounds,
        *_prefix_rate_bounds(workload, objects, source, destination),
    ]
    slowest = max(bounds, key=lambda b: b.hours)
    if slowest.hours > MAX_COPY_HOURS:
        raise InputError(
            f"the copy would take {slowest.hours / 24 / 365:,.0f} years, bound by the {slowest.name} "
            f"({slowest.detail}); planner plans copies of at most {MAX_COPY_HOURS / 24 / 365:.0f} years",
            source="migrate",
            field="--link" if slowest.name == "client link" else None,
        )
    return CopyBounds(bounds=bounds, slowest=slowest, notes=notes)


def strategy_bounds(
    strategy: Strategy, copy: CopyBounds, workload: Workload, options: MigrationOptions
) -> tuple[list[DurationBound], str]:
    """The bounds on the chosen strategy's duration, and the one that sets it (the plan's bottleneck)."""
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
        return copy.bounds, copy.slowest.name
    if strategy == "age-out" and expiry is not None:
        return [expiry], "retention (data expires at the source)"
    if strategy == "hybrid" and expiry is not None:
        return [*copy.bounds, expiry], f"{copy.slowest.name} for the copied part, retention for the rest"
    reads = DurationBound(
        name="first reads",
        hours=math.inf if options.sweep_after_days is None else options.sweep_after_days * 24,
        detail=f"{workload.reads_per_month():,} reads a month (the workload's); objects move on first read",
    )
    extra = [expiry] if expiry is not None else []
    # the bulk copy's bounds stay: they time the sweep, and say what a bulk copy would take
    return [reads, *extra, *copy.bounds], "reads (objects move on first read)"
