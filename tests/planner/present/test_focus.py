"""``--format focus``: planner's forecast bills as FOCUS 1.2 rows (issue 32 item 5; planner.costing.focus).

The FinOps Foundation's ``focus-validator`` on PyPI (1.0.0, the only release there) knows FOCUS 0.5,
1.0-preview and 1.0 only, and pins numpy below 2 and pandera 0.17 (which no longer imports beside
multimethod 2); its 2.x line, which knows FOCUS 1.2, is on GitHub only and runs in
``test_focus_validator.py`` where it is installed. So the written files are also checked here against
FOCUS 1.2's own column definitions
(FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec, specification/columns and specification/attributes at
v1.2): every mandatory column present, each column's type and allowed values, the Unit Format and
Date/Time Format attributes, custom columns ``x_``-prefixed, and the cost identities
(ListCost = ListUnitPrice x PricingQuantity, ContractedCost = ContractedUnitPrice x PricingQuantity).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from planner.costing.bills import estimate_cost
from planner.costing.focus import COLUMNS, MANDATORY_COLUMNS, bill_rows, focus_unit
from planner.present.text.focus import focus_csv
from planner.workload import load_workload
from tests.planner.conftest import EXAMPLES, Result

Run = Callable[..., Result]

# FOCUS 1.2's 57 columns by feature level (each column file's "Feature level").
SPEC_MANDATORY = {
    "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodEnd",
    "BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargePeriodEnd",
    "ChargePeriodStart", "ContractedCost", "EffectiveCost", "InvoiceIssuerName", "ListCost", "PricingQuantity",
    "PricingUnit", "ProviderName", "PublisherName", "ServiceCategory", "ServiceName",
}  # fmt: skip
SPEC_RECOMMENDED = {"AvailabilityZone", "ChargeFrequency", "InvoiceId", "ServiceSubcategory"}
SPEC_CONDITIONAL = {
    "BillingAccountType", "CapacityReservationId", "CapacityReservationStatus", "CommitmentDiscountCategory",
    "CommitmentDiscountId", "CommitmentDiscountName", "CommitmentDiscountQuantity", "CommitmentDiscountStatus",
    "CommitmentDiscountType", "CommitmentDiscountUnit", "ConsumedQuantity", "ConsumedUnit", "ContractedUnitPrice",
    "ListUnitPrice", "PricingCategory", "PricingCurrency", "PricingCurrencyContractedUnitPrice",
    "PricingCurrencyEffectiveCost", "PricingCurrencyListUnitPrice", "RegionId", "RegionName", "ResourceId",
    "ResourceName", "ResourceType", "SkuId", "SkuMeter", "SkuPriceDetails", "SkuPriceId", "SubAccountId",
    "SubAccountName", "SubAccountType", "Tags",
}  # fmt: skip
DECIMALS = {
    "BilledCost", "ConsumedQuantity", "ContractedCost", "ContractedUnitPrice", "EffectiveCost", "ListCost",
    "ListUnitPrice", "PricingQuantity",
}  # fmt: skip
DATETIMES = {"BillingPeriodEnd", "BillingPeriodStart", "ChargePeriodEnd", "ChargePeriodStart"}
NOT_NULL = SPEC_MANDATORY - {"ChargeClass", "BillingAccountName"} | {"ChargeFrequency", "ServiceSubcategory"}
ALLOWED = {
    "ChargeCategory": {"Usage", "Purchase", "Tax", "Credit", "Adjustment"},
    "ChargeClass": {"", "Correction"},
    "ChargeFrequency": {"One-Time", "Recurring", "Usage-Based"},
    "PricingCategory": {"", "Standard", "Dynamic", "Committed", "Other"},
    "ServiceCategory": {"Storage"},  # every row is object storage
    "ServiceSubcategory": {"Object Storage"},  # Storage's subcategory for it
    "BillingCurrency": {"USD"},
}
# Unit Format: a data size abbreviation, time unit or capitalised count noun; compound with "-";
# an optional whole-number block first ("1000 Requests").
_BASE = r"(?:[KMGTPE]i?B|B|Years?|Months?|Days?|Hours?|Minutes?|Seconds?|[A-Z][A-Za-z]*)"
UNIT = re.compile(rf"^(?:[1-9]\d* )?{_BASE}(?:-{_BASE})?$")
DATETIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")


def test_the_spec_lists_add_up_to_focus_1_2s_57_columns() -> None:
    assert (len(SPEC_MANDATORY), len(SPEC_RECOMMENDED), len(SPEC_CONDITIONAL)) == (21, 4, 32)
    assert set(MANDATORY_COLUMNS) == SPEC_MANDATORY


def spec_problems(text: str) -> list[str]:
    """Where a FOCUS CSV breaks FOCUS 1.2's rules for its columns (empty when it keeps them)."""
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    problems = [f"no {c} column" for c in sorted(SPEC_MANDATORY - set(header))]
    problems += [f"{c} twice" for c in header if header.count(c) > 1]
    known = SPEC_MANDATORY | SPEC_RECOMMENDED | SPEC_CONDITIONAL
    problems += [f"{c}: neither a FOCUS 1.2 column nor x_-prefixed" for c in header if c not in known and c[:2] != "x_"]
    rows = list(reader)
    if not rows:
        problems.append("no rows")
    for number, row in enumerate(rows, start=2):
        for column, value in row.items():
            if column in NOT_NULL and value == "":
                problems.append(f"line {number}: {column} is null")
            if column in DECIMALS and value != "" and not NUMBER.match(value):
                problems.append(f"line {number}: {column} {value!r} is not a decimal number")
            if column in DATETIMES and not DATETIME.match(value):
                problems.append(f"line {number}: {column} {value!r} is not YYYY-MM-DDTHH:mm:ssZ")
            if column in ALLOWED and value not in ALLOWED[column]:
                problems.append(f"line {number}: {column} {value!r} is not an allowed value")
            if column in ("PricingUnit", "ConsumedUnit") and not UNIT.match(value):
                problems.append(f"line {number}: {column} {value!r} breaks the Unit Format")
        if problems:
            break
        quantity = Decimal(row["PricingQuantity"])
        # to the 28 significant digits of a decimal product (the bill's own product may carry more)
        if abs(Decimal(row["ListCost"]) - quantity * Decimal(row["ListUnitPrice"])) > Decimal("1e-15"):
            problems.append(f"line {number}: ListCost is not ListUnitPrice x PricingQuantity")
        if abs(Decimal(row["ContractedCost"]) - quantity * Decimal(row["ContractedUnitPrice"])) > Decimal("1e-15"):
            problems.append(f"line {number}: ContractedCost is not ContractedUnitPrice x PricingQuantity")
        if row["EffectiveCost"] != row["BilledCost"]:  # no commitment to amortise
            problems.append(f"line {number}: EffectiveCost is not BilledCost")
        start, end = row["ChargePeriodStart"], row["ChargePeriodEnd"]
        if not row["BillingPeriodStart"] <= start < end <= row["BillingPeriodEnd"]:
            problems.append(f"line {number}: the charge period is not inside its billing period")
    return problems


