"""Pure pieces: statistics over samples, range splitting, endpoint sanitising, error labels."""

from __future__ import annotations

import itertools
import math

from botocore.exceptions import ClientError, ReadTimeoutError
from hypothesis import given
from hypothesis import strategies as st

from measure.probes import split_ranges
from measure.s3client import classify_error, sanitize_endpoint
from measure.stats import summarise
from measure.worker import LoadResult


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
    figures = summarise([result], window_start=2.0, window_end=6.0, cpu_count=2, link_bits_per_s=None)
    assert figures.samples == 4 and math.isclose(figures.throughput_mib_per_s or 0, 1.0)
    assert math.isclose(figures.ops_per_s or 0, 1.0) and figures.cv == 0.0
    assert figures.client_cpu_fraction == 0.125 and "too-few-samples" in figures.flags
    linked = summarise([result], window_start=2.0, window_end=6.0, cpu_count=2, link_bits_per_s=1e6)
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
    from measure.stats import request_counts

    result = LoadResult(starts=[0.0, 1.0], ends=[0.5, 1.5], errors=[(0.1, "reset", True), (9.0, "500", False)])
    counts = request_counts([result, LoadResult(starts=[2.0], ends=[2.1])])
    assert (counts.attempts, counts.succeeded, counts.retried, counts.failed) == (5, 3, 1, 1)
