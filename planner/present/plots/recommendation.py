"""The recommendation: each option's bill stacked by category, and cost against egress volume."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from planner.evidence import PRICE_MARKERS, price_marked
from planner.present.plots.common import (
    CATEGORIES,
    CATEGORY_COLOURS,
    MAX_OPTIONS,
    PRICE_NOTE,
    byte_unit,
    category_name,
    cut,
    drawing,
    number_axis,
    plot_target,
    provider_colour,
    usd_axis,
    usd_label,
)
from planner.units import format_bytes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from planner.decide.recommendation import BreakEven, EgressCurves, RankedOption, Recommendation

_REASON_WIDTH = 52  # characters of a rejection reason per line beside its bar


def save_recommendation_plot(result: Recommendation, path: Path) -> None:
    """This month's bill per option stacked by category, and monthly cost against egress volume (the
    curves the recommendation holds, priced as it was: with its price overrides, if any)."""
    target = plot_target(path)
    shown = result.ranking[:MAX_OPTIONS]
    with drawing(12.0, 5.0 + 0.36 * len(shown) + 5.5, target) as figure:
        bars, curves = figure.subplots(2, 1, height_ratios=[1.0 + 0.07 * len(shown), 1.35])
        _option_bars(bars, result, shown)
        _egress_curves(curves, result)
        horizon = f"{result.months}-month horizon"
        figure.suptitle(
            f"{result.workload.name}: cost by option (prices in force on {result.as_of}, {horizon})",
            fontsize=13,
            fontweight="bold",
        )


def _option_bars(ax: Axes, result: Recommendation, shown: Sequence[RankedOption]) -> None:
    import numpy as np

    rows = np.arange(len(shown))
    totals = [float(o.monthly_cost_usd) for o in shown]
    largest = max([*totals, 1e-9])
    positive = np.zeros(len(shown))
    negative = np.zeros(len(shown))
    for category in CATEGORIES:
        amounts = np.array([float(o.cost.by_category().get(category, Decimal(0))) for o in shown])
        if not amounts.any():
            continue
        base = np.where(amounts >= 0, positive, negative)
        ax.barh(
            rows,
            amounts,
            left=base,
            height=0.7,
            color=CATEGORY_COLOURS[category],
            label=category_name(category),
            edgecolor="white",
            linewidth=0.5,
        )
        positive += np.where(amounts >= 0, amounts, 0.0)
        negative += np.where(amounts < 0, amounts, 0.0)
    for row, option in zip(rows, shown, strict=True):
        if not option.feasible:  # hatch over the whole bar: the bill is real, the option is not usable
            ax.barh(row, positive[row], height=0.7, color="none", edgecolor="#555555", hatch="///", linewidth=0)
        if option.chosen:
            verdict = "CHOSEN"
        elif option.status == "ok":
            verdict = "ok"
        elif option.feasible:
            verdict = "unverified"
        else:
            reason = cut("; ".join(option.violations) or "see the ranking", 2 * _REASON_WIDTH)
            verdict = "\n".join(textwrap.wrap(f"rejected: {reason}", _REASON_WIDTH))
        ax.text(
            positive[row] + largest * 0.01,
            float(row),
            f"{price_marked(usd_label(option.monthly_cost_usd), option.price_status)}  {verdict}",
            va="center",
            fontsize=8 if "\n" in verdict else 8.5,
            linespacing=1.0,
            fontweight="bold" if option.chosen else "normal",
            color="#000000" if option.feasible else "#666666",
        )
    labels = [f"{o.rank}. {o.label if o.cdn else o.provider} {o.storage_class}" for o in shown]
    ax.set_yticks(rows, labels)
    for tick, option in zip(ax.get_yticklabels(), shown, strict=True):
        if option.chosen:
            tick.set_fontweight("bold")
        if not option.feasible:
            tick.set_color("#666666")
    ax.invert_yaxis()
    ax.set_xlim(min(0.0, float(negative.min())) * 1.1, largest * 1.9)
    usd_axis(ax.xaxis)
    ax.set_xlabel("cost this month (USD)")
    ax.grid(axis="y", visible=False)
    hidden = len(result.ranking) - len(shown)
    note = f" ({hidden} more options not shown)" if hidden > 0 else ""
    ax.set_title(f"This month's bill by option, stacked by line-item category; hatched = rejected{note}", loc="left")
    marks = any(PRICE_MARKERS.get(o.price_status) for o in shown)
    ax.legend(
        loc="upper left",
        bbox_to_anchor=(0.0, -0.07 - 0.12 / max(1, len(shown)) * 4),
        ncols=9,
        title="category" + (f"  ({PRICE_NOTE})" if marks else ""),
    )


def _egress_curves(ax: Axes, result: Recommendation) -> None:
    """Each option's monthly bill on the egress grid the recommendation holds, this workload's egress
    marked, the break-even points numbered and explained under the panel."""
    held = result.egress_curves
    if held is None or not result.ranking:
        why = "no option could be priced" if not result.ranking else "no egress curves: recommend with curves=True"
        ax.text(0.5, 0.5, why, ha="center", transform=ax.transAxes)
        return
    right = float(held.egress_bytes[-1])
    scale, unit = byte_unit(right)
    colours: dict[str, str] = {}
    drawn = _draw_curves(ax, result, held, scale, colours)
    _mark_workload(ax, float(result.workload.traffic.egress), right, scale)
    notes = _mark_break_even(ax, result, held, scale, colours)
    _egress_axes(ax, result, drawn, right / scale, unit)
    if notes:
        wrapped = ["\n    ".join(textwrap.wrap(note, 130)) for note in notes]
        ax.text(0.0, -0.13, "\n".join(wrapped), transform=ax.transAxes, va="top", fontsize=8.5, color="#222222")


def _draw_curves(
    ax: Axes, result: Recommendation, held: EgressCurves, scale: float, colours: dict[str, str]
) -> list[float]:
    """One line per option (bold for the chosen, dashed for a rejected one); past a free-egress cap
    the line goes faint and an X marks the cap. Returns every amount drawn, for the axis limits."""
    import numpy as np

    by_rank = {o.rank: o for o in result.ranking}
    grid = np.asarray(held.egress_bytes)
    drawn: list[float] = []
    for curve in held.curves:
        option = by_rank[curve.rank]
        costs = curve.monthly_cost_usd
        state = "chosen" if option.chosen else option.status
        colour = provider_colour(option.provider, colours)
        cap = curve.free_egress_cap_bytes
        inside = grid <= cap if cap is not None else np.ones(len(grid), dtype=bool)
        ax.plot(
            grid[inside] / scale,
            np.asarray(costs)[inside],
            color=colour,
            linewidth=3.0 if option.chosen else 1.6,
            linestyle="-" if option.feasible else "--",
            label=price_marked(
                f"{option.label if option.cdn else option.provider} {option.storage_class}", option.price_status
            )
            + f" ({state})",
            zorder=3 if option.chosen else 2,
        )
        if cap is not None and not inside.all():
            # past its free-egress cap the option is rejected, whatever it would cost: a faint line
            beyond = ~inside
            beyond[max(0, int(np.argmax(beyond)) - 1)] = True
            ax.plot(
                grid[beyond] / scale, np.asarray(costs)[beyond], color=colour, linewidth=1.0, linestyle=":", alpha=0.5
            )
            ax.plot([cap / scale], [np.interp(cap, grid, costs)], marker="X", markersize=8, color=colour, zorder=4)
        drawn += costs
    return drawn


def _mark_workload(ax: Axes, current: float, right: float, scale: float) -> None:
    """A dotted vertical line at this workload's egress, labelled."""
    ax.axvline(current / scale, color="#333333", linestyle=":", linewidth=1.2)
    near_left = current < right * 0.08  # no room left of the line: write on its right
    ax.annotate(
        f"this workload: {format_bytes(current)} a month",
        xy=(current / scale, 0.02),
        xycoords=("data", "axes fraction"),
        xytext=(4 if near_left else -4, 0),
        textcoords="offset points",
        rotation=90,
        rotation_mode="anchor",
        ha="left",
        va="top" if near_left else "bottom",
        fontsize=8.5,
        color="#333333",
    )


