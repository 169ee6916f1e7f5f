"""``measure cleanup`` reads a journal named by its run id: what it is given is checked before any request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CLEANUP = ("measure", "cleanup", "--bucket", "b", "--endpoint", "http://127.0.0.1:9")


def test_a_journal_that_names_no_run_is_refused_as_such(tmp_path: Path, run_cli: Any) -> None:
    # an empty journal had been said to "belong to run None"
    journal = tmp_path / "empty.jsonl"
    journal.write_text("")
    result = run_cli(*CLEANUP, "--run-id", "abc", "--journal", str(journal))
    assert result.code == 2
    assert result.err.strip() == f"planner: {journal}: not a journal of a run (it names none)"


def test_a_run_id_that_reaches_outside_is_refused(tmp_path: Path, run_cli: Any) -> None:
    result = run_cli(*CLEANUP, "--run-id", "../x")
    assert result.code == 2 and "--run-id: use letters, digits, '-' and '_' only" in result.err
