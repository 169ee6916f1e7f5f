"""The ``simulate`` command: registered on a throwaway app, and on the main CLI once it is there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from planner.cli.simulate import simulate_command

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
    # S3's GET TTFB is Tigris's published p50 and p90, the p99 beyond them extrapolated
    assert any("a lognormal through its p50 (22.4 ms) and p90 (42 ms)" in note for note in data["assumptions"])


def test_bad_duration_is_an_input_error_naming_the_option() -> None:
    from planner.errors import InputError

    result = CliRunner().invoke(_app(), ["simulate", EXAMPLE, "-p", "aws-s3", "--duration", "ten"])
    assert isinstance(result.exception, InputError) and result.exception.source == "--duration"


def test_importing_the_command_loads_neither_simpy_nor_numpy() -> None:
    code = "import sys, planner.cli.simulate; print('simpy' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_main_cli_runs_it() -> None:
    from planner import cli

    names = set(typer.main.get_group(cli.app).commands)
    if "simulate" not in names:
        pytest.skip("planner.cli does not register the simulate command yet")
    result = subprocess.run(
        [sys.executable, "-c", "from planner.cli import main; main()", "simulate", EXAMPLE, "-p", "nowhere"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and result.stderr.startswith("planner: ") and "Traceback" not in result.stderr


def test_without_a_provider_the_profile_s_own_endpoint_is_simulated(tmp_path: Path) -> None:
    from planner.measure.profile import Cell, Percentiles, Profile, Source

    cells = [
        Cell(
            op=op,  # type: ignore[arg-type]
            object_size_bytes=4096,
            concurrency=concurrency,
            samples=1000,
            ops_per_s=ops,
            latency_s=Percentiles(p50=p50, p99=p50 * 3),
            ttfb_s=Percentiles(p50=p50, p99=p50 * 3),
        )
        for op, concurrency, ops, p50 in (("get", 1, 400, 0.0025), ("get", 16, 500, 0.032), ("put", 1, 200, 0.005))
    ]
    profile = tmp_path / "local.json"
    profile.write_text(Profile(provider="local", cells=cells, source=Source(kind="measured")).model_dump_json())
    workload = tmp_path / "w.yaml"
    workload.write_text(
        "name: local\nstorage: {stored: 4 MB, object_size: 4 KiB}\n"
        "traffic: {reads: 2592000, writes: 648000, peak_rate: 300/s}\n"
    )
    result = CliRunner().invoke(
        _app(),
        [
            "simulate",
            str(workload),
            "--profile",
            str(profile),
            "--duration",
            "10s",
            "--replications",
            "1",
            "-f",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["prices"].startswith("no price table")
    # the peak window runs at traffic.peak_rate, 300/s, in the monthly counts' 4:1 mix
    peak_requests = sum(op["requests"]["mean"] for op in data["peak"]["operations"].values())
    assert peak_requests / 10 == pytest.approx(300, rel=0.1)
    # no provider: no documented request rates, so nothing rejected
    assert all(not op["errors"] for op in data["peak"]["operations"].values())


def test_peak_rate_needs_a_unit_and_a_rate_above_the_mean() -> None:
    from planner.errors import InputError
    from planner.sim import adapt_workload
    from planner.workload import parse_request_rate, parse_workload

    assert parse_request_rate("18000/min") == 300
    with pytest.raises(InputError, match=r"traffic\.peak_rate"):
        parse_workload(
            {"name": "x", "storage": {"stored": "1 GB", "object_size": "1 MB"}, "traffic": {"peak_rate": 300}}
        )
    slow = parse_workload(
        {
            "name": "x",
            "storage": {"stored": "1 GB", "object_size": "1 MB"},
            "traffic": {"reads": 2592000, "peak_rate": "0.5/s"},
        }
    )
    with pytest.raises(InputError, match="below the month's average"):
        adapt_workload(slow, window="peak")
