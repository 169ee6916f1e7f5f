"""A migration plan: what moving costs, how long it takes, and when it pays back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.evidence import MARKERS, legend, weakest_price
from planner.present.text.fit import Reasons
from planner.present.text.tables import heading, line_item_row, marked_usd, price_freshness, price_legends, table
from planner.units import format_bytes

if TYPE_CHECKING:  # the results' modules (and numpy behind them) only for the type checker: start-up
    from planner.decide.migration import MigrationPlan
    from planner.decide.migration.models import TimelineMonth

_COPY_HOSTS = {
    "on-premises": "the copy runs on a host outside both clouds",
    "source-region": "the copy runs on a VM in the source's region",
    "destination-service": "the destination's own migration service copies",
}


def _days(days: float | None) -> str:
    if days is None or days == float("inf"):
        return "not within the horizon"
    return f"{days * 24:,.1f} hours" if days < 2 else f"{days:,.1f} days"


def migration(plan: MigrationPlan, fmt: str, *, width: int | None = None) -> str:
    """A migration plan: its summary, the strategies compared, the one-time costs, what bounds the
    duration, and where the data lives and what each side bills month by month."""
    parts = [
        *_summary(plan, fmt),
        "",
        heading("Strategies compared", fmt, level=3),
        _strategies(plan, fmt, width=width),
        "",
        heading("One-time costs", fmt, level=3),
        _one_time(plan, fmt, width=width),
        *price_legends((item.price_status.value for item in plan.one_time), width=width),
        *price_freshness(plan.one_time, width=width),
        "",
        heading("What bounds the duration", fmt, level=3),
        _bounds(plan, fmt, width=width),
        legend(),
        "",
        heading("Where the data lives and what each side bills", fmt, level=3),
        _timeline(plan, fmt, width=width),
    ]
    if plan.assumptions:
        parts += ["", heading("Assumptions", fmt, level=3)] + [f"- {a}" for a in plan.assumptions]
    return "\n".join(parts)


def _summary(plan: MigrationPlan, fmt: str) -> list[str]:
    """The heading and the plan in five lines: what moves, how, for how much, how long, and payback."""
    # The duration is the timeline's; its mark is the evidence of the copy bound that sets it, if one does.
    duration_mark = "" if plan.duration_evidence is None else MARKERS[plan.duration_evidence]
    if plan.duration_hours == float("inf"):
        share = f"{plan.left_behind_share:.1%} of the data still only at {plan.source}"
        hours = f"not complete within the {plan.horizon_months}-month horizon ({share})"
    else:
        hours = f"{plan.duration_hours:,.1f} hours ({plan.duration_hours / 24:,.1f} days)"
    payback = (
        f"Pays back in month {plan.payback_month} (the first month the cumulative cost of moving is at most staying's)."
        if plan.payback_month is not None
        else f"Does not pay back within the {plan.horizon_months}-month horizon."
    )
    last = plan.timeline[-1]
    return [
        heading(f"Migrate {plan.workload}: {plan.source} -> {plan.destination} ({plan.strategy})", fmt),
        f"Moves {format_bytes(plan.stored_bytes)} in {plan.objects:,} objects, starting {plan.start}; "
        + ("nothing is copied." if plan.strategy == "age-out" else f"{_COPY_HOSTS[plan.copy_host]}."),
        f"Strategy: {plan.strategy}; {plan.chosen_because}.",
        f"One-time cost: {marked_usd(plan.one_time_cost_usd, one_time_status(plan))}. "
        f"Duration: {hours}{duration_mark}; bound by {plan.bottleneck}.",
        f"Month 1: {marked_usd(plan.monthly_before_usd, plan.timeline[0].stay_price_status)} to stay; "
        f"month {last.month}: {marked_usd(last.stay_usd, last.stay_price_status)} to stay, "
        f"{marked_usd(plan.monthly_after_usd, moving_status(last))} moving. {payback}",
    ]


def _strategies(plan: MigrationPlan, fmt: str, *, width: int | None) -> str:
    """Every strategy's cost, duration and payback, or why it does not apply."""
    return table(
        ["strategy", "cost within horizon", "one-time", "duration", "payback month", "note"],
        [
            (
                c.strategy,
                "-" if c.total_move_usd is None else marked_usd(c.total_move_usd, c.move_price_status),
                "-" if c.one_time_cost_usd is None else marked_usd(c.one_time_cost_usd, c.one_time_price_status),
                _days(c.duration_days) + ("" if c.duration_evidence is None else MARKERS[c.duration_evidence]),
                str(c.payback_month or "-"),
                "chosen" if c.strategy == plan.strategy else "",
            )
            if c.applicable
            else (c.strategy, "-", "-", "-", "-", Reasons((f"does not apply: {c.reason}",)))
            for c in plan.compared
        ],
        fmt,
        width=width,
    )


