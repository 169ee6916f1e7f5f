"""``planner measure`` with no cell options records what the simulator's model rests on: two sparse
open-loop rates per operation (the wake-up term), the loaded rates, and the smallest GET size's
loaded rates in two rounds (the knee); a budget keeps them longest; ``--for`` plans them where a
latency target is at stake."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from planner.measure import plan
from planner.measure.run.options import MeasureOptions, open_loop_steps, plan_steps
from tests.measure.conftest import S3Server

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "video-streaming.yaml")


def _options(**extra: object) -> MeasureOptions:
    return MeasureOptions(endpoint=None, bucket="b", out=Path("p.json"), **extra)  # type: ignore[arg-type]


def _cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from planner.cli import main

    monkeypatch.setattr(sys, "argv", ["planner", *args])
    code = 0
    try:
        main()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 0
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_default_plan_has_two_sparse_rates_the_loaded_ones_and_the_knee_rounds() -> None:
    options = _options(sizes=[4096, 256 * 1024], ops=["get", "put"], probes=[])
    steps = plan_steps(options)
    for op in ("get", "put"):
        for size in ("4KiB", "256KiB"):
            opened = [s.split(" open ")[1] for s in steps if s.startswith(f"{op} {size} x10 open ")]
            rounds = ["0.5x peak, round 2", "0.8x peak, round 2"] if (op, size) == ("get", "4KiB") else []
            assert opened == ["10/s", "40/s", "0.5x peak", "0.8x peak", *rounds]
    # HEAD, LIST and DELETE get none
    assert open_loop_steps(_options(), "head", 4096) == ([], [])


def test_open_loop_estimates_send_their_rate_not_the_closed_loop_s() -> None:
    options = _options(sizes=[4096], concurrency=[1, 10], ops=["get"], probes=[])
    estimate = plan.estimate(options)
    cell_s = options.warmup_s + options.duration_s  # 33 s
    closed = estimate.step("get 4KiB x10").requests["get"]  # type: ignore[union-attr]
    # ten streams at 20 ms + 4 KiB / 100 MiB/s a request (the assumed rates), for 33 s
    assert closed == math.ceil(10 * cell_s / (plan.ASSUMED_TTFB_S + 4096 / plan.ASSUMED_STREAM_BYTES_PER_S))
    assert estimate.step("get 4KiB x10 open 10/s").requests == {"get": 330}  # type: ignore[union-attr]
    assert estimate.step("get 4KiB x10 open 40/s").requests == {"get": 1320}  # type: ignore[union-attr]
    assert estimate.step("get 4KiB x10 open 0.5x peak").requests == {"get": math.ceil(closed * 0.5)}  # type: ignore[union-attr]
    assert estimate.step("get 4KiB x10 open 0.8x peak, round 2").requests == {"get": math.ceil(closed * 0.8)}  # type: ignore[union-attr]


def test_a_budget_drops_probes_and_the_middle_concurrency_before_the_models_cells() -> None:
    options = _options(sizes=[4096, 256 * 1024], ops=["get", "put"], probes=["rate"])
    fitted, dropped, estimate = plan.fit_budget(options, 240)
    assert estimate.seconds <= 240 * (1 - plan.CLEANUP_RESERVE_FRACTION)
    assert [d.split(" (")[0] for d in dropped[1:]] == ["probe rate", "concurrency 5", "the knee's further rounds"]
    assert (fitted.open_rates_per_s, fitted.open_peak_fractions, fitted.open_loop_sizes) == ([10, 40], [0.5, 0.8], None)
    # the windows are shortened, but a 10/s cell's stays long enough for 200 arrivals (a p99.5 of its own)
    assert fitted.duration_s < 10
    cell_s = fitted.warmup_s + plan.STEP_OVERHEAD_S
    assert estimate.step("put 256KiB x10 open 10/s").seconds == pytest.approx(cell_s + 20)  # type: ignore[union-attr]
    assert estimate.step("put 256KiB x10 open 40/s").seconds == pytest.approx(cell_s + fitted.duration_s)  # type: ignore[union-attr]


def test_a_tight_budget_keeps_the_smallest_sizes_open_loop_cells_past_the_larger_sizes() -> None:
    options = _options(ops=["get", "put"], probes=[])  # 256 KiB, 5, 50 and 100 MiB
    fitted, dropped, _ = plan.fit_budget(options, 180)
    assert "open-loop cells but the 256 KiB ones" in dropped and "size 100 MiB" in dropped
    assert "open-loop cells" not in dropped
    assert (fitted.open_rates_per_s, fitted.open_loop_sizes) == ([10, 40], [256 * 1024])
    steps = plan_steps(fitted)
    assert "get 256KiB x10 open 40/s" in steps and not any(" open " in s for s in steps if "256KiB" not in s)


def test_dry_run_lists_the_new_cells_and_a_run_states_its_time_and_cost_first(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = str(tmp_path / "p.json")
    args = ["measure", "--bucket", "b", "--out", out, "--provider", "aws-s3", "--sizes", "4KiB", "--ops", "get"]
    code, printed, _ = _cli(monkeypatch, capsys, *args, "--probes", "none", "--dry-run")
    assert code == 0
    assert "get 4KiB x10 open 40/s" in printed and "get 4KiB x10 open 0.8x peak, round 2" in printed
    from planner.cli.measure import plan_summary_line

    options = _options(provider="aws-s3", sizes=[4096], ops=["get"], probes=[])
    line = plan_summary_line(options, plan.estimate(options))
    # 3 closed-loop cells, 4 open-loop rates and the knee's 2 further rounds
    assert line.startswith("plan: 9 cells and probes: none, ~") and "in requests, egress and deletions" in line


def test_measure_for_plans_the_open_loop_cells_where_a_latency_target_is_at_stake(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["measure", "--for", EXAMPLE, "--provider", "idrive-e2", "--bucket", "b", "--out", str(tmp_path / "p.json")]
    code, printed, _ = _cli(monkeypatch, capsys, *args, "--dry-run")
    assert code == 0
    # the p99 TTFB target's 256 KiB GET: both sparse rates, the loaded ones of the x64 peak, twice
    assert "  GET 256 KiB open loop   for the latency target: 10/s,40/s,0.5x,0.8x" in printed
    for step in ("x64 open 10/s", "x64 open 40/s", "x64 open 0.5x peak", "x64 open 0.8x peak, round 2"):
        assert f"get 256KiB {step}" in printed
    # the read-throughput target's 100 MiB cells get none
    assert "get 256KiB x64 " in printed and "100MiB x64 open" not in printed


@pytest.mark.server
def test_the_default_open_loop_cells_give_the_wake_up_term_and_the_knee(
    s3_env: S3Server, bucket: str, tmp_path: Path
) -> None:
    from planner.measure.run.measurement import Measurement
    from planner.sim.model.profile_adapter import provider_model_from_profile
    from planner.sim.model.saturation import knee_from_cells

    options = MeasureOptions(
        endpoint=s3_env.endpoint, bucket=bucket, out=tmp_path / "p.json", sizes=[4096], ops=["get", "put"],
        probes=[], duration_s=2.0, warmup_s=0.5, addressing="path",
    )  # fmt: skip
    profile = Measurement(options).run()
    sparse = [c for c in profile.cells if c.mode == "open" and c.offered_per_s == 10.0]
    # 20 s windows at 10/s however short the others: enough arrivals for the p99 the simulator reads
    assert [c.op for c in sparse] == ["get", "put"] and all((c.samples or 0) >= 150 for c in sparse)
    _, notes = provider_model_from_profile(profile)
    for op in ("GET", "PUT"):
        assert any(note.startswith(f"{op} wake-up term from its sparse 4 KiB cells") for note in notes), notes
    knee = knee_from_cells(profile.cells)
    assert knee is not None and knee.size_bytes == 4096
    assert sorted(rung.rounds for rung in knee.rungs) == [1, 1, 2, 2]  # 10/s, 40/s once; 0.5x, 0.8x twice
