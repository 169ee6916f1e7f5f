"""``--dask``: sampled outcomes and sweeps priced in chunks on a two-worker Dask cluster give exactly
the answer priced here for the same seed."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planner.decide import sweep as sweep_module
from planner.decide.sweep import parse_axis, sweep
from planner.decide.uncertainty import sample
from planner.workload import load_workload
from tests.planner.conftest import Result

AS_OF = dt.date(2026, 12, 1)
TEXT = """name: ranged web assets
storage:
  stored: {low: 3 TB, likely: 5 TB, high: 9 TB}
  object_size: 256 KiB
traffic:
  egress: {p10: 20 TB, p90: 120 TB}
  writes: {low: 400000, high: 1200000}
  heads: 5000000
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two single-threaded workers in this process (a LocalCluster without processes)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as local:
        yield local


def _ran_on(cluster: Any, prefix: str) -> bool:
    return prefix in cluster.scheduler.task_prefixes


@pytest.fixture
def workload_file(tmp_path: Path) -> Path:
    path = tmp_path / "w.yaml"
    path.write_text(TEXT)
    return path


def test_samples_on_the_cluster_equal_the_local_answer(cluster: Any, workload_file: Path) -> None:
    workload = load_workload(workload_file)
    # 5,000 outcomes in chunks of 2,000: three chunks over the two workers
    here = sample(workload, workload.uncertain, 5_000, seed=42, as_of=AS_OF)
    there = sample(workload, workload.uncertain, 5_000, seed=42, as_of=AS_OF, scheduler=cluster.scheduler_address)
    assert _ran_on(cluster, "price_chunk")
    assert there.model_dump() == here.model_dump()
    assert here.by_engine == {}
    # another seed is another answer: the comparison can fail
    other = sample(workload, workload.uncertain, 5_000, seed=43, as_of=AS_OF, scheduler=cluster.scheduler_address)
    assert other.model_dump() != here.model_dump()


def test_engine_priced_outcomes_on_the_cluster_equal_the_local_answer(cluster: Any, tmp_path: Path) -> None:
    """A field only the line-item engine derives (the part size): outcome by outcome, in chunks of 7."""
    path = tmp_path / "parts.yaml"
    path.write_text(
        TEXT.replace("heads: 5000000", "heads: 5000000\nclient: {part_size: {low: 8 MiB, high: 128 MiB}}")
        + "constraints: {providers: [aws-s3, cloudflare-r2], storage_classes: [standard]}\n"
    )
    workload = load_workload(path)
    here = sample(workload, workload.uncertain, 30, seed=5, as_of=AS_OF, chunk_samples=7)
    there = sample(
        workload, workload.uncertain, 30, seed=5, as_of=AS_OF, chunk_samples=7, scheduler=cluster.scheduler_address
    )
    assert set(here.by_engine) == {"aws-s3:standard", "cloudflare-r2:standard"}
    assert there.model_dump() == here.model_dump()


def test_a_sweep_on_the_cluster_equals_the_local_sweep(
    cluster: Any, workload_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sweep_module, "CHUNK_POINTS", 4)  # 12 points: three chunks
    workload = load_workload(workload_file)
    axes = [parse_axis(workload, "traffic.egress=0..300TB:4"), parse_axis(workload, "storage.stored=1..100TB:3")]
    here = sweep(workload, axes, as_of=AS_OF)
    there = sweep(workload, axes, as_of=AS_OF, scheduler=cluster.scheduler_address)
    assert _ran_on(cluster, "cells")
    assert there.model_dump() == here.model_dump()
    assert len(there.cells) == 12


def test_the_cli_gives_the_same_json_on_the_cluster(cluster: Any, workload_file: Path, run_cli: Any) -> None:
    args = (
        "recommend",
        str(workload_file),
        "--no-simulate",
        "--samples",
        "300",
        "--seed",
        "9",
        "--as-of",
        "2026-12-01",
    )
    here: Result = run_cli(*args, "--format", "json")
    there: Result = run_cli(*args, "--format", "json", "--dask", cluster.scheduler_address)
    assert here.code == there.code == 0
    assert json.loads(there.out)["uncertainty"] == json.loads(here.out)["uncertainty"]


@pytest.mark.parametrize("command", ["recommend", "sweep"])
def test_a_bad_scheduler_address_is_one_line_exit_2(command: str, workload_file: Path, run_cli: Any) -> None:
    extra = ("--samples", "100") if command == "recommend" else ("--vary", "traffic.egress=0..100TB:3")
    result: Result = run_cli(command, str(workload_file), *extra, "--dask", "no-port-here")
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert "--dask" in result.err and "no-port-here" in result.err
