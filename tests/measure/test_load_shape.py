"""What a cell says about its load, against the SeaweedFS server: the latency distribution it stores,
the requests that were really in flight, open-loop arrival rates, and windows that ran short."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from planner.measure.profile import Cell, LatencyHistogram, Percentiles
from planner.measure.run import measurement
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import DELETE_WARMUP_S, MeasureOptions
from tests.measure.conftest import FaultProxy, S3Server, list_all

pytestmark = pytest.mark.server


def _options(endpoint: str, bucket: str, out: Path, **overrides: object) -> MeasureOptions:
    base: dict[str, object] = {
        "sizes": [4096],
        "concurrency": [1],
        "duration_s": 2.0,
        "warmup_s": 0.5,
        "probes": [],
        "addressing": "path",
        "open_rates_per_s": [],
        "open_peak_fractions": [],
    }
    base.update(overrides)
    return MeasureOptions(endpoint=endpoint, bucket=bucket, out=out, **base)  # type: ignore[arg-type]


def _agrees_within_a_bucket(histogram: LatencyHistogram, stored: Percentiles) -> None:
    """Each stored percentile lies in the bucket the histogram gives for it (a bucket either side is
    allowed for a sample on a bucket's edge or a rank that floating point puts one off)."""
    for q, value in ((0.5, stored.p50), (0.9, stored.p90), (0.95, stored.p95), (0.99, stored.p99)):
        edge = histogram.quantile(q)
        assert value is not None and edge is not None
        assert edge / histogram.growth**2 <= value <= edge * histogram.growth, (q, value, edge)


def _check_histograms(cell: Cell) -> None:
    assert cell.latency_histogram is not None and cell.ttfb_histogram is not None
    assert cell.latency_histogram.total == cell.samples == cell.ttfb_histogram.total
    _agrees_within_a_bucket(cell.latency_histogram, cell.latency_s)
    _agrees_within_a_bucket(cell.ttfb_histogram, cell.ttfb_s)
    assert cell.samples is not None
    if cell.samples < 1000:
        assert cell.latency_s.p999 is None and cell.note is not None and "p99.9 not given" in cell.note
    else:
        assert cell.latency_s.p999 is not None and cell.latency_s.p99 is not None
        assert cell.latency_s.p99 <= cell.latency_s.p999 <= (cell.latency_s.max or math.inf)


def _littles_law(cell: Cell, tolerance: float) -> None:
    """Requests in flight (counted directly) = ops/s x mean time in flight."""
    assert cell.in_flight_mean is not None and cell.ops_per_s and cell.latency_s.mean
    assert math.isclose(cell.in_flight_mean, cell.ops_per_s * cell.latency_s.mean, rel_tol=tolerance), cell


def test_histograms_and_requests_in_flight_on_several_processes(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    # 32 requests over 2 worker processes: before the request threads stopped reading the shared stop
    # event, about 20 of the 32 were in flight here (the rest waited for its lock), unflagged
    options = _options(s3_env.endpoint, bucket, tmp_path / "p.json", ops=["put", "get"], concurrency=[1, 32])
    options.processes = 2
    profile = Measurement(options).run()
    assert len(profile.cells) == 4
    for cell in profile.cells:
        _check_histograms(cell)
        _littles_law(cell, 0.15)
        assert cell.in_flight_mean is not None and cell.mode == "closed"
        # every nominal worker was busy: the label's concurrency is what ran
        assert cell.in_flight_mean >= 0.9 * cell.concurrency, cell
        assert cell.in_flight_mean <= cell.concurrency + 1e-6
    wide = profile.cell("get", 4096, 32)
    assert wide is not None and wide.processes == 2
    assert list_all(s3_env, bucket) == []


def test_open_loop_cells_hold_their_arrival_rate(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    options = _options(
        s3_env.endpoint,
        bucket,
        tmp_path / "p.json",
        ops=["get", "put"],
        concurrency=[4],
        duration_s=3.0,
        open_rates_per_s=[40.0],
        open_peak_fractions=[0.5],
        knee_rounds=1,  # one round of the loaded rate: the knee's second is tests/measure/test_default_cells.py's
    )
    profile = Measurement(options).run()
    for op in ("get", "put"):
        closed = profile.cell(op, 4096, 4)
        assert closed is not None and closed.ops_per_s is not None
        opened = [c for c in profile.cells if c.op == op and c.mode == "open"]
        offered = sorted(c.offered_per_s or 0.0 for c in opened)
        assert offered == pytest.approx(sorted([40.0, 0.5 * closed.ops_per_s]), rel=1e-3)
        for cell in opened:
            assert cell.concurrency == 4 and cell.key() == (op, 4096, 4, cell.offered_per_s)
            assert profile.cell(op, 4096, 4, cell.offered_per_s) is cell
            assert cell.offered_per_s is not None and cell.samples is not None and cell.duration_s is not None
            expected = cell.offered_per_s * cell.duration_s
            # Poisson arrivals: the count in the window is within 4 standard deviations of the rate's
            assert abs(cell.samples - expected) <= 4 * math.sqrt(expected) + 2, (cell.samples, expected)
            assert (
                cell.ops_per_s is not None
                and abs(cell.ops_per_s * cell.duration_s - expected)
                <= 4 * math.sqrt(expected) + 2 + 4 * 0.1 * cell.offered_per_s
            )
            assert cell.late_arrivals is not None and 0 <= cell.late_arrivals <= cell.samples
            assert cell.in_flight_mean is not None and 0 < cell.in_flight_mean <= 4 + 1e-6
            _check_histograms(cell)
    # open cells describe latency at a rate, not a ceiling: the summary's rates are the closed cells'
    summary = profile.summary()
    assert summary.ops_per_s["get"] == profile.cell("get", 4096, 4).ops_per_s  # type: ignore[union-attr]
    assert list_all(s3_env, bucket) == []


def test_open_loop_near_capacity_queues_and_counts_late_arrivals(
    s3_env: S3Server, bucket: str, tmp_path: Path, fault_proxy: FaultProxy
) -> None:
    # every answer held 40 ms: one connection serves at most 25/s; arrivals at 0.8 of that often find
    # it busy, wait (late), and their latency, timed from the arrival, includes the wait
    fault_proxy.delay_s = 0.04
    options = _options(
        fault_proxy.endpoint,
        bucket,
        tmp_path / "p.json",
        ops=["get"],
        concurrency=[1],
        duration_s=6.0,
        open_peak_fractions=[0.8],
        knee_rounds=1,
    )
    profile = Measurement(options).run()
    closed = profile.cell("get", 4096, 1)
    (opened,) = [c for c in profile.cells if c.mode == "open"]
    assert closed is not None and closed.latency_s.mean is not None and opened.latency_s.mean is not None
    assert opened.late_arrivals is not None and opened.samples is not None
    assert opened.late_arrivals >= 0.2 * opened.samples
    # M/D/1 at 80 %: the steady-state mean wait is 2 service times, but a ~100-arrival window that
    # starts empty waits less and varies widely; replaying Poisson arrivals through that queue 100,000
    # times, the window's mean latency fell below 1.2 service times in none (at 1.5 it did in 2 %)
    assert opened.latency_s.mean >= 1.2 * closed.latency_s.mean
    assert opened.in_flight_mean is not None and opened.in_flight_mean <= 1 + 1e-6
    assert list_all(s3_env, bucket) == []


def test_a_delete_list_that_runs_out_is_flagged_short(
    s3_env: S3Server, bucket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # writing the list may take only 0.3 s here: far too few objects to last the 2 s window, as on a
    # fast server whose DELETEs outrun what can be written for them
    monkeypatch.setattr(measurement, "delete_budget_s", lambda cell_s: 0.3)
    options = _options(s3_env.endpoint, bucket, tmp_path / "p.json", ops=["delete"], concurrency=[2])
    profile = Measurement(options).run()
    (cell,) = profile.cells
    assert cell.duration_s is not None and cell.duration_s < 0.9 * options.duration_s
    assert "short-window" in cell.flags and cell.note is not None and "of the 2 s asked" in cell.note
    assert cell.warmup_s == DELETE_WARMUP_S
    # a rate from a fraction of the window is no ceiling
    assert profile.summary().ops_per_s["delete"] is None
    assert list_all(s3_env, bucket) == []
