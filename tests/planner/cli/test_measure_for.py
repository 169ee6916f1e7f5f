"""``planner measure --for WORKLOAD``: only the cells that decide a target still open, and ``recommend``
naming the exact command that would settle it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from planner.decide.measure_for import in_contention, plan_measurement
from planner.decide.recommendation import recommend
from planner.workload import load_workload
from tests.planner.conftest import Result

Run = Callable[..., Result]
EXAMPLE = str(Path(__file__).resolve().parents[3] / "examples" / "video-streaming.yaml")
NOW = dt.date(2026, 12, 5)


def test_the_plan_lists_only_cells_that_decide_a_target_and_why_the_rest_is_skipped() -> None:
    workload = load_workload(EXAMPLE)
    result = recommend(workload, as_of=NOW, simulate=False)
    contending, skipped = in_contention(result)
    # R2 is rejected (200 concurrent reads of one hot object, 128 served) and the archive classes must restore
    assert "cloudflare-r2" not in {o.provider for o in contending}
    assert any(s.what == "cloudflare-r2 standard" and "rejected on evidence" in s.why for s in skipped)
    plan = plan_measurement(workload, result, "aws-s3")
    # the reference is replaced whole by a measured profile: its met read throughput is measured again
    assert [(c.op, c.size_bytes, c.concurrency, c.target) for c in plan.cells] == [
        ("get", 256 * 2**10, 1, "p99 TTFB"),
        ("get", 100 * 2**20, 1, "read throughput"),
        ("get", 100 * 2**20, 64, "read throughput"),
    ]
    assert plan.cells[0].options == (
        "aws-s3 onezone-ia",
        "aws-s3 standard-ia",
        "aws-s3 standard",
        "aws-s3 intelligent-tiering",
        "aws-s3 glacier-ir",
    )
    lines = plan.lines()
    assert lines[0] == "measurement for aws-s3: 3 cell(s) decide its unverified targets"
    assert (
        "  skipped aws-s3 deep-archive: rejected on evidence whatever is measured (deep-archive objects"
        in "\n".join(lines)
    )
    assert "  skipped backblaze-b2, idrive-e2, wasabi: other providers: measure each endpoint with its own run" in lines


def test_measure_for_dry_run_prints_the_plan_and_its_cost(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "idrive-e2.json"
    done = run_cli(
        "--wide",
        "measure",
        "--for",
        EXAMPLE,
        "--provider",
        "idrive-e2",
        "--bucket",
        "b",
        "--out",
        str(out),
        "--dry-run",
    )
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert lines[0] == "measurement for idrive-e2: 3 cell(s) decide its unverified targets"
    assert lines[1].startswith("  GET 256 KiB x1         decides p99 TTFB of idrive-e2 standard: the p99 TTFB of a GET")
    # only the planned cells, not the op x size x concurrency grid they span (no GET 100 MiB open loop), and
    # for the p99 TTFB target the open-loop cells the simulator's latency rests on and the x64 peak they are
    # fractions of: 3 + 1 closed loops, 4 rates and the knee's 2 further rounds
    assert "10 cells of 30 s (+3 s warm-up), probes: none" in done.out and "100MiB x64 open" not in done.out
    assert "get 256KiB x64 open 40/s" in done.out and "get 256KiB x64 open 0.8x peak, round 2" in done.out
    assert "cost of the measurement itself (idrive-e2@" in done.out
    assert "nothing was sent to the endpoint" in done.out and not out.exists()


def test_measure_for_needs_the_provider_it_measures(run_cli: Run, tmp_path: Path) -> None:
    done = run_cli("measure", "--for", EXAMPLE, "--bucket", "b", "--out", str(tmp_path / "p.json"), "--dry-run")
    assert done.code == 2
    assert done.err.strip() == (
        "planner: --provider: is required with --for: the provider whose endpoint is measured (in contention:"
        " aws-s3, backblaze-b2, idrive-e2, wasabi)"
    )


def test_recommend_names_the_measure_command_that_would_settle_an_unverified_target(run_cli: Run) -> None:
    done = run_cli("--wide", "recommend", EXAMPLE, "--as-of", "2026-12-05", "--strict")
    assert done.code == 1
    lines = done.out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("to settle "))
    # 10 cells: the 3 planned, the target's x64 peak and its 6 open-loop cells
    assert lines[first].startswith("to settle p99 TTFB on idrive-e2 (10 cell(s), ~")
    assert lines[first].endswith(
        " in requests and egress by its price table): the plan, the cells and why (nothing is sent):"
    )
    command = f"planner measure --for {EXAMPLE} --provider idrive-e2"
    assert lines[first + 1] == f"  {command} --dry-run"
    assert lines[first + 2].startswith("  then the run, URL and BUCKET replaced by the endpoint and a scratch bucket")
    assert lines[first + 3] == f"  {command} --endpoint URL --bucket BUCKET --out measured/idrive-e2.json"
    # the time it names is the dry run's, written the same way
    said = lines[first].split("cell(s), ~", 1)[1].split(", about", 1)[0]
    dry = run_cli("measure", "--for", EXAMPLE, "--provider", "idrive-e2", "--dry-run")
    assert dry.code == 0, dry.err
    assert f"estimated duration: ~{said} (untimed writes included)" in dry.out
    assert lines[-2:] == ["then judge on what it measured:", f"  planner recommend {EXAMPLE} --profiles measured"]
