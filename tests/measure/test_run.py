"""End-to-end runs against the SeaweedFS server: figures present and sane, nothing left behind."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from planner.measure import journal
from planner.measure.profile import Cell
from planner.measure.reference import load_profile
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions, Reporter
from tests.measure.conftest import FaultProxy, S3Server, list_all

pytestmark = pytest.mark.server


def _options(endpoint: str, bucket: str, out: Path, **overrides: object) -> MeasureOptions:
    base: dict[str, object] = {
        "sizes": [4096, 256 * 1024],
        "concurrency": [1, 4],
        "duration_s": 1.0,
        "warmup_s": 0.3,
        "probes": [],
        "addressing": "path",
        "probe_duration_s": 0.8,
        "open_rates_per_s": [],
        "open_peak_fractions": [],
    }
    base.update(overrides)
    return MeasureOptions(endpoint=endpoint, bucket=bucket, out=out, **base)  # type: ignore[arg-type]


def _check_sane(cell: Cell) -> None:
    assert cell.status == "measured"
    assert cell.samples and cell.samples > 0, cell
    assert cell.ops_per_s and cell.ops_per_s > 0
    lat = cell.latency_s
    assert lat.p50 is not None and lat.p90 is not None and lat.p99 is not None and lat.max is not None
    assert 0 < lat.p50 <= lat.p90 <= lat.p99 <= lat.max
    ttfb = cell.ttfb_s
    assert ttfb.p50 is not None and ttfb.p99 is not None and 0 < ttfb.p50 <= lat.max
    if cell.op in ("put", "get"):
        assert cell.throughput_mib_per_s is not None and cell.object_size_bytes is not None
        # bytes/s and ops/s describe the same requests
        expected = cell.ops_per_s * cell.object_size_bytes / 2**20
        assert math.isclose(cell.throughput_mib_per_s, expected, rel_tol=0.01)
    else:
        assert cell.throughput_mib_per_s is None
    assert cell.errors == {} and cell.retries == 0 and cell.failed_ops == 0
    assert cell.duration_s is not None and 0.5 <= cell.duration_s <= 1.5
    assert cell.client_cpu_fraction is not None and 0 < cell.client_cpu_fraction <= 1.5
    if cell.segments:
        assert cell.cv is not None and cell.cv >= 0


def test_matrix_figures_and_empty_bucket(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    profile = Measurement(_options(s3_env.endpoint, bucket, out, concurrency=[3])).run()
    keys = {c.key() for c in profile.cells}
    expected = {(op, size, 3, None) for op in ("put", "get", "head", "delete") for size in (4096, 262144)}
    expected |= {("list", None, 3, None)}
    assert keys == expected
    for cell in profile.cells:
        _check_sane(cell)
    assert profile.run is not None and profile.run.complete and profile.run.stopped_reason is None
    assert list_all(s3_env, bucket) == []
    saved = load_profile(out)
    assert saved.cells == profile.cells
    assert saved.endpoint == s3_env.endpoint and saved.clients[0].cpu_count
    state = journal.read(journal.journal_path(tmp_path, profile.run.run_id))
    assert state.cleaned and state.keys and all(k.startswith(profile.run.prefix) for k in state.keys)
    summary = saved.summary()
    assert summary.ttfb_p50_s is not None and summary.ops_per_s["head"] is not None
    assert [size for size, _ in summary.get_stream_bytes_per_s] == [4096, 262144]


def test_link_flags_implausible_cells(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    options = _options(
        s3_env.endpoint, bucket, out, ops=["get"], sizes=[256 * 1024], concurrency=[2], link_bits_per_s=1000.0
    )
    profile = Measurement(options).run()
    (cell,) = profile.cells
    assert "above-link" in cell.flags and "implausible" in cell.flags
    assert profile.summary().read_ceiling_bytes_per_s is None  # an implausible cell is not a ceiling


def test_probes_run_and_clean_up(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    options = _options(
        s3_env.endpoint,
        bucket,
        tmp_path / "p.json",
        ops=["put", "get", "delete"],
        sizes=[4096],
        concurrency=[1],
        probes=["part-size", "range-get", "rate"],
        part_sizes=[5 << 20],
        queue_depths=[2],
        range_object_size=4 << 20,
        range_streams=[4],
        rate_concurrency=[2, 4],
        rate_object_size=1024,
    )
    profile = Measurement(options).run()
    probes = profile.probes
    assert probes.part_size is not None and probes.part_size.points[0].throughput_mib_per_s
    assert probes.range_get is not None and probes.range_get.speedup and probes.range_get.best_streams == 4
    assert [p.streams for p in probes.range_get.points] == [1, 4]
    assert probes.rate is not None
    assert {p.op for p in probes.rate.points} == {"put", "get", "delete"}
    assert all(p.ops_per_s and p.ops_per_s > 0 for p in probes.rate.points)
    assert list_all(s3_env, bucket) == []
    uploads = s3_env.client().list_multipart_uploads(Bucket=bucket).get("Uploads", [])
    assert uploads == []


def test_delete_cell_with_nothing_to_size_its_list_from_still_fills_its_window(
    s3_env: S3Server, bucket: str, tmp_path: Path
) -> None:
    # no PUT or HEAD cell precedes it, so the first list (80 objects) is gone within the warm-up on a
    # loopback server; the cell is measured again with a list sized from the rate it saw
    options = _options(
        s3_env.endpoint, bucket, tmp_path / "d.json", ops=["delete"], sizes=[1024], concurrency=[2], warmup_s=0.5
    )
    profile = Measurement(options).run()
    (cell,) = profile.cells
    assert cell.samples is not None and cell.samples >= 20
    assert cell.duration_s is not None and cell.duration_s >= 0.9 * options.duration_s
    assert cell.ops_per_s and cell.ops_per_s > 0
    assert list_all(s3_env, bucket) == []


def test_ttfb_delay_hot_object_limit_and_retries(
    s3_env: S3Server, bucket: str, tmp_path: Path, fault_proxy: FaultProxy
) -> None:
    delay, limit = 0.2, 6
    fault_proxy.delay_s, fault_proxy.limit = delay, limit
    options = _options(
        fault_proxy.endpoint,
        bucket,
        tmp_path / "p.json",
        ops=["get", "head"],
        sizes=[4096],
        concurrency=[2],
        duration_s=1.5,
        probes=["hot-object"],
        hot_object_max=16,
        probe_duration_s=1.0,
    )
    profile = Measurement(options).run()
    for cell in profile.cells:
        assert cell.ttfb_s.p50 is not None and cell.ttfb_s.p99 is not None
        # the proxy's delay comes on top of the server's own time to first byte, which a loaded
        # two-core machine stretches to tens of milliseconds: every request waits at least the
        # delay, none as long as twice it
        assert delay <= cell.ttfb_s.p50 <= 1.1 * delay + 0.05, cell.ttfb_s
        assert delay <= cell.ttfb_s.p99 <= 1.1 * delay + 0.05, cell.ttfb_s
    hot = profile.probes.hot_object
    assert hot is not None
    assert hot.behaviour == "reject" and hot.error == "503 SlowDown"
    assert hot.limit is not None and abs(hot.limit - limit) <= 0.1 * limit
    above = [s for s in hot.steps if s.concurrency > limit]
    assert above and all(s.errors.get("503 SlowDown", 0) > 0 for s in above)
    assert all("503 SlowDown" not in s.errors for s in hot.steps if s.concurrency <= limit)
    summary = profile.summary()
    assert summary.hot_object_limit == hot.limit and summary.hot_object_behaviour == "reject"

    # one request at a time per key: concurrent GETs of the same key get 503s, which we retry and count
    fault_proxy.delay_s, fault_proxy.limit = 0.02, 1
    options = _options(
        fault_proxy.endpoint,
        bucket,
        tmp_path / "q.json",
        ops=["get"],
        sizes=[4096],
        concurrency=[8],
        duration_s=1.5,
        max_attempts=4,
    )
    (cell,) = Measurement(options).run().cells
    throttled = cell.errors.get("503 SlowDown", 0)
    assert throttled > 0 and cell.retries is not None and cell.failed_ops is not None
    assert sum(cell.errors.values()) == cell.retries + cell.failed_ops
    assert list_all(s3_env, bucket) == []


class _Exploding(Reporter):
    def cell(self, cell: Cell) -> None:
        raise RuntimeError("injected failure after the first cell")


def test_injected_failure_keeps_cells_and_cleans_up(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    with pytest.raises(RuntimeError, match="injected"):
        Measurement(_options(s3_env.endpoint, bucket, out, ops=["put", "get"]), _Exploding()).run()
    saved = json.loads(out.read_text())
    assert len(saved["cells"]) == 1 and saved["run"]["complete"] is False
    assert saved["run"]["stopped_reason"] == "failed (RuntimeError)"
    assert list_all(s3_env, bucket) == []
