"""Pictures of the library's results, drawn with matplotlib's Agg backend into PNG or SVG files.

Each ``save_*_plot`` takes one result model and a path ending in ``.png`` or ``.svg``. The
figures only lay out what the library returns; the cost-vs-egress panel of the recommendation
plot draws the curves the ``Recommendation`` holds (the exact bill on a grid of egress volumes,
everything else held as in the workload), so its curves cross exactly where the break-even
points say.

matplotlib is imported when a plot is drawn, never when this module is imported, so the CLI
starts fast and works without the ``plot`` extra until a plot is asked for.
"""

from __future__ import annotations

import contextlib
import math
import textwrap
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import InputError
from planner.units import format_bytes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from planner.costing.bills import CostProjection
    from planner.decide.migration import MigrationPlan
    from planner.decide.recommendation import RankedOption, Recommendation
    from planner.decide.sweep import Sweep
    from planner.decide.uncertainty import UncertainAnswer
    from planner.evidence import TargetVerdict
    from planner.measure.profile import Cell, Profile
    from planner.sim.result import Estimate, SimulationResult

SUFFIXES = (".png", ".svg")
MISSING_MATPLOTLIB = "plots need matplotlib: pip install 'planner[plot]'"

# Stacking order, colours (Okabe-Ito, readable with colour-blindness) and names of line-item categories.
CATEGORIES = (
    "storage",
    "minimum",
    "egress",
    "requests",
    "retrieval",
    "early_deletion",
    "transfer",
    "other",
    "free_allowance",
)
CATEGORY_COLOURS = {
    "storage": "#0072B2",
    "minimum": "#56B4E9",
    "egress": "#E69F00",
    "requests": "#009E73",
    "retrieval": "#CC79A7",
    "early_deletion": "#D55E00",
    "transfer": "#F0E442",
    "other": "#999999",
    "free_allowance": "#DDDDDD",
}
CATEGORY_NAMES = {"minimum": "minimum storage", "early_deletion": "early deletion", "free_allowance": "free allowance"}
PROVIDER_COLOURS = {
    "aws-s3": "#E69F00",
    "cloudflare-r2": "#D55E00",
    "backblaze-b2": "#CC79A7",
    "wasabi": "#009E73",
    "idrive-e2": "#0072B2",
}
_SPARE_COLOURS = ("#56B4E9", "#999999", "#000000", "#F0E442")
OPERATION_COLOURS = {"GET": "#0072B2", "PUT": "#D55E00", "HEAD": "#009E73", "LIST": "#CC79A7"}

# More bars than this stop being readable in one panel; the rest are named in a note.
MAX_OPTIONS = 14
_REASON_WIDTH = 52  # characters of a rejection reason per line beside its bar

_STYLE: dict[str, Any] = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 9,
    "legend.framealpha": 0.9,
    "svg.hashsalt": "planner",  # stable element ids: the same result draws the same file
    "svg.fonttype": "none",  # text stays text: searchable, smaller, faster to write
}


def matplotlib_available() -> bool:
    """Whether plots can be drawn here (the ``plot`` extra is installed)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _start(path: Path | str) -> Path:
    """Check the file name, then that matplotlib is there: the cheaper mistake is reported first."""
    target = Path(path)
    if target.suffix.lower() not in SUFFIXES:
        raise InputError(f"{str(target)!r} is not a picture file name: use .png or .svg", source="--plot")
    if not matplotlib_available():
        raise InputError(MISSING_MATPLOTLIB, source="--plot")
    return target


@contextlib.contextmanager
def _drawing(width_in: float, height_in: float, target: Path) -> Iterator[Figure]:
    """A figure on the Agg canvas with the house style, saved to ``target`` when the block ends."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_STYLE):  # type: ignore[arg-type]  # a plain dict of rc names
        figure = Figure(figsize=(width_in, height_in), layout="constrained")
        FigureCanvasAgg(figure)
        yield figure
        svg = target.suffix.lower() == ".svg"
        try:
            figure.savefig(
                target,
                format="svg" if svg else "png",
                dpi=100,
                metadata={"Date": None} if svg else {"Software": None},
            )
        except OSError as error:
            raise InputError(f"cannot write the plot ({error.strerror or error})", source=str(target)) from None


# ----------------------------------------------------------------------------- axis formats


