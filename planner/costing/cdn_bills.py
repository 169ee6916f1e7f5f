"""A CDN in front of the bucket: what the origin bills, what the CDN bills, and the path in words.

The CDN serves the reads that go through it; the bucket sees only the misses (``1 - hit_ratio`` of
those requests and bytes). How the misses leave the bucket follows the route between the two
(``planner.pricing.cdn_prices``): a free route or a cache-fill route reads them inside the provider (no
egress, but retrieval where the class charges it), an internet route bills them as the bucket's
internet egress, so its allowances and free-egress caps (Wasabi 1x, IDrive e2 3x, B2 3x stored) count
the origin's egress only, never the bytes the CDN serves from its cache.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from planner.errors import InputError
from planner.pricing import catalog, cdn_prices
from planner.pricing.aws_usage_types import LOCATIONS
from planner.pricing.billing import bill
from planner.pricing.breakdown import CostBreakdown, LineItem
from planner.pricing.models import PriceTable
from planner.units import format_bytes
from planner.workload import Workload
from planner.workload.cdn_split import at_origin, cdn_split

AWS_REGIONS = frozenset(LOCATIONS.values())
"""AWS's region names (an S3 bucket's other region is one of them)."""

PATH_PREFIX = "delivery: "
"""How a bill's assumptions begin the statement of the delivery path it priced."""


def priced_paths(cost: CostBreakdown) -> list[str]:
    """The delivery path a bill priced, in words (none without a CDN)."""
    return [a.removeprefix(PATH_PREFIX) for a in cost.assumptions if a.startswith(PATH_PREFIX)]


@dataclass(frozen=True)
class DeliveryPath:
    """The workload as the origin bills it, and the CDN's lines and the path in words."""

    origin: Workload
    cdn_lines: list[LineItem]
    statement: str


def check_same_region(workload: Workload, provider: str, day: dt.date) -> None:
    """Refuse same-region reads for a provider the route table says has no regions."""
    egress_to = workload.traffic.egress_to
    if egress_to is None or not egress_to.same_region:
        return
    no_regions = cdn_prices.routes_for(day).without_regions(provider)
    if no_regions is not None:
        name = catalog.table_for(provider, day).provider_name
        raise InputError(
            f"{format_bytes(egress_to.same_region)} read in the same region, but {name} has no regions"
            f" ({no_regions.source}): give them as internet egress, or leave {provider} out of constraints.providers",
            field="traffic.egress.same_region",
        )


def check_other_region(workload: Workload, provider: str, region: str | None) -> None:
    """Refuse ``traffic.egress.other_region.region`` where it cannot be another region of ``provider``'s
    bucket in ``region``: the bucket's own region (those reads are same_region), or a name that is none of
    the provider's regions where the tables know them (more than one)."""
    egress_to = workload.traffic.egress_to
    name = egress_to.other_region_name if egress_to is not None and egress_to.other_region else None
    if name is None or region is None:
        return
    field = "traffic.egress.other_region.region"
    if name == region:
        raise InputError(
            f"{name} is the region {provider}'s bucket is priced in: reads there are same_region, not other_region",
            field=field,
        )
    known = set(catalog.regions(provider))
    if region in AWS_REGIONS:
        known |= AWS_REGIONS
    if len(known) > 1 and name not in known:
        shown = ", ".join(sorted(known)[:8]) + (", ..." if len(known) > 8 else "")
        raise InputError(f"{name!r} is not a region of {provider} (e.g. {shown})", field=field)


def delivery_path(workload: Workload, provider: str, day: dt.date, region: str | None = None) -> DeliveryPath | None:
    """The origin's workload and the CDN's bill for ``provider`` (its bucket in ``region``, when known) behind
    the workload's CDN; None without one."""
    check_same_region(workload, provider, day)
    check_other_region(workload, provider, region)
    split = cdn_split(workload)
    if split is None:
        return None
    cdn = cdn_prices.cdn_table_for(split.cdn, day)
    route, route_version = cdn_prices.route_between(provider, cdn.cdn, day)
    origin = at_origin(workload, split, "egress" if route.kind == "internet" else "inside")
    provider_name = catalog.table_for(provider, day).provider_name
    usage = cdn_prices.CdnUsage(served_bytes=split.served_bytes, requests=split.cdn_reads, fill_bytes=split.miss_bytes)
    lines = cdn_prices.cdn_bill(cdn, route, route_version, usage, provider_name)
    how = {
        "free": "free",
        "cache-fill": f"billed by {cdn.name} as cache fill",
        "internet": f"billed as {provider_name}'s internet egress",
    }[route.kind]
    statement = (
        f"{PATH_PREFIX}{format_bytes(split.served_bytes)} a month served by {cdn.name} ({cdn.version},"
        f" {cdn.delivery_region}) at a {float(split.hit) * 100:g}% hit ratio; {provider_name} sees the misses:"
        f" {format_bytes(split.miss_bytes)} and {split.origin_reads:,} of {split.reads:,} GETs; origin fetches"
        f" {provider_name} -> {cdn.name} are {how} ({route.status.value}, {route_version}: {route.source})"
    )
    return DeliveryPath(origin=origin, cdn_lines=lines, statement=statement)


