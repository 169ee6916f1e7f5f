"""Shared helpers for the bad-input suite: the real CLI in-process, the one-line error check, hypothesis settings."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, settings

from planner.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CORPUS = Path(__file__).resolve().parent / "corpus"
AS_OF = "2026-12-01"

# Derandomized: the same examples on every run, so CI never flakes; no deadline, since a
# slow shared runner is not a bug. Used as a decorator, never loaded globally.
settings.register_profile(
    "reliability",
    derandomize=True,
    deadline=None,
    max_examples=100,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
RELIABLE = settings.get_profile("reliability")


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str


@contextlib.contextmanager
def _argv(args: list[str]) -> Iterator[None]:
    saved = sys.argv
    sys.argv = args
    try:
        yield
    finally:
        sys.argv = saved


def invoke(*args: str) -> Result:
    """Run ``planner ARGS`` through ``planner.cli.main`` in this process.

    Only ``SystemExit`` is caught: any other exception escapes and fails the test with its
    traceback, which is exactly the bug this suite looks for.
    """
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with _argv(["planner", *args]), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    return Result(code, out.getvalue(), err.getvalue())


def assert_one_line_error(result: Result, *, source: str | None = None, expect: str | None = None) -> str:
    """Exit code 2, exactly one line on stderr starting with ``planner: ``, naming the source."""
    assert "Traceback" not in result.err, result.err
    assert result.code == 2, (result.code, result.err, result.out[:500])
    lines = result.err.splitlines()
    assert len(lines) == 1, result.err
    line = lines[0]
    assert line.startswith("planner: "), line
    if source is not None:
        assert source in line, (source, line)
    if expect is not None:
        assert expect in line, (expect, line)
    return line


def assert_clean_outcome(result: Result, *, source: str | None = None, allow: tuple[int, ...] = (0,)) -> None:
    """Either an allowed success code, or the one-line error of bad input."""
    assert "Traceback" not in result.err, result.err
    if result.code in allow:
        return
    assert_one_line_error(result, source=source)
