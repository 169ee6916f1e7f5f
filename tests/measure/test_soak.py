"""Soak: ``planner measure`` at high concurrency for a short and a three-times-longer run.

Memory must not grow with run length beyond the per-request samples the profile is computed
from, and every request the proxy received must be one the profile accounts for. Wall-clock
speed is never asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.measure.conftest import Fault, FaultProxy, S3Server, list_all

pytestmark = [pytest.mark.server, pytest.mark.soak]

CLI = [sys.executable, "-c", "import sys; from planner.cli import main; sys.argv[0] = 'planner'; main()"]
CONCURRENCY = 16
DURATIONS_S = (4.0, 12.0)
# Bound on growth: the longer run's summed peak RSS within 15 % of the shorter's, or within 8 MiB
# (three times the requests keep three times the per-request samples: ~50 bytes each).
GROWTH_FRACTION, GROWTH_BYTES = 0.15, 8 << 20


def _rss_bytes(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    return None


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as handle:
                found += [int(child) for child in handle.read().split()]
    except (FileNotFoundError, ProcessLookupError):
        pass
    return found


@dataclass
class Sampled:
    peak_by_pid: dict[int, int] = field(default_factory=dict)

    @property
    def total_peak_bytes(self) -> int:
        return sum(self.peak_by_pid.values())


def _run_sampled(server: S3Server, endpoint: str, bucket: str, out: Path, duration_s: float) -> Sampled:
    """Run the CLI, sampling the RSS of it and its worker processes every 0.1 s until it exits."""
    process = subprocess.Popen(
        [
            *CLI,
            "measure",
            "--endpoint",
            endpoint,
            "--bucket",
            bucket,
            "--out",
            str(out),
            "--ops",
            "put,get",
            "--sizes",
            "16KiB",
            "--concurrency",
            str(CONCURRENCY),
            "--duration",
            f"{duration_s:g}s",
            "--warmup",
            "0.5s",
            "--probes",
            "none",
            "--open-loop",
            "none",
            "--addressing",
            "path",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **server.env},
        cwd=out.parent,
    )
    sampled = Sampled()
    deadline = time.monotonic() + duration_s * 2 + 120
    while process.poll() is None:
        assert time.monotonic() < deadline, "planner measure did not finish"
        for pid in [process.pid, *_children(process.pid)]:
            rss = _rss_bytes(pid)
            if rss is not None:
                sampled.peak_by_pid[pid] = max(sampled.peak_by_pid.get(pid, 0), rss)
        time.sleep(0.1)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    return sampled  # the parent, its worker processes and multiprocessing's resource tracker


def test_memory_flat_and_every_request_accounted(
    s3_env: S3Server, bucket: str, tmp_path: Path, fault_proxy: FaultProxy
) -> None:
    fault = Fault("500", rate=0.02, seed=11)  # a few failed GETs, so the accounting is not trivial
    fault_proxy.faults = [fault]
    figures: list[tuple[float, int, int]] = []
    for duration in DURATIONS_S:
        out = tmp_path / f"soak-{duration:g}.json"
        gets_before = fault_proxy.object_requests("GET")
        puts_before = fault_proxy.object_requests("PUT", "/put/")
        sampled = _run_sampled(s3_env, fault_proxy.endpoint, bucket, out, duration)
        profile = json.loads(out.read_text())
        assert profile["run"]["complete"] is True
        cells = {cell["op"]: cell for cell in profile["cells"]}
        for op, sent in (
            ("get", fault_proxy.object_requests("GET") - gets_before),
            ("put", fault_proxy.object_requests("PUT", "/put/") - puts_before),
        ):
            requests = cells[op]["requests"]
            assert requests["attempts"] == sent > 0
            assert sent == requests["succeeded"] + requests["failed"] + requests["retried"]
        assert cells["get"]["requests"]["retried"] + cells["get"]["requests"]["failed"] > 0
        assert list_all(s3_env, bucket) == []
        figures.append((duration, sampled.total_peak_bytes, cells["get"]["requests"]["attempts"]))
    (short_s, short_rss, short_n), (long_s, long_rss, long_n) = figures
    print(f"soak: {short_s:g} s: peak RSS {short_rss / 2**20:.1f} MiB, {short_n} GETs;"
          f" {long_s:g} s: peak RSS {long_rss / 2**20:.1f} MiB, {long_n} GETs")  # fmt: skip
    assert long_rss <= max(short_rss * (1 + GROWTH_FRACTION), short_rss + GROWTH_BYTES), figures
