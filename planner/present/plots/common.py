"""What every plot shares: the file checks, the drawing context with the house style, the colours
of categories, providers and operations, and the axis formats."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.errors import InputError
from planner.pricing import catalog
from planner.writing import atomic_output

if TYPE_CHECKING:
    from matplotlib.figure import Figure


SUFFIXES = (".png", ".svg")
MISSING_MATPLOTLIB = "plots need matplotlib: pip install 'objstore-planner[plot]'"

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
PALETTE = ("#E69F00", "#D55E00", "#CC79A7", "#009E73", "#0072B2")
"""The colours the price tables draw their providers in (``display.colour``), in the order a sweep takes them
for an option the table's colour does not mark."""
SPARE_COLOURS = ("#56B4E9", "#999999", "#000000", "#F0E442")
OPERATION_COLOURS = {"GET": "#0072B2", "PUT": "#D55E00", "HEAD": "#009E73", "LIST": "#CC79A7"}

# More bars than this stop being readable in one panel; the rest are named in a note.
MAX_OPTIONS = 14

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


def plot_target(path: Path | str, option: str = "--plot") -> Path:
    """Check the file name, then that matplotlib is there: the cheaper mistake is reported first,
    naming the ``option`` that gave the file."""
    target = Path(path)
    if target.suffix.lower() not in SUFFIXES:
        raise InputError(f"{str(target)!r} is not a picture file name: use .png or .svg", source=option)
    if not matplotlib_available():
        raise InputError(MISSING_MATPLOTLIB, source=option)
    return target


@contextlib.contextmanager
def drawing(width_in: float, height_in: float, target: Path) -> Iterator[Figure]:
    """A figure on the Agg canvas with the house style, saved to ``target`` when the block ends."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_STYLE):  # type: ignore[arg-type]  # a plain dict of rc names
        figure = Figure(figsize=(width_in, height_in), layout="constrained")
        FigureCanvasAgg(figure)
        yield figure
        svg = target.suffix.lower() == ".svg"
        # whole or not at all: a picture that fails half-way leaves the old file as it was
        with atomic_output(target, source=str(target), what="the plot", binary=True) as handle:
            figure.savefig(
                handle,
                format="svg" if svg else "png",
                dpi=100,
                metadata={"Date": None} if svg else {"Software": None},
            )


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


def usd_axis(axis: Any) -> None:
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


def number_axis(axis: Any) -> None:
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value:,.6g}"))


def cut(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1].rstrip() + "…"


def category_name(category: str) -> str:
    return CATEGORY_NAMES.get(category, category)


def table_colour(provider: str) -> str | None:
    """The colour ``provider``'s price table draws it in (none: it gives none)."""
    shown = catalog.display(provider)
    return shown.colour if shown is not None else None


def provider_colour(provider: str, used: dict[str, str]) -> str:
    if provider not in used:
        spare = [c for c in SPARE_COLOURS if c not in used.values()]
        used[provider] = table_colour(provider) or (spare[0] if spare else "#444444")
    return used[provider]


PRICE_NOTE = "°: a price verified from a secondary source; *: rests on an unverified price"
"""What the marks after amounts and options in a plot say (``planner.evidence.PRICE_MARKERS``)."""