def _one_time(plan: MigrationPlan, fmt: str, *, width: int | None) -> str:
    """The one-time line items of the move and their total."""
    items = [line_item_row(item, version=True) for item in plan.one_time]
    items.append(("total", "", "", "", "", marked_usd(plan.one_time_cost_usd, one_time_status(plan)), ""))
    return table(["category", "item", "quantity", "unit", "unit price", "amount", "prices"], items, fmt, width=width)


def one_time_status(plan: MigrationPlan) -> str:
    """The weakest sourcing among the prices of the move's one-time line items."""
    return weakest_price(item.price_status.value for item in plan.one_time)


def _bounds(plan: MigrationPlan, fmt: str, *, width: int | None) -> str:
    """Each bound on the copy's duration, with its evidence."""
    return table(
        ["bound", "hours", "evidence", "detail"],
        [
            (
                b.name,
                ("never" if b.hours == float("inf") else f"{b.hours:,.2f}")
                + ("" if b.evidence is None else MARKERS[b.evidence]),
                b.evidence or "stated",
                b.detail,
            )
            for b in plan.bounds
        ],
        fmt,
        width=width,
    )


def moving_status(month: TimelineMonth) -> str:
    """The weakest sourcing of both sides' bills in a month of moving."""
    return weakest_price((month.source_price_status, month.destination_price_status))


def _timeline_rows(plan: MigrationPlan) -> list[tuple[str, ...]]:
    """Each month's row, every amount marked with the weakest price it rests on (a cumulative amount
    with the weakest of the months it sums)."""
    rows: list[tuple[str, ...]] = []
    stays: list[str] = []
    moves: list[str] = []
    for m in plan.timeline:
        stays.append(m.stay_price_status)
        moves.append(moving_status(m))
        one_time = [i.price_status.value for i in plan.one_time if i.description.startswith(f"month {m.month}, ")]
        rows.append(
            (
                str(m.month),
                m.as_of.isoformat(),
                format_bytes(m.source_bytes),
                format_bytes(m.destination_bytes),
                format_bytes(m.copied_bytes),
                marked_usd(m.stay_usd, m.stay_price_status),
                marked_usd(m.source_usd, m.source_price_status),
                marked_usd(m.destination_usd, m.destination_price_status),
                marked_usd(m.one_time_usd, weakest_price(one_time)),
                marked_usd(m.cumulative_stay_usd, weakest_price(stays)),
                marked_usd(m.cumulative_move_usd, weakest_price(moves)),
                f"{m.moved_share:.0%}",
            )
        )
    return rows


def _timeline(plan: MigrationPlan, fmt: str, *, width: int | None) -> str:
    """Month by month: the bytes on each side, what each side bills, and the running totals."""
    statuses = [s for m in plan.timeline for s in (m.stay_price_status, moving_status(m))]
    return "\n".join(
        [
            table(
                [
                    "month",
                    "priced on",
                    "at source",
                    "at destination",
                    "copied",
                    "stay",
                    "source",
                    "destination",
                    "of which one-time",
                    "cumulative stay",
                    "cumulative move",
                    "moved",
                ],
                _timeline_rows(plan),
                fmt,
                width=width,
            ),
            *price_legends(statuses, width=width),
        ]
    )
