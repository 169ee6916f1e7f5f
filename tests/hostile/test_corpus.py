"""The hostile corpus (issue 28): at least 300 command lines across every command, each given an
input or option value no reader should take; none may end in a traceback, a hang, running out of
memory, a silent wrong answer or a replaced file (see ``harness.check``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer.main

from planner.cli import app

from .cases import XFAIL, all_cases
from .harness import Case, check

CASES = all_cases()


@pytest.mark.parametrize("case", [c.param() for c in CASES])
def test_hostile(case: Case, tmp_path: Path) -> None:
    check(case, tmp_path)


def _commands(command: Any, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every command a user can run: each leaf, and each group that runs on its own (``measure``)."""
    found: set[tuple[str, ...]] = set()
    if getattr(command, "invoke_without_command", False) and path:
        found.add(path)
    for name, sub in getattr(command, "commands", {}).items():
        found |= _commands(sub, (*path, name)) if hasattr(sub, "commands") else {(*path, name)}
    return found


def _command_of(args: tuple[str, ...], root: Any) -> tuple[str, ...]:
    path: tuple[str, ...] = ()
    command = root
    for arg in args:
        sub = getattr(command, "commands", {}).get(arg)
        if sub is None:
            break
        path, command = (*path, arg), sub
    return path


def test_the_corpus_covers_every_command_with_300_cases_or_more() -> None:
    root = typer.main.get_command(app)
    covered = {_command_of(c.args, root) for c in CASES}
    assert len(CASES) >= 300
    assert _commands(root) - covered == set()
    assert len({c.id for c in CASES}) == len(CASES)
    assert set(XFAIL) <= {c.id for c in CASES}
