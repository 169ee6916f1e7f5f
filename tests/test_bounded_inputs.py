"""Every input read through one bounded reader (``planner.files``): special files, symlink loops,
compression bombs, endless lines, deep JSON and absurd numbers are one line naming the file and
the problem, never a hang, an out-of-memory or a traceback (issue 28, items 14, 16, 17, 18)."""

from __future__ import annotations

import bz2
import gzip
import json
import os
import sys
from pathlib import Path

import pytest

from planner.cli import main
from planner.errors import InputError
from planner.files import load_json, open_stream, read_input_text, text_lines
from planner.ingest.accesslog import read_logs
from planner.ingest.inventory import read_inventory
from planner.ingest.rows import read_rows
from planner.pricing import catalog
from planner.sim.front.trace import read_trace

HEADER = "time_s,operation,key,bytes_sent,object_size\n"


def _cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["planner", *args])
    try:
        main()
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    return code, capsys.readouterr().err


def _gzip_bomb(path: Path, line: bytes = b"\0" * (16 << 20)) -> Path:
    """About 4 MB of gzip members that unpack to 4 GiB (each member packs 16 MiB ~1,000 times)."""
    member = gzip.compress(line, 9)
    with path.open("wb") as handle:
        for _ in range(max(1, (4 << 20) // len(member))):
            handle.write(member)
    return path


# -- special files, symlink loops, folders -------------------------------------------------------


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.log"
    os.mkfifo(path)
    return path


def test_a_fifo_is_refused_before_anything_blocks_on_it(fifo: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_logs([fifo])
    assert str(caught.value) == f"{fifo}: not a regular file (a device, FIFO or socket), so not a readable access log"
    with pytest.raises(InputError, match="not a regular file"):
        read_trace(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        list(read_rows(fifo))


def test_dev_zero_is_refused_by_ingest_access_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, err = _cli(monkeypatch, capsys, "ingest", "access-log", "/dev/zero", "--out", str(tmp_path / "w"))
    assert (code, err) == (
        2,
        "planner: /dev/zero: not a regular file (a device, FIFO or socket), so not an access log\n",
    )


def test_a_symlink_loop_is_named_as_one_not_as_a_missing_file(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(InputError) as caught:
        read_input_text(tmp_path / "a", what="workload file", limit_bytes=100)
    assert str(caught.value) == f"{tmp_path / 'a'}: symlink loop (a symbolic link that leads back to itself)"
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError, match=r"dangling: a symbolic link to a file that does not exist$"):
        read_trace(tmp_path / "dangling")


# -- compression bombs and endless lines ---------------------------------------------------------


def test_a_gzip_bomb_of_one_endless_line_stops_at_the_line_limit(tmp_path: Path) -> None:
    bomb = _gzip_bomb(tmp_path / "bomb.log.gz")
    assert bomb.stat().st_size < 5 << 20
    with pytest.raises(InputError) as caught:
        read_logs([bomb])
    assert str(caught.value) == f"{bomb}: line 1 is longer than 1,048,576 bytes (is it a readable access log?)"
    with pytest.raises(InputError, match="line 1 is longer than 1,048,576 bytes"):
        list(read_rows(bomb))
    with pytest.raises(InputError, match="line 1 is longer than 1,048,576 bytes"):
        read_inventory([bomb], schema="Bucket, Key, Size")


def test_a_bomb_of_short_lines_stops_at_the_decompressed_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("planner.files.DECOMPRESSED_FLOOR_BYTES", 8 << 20)  # the cap, scaled down for speed
    bomb = tmp_path / "blank.log.bz2"
    bomb.write_bytes(bz2.compress((b" " * 1023 + b"\n") * (64 << 10), 9))  # 64 MiB of blank lines
    assert bomb.stat().st_size < 10_000
    with pytest.raises(InputError) as caught:
        read_logs([bomb])
    assert str(caught.value) == (
        f"{bomb}: decompresses to more than 8 MiB (100 times its size or more: a compression bomb?);"
        " if it is real, decompress it first"
    )


def test_a_gzip_of_nothing_but_line_ends_stops_after_100000_of_them(tmp_path: Path) -> None:
    # 64 MiB of "\n" (64 M empty lines) in a few KiB: every reader refuses at the 100,001st, not after reading
    # the decompressed cap line by line (minutes of CPU); a reader's line numbers stay the file's.
    bomb = tmp_path / "newlines.csv.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        for _ in range(64):
            out.write(b"\n" * (1 << 20))
    assert bomb.stat().st_size < 100_000
    said = "line 100,001 ends a run of more than 100,000 empty lines"
    with pytest.raises(InputError, match=f"^{bomb}: {said} \\(is it a readable access log\\?\\)$"):
        read_logs([bomb])
    with pytest.raises(InputError, match=said):
        list(read_rows(bomb))
    with pytest.raises(InputError, match=said):
        read_inventory([bomb], schema="Bucket, Key, Size")
    trace = tmp_path / "trace.csv.gz"
    with gzip.open(trace, "wb") as out:
        out.write(b"time_s,operation,key,bytes_sent,object_size\n0,get,k,1,1\n" + b"\r\n" * 200_000)
    # a trace is read by pyarrow's CSV reader where it is installed (blank lines skipped at C speed: the one
    # request is read), else line by line (refused at the run's 100,001st line)
    try:
        arrivals, _ = read_trace(trace)
    except InputError as error:
        assert "line 100,003 ends a run of more than 100,000 empty lines" in str(error)
    else:
        assert arrivals.requests == 1


def test_a_log_of_millions_of_tiny_unreadable_rows_stops_after_100000(tmp_path: Path) -> None:
    # 16 M rows of "a" in a small gzip: refused at the 100,001st unreadable line, not parsed to the end
    bomb = tmp_path / "rows.log.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as out:
        for _ in range(16):
            out.write(b"a\n" * (1 << 20))
    with pytest.raises(InputError, match=r"rows.log.gz:100001: 100,000 lines read and not one request among them"):
        read_logs([bomb])


def test_empty_lines_short_of_the_run_still_read(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("time_s,operation,key,bytes_sent,object_size\n" + "\n" * 100_000 + "0,get,k,1,1\n")
    with open_stream(path, what="CSV trace") as raw:
        lines = list(text_lines(raw, source=str(path), what="CSV trace"))
    assert len(lines) == 100_002 and lines[-1] == "0,get,k,1,1\n"


def test_a_name_that_promises_gzip_must_hold_gzip(tmp_path: Path) -> None:
    path = tmp_path / "logs.gz"
    path.write_bytes(b"not gzip")
    with pytest.raises(InputError) as caught:
        read_logs([path])
    assert str(caught.value) == f"{path}: not a readable access log (its name says gzip, but it is not gzip data)"


def test_compressed_input_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "trace.csv.bz2"  # compression is known by its bytes, whatever the reader
    path.write_bytes(bz2.compress((HEADER + "0,get,a,10,0\n1,put,b,0,20\n").encode()))
    arrivals, _ = read_trace(path)
    assert arrivals.sizes == (10, 20) and arrivals.times_s == (0.0, 1.0)


# -- traces: a byte-order mark, and numbers that are no time or size ----------------------------


def test_a_spreadsheet_saved_trace_with_a_byte_order_mark_reads(tmp_path: Path) -> None:
    path = tmp_path / "saved.csv"
    path.write_bytes(b"\xef\xbb\xbf" + (HEADER + "0,get,a,10,0\r\n2,get,a,10,0\r\n").encode())
    arrivals, _ = read_trace(path)
    assert arrivals.times_s == (0.0, 2.0) and arrivals.keys[0] == arrivals.keys[1]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("nan,get,a,1,0", "line 2: time_s 'nan' is not a time within 10^12 s of 0"),
        ("inf,get,a,1,0", "line 2: time_s 'inf' is not a time within 10^12 s of 0"),
        ("1e30,get,a,1,0", "line 2: time_s '1e30' is not a time within 10^12 s of 0"),
        ("0,get,a,-5,0", "line 2: bytes_sent '-5' is negative: a byte count is 0 or more"),
        (
            "0,put,a,0," + "1" + "0" * 30,
            "line 2: object_size '10000000000000000000'... is not a byte count from 0 to 5 TiB",
        ),
        ("0,get,a,1e3,0", "line 2: bytes_sent '1e3' is not a whole number of bytes"),
        ("soon,get,a,1,0", "line 2: time_s 'soon' is not a number of seconds"),
    ],
)
def test_trace_numbers_out_of_range_name_the_field(tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(HEADER + row + "\n")
    with pytest.raises(InputError) as caught:
        read_trace(path)
    assert str(caught.value) == f"{path}: {message}"


# -- JSON: depth, numbers, shapes ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "not an AWS offer file: nested more than 64 deep"),
        ("[" * 65 + "]" * 65, "not an AWS offer file: nested more than 64 deep"),
        ('{"price": 1e309}', "not an AWS offer file: the number 1e309 is out of range"),
        ('{"price": NaN}', "not an AWS offer file: NaN is not a JSON number"),
        ('{"count": ' + "9" * 5000 + "}", "not an AWS offer file: a number of 5,000 digits (at most 100)"),
        ('{"a": ', "not JSON: Expecting value at line 1"),
    ],
)
def test_json_inputs_are_bounded(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "offer.json"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_json(path, what="AWS offer file", limit_bytes=1 << 20)
    assert str(caught.value) == f"{path}: {message}"


def test_pricing_import_refuses_a_deeply_nested_offer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    offer = tmp_path / "offer.json"
    offer.write_text('{"products": ' + "[" * 50_000 + "]" * 50_000 + "}")
    code, err = _cli(monkeypatch, capsys, "pricing", "import", "aws", str(offer), "--out", str(tmp_path / "t"))
    assert (code, err) == (2, f"planner: {offer}: not an AWS offer file: nested more than 64 deep\n")


def test_a_manifest_whose_files_is_not_a_list(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"fileFormat": "CSV", "fileSchema": "Bucket, Key, Size", "files": "data.csv"}))
    with pytest.raises(InputError) as caught:
        read_inventory([manifest])
    assert str(caught.value) == f"{manifest}: files: files must be a list of data files, not str"
    manifest.write_text('{"fileFormat": "CSV", "files": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(InputError, match=r"manifest\.json: not an inventory manifest: nested more than 64 deep$"):
        read_inventory([manifest])


def test_log_lines_deeply_nested_or_out_of_range_are_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "r2.log"
    good = '{"action": "GetObject", "$metadata": {"timestamp": 1700000000000}, "bucket": "b"}'
    path.write_text(
        '{"action": "GetObject", "$metadata": {"timestamp": 1e300}, "bucket": "b"}\n'
        + '{"a": ' * 5000
        + "1"
        + "}" * 5000
        + "\n"
        + good
        + "\n"
    )
    log = read_logs([path])
    assert log.bad_lines == 2 and sum(log.requests.values()) == 1
    assert log.first_bad == [
        "r2.log:1: $metadata.timestamp 1e+297 s is not a time between the years 1 and 9999",
        "r2.log:2: nested more than 64 deep",
    ]


def test_text_lines_refuses_text_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_bytes(b"a,b\n\xff\xfe\n")
    with open_stream(path, what="CSV export") as raw, pytest.raises(InputError) as caught:
        list(text_lines(raw, source=str(path), what="CSV export"))
    assert str(caught.value) == f"{path}: not a CSV export: line 2 is not UTF-8 text (byte 0 cannot be decoded)"


# -- price-table folders (PLANNER_PRICE_TABLES) --------------------------------------------------


@pytest.fixture
def tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tables" / "acme"
    folder.mkdir(parents=True)
    monkeypatch.setenv(catalog.TABLES_ENV, str(tmp_path / "tables"))
    catalog._load_all.cache_clear()
    yield folder
    catalog._load_all.cache_clear()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: os.mkfifo(p), "not a regular file (a device, FIFO or socket), so not a price table"),
        (lambda p: p.symlink_to("/dev/zero"), "not a regular file (a device, FIFO or socket), so not a price table"),
        (lambda p: p.mkdir(), "is a directory, not a price table"),
        (lambda p: p.write_bytes(b"\x00\x01binary"), "not a text file (it contains NUL bytes)"),
        (
            lambda p: p.write_text("x: 1\n" * 9_000_000),
            "larger than the 1 MiB a price table may be (is it the right file?)",
        ),
    ],
)
def test_a_bad_file_in_a_price_table_folder_is_one_line(tables: Path, make: object, message: str) -> None:
    path = tables / "2026-01-01.yaml"
    make(path)  # type: ignore[operator]
    with pytest.raises(InputError) as caught:
        catalog.providers()
    assert str(caught.value) == f"{path}: {message}"


