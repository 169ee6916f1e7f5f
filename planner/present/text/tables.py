"""The shared layout of every text renderer: money and quantities, tables (plain, Markdown, CSV),
headings, wrapped prose and JSON, and the lines under every bill that say when its prices were read.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pydantic import BaseModel
from tabulate import tabulate

from planner.evidence import PRICE_MARKERS, price_legend, price_marked
from planner.present.text.fit import Reasons, fit_table, note_lines, number_notes, wrap_line
from planner.pricing.breakdown import Freshness, LineItem, PriceReading, stale_before
from planner.writing import spreadsheet_cell

CENT = Decimal("0.01")


def usd(amount: Decimal, *, places: int = 2) -> str:
    """Money for people: rounded half-up to cents (or more places for unit prices)."""
    quantum = Decimal(1).scaleb(-places)
    rounded = amount.quantize(quantum, rounding=ROUND_HALF_UP)
    return f"${rounded:,}"


def unit_price(price: Decimal) -> str:
    """A unit price exactly as the table states it, without trailing float noise."""
    text = format(price.normalize(), "f") if price else "0"
    return f"${text}"


def quantity(value: Decimal) -> str:
    text = f"{value:,.6f}".rstrip("0").rstrip(".")
    return text or "0"


def csv_text(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Rows as CSV (RFC 4180 quoting), a header row first; None is an empty cell, and text a spreadsheet
    would read as a formula is written as text (``planner.writing.spreadsheet_cell``)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(["" if v is None else spreadsheet_cell(v) for v in row] for row in rows)
    return out.getvalue().rstrip("\n")


def plain_number(value: Decimal | float | None) -> str | None:
    """A number for a CSV cell: no currency sign, no thousands separator, no exponent."""
    if value is None:
        return None
    if isinstance(value, Decimal):
        return format(value, "f")
    return repr(value)


# Renderers take ``width``: fit plain tables and prose to this many columns (the CLI passes the
# terminal's, or 100 columns when piped; None with --wide: one line per row, every reason inline).


def wrap_prose(text: str, indent: str = "", *, width: int | None = None) -> str:
    """A line of prose wrapped to ``width`` columns (unchanged without one: not writing to a terminal)."""
    return wrap_line(text, indent, width)


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    fmt: str,
    *,
    width: int | None = None,
    keys: int = 1,
    notes: Sequence[str] = (),
) -> str:
    """A table as CSV, Markdown or plain text. Plain text fits ``width`` (``planner.present.text.fit``):
    reasons (cells given as ``Reasons``, and the cells of the columns named in ``notes``) go under it,
    numbered, when it does not fit otherwise, and ``keys`` first columns lead each part of a table split
    in several. Without a width every cell is inline."""
    listed = list(rows)
    inline = [[str(c) if isinstance(c, Reasons) else c for c in row] for row in listed]
    if fmt == "csv":
        return csv_text(headers, inline)
    style = "github" if fmt == "markdown" else "simple"
    whole = tabulate(inline, headers=list(headers), tablefmt=style, disable_numparse=True)
    if fmt != "table" or not width or max(map(len, whole.splitlines()), default=0) <= width:
        return whole
    numbered, reasons = number_notes(headers, listed, notes)
    return "\n".join([*fit_table(headers, numbered, width, keys=keys), *note_lines(reasons, width)])


def as_json(value: BaseModel | list[BaseModel] | dict[str, Any]) -> str:
    if isinstance(value, BaseModel):
        return value.model_dump_json(indent=2)
    if isinstance(value, list):
        return json.dumps([v.model_dump(mode="json") for v in value], indent=2)
    return json.dumps(value, indent=2, default=str)


def heading(text: str, fmt: str, level: int = 2) -> str:
    if fmt == "markdown":
        return f"{'#' * level} {text}\n"
    return f"{text}\n{'=' * len(text) if level <= 2 else '-' * len(text)}"


def line_item_row(item: LineItem, *, version: bool = False) -> tuple[str, ...]:
    """category, item, quantity, unit, unit price, amount (with its price's sourcing mark), and the
    table version."""
    row = (
        item.category,
        item.description,
        quantity(item.quantity),
        item.unit,
        unit_price(item.unit_price_usd),
        marked_usd(item.amount_usd, item.price_status.value),
    )
    return (*row, item.table_version) if version else row


def marked_usd(amount: Decimal, price_status: str) -> str:
    """Money with the mark of the weakest price it rests on: ``$2,500.00*`` rests on an unverified one."""
    return price_marked(usd(amount), price_status)


def price_legends(statuses: Iterable[str], *, width: int | None = None) -> list[str]:
    """The price marks' legend, as a line wrapped to ``width``, when any of ``statuses`` puts a mark
    after an amount."""
    return [wrap_prose(price_legend(), width=width)] if any(PRICE_MARKERS.get(status) for status in statuses) else []


def _by_version(readings: Sequence[PriceReading]) -> str:
    """Readings grouped by table version: ``v1: field (read day), field; v2: field``."""
    groups: dict[str, list[str]] = {}
    for reading in readings:
        read = f" (read {reading.read_on})" if reading.read_on is not None else ""
        groups.setdefault(reading.table_version, []).append(f"{reading.field}{read}")
    return "; ".join(f"{version}: {', '.join(fields)}" for version, fields in groups.items())


def freshness_lines(fresh: Freshness) -> list[str]:
    """What a bill's prices rest on, in words: the span of its readings and the stale ones, then the lines
    resting on a price with no quote (nothing for lines at no price of a table)."""
    lines = []
    if fresh.read_from is not None:
        span = str(fresh.read_from) if fresh.read_from == fresh.read_to else f"{fresh.read_from} to {fresh.read_to}"
        text = f"prices read {span}"
        if fresh.stale:
            count = len(fresh.stale)
            text += f"; {count} reading{'' if count == 1 else 's'} older than 12 months: {_by_version(fresh.stale)}"
        lines.append(text)
    if fresh.unquoted_lines:
        count = fresh.unquoted_lines
        lines_rest = "1 line rests" if count == 1 else f"{count} lines rest"
        prices = "a price" if len(fresh.unquoted) == 1 else "prices"
        lines.append(f"{lines_rest} on {prices} with no quote: {_by_version(fresh.unquoted)}")
    return lines


def price_freshness(
    items: Iterable[LineItem], *, width: int | None = None, today: dt.date | None = None, subject: str | None = None
) -> list[str]:
    """The lines under a bill (or any lines of bills) saying when the prices they rest on were read, each
    wrapped to ``width`` (and led by ``subject``, the bill's name, where several bills are shown): every
    renderer that prints a bill's amounts prints these beside them."""
    lead = f"{subject}: " if subject else ""
    return [wrap_prose(lead + line, "  ", width=width) for line in freshness_lines(Freshness.of(items, today))]


def reading_cells(item: LineItem, today: dt.date | None = None) -> tuple[str | None, str | None, str, str]:
    """A line's price reading as CSV cells: price_field, price_read_on, price_quoted, price_stale (true or
    false; both empty for a line at no price of a table)."""
    if item.price_field is None:
        return None, None, "", ""
    read = item.price_read_on
    if read is None:
        return item.price_field, None, "false", ""
    stale = read < stale_before(today or dt.date.today())
    return item.price_field, read.isoformat(), "true", "true" if stale else "false"
