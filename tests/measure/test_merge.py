"""Merging profiles from several hosts: sum only what ran at the same time."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from planner.cli.measure import app
from planner.errors import InputError
from planner.measure.merge import merge_profiles
from planner.measure.profile import Cell, ClientHost, Percentiles, Profile, RunInfo, Source


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


def _schema2_host(
    name: str, start: float, samples: list[float], offered: float | None, ttfb_lead_s: float | None = None
) -> Profile:
    """A host's cell with its histograms; TTFB is half the latency, or ``ttfb_lead_s`` before it."""
    from planner.measure.profile import LatencyHistogram
    from planner.measure.stats import histogram, percentiles

    values = np.array(samples)
    ttfb = values / 2 if ttfb_lead_s is None else values - ttfb_lead_s
    cell = Cell(
        op="get",
        object_size_bytes=4096,
        concurrency=4,
        mode="open" if offered else "closed",
        offered_per_s=offered,
        samples=len(samples),
        ops_per_s=len(samples) / 10,
        in_flight_mean=1.5,
        late_arrivals=3 if offered else None,
        window_start_unix=start,
        window_end_unix=start + 10,
        latency_s=percentiles(values),
        ttfb_s=percentiles(ttfb, with_max=False),
        latency_histogram=histogram(values),
        ttfb_histogram=LatencyHistogram.from_samples(ttfb.tolist()),
    )
    return Profile(
        endpoint="http://s3.example",
        clients=[ClientHost(hostname=name)],
        cells=[cell],
        run=RunInfo(run_id=name, prefix="p/", started_at="t"),
        source=Source(kind="measured"),
    )


def test_concurrent_hosts_add_their_histograms() -> None:
    from planner.measure.profile import LatencyHistogram

    fast = [0.001 * (1 + i % 10) for i in range(900)]  # 1-10 ms
    slow = [0.1 + 0.001 * (i % 10) for i in range(100)]  # 100-109 ms
    merged = merge_profiles([_schema2_host("a", 1000.0, fast, None), _schema2_host("b", 1001.0, slow, None)])
    (cell,) = merged.cells
    assert cell.latency_histogram == LatencyHistogram.from_samples(fast + slow)
    assert cell.latency_histogram is not None and cell.in_flight_mean == 3.0
    # the percentiles are the whole population's: p50 among the fast host's requests, p95 the slow one's,
    # neither host's own (the worst host's p50 would be 100 ms)
    assert cell.latency_s.p50 is not None and cell.latency_s.p50 < 0.011
    assert cell.latency_s.p95 is not None and 0.1 <= cell.latency_s.p95 <= 0.11 * cell.latency_histogram.growth
    assert cell.latency_s.p999 is not None  # 1,000 samples together
    assert cell.latency_s.mean is not None and math.isclose(cell.latency_s.mean, (sum(fast) + sum(slow)) / 1000)


def test_a_merged_ttfb_percentile_is_never_above_the_latencys() -> None:
    """Small objects: TTFB 10 us before the last byte, the slowest request 7.5562 ms. At 40 buckets
    a decade from 10 us that sample's bucket ends at 10^-2.1 s = 7.943 ms; latency's p99.9 is held
    at its largest sample (7.5562 ms), and TTFB's, which records no maximum, must be held at
    latency's: a first byte cannot come after the last (the cell refuses the merge otherwise)."""
    samples = [0.001 + 0.0065562 * i / 599 for i in range(600)]  # 1 ms to 7.5562 ms
    a = _schema2_host("a", 1000.0, samples, None, ttfb_lead_s=1e-5)
    b = _schema2_host("b", 1001.0, samples, None, ttfb_lead_s=1e-5)
    (cell,) = merge_profiles([a, b]).cells
    assert cell.ttfb_histogram is not None and cell.ttfb_histogram.quantile(0.999) == pytest.approx(10**-2.1)
    assert cell.latency_s.p999 == pytest.approx(0.0075562) and cell.latency_s.max == pytest.approx(0.0075562)
    assert cell.ttfb_s.p999 == cell.latency_s.p999
    # below the top bucket TTFB's percentiles are its own histogram's, not latency's
    assert cell.ttfb_s.p50 == cell.ttfb_histogram.quantile(0.5)


def test_open_cells_are_matched_by_a_close_arrival_rate() -> None:
    samples = [0.01] * 50
    merged = merge_profiles([_schema2_host("a", 1000.0, samples, 100.0), _schema2_host("b", 1001.0, samples, 104.0)])
    (cell,) = merged.cells
    assert cell.mode == "open" and cell.offered_per_s == 204.0 and cell.late_arrivals == 6
    assert cell.hosts == ["a", "b"] and cell.concurrency == 8
    apart = merge_profiles([_schema2_host("a", 1000.0, samples, 100.0), _schema2_host("b", 1001.0, samples, 150.0)])
    assert sorted(c.offered_per_s or 0 for c in apart.cells) == [100.0, 150.0]


def test_version_1_cells_merge_with_the_worst_hosts_percentiles() -> None:
    merged = merge_profiles([_host("a", 1000.0, 100.0, 0.2), _host("b", 1002.0, 50.0, 0.5)])
    (cell,) = merged.cells
    assert cell.latency_histogram is None and cell.latency_s.p99 == 0.5
