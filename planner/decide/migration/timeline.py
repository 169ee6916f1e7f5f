"""One strategy's timeline: day by day where the data stored at the start lives, month by month what
each side bills.

The strategy gives its schedules (``planner.decide.migration.schedules``); this module follows them over
the horizon into one ``MonthFlow`` a month, then bills each month on both sides
(``planner.decide.migration.charges``). The headline figures (duration, one-time cost, payback month) are
read from the timeline, never computed beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal

from planner.decide.migration.charges import MonthFlow, bill_month
from planner.decide.migration.inputs import MigrationInputs
from planner.decide.migration.models import ZERO, Strategy, TimelineMonth
from planner.decide.migration.schedules import Schedule, young
from planner.pricing.breakdown import LineItem
from planner.workload import DAY_S


@dataclass(frozen=True)
class StrategyRun:
    """A strategy's timeline over the horizon and the line items it adds."""

    strategy: Strategy
    timeline: list[TimelineMonth]
    one_time: list[LineItem]
    done_day: float
    done_by_copy: bool
    warnings: list[str]
    notes: list[str] = field(default_factory=list)
    """What the strategy assumed beyond the inputs (the hybrid's age-out cutoff)."""

    @property
    def total_move_usd(self) -> Decimal:
        return self.timeline[-1].cumulative_move_usd

    @property
    def one_time_cost_usd(self) -> Decimal:
        return sum((m.one_time_usd for m in self.timeline), ZERO)

    @property
    def duration_days(self) -> float | None:
        return next((m.completed_day for m in self.timeline if m.completed_day is not None), None)

    @property
    def payback_month(self) -> int | None:
        return next((m.month for m in self.timeline if m.cumulative_move_usd <= m.cumulative_stay_usd), None)


def _state(schedules: list[Schedule], stored: int, t: float) -> tuple[float, float, float]:
    """(bytes only at the source, bytes held at the source, start-of-move bytes copied) at day t."""
    only = held = copied_bytes = 0.0
    for schedule in schedules:
        alive = stored * schedule.share * schedule.alive(t)
        copied, kept = schedule.copied(t)
        only += alive * (1 - copied)
        held += alive * kept
        copied_bytes += alive * copied
    return only, held, copied_bytes


def _follow_slice(
    month: MonthFlow, schedule: Schedule, schedules: list[Schedule], day: int, inputs: MigrationInputs
) -> None:
    """Add one slice's day to its month: what it copies, lists, and deletes young at either side."""
    stored, billing = inputs.stored, inputs.billing
    t0, t1 = float(day), float(day + 1)
    c0, k0 = schedule.copied(t0)
    c1, k1 = schedule.copied(t1)
    copy_at = schedule.copy_moment(day)
    alive = stored * schedule.share * schedule.alive(copy_at)
    moved_today = alive * max(0.0, c1 - c0)
    month.copied += moved_today
    if schedule.bulk_copying(day):
        month.bulk_copied += moved_today
        if schedule.listing_starts(day) and billing.mean_object:
            # the copy tool pages through every key still at the source, copied or not
            at_source = sum(stored * other.share * other.alive(t0) * other.copied(t0)[1] for other in schedules)
            month.listed_objects += at_source / billing.mean_object
    low, high = schedule.remaining(copy_at)
    if moved_today and not math.isinf(high):
        share, mean_life = young(low, high, billing.destination_minimum_days)
        month.destination_young_bytes += moved_today * share
        month.destination_young_life_days += moved_today * share * mean_life
    when = schedule.source_deleted_at(day)
    deleted = stored * schedule.share * schedule.alive(when) * max(0.0, k0 - k1)
    if deleted and billing.source_minimum_days:
        share, mean_age = _source_age_share(*schedule.remaining(when), when, inputs)
        month.source_young_bytes += deleted * share
        month.source_young_age_days += deleted * share * mean_age


def _source_age_share(low: float, high: float, when: float, inputs: MigrationInputs) -> tuple[float, float]:
    """(share of the bytes the source deletes at ``when`` that are younger than its minimum, their mean age)."""
    retention = inputs.workload.storage.retention
    minimum = inputs.billing.source_minimum_days
    age = inputs.options.data_age_days
    if retention is not None and not math.isinf(high):
        retention_days = retention / DAY_S
        return young(retention_days - high, retention_days - low, minimum)
    if age is not None:
        return young(age + when, age + when, minimum)
    return 0.0, 0.0


