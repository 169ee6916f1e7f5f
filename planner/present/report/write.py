"""Writing a report: check the file name, build the sections once, render them as HTML or Markdown."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from planner.errors import InputError
from planner.present.report.as_html import html_document
from planner.present.report.as_markdown import PICTURES, markdown_document, picture_path
from planner.present.report.content import build_sections
from planner.writing import refuse_existing, terminal_safe, write_atomically

if TYPE_CHECKING:
    from planner.costing.bills import BillingOptions
    from planner.workload import Workload

SUFFIXES = (".html", ".md")


def report_files(out: Path) -> list[Path]:
    """Every file a report at ``out`` may write: the report, and for Markdown the pictures beside it
    (``<stem>-<plot>.png``), so they can all be refused before any work."""
    target = Path(out)
    if target.suffix.lower() != ".md":
        return [target]
    return [target, *(picture_path(target, name) for name in PICTURES)]


def write_report(
    workload: Workload,
    out: Path,
    *,
    as_of: dt.date | None,
    profiles_dir: Path | None,
    simulate: bool = True,
    progress: Callable[[float], None] | None = None,
    force: bool = False,
    pictures: list[Path] | None = None,
    verified_only: bool = False,
    billing: BillingOptions | None = None,
) -> Path:
    """Write the report to ``out`` (``.html`` or ``.md``, by the suffix) and return the path written;
    the pictures a Markdown report writes beside it are appended to ``pictures``.

    ``simulate``, ``verified_only`` and ``billing`` are passed to the recommender (as ``planner
    recommend``'s --no-simulate, --verified-only, --calendar and --restore-days would); a file
    it would write that exists (the report, or a Markdown report's pictures) is refused before any
    work unless ``force``.
    """
    target = Path(out)
    suffix = target.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(f"{str(target)!r} is not a report file name: use .html or .md", source="--out")
    if not target.parent.is_dir():
        raise InputError(f"no such folder {str(target.parent)!r} to write the report in", source="--out")
    refuse_existing(report_files(target), force, "--out")
    title, generated, sections = build_sections(
        workload,
        as_of=as_of,
        profiles_dir=profiles_dir,
        simulate=simulate,
        progress=progress,
        verified_only=verified_only,
        billing=billing,
    )
    text = (
        html_document(title, sections, generated)
        if suffix == ".html"
        else markdown_document(title, sections, generated, target, pictures)
    )
    write_atomically(target, terminal_safe(text), source="--out", what="the report")
    return target
