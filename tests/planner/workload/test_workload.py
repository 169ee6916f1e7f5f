"""The workload model: units, derived quantities and the compile into billing units."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from pydantic import ValidationError

from planner.costing.bills import estimate_cost, project_costs
from planner.errors import InputError
from planner.pricing import catalog
from planner.workload import (
    Catalog,
    Correlation,
    Uncertain,
    Workload,
    at,
    load_workload,
    parse_workload,
    shipped_catalog,
    with_catalog,
)
from tests.planner.conftest import EXAMPLES, Result

NOW = dt.date(2026, 12, 1)
TB = 10**12
CENT = Decimal("0.01")
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
    # AWS bills GB of 2**30 bytes (S3 FAQ): 200 TB is 186,264.514923095703125 GB.
    gb = Decimal(200 * TB) / 2**30
    storage = [Decimal("1177.60"), ((gb - 51_200) * Decimal("0.022")).quantize(CENT)]  # 51,200 GB, then 0.022
    assert storage[1] == Decimal("2971.42")
    # Egress after the free 100 GB: 10,240 x 0.09, 40,960 x 0.085, 102,400 x 0.07, the rest at 0.05.
    rest = ((gb - 100 - 153_600) * Decimal("0.05")).quantize(CENT)
    egress = [Decimal("921.60"), Decimal("3481.60"), Decimal("7168.00"), rest]
    assert rest == Decimal("1628.23")
    # 246k parts+create+complete at $0.005/1k = $1.23; 30k GET at $0.0004/1k = $0.012, a line of $0.01.
    requests = [Decimal("1.23"), Decimal("0.01")]
    assert bill.total_usd == sum(storage + egress + requests) == Decimal("17349.69")


def test_video_streaming_on_r2_and_b2() -> None:
    workload = load_workload(EXAMPLES / "video-streaming.yaml")
    # R2: 199,990 GB-month after 10 free at $0.015; 246k Class A and 30k Class B inside the free tier.
    assert estimate_cost(workload, "cloudflare-r2", as_of=NOW).total_usd == Decimal("2999.85")
    # B2: 199.99 TB at $6.95 = $1,389.9305, a line of $1,389.93; 200 TB egress inside 3x stored.
    assert estimate_cost(workload, "backblaze-b2", as_of=NOW).total_usd == Decimal("1389.93")


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
    early = sum((i.amount_unrounded_usd or 0 for i in bill.line_items if i.category == "early_deletion"), Decimal(0))
    assert early.quantize(Decimal("1e-9")) == expected_early.quantize(Decimal("1e-9"))
    assert bill.by_category()["early_deletion"] == expected_early.quantize(CENT, rounding=ROUND_HALF_UP)
    assert bill.by_category()["storage"] == (Decimal(20 * TB) / TIB * price).quantize(CENT, rounding=ROUND_HALF_UP)


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
    # Month 2 holds 51 TB = 47,497.45 GB of 2**30 bytes, all in the first tier at 0.023 ($1,092.44);
    # growth is 125,000 PUTs of 8 MB at $0.005/1k ($0.625, a line of $0.63).
    assert projection.months[1].cost.total_usd == Decimal("1092.44") + Decimal("0.63")
    # The projection's total is the sum of its months as shown.
    assert projection.total_usd == sum(m.cost.total_usd for m in projection.months)


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
        ({**minimal(), "traffic": {"reads": "many"}}, "traffic.reads", "'many' is not a count"),
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


def test_unread_data_prices_intelligent_tiering_across_its_tiers() -> None:
    # 10 TiB in 1 GiB objects, never read: after 90 days every object sits in Archive Instant:
    # 10,240 GB x $0.004 = $40.96, + monitoring of 10,240 objects at $0.0025/1k = $0.0256 -> $0.03.
    cold = parse_workload(minimal(stored="10 TiB", object_size="1 GiB", unread={"30d": "100%", "90d": "100%"}))
    assert estimate_cost(cold, "aws-s3", "intelligent-tiering", as_of=NOW).total_usd == Decimal("40.99")
    # Without the field all of it is priced as Frequent Access: 10,240 x $0.023 = $235.52, + $0.03.
    unknown = parse_workload(minimal(stored="10 TiB", object_size="1 GiB"))
    assert estimate_cost(unknown, "aws-s3", "intelligent-tiering", as_of=NOW).total_usd == Decimal("235.55")
    # Standard-IA is not moved by it: 10,240 x $0.0125.
    assert estimate_cost(cold, "aws-s3", "standard-ia", as_of=NOW).total_usd == Decimal("128.00")


def test_discount_and_bucket_count_reach_the_bill() -> None:
    data = minimal(stored="50 TiB", object_size="1 GiB", buckets=100_001)
    data["constraints"] = {"discounts": {"aws-s3": "15%", "cloudflare-r2": 0.1}}
    workload = parse_workload(data)
    # S3: 51,200 GB x $0.023 = $1,177.60, less 15% = $1,000.96.
    s3 = estimate_cost(workload, "aws-s3", as_of=NOW)
    assert s3.total_usd == Decimal("1000.96") and s3.line_items[0].discount == Decimal("0.15")
    # R2: 54,975.58 GB-months after 10 free, rounded up to 54,966 at $0.015 = $824.49, less 10% = $742.04;
    # one bucket over the 100,000 included: $0.10 less 10% = $0.09.
    r2 = estimate_cost(workload, "cloudflare-r2", as_of=NOW)
    assert [i.amount_usd for i in r2.line_items if i.amount_usd] == [Decimal("742.04"), Decimal("0.09")]


@pytest.mark.parametrize(
    ("storage", "constraints", "field", "message"),
    [
        ({"unread": {"90d": "50%", "30d": "40%"}}, {}, "storage.unread", "cannot leave more of the data unread"),
        ({"unread": {"30d": "150%"}}, {}, "storage.unread", "between 0 and 1"),
        ({"unread": {"12h": 0.5}}, {}, "storage.unread", "whole days"),
        ({"unread": {"30d": "lots"}}, {}, "storage.unread", "is not a share"),
        ({"buckets": 0}, {}, "storage.buckets", "greater than or equal to 1"),
        ({}, {"discounts": {"aws-s3": "100%"}}, "constraints.discounts", "less than 100%"),
        ({}, {"discounts": {"acme-s3": "10%"}}, "constraints.discounts", "unknown provider 'acme-s3'"),
    ],
)
def test_bad_access_pattern_discount_or_bucket_count(
    storage: dict[str, object], constraints: dict[str, object], field: str, message: str
) -> None:
    data = minimal(**storage)
    data["constraints"] = constraints
    with pytest.raises(InputError) as error:
        parse_workload(data)
    assert field in str(error.value) and message in str(error.value)


def test_a_size_mix_deleted_early_pads_its_small_objects_on_their_own() -> None:
    # 90% of the objects are 32 KiB and 10% 8 MiB (mean 868,352 bytes, over 128 KiB), kept 10 days in
    # Standard-IA. 1 TiB stored turns over 3x a month: 3,798,615 objects deleted, 3,418,753 of them
    # small. The small ones' 96 KiB of padding each pays the 20 remaining days:
    # 3,418,753 x 98,304 bytes / 2**30 GB x 20/30 x $0.0125 = $2.6083, a line of $2.61. A single
    # deletion at the mean size would pad nothing.
    data = {
        "name": "mix",
        "storage": {
            "stored": "1 TiB",
            "size_distribution": [{"size": "32 KiB", "share": 0.9}, {"size": "8 MiB", "share": 0.1}],
            "retention": "10d",
        },
    }
    workload = parse_workload(data)
    usage = workload.usage_for("standard-ia", catalog.table_for("aws-s3", NOW).limits)
    assert [d.objects for d in usage.deletions] == [3_418_753, 379_861]
    assert round(usage.deletions[0].bytes / usage.deletions[0].objects) == 32 * 1024
    assert usage.requests["delete"] == 3_418_753 + 379_861
    bill = estimate_cost(workload, "aws-s3", "standard-ia", as_of=NOW)
    padded = [i for i in bill.line_items if i.category == "early_deletion" and "padded to 131,072" in i.description]
    assert len(padded) == 1 and padded[0].amount_usd == Decimal("2.61")


@pytest.mark.parametrize(
    ("text", "count"),
    [("2M", 2_000_000), ("150k", 150_000), ("1e6", 1_000_000), ("2,000,000", 2_000_000), ("1.5 million", 1_500_000),
     ("60M", 60_000_000), ("1_000", 1000), ("2.5k", 2500)],
)  # fmt: skip
def test_counts_in_human_form(text: str, count: int) -> None:
    data = {**minimal(), "traffic": {"reads": text, "writes": text}}
    data["storage"] = {"stored": "10 PB", "objects": text}
    workload = parse_workload(data, source="w.yaml")
    assert workload.storage.objects == workload.traffic.reads == workload.traffic.writes == count


def test_retention_in_years_or_forever_shares_in_percent_and_volumes_per_period() -> None:
    data = {**minimal(), "storage": {"stored": "1 PB", "object_size": "1 MiB", "retention": "1y"}}
    assert parse_workload(data, source="w.yaml").storage.retention == 365 * 86400
    data["storage"] = {**data["storage"], "retention": "forever", "growth_per_month": "1.2 PB/year"}
    data["traffic"] = {"egress": "4 TB/day", "hot_objects": {"share_of_reads": "30%"}, "inter_region": "1 TB/week"}
    workload = parse_workload(data, source="w.yaml")
    assert workload.storage.retention is None
    assert workload.storage.growth_per_month == 10**14  # a year is 12 billing months of 30 days
    assert workload.traffic.egress == 120 * 10**12  # 30 days of 4 TB
    assert workload.traffic.inter_region == round(10**12 * 30 / 7)
    assert workload.traffic.hot_objects is not None and workload.traffic.hot_objects.share_of_reads == 0.3


def test_writes_that_contradict_retention_are_said_with_the_figures() -> None:
    # 250,000 x 64 MiB = 16.78 TB written a month; a 30-day retention of 500 TB deletes 500 TB a month
    data = {"name": "w", "storage": {"stored": "500 TB", "object_size": "64 MiB", "retention": "30d"}}
    data["traffic"] = {"writes": 250_000}
    (warning,) = parse_workload(data, source="w.yaml").consistency_warnings()
    assert "16.78 TB a month" in warning and "deletes 500 TB a month" in warning and "shrink by 483.22 TB" in warning
    # writes that replace what retention deletes (500 TB / 64 MiB = 7,450,581 objects) are consistent
    data["traffic"] = {"writes": 7_450_581}
    assert parse_workload(data, source="w.yaml").consistency_warnings() == []


def test_egress_with_no_get_to_carry_it_is_said() -> None:
    # 50 TB of egress and 0 GETs had been priced without a word
    data = {"name": "w", "storage": {"stored": "100 TB", "object_size": "1 GB"}, "traffic": {"egress": "50 TB"}}
    data["traffic"]["reads"] = 0
    (warning,) = parse_workload(data, source="w.yaml").consistency_warnings()
    assert warning.startswith("traffic.egress: 50 TB a month leaves the bucket, but the workload reads nothing")
    data["traffic"]["reads"] = 50_000
    assert parse_workload(data, source="w.yaml").consistency_warnings() == []


def test_cost_carries_the_contradiction(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nstorage: {stored: 500 TB, object_size: 64 MiB, retention: 30d}\ntraffic: {writes: 1}\n")
    result = run_cli("cost", str(path), "-p", "aws-s3")
    assert result.code == 0 and "warning: traffic.writes: 1 objects" in result.out


RANGES = """\
name: ranges
storage: {stored: 100 TB, object_size: 8 MB}
traffic:
  egress: {low: 20 TB, high: 60 TB}
  reads: {low: 1M, likely: 2M, high: 5M}
