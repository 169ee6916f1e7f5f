"""Pure pieces: statistics over samples, range splitting, endpoint sanitising, error labels."""

from __future__ import annotations

import itertools
import math

from botocore.exceptions import ClientError, ReadTimeoutError
from hypothesis import given
from hypothesis import strategies as st

from planner.measure.probes import split_ranges
from planner.measure.s3client import classify_error, sanitize_endpoint
from planner.measure.stats import load_figures
from planner.measure.worker import LoadResult


def test_throughput_counts_only_the_window() -> None:
    # 1 MiB requests of 1 s each, back to back from t=0 to t=10; window [2, 6]
    result = LoadResult(
        starts=[float(i) for i in range(10)],
        ends=[float(i + 1) for i in range(10)],
        ttfbs=[0.1] * 10,
        nbytes=[2**20] * 10,
        cpu_s=1.0,
        window_s=4.0,
    )
    figures = load_figures([result], window_start=2.0, window_end=6.0, cpu_count=2, link_bits_per_s=None)
    assert figures.samples == 4 and math.isclose(figures.throughput_mib_per_s or 0, 1.0)
    assert math.isclose(figures.ops_per_s or 0, 1.0) and figures.cv == 0.0
    assert figures.client_cpu_fraction == 0.125 and "too-few-samples" in figures.flags
    linked = load_figures([result], window_start=2.0, window_end=6.0, cpu_count=2, link_bits_per_s=1e6)
    assert "above-link" in linked.flags


@given(st.integers(min_value=1, max_value=10**9), st.integers(min_value=1, max_value=64))
def test_split_ranges_cover_the_object(size: int, streams: int) -> None:
    ranges = split_ranges(size, streams)
    assert ranges[0][0] == 0 and ranges[-1][1] == size - 1
    assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(ranges))
    assert len(ranges) == min(size, streams)


def test_sanitize_endpoint_drops_secrets() -> None:
    assert sanitize_endpoint("https://AKIA:secret@host.example:8443/base/?X-Amz-Signature=abc#f") == (
        "https://host.example:8443/base"
    )


def test_error_labels() -> None:
    slow = ClientError(
        {"Error": {"Code": "SlowDown", "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": 503}}, "GetObject"
    )
    assert classify_error(slow) == ("503 SlowDown", True)
    denied = ClientError({"Error": {"Code": "AccessDenied"}, "ResponseMetadata": {"HTTPStatusCode": 403}}, "PutObject")
    assert classify_error(denied) == ("403 AccessDenied", False)
    assert classify_error(ReadTimeoutError(endpoint_url="http://x")) == ("timeout", True)


def test_stream_error_labels() -> None:
    from botocore.exceptions import IncompleteReadError, ResponseStreamingError
    from urllib3.exceptions import IncompleteRead, ProtocolError

    cut = ResponseStreamingError(error=ProtocolError("Connection broken", IncompleteRead(10, 20)))
    assert classify_error(cut) == ("truncated", True)
    assert classify_error(IncompleteReadError(actual_bytes=1, expected_bytes=2)) == ("truncated", True)
    reset = ResponseStreamingError(error=ProtocolError("Connection broken", ConnectionResetError(104, "reset")))
    assert classify_error(reset) == ("reset", True)


def test_request_counts_add_up_over_the_whole_load() -> None:
    from planner.measure.stats import request_counts

    result = LoadResult(starts=[0.0, 1.0], ends=[0.5, 1.5], errors=[(0.1, "reset", True), (9.0, "500", False)])
    counts = request_counts([result, LoadResult(starts=[2.0], ends=[2.1])])
    assert (counts.attempts, counts.succeeded, counts.retried, counts.failed) == (5, 3, 1, 1)


def _back_to_back(count: int, every_s: float = 0.1) -> LoadResult:
    """One request at a time, each ``every_s`` long, from t=0."""
    return LoadResult(
        starts=[i * every_s for i in range(count)],
        ends=[(i + 1) * every_s for i in range(count)],
        ttfbs=[every_s / 2] * count,
        nbytes=[0] * count,
        cpu_s=0.1,
        window_s=count * every_s,
    )


def test_requests_in_flight_short_of_the_nominal_concurrency_flag_the_cell() -> None:
    # 4 workers asked, but requests went out one at a time for the whole window
    result = _back_to_back(100)
    figures = load_figures(
        [result], window_start=1.0, window_end=9.0, cpu_count=2, link_bits_per_s=None, count_bytes=False, concurrency=4
    )
    assert figures.in_flight_mean is not None and math.isclose(figures.in_flight_mean, 1.0)
    assert "client-saturated" in figures.flags
    assert figures.note is not None and "1.0 requests in flight on average of the 4 asked" in figures.note
    # the same load asked for one worker is what it says
    single = load_figures(
        [result], window_start=1.0, window_end=9.0, cpu_count=2, link_bits_per_s=None, count_bytes=False, concurrency=1
    )
    assert "client-saturated" not in single.flags


def test_failed_attempts_count_in_flight_and_back_off_does_not_flag() -> None:
    # two workers: one succeeds back to back, the other fails for 0.1 s then backs off 0.1 s, in turn
    ok = _back_to_back(100)
    failing = LoadResult(
        errors=[(i * 0.2 + 0.1, "503 SlowDown", True) for i in range(50)],
        error_starts=[i * 0.2 for i in range(50)],
        backoffs=[(i * 0.2 + 0.1, i * 0.2 + 0.2) for i in range(50)],
        cpu_s=0.1,
        window_s=10.0,
    )
    figures = load_figures(
        [ok, failing],
        window_start=1.0,
        window_end=9.0,
        cpu_count=2,
        link_bits_per_s=None,
        count_bytes=False,
        concurrency=2,
    )
    assert figures.in_flight_mean is not None and math.isclose(figures.in_flight_mean, 1.5)
    assert "client-saturated" not in figures.flags  # the shortfall is the server's 503s, waited out


