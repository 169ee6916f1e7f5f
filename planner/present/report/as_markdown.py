"""The report as Markdown: text escaped, plots written as PNG files beside the ``.md`` and linked."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

from planner.errors import PlannerError
from planner.present.report.blocks import Block, Bullets, Heading, Paragraph, Section, Table, png
from planner.writing import write_atomically

PICTURES = ("recommendation", "projection", "profile")
"""The plots a report draws: a Markdown report writes each as ``<stem>-<plot>.png`` beside it."""

_MARKDOWN_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\`*<>[]"})


def picture_path(out: Path, name: str) -> Path:
    """Where a Markdown report at ``out`` writes its plot ``name``: one of ``PICTURES`` only."""
    if name not in PICTURES:
        raise ValueError(f"a report draws no plot {name!r}")
    return out.with_name(f"{out.stem}-{name}.png")


def _md_text(text: str) -> str:
    return text.translate(_MARKDOWN_SPECIAL)


def _md_cell(text: str) -> str:
    return _md_text(text).replace("|", "\\|").replace("\n", " ") or " "


def _markdown_block(block: Block, out: Path, written: list[Path]) -> str:
    if isinstance(block, Paragraph):
        return _md_text(block.text)
    if isinstance(block, Heading):
        return f"### {_md_text(block.text)}"
    if isinstance(block, Bullets):
        return "\n".join(f"- {_md_text(item)}" for item in block.items)
    if isinstance(block, Table):
        lines = [
            "| " + " | ".join(_md_cell(h) for h in block.headers) + " |",
            "|" + "|".join(" --- " for _ in block.headers) + "|",
        ]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
        return "\n".join(lines)
    picture = picture_path(out, block.name)
    try:
        data = png(block)
    except PlannerError as error:
        return f"Plot {block.name} left out: {_md_text(str(error))}"
    write_atomically(picture, data, source="--out", what=picture.name)
    written.append(picture)
    return f"![{_md_cell(block.caption)}]({urllib.parse.quote(picture.name)})\n\n{_md_text(block.caption)}"


def markdown_document(
    title: str, sections: list[Section], generated: str, out: Path, written: list[Path] | None = None
) -> str:
    """The Markdown text of a report at ``out``; its pictures are written beside it (each appended to
    ``written``)."""
    written = [] if written is None else written
    parts = [f"# {_md_text(title)}", _md_text(generated)]
    for section in sections:
        parts.append(f'<a id="{section.anchor}"></a>\n\n## {_md_text(section.title)}')
        parts += [_markdown_block(block, out, written) for block in section.blocks]
    return "\n\n".join(parts) + "\n"
