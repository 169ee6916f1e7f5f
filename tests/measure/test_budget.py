"""A predictable run: the plan's estimate, a budget it is fitted into, the dry run's bill, progress."""

from __future__ import annotations

import math
import subprocess
import sys
import time
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.measure import plan
from planner.measure.profile import Cell
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions, Reporter
from tests.measure.conftest import S3Server, list_all

CLI = [sys.executable, "-c", "import sys; from planner.cli import main; sys.argv[0] = 'planner'; main()"]


def _default(**extra: object) -> MeasureOptions:
    return MeasureOptions(endpoint=None, bucket="b", out=Path("p.json"), **extra)  # type: ignore[arg-type]


def test_estimate_adds_up_its_steps_and_counts_every_cell() -> None:
    options = _default(sizes=[4096], concurrency=[1, 4], probes=[], open_rates_per_s=[], open_peak_fractions=[])
    estimate = plan.estimate(options)
    cells = [s for s in estimate.steps if not s.label.startswith("preparing")]
    assert len(cells) == 5 * 2  # put, get, head, list, delete, each at 2 concurrencies (one size)
    assert [s.label for s in cells[:2]] == ["put 4KiB x1", "put 4KiB x4"]
    window = options.warmup_s + options.duration_s + plan.STEP_OVERHEAD_S
    assert estimate.step("get 4KiB x4") is not None and estimate.step("get 4KiB x4").seconds == window  # type: ignore[union-attr]
    assert estimate.seconds == pytest.approx(sum(s.seconds for s in estimate.steps))
    # one stream of 4 KiB GETs at 20 ms + 4 KiB / 100 MiB/s per request, for warm-up and window
    per_request = plan.ASSUMED_TTFB_S + 4096 / plan.ASSUMED_STREAM_BYTES_PER_S
    assert estimate.step("get 4KiB x1").requests == {"get": math.ceil(33 / per_request)}  # type: ignore[union-attr]


@pytest.mark.parametrize("budget_s", [60.0, 300.0, 600.0, 1800.0])
def test_a_budget_fits_by_shortening_then_dropping_in_the_stated_order(budget_s: float) -> None:
    options = _default()
    fitted, dropped, estimate = plan.fit_budget(options, budget_s)
    assert estimate.seconds <= budget_s * (1 - plan.CLEANUP_RESERVE_FRACTION)
    assert fitted.duration_s >= plan.MIN_CELL_S and fitted.probe_duration_s >= plan.MIN_PROBE_S
    assert dropped and dropped[0].startswith("cell windows 30 s ->")
    order = ["cell windows", "probe hot-object", "probe range-get", "probe part-size", "probe rate", "concurrency 5"]
    # the open-loop cells the model rests on go last but the last concurrency level
    order += ["the knee's", "open-loop cells but", "size", "operation", "open-loop cells", "concurrency 10"]
    ranks = [next(i for i, name in enumerate(order) if item.startswith(name)) for item in dropped]
    assert ranks == sorted(ranks)
    if fitted.duration_s < options.duration_s:  # after any cuts, the windows are as long as what is left allows
        longer = replace(fitted, duration_s=fitted.duration_s * 1.05)
        assert plan.estimate(longer).seconds > budget_s * (1 - plan.CLEANUP_RESERVE_FRACTION)


def test_a_budget_the_plan_already_fits_changes_nothing() -> None:
    options = _default(sizes=[4096], concurrency=[1], ops=["put"], probes=[], duration_s=2.0, warmup_s=0.5)
    fitted, dropped, _ = plan.fit_budget(options, 3600)
    assert dropped == [] and (fitted.duration_s, fitted.sizes, fitted.probes) == (2.0, [4096], [])


