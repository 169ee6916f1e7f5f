"""The same measurement on moto's S3 server: a DELETE far faster than PUT, and an unsupported operation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions
from planner.measure.stats import SHORT_WINDOW
from tests.measure.conftest import Fault, FaultProxy, S3Server, list_all

pytestmark = pytest.mark.server


def _options(endpoint: str, bucket: str, out: Path, **extra: object) -> MeasureOptions:
    settings: dict[str, object] = {
        "sizes": [64 * 1024],
        "concurrency": [4],
        "duration_s": 1.0,
        "warmup_s": 0.2,
        "probe_duration_s": 0.5,
        "addressing": "path",
        "open_rates_per_s": [],
        "open_peak_fractions": [],
        "probes": [],
        "part_sizes": [5 << 20],
        "queue_depths": [1],
        "range_object_size": 1 << 20,
        "range_streams": [2],
    }
    settings.update(extra)
    return MeasureOptions(endpoint=endpoint, bucket=bucket, out=out, **settings)  # type: ignore[arg-type]


def test_delete_cells_on_moto_last_their_window_or_say_they_did_not(moto_env: S3Server, tmp_path: Path) -> None:
    bucket = moto_env.new_bucket()
    options = _options(moto_env.endpoint, bucket, tmp_path / "p.json", ops=["put", "delete"])
    profile = Measurement(options).run()
    assert profile.run is not None and profile.run.complete
    delete = next(c for c in profile.cells if c.op == "delete")
    assert delete.samples and delete.duration_s is not None
    # the list, sized from the rates seen (no cap on bytes), lasted the window, or the cell says it did not;
    # a list used up early is never reported as a rate over the whole window, nor blamed on the client
    lasted = delete.duration_s >= SHORT_WINDOW * options.duration_s
    assert lasted or "short-window" in delete.flags, (delete.duration_s, delete.flags)
    assert lasted or "client-saturated" not in delete.flags
    assert list_all(moto_env, bucket) == []


@pytest.fixture
def moto_proxy(moto_env: S3Server) -> Iterator[FaultProxy]:
    proxy = FaultProxy(upstream_port=int(moto_env.endpoint.rsplit(":", 1)[1]))
    proxy.start()
    yield proxy
    proxy.stop()


def test_an_unsupported_operation_on_moto_skips_only_its_probe(
    moto_env: S3Server, moto_proxy: FaultProxy, tmp_path: Path
) -> None:
    bucket = moto_env.new_bucket()
    moto_proxy.faults = [Fault("unsupported", methods=("POST",), query_contains="uploads")]
    options = _options(moto_proxy.endpoint, bucket, tmp_path / "p.json", ops=["put"], probes=["part-size", "range-get"])
    profile = Measurement(options).run()
    assert profile.run is not None and profile.run.complete
    assert [(u.step, u.operation, u.error) for u in profile.run.unsupported] == [
        ("probe part-size", "CreateMultipartUpload", "501 NotImplemented")
    ]
    assert profile.probes.range_get is not None and profile.probes.range_get.points
    assert list_all(moto_env, bucket) == []
