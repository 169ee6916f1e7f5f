"""examples/simpy_backup.py runs, answers from its figures, shows a strict refusal, and type-checks as a
user's own model would (``mypy --strict`` with no configuration and no plugins)."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[3] / "examples" / "simpy_backup.py"


def test_the_backup_example_runs_and_its_strict_run_refuses(capsys: pytest.CaptureFixture[str]) -> None:
    example = runpy.run_path(str(EXAMPLE))
    night = example["main"](2)
    assert night.files == 600 and night.failed == 0
    # 600 files of median 256 KiB share a 1 Gbit/s link through 32 connections: the link is the bottleneck,
    # busy while the backup runs, and the night lasts about the bytes over the link (plus the last latencies)
    assert night.mean_link_bits_per_s > 0.9e9
    assert night.gigabytes * 8 <= night.hours * 3600 <= night.gigabytes * 8 * 1.2
    assert night.put.evidence["latency_p99_s"] == "assumed"  # B2's profile has no PUT latency
    printed = capsys.readouterr().out
    assert "what sets the pace: the link" in printed
    assert (
        "strict run: strict: PUT on the backblaze-b2 model rests on assumed figures: latency.put, stream.write"
        in printed
    )


def test_the_backup_example_type_checks_strictly_without_a_configuration(tmp_path: Path) -> None:
    """As a user's model: the checkout is the installed package (mypy reads it only through py.typed), no
    configuration file, no plugin."""
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", "/dev/null", "--no-incremental",
         "--cache-dir", str(tmp_path / "cache"), str(EXAMPLE)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(EXAMPLE.parents[1])},
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Success: no issues found in 1 source file" in checked.stdout