def test_a_budget_too_small_for_any_plan_is_one_line_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [*CLI, "measure", "--bucket", "b", "--out", str(tmp_path / "p.json"), "--budget", "5s", "--dry-run"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--budget" in done.stderr and "at least" in done.stderr
    with pytest.raises(InputError, match="at least"):
        Measurement(_default(budget_s=5.0))


def test_dry_run_prints_time_bytes_and_the_bill_priced_from_the_table(tmp_path: Path) -> None:
    from planner.cli.measure import measurement_bill_lines

    options = _default(sizes=[1 << 20], concurrency=[2], probes=[], open_rates_per_s=[], open_peak_fractions=[])
    estimate = plan.estimate(options)
    lines = measurement_bill_lines(options, estimate)
    requests = estimate.requests
    # aws-s3@2025-12-01, S3 Standard: PUT/LIST $0.005 per 1,000, GET/HEAD $0.0004 per 1,000, DELETE free;
    # egress within the 100 GB free allowance
    tier_1 = Decimal(requests["put"] + requests["list"]) / 1000
    tier_2 = Decimal(requests["get"] + requests["head"]) / 1000
    assert "aws-s3@2025-12-01" in lines[0]
    tier_lines = [line.strip() for line in lines if line.strip().startswith("tier-")]
    assert tier_lines[0].startswith(f"tier-1 requests (put, list): {tier_1.normalize()} 1,000 requests x $0.005 = $")
    assert tier_lines[1].startswith(f"tier-2 requests (get, head): {tier_2.normalize()} 1,000 requests x $0.0004 = $")
    amounts = [Decimal(line.rsplit("$", 1)[1]) for line in tier_lines]
    assert amounts[0] == pytest.approx(tier_1 * Decimal("0.005"), abs=Decimal("0.01"))
    assert f"total ${sum(amounts)} (estimate" in lines[-2]
    out = tmp_path / "p.json"
    shown = subprocess.run(
        [
            *CLI,
            "--wide",
            "measure",
            "--bucket",
            "b",
            "--out",
            str(out),
            "--endpoint",
            "http://127.0.0.1:9",
            "--dry-run",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert "estimated duration: ~" in shown.stdout and "requests (estimate): delete" in shown.stdout
    assert "cannot be priced: the endpoint's provider is unknown; give --provider" in shown.stdout
    wasabi = ["--provider", "wasabi", "--budget", "10m", "--dry-run"]
    priced = subprocess.run(
        [*CLI, "measure", "--bucket", "b", "--out", str(out), "--endpoint", "http://127.0.0.1:9", *wasabi],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert priced.returncode == 0, priced.stderr
    assert "budget 10 min" in priced.stdout and "to fit: cell windows 30 s -> " in priced.stdout
    # Wasabi bills 90 days of every deleted object's storage; its 1 TB-month account minimum is not the run's
    assert "before the 90-day minimum" in priced.stdout and "not counted: minimum billable storage" in priced.stdout
    assert not out.exists()


class _Jumping(Reporter):
    """After the first cell, the clock jumps past the budget: the rest must be left out, not run."""

    def __init__(self) -> None:
        self.offset = 0.0
        self.progress_calls: list[tuple[float, float]] = []

    def clock(self) -> float:
        return time.monotonic() + self.offset

    def cell(self, cell: Cell) -> None:
        self.offset = 10_000.0

    def progress(self, elapsed_s: float, remaining_s: float) -> None:
        self.progress_calls.append((elapsed_s, remaining_s))


@pytest.mark.server
def test_steps_that_would_end_past_the_budget_are_left_out(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    options = MeasureOptions(
        endpoint=s3_env.endpoint,
        bucket=bucket,
        out=tmp_path / "p.json",
        sizes=[4096],
        concurrency=[1, 2],
        ops=["put", "get"],
        duration_s=0.5,
        warmup_s=0.1,
        probes=["rate"],
        addressing="path",
        open_rates_per_s=[],
        open_peak_fractions=[],
        budget_s=600.0,
    )
    reporter = _Jumping()
    profile = Measurement(options, reporter, clock=reporter.clock).run()
    assert profile.run is not None and profile.run.complete
    assert [c.key()[:3] for c in profile.cells] == [("put", 4096, 1)]
    left_out = [item.split(" (")[0] for item in profile.run.dropped]
    assert left_out == ["put 4KiB x2", "get 4KiB x1", "get 4KiB x2", "probe rate"], profile.run.dropped
    assert all("not started" in item for item in profile.run.dropped)
    assert profile.run.budget_s == 600.0 and profile.run.estimated_s == pytest.approx(
        plan.estimate(options).seconds, 0.01
    )
    # progress after every step, the estimate of what is left falling to nothing
    remaining = [left for _, left in reporter.progress_calls]
    assert (
        len(remaining) == 5
        and remaining == sorted(remaining, reverse=True)
        and remaining[-1] == pytest.approx(0, abs=1e-6)
    )
    assert list_all(s3_env, bucket) == []


@pytest.mark.server
def test_progress_goes_to_a_terminal_only_and_quiet_prints_nothing(
    s3_env: S3Server, bucket: str, tmp_path: Path
) -> None:
    import os

    base = [*CLI, "measure", "--endpoint", s3_env.endpoint, "--bucket", bucket, "--sizes", "4KiB", "--ops", "put"]
    base += ["--concurrency", "1", "--duration", "1s", "--warmup", "0s", "--probes", "none", "--addressing", "path"]
    base += ["--open-loop", "none"]
    env = {**os.environ, **s3_env.env}
    quiet = subprocess.run(
        [*base, "--out", str(tmp_path / "q.json"), "--quiet"], capture_output=True, text=True, env=env, timeout=120
    )
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == ""
    assert (tmp_path / "q.json").exists()
    shown = subprocess.run(
        [*base, "--out", str(tmp_path / "p.json")], capture_output=True, text=True, env=env, timeout=120
    )
    assert shown.returncode == 0, shown.stderr
    assert "put " in shown.stderr and "ops/s" in shown.stderr  # the cell line
    assert "\r" not in shown.stderr and "━" not in shown.stderr and "left" not in shown.stderr  # no bar: not a tty
    assert list_all(s3_env, bucket) == []


@pytest.mark.server
def test_on_a_terminal_a_progress_bar_shows_the_time_left(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    import os
    import pty
    import threading

    base = [*CLI, "measure", "--endpoint", s3_env.endpoint, "--bucket", bucket, "--sizes", "4KiB", "--ops", "put"]
    base += ["--concurrency", "1,2", "--duration", "1s", "--warmup", "0s", "--probes", "none", "--addressing", "path"]
    base += ["--open-loop", "none", "--out", str(tmp_path / "p.json")]
    controller, terminal = pty.openpty()
    process = subprocess.Popen(base, stdout=subprocess.DEVNULL, stderr=terminal, env={**os.environ, **s3_env.env})
    os.close(terminal)
    seen = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the other end closed
                return
            if not chunk:
                return
            seen.extend(chunk)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert process.wait(timeout=120) == 0
    reader.join(timeout=10)
    os.close(controller)
    text = seen.decode("utf-8", "replace")
    assert "[1/2] put 4KiB x1" in text and " left" in text and "━" in text
    assert list_all(s3_env, bucket) == []


class _JumpingInProbe(_Jumping):
    def cell(self, cell: Cell) -> None:
        pass

    def info(self, message: str) -> None:
        if message.startswith("  rate put x1"):
            self.offset = 10_000.0


@pytest.mark.server
def test_a_probe_stops_its_ramp_when_the_budget_runs_out(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    options = MeasureOptions(
        endpoint=s3_env.endpoint,
        bucket=bucket,
        out=tmp_path / "p.json",
        sizes=[4096],
        concurrency=[1],
        ops=["put"],
        duration_s=0.5,
        warmup_s=0.1,
        probes=["rate"],
        probe_duration_s=0.5,
        rate_concurrency=[1, 2],
        addressing="path",
        open_rates_per_s=[],
        open_peak_fractions=[],
        budget_s=600.0,
    )
    reporter = _JumpingInProbe()
    profile = Measurement(options, reporter, clock=reporter.clock).run()
    assert profile.run is not None and profile.run.complete
    assert profile.probes.rate is not None and [(p.op, p.concurrency) for p in profile.probes.rate.points] == [
        ("put", 1)
    ]
    assert [item.split(" (")[0] for item in profile.run.dropped] == ["probe rate put x2"]
    assert list_all(s3_env, bucket) == []
