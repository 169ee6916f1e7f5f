"""Workloads from a user's own AWS bill: Cost and Usage Reports and FOCUS exports.

``read_bill`` streams one or more exports (legacy CUR CSV, CUR 2.0 / Data Exports, either as CSV,
gzipped CSV or Parquet, and FOCUS 1.x CSV) and sums the Amazon S3 rows into usage groups: one per
region (or bucket, where the export has resource ids), usage type and operation class, each with
the rows it came from. ``workloads`` turns the groups into workload files, every figure with its
provenance; ``reconcile`` prices each group with the matching price table and sets planner's
amount beside the bill's own.

How a bill is read (AWS's CUR data dictionary and usage-type names):
- storage ``UsageAmount`` is already GB-months (byte-hours / 2^30 / hours in the month), so a
  month's GB-months are its average stored GB;
- usage types carry a region prefix (``USW2-``; none for us-east-1): it is stripped, and the
  region is taken from ``product/regionCode`` (or ``product/fromRegionCode`` for transfer rows);
- control-plane requests (``ListAllMyBuckets``, bucket configuration) are billed among the
  data-plane ones: they are counted, but not as reads or writes;
- FOCUS rows are decoded to usage types, best first: AWS's FOCUS 1.0 export "with AWS columns"
  carries ``x_UsageType`` and ``x_Operation`` (the CUR's own values; AWS Data Exports table
  dictionary, FOCUS 1.0 with AWS columns), read exactly as a CUR's; otherwise a row's ``SkuId`` is
  looked up in an AWS Price List offer file the user gives (products by SKU, each with its
  ``attributes.usagetype`` and ``operation``); otherwise the row is classed from its
  ``PricingUnit`` and ``ChargeDescription`` (the price list's own wording), which is weaker. The
  notes say how many rows each way decoded.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import gzip
import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.errors import InputError, PlannerError

if TYPE_CHECKING:
    from planner.pricing.models import PriceTable

GIB = 2**30
# AWS usage-type region prefixes (the CUR's usage types; us-east-1 has none, or USE1 in transfer pairs).
REGION_PREFIXES: dict[str, str] = {
    "USE1": "us-east-1",
    "USE2": "us-east-2",
    "USW1": "us-west-1",
    "USW2": "us-west-2",
    "CAN1": "ca-central-1",
    "CAN2": "ca-west-1",
    "EU": "eu-west-1",
    "EUW2": "eu-west-2",
    "EUW3": "eu-west-3",
    "EUC1": "eu-central-1",
    "EUC2": "eu-central-2",
    "EUN1": "eu-north-1",
    "EUS1": "eu-south-1",
    "EUS2": "eu-south-2",
    "APN1": "ap-northeast-1",
    "APN2": "ap-northeast-2",
    "APN3": "ap-northeast-3",
    "APS1": "ap-southeast-1",
    "APS2": "ap-southeast-2",
    "APS3": "ap-south-1",
    "APS4": "ap-southeast-3",
    "APS5": "ap-south-2",
    "APS6": "ap-southeast-4",
    "APE1": "ap-east-1",
    "SAE1": "sa-east-1",
    "MEC1": "me-central-1",
    "MES1": "me-south-1",
    "AFS1": "af-south-1",
    "ILC1": "il-central-1",
}

# Storage usage types (region prefix stripped) to planner's storage class ids.
_STORAGE_CLASSES: dict[str, str] = {
    "TimedStorage-ByteHrs": "standard",
    "TimedStorage-SIA-ByteHrs": "standard-ia",
    "TimedStorage-SIA-SmObjects": "standard-ia",
    "TimedStorage-ZIA-ByteHrs": "onezone-ia",
    "TimedStorage-ZIA-SmObjects": "onezone-ia",
    "TimedStorage-GIR-ByteHrs": "glacier-ir",
    "TimedStorage-GIR-SmObjects": "glacier-ir",
    "TimedStorage-GlacierByteHrs": "glacier-flexible",
    "TimedStorage-GDA-ByteHrs": "deep-archive",
    "TimedStorage-INT-FA-ByteHrs": "intelligent-tiering",
    "TimedStorage-INT-IA-ByteHrs": "intelligent-tiering",
    "TimedStorage-INT-AIA-ByteHrs": "intelligent-tiering",
}
_EARLY_DELETE: dict[str, str] = {
    "EarlyDelete-ByteHrs": "glacier-flexible",
    "EarlyDelete-SIA": "standard-ia",
    "EarlyDelete-SIA-SmObjects": "standard-ia",
    "EarlyDelete-ZIA": "onezone-ia",
    "EarlyDelete-ZIA-SmObjects": "onezone-ia",
    "EarlyDelete-GIR": "glacier-ir",
    "EarlyDelete-GIR-SmObjects": "glacier-ir",
    "EarlyDelete-GDA": "deep-archive",
}
# Request usage types to (class, request tier); the operation column says which requests they were.
_REQUESTS: dict[str, tuple[str, str]] = {
    "Requests-Tier1": ("standard", "tier-1"),
    "Requests-Tier2": ("standard", "tier-2"),
    "Requests-Tier3": ("glacier-flexible", "tier-1"),
    "Requests-SIA-Tier1": ("standard-ia", "tier-1"),
    "Requests-SIA-Tier2": ("standard-ia", "tier-2"),
    "Requests-ZIA-Tier1": ("onezone-ia", "tier-1"),
    "Requests-ZIA-Tier2": ("onezone-ia", "tier-2"),
    "Requests-GIR-Tier1": ("glacier-ir", "tier-1"),
    "Requests-GIR-Tier2": ("glacier-ir", "tier-2"),
    "Requests-GDA-Tier1": ("deep-archive", "tier-1"),
    "Requests-GDA-Tier3": ("deep-archive", "tier-1"),
    "Requests-INT-Tier1": ("intelligent-tiering", "tier-1"),
    "Requests-INT-Tier2": ("intelligent-tiering", "tier-2"),
}
# The CUR's operation names for requests, to planner's operations.
_OPERATIONS: dict[str, str] = {
    "PutObject": "put",
    "CopyObject": "copy",
    "PostObject": "post",
    "ListBucket": "list",
    "ListBucketVersions": "list",
    "ListObjectsV2": "list",
    "ListAllMyBuckets": "list-buckets",
    "GetObject": "get",
    "GetObjectForRepl": "get",
    "HeadObject": "head",
    "SelectObjectContent": "select",
    "DeleteObject": "delete",
    "CreateMultipartUpload": "create-multipart",
    "InitiateMultipartUpload": "create-multipart",
    "UploadPart": "upload-part",
    "UploadPartCopy": "upload-part",
    "CompleteMultipartUpload": "complete-multipart",
    "AbortMultipartUpload": "abort-multipart",
    "ListMultipartUploadParts": "list-parts",
    "ListAllMultipartUploads": "list-parts",
    "S3-GlacierTransition": "lifecycle-transition",
    "S3-GDATransition": "lifecycle-transition",
    "S3-SIATransition": "lifecycle-transition",
    "S3-ZIATransition": "lifecycle-transition",
    "S3-GIRTransition": "lifecycle-transition",
    "RestoreObject": "restore",
}
Kind = Literal[
    "storage", "overhead", "requests", "egress", "inter-region", "ingress", "early-deletion", "retrieval", "other"
]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class UsageGroup(_Model):
    """The rows of one region (or bucket), usage type and operation, summed."""

    scope: str = Field(description="the region, or the bucket where the export names resources")
    region: str
    usage_type: str = Field(description="the usage type without its region prefix")
    operation: str = Field(description="the bill's operation (StandardStorage, GetObject, ...)")
    kind: Kind
    storage_class: str | None = None
    planner_operation: str | None = Field(None, description="planner's operation id, for requests")
    quantity: Decimal
    unit: str
    billed_usd: Decimal = Field(description="unblended cost (FOCUS: BilledCost)")
    list_usd: Decimal | None = Field(None, description="public on-demand cost (FOCUS: ListCost)")
    rates: list[Decimal] = Field(default_factory=list, description="the bill's distinct unit prices")
    rows: int
    first_lines: list[str] = Field(description="where the first rows are (file:line)")


class BadRow(_Model):
    where: str
    reason: str


class Bill(_Model):
    """What ``read_bill`` found: S3 usage groups and what it could not read."""

    format: Literal["cur", "focus"]
    files: list[str]
    periods: list[dt.date] = Field(description="billing periods (first days) the rows belong to")
    groups: list[UsageGroup]
    bad_rows: int = 0
    first_bad: list[BadRow] = Field(default_factory=list)
    other_rows: int = Field(0, description="rows of other services, taxes and credits, not read")
    notes: list[str] = Field(default_factory=list)


class IngestedWorkload(_Model):
    name: str
    scope: str
    region: str
    text: str = Field(description="the workload file, with each figure's provenance as a comment")


class ReconcileLine(_Model):
    scope: str
    region: str
    usage_type: str
    operation: str
    quantity: Decimal
    unit: str
    billed_usd: Decimal
    list_usd: Decimal | None = Field(
        None, description="the bill's list cost (FOCUS ListCost): planner is set beside it where the bill has it"
    )
    planner_usd: Decimal | None
    difference_usd: Decimal | None = Field(description="planner less the list cost where the bill has one, else billed")
    table_version: str | None
    cause: str = Field(description="why the two differ, or why planner has no figure")


class Reconciliation(_Model):
    lines: list[ReconcileLine]
    billed_usd: Decimal
    planner_usd: Decimal = Field(description="planner's sum over the lines it could price")
    priced_billed_usd: Decimal = Field(description="the bill's sum over the same lines")
    priced_list_usd: Decimal | None = Field(
        None, description="the bill's list cost over the same lines, where every one has it (FOCUS)"
    )
    placements: list[ReconcileLine] = Field(
        default_factory=list,
        description="each ingested workload's storage.placement priced as planner cost prices it, beside the"
        " bill's storage and object-overhead rows (not in the totals above: the same rows, priced another way)",
    )


def snake(column: str) -> str:
    """``lineItem/UsageType`` and ``line_item_usage_type`` to one name."""
    parts = column.strip().split("/")
    return "_".join(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", p).lower() for p in parts)


def _rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows as (line or row number, columns by snake-case name); CSV, gzipped CSV or Parquet. The
    first item, numbered 0, is the header alone (every column empty)."""
    name = path.name.lower()
    if name.endswith(".parquet"):
        yield from _parquet_rows(path)
        return
    with (
        gzip.open(path, "rb") if name.endswith(".gz") else path.open("rb") as raw,
        io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as text,
    ):
        reader = csv.reader(text)
        try:
            header = next(reader)
        except StopIteration:
            raise InputError("the file is empty", source=str(path)) from None
        except (UnicodeDecodeError, csv.Error, OSError) as error:
            raise InputError(f"not a CSV export ({_brief(error)})", source=str(path)) from None
        names = [snake(c) for c in header]
        yield 0, dict.fromkeys(names, "")
        try:
            for row in reader:
                yield reader.line_num, dict(zip(names, row, strict=False))
        except (UnicodeDecodeError, csv.Error, OSError, EOFError) as error:
            raise InputError(f"unreadable at line {reader.line_num + 1} ({_brief(error)})", source=str(path)) from None


