"""Faults during a measurement, injected by the proxy in front of the real SeaweedFS server.

For each fault: the run keeps going (retrying where that is right), the profile records the
failed attempts by cause and counts every attempt exactly (the proxy's own count of the GETs it
received equals the cell's attempts), failures never become zeros in the figures, and the bucket
holds none of the run's objects afterwards (listed directly, not through the proxy).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from planner.measure.profile import Cell, Profile
from planner.measure.run.measurement import Measurement
from planner.measure.run.options import MeasureOptions
from tests.measure.conftest import Fault, FaultProxy, S3Server, _environment, list_all

pytestmark = pytest.mark.server

SIZE = 64 * 1024
THROTTLE_BYTES_PER_S = 12 * 2**20
THROTTLE_SIZE = 512 * 1024  # large enough that the throttle, not the request overhead, is the limit
LATENCY_S, PAUSE_S = 0.1, 0.15

# One fault per object size, so that one run measures them all (a cell per fault) and each test
# reads its own cell: the proxy applies a fault only to the GETs of its size's objects.
FAULTS: dict[str, tuple[int, Fault]] = {
    name: (size, fault)
    for size, (name, fault) in enumerate(
        [
            ("503-slowdown", Fault("slowdown", every=3)),
            ("500", Fault("500", rate=0.3, seed=7)),
            ("reset", Fault("reset", every=4)),
            ("stall-before-body", Fault("stall", every=5, seconds=1.0)),  # silent past the read timeout
            ("stall-during-body", Fault("stall-body", every=5, seconds=1.0)),  # half the body, then silence
            ("truncated-body", Fault("truncate", every=4)),  # half the body, then the connection closes
            ("mostly-failing", Fault("500", rate=0.9, seed=3)),
            ("latency", Fault("latency", seconds=LATENCY_S)),
            ("pause-before-body", Fault("stall-body", seconds=PAUSE_S, body_fraction=0.0)),
        ],
        start=SIZE,
    )
}
FAULTS["throttle"] = (THROTTLE_SIZE, Fault("throttle", bytes_per_s=THROTTLE_BYTES_PER_S))
for _size, _fault in FAULTS.values():
    _fault.key_contains = f"/data/{_size}/"


@dataclass
class FaultyRun:
    server: S3Server
    bucket: str
    proxy: FaultProxy
    profile: Profile

    def cell(self, name: str) -> tuple[Cell, Fault]:
        size, fault = FAULTS[name]
        found = self.profile.cell("get", size, 4)
        assert found is not None
        return found, fault


@pytest.fixture(scope="module")
def faulty_run(s3_server: S3Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FaultyRun]:
    """One ``planner measure`` run through the proxy, a GET cell per fault, three attempts each."""
    proxy = FaultProxy(upstream_port=int(s3_server.endpoint.rsplit(":", 1)[1]))
    proxy.faults = [fault for _, fault in FAULTS.values()]
    proxy.start()
    bucket = s3_server.new_bucket()
    options = MeasureOptions(
        endpoint=proxy.endpoint,
        bucket=bucket,
        out=tmp_path_factory.mktemp("faults") / "p.json",
        ops=["get"],
        sizes=[size for size, _ in FAULTS.values()],
        concurrency=[4],
        duration_s=1.5,
        warmup_s=0.3,
        probes=[],
        addressing="path",
        processes=1,
        max_attempts=3,
        read_timeout_s=0.4,
        open_rates_per_s=[],
        open_peak_fractions=[],
    )
    try:
        with _environment(s3_server.env):
            profile = Measurement(options).run()
        yield FaultyRun(s3_server, bucket, proxy, profile)
    finally:
        proxy.stop()


def _check_accounting(cell: Cell, fault: Fault) -> None:
    """Every attempt is the tool's own: the proxy saw exactly the GETs the cell counted."""
    requests = cell.requests
    assert requests is not None
    assert requests.attempts == requests.succeeded + requests.failed + requests.retried
    assert requests.attempts == fault.matched  # the GETs the proxy received for this cell's objects
    # one failed attempt per injected fault, each either retried or ending its request
    assert requests.retried + requests.failed == fault.injected
    # the window's figures: failed attempts by cause, each retried or given up
    assert sum(cell.errors.values()) == (cell.retries or 0) + (cell.failed_ops or 0)
    assert cell.samples and cell.samples > 0
    assert cell.latency_s.p50 and cell.latency_s.p50 > 0 and cell.ttfb_s.p50 and cell.ttfb_s.p50 > 0


