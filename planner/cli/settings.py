"""The options of ``planner`` itself (``--wide``, ``--quiet``), decided once per run and handed to what needs them.

The ``planner`` callback keeps a frozen ``Settings`` in typer's context (``ctx.obj``); a command
takes its ``ctx: typer.Context``, reads them with ``settings(ctx)`` and passes ``width`` to the
renderers and ``quiet`` to the progress bars as arguments. Nothing here is module state.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass

import typer


@dataclass(frozen=True)
class Settings:
    """``quiet``: no progress bars; ``width``: wrap tables and prose to this many columns (None: never)."""

    quiet: bool = False
    width: int | None = None

    @classmethod
    def for_this_terminal(cls, *, wide: bool, quiet: bool) -> Settings:
        """Fit the terminal: ``COLUMNS`` when set, else the terminal's width when stdout is one, else
        100 columns (piped output fits a terminal too); never wrapped with ``--wide``."""
        return cls(quiet=quiet, width=None if wide else terminal_width())


DEFAULT_WIDTH = 100


def terminal_width() -> int:
    """The columns output should fit: ``COLUMNS`` when it holds a number, else the terminal's width when
    stdout is one, else ``DEFAULT_WIDTH``."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    return DEFAULT_WIDTH


def settings(ctx: typer.Context) -> Settings:
    """The settings the ``planner`` callback kept for this command, or the defaults (a command run alone)."""
    found = ctx.find_object(Settings)
    return found if found is not None else Settings()


def echo(ctx: typer.Context, text: str, fmt: str = "table") -> None:
    """Print a command's text output; plain text (``fmt`` "table") fitted to the settings' width
    (``planner.present.text.fit.fit_text``), every other format exactly as rendered."""
    if fmt == "table":
        from planner.present.text.fit import fit_text

        text = fit_text(text, settings(ctx).width)
    typer.echo(text)
