"""The workload model: units, derived quantities and the compile into billing units."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest

from planner.costing import estimate_cost, project_costs
from planner.errors import InputError
from planner.workload import load_workload, parse_workload
from pricing import catalog

from .conftest import EXAMPLES

NOW = dt.date(2026, 12, 1)
TB = 10**12
TIB = 2**40


def minimal(**storage: object) -> dict[str, object]:
    return {"name": "w", "storage": {"stored": "10 TB", "object_size": "8 MB", **storage}}


def test_units_are_exact() -> None:
    workload = parse_workload(minimal(stored="1.5 TiB", growth_per_month="5 GiB", retention="30d"))
    assert workload.storage.stored == 3 * 2**39
    assert workload.storage.growth_per_month == 5 * 2**30
    assert workload.storage.retention == 30 * 86400


def test_multipart_uploads_bill_as_parts() -> None:
    workload = load_workload(EXAMPLES / "video-streaming.yaml")
    usage = workload.usage_for("standard", catalog.table_for("aws-s3", NOW).limits)
    # 3,000 uploads of 8 GB at 100 MB parts: 80 parts each, plus create and complete.
    assert usage.requests["upload-part"] == 240_000
    assert usage.requests["create-multipart"] == usage.requests["complete-multipart"] == 3000
    assert "put" not in usage.requests


def test_part_size_grows_to_fit_the_part_limit() -> None:
    # 2 TB objects at 100 MB parts would need 20,000 parts; the 10,000-part limit forces 200 MB parts.
    workload = parse_workload(minimal(object_size="2 TB"))
    assert workload.parts_per_upload(2 * TB, catalog.table_for("aws-s3", NOW).limits) == 10_000


def test_objects_above_the_single_put_limit_must_be_multipart() -> None:
    data = minimal(object_size="6 GiB")
    data["client"] = {"multipart_threshold": "1 TB", "part_size": "1 GiB"}
    workload = parse_workload(data)
    assert workload.parts_per_upload(6 * 2**30, catalog.table_for("aws-s3", NOW).limits) == 6


def test_retention_turns_over_the_stored_volume() -> None:
    workload = load_workload(EXAMPLES / "pipeline-scratch.yaml")
    usage = workload.usage_for("standard", catalog.table_for("wasabi", NOW).limits)
    (deletion,) = usage.deletions
    # 20 TB living 7 days turns over 30/7 times a month.
    assert deletion.bytes == round(20 * TB * 30 / 7)
    assert deletion.age_days == 7


def test_reads_follow_egress_when_not_given() -> None:
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    assert workload.reads_per_month() == 190_734_864  # ceil(50 TB / 256 KiB)


def test_read_write_ratio() -> None:
    data = minimal()
    data["traffic"] = {"reads": 1000, "read_write_ratio": "10:1"}
    assert parse_workload(data).writes_per_month() == 100


def test_parallel_ranged_gets_are_billed_requests() -> None:
    data = minimal(object_size="512 MiB")
    data["traffic"] = {"reads": 1000}
    data["client"] = {"read_streams": 8, "range_size": "64 MiB"}
    usage = parse_workload(data).usage_for("standard", catalog.table_for("aws-s3", NOW).limits)
    assert usage.requests["get"] == 8000


# Hand-computed totals for three examples (prices in force on 2026-12-01).


def test_video_streaming_on_s3_standard() -> None:
    workload = load_workload(EXAMPLES / "video-streaming.yaml")
    bill = estimate_cost(workload, "aws-s3", "standard", as_of=NOW)
    storage = Decimal(50_000) * Decimal("0.023") + Decimal(150_000) * Decimal("0.022")  # 200 TB
    egress = Decimal(900 + 3400 + 7000) + Decimal(49_900) * Decimal("0.05")  # 200 TB after 100 GB free
    requests = Decimal(246) * Decimal("0.005") + Decimal(30) * Decimal("0.0004")  # 246k parts+create+complete, 30k GET
    assert bill.total_usd == storage + egress + requests == Decimal("18246.242")


def test_video_streaming_on_r2_and_b2() -> None:
    workload = load_workload(EXAMPLES / "video-streaming.yaml")
    # R2: 199,990 GB-month after 10 free at $0.015; 246k Class A and 30k Class B inside the free tier.
    assert estimate_cost(workload, "cloudflare-r2", as_of=NOW).total_usd == Decimal("2999.85")
    # B2: 199.99 TB at $6.95; 200 TB egress inside 3x stored.
    assert estimate_cost(workload, "backblaze-b2", as_of=NOW).total_usd == Decimal("1389.9305")


def test_web_assets_on_r2_standard() -> None:
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    # 4,990 GB-month x 0.015; Class B: 190,734,864 GET + 5,000,000 HEAD - 10M free, rounded up to 186 M x 0.36;
    # Class A: 800,000 PUT inside the 1 M free.
    assert estimate_cost(workload, "cloudflare-r2", as_of=NOW).total_usd == Decimal("74.85") + Decimal("66.96")


def test_pipeline_scratch_on_wasabi_pays_90_days_per_object() -> None:
    workload = load_workload(EXAMPLES / "pipeline-scratch.yaml")
    bill = estimate_cost(workload, "wasabi", as_of=NOW)
    price = Decimal("7.99")
    deleted = Decimal(round(20 * TB * 30 / 7))
    expected_early = deleted / TIB * Decimal(83) / 30 * price
    early = bill.by_category()["early_deletion"]
    assert early.quantize(Decimal("1e-9")) == expected_early.quantize(Decimal("1e-9"))
    assert bill.by_category()["storage"] == Decimal(20 * TB) / TIB * price


def test_projection_prices_each_month_with_its_table() -> None:
    # Starting 2026-05-15 the Wasabi rise of 2026-07-01 lands in month 3.
    workload = parse_workload(minimal(stored="10 TiB"))
    projection = project_costs(workload, "wasabi", months=3, as_of=dt.date(2026, 5, 15))
    versions = [m.cost.table_version for m in projection.months]
    assert versions == ["wasabi@2023-07-31", "wasabi@2023-07-31", "wasabi@2026-07-01"]
    assert projection.total_usd == Decimal("69.9") * 2 + Decimal("79.9")


def test_growth_raises_stored_volume_each_month() -> None:
    workload = parse_workload(minimal(stored="50 TB", growth_per_month="1 TB"))
    projection = project_costs(workload, "aws-s3", months=2, as_of=NOW)
    # Month 2 holds 51 TB: 50,000 x 0.023 + 1,000 x 0.022; growth is 125,000 PUTs of 8 MB at $0.005/1k.
    assert projection.months[1].cost.total_usd == Decimal("1172") + Decimal("0.625")


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"name": "w"}, "storage", "required but missing"),
        (minimal(stored="10 parsecs"), "storage.stored", "unknown size unit 'parsecs'"),
        (minimal(stored="-5 TB"), "storage.stored", "negative"),
        (minimal(stored=200), "storage.stored", "has no unit"),
        (minimal(stored="1e30 TB"), "storage.stored", "beyond any real workload"),
        (minimal(stored=".nan TB"), "storage.stored", "not a size"),
        (minimal(retention="30 parsecs"), "storage.retention", "unknown duration unit"),
        ({**minimal(), "bogus": 1}, "bogus", "unknown key"),
        ({**minimal(), "constraints": {"providers": ["s4"]}}, "constraints.providers", "unknown provider 's4'"),
        ({**minimal(), "client": {"link": "10 parsecs"}}, "client.link", "unknown rate unit"),
        ({**minimal(), "traffic": {"read_write_ratio": "lots"}}, "traffic.read_write_ratio", "not a ratio"),
        ({"name": "w", "storage": {"stored": "1 TB"}}, "storage", "give one of object_size"),
        ({**minimal(), "traffic": {"reads": -1}}, "traffic.reads", "greater than or equal to 0"),
        ({**minimal(), "traffic": {"reads": "many"}}, "traffic.reads", "'many' is not a number"),
    ],
)
def test_bad_workloads_name_the_field(data: dict[str, object], field: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_workload(data, source="w.yaml")
    assert caught.value.field == field
    assert message in caught.value.problem


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"name: [unclosed\n", "malformed YAML"),
        (b"- a\n- b\n", "must be a mapping"),
        (b"\x00\x01binary", "not a text file"),
        (b"\xff\xfe", "not UTF-8"),
        (b"!!python/object:os.system {}\n", "malformed YAML"),
    ],
)
def test_bad_workload_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "w.yaml"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        load_workload(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_workload(tmp_path / "absent.yaml")