def test_a_replay_longer_than_fits_in_2_gb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(HEADER + "".join(f"{i},get,k,1,0\n" for i in range(4)))
    with pytest.raises(InputError) as caught:
        read_trace(path, limit=3)  # 5 million, scaled down
    assert str(caught.value) == (
        f"{path}: line 5: more than 3 requests, the most one machine replays (one replication's limit): give --dask"
        " SCHEDULER to replay it in time windows on a cluster"
    )


# -- absurd numbers in bills, offers and options -------------------------------------------------

CUR = Path(__file__).parent / "fixtures" / "aws-cur-sample-anonymous.csv"


def _cur_with_storage_amount(tmp_path: Path, amount: str) -> tuple[Path, int]:
    """The sample bill with one S3 storage row's UsageAmount replaced; the file and that row's line."""
    import csv

    rows = list(csv.reader(CUR.open(newline="")))
    header = rows[0]
    usage, kind = header.index("lineItem/UsageAmount"), header.index("lineItem/UsageType")
    line = next(
        i
        for i, r in enumerate(rows)
        if i and "TimedStorage" in r[kind] and r[header.index("lineItem/ProductCode")] == "AmazonS3"
    )
    rows[line][usage] = amount
    path = tmp_path / "cur.csv"
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path, line + 1


