"""A sweep: every option's bill along one field, or the cheapest option over a grid of two."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from planner.evidence import PRICE_MARKERS, price_marked
from planner.present.plots.common import (
    PALETTE,
    PRICE_NOTE,
    SPARE_COLOURS,
    drawing,
    plot_target,
    table_colour,
    usd_axis,
    usd_label,
)
from planner.workload import format_field_value

if TYPE_CHECKING:
    from planner.decide.sweep import Sweep

MAX_CELL_LABELS = 400
"""Cells of a heat map each labelled with their bill; a larger grid is coloured only."""


def _option_colours(options: Sequence[str]) -> dict[str, str]:
    """A colour per option: the provider's colour for its first class, spare colours for the others."""
    palette = list(PALETTE) + list(SPARE_COLOURS)
    colours: dict[str, str] = {}
    for option in options:
        own = table_colour(option.split(":", 1)[0])
        if own is not None and own not in colours.values():
            colours[option] = own
        else:
            spare = [c for c in palette if c not in colours.values()]
            colours[option] = spare[0] if spare else "#444444"
    return colours


def _priced_label(result: Sweep, option: str) -> str:
    """An option's name with the mark of the weakest price its bills rest on over the grid."""
    return price_marked(option, result.option_price_status(option))


def _any_mark(result: Sweep, options: Sequence[str]) -> bool:
    return any(PRICE_MARKERS.get(result.option_price_status(o)) for o in options)


def save_sweep_plot(result: Sweep, path: Path) -> None:
    """Two fields: a heat map of the cheapest option at every point, each cell with its bill. One
    field: every option's monthly bill along it, the cheapest drawn bold."""
    target = plot_target(path)
    winners = [cell.winner for cell in result.cells]
    # the options that are cheapest somewhere, the most often cheapest first
    ranked = sorted({w for w in winners if w is not None}, key=lambda w: (-winners.count(w), w))
    if len(result.axes) == 1:
        _bills_along(result, ranked, target)
    else:
        _cheapest_map(result, ranked, target)


def _bills_along(result: Sweep, ranked: list[str], target: Path) -> None:
    """One field: every option's monthly bill along it, bold where it is cheapest somewhere, dotted
    where it breaks a provider's policy."""
    import numpy as np

    axis = result.axes[0]
    colours = _option_colours(ranked + [o for o in result.options if o not in ranked])
    with drawing(10.0, 6.0, target) as figure:
        ax = figure.subplots()
        x = np.array(axis.values)
        for option in result.options:
            bills = np.array([float(cell.costs_usd[option]) for cell in result.cells])
            broken = np.array([option in cell.breaches for cell in result.cells])
            bold = option in ranked
            colour = colours[option]
            ax.plot(
                x,
                np.where(broken, np.nan, bills),
                color=colour,
                linewidth=2.4 if bold else 1.0,
                label=_priced_label(result, option),
            )
            if broken.any():  # where its bill breaks a provider policy: dotted, never the cheapest
                ax.plot(x, np.where(broken, bills, np.nan), color=colour, linewidth=1.0, linestyle=":")
        ticks = ax.get_xticks()
        ax.set_xticks(ticks, [format_field_value(axis.field, float(t)) for t in ticks])
        ax.set_xlim(float(x[0]), float(x[-1]))
        cheapest = [float(c.costs_usd[c.winner]) for c in result.cells if c.winner is not None]
        highest = max((float(v) for c in result.cells for v in c.costs_usd.values()), default=0.0)
        if cheapest and highest > 4 * max(cheapest):
            # the dearest options would flatten the ones worth comparing: cut above them
            ax.set_ylim(0, 4 * max(cheapest))
            ax.text(0.99, 0.98, "options above are cut off", transform=ax.transAxes, ha="right", va="top")
        usd_axis(ax.yaxis)
        ax.set_xlabel(axis.field)
        ax.set_ylabel("monthly bill (USD)")
        ax.set_title(f"{result.workload}: every option's monthly bill over {axis.field}", loc="left")
        title = "bold: cheapest somewhere; dotted: breaks a policy"
        if _any_mark(result, result.options):
            title += "\n" + PRICE_NOTE
        ax.legend(loc="upper left", fontsize=8, ncols=2, title=title)


def _cheapest_map(result: Sweep, ranked: list[str], target: Path) -> None:
    """Two fields: a heat map coloured by the cheapest option at each point, each cell labelled with
    its bill while the grid is small enough."""
    import numpy as np
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    across, up = result.axes
    colours = _option_colours(ranked)
    index = {option: i for i, option in enumerate(ranked)}
    none = len(ranked)
    winners = [cell.winner for cell in result.cells]
    grid = np.array([index.get(w, none) if w is not None else none for w in winners]).reshape(
        len(across.values), len(up.values)
    )
    costs = [
        (float(c.costs_usd[c.winner]), PRICE_MARKERS.get(c.price_status.get(c.winner, ""), ""))
        if c.winner is not None
        else None
        for c in result.cells
    ]
    cmap = ListedColormap([colours[o] for o in ranked] + ["#DDDDDD"])
    columns, rows = len(across.values), len(up.values)
    with drawing(max(9.0, min(18.0, 0.9 * columns + 4.0)), max(5.0, min(14.0, 0.5 * rows + 3.0)), target) as figure:
        ax = figure.subplots()
        ax.imshow(grid.T, origin="lower", aspect="auto", cmap=cmap, vmin=-0.5, vmax=none + 0.5)
        ax.grid(visible=False)
        step_x, step_y = max(1, math.ceil(columns / 12)), max(1, math.ceil(rows / 16))
        ax.set_xticks(range(0, columns, step_x), [format_field_value(across.field, v) for v in across.values[::step_x]])
        ax.set_yticks(range(0, rows, step_y), [format_field_value(up.field, v) for v in up.values[::step_y]])
        if columns * rows <= MAX_CELL_LABELS:
            size = 8.5 if columns <= 10 else 6.5
            for k, cost in enumerate(costs):
                i, j = divmod(k, rows)
                shown = "none" if cost is None else usd_label(cost[0]) + cost[1]
                ax.text(i, j, shown, ha="center", va="center", fontsize=size)
        ax.set_xlabel(across.field)
        ax.set_ylabel(up.field)
        ax.set_title(
            f"{result.workload}: the cheapest option breaking no policy, and its monthly bill"
            f" ({len(result.options)} options priced at each point)",
            loc="left",
        )
        handles = [Patch(color=colours[o], label=_priced_label(result, o)) for o in ranked]
        if none in grid:
            handles.append(Patch(color="#DDDDDD", label="none: every option breaks a policy"))
        title = "cheapest" + ("\n" + PRICE_NOTE.replace("; ", "\n") if _any_mark(result, ranked) else "")
        figure.legend(handles=handles, loc="outside right upper", title=title)
