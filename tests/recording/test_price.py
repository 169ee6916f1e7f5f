"""A recorded mix billed at each provider, checked by hand against the cases users reported."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.pricing.usage import Usage
from planner.recording.price import OperationShare, dominant_sentence, price_mix
from planner.recording.session import REQUEST_COLUMNS, OperationCount, Recording, load_recording
from planner.workload.tools import profiles

GIB = 2**30


def _recording(counts: list[OperationCount], per: str = "month", times: int = 1) -> Recording:
    return Recording(
        command=["tool"],
        endpoint="local SeaweedFS",
        started=dt.datetime(2026, 12, 5, tzinfo=dt.UTC),
        duration_s=1.0,
        exit_code=0,
        partial=False,
        per=per,  # type: ignore[arg-type]
        times=times,
        requests=sum(c.count for c in counts),
        counts=counts,
        stored_object_sizes=[],
    )


def _requests_usd(provider: str, day: dt.date, requests: dict[str, int], request_days: int | None) -> Decimal:
    table = catalog.table_for(provider, day)
    breakdown = bill(table, "standard", Usage(requests=requests, request_days=request_days), as_of=day)
    return sum((li.amount_usd for li in breakdown.line_items if li.category == "requests"), Decimal(0))


def test_restic_524_first_backup_packs_cost_cents_where_a_put_per_file_costs_dollars() -> None:
    # restic#524: a first backup of 1.4 M items, 296.147 GiB. restic writes 16 MiB packs:
    # 296.147 x 1024 / 16 = 18,953.4 pack PUTs, plus the lock, the snapshot and about 6 index files.
    first = profiles()["restic"].requests("first", 1_405_271, 1_405_271, int(Decimal("296.147") * GIB))
    assert first["put"] == 18_961
    # AWS S3 Standard: "PUT, COPY, POST, LIST requests (per 1,000 requests) $0.005":
    # (18,961 PUT + 4 LIST) x $0.005 / 1,000 = $0.094825 -> $0.09 on the invoice
    day = dt.date(2026, 12, 5)
    packs = _requests_usd("aws-s3", day, {"put": first["put"], "list": first["list"]}, 1)
    assert packs == Decimal("0.09")
    # one PUT per item: 1,405,271 x $0.005 / 1,000 = $7.026355 -> $7.03
    assert _requests_usd("aws-s3", day, {"put": 1_405_271}, 1) == Decimal("7.03")


def test_rclone_4269_class_b_on_b2_cost_ten_cents_then_and_nothing_now() -> None:
    # rclone#4269: 252,098 Class B transactions in one run. The rclone-sync profile's first run makes one
    # HEAD after each upload and one HEAD (a 404) of the destination: files = 252,097 gives 252,098.
    first = profiles()["rclone-sync"].requests("first", 252_097, 252_097, 47 * 10**9)
    assert first["head"] == 252_098
    # B2 then (2023-10-03 table): Class B "$0.004 per 10,000", "first 2,500 free each day"; one day of requests:
    # (252,098 - 2,500) x $0.004 / 10,000 = $0.0998392 -> $0.10
    assert _requests_usd("backblaze-b2", dt.date(2024, 1, 1), {"head": 252_098}, 1) == Decimal("0.10")
    # B2's 2026-05-01 table bills Class B and C transactions nothing
    assert _requests_usd("backblaze-b2", dt.date(2026, 6, 1), {"head": 252_098}, 1) == Decimal("0.00")


def test_a_daily_free_allowance_counts_only_the_days_with_requests() -> None:
    # the same 252,098 HEADs spread over a month of daily runs take 30 days of 2,500 free:
    # (252,098 - 75,000) x $0.004 / 10,000 = $0.0708392 -> $0.07
    assert _requests_usd("backblaze-b2", dt.date(2024, 1, 1), {"head": 252_098}, None) == Decimal("0.07")


def test_a_mix_is_ranked_by_its_requests_and_names_the_operation_that_dominates() -> None:
    heads = OperationCount(
        s3_operation="HeadObject", operation="head", status=200, count=1_400_000, bytes_in=0, bytes_out=0
    )
    puts = OperationCount(
        s3_operation="PutObject", operation="put", status=200, count=1_000, bytes_in=10**6, bytes_out=0
    )
    mix = price_mix(_recording([heads, puts]), ["aws-s3", "cloudflare-r2"], as_of=dt.date(2026, 12, 5))
    aws = next(m for m in mix.by_requests if m.provider == "aws-s3")
    # S3: 1,400,000 HEAD x $0.0004 / 1,000 = $0.56; 1,000 PUT x $0.005 / 1,000 = $0.005 -> $0.01 (rounded line)
    assert aws.requests_usd == Decimal("0.57")
    top = aws.operations[0]
    assert (top.operation, top.requests) == ("head", 1_400_000)
    assert aws.sentence.startswith("99 % of the request cost at aws-s3 ($0.56 of $0.57 a month) is 1,400,000 head")
    assert [m.provider for m in mix.by_requests] == ["cloudflare-r2", "aws-s3"]  # R2: 10 M Class B free a month


def test_the_dominant_sentence_states_its_own_figures() -> None:
    share = OperationShare(
        operation="head",
        s3_operations={"HeadObject": 10},
        requests=10,
        amount_usd=Decimal("0.78"),
        share=Decimal("0.78"),
    )
    assert dominant_sentence("x", Decimal("1.00"), share) == (
        "78 % of the request cost at x ($0.78 of $1.00 a month) is 10 head requests (HeadObject 10)"
    )
    assert dominant_sentence("x", Decimal(0), None) == "requests cost nothing at x this month"


def test_a_daily_run_stands_for_the_month_of_runs() -> None:
    puts = OperationCount(s3_operation="PutObject", operation="put", status=200, count=100, bytes_in=0, bytes_out=0)
    recording = _recording([puts], per="day", times=2)
    # 730 hours / 24 = 30.4167 days; twice a day: 60.833 runs; 100 PUTs each = 6,083 PUTs a month
    assert recording.monthly() == {"put": 6_083}


def test_a_requests_csv_is_read_back_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "requests.csv"
    header = ",".join(REQUEST_COLUMNS) + "\n"
    ok = "0.1,GET,GetObject,get,200,0,10,10,b,k,0,0,0,0.01\n"
    path.write_text(header + ok + "0.2,GET,GetObject,get,503,0,0,0,b,k,0,0,0,0.01\n")
    recording = load_recording(path)
    assert [(c.status, c.count) for c in recording.counts] == [(200, 1), (503, 1)]
    path.write_text(header + "0.1,GET,GetObject,fetch,200,0,10,10,b,k,0,0,0,0.01\n")
    with pytest.raises(InputError) as caught:
        load_recording(path)
    assert str(caught.value) == f"{path}:2: operation: unknown operation 'fetch'"
