"""Intervals where figures are random: the sensitivity of a growing workload over its whole horizon
(issue 28 item 6) and the simulated counts' confidence intervals (item 7)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from planner.decide.uncertainty import draw, sample
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
    result = run_cli("recommend", str(path), "--no-simulate", "--samples", "200", "--as-of", "2026-01-01")
    assert result.code == 0, result.err
    assert "What moves the favourite's bill over 12 months (one input at its p10 and p90, the others" in result.out
    row = next(line for line in result.out.splitlines() if line.startswith("storage.growth_per_month"))
    at_p10, at_p90 = row.split()[1:3]
    assert at_p10 != at_p90
    assert at_p10.startswith("$10,") and at_p90.startswith("$14,")
