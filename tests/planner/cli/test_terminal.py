"""Output on a real terminal (a pty): tables and prose fit its width, and --wide or a pipe does not wrap."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import typer
from typer.testing import CliRunner

from planner.cli import progress
from planner.cli.settings import Settings, settings
from planner.present import text as render
from tests.planner.conftest import EXAMPLES

PLANNER = str(Path(sys.executable).parent / "planner")
WEB = str(EXAMPLES / "web-assets.yaml")


def _on_terminal(columns: int, *args: str) -> str:
    main, child = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns), "LINES": "50"}
    process = subprocess.Popen([PLANNER, *args], stdout=child, stderr=child, env=env)
    os.close(child)
    out = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    assert process.wait(timeout=120) in (0, 1)
    return out.decode("utf-8").replace("\r\n", "\n")


def test_the_ranking_moves_its_reasons_under_the_table_and_fits() -> None:
    out = _on_terminal(160, "recommend", WEB, "--as-of", "2026-12-01", "--no-simulate")
    assert max(len(line) for line in out.splitlines()) <= 160
    notes = [line for line in out.splitlines() if line[:1] == "[" and "] " in line]
    assert notes and notes[0].startswith("[1] ")
    texts = [note.split("] ", 1)[1] for note in notes]
    assert len(texts) == len(set(texts))  # a reason shared by several options is numbered once


def test_line_items_wrap_to_the_terminal() -> None:
    out = _on_terminal(100, "cost", WEB, "-p", "aws-s3", "--as-of", "2026-12-01")
    assert max(len(line) for line in out.splitlines()) <= 100


def test_wide_does_not_wrap_and_pipes_fit_100_columns() -> None:
    wide = _on_terminal(100, "--wide", "cost", WEB, "-p", "aws-s3", "--as-of", "2026-12-01")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    args = [PLANNER, "cost", WEB, "-p", "aws-s3", "--as-of", "2026-12-01"]
    piped = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env).stdout
    assert max(len(line) for line in wide.splitlines()) > 100
    assert max(len(line) for line in piped.splitlines()) <= 100
    assert max(len(line) for line in piped.splitlines()) > 80  # the width, not a narrower default


def _big_cur(path: Path, rows: int) -> None:
    import csv
    import gzip

    with gzip.open(path, "wt", newline="") as handle:
        writer = csv.writer(handle)
        header = ["ProductCode", "LineItemType", "UsageType", "Operation", "UsageAmount", "UnblendedCost"]
        writer.writerow([*(f"lineItem/{name}" for name in header), "pricing/unit", "product/regionCode"])
        row = ["AmazonS3", "Usage", "Requests-Tier2", "GetObject", "1", "0.0000004", "Requests", "us-east-1"]
        writer.writerows([row] * rows)


def test_a_long_read_shows_a_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    _big_cur(tmp_path / "big.csv.gz", 120_000)
    args = ("ingest", "cur", str(tmp_path / "big.csv.gz"), "--out", str(tmp_path / "w"))
    shown = _on_terminal(120, *args)
    assert "reading the bill" in shown and "rows" in shown
    quiet = _on_terminal(120, "--quiet", *args, "--force")
    assert "reading the bill" not in quiet and "wrote" in quiet
    piped = subprocess.run([PLANNER, *args, "--force"], capture_output=True, text=True, timeout=120)
    assert "reading the bill" not in piped.stderr + piped.stdout


def test_simulate_and_recommend_show_their_progress_on_a_terminal() -> None:
    shown = _on_terminal(120, "simulate", WEB, "-p", "wasabi", "--duration", "5m", "--replications", "2")
    assert "simulating" in shown and "runs" in shown
    shown = _on_terminal(120, "recommend", WEB, "--as-of", "2026-12-01", "--sim-window", "30s")
    assert "simulating each provider" in shown


def test_width_and_quietness_are_arguments_not_module_state() -> None:
    rows = [("a" * 40, "b" * 40, "c" * 40)]
    assert max(len(line) for line in render.table(["x", "y", "z"], rows, "table", width=80).splitlines()) <= 80
    assert max(len(line) for line in render.table(["x", "y", "z"], rows, "table").splitlines()) > 80
    assert render.wrap_prose("word " * 30, width=40).count("\n") >= 3
    assert not hasattr(render, "TERMINAL_WIDTH") and not hasattr(progress, "QUIET")
    with progress.bar("quiet", 10, quiet=True) as moved:
        moved(5)  # a no-op
    # the planner callback's choice reaches a command through typer's context
    app = typer.Typer()
    seen: list[Settings] = []

    @app.callback()
    def _options(ctx: typer.Context) -> None:
        ctx.obj = Settings(quiet=True, width=72)

    @app.command()
    def show(ctx: typer.Context) -> None:
        seen.append(settings(ctx))

    @app.command()
    def other() -> None: ...

    assert CliRunner().invoke(app, ["show"]).exit_code == 0
    assert seen == [Settings(quiet=True, width=72)]
