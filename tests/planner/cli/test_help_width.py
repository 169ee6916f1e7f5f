"""Every command's ``--help`` at 80 columns: no line wider than the terminal, nothing cut short
("objstore-planner[p…"), every option's help there whole once the wrapped lines are joined."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
import typer.main

from planner.cli import app
from tests.planner.conftest import Result

Run = Callable[..., Result]


def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every command and group a user can ask for help on, with its click command."""
    found = [(path, command)]
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        found += _commands(sub, (*path, name))
    return found


COMMANDS = _commands(typer.main.get_command(app))


def _joined(text: str) -> str:
    """Help text with its wrapping undone: a line broken after a hyphen joins without a space."""
    text = re.sub(r"-\n\s+", "-", text)
    return " ".join(text.split())


@pytest.mark.parametrize("path,command", COMMANDS, ids=[" ".join(p) or "planner" for p, _ in COMMANDS])
def test_help_fits_80_columns_and_cuts_no_word(
    path: tuple[str, ...], command: Any, run_cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli(*path, "--help")
    assert result.code == 0, result.err
    wide = [line for line in result.out.splitlines() if len(line) > 80]
    assert wide == [], wide
    assert "…" not in result.out
    shown = _joined(result.out)
    for param in command.params:
        help_text = getattr(param, "help", None)
        if help_text:
            assert " ".join(help_text.split()) in shown, (param.name, help_text)
