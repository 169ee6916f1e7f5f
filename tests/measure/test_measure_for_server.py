"""A real ``planner measure --for`` run on the local S3 server fills the cells the plan names and turns
a provisional answer (a target only the measurement can decide) into a backed one."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from planner.measure.reference import load_profile
from tests.planner.cli.test_printed_commands import suggested

from .conftest import S3Server

CLI = [sys.executable, "-m", "planner"]
WORKLOAD = """\
name: small-reads
storage: {stored: 1 TB, object_size: 1 MiB}
traffic: {egress: 1 TB, reads: 1000000, writes: 1000}
performance: {p99_ttfb: 500 ms, read_throughput: 50 Mbps}
client: {link: 10 Gbps, concurrency: 4}
constraints: {providers: [idrive-e2], months: 1}
"""


@pytest.mark.server
def test_measure_for_turns_a_provisional_answer_into_a_backed_one(
    s3_env: S3Server, bucket: str, tmp_path: Path
) -> None:
    workload = tmp_path / "small-reads.yaml"
    workload.write_text(WORKLOAD)
    env = {**os.environ, **s3_env.env, "COLUMNS": "80"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)

    before = run("recommend", "small-reads.yaml", "--as-of", "2026-12-05", "--strict")
    assert before.returncode == 1, before.stderr
    # the commands it prints, run as printed: the dry run, the run (the placeholders it names filled in,
    # short windows added), then recommend on what the run wrote
    dry, real, again = suggested(before.stdout)
    command = "planner measure --for small-reads.yaml --provider idrive-e2"
    assert (dry, real) == (
        f"{command} --dry-run",
        f"{command} --endpoint URL --bucket BUCKET --out measured/idrive-e2.json",
    )
    assert run(*shlex.split(dry)[1:]).returncode == 0
    filled = [s3_env.endpoint if w == "URL" else bucket if w == "BUCKET" else w for w in shlex.split(real)[1:]]
    done = run(*filled, "--duration", "2s", "--warmup", "0.5s", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "measurement for idrive-e2: 3 cell(s) decide its unverified targets" in done.stderr
    profile = load_profile(tmp_path / "measured" / "idrive-e2.json")
    assert profile.provider == "idrive-e2" and profile.source.kind == "measured"
    cells = {(c.op, c.object_size_bytes, c.concurrency) for c in profile.cells if c.status != "missing"}
    closed = {key for c in profile.cells if c.mode == "closed" for key in [(c.op, c.object_size_bytes, c.concurrency)]}
    # the plan's, no more: and for the p99 TTFB target, the 256 KiB GET's open loops (at most 10 in flight)
    # and the closed loop of 10 whose peak their loaded rates are fractions of
    assert closed == {("get", 256 * 2**10, 1), ("get", 2**20, 1), ("get", 2**20, 4), ("get", 256 * 2**10, 10)}
    assert cells - closed == set() and any(c.mode == "open" and c.offered_per_s == 40.0 for c in profile.cells)
    assert again == "planner recommend small-reads.yaml --profiles measured"
    after = run(*shlex.split(again)[1:], "--as-of", "2026-12-05")
    assert after.returncode == 0, after.stdout + after.stderr
    assert "to settle" not in after.stdout
