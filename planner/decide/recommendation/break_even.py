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
from planner.costing.cdn_bills import behind, delivered_bill, served_egress_cap_bytes
from planner.decide.recommendation import sentences
from planner.decide.recommendation.models import BreakEven, RankedOption
from planner.evidence import Sentence
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
    """The smallest x in (0, upper] where a piecewise-linear difference changes sign.

    The zero is first read off the line through the segment's ends; where the difference is not linear
    there (a breakpoint the tables do not state, a line rounded to the cent), it is narrowed by bisection
    until the two bills agree to the cent, so the point is where the bills cross, not where a line would."""
    xs = sorted({0.0, upper, *[b for b in breakpoints if 0 < b < upper]})
    previous_x, previous = xs[0], difference(xs[0])
    for x in xs[1:]:
        value = difference(x)
        if (previous < 0 < value) or (previous > 0 > value) or (value == 0 and previous != 0):
            # Linear on this segment: the zero lies where the line crosses.
            share = float(previous / (previous - value)) if previous != value else 1.0
            return _narrowed(difference, previous_x, previous, x, previous_x + (x - previous_x) * share)
        previous_x, previous = x, value
    return None


_CENT = Decimal("0.01")


def _narrowed(difference: Callable[[float], Decimal], low: float, at_low: Decimal, high: float, guess: float) -> float:
    """The zero of ``difference`` between ``low`` and ``high`` (where its sign changes), from ``guess``: the
    guess when the difference there is within a cent, else bisection to a cent (or to a byte)."""
    value = difference(guess)
    if abs(value) <= _CENT:
        return guess
    if (value < 0) == (at_low < 0):
        low, at_low = guess, value
    else:
        high = guess
    for _ in range(100):
        middle = (low + high) / 2
        value = difference(middle)
        if abs(value) <= _CENT or high - low <= 1.0:
            return middle
        if (value < 0) == (at_low < 0):
            low, at_low = middle, value
        else:
            high = middle
    return (low + high) / 2


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

    def side(option: RankedOption) -> _Side:
        label = f"{option.label}:{option.storage_class}"
        return _Side(label, option.storage_class, table_of(option), as_of, option.cdn, option.horizon_cost_usd)

    chosen_side = side(chosen)
    results: list[BreakEven] = []
    for other in others:
        results += _egress_break_even(workload, chosen_side, side(other))
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
    total: Decimal | None = None
    """its total over the horizon, which the recommendation ranks by"""


def _egress_break_even(workload: Workload, chosen: _Side, other: _Side) -> list[BreakEven]:
    """The egress volumes, above and below today's, where the cheaper of the two changes; a free-egress cap
    that ends either first; or, no crossing in range, that ``chosen`` is cheaper (or dearer) at every volume,
    as today's two bills say."""
    stored = workload.stored_bytes()

    def bill(side: _Side, egress: float) -> Decimal:
        variant = workload.model_copy(update={"traffic": workload.traffic.model_copy(update={"egress": round(egress)})})
        return _monthly(behind(variant, side.cdn), side.table, side.storage_class, side.day)

    def egress_diff(egress: float) -> Decimal:
        return bill(chosen, egress) - bill(other, egress)

    current = float(workload.traffic.egress)
    chosen_now, other_now = bill(chosen, current), bill(other, current)
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
    now = sentences.Today(
        current, float(stored), chosen_now, other_now, chosen.total, other.total, workload.constraints.months
    )
    results = []
    for found, direction in ((above, "exceeds"), (below, "falls below")):
        if found is None:
            continue
        at = current + found if direction == "exceeds" else current - found
        results.append(
            _point(chosen, other, sentences.crossing(chosen.label, other.label, at=at, direction=direction, today=now))
        )
    if above is None and caps:
        results.append(_capped(chosen, other, caps, now))
    elif above is None and below is None:
        results.append(
            _point(chosen, other, sentences.everywhere(chosen.label, other.label, up_to=upper, today=now), at=math.inf)
        )
    return results


def _point(
    chosen: _Side, other: _Side, sentence: Sentence, *, at: float | None = None, kind: str = "price"
) -> BreakEven:
    """A break-even point stating ``sentence``, at its egress (``at``: where else it stands)."""
    numbers = sentence.numbers
    where = at if at is not None else numbers.get("egress_bytes", numbers.get("up_to_bytes"))
    assert isinstance(where, float)
    ratio = numbers.get("ratio_to_stored")
    return BreakEven(
        dimension="egress",
        kind="policy" if kind == "policy" else "price",
        option=chosen.label,
        other=other.label,
        at=where,
        ratio_to_stored=ratio if isinstance(ratio, float) else None,
        statement=sentence.text,
        sentence=sentence,
    )


def _capped(chosen: _Side, other: _Side, caps: dict[str, float], now: sentences.Today) -> BreakEven:
    """The nearer free-egress cap ends the comparison: past it its option is rejected. Up to it the bills do
    not cross, so the option stays as cheap or as dear as it is today."""
    capped = min(caps, key=lambda name: caps[name])
    at = caps[capped]
    whose = "its" if capped == chosen.label else f"{other.label}'s"
    note = unverified_policy_note(chosen.table if capped == chosen.label else other.table)
    ends = f", where {whose} free-egress policy ends{note}"
    sentence = (
        sentences.crossing(chosen.label, other.label, at=at, direction="exceeds", ends=ends, today=now)
        if capped == chosen.label and now.option_usd <= now.other_usd
        else sentences.everywhere(chosen.label, other.label, up_to=at, ends=ends, today=now)
    )
    ratio = at / now.stored if now.stored else None
    return _point(
        chosen,
        other,
        sentence.model_copy(update={"numbers": {**sentence.numbers, "ratio_to_stored": ratio}}),
        at=at,
        kind="policy",
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
    sentence = sentences.fair_use(chosen.label, limit, float(policy), via_cdn, unverified_policy_note(chosen.table))
    return [
        BreakEven(
            dimension="egress",
            kind="policy",
            option=chosen.label,
            other="free-egress policy",
            at=limit,
            ratio_to_stored=float(policy),
            statement=sentence.text,
            sentence=sentence,
        )
    ]
