"""Where the choice would change: the monthly egress (and reads) at which the recommended option stops
being the cheaper one, and the free-egress caps that end an option whatever it costs.

Break-even points are solved, not scanned: a bill is piecewise linear in egress (or in reads)
between the breakpoints its price tables define, so each crossing is found exactly on the segment
where the cost difference changes sign.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from planner.costing.bills import price_table
from planner.costing.delivery import behind, delivered_bill, served_egress_cap_bytes
from planner.decide.recommendation.models import BreakEven, RankedOption
from planner.pricing.models import PriceTable
from planner.units import format_bytes
from planner.workload import Workload


def _egress_breakpoints(table: PriceTable, workload: Workload) -> list[float]:
    """Egress volumes (bytes) where this table's marginal egress price can change."""
    rules = table.egress
    unit = rules.internet.unit_bytes
    stored_units = workload.stored_bytes() / unit
    free = float(rules.internet.free_per_month + rules.free_per_day * table.billing.month_days)
    if rules.free_multiple_of_storage:
        free += float(rules.free_multiple_of_storage) * stored_units
    points = [free * unit]
    points += [(free + float(t.up_to)) * unit for t in rules.internet.tiers if t.up_to is not None]
    return points


def _read_breakpoints(table: PriceTable, storage_class: str) -> list[float]:
    """GET counts where this class's request allowances run out."""
    days = table.billing.month_days
    return [
        float(rc.free_per_month + rc.free_per_day * days)
        for rc in table.classes[storage_class].requests
        if "get" in rc.operations and (rc.free_per_month or rc.free_per_day)
    ]


def solve_crossing(difference: Callable[[float], Decimal], breakpoints: list[float], upper: float) -> float | None:
    """The smallest x in (0, upper] where a piecewise-linear difference changes sign."""
    xs = sorted({0.0, upper, *[b for b in breakpoints if 0 < b < upper]})
    previous_x, previous = xs[0], difference(xs[0])
    for x in xs[1:]:
        value = difference(x)
        if (previous < 0 < value) or (previous > 0 > value) or (value == 0 and previous != 0):
            # Linear on this segment: the zero lies where the line crosses.
            share = float(previous / (previous - value)) if previous != value else 1.0
            return previous_x + (x - previous_x) * share
        previous_x, previous = x, value
    return None


def _monthly(workload: Workload, table: PriceTable, storage_class: str, day: dt.date) -> Decimal:
    """Month one's total with a table already loaded (the solver evaluates it many times), behind the
    workload's CDN if it names one."""
    return delivered_bill(workload, table, storage_class, day).total_usd


def unverified_policy_note(table: PriceTable) -> str:
    """A note for a statement resting on the egress policy when the table marks it unverified (in its
    status, or in the note that cites it)."""
    egress = table.egress
    unverified = (egress.status is not None and egress.status.value == "unverified") or "unverified" in (
        egress.note or ""
    )
    return " (the policy's figure is unverified)" if unverified else ""


def break_even_points(
    workload: Workload,
    chosen: RankedOption,
    others: list[RankedOption],
    as_of: dt.date,
    prices: dict[str, Path],
    tables: Mapping[tuple[str, str | None], PriceTable] | None = None,
) -> list[BreakEven]:
    """Where the recommendation stops being cheaper than each provider's best alternative, by egress and reads.

    ``tables`` are the tables already loaded by (provider, region); any other is loaded here.
    """

    def table_of(option: RankedOption) -> PriceTable:
        held = (tables or {}).get((option.provider, option.region))
        return (
            held
            if held is not None
            else price_table(option.provider, as_of, prices.get(option.provider), option.region)
        )

    chosen_side = _Side(
        f"{chosen.label}:{chosen.storage_class}", chosen.storage_class, table_of(chosen), as_of, chosen.cdn
    )
    results: list[BreakEven] = []
    for other in others:
        other_side = _Side(
            f"{other.label}:{other.storage_class}", other.storage_class, table_of(other), as_of, other.cdn
        )
        results += _egress_break_even(workload, chosen_side, other_side)
    return results + _fair_use_limit(workload, chosen_side)


@dataclass(frozen=True)
class _Side:
    """One option of a comparison: its name (provider:class), class and price table, and the CDN it is
    priced behind when recommend compares CDNs."""

    label: str
    storage_class: str
    table: PriceTable
    day: dt.date
    cdn: str | None = None


