"""``--format focus`` and ``--out`` for ``cost``, ``recommend`` and ``migrate``: a forecast's bills as
FOCUS 1.2 rows, printed as CSV or written to FILE.csv or FILE.parquet (``planner.present.text.focus``)."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from planner.cli.common import OutputFormat, refuse_overwrite
from planner.errors import InputError
from planner.writing import check_parent, write_atomically

if TYPE_CHECKING:
    from planner.costing.focus import FocusRow

ForecastFormat = Literal[
    OutputFormat.table, OutputFormat.json, OutputFormat.markdown, OutputFormat.csv, OutputFormat.focus
]
ForecastFormatOption = Annotated[
    ForecastFormat,
    typer.Option(
        "--format",
        "-f",
        help="table, json, markdown, csv (where the result is rows) or focus (FOCUS 1.2 rows of the forecast bills)",
    ),
]
PlanFormat = Literal[OutputFormat.table, OutputFormat.json, OutputFormat.markdown, OutputFormat.focus]
PlanFormatOption = Annotated[
    PlanFormat,
    typer.Option("--format", "-f", help="table, json, markdown or focus (FOCUS 1.2 rows of the move's own charges)"),
]
FocusOutOption = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="with --format focus: write the rows to this file instead of printing them: CSV, or Parquet for a"
        " .parquet name (needs pyarrow)",
    ),
]


def check_out(output: OutputFormat, out: Path | None, force: bool) -> None:
    """``--out`` checked before any work: it goes with ``--format focus``, names a .csv or .parquet
    file in a folder that exists, and replaces none without ``--force``."""
    if out is None:
        return
    if output != OutputFormat.focus:
        raise InputError("writes the FOCUS rows of --format focus: add --format focus", source="--out")
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise InputError(f"{out.name}: name a .csv or .parquet file", source="--out")
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise InputError(
                "writing Parquet needs pyarrow: pip install 'objstore-planner[ingest]', or write FILE.csv",
                source="--out",
            ) from None
    refuse_overwrite([out], force)
    check_parent(out)


def emit(rows: "list[FocusRow]", out: Path | None) -> None:
    """The rows printed as CSV, or written whole to ``out`` (CSV or Parquet by its name)."""
    from planner.present.text.focus import focus_csv, focus_file

    if out is None:
        typer.echo(focus_csv(rows))
        return
    write_atomically(out, focus_file(rows, out.name), source="--out")
