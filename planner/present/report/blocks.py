"""The blocks a report is built of (paragraphs, bullets, tables, headings, plots) in sections, and
the plots drawn to PNG once per plot and model."""

from __future__ import annotations

import tempfile
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: Sequence[str]


@dataclass(frozen=True)
class Table:
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]


@dataclass(frozen=True)
class Heading:
    text: str


@dataclass(frozen=True)
class Plot:
    name: str
    caption: str
    draw: Callable[[Path], None]
    key: str = field(repr=False, default="")  # the plotted model's JSON: equal keys draw equal pictures


Block = Paragraph | Bullets | Table | Heading | Plot


@dataclass
class Section:
    anchor: str
    title: str
    blocks: list[Block] = field(default_factory=list)


# The last few pictures drawn, by plot and model: an HTML and a Markdown report of the same result
# (or a report written twice) draw each plot once. Drawing dominates the time a report takes.
_DRAWN: OrderedDict[tuple[str, str], bytes] = OrderedDict()
_DRAWN_KEEP = 12


def png(block: Plot) -> bytes:
    """The plot as PNG bytes (PlannerError if it cannot be drawn)."""
    key = (block.name, block.key)
    if block.key and key in _DRAWN:
        _DRAWN.move_to_end(key)
        return _DRAWN[key]
    with tempfile.TemporaryDirectory(prefix="planner-report-") as folder:
        picture = Path(folder) / f"{block.name}.png"
        block.draw(picture)
        data = picture.read_bytes()
    if block.key:
        _DRAWN[key] = data
        while len(_DRAWN) > _DRAWN_KEEP:
            _DRAWN.popitem(last=False)
    return data