correlate: [[traffic.egress, traffic.reads, 0.7]]
"""


@pytest.fixture
def ranged(tmp_path: Path) -> Path:
    path = tmp_path / "ranges.yaml"
    path.write_text(RANGES, encoding="utf-8")
    return path


def test_ranges_survive_a_json_round_trip(ranged: Path) -> None:
    workload = load_workload(ranged)
    back = Workload.model_validate_json(workload.model_dump_json())
    assert back == workload
    # the range is kept, and the field still holds its central value (the midpoint of 20 and 60 TB)
    (egress, reads) = back.uncertain
    assert (egress.field, egress.kind, egress.low, egress.high) == ("traffic.egress", "uniform", 20 * TB, 60 * TB)
    assert (reads.kind, reads.likely, reads.whole) == ("triangular", 2_000_000, True)
    assert back.traffic.egress == 40 * TB and back.traffic.reads == 2_000_000
    assert [(c.first, c.second, c.rho) for c in back.correlations] == [("traffic.egress", "traffic.reads", 0.7)]


def test_ranges_survive_model_dump_and_validate(ranged: Path) -> None:
    workload = load_workload(ranged)
    back = Workload.model_validate(workload.model_dump())
    assert back == workload
    assert back.uncertain == workload.uncertain and back.correlations == workload.correlations
    assert back.traffic.egress == 40 * TB


def test_a_workload_without_ranges_serialises_as_before() -> None:
    dumped = parse_workload(minimal()).model_dump(mode="json")
    assert "uncertain" not in dumped and "correlations" not in dumped
    assert Workload.model_validate(dumped).uncertain == []


def test_ranges_are_checked_when_given_in_python() -> None:
    egress = Uncertain(field="traffic.egress", kind="uniform", low=1.0, high=3.0)
    with pytest.raises(ValidationError, match="not a numeric field"):
        Workload.model_validate({**minimal(), "uncertain": [egress.model_copy(update={"field": "traffic.nothing"})]})
    with pytest.raises(ValidationError, match=r"'storage\.stored' is not an input given as a range"):
        Workload.model_validate(
            {
                **minimal(),
                "uncertain": [egress],
                "correlations": [Correlation(first="traffic.egress", second="storage.stored", rho=0.5)],
            }
        )


def test_a_file_gives_ranges_in_place_not_as_declared_fields() -> None:
    with pytest.raises(InputError) as error:
        parse_workload({**minimal(), "uncertain": []})
    assert error.value.field == "uncertain" and "unknown key" in str(error.value)


def test_names_are_checked_against_the_catalog_in_the_context() -> None:
    data = {**minimal(), "constraints": {"providers": ["acme-s3", "wasabi"]}}
    # no context: the installed tables' names, which do not hold acme-s3
    with pytest.raises(ValidationError) as refused:
        Workload.model_validate(data)
    (problem,) = refused.value.errors()
    assert problem["loc"] == ("constraints", "providers") and "unknown provider 'acme-s3'" in problem["msg"]
    with pytest.raises(InputError) as error:
        parse_workload(data)
    assert error.value.field == "constraints.providers"
    # a catalog with one more provider accepts it, and its providers are the default list
    shipped = shipped_catalog()
    more = Catalog(providers=(*shipped.providers, "acme-s3"), storage_classes=shipped.storage_classes | {"acme-cold"})
    workload = Workload.model_validate(data, context=with_catalog(more))
    assert workload.constraints.providers == ["acme-s3", "wasabi"]
    assert Workload.model_validate(minimal(), context=with_catalog(more)).constraints.providers == list(more.providers)
    placed = minimal(placement={"acme-cold": "10 TB"})
    assert parse_workload(placed, catalog=more).storage.placement == {"acme-cold": 10 * TB}
    with pytest.raises(InputError) as error:
        parse_workload(placed)
    assert error.value.field == "storage.placement" and "'acme-cold' is no provider's storage class" in str(error.value)
    # a catalog without a provider refuses it, naming the field
    fewer = Catalog(providers=("wasabi",), storage_classes=shipped.storage_classes)
    with pytest.raises(InputError) as error:
        parse_workload({**minimal(), "constraints": {"discounts": {"aws-s3": "10%"}}}, catalog=fewer)
    assert error.value.field == "constraints.discounts" and "unknown provider 'aws-s3' (known: wasabi)" in str(
        error.value
    )


def test_without_a_context_the_catalog_is_the_installed_tables() -> None:
    shipped = shipped_catalog()
    assert list(shipped.providers) == catalog.providers()
    # the default comparison is the providers whose tables say so: the five, not every table shipped
    assert parse_workload(minimal()).constraints.providers == list(shipped.compared_by_default)
    assert shipped.compared_by_default == ("aws-s3", "backblaze-b2", "cloudflare-r2", "idrive-e2", "wasabi")


def test_setting_a_field_keeps_the_names_a_custom_catalog_allowed(ranged: Path) -> None:
    shipped = shipped_catalog()
    more = Catalog(providers=(*shipped.providers, "acme-s3"), storage_classes=shipped.storage_classes)
    workload = parse_workload({**minimal(), "constraints": {"providers": ["acme-s3"]}}, catalog=more)
    assert at(workload, {"storage.stored": 20 * TB}).constraints.providers == ["acme-s3"]