def _nothing_left(run: FaultyRun) -> None:
    assert run.profile.run is not None and run.profile.run.complete and run.profile.run.stopped_reason is None
    assert list_all(run.server, run.bucket) == []  # the proxy-less endpoint
    assert run.server.client().list_multipart_uploads(Bucket=run.bucket).get("Uploads", []) == []


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("503-slowdown", "503 SlowDown"),
        ("500", "500 InternalError"),
        ("reset", "reset"),
        ("stall-before-body", "timeout"),
        ("stall-during-body", "timeout"),
        ("truncated-body", "truncated"),
    ],
)
def test_fault_is_retried_counted_and_cleaned_up(faulty_run: FaultyRun, name: str, label: str) -> None:
    cell, fault = faulty_run.cell(name)
    _check_accounting(cell, fault)
    assert fault.injected > 0 and set(cell.errors) == {label}, cell.errors
    assert cell.requests is not None and cell.requests.retried > 0  # retrying is right for all of these
    assert cell.requests.failed <= cell.requests.retried  # with 3 attempts, most faults are survived
    assert "too-few-samples" not in cell.flags
    _nothing_left(faulty_run)


def test_most_requests_failing_flags_the_cell_without_zeros(faulty_run: FaultyRun) -> None:
    cell, fault = faulty_run.cell("mostly-failing")
    _check_accounting(cell, fault)
    assert cell.failed_ops and cell.samples and cell.failed_ops > cell.samples
    assert "too-few-samples" in cell.flags
    # the figures are the successes' own: a failure is never a zero in them
    assert cell.duration_s is not None and cell.ops_per_s is not None and cell.object_size_bytes is not None
    assert cell.ops_per_s == pytest.approx(cell.samples / cell.duration_s, rel=0.3)
    assert cell.throughput_mib_per_s == pytest.approx(cell.ops_per_s * cell.object_size_bytes / 2**20, rel=0.01)
    # and the summary a model reads does not rest on it
    summarised = [size for size, _ in faulty_run.profile.summary().get_stream_bytes_per_s]
    assert cell.object_size_bytes not in summarised and len(summarised) == len(FAULTS) - 1
    _nothing_left(faulty_run)


def test_throughput_under_a_bandwidth_throttle(faulty_run: FaultyRun) -> None:
    cell, fault = faulty_run.cell("throttle")
    _check_accounting_clean(cell, fault)
    assert cell.throughput_mib_per_s == pytest.approx(THROTTLE_BYTES_PER_S / 2**20, rel=0.15)
    _nothing_left(faulty_run)


def test_added_latency_shows_in_ttfb(faulty_run: FaultyRun) -> None:
    cell, fault = faulty_run.cell("latency")
    _check_accounting_clean(cell, fault)
    assert cell.ttfb_s.p50 is not None and LATENCY_S <= cell.ttfb_s.p50 <= LATENCY_S + 0.05
    _nothing_left(faulty_run)


def test_ttfb_is_the_first_byte_of_the_body(faulty_run: FaultyRun) -> None:
    """Headers at once, then a pause: time to first byte holds the pause (it is the body's first byte)."""
    cell, fault = faulty_run.cell("pause-before-body")
    _check_accounting_clean(cell, fault)
    assert cell.ttfb_s.p50 is not None and PAUSE_S <= cell.ttfb_s.p50 <= PAUSE_S + 0.05
    assert cell.latency_s.p50 is not None and cell.latency_s.p50 >= cell.ttfb_s.p50
    _nothing_left(faulty_run)


def _check_accounting_clean(cell: Cell, fault: Fault) -> None:
    assert cell.errors == {} and cell.requests is not None
    assert cell.requests.attempts == cell.requests.succeeded == fault.matched == fault.injected > 0
    assert cell.samples and cell.samples >= 20 and "too-few-samples" not in cell.flags


def test_botocore_makes_one_attempt_per_call(s3_env: S3Server, bucket: str, fault_proxy: FaultProxy) -> None:
    """A client from make_client sends a failing request once: the retries are all planner's."""
    from botocore.exceptions import ClientError

    from planner.measure.s3client import make_client

    s3_env.client().put_object(Bucket=bucket, Key="one", Body=b"x")
    fault_proxy.faults = [Fault("500"), Fault("slowdown", methods=("HEAD",))]
    client = make_client(fault_proxy.endpoint, "us-east-1", addressing="path")
    with pytest.raises(ClientError):
        client.get_object(Bucket=bucket, Key="one")
    with pytest.raises(ClientError):
        client.head_object(Bucket=bucket, Key="one")
    assert fault_proxy.object_requests("GET") == 1 and fault_proxy.object_requests("HEAD") == 1
    s3_env.client().delete_object(Bucket=bucket, Key="one")
