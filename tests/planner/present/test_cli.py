"""The CLI commands wired to this package: schema, diff, report and the --plot options."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from planner.workload.schema import schema_for

from .conftest import ROOT, check_picture

Run = Callable[..., Any]
SCRATCH = str(ROOT / "examples" / "pipeline-scratch.yaml")
WEB = str(ROOT / "examples" / "web-assets.yaml")


def test_schema_command(run_cli: Run) -> None:
    result = run_cli("schema")
    assert result.code == 0
    assert json.loads(result.out) == schema_for("workload")
    unknown = run_cli("schema", "profile")
    assert unknown.code == 2
    assert unknown.err == "planner: no schema for 'profile' (choices: workload)\n"


def test_diff_command_json(run_cli: Run) -> None:
    result = run_cli("diff", WEB, SCRATCH, "-p", "backblaze-b2", "--as-of", "2026-01-01", "-f", "json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["mode"] == "provider"
    assert Decimal(data["a"]["monthly_usd"]) + Decimal(data["monthly_change_usd"]) == Decimal(data["b"]["monthly_usd"])


def test_report_command(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "scratch.md"
    result = run_cli("report", SCRATCH, "-o", str(out), "--as-of", "2026-01-01")
    assert result.code == 0, result.err
    pictures = [tmp_path / f"scratch-{name}.png" for name in ("recommendation", "projection", "profile")]
    assert result.out == "".join(f"wrote {path}\n" for path in [out, *pictures])  # every file it wrote
    assert "## Recommendation" in out.read_text(encoding="utf-8")
    check_picture(tmp_path / "scratch-recommendation.png")


def test_plot_options(run_cli: Run, tmp_path: Path) -> None:
    picture = tmp_path / "projection.svg"
    result = run_cli("cost", WEB, "-p", "wasabi", "--months", "12", "--as-of", "2026-01-01", "--plot", str(picture))
    assert result.code == 0, result.err
    check_picture(picture)
    bad = run_cli("cost", WEB, "-p", "wasabi", "--months", "3", "--plot", str(tmp_path / "p.jpg"))
    assert bad.code == 2
    assert bad.err.startswith("planner: --plot: ") and bad.err.rstrip().endswith("use .png or .svg")
    assert bad.err.count("\n") == 1
