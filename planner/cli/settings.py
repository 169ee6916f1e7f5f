"""The options of ``planner`` itself (``--wide``, ``--quiet``), decided once per run and handed to what needs them.

The ``planner`` callback keeps a frozen ``Settings`` in typer's context (``ctx.obj``); a command
takes its ``ctx: typer.Context``, reads them with ``settings(ctx)`` and passes ``width`` to the
renderers and ``quiet`` to the progress bars as arguments. Nothing here is module state.
"""

from __future__ import annotations

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
        """Wrap to the terminal's width when stdout is one (not with ``--wide``; piped output never wraps)."""
        width = None if wide or not sys.stdout.isatty() else shutil.get_terminal_size().columns
        return cls(quiet=quiet, width=width)


def settings(ctx: typer.Context) -> Settings:
    """The settings the ``planner`` callback kept for this command, or the defaults (a command run alone)."""
    found = ctx.find_object(Settings)
    return found if found is not None else Settings()