def usd_ticks(values: Sequence[float]) -> list[str]:
    """Dollars for a set of axis ticks in one style: "$2,500", "$500k", "$1.5M", never "$12k" for 12,500."""
    largest = max((abs(v) for v in values), default=0.0)
    scales = [(s, name) for s, name in ((1e6, "M"), (1e3, "k")) if largest >= 10 * s or (name == "M" and largest >= s)]
    scales.append((1.0, ""))

    def places(scale: float) -> int:
        exact = (d for d in range(3) if all(math.isclose(round(v / scale, d), v / scale, abs_tol=1e-9) for v in values))
        return next(exact, 2)

    # Whole numbers at the largest scale that allows them ("$5k", "$2,500"), or one decimal while the
    # numbers stay short ("$1.5M"); cents only below a dollar's scale.
    scale, suffix = next(
        ((s, n) for s, n in scales if places(s) == 0 or (n and places(s) == 1 and largest / s < 10)), (1.0, "")
    )
    digits = places(scale)
    if not suffix and digits == 1:
        digits = 2  # cents, not dimes: "$2.50"
    return ["$0" if v == 0 else f"{'-' if v < 0 else ''}${abs(v) / scale:,.{digits}f}{suffix}" for v in values]


def usd_tick(value: float) -> str:
    """One amount in the axis style of ``usd_ticks``."""
    return usd_ticks([value])[0]


def usd_label(value: float | Decimal) -> str:
    """Dollars for an annotation: whole dollars from $1,000, cents below."""
    amount = float(value)
    return f"${amount:,.0f}" if abs(amount) >= 1000 else f"${amount:,.2f}"


def byte_unit(largest_bytes: float) -> tuple[float, str]:
    """(bytes per unit, unit name) for an axis whose values reach ``largest_bytes``: TB or GB."""
    return (1e12, "TB") if largest_bytes >= 1e12 else (1e9, "GB")


def _usd_axis(axis: Any) -> None:
    from matplotlib.ticker import Formatter

    class _Dollars(Formatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            shown = [v for v in self.locs if v == v] or [x]
            labels = dict(zip(shown, usd_ticks(shown), strict=True))
            return labels.get(x, usd_tick(x))

        def format_ticks(self, values: Sequence[float]) -> list[str]:
            self.set_locs(list(values))
            return usd_ticks(list(values))

    axis.set_major_formatter(_Dollars())


def _number_axis(axis: Any) -> None:
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value:,.6g}"))


def _cut(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


def _category_name(category: str) -> str:
    return CATEGORY_NAMES.get(category, category)


def _provider_colour(provider: str, used: dict[str, str]) -> str:
    if provider not in used:
        spare = [c for c in _SPARE_COLOURS if c not in used.values()]
        used[provider] = PROVIDER_COLOURS.get(provider) or (spare[0] if spare else "#444444")
    return used[provider]


# ----------------------------------------------------------------------------- recommendation


def save_recommendation_plot(result: Recommendation, path: Path) -> None:
    """This month's bill per option stacked by category, and monthly cost against egress volume (the
    curves the recommendation holds, priced as it was: with its price overrides, if any)."""
    target = _start(path)
    shown = result.ranking[:MAX_OPTIONS]
    with _drawing(12.0, 5.0 + 0.36 * len(shown) + 5.5, target) as figure:
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
            label=_category_name(category),
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
            reason = _cut("; ".join(option.violations) or "see the ranking", 2 * _REASON_WIDTH)
            verdict = "\n".join(textwrap.wrap(f"rejected: {reason}", _REASON_WIDTH))
        ax.text(
            positive[row] + largest * 0.01,
            float(row),
            f"{usd_label(option.monthly_cost_usd)}  {verdict}",
            va="center",
            fontsize=8 if "\n" in verdict else 8.5,
            linespacing=1.0,
            fontweight="bold" if option.chosen else "normal",
            color="#000000" if option.feasible else "#666666",
        )
    labels = [f"{o.rank}. {o.provider} {o.storage_class}" for o in shown]
    ax.set_yticks(rows, labels)
    for tick, option in zip(ax.get_yticklabels(), shown, strict=True):
        if option.chosen:
            tick.set_fontweight("bold")
        if not option.feasible:
            tick.set_color("#666666")
    ax.invert_yaxis()
    ax.set_xlim(min(0.0, float(negative.min())) * 1.1, largest * 1.9)
    _usd_axis(ax.xaxis)
    ax.set_xlabel("cost this month (USD)")
    ax.grid(axis="y", visible=False)
    hidden = len(result.ranking) - len(shown)
    note = f" ({hidden} more options not shown)" if hidden > 0 else ""
    ax.set_title(f"This month's bill by option, stacked by line-item category; hatched = rejected{note}", loc="left")
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.07 - 0.12 / max(1, len(shown)) * 4), ncols=9, title="category")


