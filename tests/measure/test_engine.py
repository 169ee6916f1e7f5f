"""The request engines against the SeaweedFS server: small objects go through obstore, large ones
through boto3, each cell says which ran, and obstore's cells are timed and counted like boto3's
(every attempt, a 503 SlowDown included, seen by the worker and matched by the proxy's count)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.measure.clients import SMALL_OBJECT_MAX_BYTES, classify_obstore_error, engine_for
from planner.measure.merge import merge_profiles
from planner.measure.profile import Cell, ClientHost, Profile, RunInfo, Source
from planner.measure.reference import load_profile
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions
from planner.measure.stats import IN_FLIGHT_SHORTFALL
from tests.measure.conftest import Fault, FaultProxy, S3Server, list_all

SMALL, LARGE = 4096, 8 << 20


def _options(endpoint: str, bucket: str, out: Path, **overrides: object) -> MeasureOptions:
    base: dict[str, object] = {
        "sizes": [SMALL],
        "concurrency": [4],
        "duration_s": 1.5,
        "warmup_s": 0.3,
        "probes": [],
        "addressing": "path",
        "open_rates_per_s": [],
        "open_peak_fractions": [],
    }
    base.update(overrides)
    return MeasureOptions(endpoint=endpoint, bucket=bucket, out=out, **base)  # type: ignore[arg-type]


def _timed(cell: Cell) -> None:
    """A measured cell with samples whose first byte comes no later than the request's end."""
    assert cell.samples and cell.samples > 0 and cell.ops_per_s and cell.ops_per_s > 0
    assert cell.latency_s.p50 and cell.latency_s.p50 > 0 and cell.ttfb_s.p50 and cell.ttfb_s.p50 > 0
    assert cell.ttfb_s.p50 <= cell.latency_s.p50
    assert cell.requests is not None and cell.requests.succeeded >= cell.samples
    # achieved concurrency: near the nominal, or the cell says the client held it back
    assert cell.in_flight_mean is not None
    if cell.in_flight_mean < IN_FLIGHT_SHORTFALL * cell.concurrency:
        assert "client-saturated" in cell.flags, cell


