"""Merging profiles from several hosts: sum only what ran at the same time."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from measure.cli import app
from measure.merge import merge_profiles
from measure.profile import Cell, ClientHost, Percentiles, Profile, RunInfo, Source
from planner.errors import InputError


def _host(name: str, start: float, mib: float, p99: float) -> Profile:
    cell = Cell(
        op="get",
        object_size_bytes=1 << 20,
        concurrency=4,
        samples=100,
        throughput_mib_per_s=mib,
        ops_per_s=mib,
        window_start_unix=start,
        window_end_unix=start + 10,
        latency_s=Percentiles(p99=p99),
    )
    return Profile(
        endpoint="http://s3.example",
        clients=[ClientHost(hostname=name)],
        cells=[cell],
        run=RunInfo(run_id=name, prefix="p/", started_at="t"),
        source=Source(kind="measured"),
    )


def test_overlapping_runs_are_summed() -> None:
    merged = merge_profiles([_host("a", 1000.0, 100.0, 0.2), _host("b", 1002.0, 50.0, 0.5)])
    (cell,) = merged.cells
    assert cell.throughput_mib_per_s == 150.0 and cell.concurrency == 8 and cell.latency_s.p99 == 0.5
    assert cell.hosts == ["a", "b"] and merged.merge is not None and merged.merge.overlapped
    assert merged.source.kind == "merged" and "sum" in merged.merge.method


def test_runs_at_different_moments_keep_the_best_host() -> None:
    merged = merge_profiles([_host("a", 1000.0, 100.0, 0.2), _host("b", 5000.0, 120.0, 0.5)])
    (cell,) = merged.cells
    assert cell.throughput_mib_per_s == 120.0 and cell.hosts == ["b"] and cell.concurrency == 4
    assert merged.merge is not None and not merged.merge.overlapped


def test_merge_refuses_different_endpoints() -> None:
    other = _host("b", 1000.0, 1.0, 0.1).model_copy(update={"endpoint": "http://elsewhere"})
    with pytest.raises(InputError, match="different endpoints"):
        merge_profiles([_host("a", 1000.0, 1.0, 0.1), other])


def test_merge_command(tmp_path: Path) -> None:
    paths = []
    for name, start in (("a", 1000.0), ("b", 1001.0)):
        path = tmp_path / f"{name}.json"
        path.write_text(_host(name, start, 10.0, 0.1).model_dump_json())
        paths.append(str(path))
    result = CliRunner().invoke(app, ["merge", *paths, "--out", str(tmp_path / "m.json")])
    assert result.exit_code == 0, result.output
    assert Profile.model_validate_json((tmp_path / "m.json").read_text()).cells[0].throughput_mib_per_s == 20.0