@pytest.mark.parametrize("amount", ["1e309", "NaN", "1e30"])
def test_a_bill_amount_past_any_real_one_refuses_the_bill_naming_line_and_column(tmp_path: Path, amount: str) -> None:
    """Skipping the row would leave a workload short of usage the bill says it had: refused instead."""
    from planner.ingest import read_bill

    path, line = _cur_with_storage_amount(tmp_path, amount)
    with pytest.raises(InputError) as raised:
        read_bill([path])
    assert str(raised.value) == (
        f"{path}: line {line}, column lineItem/UsageAmount: {amount!r} is not a finite number below 10^18"
    )


def test_a_bill_amount_that_is_no_number_is_a_bad_row_naming_the_column(tmp_path: Path) -> None:
    from planner.ingest import read_bill

    path, line = _cur_with_storage_amount(tmp_path, "9" * 5000)
    bill = read_bill([path])
    assert bill.bad_rows == 1
    reason = "lineItem/UsageAmount '99999999999999999999'... is not a number (over 60 characters)"
    assert [(b.where, b.reason) for b in bill.first_bad] == [(f"{path}:{line}", reason)]


@pytest.fixture
def offers() -> Path:
    return Path(__file__).parent / "pricing" / "fixtures"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"pricePerUnit": "0.023"}, "TimedStorage-ByteHrs: pricePerUnit must be a mapping of currencies to prices"),
        ({"pricePerUnit": {"USD": "1e309"}}, "'1e309' is not a price or a range bound (0 to 10^15)"),
        ({"pricePerUnit": {"USD": "1e30"}}, "'1e30' is not a price or a range bound (0 to 10^15)"),
        ({"pricePerUnit": {"USD": "9" * 5000}}, "'" + "9" * 29 + "... is not a number"),
    ],
)
def test_offer_prices_that_are_no_price_are_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    offers: Path,
    change: dict[str, object],
    message: str,
) -> None:
    offer = json.loads((offers / "aws-offer-s3.json").read_text())
    sku = next(iter(offer["terms"]["OnDemand"]))
    term = next(iter(offer["terms"]["OnDemand"][sku].values()))
    next(iter(term["priceDimensions"].values())).update(change)
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(offer))
    transfer = str(offers / "aws-offer-datatransfer.json")
    code, err = _cli(
        monkeypatch, capsys, "pricing", "import", "aws", str(path), "--transfer", transfer, "--out", str(tmp_path / "t")
    )
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"planner: {path}: terms.OnDemand."), err
    assert err.rstrip("\n").endswith(message), err
    assert not (tmp_path / "t").exists()


