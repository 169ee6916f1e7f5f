"""``measure --for`` with ``--budget``: the budget shortens windows but never drops a cell the workload's
targets need (it once dropped the 100 MiB size, and with it two of the three planned cells, and measured
a run that could decide nothing)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from tests.planner.conftest import Result

from .test_measure_for import EXAMPLE

Run = Callable[..., Result]
ARGS = ["measure", "--for", EXAMPLE, "--provider", "idrive-e2", "--bucket", "b", "--dry-run"]


def test_a_budget_shortens_the_planned_cells_windows(run_cli: Run, tmp_path: Path) -> None:
    done = run_cli("--wide", *ARGS, "--out", str(tmp_path / "p.json"), "--budget", "60s")
    assert done.code == 0, done.err
    # the latency target's open-loop cells go first (the x64 peak they are fractions of stays), then the
    # windows are as long as the rest allows
    assert "  to fit: cell windows 30 s -> 6.97 s, warm-ups 3 s -> 1 s, probe steps 5 s -> 2 s" in done.out
    assert "  to fit: open-loop cells" in done.out
    assert "4 cells of 6.97 s (+1 s warm-up), probes: none" in done.out
    steps = [line.split()[:3] for line in done.out.splitlines() if re.match(r"  get \d+[KM]iB x\d+ ", line)]
    assert steps == [
        ["get", "256KiB", "x1"],
        ["get", "256KiB", "x64"],
        ["get", "100MiB", "x1"],
        ["get", "100MiB", "x64"],
    ]


def test_a_budget_too_small_for_the_planned_cells_is_refused_not_cut(run_cli: Run, tmp_path: Path) -> None:
    done = run_cli(*ARGS, "--out", str(tmp_path / "p.json"), "--budget", "40s")
    assert done.code == 2
    assert done.err.strip().splitlines() == [
        "planner: --budget: the 4 cell(s) this workload's targets need take about 49 s at 5 s windows, and a"
        " budget drops none of them; give a budget of at least 52 s, or none"
    ]
