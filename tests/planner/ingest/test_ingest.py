"""`planner ingest cur`: billing exports to workload files, and the bill reconciled line by line.

The real export is the FinOps Foundation's anonymised CUR (tests/fixtures/README.md). Its S3 rows
were summed by hand from the CSV (a spreadsheet over lineItem/UsageType, lineItem/Operation):
us-west-2 StandardStorage 0.8620472377 GB-months, GlacierStorage 10.3626777784 GB-months,
GlacierObjectOverhead 0.5522583009 GB-months; us-east-1 Requests-Tier1 313 requests billed
$0.0015650 (5.0E-6 a request).
"""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from planner.errors import InputError
from planner.files import load_yaml
from planner.ingest import Bill, read_bill, reconcile, sku_usage_types, snake, workloads
from planner.pricing.catalog import table_for
from planner.pricing.models import PriceTable
from planner.workload import load_workload, parse_workload
from tests.planner.conftest import Result

CUR = Path(__file__).resolve().parents[2] / "fixtures" / "aws-cur-sample-anonymous.csv"
GIB = 2**30


@pytest.fixture(scope="module")
def bill() -> Bill:
    return read_bill([CUR])


def _group(bill: Bill, scope: str, usage_type: str, operation: str) -> Decimal:
    return sum(
        (g.quantity for g in bill.groups if (g.scope, g.usage_type, g.operation) == (scope, usage_type, operation)),
        Decimal(0),
    )


def test_column_names_of_every_export_kind_meet() -> None:
    assert snake("lineItem/UsageType") == "line_item_usage_type"
    assert snake("line_item_usage_type") == "line_item_usage_type"
    assert snake("product/regionCode") == "product_region_code"
    assert snake("BilledCost") == "billed_cost"


def test_the_real_cur_sums_by_region_usage_type_and_operation(bill: Bill) -> None:
    assert bill.format == "cur" and [p.isoformat() for p in bill.periods] == ["2023-11-01"]
    assert {g.scope for g in bill.groups} == {"us-east-1", "us-west-2", "ca-central-1"}
    # the prefix is stripped and the region kept: USW2-TimedStorage-GlacierByteHrs
    assert _group(bill, "us-west-2", "TimedStorage-GlacierByteHrs", "GlacierStorage") == Decimal("10.3626777784")
    assert _group(bill, "us-west-2", "TimedStorage-ByteHrs", "StandardStorage") == Decimal("0.8620472377")
    assert _group(bill, "us-east-1", "Requests-Tier1", "ListAllMyBuckets") > 0  # control plane counted, apart
    # 799 S3 rows, one of them Tax: 798 usage rows are read, the other 483 rows are other services
    assert sum(g.rows for g in bill.groups) == 798 and bill.other_rows == 1281 - 798 and bill.bad_rows == 0
    kinds = {(g.usage_type, g.operation): g.kind for g in bill.groups if g.scope == "us-west-2"}
    assert kinds["TimedStorage-GlacierByteHrs", "GlacierObjectOverhead"] == "overhead"
    assert kinds["EarlyDelete-ByteHrs", "DeleteObject"] == "early-deletion"
    assert kinds["USE1-AWS-Out-Bytes", "GetObject"] == "inter-region"
    assert kinds["DataTransfer-In-Bytes", "PutObject"] == "ingress"


def test_each_region_becomes_a_workload_that_loads_with_its_provenance(bill: Bill, tmp_path: Path) -> None:
    produced = {w.name: w for w in workloads(bill)}
    assert set(produced) == {"us-east-1.yaml", "us-west-2.yaml", "ca-central-1.yaml"}
    west = produced["us-west-2.yaml"]
    (tmp_path / west.name).write_text(west.text)
    workload = load_workload(tmp_path / west.name)
    # stored = the month's GB-months of data (not the overhead lines) x 2^30 bytes
    assert workload.storage.stored == int((Decimal("0.8620472377") + Decimal("10.3626777784")) * GIB + Decimal("0.5"))
    # 0.5522583009 GB-months of 32 KiB index entries: 18,096 archived objects
    # 0.5522583009 x 2^30 = 592,982,835 bytes / 32,768 = 18,096; 10.3626777784 x 2^30 = 11,126,840,539 bytes
    # / 18,096 objects = 614,878 bytes each (the bill has no count for the Standard data: the same mean)
    assert "18,096 archived objects" in west.text
    assert workload.storage.object_size == 614_878
    assert "ASSUMED" in west.text  # the standard data's object count is not in a bill
    east = produced["us-east-1.yaml"]
    (tmp_path / east.name).write_text(east.text)
    # nothing stored but traffic that reads: a draft that parses, and that every command refuses
    assert parse_workload(load_yaml(east.text, east.name)).storage.stored == 0
    with pytest.raises(InputError, match=r"storage\.stored: 0 B stored, but the traffic reads"):
        load_workload(tmp_path / east.name)
    assert "no storage rows" in east.text


