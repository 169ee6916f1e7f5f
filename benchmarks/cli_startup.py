"""Whole-process times of the interactive commands, next to a bare two-command typer app's ``--help``.

Prints figures; never fails on speed. Run: python benchmarks/cli_startup.py [--runs N]
The bare app (written to a temporary folder by this script) is what any typer CLI costs; the ratio
of each command to its ``--help``, measured in the same run, on the same machine, in interleaved
rounds, is the figure to watch: it shows what planner adds on top of the framework it stands on.
Targets: ``planner --help`` at most 1.3x, a full ``planner recommend`` (with simulation) at most 5x.
The commands run with bytecode caching on (as an installed planner has its ``.pyc`` files), after a
warm-up round that is not counted, even where PYTHONDONTWRITEBYTECODE is set.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "video-streaming.yaml")

BARE_APP = '''import typer

app = typer.Typer()


@app.command()
def one(name: str) -> None:
    """First command."""


@app.command()
def two(count: int = 1) -> None:
    """Second command."""


if __name__ == "__main__":
    app()
'''

BASELINE = "bare typer app --help"
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def commands(bare_app: Path) -> dict[str, list[str]]:
    planner = [sys.executable, "-m", "planner"]
    return {
        BASELINE: [sys.executable, str(bare_app), "--help"],
        'python -c "import typer"': [sys.executable, "-c", "import typer"],
        "planner --help": [*planner, "--help"],
        "planner pricing show aws-s3": [*planner, "pricing", "show", "aws-s3"],
        "planner cost (1 month)": [*planner, "cost", EXAMPLE, "-p", "aws-s3"],
        "planner recommend": [*planner, "recommend", EXAMPLE],
    }


def wall_time(command: list[str]) -> float:
    """Seconds to run the command; its exit code is not checked (recommend exits 1 when no option
    meets every target, as for this example)."""
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=ENV, capture_output=True, check=False)
    return time.perf_counter() - start


def heavy_imports(command: list[str]) -> list[str]:
    """Which heavy modules the command loads (it should load none it does not use)."""
    probe = [command[0], "-X", "importtime", *command[1:]]
    done = subprocess.run(probe, cwd=ROOT, env=ENV, capture_output=True, text=True, check=False)
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    return sorted(loaded & {"pydantic", "boto3", "botocore", "numpy", "simpy", "matplotlib"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="rounds; each round runs every command once")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        bare_app = Path(folder) / "bare_typer.py"
        bare_app.write_text(BARE_APP, encoding="utf-8")
        measured = commands(bare_app)
        times: dict[str, list[float]] = {name: [] for name in measured}
        for command in measured.values():  # warm-up, not counted: writes the bytecode caches
            wall_time(command)
        for _ in range(runs):  # interleaved: a slow moment of the machine hits every command alike
            for name, command in measured.items():
                times[name].append(wall_time(command))
        baseline = statistics.median(times[BASELINE])
        print(f"{'command':32} {'median s':>9} {'min s':>7} {'x bare':>7}  heavy imports")
        for name, command in measured.items():
            median = statistics.median(times[name])
            heavy = ", ".join(heavy_imports(command)) if name.startswith("planner") else ""
            print(f"{name:32} {median:9.3f} {min(times[name]):7.3f} {median / baseline:7.2f}  {heavy or '-'}")


if __name__ == "__main__":
    main()
