"""`planner ingest access-log`: S3 server access logs to a workload's traffic, and a trace.

A seeded generator writes logs with known counts, a known busiest second and a known hot key;
reading them back must give those figures exactly."""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import io
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.files import load_yaml
from planner.ingest.accesslog import parse_line, read_logs, split_fields, traffic_block
from planner.workload import load_workload, parse_workload
from tests.planner.conftest import Result

# AWS's own example line (LogFormat.html), which has every field up to the access point ARN
AWS_EXAMPLE = (
    "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be awsexamplebucket1"
    " [06/Feb/2019:00:00:38 +0000] 192.0.2.3 79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"
    ' 3E57427F3EXAMPLE REST.GET.VERSIONING - "GET /awsexamplebucket1?versioning HTTP/1.1" 200 - 113 - 7 -'
    ' "-" "S3Console/0.4" - s9lzHYrFp76ZVxRcpX9+5cjAnEH2ROuNkd2BHfIa6UkFVdtjf5mKR3/eTPFvsiP/XV/VLi31234='
    " SigV4 ECDHE-RSA-AES128-GCM-SHA256 AuthHeader awsexamplebucket1.s3.us-west-1.amazonaws.com TLSV1.2"
    " arn:aws:s3:us-west-1:123456789012:accesspoint/example-AP Yes"
)
START = dt.datetime(2026, 11, 2, 9, 0, 0, tzinfo=dt.UTC)


def _line(t: dt.datetime, op: str, key: str, status: int, sent: int, size: int, total_ms: int, agent: str) -> str:
    stamp = t.strftime("%d/%b/%Y:%H:%M:%S +0000")
    verb = op.split(".")[1]
    error = "SlowDown" if status == 503 else "-"
    return (
        f"owner media [{stamp}] 192.0.2.9 arn:aws:iam::1:user/app REQ{random.random():.8f} {op} {key}"
        f' "{verb} /media/{key} HTTP/1.1" {status} {error} {sent or "-"} {size or "-"} {total_ms}'
        f" {max(total_ms - 2, 0)}"
        f' "-" "{agent}" - HOSTID SigV4 TLS_AES_128_GCM_SHA256 AuthHeader media.s3.amazonaws.com TLSv1.3 - -'
    )


def _generate(folder: Path, seed: int = 3) -> dict[str, object]:
    """One hour: 3,600 GETs spread over the keys plus 400 on a hot key (all in second 600, 40 ms
    each), 500 PUTs, 100 HEADs, 50 LISTs, 20 ranged GETs, 5 SlowDowns and one broken line."""
    rng = random.Random(seed)
    lines: list[tuple[dt.datetime, str]] = []
    expected: Counter[str] = Counter()
    sent = 0
    for _ in range(3600):
        t = START + dt.timedelta(seconds=rng.randrange(3600))
        size = rng.randrange(1000, 100_000)
        lines.append((t, _line(t, "REST.GET.OBJECT", f"k/{rng.randrange(5000)}", 200, size, size, 12, "app")))
        sent += size
    for _ in range(400):
        t = START + dt.timedelta(seconds=600)
        lines.append((t, _line(t, "REST.GET.OBJECT", "hot/logo.png", 200, 5000, 5000, 40, 'curl "x" 8')))
        sent += 5000
    for _ in range(20):
        t = START + dt.timedelta(seconds=rng.randrange(3600))
        lines.append((t, _line(t, "REST.GET.OBJECT", "big/video.mp4", 206, 2**20, 2**30, 30, "app")))
        sent += 2**20
    for op, n in (("REST.PUT.OBJECT", 500), ("REST.HEAD.OBJECT", 100), ("REST.GET.BUCKET", 50)):
        for _ in range(n):
            t = START + dt.timedelta(seconds=rng.randrange(3600))
            lines.append((t, _line(t, op, "-" if "BUCKET" in op else f"k/{rng.randrange(5000)}", 200, 0, 0, 9, "app")))
        expected[op] = n
    for _ in range(5):
        t = START + dt.timedelta(seconds=1200)
        lines.append((t, _line(t, "REST.PUT.OBJECT", "k/1", 503, 0, 0, 3, "app")))
    lines.sort(key=lambda pair: pair[0])
    text = "\n".join(line for _, line in lines)
    half = len(lines) // 2
    first, second = text.split("\n")[:half], text.split("\n")[half:]
    (folder / "2026-11-02-09-00-00-A").write_text("\n".join(first) + "\nthis is not a log line\n")
    with gzip.open(folder / "2026-11-02-09-30-00-B.gz", "wt") as handle:
        handle.write("\n".join(second) + "\n")
    return {"gets": 4020, "puts": 505, "sent": sent, "window": 3600.0}