def _mark_break_even(
    ax: Axes, result: Recommendation, held: EgressCurves, scale: float, colours: dict[str, str]
) -> list[str]:
    """Each finite egress break-even point: a numbered dot on the chosen curve where a rival crosses
    it, a vertical line where a policy limit lies; returns the notes that explain them."""
    chosen = next((o for o in result.ranking if o.chosen), result.ranking[0])
    chosen_costs = next((c.monthly_cost_usd for c in held.curves if c.rank == chosen.rank), None)
    labels = {f"{curve.provider}:{curve.storage_class}" for curve in held.curves}
    by_rank = {o.rank: o for o in result.ranking}  # behind compared CDNs a rival is named by its path
    labels |= {f"{o.label}:{o.storage_class}" for c in held.curves if (o := by_rank[c.rank]).cdn}
    points = sorted(
        (b for b in result.break_even if b.dimension == "egress" and math.isfinite(b.at)), key=lambda b: b.at
    )
    notes: list[str] = []
    number = 0
    for point in points:
        if point.kind == "policy" and point.other in labels:
            # a rival's bound that is a free-egress cap: the X on the capped curve marks it
            notes.append(f"X: {point.statement}")
            continue
        if point.other not in labels:  # a policy limit, not a rival: a vertical line of its own
            _policy_limit(ax, point, point.at / scale, colours.get(chosen.provider, "#333333"))
            notes.append(point.statement)
            continue
        number += 1
        y = chosen_costs[held.egress_bytes.index(point.at)] if chosen_costs is not None else math.nan
        _numbered_point(ax, point.at / scale, y, number)
        notes.append(f"{number}: {point.statement}")
    notes += [p.statement for p in result.break_even if p.dimension == "egress" and not math.isfinite(p.at)]
    return notes


