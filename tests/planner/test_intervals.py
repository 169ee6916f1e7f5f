"""Intervals where figures are random: the sensitivity of a growing workload over its whole horizon
(issue 28 item 6) and the simulated counts' confidence intervals (item 7)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from planner.cli.simulation_text import report
from planner.decide.uncertainty import draw, sample
from planner.present.text import heading, table
from planner.sim.front.workload_sim import simulate
from planner.workload import load_workload
from tests.planner.conftest import Result

TB = 10**12
GROWING = """name: growing
storage: {stored: 100 TB, object_size: 64 MiB, growth_per_month: {low: 5 TB, high: 15 TB}}
traffic: {egress: 2 TB}
constraints: {providers: [backblaze-b2], storage_classes: [standard], months: 12}
"""


def _horizon_usd(growth_tb: float) -> float:
    """B2 Standard over 12 months from 2026-01-01, stored 100 TB + growth x month (egress within 3x
    stored: free): $0.006 a GB-month after 10 GB free for months 1-4 (backblaze-b2@2023-10-03), then
    $0.00695 (backblaze-b2@2026-05-01): 4 x 599.94 + 36 g + 8 x 694.9305 + 6.95 x 60 g
    = 7,959.204 + 453 g dollars (g in TB a month)."""
    return 7959.204 + 453 * growth_tb


def test_the_tornado_of_a_growing_workload_spans_the_horizon(tmp_path: Path) -> None:
    """Growth moves no first month: a month-one tornado had one flat bar at $599.94. Over the
    horizon the bar spans the bill at growth's p10 and p90, as the horizon's p10-p90 does."""
    path = tmp_path / "growing.yaml"
    path.write_text(GROWING)
    workload = load_workload(path)
    answer = sample(workload, workload.uncertain, 2000, seed=1, as_of=dt.date(2026, 1, 1))
    (swing,) = answer.tornado
    assert swing.field == "storage.growth_per_month"
    # the central bill is `planner cost --months 12` with growth at 10 TB: $12,489.20
    assert answer.central_usd == pytest.approx(12489.20, abs=1e-6)
    grown = draw(workload.uncertain, 2000, np.random.default_rng(1))["storage.growth_per_month"] / TB
    low, high = np.percentile(grown, [10, 90])
    assert swing.at_p10_usd == pytest.approx(_horizon_usd(float(low)), abs=0.02)
    assert swing.at_p90_usd == pytest.approx(_horizon_usd(float(high)), abs=0.02)
    assert swing.at_p90_usd - swing.at_p10_usd > 3600  # 453 x 8 TB: not flat
    # one monotone input: its bar is the horizon bill's own p10-p90, to the cent's rounding
    favourite = answer.options[0]
    assert swing.at_p10_usd == pytest.approx(favourite.horizon_p10_usd, abs=0.1)
    assert swing.at_p90_usd == pytest.approx(favourite.horizon_p90_usd, abs=0.1)
    assert swing.first_order_index is not None and swing.first_order_index > 0.99


def test_the_tornado_text_names_the_horizon(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    path = tmp_path / "growing.yaml"
    path.write_text(GROWING)
    result = run_cli("--wide", "recommend", str(path), "--no-simulate", "--samples", "200", "--as-of", "2026-01-01")
    assert result.code == 0, result.err
    assert "What moves the favourite's bill over 12 months (one input at its p10 and p90, the others" in result.out
    row = next(line for line in result.out.splitlines() if line.startswith("storage.growth_per_month"))
    at_p10, at_p90 = row.split()[1:3]
    assert at_p10 != at_p90
    assert at_p10.startswith("$10,") and at_p90.startswith("$14,")


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_month_interval_covers_another_seeds_figure_in_most_cases() -> None:
    """web-assets at R2, 30 s windows x 3 replications: a PUT a month is about 9 a window, so the
    month's PUTs move 576,000 to 1,094,400 between seeds 0-9. Each seed's 95 % interval (of its mean)
    holds the next seed's figure in 26 of the 30 (seed, operation) cases: about the 90 % that
    t(2) gives a second mean of three (|T| < 4.30 / sqrt 2)."""
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    runs = [simulate(workload, "cloudflare-r2", duration_s=30.0, seed=seed) for seed in range(10)]
    puts = sorted(run.month_billed_requests["put"] for run in runs)
    assert (puts[0], puts[-1]) == (576_000, 1_094_400)
    covered = [
        run.month_billed_requests_ci95[op].contains(runs[(seed + 1) % 10].month_billed_requests[op])
        for seed, run in enumerate(runs)
        for op in run.month_billed_requests
    ]
    assert (sum(covered), len(covered)) == (26, 30)
    # the interval is about the month's own figure: the window's, scaled
    first = runs[0].month_billed_requests_ci95["get"]
    assert round(first.mean) == runs[0].month_billed_requests["get"] == 188_784_000


def test_simulate_prints_each_months_interval(run_cli: Callable[..., Result]) -> None:
    result = run_cli("simulate", str(EXAMPLES / "web-assets.yaml"), "-p", "cloudflare-r2", "--duration", "30s")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert "request    a month      95% CI (3 replications)" in lines
    assert "get        188,784,000  177,587,334 .. 199,980,666" in lines
    assert "put        633,600      305,722 .. 961,478" in lines
    assert lines.count("throttled answers (503 SlowDown, 429), every attempt: 0 (95% CI 0 .. 0)") == 2
    as_json = run_cli(
        "simulate", str(EXAMPLES / "web-assets.yaml"), "-p", "cloudflare-r2", "--duration", "30s", "-f", "json"
    )
    payload = json.loads(as_json.out)
    put = payload["month_billed_requests_ci95"]["put"]
    assert round(put["mean"]) == 633_600 and round(put["mean"] - put["ci95_half_width"]) == 305_722
    assert payload["peak"]["throttled"] == {"mean": 0.0, "ci95_half_width": 0.0}


def test_throttles_have_an_interval_over_the_replications() -> None:
    """Genomics' hot reference under one key at R2 (128 concurrent reads a key, then 503 SlowDown):
    the peak's throttles, three replications, seed 1: 502.33 +- 1.43 a 20 s window."""
    workload = load_workload(EXAMPLES / "genomics-pipeline.yaml")
    hot = workload.traffic.hot_objects
    assert hot is not None
    traffic = workload.traffic.model_copy(update={"hot_objects": hot.model_copy(update={"replicas": 1})})
    workload = workload.model_copy(update={"traffic": traffic})
    result = simulate(workload, "cloudflare-r2", duration_s=20.0, replications=3, seed=1)
    throttled = result.peak.throttled
    assert throttled.mean == pytest.approx(result.peak.operations["GET"].errors["503 SlowDown"].mean)
    assert throttled.mean == pytest.approx(502.333, abs=1e-3)
    assert throttled.ci95_half_width == pytest.approx(1.434, abs=1e-3)
    shown = report(result, "table", lambda *t: table(*t), heading)
    assert "throttled answers (503 SlowDown, 429), every attempt: 502 (95% CI 501 .. 504)" in shown.splitlines()
