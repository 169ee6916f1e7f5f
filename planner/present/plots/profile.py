"""A performance profile: throughput by object size and concurrency as heat maps."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.present.plots.common import drawing, plot_target
from planner.units import format_bytes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.colors import Normalize
    from matplotlib.figure import Figure
    from matplotlib.image import AxesImage

    from planner.measure.profile import Cell, Profile

MIB = 2**20


def _usable_value(cell: Cell) -> float | None:
    if cell.status == "missing" or cell.throughput_mib_per_s is None:
        return None
    return cell.throughput_mib_per_s


def save_profile_plot(profile: Profile, path: Path) -> None:
    """Throughput by object size and concurrency for PUT and GET: a heat map, missing cells marked."""
    target = plot_target(path)
    from matplotlib.colors import LogNorm

    operations = ("put", "get")
    # open-loop cells (arrivals at a rate) are latency-under-load points, not the closed-loop grid
    cells = [c for c in profile.cells if c.op in operations and c.object_size_bytes is not None and c.mode == "closed"]
    sizes = sorted({c.object_size_bytes for c in cells if c.object_size_bytes is not None})
    levels = sorted({c.concurrency for c in cells})
    values = [v for c in cells if (v := _usable_value(c)) is not None]
    norm = None
    if values:
        low, high = min(values), max(values)
        norm = LogNorm(vmin=low / 1.5 if low == high else low, vmax=high * 1.5 if low == high else high)
    width = 3.0 + 2.6 * max(1, len(levels))
    with drawing(min(max(width, 9.0), 18.0), max(4.5, 1.9 + 0.75 * len(sizes)), target) as figure:
        axes = figure.subplots(1, 2, sharey=True)
        image = None
        for ax, op in zip(axes, operations, strict=True):
            panel = _heat_panel(ax, op, cells, sizes, levels, norm)
            if panel is not None:
                image = panel
        axes[0].set_ylabel("object size")
        if image is not None:
            _colour_bar(figure, image, list(axes), values)
        kind = {"published": "published figures", "measured": "measured", "merged": "merged measurements"}
        when = f", {profile.date}" if profile.date else ""
        empty = "\nno source gives a PUT or GET throughput figure: every cell is missing" if image is None else ""
        figure.suptitle(
            f"{profile.provider or 'unknown provider'}: throughput by object size and concurrency"
            f" ({kind.get(profile.source.kind, profile.source.kind)}{when}){empty}",
            fontsize=12,
            fontweight="bold",
        )


def _cell_grid(
    cells: Sequence[Cell], op: str, sizes: list[int], levels: list[int]
) -> tuple[Any, dict[tuple[int, int], str]]:
    """One operation's throughput as a size-by-concurrency array (NaN where missing) and each cell's label."""
    import numpy as np

    grid = np.full((len(sizes), len(levels)), np.nan)
    notes: dict[tuple[int, int], str] = {}
    for cell in cells:
        if cell.op != op or cell.object_size_bytes is None:
            continue
        row, column = sizes.index(cell.object_size_bytes), levels.index(cell.concurrency)
        if (row, column) in notes:
            continue  # a merged profile may repeat a cell: the first one stands
        value = _usable_value(cell)
        if value is None:
            notes[(row, column)] = "missing"
            continue
        grid[row, column] = value
        flags = f"\n{', '.join(cell.flags)}" if cell.flags else ""
        notes[(row, column)] = f"{value:,.4g} MiB/s\n{value * MIB * 8 / 1e9:.3g} Gbps{flags}"
    return grid, notes


def _heat_panel(
    ax: Axes, op: str, cells: Sequence[Cell], sizes: list[int], levels: list[int], norm: Normalize | None
) -> AxesImage | None:
    """One operation's heat map with every cell labelled; returns the image when there is one to colour."""
    import numpy as np

    grid, notes = _cell_grid(cells, op, sizes, levels)
    image = None
    if norm is not None and sizes and levels:
        image = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis", norm=norm, aspect="auto", origin="upper")
    else:
        ax.imshow(np.zeros((max(1, len(sizes)), max(1, len(levels)))), cmap="Greys", vmin=0, vmax=10, aspect="auto")
    for (row, column), text in notes.items():
        _label_cell(ax, row, column, text, grid[row, column], norm)
    ax.set_xticks(range(len(levels)), [str(level) for level in levels])
    ax.set_yticks(range(len(sizes)), [format_bytes(size, binary=True) for size in sizes])
    ax.set_xlabel("concurrency (requests in flight)")
    ax.grid(False)
    ax.set_title(f"{op.upper()} throughput", loc="left")
    if not sizes or not levels:
        ax.text(0.5, 0.5, f"no {op.upper()} cells in this profile", ha="center", transform=ax.transAxes)
    return image


def _label_cell(ax: Axes, row: int, column: int, text: str, value: float, norm: Normalize | None) -> None:
    """A cell's figures in a colour that reads on its shade, or a hatched "missing"."""
    if math.isnan(value):
        from matplotlib.patches import Rectangle

        ax.add_patch(
            Rectangle(
                (column - 0.5, row - 0.5), 1, 1, facecolor="#F2F2F2", edgecolor="#BBBBBB", hatch="//", linewidth=0.5
            )
        )
        ax.text(column, row, "missing", ha="center", va="center", fontsize=8.5, color="#777777")
        return
    assert norm is not None
    import matplotlib

    red, green, blue, _ = matplotlib.colormaps["viridis"](float(norm(value)))
    dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.55
    ax.text(column, row, text, ha="center", va="center", fontsize=8.5, color="white" if dark else "black")


def _colour_bar(figure: Figure, image: AxesImage, axes: list[Axes], values: list[float]) -> None:
    """The colour scale in MiB/s, with numbers on the minor ticks too when the values span under a decade."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    bar = figure.colorbar(image, ax=axes, shrink=0.9)
    bar.set_label("aggregate throughput (MiB/s, log scale)")
    plain = FuncFormatter(lambda value, _position: f"{value:,.4g}")
    bar.ax.yaxis.set_major_formatter(plain)
    if values and max(values) / min(values) < 10:  # within a decade only minor ticks carry numbers
        bar.ax.yaxis.set_minor_formatter(plain)
    else:
        bar.ax.yaxis.set_minor_formatter(NullFormatter())