def _follow_month(schedules: list[Schedule], index: int, inputs: MigrationInputs) -> MonthFlow:
    """One month of the data, day by day: where the bytes are (a mean over its days) and what moves."""
    stored, start = inputs.stored, inputs.start
    month = MonthFlow()
    first_day = (inputs.month_starts[index] - start).days
    last_day = (inputs.month_starts[index + 1] - start).days
    total_now = float(inputs.workload.stored_bytes(index))
    for day in range(first_day, last_day):
        middle = day + 0.5
        only, held, copied_bytes = _state(schedules, stored, middle)
        legacy = sum(stored * s.share * s.alive(middle) for s in schedules)
        new = max(0.0, total_now - legacy)
        month.days += 1
        month.source_only += only
        month.source += held
        month.destination += copied_bytes + new
        month.new += new
        month.total += only + copied_bytes + new
        for schedule in schedules:
            if schedule.alive(float(day)):
                _follow_slice(month, schedule, schedules, day, inputs)
    return month


def _follow_data(schedules: list[Schedule], inputs: MigrationInputs) -> list[MonthFlow]:
    """Every month of the horizon; the destination is checked once the bulk copy is over (a listing
    of what was copied, or a HEAD each)."""
    flows = [_follow_month(schedules, index, inputs) for index in range(inputs.months)]
    mean_object = inputs.billing.mean_object
    bulk_objects = sum(m.bulk_copied for m in flows) / mean_object if mean_object else 0.0
    last_bulk = max((i for i, m in enumerate(flows) if m.bulk_copied), default=None)
    if last_bulk is not None and inputs.billing.checks == "list":
        flows[last_bulk].verified_objects = bulk_objects
    return flows


def simulate_timeline(
    strategy: Strategy, schedules: list[Schedule], inputs: MigrationInputs, *, reads_follow_copies: bool
) -> StrategyRun:
    """Day by day, where the data stored at the start lives; month by month, what each side bills.

    ``reads_follow_copies``: reads go to the destination from the first day (copy-on-read serves
    them there, copying on a miss); otherwise each side serves the reads of the data it holds.
    """
    flows = _follow_data(schedules, inputs)
    done_day, done_by_copy = max((s.done() for s in schedules), default=(0.0, False))
    timeline: list[TimelineMonth] = []
    one_time: list[LineItem] = []
    warnings: list[str] = []
    breached: dict[str, tuple[str, int]] = {}  # by side: its first breach in words, and the months with one
    stay_total = move_total = ZERO
    for index, flow in enumerate(flows):
        prices = inputs.prices[index]
        billed = bill_month(index, flow, prices, inputs.billing, reads_follow_copies)
        one_time += billed.one_time
        warnings += [w for w in billed.warnings if w not in warnings]
        for side, statement in billed.breaches.items():
            first, months = breached.get(side, (f"month {index + 1}: {statement}", 0))
            breached[side] = (first, months + 1)
        move = billed.source_usd + billed.destination_usd
        stay_total += prices.stay_usd
        move_total += move
        first_day = (inputs.month_starts[index] - inputs.start).days
        last_day = (inputs.month_starts[index + 1] - inputs.start).days
        end_only, _, _ = _state(schedules, inputs.stored, float(last_day))
        end_total = float(inputs.workload.stored_bytes(index)) or 1.0
        days = flow.days or 1
        timeline.append(
            TimelineMonth(
                month=index + 1,
                as_of=prices.as_of,
                stay_usd=prices.stay_usd,
                source_usd=billed.source_usd,
                destination_usd=billed.destination_usd,
                move_usd=move,
                one_time_usd=sum((i.amount_usd for i in billed.one_time), ZERO),
                cumulative_stay_usd=stay_total,
                cumulative_move_usd=move_total,
                source_bytes=round(flow.source / days),
                destination_bytes=round(flow.destination / days),
                copied_bytes=round(flow.copied),
                at_source_share=min(1.0, end_only / end_total),
                moved_share=max(0.0, 1 - end_only / end_total),
                completed_day=done_day if first_day < done_day <= last_day else None,
                stay_price_status=prices.stay_price_status,
                source_price_status=billed.source_price_status,
                destination_price_status=billed.destination_price_status,
            )
        )
    notes = [
        f"the {side} side breaches a provider policy in {months} of {len(flows)} months, first in {first}"
        for side, (first, months) in breached.items()
    ]
    return StrategyRun(
        strategy=strategy,
        timeline=timeline,
        one_time=one_time,
        done_day=done_day,
        done_by_copy=done_by_copy,
        warnings=warnings,
        notes=notes,
    )