def test_the_checker_finds_what_breaks_the_spec() -> None:
    """The checker the tests below rely on fails a file that breaks each kind of rule."""
    bill = estimate_cost(load_workload(EXAMPLES / "web-assets.yaml"), "aws-s3", as_of=dt.date(2026, 12, 1))
    good = focus_csv(bill_rows(bill, start=dt.date(2026, 12, 1), account_name="web-assets"))
    assert spec_problems(good) == []
    assert spec_problems(good.replace("GiB-Months", "gibibyte months", 1)) == [
        "line 2: PricingUnit 'gibibyte months' breaks the Unit Format"
    ]
    assert spec_problems(good.replace("2027-01-01T00:00:00Z", "2027-01-01", 1)) == [
        "line 2: BillingPeriodEnd '2027-01-01' is not YYYY-MM-DDTHH:mm:ssZ"
    ]
    assert spec_problems(good.replace(",Usage,", ",Forecast,", 1)) == [
        "line 2: ChargeCategory 'Forecast' is not an allowed value"
    ]
    assert spec_problems(good.replace("BilledCost,", "Cost,", 1)) == [
        "no BilledCost column",
        "Cost: neither a FOCUS 1.2 column nor x_-prefixed",
    ]


@pytest.mark.parametrize(
    ("unit", "gb_bytes", "expected"),
    [
        ("GB-month", 2**30, ("GiB-Months", 1)),  # AWS: a GB of 2^30 bytes (aws-s3 tables' billing.units)
        ("GB-month", 10**9, ("GB-Months", 1)),  # R2, B2: 10^9 bytes
        ("GB", 2**30, ("GiB", 1)),
        ("TB-month", 2**30, ("TiB-Months", 1)),  # Wasabi: "1 TB (1024 GB)"
        ("1,000 requests", 10**9, ("1000 Requests", 1000)),
        ("1,000,000 requests", 10**9, ("1000000 Requests", 1000000)),
        ("requests", 10**9, ("Requests", 1)),
        ("bucket-month", 10**9, ("Bucket-Months", 1)),
        ("1,000 objects", 2**30, ("1000 Objects", 1000)),
    ],
)
def test_a_line_unit_is_the_providers_billing_unit_in_focus_spelling(
    unit: str, gb_bytes: int, expected: tuple[str, int]
) -> None:
    tb_bytes = 2**40 if gb_bytes == 2**30 else 10**12
    assert focus_unit(unit, {"GB": gb_bytes, "TB": tb_bytes}) == expected


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_an_aws_storage_line_is_priced_in_gib_months(run_cli: Run) -> None:
    """5 TB stored = 5e12 / 2^30 = 4,656.6128730773925781 GB-months at AWS's $0.023 (aws-s3@2025-12-01,
    first 50 TB): $107.102096..., billed $107.10."""
    result = run_cli("cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "--as-of", "2026-12-05", "-f", "focus")
    assert result.code == 0, result.err
    storage = _rows(result.out)[0]
    assert {k: storage[k] for k in ("PricingUnit", "PricingQuantity", "ListUnitPrice", "ListCost", "BilledCost")} == {
        "PricingUnit": "GiB-Months",
        "PricingQuantity": "4656.612873077392578125",
        "ListUnitPrice": "0.023",
        "ListCost": "107.102096080780029296875",
        "BilledCost": "107.10",
    }
    assert {k: storage[k] for k in ("ProviderName", "ServiceName", "RegionId", "SkuId", "SkuPriceId")} == {
        "ProviderName": "AWS",
        "ServiceName": "Amazon Simple Storage Service",
        "RegionId": "us-east-1",
        "SkuId": "aws-s3/us-east-1/standard/storage",
        "SkuPriceId": "aws-s3/us-east-1/standard/storage/aws-s3@2025-12-01/0.023",
    }
    # a provider bills calendar months: the forecast of 5 December is December's bill
    assert (storage["ChargePeriodStart"], storage["ChargePeriodEnd"]) == (
        "2026-12-01T00:00:00Z",
        "2027-01-01T00:00:00Z",
    )
    assert (storage["BillingPeriodStart"], storage["BillingPeriodEnd"]) == (
        "2026-12-01T00:00:00Z",
        "2027-01-01T00:00:00Z",
    )
    assert (storage["x_TableVersion"], storage["x_PriceStatus"], storage["x_OptionId"]) == (
        "aws-s3@2025-12-01",
        "verified-secondary",
        "aws-s3:standard",
    )
    tier_1 = _rows(result.out)[1]  # 800,000 PUTs at $0.005 per 1,000
    assert {k: tier_1[k] for k in ("PricingUnit", "PricingQuantity", "ConsumedUnit", "ConsumedQuantity")} == {
        "PricingUnit": "1000 Requests",
        "PricingQuantity": "800",
        "ConsumedUnit": "Requests",
        "ConsumedQuantity": "800000",
    }


def test_a_negotiated_discount_is_the_contracted_cost_and_the_bill(run_cli: Run, tmp_path: Path) -> None:
    """15% off S3: ListCost 107.102096... at $0.023; ContractedUnitPrice 0.023 x 0.85 = 0.01955 and
    ContractedCost 91.0367816686630249023438 (the bill's own product, 28 digits); BilledCost $91.04."""
    data = yaml.safe_load((EXAMPLES / "web-assets.yaml").read_text())
    data["constraints"]["discounts"] = {"aws-s3": "15%"}
    workload = tmp_path / "discounted.yaml"
    workload.write_text(yaml.safe_dump(data))
    result = run_cli("cost", str(workload), "-p", "aws-s3", "--as-of", "2026-12-05", "-f", "focus")
    assert result.code == 0, result.err
    storage = _rows(result.out)[0]
    assert {k: storage[k] for k in ("ListCost", "ContractedUnitPrice", "ContractedCost", "BilledCost")} == {
        "ListCost": "107.102096080780029296875",
        "ContractedUnitPrice": "0.01955",
        "ContractedCost": "91.03678166866302490234375",
        "BilledCost": "91.04",
    }
    assert spec_problems(result.out) == []


EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))


