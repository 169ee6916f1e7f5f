"""Where the choice would change: the monthly egress (and reads) at which the recommended option stops
being the cheaper one, and the free-egress caps that end an option whatever it costs.

Break-even points are solved, not scanned: a bill is piecewise linear in egress (or in reads)
between the breakpoints its price tables define, so each crossing is found exactly on the segment
where the cost difference changes sign.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from planner.costing import egress_cap_bytes, price_table
from planner.pricing.engine import bill
from planner.pricing.models import PriceTable
from planner.recommendation.models import BreakEven, RankedOption
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


def _monthly(workload: Workload, table: PriceTable, storage_class: str) -> Decimal:
    """Month one's total with a table already loaded (the solver evaluates it many times)."""
    return bill(table, storage_class, workload.usage_for(storage_class, table.limits)).total_usd


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
) -> list[BreakEven]:
    """Where the recommendation stops being cheaper than each provider's best alternative, by egress and reads."""
    results: list[BreakEven] = []
    label = f"{chosen.label}:{chosen.storage_class}"
    stored = workload.stored_bytes()
    chosen_table = price_table(chosen.provider, as_of, prices.get(chosen.provider), chosen.region)
    for other in others:
        other_label = f"{other.label}:{other.storage_class}"
        other_table = price_table(other.provider, as_of, prices.get(other.provider), other.region)

        def egress_diff(egress: float, other: RankedOption = other, other_table: PriceTable = other_table) -> Decimal:
            variant = workload.model_copy(
                update={"traffic": workload.traffic.model_copy(update={"egress": round(egress)})}
            )
            a = _monthly(variant, chosen_table, chosen.storage_class)
            b = _monthly(variant, other_table, other.storage_class)
            return a - b

        current = float(workload.traffic.egress)
        upper = max(current * 10, stored * 10, 10.0**15)
        points = _egress_breakpoints(chosen_table, workload) + _egress_breakpoints(other_table, workload)
        if workload.traffic.reads is None:  # reads follow egress: their allowances are breakpoints too
            mean = workload.storage.mean_object_bytes
            points += [r * mean for r in _read_breakpoints(chosen_table, chosen.storage_class)]
            points += [r * mean for r in _read_breakpoints(other_table, other.storage_class)]

        # Solve above and below today's egress separately: the nearest crossing on each side matters.
        def up(x: float, base: float = current) -> Decimal:
            return egress_diff(base + x)

        def down(x: float, base: float = current) -> Decimal:
            return egress_diff(base - x)

        # A free-egress cap ends an option as surely as a price does: past it the option is rejected.
        caps = {
            name: cap
            for name, cap in (
                (label, egress_cap_bytes(chosen_table, stored)),
                (other_label, egress_cap_bytes(other_table, stored)),
            )
            if cap is not None and current < cap < upper
        }
        limit = min([upper, *caps.values()])
        above = solve_crossing(up, [p - current for p in points], limit - current)
        below = solve_crossing(down, [current - p for p in points], current) if current else None
        for crossing, direction in ((above, "exceeds"), (below, "falls below")):
            if crossing is None:
                continue
            at = current + crossing if direction == "exceeds" else current - crossing
            ratio = at / stored if stored else None
            ratio_text = f" ({ratio:.2f}x stored)" if ratio is not None else ""
            results.append(
                BreakEven(
                    dimension="egress",
                    option=label,
                    other=other_label,
                    at=at,
                    ratio_to_stored=ratio,
                    statement=(
                        f"{label} stays cheaper than {other_label} until monthly egress {direction} "
                        f"{format_bytes(at)}{ratio_text}"
                    ),
                )
            )
        if above is None and caps:
            capped = min(caps, key=lambda name: caps[name])
            at = caps[capped]
            ratio = at / stored
            whose = "its" if capped == label else f"{other_label}'s"
            statement = (
                f"{label} stays cheaper than {other_label} until monthly egress exceeds {format_bytes(at)} "
                f"({ratio:g}x stored), where {whose} free-egress policy ends"
                if capped == label
                else f"{label} is cheaper than {other_label} at every monthly egress up to {format_bytes(at)} "
                f"({ratio:g}x stored), where {whose} free-egress policy ends"
            )
            results.append(
                BreakEven(
                    dimension="egress",
                    kind="policy",
                    option=label,
                    other=other_label,
                    at=at,
                    ratio_to_stored=ratio,
                    statement=statement + unverified_policy_note(chosen_table if capped == label else other_table),
                )
            )
        elif above is None and below is None:
            results.append(
                BreakEven(
                    dimension="egress",
                    option=label,
                    other=other_label,
                    at=math.inf,
                    ratio_to_stored=None,
                    statement=(
                        f"{label} is cheaper than {other_label} at every monthly egress up to {format_bytes(upper)}"
                    ),
                )
            )
    policy = chosen_table.egress.fair_use_multiple_of_storage
    if policy is not None and stored:
        limit = float(policy) * stored
        results.append(
            BreakEven(
                dimension="egress",
                kind="policy",
                option=label,
                other="free-egress policy",
                at=limit,
                ratio_to_stored=float(policy),
                statement=(
                    f"{label} egress is free only while it stays at or below {format_bytes(limit)} a month "
                    f"({float(policy):g}x stored); above that the provider may limit or suspend the account"
                    + unverified_policy_note(chosen_table)
                ),
            )
        )
    return results
