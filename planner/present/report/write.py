"""Writing a report: check the file name, build the sections once, render them as HTML or Markdown."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from planner.errors import InputError
from planner.present.report.as_html import html_document
from planner.present.report.as_markdown import markdown_document
from planner.present.report.content import build_sections

if TYPE_CHECKING:
    from planner.workload import Workload

SUFFIXES = (".html", ".md")


def write_report(
    workload: Workload,
    out: Path,
    *,
    as_of: dt.date | None,
    profiles_dir: Path | None,
    simulate: bool = True,
    progress: Callable[[float], None] | None = None,
) -> Path:
    """Write the report to ``out`` (``.html`` or ``.md``, by the suffix) and return the path written.

    ``simulate`` is passed to the recommender (as ``planner recommend --no-simulate`` would).
    """
    target = Path(out)
    suffix = target.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(f"{str(target)!r} is not a report file name: use .html or .md", source="--out")
    if not target.parent.is_dir():
        raise InputError(f"no such folder {str(target.parent)!r} to write the report in", source="--out")
    title, generated, sections = build_sections(
        workload, as_of=as_of, profiles_dir=profiles_dir, simulate=simulate, progress=progress
    )
    text = (
        html_document(title, sections, generated)
        if suffix == ".html"
        else markdown_document(title, sections, generated, target)
    )
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write the report ({error.strerror or error})", source="--out") from None
    return target
