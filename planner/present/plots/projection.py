"""A cost projection month by month, stacked by category, with price changes marked."""

from __future__ import annotations

import math
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from planner.evidence import PRICE_MARKERS, price_marked, weakest_price
from planner.present.plots.common import (
    CATEGORIES,
    CATEGORY_COLOURS,
    PRICE_NOTE,
    category_name,
    drawing,
    plot_target,
    usd_axis,
    usd_label,
)

if TYPE_CHECKING:
    from planner.costing.bills import CostProjection


def save_projection_plot(projection: CostProjection, path: Path) -> None:
    """Month-by-month cost stacked by category, with each change of price table marked."""
    import numpy as np

    target = plot_target(path)
    months = projection.months
    count = len(months)
    with drawing(max(9.0, min(16.0, 0.35 * count + 5.0)), 6.0, target) as figure:
        ax = figure.subplots()
        x = np.arange(1, count + 1)
        positive = np.zeros(count)
        negative = np.zeros(count)
        for category in CATEGORIES:
            amounts = np.array([float(m.cost.by_category().get(category, Decimal(0))) for m in months])
            if not amounts.any():
                continue
            base = np.where(amounts >= 0, positive, negative)
            ax.bar(x, amounts, bottom=base, width=0.8, color=CATEGORY_COLOURS[category], label=category_name(category))
            positive += np.where(amounts >= 0, amounts, 0.0)
            negative += np.where(amounts < 0, amounts, 0.0)
        top = float(max(positive.max(initial=0.0), 1e-9))
        previous = months[0].cost.table_version if months else ""
        changes = 0
        for index, month in enumerate(months[1:], start=1):
            version = month.cost.table_version
            if version == previous:
                continue
            ax.axvline(x[index] - 0.5, color="black", linestyle="--", linewidth=1.2)
            room_right = index < count / 2
            ax.annotate(
                f"prices change on {month.as_of}:\n{previous} -> {version}",
                xy=(x[index] - 0.5, top * (1.22 - 0.1 * (changes % 2))),
                xytext=(4 if room_right else -4, 0),
                textcoords="offset points",
                ha="left" if room_right else "right",
                fontsize=8.5,
                va="top",
                bbox={"boxstyle": "round,pad=0.25", "facecolor": "white", "edgecolor": "#999999", "alpha": 0.9},
            )
            previous = version
            changes += 1
        step = max(1, math.ceil(count / 18))
        ticks = list(range(0, count, step))
        ax.set_xticks(x[ticks], [f"{months[i].month}\n{months[i].as_of:%b %Y}" for i in ticks])
        ax.set_xlim(0.4, count + 0.6)
        ax.set_ylim(min(0.0, float(negative.min(initial=0.0)) * 1.1), top * 1.3)
        usd_axis(ax.yaxis)
        ax.set_xlabel("month of the horizon (priced with the table in force that month)")
        ax.set_ylabel("cost that month (USD)")
        ax.grid(axis="x", visible=False)
        first = months[0].cost.table_version if months else "-"
        status = weakest_price(i.price_status.value for m in months for i in m.cost.line_items)
        ax.set_title(
            f"{projection.provider} {projection.storage_class}: {price_marked(usd_label(projection.total_usd), status)}"
            f" over {count} months"
            f" (prices from {first}{'' if changes else ', unchanged'})",
            loc="left",
        )
        marked = PRICE_MARKERS.get(status)
        ax.legend(loc="upper left", ncols=4, title="category" + (f"  ({PRICE_NOTE})" if marked else ""))
