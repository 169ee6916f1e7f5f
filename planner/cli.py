"""The ``planner`` command: parse, call the library, render. Nothing else lives here.

Heavy modules (boto3, simpy, numpy) are imported inside the commands that use them, so
``planner --help`` and the pricing commands answer at interactive speed.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import NoReturn

import typer

from measure.cli import app as measure_app
from planner.errors import PlannerError

app = typer.Typer(
    help="Choose object storage by measured performance and exact, versioned prices.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(measure_app, name="measure")


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr and an exit code; never a traceback for a user's mistake."""
    typer.echo(f"planner: {message}", err=True)
    raise typer.Exit(code)


def main() -> None:
    try:
        app()
    except PlannerError as error:
        typer.echo(f"planner: {error}", err=True)
        sys.exit(2)
