"""One self-contained report of a recommendation, in HTML or Markdown, that a reviewer can check.

The report holds the choice and its reasons, the ranking, the chosen option's line items, the
month-by-month bill, the break-even points, the plots, every price table version used (with its
effective date, how well that date and the figures are sourced, and the sources) and every
profile's citations, rejected claims and missing figures. The document is built once as a list
of blocks (``content``, of the kinds in ``blocks``) and written out by one of two small
renderers (``as_html``, ``as_markdown``), so HTML and Markdown say the same.

HTML embeds its plots as base64 PNG and escapes every piece of text; Markdown writes its PNGs
next to the ``.md`` file (``<stem>-<plot>.png``) and links them by relative name.
"""

from __future__ import annotations

from planner.present.report.content import build_sections
from planner.present.report.write import SUFFIXES, report_files, write_report

__all__ = ["SUFFIXES", "build_sections", "report_files", "write_report"]
