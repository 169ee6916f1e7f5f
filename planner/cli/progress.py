"""Progress bars for commands that take more than a moment, on stderr, only on a terminal.

The library reports progress through a plain callback (``Callable[[float], None]``, the work done
so far); the CLI turns it into a rich progress bar with this module. Nothing shows when stderr is
not a terminal or with ``planner --quiet`` (the command passes ``quiet``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def bar(
    description: str, total: float | None = None, *, unit: str = "", quiet: bool = False
) -> Iterator[Callable[[float], None]]:
    """A callback that moves a bar to ``done`` (of ``total``; no total: a count and a pulse); ``quiet``:
    no bar (``planner --quiet``)."""
    if quiet or not sys.stderr.isatty():
        yield lambda done: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    if unit:
        columns.insert(3, TextColumn(unit))
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=total)

        def update(done: float) -> None:
            progress.update(task, completed=done)

        yield update
