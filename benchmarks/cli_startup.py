"""Whole-process times of the interactive commands, next to `python -c "import typer"`.

Prints figures; never fails on speed. Run: python benchmarks/cli_startup.py [--runs N]
The ratio against the bare typer import (measured in the same run, on the same machine) is the
figure to watch: it shows what planner adds on top of the CLI framework it stands on.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "video-streaming.yaml")

COMMANDS: dict[str, list[str]] = {
    'python -c "import typer"': [sys.executable, "-c", "import typer"],
    "planner --help": [sys.executable, "-m", "planner", "--help"],
    "planner pricing show aws-s3": [sys.executable, "-m", "planner", "pricing", "show", "aws-s3"],
    "planner cost (1 month)": [sys.executable, "-m", "planner", "cost", EXAMPLE, "-p", "aws-s3"],
    "planner recommend": [sys.executable, "-m", "planner", "recommend", EXAMPLE],
}


def wall_times(command: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return times


def heavy_imports(command: list[str]) -> list[str]:
    """Which heavy modules the command loads (it should load none it does not use)."""
    probe = [command[0], "-X", "importtime", *command[1:]]
    done = subprocess.run(probe, cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    return sorted(loaded & {"boto3", "botocore", "numpy", "simpy", "matplotlib"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    baseline = None
    print(f"{'command':32} {'median s':>9} {'min s':>7} {'x typer':>8}  heavy imports")
    for name, command in COMMANDS.items():
        times = wall_times(command, runs)
        median = statistics.median(times)
        baseline = baseline or median
        heavy = ", ".join(heavy_imports(command)) if name.startswith("planner") else ""
        print(f"{name:32} {median:9.3f} {min(times):7.3f} {median / baseline:8.2f}  {heavy or '-'}")


if __name__ == "__main__":
    main()