def test_a_list_used_up_in_the_warm_up_is_short_not_client_saturated() -> None:
    # every DELETE ran before the window opened: no samples, no CPU window, a window of nothing
    result = _back_to_back(27, every_s=0.003)
    result.cpu_s = result.window_s = 0.0
    figures = load_figures(
        [result], window_start=1.0, window_end=2.0, cpu_count=2, link_bits_per_s=None, count_bytes=False, concurrency=2
    )
    assert figures.samples == 0 and figures.ops_per_s is None
    assert "short-window" in figures.flags and "too-few-samples" in figures.flags
    assert "client-saturated" not in figures.flags and figures.client_cpu_fraction is None
    # 27 requests in the first 0.08 s of a 1 s window: a rate, but flagged as resting on 8 % of the window
    late = _back_to_back(27, every_s=0.003)
    late.starts = [s + 1.0 for s in late.starts]
    late.ends = [e + 1.0 for e in late.ends]
    short = load_figures([late], window_start=1.0, window_end=2.0, cpu_count=2, link_bits_per_s=None, count_bytes=False)
    assert short.ops_per_s is not None and short.duration_s < 0.1 and "short-window" in short.flags


def test_a_busy_host_flags_the_client() -> None:
    result = _back_to_back(100)
    result.host_busy_fraction = 0.97
    figures = load_figures([result], window_start=1.0, window_end=9.0, cpu_count=2, link_bits_per_s=None, concurrency=1)
    assert "client-saturated" in figures.flags and figures.note is not None and "97% busy" in figures.note


def test_open_loop_latency_counts_from_the_scheduled_arrival() -> None:
    # arrivals every 0.1 s; each request is sent 0.02 s late and takes 0.05 s on the wire
    arrivals = [i * 0.1 for i in range(100)]
    result = LoadResult(
        starts=[a + 0.02 for a in arrivals],
        ends=[a + 0.07 for a in arrivals],
        ttfbs=[0.06] * 100,
        nbytes=[0] * 100,
        scheduled=arrivals,
        late_arrivals=arrivals[::4],
        cpu_s=0.1,
        window_s=10.0,
    )
    figures = load_figures(
        [result],
        window_start=2.0,
        window_end=8.0,
        cpu_count=2,
        link_bits_per_s=None,
        count_bytes=False,
        concurrency=4,
        open_loop=True,
    )
    assert figures.latency_s.p50 is not None and math.isclose(figures.latency_s.p50, 0.07)
    assert figures.in_flight_mean is not None and math.isclose(figures.in_flight_mean, 0.5)
    assert figures.late_arrivals == 15  # of the 25 late ones, those scheduled in [2, 8)
    # sparse arrivals leave the window's end idle: the window is the one asked for, not cut short
    sparse = load_figures(
        [result],
        window_start=2.0,
        window_end=12.0,
        cpu_count=2,
        link_bits_per_s=None,
        count_bytes=False,
        concurrency=4,
        open_loop=True,
    )
    assert sparse.duration_s == 10.0 and "short-window" not in sparse.flags
    # late because every worker was busy: the endpoint's queue at the cap, not the client's fault
    assert "client-saturated" not in figures.flags
    # a quarter of the arrivals sent late by workers that were waiting for them: the client lagged
    result.slow_sends = arrivals[::4]
    lagging = load_figures(
        [result],
        window_start=2.0,
        window_end=8.0,
        cpu_count=2,
        link_bits_per_s=None,
        count_bytes=False,
        concurrency=4,
        open_loop=True,
    )
    assert "client-saturated" in lagging.flags
    assert lagging.note is not None and "15 of 60 arrivals sent late by a worker that was free" in lagging.note
    # on time, an open loop far below its cap is what was asked for (it has no nominal to fall short of)
    result.late_arrivals = []
    result.slow_sends = []
    on_time = load_figures(
        [result],
        window_start=2.0,
        window_end=8.0,
        cpu_count=2,
        link_bits_per_s=None,
        count_bytes=False,
        concurrency=4,
        open_loop=True,
    )
    assert on_time.late_arrivals == 0 and "client-saturated" not in on_time.flags


@given(
    st.lists(st.floats(min_value=1e-6, max_value=100.0), max_size=200),
    st.lists(st.floats(min_value=1e-6, max_value=100.0), max_size=200),
)
def test_histograms_of_processes_add_up_to_the_histogram_of_all(a: list[float], b: list[float]) -> None:
    from planner.measure.profile import LatencyHistogram

    merged = LatencyHistogram.merged([LatencyHistogram.from_samples(a), LatencyHistogram.from_samples(b)])
    assert merged == LatencyHistogram.from_samples(a + b)
    assert merged.total == len(a) + len(b)


def test_refusals_that_mean_unsupported_and_the_operations_named() -> None:
    from planner.measure.run.safety import refuses, s3_operation

    for label in ("501 NotImplemented", "501", "400", "400 InvalidRequest", "405 MethodNotAllowed", "NotImplemented"):
        assert refuses(label), label
    for label in ("403 AccessDenied", "404 NoSuchKey", "503 SlowDown", "500 InternalError", "timeout", "reset"):
        assert not refuses(label), label
    assert s3_operation("get", {}) == "GetObject"
    assert s3_operation("get", {"byte_range": (0, 9)}) == "GetObject with a Range header"
    assert s3_operation("get", {"thread_ranges": [(0, 4), (5, 9)]}) == "GetObject with a Range header"
    assert s3_operation("put_keys", {}) == "PutObject" and s3_operation("list", {}) == "ListObjectsV2"