def test_the_workload_states_the_bills_placement(bill: Bill, tmp_path: Path) -> None:
    west = next(w for w in workloads(bill) if w.name == "us-west-2.yaml")
    (tmp_path / west.name).write_text(west.text)
    storage = load_workload(tmp_path / west.name).storage
    # 10.3626777784 GB-months x 2^30 = 11,126,840,539 bytes of Glacier; 0.8620472377 x 2^30 = 925,616,173 of Standard
    assert storage.placement == {"glacier-flexible": 11_126_840_539, "standard": 925_616_173}
    assert abs(sum(storage.placement.values()) - storage.stored) <= 1


def test_reconcile_prices_the_written_placement_against_the_bills_storage(bill: Bill) -> None:
    # the 2023 us-east-1 table stands in for us-west-2 (same $0.023 Standard and $0.0036 Glacier)
    result = reconcile(bill, tables=lambda region, as_of: table_for("aws-s3", as_of))
    placed = next(line for line in result.placements if line.scope == "us-west-2")
    assert placed.usage_type == "placement: glacier-flexible + standard"
    # billed: the us-west-2 StandardStorage, GlacierStorage and both ObjectOverhead rows, $0.0622963415;
    # planner: 0.8620472377 GB x $0.023 + 10.3626777784 GB x $0.0036, and 18,096 objects x 32,768 B at
    # $0.0036 and x 8,192 B at $0.023 (the bill's 0.5522583009 GB of index is 18,096.04 objects' worth)
    assert placed.billed_usd == Decimal("0.0622963415")
    assert placed.planner_usd is not None and abs(placed.planner_usd - placed.billed_usd) < Decimal("0.000001")
    assert "differs" not in placed.cause
    # planner cost bills each of those lines at least a cent ($0.08 in all); the CUR's lines, like these,
    # are not rounded, and the cause says which planner figure it is
    assert "its lines unrounded as a CUR's are (planner cost rounds each line to the cent)" in placed.cause
    # the placement lines are the same rows priced another way: not counted again in the totals
    assert result.billed_usd == sum((line.billed_usd for line in result.lines), Decimal(0))


def test_requests_become_reads_writes_heads_and_lists(bill: Bill, tmp_path: Path) -> None:
    west = next(w for w in workloads(bill) if w.name == "us-west-2.yaml")
    (tmp_path / "w.yaml").write_text(west.text)
    traffic = load_workload(tmp_path / "w.yaml").traffic
    puts = _group(bill, "us-west-2", "Requests-Tier1", "PutObject")
    assert traffic.writes == int(puts)
    assert traffic.reads == int(_group(bill, "us-west-2", "Requests-Tier2", "GetObject"))
    assert traffic.lists == int(_group(bill, "us-west-2", "Requests-Tier1", "ListBucket"))
    assert traffic.heads == int(_group(bill, "us-west-2", "Requests-Tier2", "HeadObject"))
    # the Glacier transitions (Requests-Tier3) are requests of the bill, not reads or writes
    assert "transitions" in west.text