@pytest.mark.server
def test_small_cells_run_on_obstore_large_on_boto3(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    options = _options(s3_env.endpoint, bucket, tmp_path / "p.json", ops=["put", "get", "head"], sizes=[SMALL, LARGE])
    profile = Measurement(options).run()
    assert profile.run is not None and profile.run.complete
    for op in ("put", "get", "head"):
        for size in (SMALL, LARGE):
            cell = profile.cell(op, size, 4)
            assert cell is not None
            _timed(cell)
            expected = "obstore" if op == "head" or size == SMALL else "boto3"
            assert cell.engine == expected, (op, size, cell.engine)
            if op in ("get", "put"):  # every request moved the whole object
                assert cell.throughput_mib_per_s is not None
                moved = cell.throughput_mib_per_s * 2**20 * (cell.duration_s or 0)
                assert moved >= 0.5 * cell.samples * size
    assert profile.clients and profile.clients[0].obstore_version
    # the engine is in the file, and the file loads
    stored = json.loads((tmp_path / "p.json").read_text())
    assert {c["engine"] for c in stored["cells"]} == {"obstore", "boto3"}
    assert load_profile(tmp_path / "p.json").cells[0].engine is not None
    assert list_all(s3_env, bucket) == []


@pytest.mark.server
def test_forced_boto3_engine_is_recorded(s3_env: S3Server, bucket: str, tmp_path: Path) -> None:
    options = _options(s3_env.endpoint, bucket, tmp_path / "p.json", ops=["get"], engine="boto3")
    cell = Measurement(options).run().cell("get", SMALL, 4)
    assert cell is not None and cell.engine == "boto3"
    _timed(cell)


@pytest.mark.server
def test_slowdown_counted_per_attempt_on_obstore(
    s3_env: S3Server, bucket: str, fault_proxy: FaultProxy, tmp_path: Path
) -> None:
    """Every third small GET and PUT answered 503 SlowDown: each is a failed attempt of its own,
    retried by the worker (obstore's own retries are off), and the proxy saw exactly the attempts
    the cell counted."""
    get_fault = Fault("slowdown", every=3, methods=("GET",), key_contains=f"/data/{SMALL}/")
    put_fault = Fault("slowdown", every=3, methods=("PUT",), key_contains=f"/put/{SMALL}/")
    fault_proxy.faults = [get_fault, put_fault]
    options = _options(fault_proxy.endpoint, bucket, tmp_path / "p.json", ops=["put", "get"], processes=1)
    profile = Measurement(options).run()
    for op, fault in (("get", get_fault), ("put", put_fault)):
        cell = profile.cell(op, SMALL, 4)
        assert cell is not None and cell.engine == "obstore"
        requests = cell.requests
        assert requests is not None and fault.injected > 0
        assert requests.attempts == fault.matched
        assert requests.retried + requests.failed == fault.injected
        assert set(cell.errors) == {"503 SlowDown"}
        assert sum(cell.errors.values()) == (cell.retries or 0) + (cell.failed_ops or 0)
        assert cell.samples and cell.latency_s.p50 and cell.ttfb_s.p50
    assert list_all(s3_env, bucket) == []


def test_engine_choice_by_kind_and_size() -> None:
    assert engine_for("get", 4096) == "obstore"
    assert engine_for("get", SMALL_OBJECT_MAX_BYTES) == "obstore"
    assert engine_for("get", SMALL_OBJECT_MAX_BYTES + 1) == "boto3"
    assert engine_for("put", 64 << 20) == "boto3"
    assert engine_for("head", 1 << 30) == "obstore"  # a HEAD moves no body whatever the size
    for kind in ("list", "delete", "upload_part"):
        assert engine_for(kind, 4096) == "boto3"
    assert engine_for("get", 4096, "boto3") == "boto3"
    assert engine_for("get", 64 << 20, "obstore") == "obstore"


@pytest.mark.parametrize(
    ("message", "label", "retryable"),
    [
        (
            "Generic S3 error: Error performing GET http://h/b/k in 1ms - Server returned non-2xx status code:"
            " 503 Service Unavailable: <Error><Code>SlowDown</Code><Message>m</Message></Error>",
            "503 SlowDown",
            True,
        ),
        (
            "Error performing HEAD http://h/b/k - Server returned non-2xx status code: 503 Service Unavailable: ",
            "503",
            True,
        ),
        ("Server returned non-2xx status code: 403 Forbidden: <Code>AccessDenied</Code>", "403 AccessDenied", False),
        ("HTTP error: error sending request\n inner: Http(HttpError { kind: Timeout, ...", "timeout", True),
        ("HTTP error: request or response body error kind: Interrupted ... error: IncompleteBody", "truncated", True),
        ("HTTP error: error sending request\n inner: Http(HttpError { kind: Interrupted, ...", "reset", True),
        ("HTTP error: error sending request\n inner: Http(HttpError { kind: Connect, ...", "connection", True),
    ],
)
def test_obstore_errors_become_labels_without_their_message(message: str, label: str, retryable: bool) -> None:
    failed = classify_obstore_error(RuntimeError(message))
    assert (failed.label, failed.retryable) == (label, retryable)
    assert str(failed) == label  # nothing of the URL or the server's answer is kept


def test_profiles_without_engine_still_load(tmp_path: Path) -> None:
    cell = Cell(op="get", object_size_bytes=SMALL, concurrency=1, samples=10, ops_per_s=5.0)
    data = json.loads(cell.model_dump_json(exclude_none=True))
    assert "engine" not in data
    assert Cell.model_validate(data).engine is None


def test_merged_hosts_keep_the_engine_they_share() -> None:
    def host(name: str, engine: str) -> Profile:
        cell = Cell(
            op="get",
            object_size_bytes=SMALL,
            concurrency=4,
            samples=100,
            ops_per_s=10.0,
            window_start_unix=1000.0,
            window_end_unix=1010.0,
            engine=engine,  # type: ignore[arg-type]
        )
        return Profile(
            endpoint="http://s3.example",
            clients=[ClientHost(hostname=name)],
            cells=[cell],
            run=RunInfo(run_id=name, prefix="p/", started_at="t"),
            source=Source(kind="measured"),
        )

    same = merge_profiles([host("a", "obstore"), host("b", "obstore")]).cells[0]
    assert same.ops_per_s == 20.0 and same.engine == "obstore"
    assert merge_profiles([host("a", "obstore"), host("b", "boto3")]).cells[0].engine is None
