"""Pictures of the library's results, drawn with matplotlib's Agg backend into PNG or SVG files.

Each ``save_*_plot`` takes one result model and a path ending in ``.png`` or ``.svg``. The
figures only lay out what the library returns; the cost-vs-egress panel of the recommendation
plot draws the curves the ``Recommendation`` holds (the exact bill on a grid of egress volumes,
everything else held as in the workload), so its curves cross exactly where the break-even
points say.

``common`` holds what every plot shares (file checks, house style, colours, axis formats); each
other module draws one family of results.

matplotlib is imported when a plot is drawn, never when this package is imported, so the CLI
starts fast and works without the ``plot`` extra until a plot is asked for.
"""

from __future__ import annotations

from planner.present.plots.common import (
    MISSING_MATPLOTLIB,
    SUFFIXES,
    byte_unit,
    matplotlib_available,
    usd_label,
    usd_tick,
)
from planner.present.plots.common import usd_ticks as usd_ticks
from planner.present.plots.migration import save_migration_plot
from planner.present.plots.profile import save_profile_plot
from planner.present.plots.projection import save_projection_plot
from planner.present.plots.recommendation import save_recommendation_plot
from planner.present.plots.simulation import save_simulation_plot
from planner.present.plots.sweep import save_sweep_plot
from planner.present.plots.uncertainty import save_tornado_plot

__all__ = [
    "MISSING_MATPLOTLIB",
    "SUFFIXES",
    "byte_unit",
    "matplotlib_available",
    "save_migration_plot",
    "save_profile_plot",
    "save_projection_plot",
    "save_recommendation_plot",
    "save_simulation_plot",
    "save_sweep_plot",
    "save_tornado_plot",
    "usd_label",
    "usd_tick",
]
