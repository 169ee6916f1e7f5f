"""A migration plan: cumulative cost of staying against moving, and the payback month."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from planner.evidence import PRICE_MARKERS, price_marked, weakest_price
from planner.present.plots.common import PRICE_NOTE, drawing, plot_target, usd_axis, usd_label
from planner.present.text.migrations import moving_status, one_time_status

if TYPE_CHECKING:
    from planner.decide.migration import MigrationPlan


def save_migration_plot(plan: MigrationPlan, path: Path) -> None:
    """Cumulative cost of staying against moving, with the month moving pays back marked."""
    target = plot_target(path)
    timeline = plan.timeline
    with drawing(10.0, 7.0, target) as figure:
        cumulative, monthly = figure.subplots(2, 1, sharex=True, height_ratios=[2.2, 1])
        months = [m.month for m in timeline]
        stay = [float(m.cumulative_stay_usd) for m in timeline]
        move = [float(m.cumulative_move_usd) for m in timeline]
        # each side marked with the weakest price its bills rest on over the horizon
        stay_status = weakest_price(m.stay_price_status for m in timeline)
        move_status = weakest_price(moving_status(m) for m in timeline)
        stay_label = price_marked(f"stay at {plan.source}", stay_status)
        move_label = price_marked(f"move to {plan.destination}", move_status)
        cumulative.plot(months, stay, marker="o", markersize=4, color="#999999", linewidth=2, label=stay_label)
        cumulative.plot(months, move, marker="o", markersize=4, color="#0072B2", linewidth=2, label=move_label)
        if timeline:
            cumulative.annotate(
                f"one-time cost of the move: {price_marked(usd_label(plan.one_time_cost_usd), one_time_status(plan))}",
                xy=(months[0], move[0]),
                xytext=(14, 10),
                textcoords="offset points",
                fontsize=8.5,
                arrowprops={"arrowstyle": "-", "color": "#333333", "linewidth": 0.8},
            )
        if plan.payback_month is not None and timeline:
            month = next(m for m in timeline if m.month == plan.payback_month)
            cumulative.axvline(plan.payback_month, color="#009E73", linestyle="--", linewidth=1.4)
            cumulative.plot(
                [plan.payback_month],
                [float(month.cumulative_move_usd)],
                marker="o",
                markersize=9,
                color="white",
                markeredgecolor="#009E73",
                markeredgewidth=2,
                zorder=4,
            )
            cumulative.annotate(
                f"pays back in month {plan.payback_month} ({month.as_of})",
                xy=(plan.payback_month, float(month.cumulative_move_usd)),
                xytext=(10, -28),
                textcoords="offset points",
                fontsize=9,
                fontweight="bold",
                color="#006B4F",
            )
            verdict = f"pays back in month {plan.payback_month}"
        else:
            verdict = f"does not pay back within the {plan.horizon_months}-month horizon"
        if timeline:
            saving = plan.saving_usd
            outcome = f"saves {usd_label(saving)}" if saving >= 0 else f"costs {usd_label(-saving)} more"
            cumulative.set_title(
                f"Cumulative cost: moving {outcome} over {plan.horizon_months} months; {verdict}", loc="left"
            )
        cumulative.set_ylim(bottom=0)
        usd_axis(cumulative.yaxis)
        cumulative.set_ylabel("cumulative cost (USD)")
        marks = any(PRICE_MARKERS.get(status) for status in (stay_status, move_status, one_time_status(plan)))
        cumulative.legend(
            loc="upper left",
            title=PRICE_NOTE if marks else None,
        )
        monthly.plot(months, [float(m.stay_usd) for m in timeline], color="#999999", marker=".", label="stay")
        monthly.plot(months, [float(m.move_usd) for m in timeline], color="#0072B2", marker=".", label="move")
        monthly.set_ylim(bottom=0)
        usd_axis(monthly.yaxis)
        monthly.set_ylabel("that month (USD)")
        monthly.set_xlabel("month after the move starts")
        monthly.set_title("Monthly cost (the move month includes the one-time cost)", loc="left")
        monthly.legend(loc="upper right")
        if months:
            step = max(1, math.ceil(len(months) / 24))
            monthly.set_xticks(months[::step])
        figure.suptitle(
            f"Migrating {plan.workload}: {plan.source} -> {plan.destination} ({plan.strategy}, from {plan.start})",
            fontsize=13,
            fontweight="bold",
        )