def test_reconcile_prices_each_line_it_has_a_table_for_within_one_percent(bill: Bill) -> None:
    result = reconcile(bill)
    priced = [line for line in result.lines if line.planner_usd is not None]
    assert priced, "the us-east-1 table prices the us-east-1 lines at least"
    for line in priced:
        assert line.difference_usd is not None
        agrees = abs(line.difference_usd) <= max(abs(line.billed_usd) / 100, Decimal("0.0000001"))
        # a line that does not agree says why (here: us-east-1 -> us-east-2 is $0.01, the table's $0.02)
        assert agrees or "differs" in line.cause or "$0" in line.cause, line
    tier1 = next(line for line in priced if (line.scope, line.usage_type) == ("us-east-1", "Requests-Tier1"))
    # $0.005 per 1,000 PUT/COPY/POST/LIST (aws-s3 table, tier-1): 313 x 0.000005 = $0.001565, as billed
    assert tier1.planner_usd == Decimal("0.001565") == tier1.billed_usd
    ohio = next(line for line in priced if (line.scope, line.usage_type) == ("us-east-1", "USE2-AWS-Out-Bytes"))
    assert "rate 0.01" in ohio.cause
    # the shipped us-west-2 table (2026-09-01, later than the 2023 bill, and said so) prices every
    # us-west-2 line, and each agrees with the bill's rate
    west = [line for line in result.lines if line.scope == "us-west-2"]
    assert west and all(line.planner_usd is not None for line in west)
    assert all("later than the bill" in line.cause and "differs" not in line.cause for line in west if line.billed_usd)
    for line in result.lines:
        if line.planner_usd is None:
            assert line.cause.startswith("no aws-s3 price table for") or "does not model" in line.cause
    assert result.billed_usd == sum((line.billed_usd for line in result.lines), Decimal(0))


def test_reconcile_with_a_table_for_the_region_matches_storage_and_glacier(bill: Bill) -> None:
    # the 2023 us-east-1 table stands in for us-west-2, whose S3 Standard ($0.023), Glacier ($0.0036),
    # request ($0.005 / $0.0004 per 1,000) and transition ($0.03 per 1,000) prices are the same
    def tables(region: str, as_of: dt.date | None) -> PriceTable:
        return table_for("aws-s3", as_of)

    result = reconcile(bill, tables=tables)
    west = {(line.usage_type, line.cause.split(";")[0]): line for line in result.lines if line.scope == "us-west-2"}
    glacier = west["TimedStorage-GlacierByteHrs", "glacier-flexible storage"]
    # 10.3626777784 GB-months x $0.0036 = $0.0373056400 (billed $0.0373056399)
    assert glacier.planner_usd == Decimal("0.0373056400") and abs(glacier.difference_usd or 1) < Decimal("1e-9")
    early = next(line for (kind, _), line in west.items() if kind == "EarlyDelete-ByteHrs")
    # 26.9726779857 GB-months x $0.0036 = $0.09710164075; the bill's 11 rows, each rounded, add to $0.0971016408
    assert early.planner_usd == Decimal("0.0971016407") and early.billed_usd == Decimal("0.0971016408")
    assert early.cause == "early deletion as glacier-flexible storage at 0.0036 per GB-month"
    transitions = next(line for (kind, _), line in west.items() if kind == "Requests-Tier3")
    assert transitions.planner_usd == Decimal("0.97755") == transitions.billed_usd  # 32,585 x $0.03 / 1,000