def _egress_break_even(workload: Workload, chosen: _Side, other: _Side) -> list[BreakEven]:
    """The egress volumes, above and below today's, where ``chosen`` stops being the cheaper of the two; a
    free-egress cap that ends either first; or that it is cheaper at every volume."""
    stored = workload.stored_bytes()

    def egress_diff(egress: float) -> Decimal:
        variant = workload.model_copy(update={"traffic": workload.traffic.model_copy(update={"egress": round(egress)})})
        return _monthly(behind(variant, chosen.cdn), chosen.table, chosen.storage_class, chosen.day) - _monthly(
            behind(variant, other.cdn), other.table, other.storage_class, other.day
        )

    current = float(workload.traffic.egress)
    upper = max(current * 10, stored * 10, 10.0**15)
    points = _egress_breakpoints(chosen.table, workload) + _egress_breakpoints(other.table, workload)
    if workload.traffic.reads is None:  # reads follow egress: their allowances are breakpoints too
        mean = workload.storage.mean_object_bytes
        points += [r * mean for r in _read_breakpoints(chosen.table, chosen.storage_class)]
        points += [r * mean for r in _read_breakpoints(other.table, other.storage_class)]
    # A free-egress cap ends an option as surely as a price does: past it the option is rejected.
    caps = {
        side.label: cap
        for side in (chosen, other)
        if (cap := served_egress_cap_bytes(behind(workload, side.cdn), side.table, side.day)) is not None
        and current < cap < upper
    }
    limit = min([upper, *caps.values()])
    # Solve above and below today's egress separately: the nearest crossing on each side matters.
    above = solve_crossing(lambda x: egress_diff(current + x), [p - current for p in points], limit - current)
    below = (
        solve_crossing(lambda x: egress_diff(current - x), [current - p for p in points], current) if current else None
    )
    results = []
    for crossing, direction in ((above, "exceeds"), (below, "falls below")):
        if crossing is None:
            continue
        at = current + crossing if direction == "exceeds" else current - crossing
        ratio = at / stored if stored else None
        ratio_text = f" ({ratio:.2f}x stored)" if ratio is not None else ""
        statement = (
            f"{chosen.label} stays cheaper than {other.label} until monthly egress {direction} "
            f"{format_bytes(at)}{ratio_text}"
        )
        results.append(
            BreakEven(
                dimension="egress",
                option=chosen.label,
                other=other.label,
                at=at,
                ratio_to_stored=ratio,
                statement=statement,
            )
        )
    if above is None and caps:
        results.append(_capped(chosen, other, caps, stored))
    elif above is None and below is None:
        statement = f"{chosen.label} is cheaper than {other.label} at every monthly egress up to {format_bytes(upper)}"
        results.append(
            BreakEven(
                dimension="egress",
                option=chosen.label,
                other=other.label,
                at=math.inf,
                ratio_to_stored=None,
                statement=statement,
            )
        )
    return results


def _capped(chosen: _Side, other: _Side, caps: dict[str, float], stored: float) -> BreakEven:
    """The nearer free-egress cap ends the comparison: past it its option is rejected."""
    capped = min(caps, key=lambda name: caps[name])
    at = caps[capped]
    ratio = at / stored
    whose = "its" if capped == chosen.label else f"{other.label}'s"
    statement = (
        f"{chosen.label} stays cheaper than {other.label} until monthly egress exceeds {format_bytes(at)} "
        f"({ratio:g}x stored), where {whose} free-egress policy ends"
        if capped == chosen.label
        else f"{chosen.label} is cheaper than {other.label} at every monthly egress up to {format_bytes(at)} "
        f"({ratio:g}x stored), where {whose} free-egress policy ends"
    )
    return BreakEven(
        dimension="egress",
        kind="policy",
        option=chosen.label,
        other=other.label,
        at=at,
        ratio_to_stored=ratio,
        statement=statement + unverified_policy_note(chosen.table if capped == chosen.label else other.table),
    )


def _fair_use_limit(workload: Workload, chosen: _Side) -> list[BreakEven]:
    """The chosen provider's fair-use egress limit, when it has one."""
    workload = behind(workload, chosen.cdn)
    policy = chosen.table.egress.fair_use_multiple_of_storage
    stored = workload.stored_bytes()
    if policy is None or not stored:
        return []
    limit = served_egress_cap_bytes(workload, chosen.table, chosen.day)
    if limit is None:  # behind a CDN whose origin fetches are free: the policy counts none of it
        return []
    origin = float(policy) * stored
    via_cdn = (
        ""
        if workload.delivery is None
        else f"; the CDN's misses, the origin egress the policy counts, reach {format_bytes(origin)} there"
    )
    return [
        BreakEven(
            dimension="egress",
            kind="policy",
            option=chosen.label,
            other="free-egress policy",
            at=limit,
            ratio_to_stored=float(policy),
            statement=(
                f"{chosen.label} egress is free only while it stays at or below {format_bytes(limit)} a month "
                f"({float(policy):g}x stored{via_cdn}); above that the provider may limit or suspend the account"
                + unverified_policy_note(chosen.table)
            ),
        )
    ]
