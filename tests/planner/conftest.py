from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


class Result:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Callable[..., Result]:
    """Run the real entry point in-process: exit code, stdout and stderr."""

    def run(*args: str) -> Result:
        monkeypatch.setattr(sys, "argv", ["planner", *args])
        code = 0
        try:
            main()
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