def _parquet_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("reading Parquet needs pyarrow: pip install 'planner[ingest]'", source=str(path)) from None
    try:
        parquet = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises its own error types for a file that is not Parquet
        raise InputError(f"not a Parquet file ({_brief(error)})", source=str(path)) from None
    yield 0, dict.fromkeys((snake(c) for c in parquet.schema_arrow.names), "")
    number = 0
    for batch in parquet.iter_batches(batch_size=65_536):
        columns = [snake(c) for c in batch.schema.names]
        for values in zip(*(col.to_pylist() for col in batch.columns), strict=True):
            number += 1
            yield number, {c: "" if v is None else str(v) for c, v in zip(columns, values, strict=True)}


def _brief(error: BaseException) -> str:
    return " ".join(str(error).split())[:120] or type(error).__name__


def _decimal(text: str) -> Decimal:
    value = Decimal(text.strip() or "0")
    if not value.is_finite():
        raise InvalidOperation
    return value


def _strip_region(usage_type: str) -> tuple[str | None, str]:
    """``USW2-TimedStorage-ByteHrs`` to ("us-west-2", "TimedStorage-ByteHrs"); no prefix: us-east-1."""
    head, dash, rest = usage_type.partition("-")
    if dash and head in REGION_PREFIXES:
        return REGION_PREFIXES[head], rest
    return None, usage_type


