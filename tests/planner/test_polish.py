"""Loose ends of issue 28: formats listed only where printed, --verified-only on cost and report,
billing options on recommend, restore times from the tables, and a profile's provider on simulate.
Each test asserts the exact text or figure the user sees."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from .conftest import EXAMPLES, Result

AS_OF = "2026-12-01"
WEB = str(EXAMPLES / "web-assets.yaml")
Run = Callable[..., Result]


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["pricing", "show", "aws-s3", "-f", "csv"], "pricing show"),
        (["ingest", "inventory", "manifest.json", "--out", "w", "-f", "csv"], "ingest inventory"),
        (["ingest", "access-log", "log.txt", "--out", "w", "-f", "csv"], "ingest access-log"),
    ],
)
def test_show_and_ingest_neither_list_nor_take_csv(run_cli: Run, args: list[str], command: str) -> None:
    """They listed csv in --help and then refused it as "not a table of rows"; now they list only
    what they print, as migrate and diff do."""
    result = run_cli(*args)
    assert result.code == 2
    # click names the program after how it was started ("python -m pytest" when pytest runs in-process)
    assert result.err.startswith("planner: ") and result.err.count("\n") == 1
    assert result.err.endswith(
        f" {command}: Invalid value for '--format' / '-f': Value error, 'csv' is not one of"
        " 'table', 'json', 'markdown'.\n"
    )
    help_text = run_cli(*command.split(), "--help").out
    assert "table, json or markdown" in help_text and "csv (where" not in help_text
