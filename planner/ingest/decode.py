"""Billing rows decoded: CUR and FOCUS columns to a usage type, its region, kind, storage class and
planner operation (AWS's CUR data dictionary and usage-type names; see ``planner.ingest``)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Literal

from planner.errors import InputError
from planner.ingest.models import Kind

GIB = 2**30
"""A bill's GB (storage GB-months, transfer GB) is 2^30 bytes."""
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
REQUESTS: dict[str, tuple[str, str]] = {
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


MAX_AMOUNT = Decimal(10) ** 18
"""No usage amount, cost or rate of one bill row comes near 10^18 (100 EB is 10^11 GB): past it,
and for NaN or infinity, the row is refused rather than carried into floats that overflow."""


class OutOfRange(ValueError):
    """A bill's number that is NaN, infinite or past 10^18: the row is refused, not skipped, since no
    figure read from the rest of the bill would be right without it."""

    def __init__(self, column: str, text: str) -> None:
        super().__init__(f"{text!r} is not a finite number below 10^18")
        self.column = column


def _decimal(text: str, column: str) -> Decimal:
    """A number of a bill's ``column`` (empty is 0); ValueError naming the column otherwise."""
    stripped = text.strip()
    if len(stripped) > 60:
        raise ValueError(f"{column} {stripped[:20]!r}... is not a number (over 60 characters)")
    try:
        value = Decimal(stripped or "0")
    except InvalidOperation:
        raise ValueError(f"{column} {stripped!r} is not a number") from None
    if not value.is_finite() or abs(value) > MAX_AMOUNT:
        raise OutOfRange(column, stripped)
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
    if usage_type in REQUESTS:
        return "requests", REQUESTS[usage_type][0], _OPERATIONS.get(operation)
    if usage_type == "DataTransfer-Out-Bytes":
        return "egress", None, None
    if usage_type in ("DataTransfer-In-Bytes", "CloudFront-In-Bytes") or usage_type.endswith("-AWS-In-Bytes"):
        return "ingress", None, None
    if usage_type.endswith("-AWS-Out-Bytes"):
        return "inter-region", None, None
    if usage_type == "CloudFront-Out-Bytes":  # S3 to CloudFront: the CDN's origin fetches (its misses)
        return "cdn", None, None
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
    if row.get("consumed_unit", "").lower() == "requests":  # "1000 Requests" priced, counted in requests
        unit = "requests"
    text = row.get("charge_description", "")
    lower = text.lower()
    named = _NAMED_TRANSFER.search(text)  # "USD 0.02 per GB for EUN1-AWS-Out-Bytes in Africa (Cape Town)"
    if named:
        kind: Kind = "inter-region" if named.group(1) == "Out" else "ingress"
        return f"AWS-{named.group(1)}-Bytes", "", kind, None, None
    if "internet egress" in lower:  # planner's own FOCUS forecast (planner.costing.focus)
        return "DataTransfer-Out-Bytes", "", "egress", None, None
    if "data transfer" in lower:
        # "data transfer out beyond the global free tier" is the internet tier ladder's wording
        if "internet" in lower or "data transfer out" in lower:
            return "DataTransfer-Out-Bytes", "", "egress", None, None
        if "data transfer from" in lower or "data transfer in" in lower:
            return "AWS-In-Bytes", "", "ingress", None, None
        return "AWS-Out-Bytes", "", "inter-region", None, None
    if unit.lower() == "requests":
        if "put, copy, post, or list" in lower or "put, copy, post" in lower or "tier-1 requests (" in lower:
            return "Requests-Tier1", "PutObject", "requests", "standard", "put"
        if "get and all other" in lower or "tier-2 requests (" in lower:
            return "Requests-Tier2", "GetObject", "requests", "standard", "get"
        return "Requests", "", "other", None, None
    if unit.lower() in ("gb-mo", "gb-month", "gb-months", "gib-months"):  # GiB-Months: FOCUS's name for AWS's GB
        if "glacier" in lower and "deep" in lower:
            return "TimedStorage-GDA-ByteHrs", "", "storage", "deep-archive", None
        if "glacier" in lower and "instant" in lower:
            return "TimedStorage-GIR-ByteHrs", "", "storage", "glacier-ir", None
        if "glacier" in lower:
            return "TimedStorage-GlacierByteHrs", "", "storage", "glacier-flexible", None
        if "infrequent" in lower and "one zone" in lower:
            return "TimedStorage-ZIA-ByteHrs", "", "storage", "onezone-ia", None
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


@dataclasses.dataclass(frozen=True, slots=True)
class Row:
    """One S3 row of an export, decoded."""

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


def detect_format(row: dict[str, str], path: Path) -> Literal["cur", "focus"]:
    """Which export a header is: a CUR (``lineItem/UsageType``) or FOCUS (``BilledCost``)."""
    if "line_item_usage_type" in row:
        fmt: Literal["cur", "focus"] = "cur"
    elif "billed_cost" in row and "charge_category" in row:
        fmt = "focus"
    else:
        raise InputError(
            "not a Cost and Usage Report or FOCUS export (no lineItem/UsageType or BilledCost column)", source=str(path)
        )
    missing = [name for key, name in _NEEDED[fmt] if key not in row]
    if missing:  # without them every row would read as 0 or as another service's, and the bill as empty
        raise InputError(f"line 1: the {fmt.upper()} export has no {', '.join(missing)} column", source=str(path))
    return fmt


_NEEDED: dict[str, tuple[tuple[str, str], ...]] = {
    "cur": (
        ("line_item_product_code", "lineItem/ProductCode"),
        ("line_item_line_item_type", "lineItem/LineItemType"),
        ("line_item_usage_amount", "lineItem/UsageAmount"),
        ("line_item_unblended_cost", "lineItem/UnblendedCost"),
    ),
    "focus": (("service_name", "ServiceName"), ("consumed_quantity", "ConsumedQuantity")),
}
"""the columns each export's rows are read by, beside the one that tells the export (its normalised name, its own)"""


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


def parse_row(row: dict[str, str], fmt: Literal["cur", "focus"], skus: dict[str, tuple[str, str]]) -> Row | None:
    """One export row decoded, or None for a row of another service, a tax or a credit."""
    return _parse_cur_row(row) if fmt == "cur" else _parse_focus_row(row, skus)


def _parse_cur_row(row: dict[str, str]) -> Row | None:
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
    return Row(
        _period(row.get("bill_billing_period_start_date", "")),
        resource or None,
        region,
        usage_type,
        operation,
        kind,
        cls,
        op,
        _decimal(row.get("line_item_usage_amount", ""), "lineItem/UsageAmount"),
        row.get("pricing_unit", ""),
        _decimal(row.get("line_item_unblended_cost", ""), "lineItem/UnblendedCost"),
        _decimal(listed, "pricing/publicOnDemandCost") if listed.strip() else None,
        _decimal(rate, "lineItem/UnblendedRate") if rate.strip() else None,
    )


def _parse_focus_row(row: dict[str, str], skus: dict[str, tuple[str, str]]) -> Row | None:
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
    return Row(
        _period(row.get("billing_period_start", "")),
        None if resource in ("", "NULL") else resource,
        row.get("region_id", "") or "unknown",
        usage_type,
        operation,
        kind,
        cls,
        op,
        _decimal(
            row.get("consumed_quantity", "") if row.get("consumed_quantity") != "NULL" else "0", "ConsumedQuantity"
        ),
        row.get("pricing_unit", ""),
        _decimal(row.get("billed_cost", ""), "BilledCost"),
        _decimal(row["list_cost"], "ListCost") if row.get("list_cost", "NULL") not in ("", "NULL") else None,
        _decimal(unit_price, "ListUnitPrice") if unit_price not in ("", "NULL") else None,
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
