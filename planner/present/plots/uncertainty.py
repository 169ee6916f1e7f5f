"""The tornado: what moves the favourite's bill as each uncertain input spans its range."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from planner.errors import InputError
from planner.evidence import PRICE_MARKERS
from planner.present.plots.common import PRICE_NOTE, cut, drawing, plot_target, usd_axis, usd_label

if TYPE_CHECKING:
    from planner.decide.uncertainty import UncertainAnswer


def save_tornado_plot(answer: UncertainAnswer, path: Path) -> None:
    """The favourite's bill over the horizon as each uncertain input moves from its p10 to its p90, the
    others at their central values: one bar per input, widest at the top, about the all-central bill."""
    target = plot_target(path, "--tornado-plot")
    swings = answer.tornado
    if not swings or answer.central_usd is None:
        raise InputError("no uncertain input moves the favourite's bill: nothing to plot", source=str(path))
    favourite = answer.options[0].option
    mark = PRICE_MARKERS.get(answer.options[0].price_status, "")  # the favourite's weakest price
    centre = answer.central_usd
    with drawing(10.0, max(3.0, 0.55 * len(swings) + 1.8), target) as figure:
        ax = figure.subplots()
        for row, swing in enumerate(reversed(swings)):
            for value, colour, label in (
                (swing.at_p10_usd, "#4C78A8", "input at its p10"),
                (swing.at_p90_usd, "#F58518", "input at its p90"),
            ):
                ax.barh(row, value - centre, left=centre, height=0.6, color=colour, label=label if row == 0 else None)
            index = "" if swing.first_order_index is None else f"  (S1 {swing.first_order_index:.2f})"
            ax.annotate(  # two "$" in one text would start matplotlib's mathtext: escaped
                f"{usd_label(swing.at_p10_usd)}{mark} .. {usd_label(swing.at_p90_usd)}{mark}{index}".replace(
                    "$", r"\$"
                ),
                xy=(max(swing.at_p10_usd, swing.at_p90_usd, centre), row),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                fontsize=8.5,
            )
        ax.axvline(centre, color="black", linewidth=1.0)
        ax.set_yticks(range(len(swings)), [cut(s.field, 40) for s in reversed(swings)])
        usd_axis(ax.xaxis)
        ax.set_xlabel(f"{favourite}: bill over {answer.months} months (USD), every other input at its central value")
        ax.grid(axis="y", visible=False)
        ax.set_title(
            f"What moves the favourite's bill: {favourite} at {usd_label(centre)}{mark} over {answer.months} months"
            " with every input central"
            f" ({answer.samples:,} samples, seed {answer.seed})",
            loc="left",
        )
        ax.legend(loc="lower right", title=PRICE_NOTE if mark else None)
        low = min(centre, *(min(s.at_p10_usd, s.at_p90_usd) for s in swings))
        high = max(centre, *(max(s.at_p10_usd, s.at_p90_usd) for s in swings))
        span = max(high - low, abs(centre) * 0.01, 1e-9)
        ax.set_xlim(low - 0.05 * span, high + 0.45 * span)