def classify(usage_type: str, operation: str) -> tuple[Kind, str | None, str | None]:
    """A usage type (region prefix stripped) and operation: (kind, storage class, planner operation)."""
    if usage_type in _STORAGE_CLASSES:
        storage_class = _STORAGE_CLASSES[usage_type]
        if operation.endswith("ObjectOverhead"):  # Glacier's per-object index and metadata bytes
            return "overhead", storage_class if operation == "GlacierObjectOverhead" else "standard", None
        return "storage", storage_class, None
    if usage_type in _EARLY_DELETE:
        return "early-deletion", _EARLY_DELETE[usage_type], None
    if usage_type in _REQUESTS:
        return "requests", _REQUESTS[usage_type][0], _OPERATIONS.get(operation)
    if usage_type == "DataTransfer-Out-Bytes":
        return "egress", None, None
    if usage_type in ("DataTransfer-In-Bytes", "CloudFront-In-Bytes") or usage_type.endswith("-AWS-In-Bytes"):
        return "ingress", None, None
    if usage_type.endswith("-AWS-Out-Bytes"):
        return "inter-region", None, None
    if usage_type.startswith("Retrieval-"):
        return "retrieval", _RETRIEVAL.get(usage_type.removeprefix("Retrieval-")), None
    return "other", None, None


_RETRIEVAL = {"SIA": "standard-ia", "ZIA": "onezone-ia", "GIR": "glacier-ir"}
# A transfer usage type named inside a FOCUS charge description
_NAMED_TRANSFER = re.compile(r"\b(?:[A-Z]{2,4}[0-9]?-)?[A-Z]{2,4}[0-9]?-AWS-(Out|In)-Bytes\b")


def _focus_kind(row: dict[str, str]) -> tuple[str, str, Kind, str | None, str | None]:
    """(usage type, operation, kind, class, planner operation) for an S3 FOCUS row, from its unit and
    description (FOCUS has no usage type)."""
    unit = row.get("pricing_unit", "") or row.get("consumed_unit", "")
    text = row.get("charge_description", "")
    lower = text.lower()
    named = _NAMED_TRANSFER.search(text)  # "USD 0.02 per GB for EUN1-AWS-Out-Bytes in Africa (Cape Town)"
    if named:
        kind: Kind = "inter-region" if named.group(1) == "Out" else "ingress"
        return f"AWS-{named.group(1)}-Bytes", "", kind, None, None
    if "data transfer" in lower:
        # "data transfer out beyond the global free tier" is the internet tier ladder's wording
        if "internet" in lower or "data transfer out" in lower:
            return "DataTransfer-Out-Bytes", "", "egress", None, None
        if "data transfer from" in lower or "data transfer in" in lower:
            return "AWS-In-Bytes", "", "ingress", None, None
        return "AWS-Out-Bytes", "", "inter-region", None, None
    if unit.lower() == "requests":
        if "put, copy, post, or list" in lower or "put, copy, post" in lower:
            return "Requests-Tier1", "PutObject", "requests", "standard", "put"
        if "get and all other" in lower:
            return "Requests-Tier2", "GetObject", "requests", "standard", "get"
        return "Requests", "", "other", None, None
    if unit.lower() in ("gb-mo", "gb-month", "gb-months"):
        if "glacier" in lower and "deep" in lower:
            return "TimedStorage-GDA-ByteHrs", "", "storage", "deep-archive", None
        if "glacier" in lower:
            return "TimedStorage-GlacierByteHrs", "", "storage", "glacier-flexible", None
        if "infrequent" in lower:
            return "TimedStorage-SIA-ByteHrs", "", "storage", "standard-ia", None
        return "TimedStorage-ByteHrs", "", "storage", "standard", None
    return text or "unknown", "", "other", None, None


