"""The ``simulate`` command: registered on a throwaway app, and on the main CLI once it is there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from planner.sim.cli import simulate_command

EXAMPLE = str(Path(__file__).resolve().parents[3] / "examples" / "genomics-pipeline.yaml")


def _app() -> typer.Typer:
    app = typer.Typer()
    app.command("simulate")(simulate_command)

    @app.callback()
    def _root() -> None:
        """A group, so the command keeps its name as on the main CLI."""

    return app


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(_app(), ["simulate", EXAMPLE, *args])
    return result.exit_code, result.stdout, result.stderr


def test_table_shows_both_windows_targets_month_and_assumptions() -> None:
    code, out, _ = _run("-p", "cloudflare-r2", "--duration", "20s", "--replications", "2")
    assert code == 0, out
    for text in ("peak window", "mean window", "p50/p95/p99/p99.9", "Targets (peak window)", "a month", "Derived"):
        assert text in out
    assert "TTFB floor" in out  # R2's published 40 ms floor, cited


def test_markdown_and_json() -> None:
    code, out, _ = _run("-p", "aws-s3", "--duration", "10s", "--replications", "1", "--format", "markdown")
    assert code == 0 and out.startswith("## ") and "| op " in out
    code, out, _ = _run("-p", "aws-s3", "--duration", "10s", "--replications", "1", "-f", "json", "--seed", "4")
    data = json.loads(out)
    assert code == 0 and data["provider"] == "aws-s3" and data["peak"]["seed"] == 4
    assert any("Little's law" in note for note in data["assumptions"])


def test_bad_duration_is_an_input_error_naming_the_option() -> None:
    from planner.errors import InputError

    result = CliRunner().invoke(_app(), ["simulate", EXAMPLE, "-p", "aws-s3", "--duration", "ten"])
    assert isinstance(result.exception, InputError) and result.exception.source == "--duration"


def test_importing_the_command_loads_neither_simpy_nor_numpy() -> None:
    code = "import sys, planner.sim.cli; print('simpy' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_main_cli_runs_it() -> None:
    from planner import cli

    names = {command.name for command in cli.app.registered_commands}
    if "simulate" not in names:
        pytest.skip("planner.cli does not register the simulate command yet")
    result = subprocess.run(
        [sys.executable, "-c", "from planner.cli import main; main()", "simulate", EXAMPLE, "-p", "nowhere"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and result.stderr.startswith("planner: ") and "Traceback" not in result.stderr