def _write_cur2(path: Path, rows: list[dict[str, str]]) -> None:
    columns = [
        "bill_billing_period_start_date",
        "line_item_product_code",
        "line_item_line_item_type",
        "line_item_usage_type",
        "line_item_operation",
        "line_item_resource_id",
        "line_item_usage_amount",
        "line_item_unblended_cost",
        "line_item_unblended_rate",
        "pricing_unit",
        "product_region_code",
    ]
    with gzip.open(path, "wt", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({c: row.get(c, "") for c in columns})


def _row(usage_type: str, operation: str, amount: str, cost: str, **extra: str) -> dict[str, str]:
    return {
        "bill_billing_period_start_date": "2026-10-01T00:00:00Z",
        "line_item_product_code": "AmazonS3",
        "line_item_line_item_type": "Usage",
        "line_item_usage_type": usage_type,
        "line_item_operation": operation,
        "line_item_usage_amount": amount,
        "line_item_unblended_cost": cost,
        "pricing_unit": "GB-Mo" if "Storage" in usage_type else "Requests",
        **extra,
    }


def test_cur2_gzip_with_resource_ids_gives_one_workload_per_bucket(tmp_path: Path) -> None:
    path = tmp_path / "cur2.csv.gz"
    _write_cur2(
        path,
        [
            _row("TimedStorage-ByteHrs", "StandardStorage", "1024", "23.552", line_item_resource_id="logs"),
            _row("Requests-Tier2", "GetObject", "1000000", "0.4", line_item_resource_id="logs"),
            _row("TimedStorage-ByteHrs", "StandardStorage", "10", "0.23", line_item_resource_id="media"),
            _row("Requests-Tier1", "PutObject", "x", "0", line_item_resource_id="media"),  # bad row, line 5
        ],
    )
    bill = read_bill([path])
    assert {g.scope for g in bill.groups} == {"logs", "media"}
    assert bill.bad_rows == 1 and bill.first_bad[0].where.endswith("cur2.csv.gz:5")
    logs = next(w for w in workloads(bill) if w.name == "logs.yaml")
    (tmp_path / "logs.yaml").write_text(logs.text)
    workload = load_workload(tmp_path / "logs.yaml")
    assert workload.storage.stored == 1024 * GIB and workload.traffic.reads == 1_000_000
    only = read_bill([path], bucket="media")
    assert {g.scope for g in only.groups} == {"media"}


def test_parquet_reads_like_csv(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [_row("USW2-TimedStorage-ByteHrs", "StandardStorage", "2048", "47.104", product_region_code="us-west-2")]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "cur.parquet")
    bill = read_bill([tmp_path / "cur.parquet"])
    assert [(g.scope, g.usage_type, g.quantity) for g in bill.groups] == [
        ("us-west-2", "TimedStorage-ByteHrs", Decimal(2048))
    ]


def test_focus_s3_rows_are_classed_from_unit_and_description(tmp_path: Path) -> None:
    path = tmp_path / "focus.csv"
    columns = ["BillingPeriodStart", "ChargeCategory", "ServiceName", "RegionId", "ResourceId", "PricingUnit"]
    columns += ["ConsumedQuantity", "BilledCost", "ListCost", "ListUnitPrice", "ChargeDescription"]
    rows = [
        ["2024-09-01 00:00:00", "Usage", "Amazon Simple Storage Service", "us-east-1", "NULL", "Requests", "162",
         "0.0000648", "0.0000648", "0.0000004", "$0.004 per 10,000 GET and all other requests"],
        ["2024-09-01 00:00:00", "Usage", "Amazon Simple Storage Service", "us-west-2", "NULL", "GB", "0.5", "0.01",
         "0.01", "0.02", "$0.02 per GB - US West (Oregon) data transfer to EU (Ireland)"],
        ["2024-09-01 00:00:00", "Usage", "Amazon Elastic Compute Cloud", "us-east-1", "NULL", "Hrs", "1", "0.1",
         "0.1", "0.1", "t3.micro"],
    ]  # fmt: skip
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(rows)
    bill = read_bill([path])
    assert bill.format == "focus" and bill.other_rows == 1 and bill.notes
    kinds = {(g.scope, g.kind, g.planner_operation) for g in bill.groups}
    assert kinds == {("us-east-1", "requests", "get"), ("us-west-2", "inter-region", None)}


FOCUS = Path(__file__).resolve().parents[2] / "fixtures" / "focus-1.0-sample-s3.csv"


def test_the_focus_sample_is_classed_from_units_and_descriptions_and_says_so() -> None:
    bill = read_bill([FOCUS])
    groups = {(g.scope, g.kind, g.usage_type): g for g in bill.groups}
    # "$0.023 per GB - first 50 TB / month of storage used", PricingUnit GB-Months: Standard storage
    assert groups["us-west-2", "storage", "TimedStorage-ByteHrs"].quantity == Decimal("0.0272593945")
    # "$0.090 per GB - first 10 TB / month data transfer out beyond the global free tier": internet egress
    assert groups["us-east-1", "egress", "DataTransfer-Out-Bytes"].rows == 3
    # "USD 0.02 per GB for EUN1-AWS-Out-Bytes in Africa (Cape Town)" names its usage type
    assert groups["us-west-2", "inter-region", "AWS-Out-Bytes"].rows == 13
    assert bill.notes == [
        "FOCUS S3 rows decoded: 36 from pricing unit and charge description (weaker: give an export with AWS"
        " columns, or --offer with AWS's price list, to decode SkuId)"
    ]
    # the bill charged 3 rows of us-east-1 egress at $0.09 a GB that planner gives the free 100 GB:
    # the allowance is the account's, and the reconciliation says so rather than blaming a discount
    egress = next(line for line in reconcile(bill).lines if line.usage_type == "DataTransfer-Out-Bytes")
    assert egress.scope == "us-east-1" and "shared by the account's regions and services" in egress.cause


def _focus_with_aws_columns(path: Path) -> None:
    columns = ["BillingPeriodStart", "ChargeCategory", "ServiceName", "RegionId", "ResourceId", "PricingUnit"]
    columns += ["ConsumedQuantity", "BilledCost", "ListCost", "ChargeDescription", "SkuId", "x_UsageType"]
    columns += ["x_Operation"]
    s3 = ["2026-10-01 00:00:00", "Usage", "Amazon Simple Storage Service", "us-west-2", "NULL"]
    rows = [
        [*s3, "GB-Mo", "100", "0.36", "0.36", "", "SKU1", "USW2-TimedStorage-GlacierByteHrs", "GlacierStorage"],
        [*s3, "GB-Mo", "2", "0.0072", "0.0072", "", "SKU1", "USW2-TimedStorage-GlacierByteHrs",
         "GlacierObjectOverhead"],
        [*s3, "Requests", "1000", "0.005", "0.005", "", "SKU2", "USW2-Requests-Tier1", "PutObject"],
        [*s3, "Requests", "40", "0.0012", "0.0012", "", "SKU3", "USW2-Requests-Tier3", "S3-GlacierTransition"],
    ]  # fmt: skip
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows(rows)


def test_focus_with_aws_columns_is_read_by_its_usage_types(tmp_path: Path) -> None:
    # AWS's "FOCUS 1.0 with AWS columns" export adds x_UsageType and x_Operation: read as a CUR's
    _focus_with_aws_columns(tmp_path / "focus.csv")
    bill = read_bill([tmp_path / "focus.csv"])
    found = {(g.kind, g.storage_class, g.operation, g.planner_operation, g.quantity) for g in bill.groups}
    assert found == {
        ("storage", "glacier-flexible", "GlacierStorage", None, Decimal(100)),
        ("overhead", "glacier-flexible", "GlacierObjectOverhead", None, Decimal(2)),
        ("requests", "standard", "PutObject", "put", Decimal(1000)),
        ("requests", "glacier-flexible", "S3-GlacierTransition", "lifecycle-transition", Decimal(40)),
    }
    assert bill.notes == ["FOCUS S3 rows decoded: 4 by x_UsageType and x_Operation"]


def test_focus_sku_ids_decode_through_an_offer_file(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    # An offer-file excerpt written for this test in the Price List's shape (products by SKU with
    # attributes.usagetype and operation); the three SKUs are the sample's, their usage types read off
    # the rows' own descriptions ("$0.023 per GB - first 50 TB / month of storage used" in us-west-2,
    # "$0.005 per 1,000 PUT, COPY, POST, or LIST requests"), not from AWS's published file.
    offer = {
        "offerCode": "AmazonS3",
        "products": {
            "Z3FQZG73HYSPVABR": {"attributes": {"usagetype": "USW2-TimedStorage-ByteHrs", "operation": ""}},
            "D4PMUVH6F64HK2D6": {"attributes": {"usagetype": "USW2-Requests-Tier1", "operation": "PutObject"}},
            "WP9ANXZGBYYSGJEA": {"attributes": {"usagetype": "TimedStorage-ByteHrs", "operation": ""}},
        },
        "terms": {"OnDemand": {}},
    }
    path = tmp_path / "AmazonS3.json"
    path.write_text(json.dumps(offer))
    bill = read_bill([FOCUS], skus=sku_usage_types(offer, str(path)))
    assert bill.notes[0].startswith("FOCUS S3 rows decoded: 4 by SkuId through the offer file, 32 from pricing unit")
    puts = next(g for g in bill.groups if g.scope == "us-west-2" and g.planner_operation == "put")
    assert puts.quantity == 38 and puts.operation == "PutObject"
    out = tmp_path / "out"
    result = run_cli("ingest", "cur", str(FOCUS), "--offer", str(path), "--out", str(out), "-f", "json")
    assert result.code == 0, result.err
    assert "4 by SkuId" in json.loads(result.out)["bill"]["notes"][0]
    wrong = run_cli("ingest", "cur", str(FOCUS), "--offer", str(FOCUS), "--out", str(out), "--force")
    assert wrong.code == 2 and "not JSON" in wrong.err


def test_a_file_of_the_wrong_kind_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    path.write_text("name,stored\nx,1\n")
    with pytest.raises(InputError, match="not a Cost and Usage Report or FOCUS export"):
        read_bill([path])


def test_cli_writes_workloads_and_reconciles(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    out = tmp_path / "w"
    result = run_cli("ingest", "cur", str(CUR), "--out", str(out), "--reconcile")
    assert result.code == 0, result.err
    assert sorted(p.name for p in out.iterdir()) == ["ca-central-1.yaml", "us-east-1.yaml", "us-west-2.yaml"]
    assert "Reconciliation with the bill" in result.out and "no aws-s3 price table for ca-central-1" in result.out
    again = run_cli("ingest", "cur", str(CUR), "--out", str(out))
    assert again.code == 2 and again.err.count("\n") == 1 and "--force" in again.err
    assert run_cli("ingest", "cur", str(CUR), "--out", str(out), "--force", "-f", "json").code == 0
    recommended = run_cli("recommend", str(out / "us-west-2.yaml"), "-f", "json")
    assert recommended.code in (0, 1) and len(json.loads(recommended.out)["ranking"]) > 5
    missing = run_cli("ingest", "cur", str(tmp_path / "nope.csv"), "--out", str(out))
    assert missing.code == 2 and "file not found" in missing.err


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.csv", b"", "the file is empty"),
        ("header.csv", b"a,b\n", "not a Cost and Usage Report or FOCUS export"),
        ("binary.csv", bytes(range(128, 256)) * 8, "not a CSV export"),
        ("broken.csv.gz", b"\x1f\x8b not really gzip", "not a CSV export"),
        ("broken.parquet", b"PAR1 not really parquet", "not a Parquet file"),
        ("folder", None, "is a directory"),
    ],
)
def test_bad_exports_are_one_line_with_exit_2(
    run_cli: Callable[..., Result], tmp_path: Path, name: str, content: bytes | None, message: str
) -> None:
    path = tmp_path / name
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    result = run_cli("ingest", "cur", str(path), "--out", str(tmp_path / "out"))
    assert result.code == 2 and result.err.count("\n") == 1 and message in result.err, result.err
    assert not (tmp_path / "out").exists()


def test_gets_of_an_infrequent_access_class_become_reads_by_class(tmp_path: Path) -> None:
    path = tmp_path / "cur.csv.gz"
    region = {"product_region_code": "us-west-2"}
    _write_cur2(
        path,
        [
            _row("USW2-TimedStorage-ByteHrs", "StandardStorage", "100", "2.3", **region),
            _row("USW2-TimedStorage-SIA-ByteHrs", "StandardIAStorage", "1000", "12.5", **region),
            _row("USW2-Requests-Tier2", "GetObject", "9000", "0.0036", **region),
            _row("USW2-Requests-SIA-Tier2", "GetObject", "1000", "0.001", **region),
        ],
    )
    (produced,) = workloads(read_bill([path]))
    (tmp_path / produced.name).write_text(produced.text)
    workload = load_workload(tmp_path / produced.name)
    assert workload.traffic.reads == 10_000
    assert workload.traffic.reads_by_class == {"standard": 9000, "standard-ia": 1000}
    assert workload.storage.placement == {"standard-ia": 1000 * GIB, "standard": 100 * GIB}


def test_focus_reconciles_against_the_list_cost_and_says_what_the_bill_took_off(tmp_path: Path) -> None:
    # 1,000,000 GETs in us-east-1: $0.0004 per 1,000 at list (aws-s3 table, "GET, SELECT and all other
    # requests"), $0.40; the account's discount billed them at $0.30. A CUR is set beside its
    # unblended cost; FOCUS gives the list cost beside the billed one, and planner prices at list.
    path = tmp_path / "focus.csv"
    columns = ["BillingPeriodStart", "ChargeCategory", "ServiceName", "RegionId", "ResourceId", "PricingUnit"]
    columns += ["ConsumedQuantity", "BilledCost", "ListCost", "ChargeDescription", "SkuId", "x_UsageType"]
    columns += ["x_Operation"]
    row = ["2026-10-01 00:00:00", "Usage", "Amazon Simple Storage Service", "us-east-1", "NULL", "Requests"]
    row += ["1000000", "0.30", "0.40", "", "SKU2", "Requests-Tier2", "GetObject"]
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerow(row)
    result = reconcile(read_bill([path]))
    (line,) = result.lines
    assert line.planner_usd == Decimal("0.40") and line.list_usd == Decimal("0.40")
    assert line.difference_usd == 0 and line.billed_usd == Decimal("0.30")
    assert "billed 0.30 USD against a list cost of 0.40 (the bill's discounts)" in line.cause
    assert result.priced_list_usd == Decimal("0.40") and result.priced_billed_usd == Decimal("0.30")


def test_focus_storage_rows_name_glacier_instant_retrieval_and_one_zone_ia_by_their_own_class(
    tmp_path: Path,
) -> None:
    # AWS's storage descriptions ("$0.004 per GB-Month of storage used in Glacier Instant Retrieval",
    # "... in One Zone-Infrequent Access"): before, both were read as their family's other class
    path = tmp_path / "focus.csv"
    columns = ["BillingPeriodStart", "ChargeCategory", "ServiceName", "RegionId", "ResourceId", "PricingUnit"]
    columns += ["ConsumedQuantity", "BilledCost", "ListCost", "ListUnitPrice", "ChargeDescription"]
    descriptions = {
        "glacier-ir": "$0.004 per GB-Month of storage used in Glacier Instant Retrieval",
        "glacier-flexible": "$0.0036 per GB-Month of storage used in Amazon Glacier",
        "onezone-ia": "$0.01 per GB-Month of storage used in One Zone-Infrequent Access",
        "standard-ia": "$0.0125 per GB-Month of storage used in Standard-Infrequent Access",
    }
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for text in descriptions.values():
            writer.writerow(["2024-09-01 00:00:00", "Usage", "Amazon Simple Storage Service", "us-east-1", "NULL",
                             "GB-Mo", "10", "0.04", "0.04", "0.004", text])  # fmt: skip
    bill = read_bill([path])
    assert sorted(g.storage_class for g in bill.groups) == sorted(descriptions)


@pytest.mark.parametrize(
    ("drop", "named"),
    [
        ("lineItem/UsageAmount", "lineItem/UsageAmount"),  # every row had read as 0: a workload of 0 B, exit 0
        ("lineItem/UnblendedCost", "lineItem/UnblendedCost"),
        ("lineItem/ProductCode", "lineItem/ProductCode"),  # every row had read as another service's
        ("lineItem/LineItemType", "lineItem/LineItemType"),
    ],
)
def test_a_cur_without_a_column_its_rows_are_read_by_is_refused(tmp_path: Path, drop: str, named: str) -> None:
    rows = list(csv.reader(CUR.open(newline="")))
    column = rows[0].index(drop)
    cut = tmp_path / "cut.csv"
    with cut.open("w", newline="") as handle:
        csv.writer(handle).writerows([row[:column] + row[column + 1 :] for row in rows])
    with pytest.raises(InputError, match=rf"line 1: the CUR export has no {named} column"):
        read_bill([cut])


def test_an_export_file_given_twice_is_refused(tmp_path: Path) -> None:
    # its rows had counted twice: every usage doubled
    with pytest.raises(InputError, match=r"given twice: each export file once"):
        read_bill([CUR, CUR])
    link = tmp_path / "same.csv"
    link.symlink_to(CUR)
    with pytest.raises(InputError, match=rf"given twice \(also as {CUR}\)"):
        read_bill([CUR, link])