def with_cdn(cost: CostBreakdown, path: DeliveryPath) -> CostBreakdown:
    """The origin's bill with the CDN's lines after its own, the total their sum, the path said."""
    added = sum((item.amount_usd for item in path.cdn_lines), Decimal(0))
    return cost.model_copy(
        update={
            "line_items": [*cost.line_items, *path.cdn_lines],
            "total_usd": cost.total_usd + added,
            "assumptions": [*cost.assumptions, path.statement],
        }
    )


def delivered_bill(
    workload: Workload, table: PriceTable, storage_class: str, day: dt.date, month: int = 0
) -> CostBreakdown:
    """Month ``month`` of ``workload`` in ``storage_class`` billed with ``table``, behind the workload's CDN if
    it names one: the engine's ``bill`` for callers that price a table directly (the sweep, the outcomes)."""
    path = delivery_path(workload, table.provider, day, table.region)
    origin = path.origin if path is not None else workload
    priced = bill(table, storage_class, origin.usage_for(storage_class, table.limits, month), as_of=day)
    return with_cdn(priced, path) if path is not None else priced


def served_egress_cap_bytes(workload: Workload, table: PriceTable, day: dt.date) -> float | None:
    """Monthly egress, as ``traffic.egress`` counts it, at which the provider's free-egress policy breaks
    (Wasabi 1x, IDrive e2 3x stored), or None. Behind a CDN the policy counts the origin's egress only: the
    misses on an internet route, nothing on a free or cache-fill one, so the served bytes reach it later."""
    policy = table.egress.fair_use_multiple_of_storage
    stored = workload.stored_bytes()
    if policy is None or not stored:
        return None
    cap = float(policy) * stored
    delivery = workload.delivery
    if delivery is None:
        return cap
    route, _ = cdn_prices.route_between(table.provider, delivery.cdn.provider, day)
    miss = 1 - delivery.cdn.ratio
    fetched_share = miss if route.kind == "internet" else 0.0
    egress_to = workload.traffic.egress_to
    if egress_to is None:  # all of the egress goes through the CDN
        return cap / fetched_share if fetched_share else None
    return cap - egress_to.cdn * fetched_share + egress_to.cdn


def origin_workload(workload: Workload, provider: str, day: dt.date) -> Workload:
    """The workload as ``provider``'s bucket bills it behind the workload's CDN (the misses), or as it is.

    For comparisons whose sides share the CDN (migrate: stay or move behind the same CDN), the CDN's own
    bill is the same on both sides and only the origin's differs."""
    path = delivery_path(workload, provider, day)
    return path.origin if path is not None else workload


def behind(workload: Workload, cdn: str | None) -> Workload:
    """The workload with the CDN ``cdn`` in front at the workload's own hit ratio (``recommend --cdn``
    compares paths this way); the workload as it is when ``cdn`` is None or it names no CDN."""
    delivery = workload.delivery
    if cdn is None or delivery is None:
        return workload
    choice = delivery.cdn.model_copy(update={"provider": cdn})
    return workload.model_copy(update={"delivery": delivery.model_copy(update={"cdn": choice})})


def cdn_note(workload: Workload) -> str:
    """What a comparison behind the workload's CDN leaves out: the CDN's own bill, the same on both sides."""
    assert workload.delivery is not None
    cdn = workload.delivery.cdn
    return (
        f"the reads go through the CDN {cdn.provider} at a {cdn.ratio * 100:g}% hit ratio: each bucket bills"
        " only the misses, by its route to the CDN; the CDN's own bill, the same staying or moving, is left out"
    )