@pytest.mark.parametrize("example", EXAMPLE_FILES, ids=[p.stem for p in EXAMPLE_FILES])
def test_every_examples_cost_projection_keeps_focus_1_2(run_cli: Run, example: Path) -> None:
    """Every example's three-month projection at S3 (each month's rows add up to its bill)."""
    args = ("cost", str(example), "-p", "aws-s3", "--as-of", "2026-12-05", "--months", "3")
    result = run_cli(*args, "-f", "focus")
    assert result.code == 0, result.err
    assert spec_problems(result.out) == []
    projection = run_cli(*args, "-f", "json")
    months = json.loads(projection.out)["months"]
    rows = _rows(result.out)
    for month in months:
        start = f"{month['as_of'][:8]}01T00:00:00Z"  # the calendar month the forecast month begins in
        billed = sum(Decimal(r["BilledCost"]) for r in rows if r["ChargePeriodStart"] == start)
        assert billed == Decimal(month["cost"]["total_usd"])


def test_recommend_writes_every_ranked_options_months_as_parquet(run_cli: Run, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "forecast.parquet"
    args = ("recommend", str(EXAMPLES / "backup-archive.yaml"), "--no-simulate", "--as-of", "2026-12-05")
    result = run_cli(*args, "-f", "focus", "--out", str(out))
    assert result.out == "", result.err
    table = pq.read_table(out)
    assert table.column_names == list(COLUMNS)
    assert str(table.schema.field("BilledCost").type) == "decimal128(38, 18)"
    assert str(table.schema.field("ChargePeriodStart").type).startswith("timestamp[")
    rows = table.to_pylist()
    ranking = run_cli(*args, "-f", "json")
    ranked = json.loads(ranking.out)
    months = ranked["months"]
    for option in ranked["ranking"]:
        option_id = f"{option['provider']}:{option['storage_class']}" + (
            f"@{option['region']}" if option["region"] else ""
        )
        mine = [r for r in rows if r["x_OptionId"] == option_id]
        assert len({r["ChargePeriodStart"] for r in mine}) == months, option_id
        first = min(r["ChargePeriodStart"] for r in mine)
        assert sum(r["BilledCost"] for r in mine if r["ChargePeriodStart"] == first) == Decimal(
            option["monthly_cost_usd"]
        )
    # the CSV of the same forecast keeps the spec too
    assert spec_problems(run_cli(*args, "-f", "focus").out) == []


def test_migrate_writes_the_moves_own_charges_at_the_side_that_bills_them(run_cli: Run) -> None:
    args = ("migrate", str(EXAMPLES / "web-assets.yaml"), "--from", "aws-s3", "--to", "cloudflare-r2")
    result = run_cli(*args, "--start", "2026-12-05", "-f", "focus")
    assert result.code == 0, result.err
    assert spec_problems(result.out) == []
    plan = json.loads(run_cli(*args, "--start", "2026-12-05", "-f", "json").out)
    rows = _rows(result.out)
    assert sum(Decimal(r["BilledCost"]) for r in rows) == Decimal(plan["one_time_cost_usd"])
    assert [r["ChargeDescription"] for r in rows] == [i["description"] for i in plan["one_time"]]
    sides = {(r["x_OptionId"], r["ProviderName"], r["PricingUnit"]) for r in rows if r["x_LineCategory"] != "requests"}
    assert (f"{plan['strategy']}/source/aws-s3:standard", "AWS", "GiB") in sides  # egress out of S3
    puts = [r for r in rows if r["ProviderName"] == "Cloudflare"]
    assert puts and {r["PricingUnit"] for r in puts} == {"1000000 Requests"}  # R2: Class A per million


def test_a_forecast_ingested_back_gives_the_workload_it_came_from(run_cli: Run, tmp_path: Path) -> None:
    """Write web-assets' S3 bill as FOCUS, ingest it as a bill: 5 TB stored (GiB-Months x 2^30), 50 TB
    egress (the free 100 GB counted too), 800,000 writes, and the reads and HEADs of tier 2 as reads."""
    bill = tmp_path / "forecast.csv"
    result = run_cli("cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "-f", "focus", "--out", str(bill))
    assert (result.code, result.out) == (0, ""), result.err
    ingested = run_cli("ingest", "cur", str(bill), "--out", str(tmp_path / "workloads"))
    assert ingested.code == 0, ingested.err
    workload = load_workload(tmp_path / "workloads" / "us-east-1.yaml")
    assert workload.stored_bytes(0) == 5 * 10**12
    assert workload.traffic.egress == 50 * 10**12
    assert (workload.traffic.writes, workload.traffic.reads) == (800_000, 190_734_864 + 5_000_000)


# ------------------------------------------------------------------ the options


def test_out_refuses_an_existing_file_without_force(run_cli: Run, tmp_path: Path) -> None:
    target = tmp_path / "forecast.csv"
    target.write_text("the old file\n")
    args = ("cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "-f", "focus", "--out", str(target))
    refused = run_cli(*args)
    assert (refused.code, refused.out, refused.err) == (
        2,
        "",
        f"planner: --out: {target} exists (use --force to replace it)\n",
    )
    assert target.read_text() == "the old file\n"
    forced = run_cli(*args, "--force")
    assert forced.code == 0, forced.err
    assert target.read_text().startswith("BilledCost,BillingAccountId,")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["-f", "json", "--out", "x.csv"],
            "planner: --out: writes the FOCUS rows of --format focus: add --format focus\n",
        ),
        (["-f", "focus", "--out", "x.txt"], "planner: --out: x.txt: name a .csv or .parquet file\n"),
    ],
)
def test_out_goes_with_format_focus_and_a_csv_or_parquet_name(run_cli: Run, args: list[str], error: str) -> None:
    result = run_cli("migrate", str(EXAMPLES / "web-assets.yaml"), "--from", "aws-s3", "--to", "wasabi", *args)
    assert (result.code, result.err) == (2, error)