def sku_usage_types(offer: object, source: str) -> dict[str, tuple[str, str]]:
    """SKU to (usage type, operation) from an AWS Price List offer file (AmazonS3 or
    AWSDataTransfer): what a FOCUS row's ``SkuId`` stands for."""
    products = offer.get("products") if isinstance(offer, dict) else None
    if not isinstance(products, dict):
        raise InputError("not an AWS Price List offer file (no products by SKU)", source=source)
    found: dict[str, tuple[str, str]] = {}
    for sku, product in products.items():
        attributes = product.get("attributes") if isinstance(product, dict) else None
        if isinstance(attributes, dict) and isinstance(attributes.get("usagetype"), str):
            found[str(sku)] = (attributes["usagetype"], str(attributes.get("operation") or ""))
    if not found:
        raise InputError("the offer file names no product with attributes.usagetype", source=source)
    return found


def read_bill(
    paths: Iterable[Path],
    *,
    bucket: str | None = None,
    region: str | None = None,
    progress: Callable[[int], None] | None = None,
    skus: dict[str, tuple[str, str]] | None = None,
) -> Bill:
    """Sum the S3 rows of billing exports; ``bucket`` / ``region`` keep only those rows; ``skus``
    (from ``sku_usage_types``) decodes FOCUS rows without ``x_UsageType`` by their ``SkuId``."""
    files = [Path(p) for p in paths]
    if not files:
        raise InputError("give at least one export file")
    groups: dict[tuple[str, str, str, str], _Accumulator] = {}
    periods: set[dt.date] = set()
    bad: list[BadRow] = []
    bad_count = other = 0
    kinds: set[str] = set()
    decoded: Counter[str] = Counter()
    seen = 0
    for path in files:
        fmt: Literal["cur", "focus"] | None = None
        for number, row in _rows(path):
            if number == 0:
                fmt = _format(row, path)
                kinds.add(fmt)
                continue
            assert fmt is not None
            seen += 1
            if progress is not None and seen % 100_000 == 0:
                progress(seen)
            try:
                parsed = _parse_row(row, fmt, skus or {})
            except (InvalidOperation, ValueError) as error:
                bad_count += 1
                if len(bad) < 5:
                    bad.append(BadRow(where=f"{path}:{number}", reason=_brief(error) or "unreadable number"))
                continue
            if parsed is None:
                other += 1
                continue
            if bucket is not None and parsed.bucket != bucket:
                continue
            if region is not None and parsed.region != region:
                continue
            if parsed.period is not None:
                periods.add(parsed.period)
            decoded[parsed.decoded_by] += 1
            scope = parsed.bucket or parsed.region
            key = (scope, parsed.usage_type, parsed.operation, parsed.unit)
            if key not in groups:
                groups[key] = _Accumulator(scope, parsed)
            groups[key].add(parsed, f"{path.name}:{number}")
    if len(kinds) > 1:
        raise InputError("the files mix CUR and FOCUS exports: ingest each kind on its own")
    fmt_all: Literal["cur", "focus"] = "focus" if kinds == {"focus"} else "cur"
    notes = []
    if fmt_all == "focus":
        notes.append(
            "FOCUS S3 rows decoded: "
            + ", ".join(f"{decoded[how]:,} {_DECODED[how]}" for how in _DECODED if decoded[how])
            + (
                " (weaker: give an export with AWS columns, or --offer with AWS's price list, to decode SkuId)"
                if decoded["description"]
                else ""
            )
        )
    out = [g.group() for g in groups.values()]
    out.sort(key=lambda g: (g.scope, g.kind, g.usage_type, g.operation))
    return Bill(
        format=fmt_all,
        files=[str(p) for p in files],
        periods=sorted(periods),
        groups=out,
        bad_rows=bad_count,
        first_bad=bad,
        other_rows=other,
        notes=notes,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class _Row:
    period: dt.date | None
    bucket: str | None
    region: str
    usage_type: str
    operation: str
    kind: Kind
    storage_class: str | None
    planner_operation: str | None
    quantity: Decimal
    unit: str
    cost: Decimal
    listed: Decimal | None
    rate: Decimal | None
    decoded_by: str = "usage type"


class _Accumulator:
    """A usage group being summed."""

    def __init__(self, scope: str, first: _Row) -> None:
        self.scope, self.first = scope, first
        self.quantity = self.cost = Decimal(0)
        self.listed: Decimal | None = None
        self.rates: set[Decimal] = set()
        self.rows = 0
        self.lines: list[str] = []

    def add(self, row: _Row, where: str) -> None:
        self.quantity += row.quantity
        self.cost += row.cost
        if row.listed is not None:
            self.listed = (self.listed or Decimal(0)) + row.listed
        if row.rate is not None:
            self.rates.add(row.rate)
        self.rows += 1
        if len(self.lines) < 3:
            self.lines.append(where)

    def group(self) -> UsageGroup:
        row = self.first
        return UsageGroup(
            scope=self.scope,
            region=row.region,
            usage_type=row.usage_type,
            operation=row.operation,
            kind=row.kind,
            storage_class=row.storage_class,
            planner_operation=row.planner_operation,
            quantity=self.quantity,
            unit=row.unit,
            billed_usd=self.cost,
            list_usd=self.listed,
            rates=sorted(self.rates),
            rows=self.rows,
            first_lines=self.lines,
        )


def _format(row: dict[str, str], path: Path) -> Literal["cur", "focus"]:
    if "line_item_usage_type" in row:
        return "cur"
    if "billed_cost" in row and "charge_category" in row:
        return "focus"
    raise InputError(
        "not a Cost and Usage Report or FOCUS export (no lineItem/UsageType or BilledCost column)", source=str(path)
    )


_DECODED = {
    "x_UsageType": "by x_UsageType and x_Operation",
    "SkuId": "by SkuId through the offer file",
    "description": "from pricing unit and charge description",
}


def _focus_usage_type(row: dict[str, str], skus: dict[str, tuple[str, str]]) -> tuple[str, str, str] | None:
    """(usage type with its region prefix, operation, how it was found) for a FOCUS row, or None."""
    usage_type = row.get("x_usage_type", "").strip()
    if usage_type and usage_type != "NULL":
        operation = row.get("x_operation", "").strip()
        return usage_type, "" if operation == "NULL" else operation, "x_UsageType"
    sku = row.get("sku_id", "").strip()
    if sku in skus:
        return *skus[sku], "SkuId"
    return None


def _parse_row(row: dict[str, str], fmt: Literal["cur", "focus"], skus: dict[str, tuple[str, str]]) -> _Row | None:
    if fmt == "cur":
        if row.get("line_item_product_code") != "AmazonS3" or row.get("line_item_line_item_type") not in (
            "Usage",
            "DiscountedUsage",
        ):
            return None
        prefixed = row.get("line_item_usage_type", "")
        prefix_region, usage_type = _strip_region(prefixed)
        region = (
            row.get("product_region_code")
            or row.get("product_from_region_code")
            or prefix_region
            or ("us-east-1" if prefixed == usage_type else "")
        )
        if not region:
            raise ValueError(f"no region for usage type {prefixed!r}")
        operation = row.get("line_item_operation", "")
        kind, cls, op = classify(usage_type, operation)
        listed = row.get("pricing_public_on_demand_cost", "")
        rate = row.get("line_item_unblended_rate", "")
        resource = row.get("line_item_resource_id", "")
        return _Row(
            _period(row.get("bill_billing_period_start_date", "")),
            resource or None,
            region,
            usage_type,
            operation,
            kind,
            cls,
            op,
            _decimal(row.get("line_item_usage_amount", "")),
            row.get("pricing_unit", ""),
            _decimal(row.get("line_item_unblended_cost", "")),
            _decimal(listed) if listed.strip() else None,
            _decimal(rate) if rate.strip() else None,
        )
    if row.get("service_name") != "Amazon Simple Storage Service" or row.get("charge_category") != "Usage":
        return None
    known = _focus_usage_type(row, skus)
    if known is not None:
        prefixed, operation, how = known
        usage_type = _strip_region(prefixed)[1]
        kind, cls, op = classify(usage_type, operation)
    else:
        usage_type, operation, kind, cls, op = _focus_kind(row)
        how = "description"
    resource = row.get("resource_id", "")
    unit_price = row.get("list_unit_price", "")
    return _Row(
        _period(row.get("billing_period_start", "")),
        None if resource in ("", "NULL") else resource,
        row.get("region_id", "") or "unknown",
        usage_type,
        operation,
        kind,
        cls,
        op,
        _decimal(row.get("consumed_quantity", "") if row.get("consumed_quantity") != "NULL" else "0"),
        row.get("pricing_unit", ""),
        _decimal(row.get("billed_cost", "")),
        _decimal(row["list_cost"]) if row.get("list_cost", "NULL") not in ("", "NULL") else None,
        _decimal(unit_price) if unit_price not in ("", "NULL") else None,
        how,
    )


def _period(text: str) -> dt.date | None:
    text = text.strip()
    if not text:
        return None
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        raise ValueError(f"billing period start {text[:30]!r} is not a date") from None


# --- workloads ---------------------------------------------------------------------------------

_WRITE_OPS = ("put", "copy", "post", "complete-multipart")
_ARCHIVE_OBJECT_OVERHEAD = 32768  # Glacier / Deep Archive index bytes per object, billed at the class rate


def _bytes(gb: Decimal) -> int:
    return int((gb * GIB).to_integral_value())


def _where(groups: list[UsageGroup]) -> str:
    rows = sum(g.rows for g in groups)
    names = sorted({f"{g.usage_type} ({g.operation})" if g.operation else g.usage_type for g in groups})
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return f"{rows:,} rows of {shown}"


def workloads(bill: Bill) -> list[IngestedWorkload]:
    """One workload file per region (or bucket), each figure with its provenance as a comment."""
    months = max(len(bill.periods), 1)
    scopes: dict[str, list[UsageGroup]] = {}
    for group in bill.groups:
        scopes.setdefault(group.scope, []).append(group)
    return [_workload(scope, groups, bill, months) for scope, groups in sorted(scopes.items())]


def _workload(scope: str, groups: list[UsageGroup], bill: Bill, months: int) -> IngestedWorkload:
    from planner.units import format_bytes

    region = groups[0].region
    per_month = Decimal(months)
    storage = [g for g in groups if g.kind == "storage"]
    gb_months: dict[str, Decimal] = {}
    for g in storage:
        assert g.storage_class is not None
        gb_months[g.storage_class] = gb_months.get(g.storage_class, Decimal(0)) + g.quantity / per_month
    by_class = {cls: _bytes(gb) for cls, gb in gb_months.items()}
    stored = _bytes(sum(gb_months.values(), Decimal(0)))
    period = ", ".join(p.strftime("%Y-%m") for p in bill.periods) or "unknown"
    lines = [
        f"# Workload of {scope} ({region}), read from {', '.join(Path(f).name for f in bill.files)}",
        f"# ({'FOCUS export' if bill.format == 'focus' else 'Cost and Usage Report'}, billing period {period}"
        + (f", averaged over {months} months" if months > 1 else "")
        + ").",
        "# Each figure says which rows it came from; review every ASSUMED one before trusting an answer.",
        f"name: {_quote(scope)}",
        f"description: {_quote(f'Amazon S3 usage of {scope} from its bill ({period})')}",
        "storage:",
    ]
    if storage:
        lines.append(f"  # {_where(storage)}: UsageAmount is GB-months (2^30 bytes) = the month's average stored")
        shares = ", ".join(
            f"{cls} {format_bytes(b, binary=True)} ({100 * b / stored:.1f} %)" if stored else f"{cls} 0 B"
            for cls, b in sorted(by_class.items(), key=lambda kv: -kv[1])
        )
        lines.append(f"  # current placement: {shares}; cost prices each class on its own bytes")
        held = sorted(((cls, b) for cls, b in by_class.items() if b > 0), key=lambda kv: -kv[1])
        if held:
            lines.append("  placement:")
            lines += [f'    {cls}: "{class_bytes} B"' for cls, class_bytes in held]
    else:
        lines.append("  # no storage rows for this scope in the bill: nothing stored (ASSUMED)")
    lines.append(f'  stored: "{stored} B"')
    overhead = [g for g in groups if g.kind == "overhead" and g.storage_class in ("glacier-flexible", "deep-archive")]
    archived_bytes = sum(v for k, v in by_class.items() if k in ("glacier-flexible", "deep-archive"))
    archived_objects = sum(_bytes(g.quantity / per_month) for g in overhead) // _ARCHIVE_OBJECT_OVERHEAD
    if archived_objects and archived_bytes:
        mean = max(archived_bytes // archived_objects, 1)
        lines.append(
            f"  # {archived_objects:,} archived objects from {_where(overhead)} (32 KiB of index an object);"
            f" mean {format_bytes(mean, binary=True)}"
            + ("" if archived_bytes == stored else "; the bill counts no other objects: the same mean is ASSUMED")
        )
        lines.append(f'  object_size: "{mean} B"')
    else:
        lines.append(
            "  # ASSUMED: a bill has no object count; give storage.objects or size_distribution from an S3 Inventory"
        )
        # 1 MiB, or what is stored when that is less (a workload holds at least one object)
        lines.append(f'  object_size: "{min(2**20, stored) if stored else 2**20} B"')
    lines.append("traffic:")
    requests = [g for g in groups if g.kind == "requests"]

    def count(ops: tuple[str, ...], field: str) -> None:
        chosen = [g for g in requests if g.planner_operation in ops]
        total = int(sum((g.quantity for g in chosen), Decimal(0)) / per_month)
        if chosen:
            lines.append(f"  # {_where(chosen)}")
        else:
            lines.append(f"  # no {'/'.join(ops)} rows: 0")
        lines.append(f"  {field}: {total}")

    count(("get",), "reads")
    placed = {cls for cls, b in by_class.items() if b > 0}
    gets_by_class: dict[str, list[UsageGroup]] = {}
    for g in requests:
        if g.planner_operation == "get" and g.storage_class in placed:
            gets_by_class.setdefault(g.storage_class, []).append(g)
    if len(placed) > 1 and set(gets_by_class) - {"standard"}:
        lines.append(
            "  # GETs by the class they read (the request usage type names it), so each class pays its own"
            " request price and retrieval"
        )
        lines.append("  reads_by_class:")
        for cls, chosen in sorted(gets_by_class.items()):
            lines.append(f"    # {_where(chosen)}")
            lines.append(f"    {cls}: {int(sum((g.quantity for g in chosen), Decimal(0)) / per_month)}")
    count(_WRITE_OPS, "writes")
    count(("head",), "heads")
    count(("list",), "lists")
    other = [g for g in requests if g.planner_operation not in (*_WRITE_OPS, "get", "head", "list")]
    if other:
        total = int(sum((g.quantity for g in other), Decimal(0)))
        lines.append(
            f"  # not in this workload: {total:,} other requests (bucket configuration, transitions, ...)"
            f" from {_where(other)}; reconcile prices them"
        )
    for kind, field, what in (
        ("egress", "egress", "DataTransfer-Out-Bytes, GB of 2^30 bytes"),
        ("inter-region", "inter_region", "transfer to other AWS regions"),
    ):
        chosen = [g for g in groups if g.kind == kind]
        total = _bytes(sum((g.quantity for g in chosen), Decimal(0)) / per_month)
        lines.append(f"  # {_where(chosen)} ({what})" if chosen else f"  # no {what} rows: 0")
        lines.append(f'  {field}: "{total} B"')
    lines += [
        "constraints:",
        "  # compare every provider, as recommend does by default; the current placement is above",
        "  months: 12",
    ]
    text = "\n".join(lines) + "\n"
    return IngestedWorkload(name=_file_name(scope), scope=scope, region=region, text=text)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _file_name(scope: str) -> str:
    """A safe file name for a region or bucket (an ARN or a key-like id keeps only its last part)."""
    tail = scope.rsplit(":", 1)[-1].rsplit("/", 1)[-1]
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", tail).strip(".-") or "bill"
    return f"{name}.yaml"


# --- reconciliation ----------------------------------------------------------------------------

_TIER_OPERATION = {"tier-1": "put", "tier-2": "get"}
# Amounts in a CUR carry 10 decimal places: two figures this close are equal.
_CUR_RESOLUTION = Decimal("0.0000001")
TableFinder = Callable[[str, dt.date | None], "PriceTable | None"]


def _shipped_table(region: str, as_of: dt.date | None) -> PriceTable | None:
    """The aws-s3 table of ``region`` in force in the billing period; when the region's tables all
    begin later, the earliest (each reconciled line then names its version, so the gap shows)."""
    from planner.errors import PricingError
    from planner.pricing.catalog import versions

    try:
        dated = versions("aws-s3", None if region == "us-east-1" else region)
    except PricingError:
        return None
    usable = [t for t in dated if as_of is None or t.effective_from <= as_of]
    return (usable or list(dated[:1]))[-1]


def reconcile(bill: Bill, *, tables: TableFinder | None = None) -> Reconciliation:
    """Price every S3 usage type of the bill with the matching table and set it beside the bill."""
    find = tables or _shipped_table
    as_of = bill.periods[-1] if bill.periods else None
    merged: dict[tuple[str, str, str, str | None], list[UsageGroup]] = {}
    for group in bill.groups:
        # transfer in is free from everywhere: one line per scope, not one per source region
        usage_type = "AWS-In-Bytes (all sources)" if group.kind == "ingress" else group.usage_type
        merged.setdefault((group.scope, usage_type, group.kind, group.storage_class), []).append(group)
    focus = bill.format == "focus"
    lines = [_reconcile_line(groups, find(groups[0].region, as_of), as_of, focus) for groups in merged.values()]
    priced = [line for line in lines if line.planner_usd is not None]
    placements = [
        line
        for ingested in workloads(bill)
        if (line := _placement_line(ingested, bill, find(ingested.region, as_of), as_of)) is not None
    ]
    return Reconciliation(
        lines=lines,
        billed_usd=sum((line.billed_usd for line in lines), Decimal(0)),
        planner_usd=sum((line.planner_usd or Decimal(0) for line in priced), Decimal(0)),
        priced_billed_usd=sum((line.billed_usd for line in priced), Decimal(0)),
        priced_list_usd=(
            sum((line.list_usd or Decimal(0) for line in priced), Decimal(0))
            if priced and all(line.list_usd is not None for line in priced)
            else None
        ),
        placements=placements,
    )


def _placement_line(
    ingested: IngestedWorkload, bill: Bill, table: PriceTable | None, as_of: dt.date | None
) -> ReconcileLine | None:
    """The written workload's placement priced as ``planner cost`` prices it (storage, minimums and
    per-object overheads of each class; no traffic), against the bill's storage and overhead rows."""
    from planner.costing import placement_cost
    from planner.pricing.catalog import load_yaml
    from planner.workload import Traffic, parse_workload

    groups = [g for g in bill.groups if g.scope == ingested.scope and g.kind in ("storage", "overhead")]
    if not groups:
        return None
    try:
        workload = parse_workload(load_yaml(ingested.text, ingested.name), ingested.name)
    except PlannerError:
        return None
    placement = workload.storage.placement
    if placement is None:
        return None
    months = Decimal(max(len(bill.periods), 1))
    billed = sum((g.billed_usd for g in groups), Decimal(0)) / months
    gb_months = sum((g.quantity for g in groups if g.kind == "storage"), Decimal(0)) / months
    base = {
        "scope": ingested.scope,
        "region": ingested.region,
        "usage_type": "placement: " + " + ".join(placement),
        "operation": "storage and object overhead",
        "quantity": gb_months,
        "unit": "GB-Mo",
        "billed_usd": billed,
    }
    if table is None:
        return ReconcileLine(
            **base,
            planner_usd=None,
            difference_usd=None,
            table_version=None,
            cause=f"no aws-s3 table for {ingested.region}",
        )
    stored_only = workload.model_copy(update={"traffic": Traffic(reads=0, writes=0)})
    try:
        cost = placement_cost(stored_only, table, as_of or table.effective_from)
    except PlannerError as error:
        return ReconcileLine(**base, planner_usd=None, difference_usd=None, table_version=None, cause=str(error))
    amount = sum(
        (i.amount_unrounded_usd or i.amount_usd for i in cost.line_items if i.category in ("storage", "minimum")),
        Decimal(0),
    ).quantize(_CUR_RESOLUTION / 1000)
    per = f"a month's average of {months} billing periods; " if months > 1 else ""
    cause = f"{per}{ingested.name} as planner cost prices it, each class on its own bytes" + _agree(
        amount, billed, gb_months
    )
    return ReconcileLine(
        **base, planner_usd=amount, difference_usd=amount - billed, table_version=table.version, cause=cause
    )


def _reconcile_line(
    groups: list[UsageGroup], table: PriceTable | None, as_of: dt.date | None, focus: bool = False
) -> ReconcileLine:
    first = groups[0]
    quantity = sum((g.quantity for g in groups), Decimal(0))
    billed = sum((g.billed_usd for g in groups), Decimal(0))
    # FOCUS gives the list cost beside the billed one (a CUR is set beside its unblended cost):
    # planner prices at list, so that is its match,
    # and what the bill took off it (a discount, a credit, a commitment) is said, not counted a miss
    listed = (
        sum((g.list_usd or Decimal(0) for g in groups), Decimal(0))
        if focus and all(g.list_usd is not None for g in groups)
        else None
    )
    against = billed if listed is None else listed
    operations = sorted({g.operation for g in groups if g.operation})
    types = sorted({g.usage_type for g in groups})
    base = {
        "scope": first.scope,
        "region": first.region,
        "usage_type": types[0] if len(types) == 1 else f"transfer in ({len(types)} usage types)",
        "operation": ", ".join(operations[:3]) + (f" (+{len(operations) - 3})" if len(operations) > 3 else ""),
        "quantity": quantity,
        "unit": first.unit,
        "billed_usd": billed,
        "list_usd": listed,
    }

    def line(planner: Decimal | None, cause: str) -> ReconcileLine:
        difference = None if planner is None else planner - against
        if listed is not None and abs(listed - billed) > _CUR_RESOLUTION:
            cause += f"; billed {_short(billed)} USD against a list cost of {_short(listed)} (the bill's discounts)"
        return ReconcileLine(
            **base,
            planner_usd=planner,
            difference_usd=difference,
            table_version=table.version if table is not None and planner is not None else None,
            cause=cause,
        )

    if first.kind == "ingress":
        return line(Decimal(0), "free: transfer into S3" + _agree(Decimal(0), against, quantity))
    if table is None:
        return line(None, f"no aws-s3 price table for {first.region}")
    try:
        amount, note = _price(first, quantity, table)
    except _Unpriced as reason:
        return line(None, str(reason))
    amount = amount.quantize(_CUR_RESOLUTION / 1000)  # the CUR's own 10 decimal places
    if as_of is not None and table.effective_from > as_of:
        note += f" (the earliest {first.region} table, {table.effective_from}, is later than the bill)"
    free = table.egress.internet.free_per_month
    if first.kind == "egress" and free and against - amount > _CUR_RESOLUTION:
        return line(
            amount,
            f"{note}; the bill charged what planner took as free: AWS's {free.normalize():f}"
            f" {table.egress.internet.unit} a month is shared by the account's regions and services,"
            " and was used elsewhere",
        )
    return line(amount, note + _agree(amount, against, quantity, [r for g in groups for r in g.rates]))


class _Unpriced(Exception):
    pass


def _agree(planner: Decimal, billed: Decimal, quantity: Decimal, rates: list[Decimal] | None = None) -> str:
    """Why planner's amount and the bill's differ, or "" when they agree (to 1 %, or within the CUR's
    10 decimal places; where the bill has one rate, planner must also match quantity x that rate)."""
    single = sorted(set(rates or []))
    if len(single) == 1 and quantity > 0:
        expected = quantity * single[0]
        if abs(planner - expected) > max(abs(expected) / 100, _CUR_RESOLUTION / 1000):
            if billed < planner and single[0] == 0:
                return "; the bill charged it at $0 (a free allowance shared across regions or accounts)"
            effective = planner / quantity
            return (
                f"; the bill's rate {single[0].normalize()} differs from the table's"
                f" {_short(effective)} (a price the table lacks, a discount or a credit)"
            )
        return ""
    difference = planner - billed
    if abs(difference) <= _CUR_RESOLUTION or (billed and abs(difference) <= abs(billed) / 100):
        return ""
    if rates and billed < planner and any(r == 0 for r in rates):
        return "; the bill charged part of it at $0 (a free allowance shared across regions or accounts)"
    return f"; differs by {difference:+.6f} USD (a discount, credit or price the table lacks)"


def _short(value: Decimal) -> str:
    return f"{value:.3g}"


def _price(group: UsageGroup, quantity: Decimal, table: PriceTable) -> tuple[Decimal, str]:
    from planner.pricing.engine import bill as price_bill
    from planner.pricing.models import Usage

    cls = group.storage_class
    if group.kind in ("storage", "overhead", "early-deletion"):
        assert cls is not None
        if cls not in table.classes:
            raise _Unpriced(f"{table.version} has no class {cls}")
        if group.kind == "early-deletion":
            # AWS bills early deletion as the storage the object would have used for the rest of its
            # minimum duration: GB-months at the class's storage price
            price = table.classes[cls].storage.tiers[0].price
            return quantity * price, f"early deletion as {cls} storage at {price} per GB-month"
        usage = Usage(stored_bytes=_bytes(quantity), buckets=0)
        what = "object overhead" if group.kind == "overhead" else "storage"
        return price_bill(table, cls, usage).unrounded_total_usd(), f"{cls} {what}"
    if group.kind == "requests":
        assert cls is not None
        if cls not in table.classes:
            raise _Unpriced(f"{table.version} has no class {cls}")
        tier = _REQUESTS.get(group.usage_type, (cls, "tier-1"))[1]
        op = group.planner_operation if group.usage_type.endswith("Tier3") else _TIER_OPERATION[tier]
        usage = Usage(requests={op or "put": int(quantity)}, buckets=0)
        return price_bill(table, cls, usage).unrounded_total_usd(), f"{cls} {tier} requests as {op}"
    if group.kind == "egress":
        usage = Usage(egress_bytes=_bytes(quantity), buckets=0)
        return price_bill(table, "standard", usage).unrounded_total_usd(), "internet egress after the free allowance"
    if group.kind == "inter-region":
        usage = Usage(inter_region_bytes=_bytes(quantity), buckets=0)
        return price_bill(table, "standard", usage).unrounded_total_usd(), "transfer to another AWS region"
    raise _Unpriced(f"{group.usage_type}: a usage type planner does not model")