def _egress_curves(ax: Axes, result: Recommendation) -> None:
    import numpy as np

    held = result.egress_curves
    if held is None or not result.ranking:
        why = "no option could be priced" if not result.ranking else "no egress curves: recommend with curves=True"
        ax.text(0.5, 0.5, why, ha="center", transform=ax.transAxes)
        return
    by_rank = {o.rank: o for o in result.ranking}
    chosen = next((o for o in result.ranking if o.chosen), result.ranking[0])
    workload = result.workload
    current = float(workload.traffic.egress)
    points = sorted(
        (b for b in result.break_even if b.dimension == "egress" and math.isfinite(b.at)), key=lambda b: b.at
    )
    grid = np.asarray(held.egress_bytes)
    right = float(grid[-1])
    scale, unit = byte_unit(right)
    colours: dict[str, str] = {}
    labels = {f"{curve.provider}:{curve.storage_class}" for curve in held.curves}
    drawn: list[float] = []
    for curve in held.curves:
        option = by_rank[curve.rank]
        costs = curve.monthly_cost_usd
        state = "chosen" if option.chosen else option.status
        colour = _provider_colour(option.provider, colours)
        cap = curve.free_egress_cap_bytes
        inside = grid <= cap if cap is not None else np.ones(len(grid), dtype=bool)
        ax.plot(
            grid[inside] / scale,
            np.asarray(costs)[inside],
            color=colour,
            linewidth=3.0 if option.chosen else 1.6,
            linestyle="-" if option.feasible else "--",
            label=f"{option.provider} {option.storage_class} ({state})",
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
    chosen_costs = next((c.monthly_cost_usd for c in held.curves if c.rank == chosen.rank), None)
    positive = [c for c in drawn if c > 0]
    logarithmic = bool(positive) and max(positive) / min(positive) > 30
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
    notes: list[str] = []
    number = 0
    for point in points:
        x = point.at / scale
        ratio = f" ({point.ratio_to_stored:.2f}x stored)" if point.ratio_to_stored is not None else ""
        if point.kind == "policy" and point.other in labels:
            # a rival's bound that is a free-egress cap: the X on the capped curve marks it
            notes.append(f"X: {point.statement}")
            continue
        if point.other not in labels:  # a policy limit, not a rival: a vertical line of its own
            colour = colours.get(chosen.provider, "#333333")
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
            notes.append(point.statement)
            continue
        number += 1
        y = chosen_costs[held.egress_bytes.index(point.at)] if chosen_costs is not None else math.nan
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
        notes.append(f"{number}: {point.statement}")
    notes += [p.statement for p in result.break_even if p.dimension == "egress" and not math.isfinite(p.at)]
    ax.set_xlim(0, right / scale)
    if logarithmic:
        from matplotlib.ticker import LogLocator, NullLocator

        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_ylim(min(positive) / 1.5, max(positive) * 1.5)
    else:
        ax.set_ylim(bottom=0, top=max(drawn, default=1.0) * 1.1)
    _number_axis(ax.xaxis)
    _usd_axis(ax.yaxis)
    ax.set_xlabel(f"internet egress a month ({unit})")
    ax.set_ylabel("cost a month (USD" + (", log scale)" if logarithmic else ")"))
    ax.set_title("Monthly cost vs egress, everything else as in the workload (numbered: break-even points)", loc="left")
    ax.legend(loc="upper left", title=f"{result.months}-month verdict of each option")
    if notes:
        wrapped = ["\n    ".join(textwrap.wrap(note, 130)) for note in notes]
        ax.text(0.0, -0.13, "\n".join(wrapped), transform=ax.transAxes, va="top", fontsize=8.5, color="#222222")


# ----------------------------------------------------------------------------- projection


def save_projection_plot(projection: CostProjection, path: Path) -> None:
    """Month-by-month cost stacked by category, with each change of price table marked."""
    import numpy as np

    target = _start(path)
    months = projection.months
    count = len(months)
    with _drawing(max(9.0, min(16.0, 0.35 * count + 5.0)), 6.0, target) as figure:
        ax = figure.subplots()
        x = np.arange(1, count + 1)
        positive = np.zeros(count)
        negative = np.zeros(count)
        for category in CATEGORIES:
            amounts = np.array([float(m.cost.by_category().get(category, Decimal(0))) for m in months])
            if not amounts.any():
                continue
            base = np.where(amounts >= 0, positive, negative)
            ax.bar(x, amounts, bottom=base, width=0.8, color=CATEGORY_COLOURS[category], label=_category_name(category))
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
        _usd_axis(ax.yaxis)
        ax.set_xlabel("month of the horizon (priced with the table in force that month)")
        ax.set_ylabel("cost that month (USD)")
        ax.grid(axis="x", visible=False)
        first = months[0].cost.table_version if months else "-"
        ax.set_title(
            f"{projection.provider} {projection.storage_class}: {usd_label(projection.total_usd)} over {count} months"
            f" (prices from {first}{'' if changes else ', unchanged'})",
            loc="left",
        )
        ax.legend(loc="upper left", ncols=4, title="category")


def save_tornado_plot(answer: UncertainAnswer, path: Path) -> None:
    """The favourite's bill as each uncertain input moves from its p10 to its p90, the others at
    their central values: one bar per input, widest at the top, about the all-central bill."""
    target = _start(path)
    swings = answer.tornado
    if not swings or answer.central_usd is None:
        raise InputError("no uncertain input moves the favourite's bill: nothing to plot", source=str(path))
    favourite = answer.options[0].option
    centre = answer.central_usd
    with _drawing(10.0, max(3.0, 0.55 * len(swings) + 1.8), target) as figure:
        ax = figure.subplots()
        for row, swing in enumerate(reversed(swings)):
            for value, colour, label in (
                (swing.at_p10_usd, "#4C78A8", "input at its p10"),
                (swing.at_p90_usd, "#F58518", "input at its p90"),
            ):
                ax.barh(row, value - centre, left=centre, height=0.6, color=colour, label=label if row == 0 else None)
            index = "" if swing.first_order_index is None else f"  (S1 {swing.first_order_index:.2f})"
            ax.annotate(  # two "$" in one text would start matplotlib's mathtext: escaped
                f"{usd_label(swing.at_p10_usd)} .. {usd_label(swing.at_p90_usd)}{index}".replace("$", r"\$"),
                xy=(max(swing.at_p10_usd, swing.at_p90_usd, centre), row),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                fontsize=8.5,
            )
        ax.axvline(centre, color="black", linewidth=1.0)
        ax.set_yticks(range(len(swings)), [_cut(s.field, 40) for s in reversed(swings)])
        _usd_axis(ax.xaxis)
        ax.set_xlabel(f"{favourite}: bill a month (USD), every other input at its central value")
        ax.grid(axis="y", visible=False)
        ax.set_title(
            f"What moves the favourite's bill: {favourite} at {usd_label(centre)} a month with every input central"
            f" ({answer.samples:,} samples, seed {answer.seed})",
            loc="left",
        )
        ax.legend(loc="lower right")
        low = min(centre, *(min(s.at_p10_usd, s.at_p90_usd) for s in swings))
        high = max(centre, *(max(s.at_p10_usd, s.at_p90_usd) for s in swings))
        span = max(high - low, abs(centre) * 0.01, 1e-9)
        ax.set_xlim(low - 0.05 * span, high + 0.45 * span)


# ----------------------------------------------------------------------------- sweep

MAX_CELL_LABELS = 400
"""Cells of a heat map each labelled with their bill; a larger grid is coloured only."""


def _option_colours(options: Sequence[str]) -> dict[str, str]:
    """A colour per option: the provider's colour for its first class, spare colours for the others."""
    palette = list(PROVIDER_COLOURS.values()) + list(_SPARE_COLOURS)
    colours: dict[str, str] = {}
    for option in options:
        own = PROVIDER_COLOURS.get(option.split(":", 1)[0])
        if own is not None and own not in colours.values():
            colours[option] = own
        else:
            spare = [c for c in palette if c not in colours.values()]
            colours[option] = spare[0] if spare else "#444444"
    return colours


def save_sweep_plot(result: Sweep, path: Path) -> None:
    """Two fields: a heat map of the cheapest option at every point, each cell with its bill. One
    field: every option's monthly bill along it, the cheapest drawn bold."""
    import numpy as np

    from planner.workload import format_field_value

    target = _start(path)
    winners = [cell.winner for cell in result.cells]
    ranked = sorted({w for w in winners if w is not None}, key=lambda w: (-winners.count(w), w))
    if len(result.axes) == 1:
        axis = result.axes[0]
        colours = _option_colours(ranked + [o for o in result.options if o not in ranked])
        with _drawing(10.0, 6.0, target) as figure:
            ax = figure.subplots()
            x = np.array(axis.values)
            for option in result.options:
                bills = np.array([float(cell.costs_usd[option]) for cell in result.cells])
                broken = np.array([option in cell.breaches for cell in result.cells])
                bold = option in ranked
                colour = colours[option]
                ax.plot(x, np.where(broken, np.nan, bills), color=colour, linewidth=2.4 if bold else 1.0, label=option)
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
            _usd_axis(ax.yaxis)
            ax.set_xlabel(axis.field)
            ax.set_ylabel("monthly bill (USD)")
            ax.set_title(f"{result.workload}: every option's monthly bill over {axis.field}", loc="left")
            ax.legend(loc="upper left", fontsize=8, ncols=2, title="bold: cheapest somewhere; dotted: breaks a policy")
        return
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    across, up = result.axes
    colours = _option_colours(ranked)
    index = {option: i for i, option in enumerate(ranked)}
    none = len(ranked)
    grid = np.array([index.get(w, none) if w is not None else none for w in winners]).reshape(
        len(across.values), len(up.values)
    )
    costs = [float(c.costs_usd[c.winner]) if c.winner is not None else None for c in result.cells]
    cmap = ListedColormap([colours[o] for o in ranked] + ["#DDDDDD"])
    columns, rows = len(across.values), len(up.values)
    with _drawing(max(9.0, min(18.0, 0.9 * columns + 4.0)), max(5.0, min(14.0, 0.5 * rows + 3.0)), target) as figure:
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
                ax.text(i, j, "none" if cost is None else usd_label(cost), ha="center", va="center", fontsize=size)
        ax.set_xlabel(across.field)
        ax.set_ylabel(up.field)
        ax.set_title(
            f"{result.workload}: the cheapest option breaking no policy, and its monthly bill"
            f" ({len(result.options)} options priced at each point)",
            loc="left",
        )
        handles = [Patch(color=colours[o], label=o) for o in ranked]
        if none in grid:
            handles.append(Patch(color="#DDDDDD", label="none: every option breaks a policy"))
        figure.legend(handles=handles, loc="outside right upper", title="cheapest")


# ----------------------------------------------------------------------------- migration


def save_migration_plot(plan: MigrationPlan, path: Path) -> None:
    """Cumulative cost of staying against moving, with the month moving pays back marked."""
    target = _start(path)
    timeline = plan.timeline
    with _drawing(10.0, 7.0, target) as figure:
        cumulative, monthly = figure.subplots(2, 1, sharex=True, height_ratios=[2.2, 1])
        months = [m.month for m in timeline]
        stay = [float(m.cumulative_stay_usd) for m in timeline]
        move = [float(m.cumulative_move_usd) for m in timeline]
        cumulative.plot(
            months, stay, marker="o", markersize=4, color="#999999", linewidth=2, label=f"stay at {plan.source}"
        )
        cumulative.plot(
            months, move, marker="o", markersize=4, color="#0072B2", linewidth=2, label=f"move to {plan.destination}"
        )
        if timeline:
            cumulative.annotate(
                f"one-time cost of the move: {usd_label(plan.one_time_cost_usd)}",
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
        _usd_axis(cumulative.yaxis)
        cumulative.set_ylabel("cumulative cost (USD)")
        cumulative.legend(loc="upper left")
        monthly.plot(months, [float(m.stay_usd) for m in timeline], color="#999999", marker=".", label="stay")
        monthly.plot(months, [float(m.move_usd) for m in timeline], color="#0072B2", marker=".", label="move")
        monthly.set_ylim(bottom=0)
        _usd_axis(monthly.yaxis)
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


# ----------------------------------------------------------------------------- simulation

_PERCENTILES = ((0.5, "p50"), (0.95, "p95"), (0.99, "p99"), (0.999, "p999"))


def _finite(estimate: Estimate) -> bool:
    return math.isfinite(estimate.mean)


def save_simulation_plot(
    result: SimulationResult, path: Path, *, judged: Sequence[TargetVerdict] | None = None
) -> None:
    """Latency and TTFB percentiles per operation as a CDF, and throughput and requests over time.

    ``judged`` are the workload's targets judged on evidence (``WorkloadSimulation.slo``); without
    them the window's raw comparisons are shown.
    """
    target = _start(path)
    import numpy as np
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

    with _drawing(10.0, 11.0, target) as figure:
        cdf, throughput, requests = figure.subplots(3, 1, height_ratios=[1.5, 1, 1])
        drawn = 0
        for name, stats in result.operations.items():
            colour = OPERATION_COLOURS.get(name.upper(), "#444444")
            for kind, style in (("latency", "-"), ("ttfb", "--")):
                points = [(share, getattr(stats, f"{kind}_{tag}_s")) for share, tag in _PERCENTILES]
                points = [(share, e) for share, e in points if _finite(e) and e.mean > 0]
                if not points:
                    continue
                shares = [share for share, _ in points]
                ms = [e.mean * 1000 for _, e in points]
                spread = [(e.ci95_half_width or 0.0) * 1000 for _, e in points]
                cdf.errorbar(
                    ms,
                    shares,
                    xerr=spread if any(spread) else None,
                    color=colour,
                    linestyle=style,
                    marker="o" if kind == "latency" else "s",
                    markersize=5,
                    capsize=3,
                    label=f"{name} {'latency' if kind == 'latency' else 'time to first byte'}",
                )
                drawn += 1
        if drawn:
            cdf.set_xscale("log")
            cdf.set_yscale("logit")
            cdf.yaxis.set_major_locator(FixedLocator([share for share, _ in _PERCENTILES]))
            cdf.yaxis.set_minor_locator(NullLocator())
            cdf.yaxis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value * 100:g}%"))
            cdf.set_ylim(0.3, 0.9995)
            cdf.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
            cdf.xaxis.set_minor_locator(NullLocator())
            cdf.xaxis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value:,.6g}"))
            cdf.legend(loc="lower right")
        else:
            cdf.text(0.5, 0.5, "no request succeeded: no latency to show", ha="center", transform=cdf.transAxes)
        cdf.set_xlabel("time from the request (ms, log scale)")
        cdf.set_ylabel("share of requests at or below")
        ci = ", bars = 95% confidence interval" if result.replications > 1 else ""
        cdf.set_title(f"Latency percentiles by operation (p50, p95, p99, p99.9{ci})", loc="left")

        series = result.time_series
        count = len(series.bytes)
        end = result.warmup_s + result.window_s
        edges = np.minimum(np.arange(count + 1, dtype=float) * series.bin_s, max(end, series.bin_s * count))
        edges[-1] = max(edges[-1], edges[-2] + 1e-9) if count else 0.0
        widths = np.diff(edges) if count else np.zeros(0)
        safe = np.where(widths > 0, widths, 1.0)
        for ax in (throughput, requests):
            if result.warmup_s > 0:
                ax.axvspan(0, result.warmup_s, color="#999999", alpha=0.2, label="warm-up (not in the statistics)")
        if count:
            throughput.stairs(
                np.asarray(series.bytes) * 8 / safe / 1e9, edges, color="#0072B2", linewidth=1.5, label="bytes moved"
            )
            requests.stairs(
                np.asarray(series.requests) / safe, edges, color="#333333", linewidth=1.2, label="requests ended"
            )
            if any(series.errors):
                requests.stairs(
                    np.asarray(series.errors) / safe, edges, color="#D55E00", linewidth=1.2, label="error responses"
                )
        for ax in (throughput, requests):
            ax.set_xlim(0, edges[-1] if count else max(end, 1.0))
            ax.set_ylim(bottom=0)
            ax.set_xlabel("time into the simulated window (s)")
            ax.legend(loc="upper right")
        throughput.set_ylabel("throughput (Gbps)")
        throughput.set_title(f"Throughput over time ({series.bin_s:g} s bins)", loc="left")
        requests.set_ylabel("per second")
        requests.set_title("Requests and errors per second", loc="left")
        verdicts = (
            "; ".join(f"{v.target} {v.verdict} ({v.evidence})" for v in judged)
            if judged is not None
            else "; ".join(
                f"{v.target} {'met' if v.met else 'MISSED'}{'' if v.certain else ' (uncertain)'}" for v in result.slo
            )
        )
        figure.suptitle(
            f"Simulated {result.provider_id}: {result.window_s:g} s window, {result.replications} replication"
            f"{'s' if result.replications != 1 else ''}, seed {result.seed}"
            + (f"\nTargets: {verdicts}" if verdicts else ""),
            fontsize=12,
            fontweight="bold",
        )


