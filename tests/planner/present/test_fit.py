"""Output that fits: every table and line the CLI prints fits the width it is given (COLUMNS, the
terminal's, or 100 columns when piped); long reasons go under a table, numbered; --wide keeps one row
per option with every reason inline; JSON does not change."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli import app
from planner.present.text import table
from planner.present.text.fit import Reasons, command_lines, fit_text
from tests.planner.conftest import EXAMPLES

WORKLOADS = sorted(EXAMPLES.glob("*.yaml"))
AS_OF = ("--as-of", "2026-12-05")


def _commands(workload: Path, *, fast: bool = False) -> list[list[str]]:
    """The commands on one workload; ``fast``: lifecycle's search over 3 months, not the workload's 12
    (its layout is the same, its search a sixth of the time)."""
    w = str(workload)
    return [
        ["recommend", w, *AS_OF],
        ["cost", w, "-p", "aws-s3", *AS_OF],
        ["cost", w, "-p", "aws-s3", "--months", "12", *AS_OF],
        ["lifecycle", w, "-p", "aws-s3", *AS_OF, *(["--months", "3"] if fast else [])],
        ["migrate", w, "--from", "aws-s3", "--to", "cloudflare-r2", "--start", "2026-12-05"],
        ["simulate", w, "-p", "aws-s3", "--duration", "30s"],
        ["measure", "--for", w, "--provider", "aws-s3", "--dry-run"],
    ]


OTHERS = [
    ["pricing", "list"],
    ["pricing", "show", "aws-s3", *AS_OF],
    ["pricing", "diff", "aws-s3", "2025-01-01", "2025-12-01"],
    ["pricing", "audit"],
    ["profiles", "list"],
    ["profiles", "show", "aws-s3"],
    ["profiles", "show", "cloudflare-r2"],
    ["diff", str(EXAMPLES / "video-streaming.yaml"), str(EXAMPLES / "video-cdn.yaml"), "--no-simulate", *AS_OF],
]
CASES = [c for w in WORKLOADS for c in _commands(w)] + OTHERS
FAST = [c for w in WORKLOADS for c in _commands(w, fast=True)] + OTHERS
WIDTHS = (80, 100, 200)


def _run(args: list[str], columns: int | None, tmp_path: Path) -> str:
    env = {"COLUMNS": str(columns)} if columns else {}
    result = CliRunner().invoke(app, args, env=env, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output


def _too_long(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width]


def _label(value: object) -> str:
    if isinstance(value, list):
        return " ".join(Path(a).name if a.endswith(".yaml") else a for a in value)
    return str(value)


# Each command on each example once, the widths in turn (the slow tier runs every width of every one).
@pytest.mark.parametrize(("args", "width"), [(c, WIDTHS[i % 3]) for i, c in enumerate(FAST)], ids=_label)
def test_every_command_fits_the_width(args: list[str], width: int, tmp_path: Path) -> None:
    out = _run(args, width, tmp_path)
    assert out.strip()
    assert _too_long(out, width) == []


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("args", CASES, ids=_label)
def test_every_command_fits_every_width(args: list[str], width: int, tmp_path: Path) -> None:
    assert _too_long(_run(args, width, tmp_path), width) == []


def test_piped_output_fits_100_columns_without_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    out = _run(["recommend", str(EXAMPLES / "video-streaming.yaml"), *AS_OF], None, tmp_path)
    assert _too_long(out, 100) == [] and max(map(len, out.splitlines())) > 80


def _notes(out: str) -> dict[int, str]:
    """The numbered reasons under the ranking, each joined back into one line."""
    notes: dict[int, str] = {}
    current = None
    for line in out.splitlines():
        start = re.match(r"^\[(\d+)\] (.*)$", line)
        if start:
            current = int(start.group(1))
            notes[current] = start.group(2)
        elif current is not None and line.startswith("    "):
            notes[current] += " " + line.strip()
        else:
            current = None
    return notes


def test_reasons_go_under_the_ranking_numbered_once_and_wide_keeps_them_inline(tmp_path: Path) -> None:
    args = ["recommend", str(EXAMPLES / "video-streaming.yaml"), *AS_OF]
    fitted = _run(args, 100, tmp_path)
    wide = _run(["--wide", *args], 100, tmp_path)
    notes = _notes(fitted)
    assert sorted(notes) == list(range(1, len(notes) + 1))
    assert len(set(notes.values())) == len(notes)  # one number per distinct reason
    # --wide: one row per option, its reasons inline, each one whole, in the words the note has
    rows = [line for line in wide.splitlines() if re.match(r"^\d+\s+\S+\s+\S+\s+\$", line)]
    ranked = json.loads(CliRunner().invoke(app, [*args, "-f", "json"]).output)["ranking"]
    assert len(rows) == len(ranked)
    for text in notes.values():
        assert any(text in row for row in rows), text
    # a reason that two options share shows the same number in both rows
    cited = [set(re.findall(r"\[(\d+)\]", line)) for line in fitted.splitlines() if re.match(r"^\d+\s", line)]
    assert any(a & b for i, a in enumerate(cited) for b in cited[i + 1 :])


def test_json_does_not_depend_on_the_width(tmp_path: Path) -> None:
    args = ["recommend", str(EXAMPLES / "web-assets.yaml"), *AS_OF, "--no-simulate", "-f", "json"]
    outputs = {_run(args, w, tmp_path) for w in (40, 100)} | {_run(["--wide", *args], 100, tmp_path)}
    assert len(outputs) == 1


_WORD = st.text(alphabet="abcdefghij$.,-0123456789", min_size=1, max_size=14)
_CELL = st.lists(_WORD, min_size=1, max_size=12).map(" ".join)


@settings(max_examples=30, deadline=None)
@given(
    rows=st.lists(st.lists(_CELL, min_size=5, max_size=5), min_size=1, max_size=6),
    reasons=st.lists(st.lists(_CELL, max_size=3), min_size=6, max_size=6),
    width=st.integers(min_value=60, max_value=160),
)
def test_a_fitted_table_fits_and_keeps_every_word(rows: list[list[str]], reasons: list[list[str]], width: int) -> None:
    headers = ["key", "first column", "second", "third (sim.)", "fourth", "why not"]
    cells = [[*row, Reasons(why)] for row, why in zip(rows, reasons, strict=False)]
    text = table(headers, cells, "table", width=width, keys=2)
    assert _too_long(text, width) == []
    words = text.split()
    for row in cells:
        for cell in row:
            for word in str(cell).replace(";", " ").split():
                assert any(word in w for w in words), word
    inline = table(headers, cells, "table")
    assert all(str(Reasons(why)) in inline for why in reasons[: len(rows)] if why)


def test_a_long_command_breaks_between_options_and_still_runs_when_joined() -> None:
    command = "planner measure --for examples/video-streaming.yaml --provider aws-s3 --endpoint URL --bucket BUCKET"
    lines = command_lines("  " + command, "  ", 60)
    assert all(len(line) <= 60 for line in lines) and len(lines) > 1
    assert all(line.endswith(" \\") for line in lines[:-1])
    assert " ".join(line.removesuffix(" \\").strip() for line in lines) == command
    assert any("--endpoint URL" in line for line in lines)  # an option beside its value
    assert fit_text("  " + command, 60) == "\n".join(lines)
