"""Plain tables and prose that fit a terminal of a given width.

A table that fits is laid out as tabulate's "simple" format. One that does not is fitted in steps,
each kept only when the steps before it were not enough:

1. reasons (a cell given as ``Reasons``, or any cell of a column named in ``notes``) go under the
   table, numbered; the row shows the numbers (``[3]``), and identical reasons share one number;
2. the columns close up (two spaces between them) and headers wrap at their spaces;
3. cells of words wrap at their spaces, the widest columns first, never below 16 characters;
4. the columns are split into several tables, each led by the ``keys`` first columns again, so every
   row stays on one line and every figure whole;
5. anything still wider is cut into lines of the width (a key wider than the terminal).

Every word of every cell and reason is kept: only where it is printed changes.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

GAP = 2
_MIN_WRAP = 16


class Reasons(tuple[str, ...]):
    """A cell holding reasons: joined with "; " where the table is wide enough (or with ``--wide``),
    else each under the table, numbered."""

    __slots__ = ()

    def __str__(self) -> str:
        return "; ".join(self) or "-"


def _words(text: str) -> int:
    return max((len(word) for line in text.split("\n") for word in line.split(" ")), default=0)


def _lines_width(text: str) -> int:
    return max((len(line) for line in text.split("\n")), default=0)


def _wrap(text: str, width: int, *, hard: bool = False) -> list[str]:
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
        else:
            out += textwrap.wrap(line, width, break_long_words=hard, break_on_hyphens=False) or [""]
    return out


def number_notes(
    headers: Sequence[str], rows: Sequence[Sequence[object]], notes: Sequence[str] = ()
) -> tuple[list[list[str]], list[str]]:
    """The rows with every reason replaced by its number, and the reasons in number order (each once)."""
    numbered: dict[str, int] = {}
    note_columns = {i for i, h in enumerate(headers) if h in notes}

    def number(text: str) -> str:
        return f"[{numbered.setdefault(text, len(numbered) + 1)}]"

    out: list[list[str]] = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            if isinstance(cell, Reasons):
                cells.append("".join(number(reason) for reason in cell) or "-")
            elif i in note_columns and cell not in (None, "", "-"):
                cells.append(number(str(cell)))
            else:
                cells.append("" if cell is None else str(cell))
        out.append(cells)
    return out, list(numbered)


def _layout(headers: list[str], rows: list[list[str]], widths: list[int], *, hard: bool = False) -> list[str]:
    """The "simple" layout at these column widths: headers bottom-aligned over a rule of dashes, cells
    wrapped to their column, every line stripped of trailing blanks."""

    def block(cells: Sequence[str]) -> list[list[str]]:
        return [_wrap(cell, width, hard=hard) for cell, width in zip(cells, widths, strict=True)]

    def lines(wrapped: list[list[str]], *, bottom: bool = False) -> list[str]:
        height = max((len(c) for c in wrapped), default=1)
        padded = [([""] * (height - len(c)) + c) if bottom else (c + [""] * (height - len(c))) for c in wrapped]
        sep = " " * GAP
        return [
            sep.join(padded[col][i].ljust(widths[col]) for col in range(len(widths))).rstrip() for i in range(height)
        ]

    out = lines(block(headers), bottom=True)
    out.append((" " * GAP).join("-" * w for w in widths))
    for row in rows:
        out += lines(block(row))
    return out


def _natural(headers: list[str], rows: list[list[str]], *, whole_headers: bool = False) -> list[int]:
    """Each column's width with no cell wrapped (and its header on one line with ``whole_headers``, else
    wrapped at its spaces)."""
    head = len if whole_headers else _words
    return [max([head(h)] + [_lines_width(r[i]) for r in rows]) for i, h in enumerate(headers)]


def _total(widths: Sequence[int]) -> int:
    return sum(widths) + GAP * (len(widths) - 1)


def _wrapped_widths(headers: list[str], rows: list[list[str]], width: int) -> list[int] | None:
    """Column widths that fit by wrapping the widest cells of words at their spaces (never below 16
    characters, nor below a column's longest word); None when that is not enough."""
    natural = _natural(headers, rows)
    floor = [max(_MIN_WRAP, max([_words(h)] + [_words(r[i]) for r in rows])) for i, h in enumerate(headers)]
    floor = [min(f, n) for f, n in zip(floor, natural, strict=True)]
    cap = max(natural, default=0)
    while cap > 0 and _total([max(f, min(n, cap)) for n, f in zip(natural, floor, strict=True)]) > width:
        cap -= 1
    widths = [max(f, min(n, cap)) for n, f in zip(natural, floor, strict=True)]
    return widths if _total(widths) <= width else None


def _groups(
    headers: list[str], rows: list[list[str]], natural: list[int], keys: int, width: int
) -> tuple[list[int], list[list[int]]] | None:
    """Column widths and the other columns split into runs that fit beside the key columns (a cell of
    words wrapped when it is wider than the room beside them); None when a word does not fit."""
    words = [max([_words(h)] + [_words(r[i]) for r in rows]) for i, h in enumerate(headers)]
    lead = natural[:keys]
    if _total(lead) > width // 2:  # wide keys wrap, so the other columns keep room
        lead = [min(n, max(w, _MIN_WRAP)) for n, w in zip(lead, words[:keys], strict=True)]
    room = width - _total(lead) - GAP
    widths = [*lead, *(min(n, room) for n in natural[keys:])]
    if room < 1 or any(w < words[i] for i, w in enumerate(widths)):
        return None
    groups: list[list[int]] = []
    for col in range(keys, len(widths)):
        if groups and _total(lead + [widths[c] for c in groups[-1]] + [widths[col]]) <= width:
            groups[-1].append(col)
        else:
            groups.append([col])
    return widths, groups


def fit_table(headers: Sequence[str], rows: list[list[str]], width: int, *, keys: int = 1) -> list[str]:
    """The lines of a table of plain cells fitted to ``width`` columns (steps 2 to 5 of the module's)."""
    heads = list(headers)
    natural = _natural(heads, rows, whole_headers=True)
    wrapped_heads = _natural(heads, rows)
    # headers wrap at their spaces one at a time, the one that saves most first, until the table fits
    for col in sorted(range(len(heads)), key=lambda c: wrapped_heads[c] - natural[c]):
        if _total(natural) <= width:
            break
        natural[col] = max(wrapped_heads[col], natural[col] - (_total(natural) - width))
    if _total(natural) <= width:
        return _layout(heads, rows, natural)
    wrapped = _wrapped_widths(heads, rows, width)
    if wrapped is not None:
        return _layout(heads, rows, wrapped)
    keys = max(1, min(keys, len(heads) - 1))
    split = _groups(heads, rows, natural, keys, width)
    if split is not None:
        widths, groups = split
        out: list[str] = []
        for n, group in enumerate(groups):
            cols = list(range(keys)) + group
            out += ([""] if n else []) + _layout(
                [heads[c] for c in cols], [[r[c] for c in cols] for r in rows], [widths[c] for c in cols]
            )
        return out
    share = max(1, (width - GAP * (len(heads) - 1)) // len(heads))
    if share * len(heads) + GAP * (len(heads) - 1) > width:  # more columns than the width has room for
        return [line for row in [heads, *rows] for cell in row for line in _wrap(cell, width, hard=True)]
    return _layout(heads, rows, [min(n, share) for n in natural], hard=True)


def note_lines(notes: Sequence[str], width: int | None) -> list[str]:
    """The numbered reasons under a table, each wrapped to ``width`` under its first word."""
    out = []
    for n, text in enumerate(notes, start=1):
        lead = f"[{n}] "
        out.append(wrap_line(lead + text, " " * len(lead), width))
    return out


def wrap_line(text: str, indent: str, width: int | None) -> str:
    """One line of prose wrapped to ``width`` (the lines after the first start with ``indent``)."""
    if not width or len(text) <= width:
        return text
    return textwrap.fill(text, width=width, subsequent_indent=indent, break_on_hyphens=False, break_long_words=True)


_TOKEN = re.compile(r"""(?:[^\s'"]+|'[^']*'|"[^"]*")+""")
_RULE = re.compile(r"^[=-]+$")
_LEAD = re.compile(r"^(\s*)(- |\[\d+\] |\d+\. )?")


def command_lines(command: str, indent: str, width: int) -> list[str]:
    """A shell command over lines of ``width``: broken between its words with a backslash at each line's
    end (so it still runs as printed when pasted), the lines after the first indented."""
    words: list[str] = []
    for word in _TOKEN.findall(command):  # an option and its value stay on one line
        if words and words[-1].startswith("-") and " " not in words[-1] and not word.startswith("-"):
            words[-1] += f" {word}"
        else:
            words.append(word)
    lines: list[str] = []
    line = ""
    for word in words:
        candidate = f"{indent}{word}" if not line else f"{line} {word}"
        if line and len(candidate) + 2 > width:
            lines.append(line + " \\")
            line = f"{indent}    {word}"
        else:
            line = candidate
    return [*lines, line]


def fit_text(text: str, width: int | None) -> str:
    """Text whose every line fits ``width`` columns: a prose line wraps under its indent (a bullet's under
    its first word), a line that is a ``planner`` command breaks between its words with a backslash, and a
    heading's rule is cut to the width. Lines that fit are left as they are; tables are fitted by ``table``
    before they get here."""
    if not width:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
        elif _RULE.match(line):
            out.append(line[:width])
        elif line.lstrip().startswith(("planner ", "$ planner ")):
            indent = line[: len(line) - len(line.lstrip())]
            out += command_lines(line, indent, width)
        else:
            lead = _LEAD.match(line)
            indent = (lead.group(1) if lead else "") + " " * len((lead.group(2) if lead else None) or "  ")
            out.append(wrap_line(line, indent, width))
    return "\n".join(out)