def test_fields_split_on_spaces_brackets_and_quotes() -> None:
    fields = split_fields(AWS_EXAMPLE)
    assert fields[2] == "06/Feb/2019:00:00:38 +0000" and fields[8] == "GET /awsexamplebucket1?versioning HTTP/1.1"
    assert fields[16] == "S3Console/0.4" and fields[-1] == "Yes"
    request = parse_line(AWS_EXAMPLE)
    assert request is not None and request.operation == "REST.GET.VERSIONING" and request.bytes_sent == 113
    assert request.time == dt.datetime(2019, 2, 6, 0, 0, 38, tzinfo=dt.UTC) and request.total_ms == 7
    assert split_fields('a "b \\"c\\" d" e') == ["a", 'b "c" d', "e"]
    with pytest.raises(ValueError):
        parse_line("too few fields")
    # a negative count makes the line unreadable: it had been read, and refused later as the written workload's
    # negative egress
    with pytest.raises(ValueError, match=r"bytes sent '-113' is negative"):
        parse_line(AWS_EXAMPLE.replace(" 200 - 113 - 7 ", " 200 - -113 - 7 "))


def test_generated_logs_read_back_exactly(tmp_path: Path) -> None:
    expected = _generate(tmp_path)
    trace = io.StringIO()
    log = read_logs([tmp_path], trace=trace)
    assert log.requests["get"] == expected["gets"] and log.requests["put"] == expected["puts"]
    assert (log.requests["head"], log.requests["list"]) == (100, 50)
    assert log.get_bytes_sent == expected["sent"] and log.ranged_gets == 20
    assert log.slow_downs == 5 and log.errors == {"503": 5}
    assert log.bad_lines == 1 and "2026-11-02-09-00-00-A:" in log.first_bad[0]
    # second 600 holds the 400 hot GETs and whatever else fell there
    assert log.peak_second == START + dt.timedelta(seconds=600) and log.peak_per_s >= 400
    hot = log.hot_keys[0]
    assert hot.key == "hot/logo.png" and hot.gets == 400 and hot.share_of_gets == pytest.approx(400 / 4020)
    # 400 requests of 40 ms within one second: 16 request-seconds, 16 in flight on average
    assert hot.peak_per_s == 400 and hot.peak_in_flight == pytest.approx(16.0)
    assert log.window_s <= expected["window"]
    rows = list(csv.DictReader(io.StringIO(trace.getvalue())))
    assert Counter(r["operation"] for r in rows) == Counter(log.requests)
    assert sum(int(r["ranged"]) for r in rows) == 20


def test_the_traffic_section_scales_to_a_month_and_loads(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    _generate(tmp_path / "logs")
    log = read_logs([tmp_path / "logs"])
    block = traffic_block(log)
    (tmp_path / "w.yaml").write_text('name: x\nstorage:\n  stored: "1 TB"\n  object_size: "1 MiB"\n' + block)
    traffic = load_workload(tmp_path / "w.yaml").traffic
    scale = 30 * 86400 / log.window_s
    assert traffic.reads == round(4020 * scale) and traffic.writes == round(505 * scale)
    assert traffic.peak_rate == log.peak_per_s
    assert traffic.hot_objects is not None and traffic.hot_objects.peak_concurrency == 16


def test_empty_or_foreign_logs_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "x.log").write_text("hello world\n")
    # the line and what is wrong with it: a count of unreadable lines alone had said neither
    with pytest.raises(InputError, match=r"no requests \(1 unreadable lines; the first, x.log:1: 2 fields, a log"):
        read_logs([tmp_path / "x.log"])
    (tmp_path / "y.gz").write_bytes(b"not gzip")
    with pytest.raises(InputError, match="not a readable access log"):
        read_logs([tmp_path / "y.gz"])


