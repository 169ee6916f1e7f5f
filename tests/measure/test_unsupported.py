"""An operation the server does not support marks that cell or probe `unsupported` and the run goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions
from tests.measure.conftest import Fault, FaultProxy, S3Server, list_all

pytestmark = pytest.mark.server


def _options(endpoint: str, bucket: str, out: Path, **extra: object) -> MeasureOptions:
    settings: dict[str, object] = {
        "sizes": [4096],
        "concurrency": [1],
        "duration_s": 0.5,
        "warmup_s": 0.1,
        "probe_duration_s": 0.5,
        "addressing": "path",
        "open_rates_per_s": [],
        "open_peak_fractions": [],
        "hot_object_max": 2,
        "part_sizes": [5 << 20],
        "queue_depths": [1],
        "range_object_size": 1 << 20,
        "range_streams": [2],
        "rate_concurrency": [1],
    }
    settings.update(extra)
    return MeasureOptions(endpoint=endpoint, bucket=bucket, out=out, **settings)  # type: ignore[arg-type]


def test_unsupported_operations_are_named_and_the_rest_is_measured(
    s3_env: S3Server, bucket: str, tmp_path: Path, fault_proxy: FaultProxy
) -> None:
    status, code = 501, "NotImplemented"
    fault_proxy.faults = [
        Fault("unsupported", methods=("POST",), query_contains="uploads", status=status, code=code),
        Fault("unsupported", methods=("GET",), header="range", status=status, code=code),
        Fault("unsupported", methods=("HEAD",), status=status, code=code),
    ]
    options = _options(
        fault_proxy.endpoint,
        bucket,
        tmp_path / "p.json",
        ops=["put", "get", "head"],
        probes=["part-size", "hot-object", "range-get", "rate"],
    )
    profile = Measurement(options).run()
    assert profile.run is not None and profile.run.complete
    refused = {(u.step, u.operation, u.error) for u in profile.run.unsupported}
    error = f"{status} {code}"
    assert refused == {
        ("head 4KiB x1", "HeadObject", "501"),  # an answer to HEAD has no body, so no error code
        ("probe part-size", "CreateMultipartUpload", error),
        ("probe hot-object", "GetObject with a Range header", error),
        ("probe range-get", "GetObject with a Range header", error),
        ("probe rate head x1", "HeadObject", "501"),
    }
    # what the server does support was measured: PUT and GET cells, the rate probe's PUT and GET
    # (the first writes to a new bucket may take the whole short window on SeaweedFS: count every success)
    assert [(c.op, c.requests is not None and c.requests.succeeded > 0) for c in profile.cells] == [
        ("put", True),
        ("get", True),
    ]
    assert profile.probes.part_size is None and profile.probes.hot_object is None
    assert profile.probes.rate is not None
    assert sorted({p.op for p in profile.probes.rate.points}) == ["get", "put"]
    assert list_all(s3_env, bucket) == []


def test_a_400_to_create_multipart_upload_skips_only_the_part_size_probe(
    s3_env: S3Server, bucket: str, tmp_path: Path, fault_proxy: FaultProxy
) -> None:
    """A server without multipart uploads answered 400 and the whole run used to stop."""
    fault_proxy.faults = [Fault("unsupported", methods=("POST",), query_contains="uploads", status=400, code="")]
    probes = ["part-size", "range-get"]
    options = _options(fault_proxy.endpoint, bucket, tmp_path / "p.json", ops=["put"], probes=probes)
    profile = Measurement(options).run()
    assert profile.run is not None and profile.run.complete
    assert [(u.step, u.operation, u.error) for u in profile.run.unsupported] == [
        ("probe part-size", "CreateMultipartUpload", "400")
    ]
    assert profile.probes.range_get is not None and len(profile.probes.range_get.points) == 2
    assert list_all(s3_env, bucket) == []