def _policy_limit(ax: Axes, point: BreakEven, x: float, colour: str) -> None:
    """A policy limit of the chosen option (not a rival's crossing): a dash-dotted line, labelled."""
    ratio = f" ({point.ratio_to_stored:.2f}x stored)" if point.ratio_to_stored is not None else ""
    ax.axvline(x, color=colour, linestyle="-.", linewidth=1.4)
    ax.annotate(
        f"{point.option} {point.other} limit: {format_bytes(point.at)}{ratio}",
        xy=(x, 0.98),
        xycoords=("data", "axes fraction"),
        xytext=(-4, 0),
        textcoords="offset points",
        rotation=90,
        rotation_mode="anchor",
        ha="right",
        va="bottom",
        fontsize=8.5,
        color=colour,
    )


def _numbered_point(ax: Axes, x: float, y: float, number: int) -> None:
    """A crossing on the chosen curve: a white dot and its number in a circle above it."""
    ax.plot([x], [y], marker="o", markersize=7, color="white", markeredgecolor="black", zorder=4)
    ax.annotate(
        str(number),
        xy=(x, y),
        xytext=(0, 9 + 12 * ((number - 1) % 2)),
        textcoords="offset points",
        ha="center",
        fontsize=8.5,
        fontweight="bold",
        bbox={"boxstyle": "circle,pad=0.15", "facecolor": "white", "edgecolor": "#333333", "linewidth": 0.6},
        zorder=5,
    )


def _egress_axes(ax: Axes, result: Recommendation, drawn: list[float], right: float, unit: str) -> None:
    """Limits, scale (logarithmic when the bills span more than 30 times), formats, labels and legend."""
    positive = [c for c in drawn if c > 0]
    logarithmic = bool(positive) and max(positive) / min(positive) > 30
    ax.set_xlim(0, right)
    if logarithmic:
        from matplotlib.ticker import LogLocator, NullLocator

        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_ylim(min(positive) / 1.5, max(positive) * 1.5)
    else:
        ax.set_ylim(bottom=0, top=max(drawn, default=1.0) * 1.1)
    number_axis(ax.xaxis)
    usd_axis(ax.yaxis)
    ax.set_xlabel(f"internet egress a month ({unit})")
    ax.set_ylabel("cost a month (USD" + (", log scale)" if logarithmic else ")"))
    ax.set_title("Monthly cost vs egress, everything else as in the workload (numbered: break-even points)", loc="left")
    marks = any(PRICE_MARKERS.get(o.price_status) for o in result.ranking)
    ax.legend(
        loc="upper left", title=f"{result.months}-month verdict of each option" + (f"\n{PRICE_NOTE}" if marks else "")
    )