def test_cli_fills_a_workload_and_writes_a_trace(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    _generate(tmp_path / "logs")
    result = run_cli("ingest", "access-log", str(tmp_path / "logs"), "--out", str(tmp_path / "w"), "--trace",
                     str(tmp_path / "t.csv"))  # fmt: skip
    assert result.code == 0, result.err
    assert "hot key 'hot/logo.png'" in result.out and (tmp_path / "w" / "media.yaml").is_file()
    assert sum(1 for _ in (tmp_path / "t.csv").open()) == 1 + 4020 + 505 + 100 + 50
    cur = Path(__file__).resolve().parents[2] / "fixtures" / "aws-cur-sample-anonymous.csv"
    assert run_cli("ingest", "cur", str(cur), "--out", str(tmp_path / "bill")).code == 0
    west = tmp_path / "bill" / "us-west-2.yaml"
    assert run_cli("ingest", "access-log", str(tmp_path / "logs"), "--into", str(west)).code == 0
    workload = load_workload(west)
    assert workload.storage.stored == 12_052_456_713 and workload.traffic.hot_objects is not None
    again = run_cli("ingest", "access-log", str(tmp_path / "logs"), "--out", str(tmp_path / "w"))
    assert again.code == 2 and "--force" in again.err


# Cloudflare Logpush http_requests records, hand-written in the dataset's own field names
# (https://developers.cloudflare.com/logs/reference/log-fields/zone/http_requests/): a custom
# domain in front of an R2 bucket. Timestamps in the three forms Logpush writes: RFC 3339, unix
# nanoseconds and unix seconds.
_CLOUDFLARE = [
    '{"ClientRequestHost":"media.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/photos/a%20b.jpg",'
    '"EdgeStartTimestamp":"2026-10-01T12:00:00Z","EdgeEndTimestamp":"2026-10-01T12:00:00.400Z",'
    '"EdgeResponseStatus":200,"EdgeResponseBytes":1000350,"EdgeResponseBodyBytes":1000000,"CacheCacheStatus":"miss"}',
    '{"ClientRequestHost":"media.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/photos/a%20b.jpg",'
    '"EdgeStartTimestamp":1790856000100000000,"EdgeEndTimestamp":1790856000700000000,'
    '"EdgeResponseStatus":206,"EdgeResponseBodyBytes":65536,"CacheCacheStatus":"miss"}',
    '{"ClientRequestHost":"media.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/photos/a%20b.jpg",'
    '"EdgeStartTimestamp":"2026-10-01T12:00:00.500Z","EdgeEndTimestamp":"2026-10-01T12:00:00.510Z",'
    '"EdgeResponseStatus":200,"EdgeResponseBodyBytes":1000000,"CacheCacheStatus":"hit"}',
    '{"ClientRequestHost":"media.example.com","ClientRequestMethod":"PUT","ClientRequestURI":"/photos/new.jpg",'
    '"EdgeStartTimestamp":1790856001,"EdgeResponseStatus":200,"EdgeResponseBodyBytes":0}',
    '{"ClientRequestHost":"media.example.com","ClientRequestMethod":"PUT",'
    '"ClientRequestURI":"/big.bin?partNumber=1&uploadId=u1","EdgeStartTimestamp":"2026-10-01T12:00:01Z",'
    '"EdgeEndTimestamp":"2026-10-01T12:00:02Z","EdgeResponseStatus":200,"EdgeResponseBodyBytes":0}',
    '{"ClientRequestHost":"media.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/?list-type=2",'
    '"EdgeStartTimestamp":"2026-10-01T12:00:03Z","EdgeEndTimestamp":"2026-10-01T12:00:03.050Z",'
    '"EdgeResponseStatus":200,"EdgeResponseBodyBytes":2048}',
    '{"ClientRequestHost":"media.example.com","ClientRequestMethod":"HEAD","ClientRequestURI":"/missing",'
    '"EdgeStartTimestamp":"2026-10-01T12:00:03Z","EdgeEndTimestamp":"2026-10-01T12:00:03.010Z",'
    '"EdgeResponseStatus":404,"EdgeResponseBodyBytes":0}',
]


def test_cloudflare_http_requests_map_to_operations_keys_bytes_and_ranges(tmp_path: Path) -> None:
    path = tmp_path / "http_requests.log.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(_CLOUDFLARE) + "\n")
    log = read_logs([path])
    assert log.formats == ["cloudflare-http"] and log.buckets == ["media.example.com"]
    # the cache hit never reached the bucket: 6 requests, not 7
    assert log.cached == 1
    assert log.requests == {"get": 2, "put": 1, "upload-part": 1, "list": 1, "head": 1}
    # the body bytes, not EdgeResponseBytes with its headers: 1,000,000 + 65,536; the 206 is the ranged GET
    assert log.get_bytes_sent == 1_065_536 and log.ranged_gets == 1
    assert log.errors == {"404": 1}
    # 1790856000 s is 2026-10-01T12:00:00Z: both GETs of the key in that second, 400 ms + 600 ms in
    # flight = 1.0 requests on average over the second (Little's law)
    hot = log.hot_keys[0]
    assert hot.key == "photos/a b.jpg" and hot.gets == 2 and hot.peak_per_s == 2
    assert hot.peak_in_flight == pytest.approx(1.0)
    assert log.start == dt.datetime(2026, 10, 1, 12, 0, tzinfo=dt.UTC) and log.peak_per_s == 2
    # the PUT logged in unix seconds without EdgeEndTimestamp has no turn-around time, but every GET has
    assert log.untimed_requests == 0 and not any(u.startswith("turn-around") for u in log.unavailable)
    assert any(u.startswith("object sizes") for u in log.unavailable)
    assert log.mean_object_bytes is None
    block = traffic_block(log)
    assert "Cloudflare Logpush http_requests of media.example.com" in block
    assert "the logs cannot give object sizes" in block and "1 requests answered from Cloudflare's cache" in block
    assert "about 1 in flight" in block


def test_a_json_line_of_another_dataset_is_a_counted_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "firewall.json"
    path.write_text(_CLOUDFLARE[0] + "\n" + '{"Action":"block","ClientIP":"192.0.2.1"}\n')
    log = read_logs([path])
    assert log.bad_lines == 1 and "neither http_requests" in log.first_bad[0] and log.requests == {"get": 1}


# R2 Data Access Logs events in the fields https://developers.cloudflare.com/r2/buckets/data-access-logs/
# lists, as exported JSON: nested objects, or dotted keys. 1790856000000 ms is 2026-10-01T12:00:00Z.
_R2 = [
    '{"$metadata":{"timestamp":1790856000000,"service":"media","namespace":"r2"},"action":"GetObject",'
    '"bucket":"media","interface":"S3","request":{"method":"GET","uri":"/media/v.mp4"},'
    '"response":{"bytes":1048576,"status":206},"resource":{"key":"v.mp4","type":"object","size":10485760}}',
    '{"$metadata.timestamp":1790856000250,"action":"GetObject","bucket":"media","interface":"Workers",'
    '"scriptName":"site","response.bytes":10485760,"resource.key":"v.mp4","resource.size":10485760}',
    '{"$metadata":{"timestamp":1790856001000},"action":"PutObject","bucket":"media","interface":"S3",'
    '"request":{"bytes":5000},"response":{"bytes":0,"status":200},"resource":{"key":"new.txt","size":5000}}',
    '{"$metadata":{"timestamp":1790856002000},"action":"ListObjectsV2","bucket":"media","prefix":"",'
    '"response":{"bytes":900,"status":200}}',
    '{"$metadata":{"timestamp":1790856002500},"action":"DeleteObjects","bucket":"media",'
    '"objects":["a","b"],"response":{"status":200}}',
]


def test_r2_data_access_logs_map_actions_keys_sizes_and_say_what_they_lack(
    run_cli: Callable[..., Result], tmp_path: Path
) -> None:
    logs = tmp_path / "r2"
    logs.mkdir()
    (logs / "events.json").write_text("\n".join(_R2) + "\n")
    log = read_logs([logs])
    assert log.formats == ["r2-data-access"] and log.buckets == ["media"]
    assert log.requests == {"get": 2, "put": 1, "list": 1, "delete": 1}
    # response.bytes of the GETs: 1 MiB (a range of the 10 MiB object) + 10 MiB; the Workers event has no status
    assert log.get_bytes_sent == 11 * 2**20 and log.ranged_gets == 1 and log.errors == {}
    assert log.mean_object_bytes == 10 * 2**20
    assert log.hot_keys[0].key == "v.mp4" and log.hot_keys[0].peak_per_s == 2
    # no turn-around times in these logs: the in-flight count is 0 and said to be unknown
    assert log.hot_keys[0].peak_in_flight == 0
    assert any(u.startswith("turn-around times (2 GETs") for u in log.unavailable)
    assert "an unknown number in flight" in traffic_block(log) and "peak_concurrency 1 is ASSUMED" in traffic_block(log)
    assert any("400 or above" in u for u in log.unavailable)
    out = tmp_path / "w"
    result = run_cli("ingest", "access-log", str(logs), "--out", str(out), "--trace", str(tmp_path / "t.csv"))
    assert result.code == 0, result.err
    assert "the logs cannot give turn-around times" in result.out
    text = (out / "media.yaml").read_text()
    assert "R2 Data Access Logs of media" in text
    # the logs say nothing of what is stored: the file is a draft that parses, and that commands refuse
    assert parse_workload(load_yaml((out / "media.yaml").read_text(), "media.yaml")).traffic.reads > 0
    with pytest.raises(InputError, match=r"storage\.stored: 0 B stored, but the traffic reads"):
        load_workload(out / "media.yaml")
    trace_rows = list(csv.DictReader((tmp_path / "t.csv").open()))
    assert [r["operation"] for r in trace_rows] == ["get", "get", "put", "list", "delete"]
    assert trace_rows[0]["ranged"] == "1" and trace_rows[1]["ranged"] == "0"


@pytest.mark.parametrize(("text", "kind"), [("- a\n- b\n", "a list"), ("42\n", "one value")])
def test_into_a_file_that_is_no_mapping_is_refused_as_such(
    run_cli: Callable[..., Result], tmp_path: Path, text: str, kind: str
) -> None:
    # its sections are replaced by name: the edited text had been reported as malformed YAML at a line of ours
    log = tmp_path / "a.log"
    log.write_text(AWS_EXAMPLE + "\n")
    into = tmp_path / "w.yaml"
    into.write_text(text)
    result = run_cli("ingest", "access-log", str(log), "--into", str(into))
    assert result.code == 2
    assert f"{into}: not a workload: its YAML is {kind}, not a mapping of sections" in result.err