def test_focus_is_not_a_format_of_commands_without_forecast_bills(run_cli: Run) -> None:
    result = run_cli("pricing", "list", "-f", "focus")
    assert result.code == 2
    assert "'focus' is not one of 'table', 'json', 'markdown', 'csv'" in result.err


def test_recommend_refuses_samples_with_format_focus_before_any_work(run_cli: Run) -> None:
    """FOCUS rows hold the bills; the outcomes of --samples would be dropped without a word."""
    result = run_cli("recommend", str(EXAMPLES / "web-assets.yaml"), "-f", "focus", "--samples", "10")
    assert (result.code, result.out, result.err) == (
        2,
        "",
        "planner: --samples: prices outcomes, which --format focus does not write (it writes the bills):"
        " leave out --samples\n",
    )


def test_a_placements_lines_name_their_own_class(run_cli: Run, tmp_path: Path) -> None:
    """1 TB in S3 Standard and 4 TB in Glacier Instant Retrieval: each storage line's SkuId names its
    class, the option is the placement; read back, the Standard line's requests are requests."""
    workload = tmp_path / "placed.yaml"
    workload.write_text(
        "name: placed\nstorage:\n  stored: 5 TB\n  object_size: 1 MiB\n"
        "  placement: {standard: 1 TB, glacier-ir: 4 TB}\ntraffic:\n  egress: 1 TB\n  writes: 1000\n"
    )
    result = run_cli("cost", str(workload), "-p", "aws-s3", "--as-of", "2026-12-05", "-f", "focus")
    assert result.code == 0, result.err
    rows = _rows(result.out)
    assert [r["SkuId"] for r in rows if r["x_LineCategory"] == "storage"] == [
        "aws-s3/us-east-1/standard/storage",
        "aws-s3/us-east-1/glacier-ir/storage",
    ]
    assert {r["x_OptionId"] for r in rows} == {"aws-s3:standard+glacier-ir"}
    assert spec_problems(result.out) == []
    bill = tmp_path / "placed.csv"
    bill.write_text(result.out)
    assert run_cli("ingest", "cur", str(bill), "--out", str(tmp_path / "back")).code == 0
    assert load_workload(tmp_path / "back" / "us-east-1.yaml").traffic.writes == 1000