# ----------------------------------------------------------------------------- profile

MIB = 2**20


def _usable_value(cell: Cell) -> float | None:
    if cell.status == "missing" or cell.throughput_mib_per_s is None:
        return None
    return cell.throughput_mib_per_s


def save_profile_plot(profile: Profile, path: Path) -> None:
    """Throughput by object size and concurrency for PUT and GET: a heat map, missing cells marked."""
    target = _start(path)
    import numpy as np
    from matplotlib.colors import LogNorm
    from matplotlib.patches import Rectangle
    from matplotlib.ticker import FuncFormatter, NullFormatter

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
    with _drawing(min(max(width, 9.0), 18.0), max(4.5, 1.9 + 0.75 * len(sizes)), target) as figure:
        axes = figure.subplots(1, 2, sharey=True)
        image = None
        for ax, op in zip(axes, operations, strict=True):
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
            masked = np.ma.masked_invalid(grid)
            if norm is not None and sizes and levels:
                image = ax.imshow(masked, cmap="viridis", norm=norm, aspect="auto", origin="upper")
            else:
                ax.imshow(
                    np.zeros((max(1, len(sizes)), max(1, len(levels)))), cmap="Greys", vmin=0, vmax=10, aspect="auto"
                )
            for (row, column), text in notes.items():
                value = grid[row, column]
                if math.isnan(value):
                    ax.add_patch(
                        Rectangle(
                            (column - 0.5, row - 0.5),
                            1,
                            1,
                            facecolor="#F2F2F2",
                            edgecolor="#BBBBBB",
                            hatch="//",
                            linewidth=0.5,
                        )
                    )
                    ax.text(column, row, "missing", ha="center", va="center", fontsize=8.5, color="#777777")
                    continue
                assert norm is not None
                import matplotlib

                red, green, blue, _ = matplotlib.colormaps["viridis"](float(norm(value)))
                dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.55
                ax.text(column, row, text, ha="center", va="center", fontsize=8.5, color="white" if dark else "black")
            ax.set_xticks(range(len(levels)), [str(level) for level in levels])
            ax.set_yticks(range(len(sizes)), [format_bytes(size, binary=True) for size in sizes])
            ax.set_xlabel("concurrency (requests in flight)")
            ax.grid(False)
            ax.set_title(f"{op.upper()} throughput", loc="left")
            if not sizes or not levels:
                ax.text(0.5, 0.5, f"no {op.upper()} cells in this profile", ha="center", transform=ax.transAxes)
        axes[0].set_ylabel("object size")
        if image is not None:
            bar = figure.colorbar(image, ax=list(axes), shrink=0.9)
            bar.set_label("aggregate throughput (MiB/s, log scale)")
            plain = FuncFormatter(lambda value, _position: f"{value:,.4g}")
            bar.ax.yaxis.set_major_formatter(plain)
            if values and max(values) / min(values) < 10:  # within a decade only minor ticks carry numbers
                bar.ax.yaxis.set_minor_formatter(plain)
            else:
                bar.ax.yaxis.set_minor_formatter(NullFormatter())
        kind = {"published": "published figures", "measured": "measured", "merged": "merged measurements"}
        when = f", {profile.date}" if profile.date else ""
        empty = "\nno source gives a PUT or GET throughput figure: every cell is missing" if image is None else ""
        figure.suptitle(
            f"{profile.provider or 'unknown provider'}: throughput by object size and concurrency"
            f" ({kind.get(profile.source.kind, profile.source.kind)}{when}){empty}",
            fontsize=12,
            fontweight="bold",
        )


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
