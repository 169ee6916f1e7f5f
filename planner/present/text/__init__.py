"""Turning results into text: tables for terminals, Markdown for documents, JSON for programs.

Nothing here computes a figure; it only lays out what the library returned. JSON is the
models' own serialisation (money as strings of decimal numbers), so it is stable.

``tables`` holds the shared layout (money, tables, headings, wrapped prose); each other module
renders one family of results. Every renderer is re-exported here, so callers write
``from planner.present import text as render`` and ``render.recommendation(...)``.
"""

from __future__ import annotations

from planner.present.text.costs import breakdown, breakdown_json, price_status, projection, projection_json
from planner.present.text.ingest import access_log_summary, ingest_summary, inventory_summary, reconciliation
from planner.present.text.migrations import migration
from planner.present.text.pricing import price_table
from planner.present.text.ranking import legends, ranking_csv, ranking_headers, ranking_rows, recommendation
from planner.present.text.sweeps import sweep
from planner.present.text.tables import (
    CENT,
    as_json,
    csv_text,
    heading,
    line_item_row,
    marked_usd,
    plain_number,
    price_legends,
    quantity,
    table,
    unit_price,
    usd,
    wrap_prose,
)
from planner.present.text.uncertainty import uncertain_answer, uncertain_note

__all__ = [
    "CENT",
    "access_log_summary",
    "as_json",
    "breakdown",
    "breakdown_json",
    "csv_text",
    "heading",
    "ingest_summary",
    "inventory_summary",
    "legends",
    "line_item_row",
    "marked_usd",
    "migration",
    "plain_number",
    "price_legends",
    "price_status",
    "price_table",
    "projection",
    "projection_json",
    "quantity",
    "ranking_csv",
    "ranking_headers",
    "ranking_rows",
    "recommendation",
    "reconciliation",
    "sweep",
    "table",
    "uncertain_answer",
    "uncertain_note",
    "unit_price",
    "usd",
    "wrap_prose",
]