def test_a_5000_digit_vary_count_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    workload = str(Path(__file__).parents[1] / "examples" / "web-assets.yaml")
    code, err = _cli(monkeypatch, capsys, "sweep", workload, "--vary", "traffic.reads=1M..3M:" + "9" * 5000)
    assert (code, err) == (2, "planner: --vary: traffic.reads: a 5,000-digit number points; give 2 to 201\n")


def test_a_bill_of_more_buckets_than_fit_in_2_gb_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner.ingest import read_bill

    monkeypatch.setattr("planner.ingest.bill.MAX_GROUPS", 5)  # 200,000, scaled down
    with pytest.raises(InputError) as caught:
        read_bill([CUR])
    assert str(caught.value) == (
        f"{CUR}: more than 5 usage groups (a bucket or region's usage types), the most a bill is read into at once"
        " within 2 GB of memory: read part of it with --bucket or --region (ingest cur without --reconcile or"
        " --format json reads any number, in parts)"
    )


def _s3_line(stamp: str) -> str:
    return (
        f"owner media [{stamp}] 192.0.2.9 arn:aws:iam::1:user/app REQ1 REST.GET.OBJECT k"
        ' "GET /media/k HTTP/1.1" 200 - 10 10 5 3 "-" "agent" - HOSTID SigV4 TLS AuthHeader media.s3 TLSv1.3 - -'
    )


def test_log_times_outside_the_years_1_to_9999_are_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "s3.log"
    lines = ["01/Jan/0001:00:30:00 +0100", "31/Dec/9999:23:30:00 -0100", "06/Feb/2019:00:00:38 +0000"]
    path.write_text("\n".join(_s3_line(stamp) for stamp in lines) + "\n")
    log = read_logs([path])
    assert log.bad_lines == 2 and log.requests == {"get": 1}
    assert log.first_bad == ["s3.log:1: date value out of range", "s3.log:2: date value out of range"]
