"""The price-table schema, the usage a month is billed on, and the bill itself.

Prices are ``Decimal`` from the file to the line item; a float never touches money. Every
quantity states the provider's billing unit (``unit`` for people, ``unit_bytes`` for the
engine), so a GB that is 10**9 bytes at one provider and 2**30 at another stays explicit.
"""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainSerializer, field_validator, model_validator

SCHEMA_VERSION = 1

# Money and prices serialise as strings of decimal numbers: JSON numbers are floats to most readers.
Money = Annotated[Decimal, PlainSerializer(lambda d: format(d, "f"), return_type=str, when_used="json")]

# Bounds on what a table may say. No storage price is near $10,000 a unit, no byte count near
# 10**21, and anything beyond them is a typo (or an exponent) that would overflow a bill.
MAX_PRICE_USD = Decimal(10_000)
MAX_QUANTITY = 10**21
# The smallest non-zero price a table may state: a millionth of a millionth of a dollar. A smaller
# one is an exponent typo (1e-400) that would print hundreds of digits; free is 0.
MIN_PRICE_USD = Decimal("1e-12")


def _real_price(value: Decimal) -> Decimal:
    if value and abs(value) < MIN_PRICE_USD:
        raise ValueError(f"{value:.3g} USD is below the smallest real price ({MIN_PRICE_USD:f} USD; give 0 for free)")
    return value


Price = Annotated[Money, Field(le=MAX_PRICE_USD), AfterValidator(_real_price)]
Quantity = Annotated[Decimal, Field(ge=0, le=MAX_QUANTITY)]
ByteCount = Annotated[int, Field(ge=0, le=MAX_QUANTITY)]

# The bytes a stated unit may stand for. Providers say "GB" for 2**30 too (Wasabi), so a decimal
# name allows either; a binary name allows only its power of 1024; a prefix off by 1000 never passes.
_UNIT_BYTES: dict[str, tuple[int, ...]] = {
    **{name: (10 ** (3 * k), 2 ** (10 * k)) for k, name in enumerate(("B", "KB", "MB", "GB", "TB", "PB"))},
    **{name: (2 ** (10 * k),) for k, name in enumerate(("KiB", "MiB", "GiB", "TiB", "PiB"), start=1)},
}


def _check_unit(unit: str, unit_bytes: int) -> None:
    stated = _UNIT_BYTES.get(unit.split("-")[0].strip())
    if stated is not None and unit_bytes not in stated:
        meaning = " or ".join(str(n) for n in sorted(set(stated)))
        raise ValueError(f"unit {unit!r} is {meaning} bytes, not unit_bytes {unit_bytes}")


# Operations the engine knows, named after the S3 API calls they stand for.
OPERATIONS: tuple[str, ...] = (
    "put",  # PutObject
    "copy",  # CopyObject
    "post",  # PostObject (browser upload)
    "list",  # ListObjects(V2), ListObjectVersions
    "list-buckets",
    "get",  # GetObject
    "head",  # HeadObject
    "select",  # SelectObjectContent
    "delete",  # DeleteObject
    "create-multipart",  # CreateMultipartUpload
    "upload-part",  # UploadPart / UploadPartCopy
    "complete-multipart",  # CompleteMultipartUpload
    "abort-multipart",  # AbortMultipartUpload
    "list-parts",  # ListParts, ListMultipartUploads
    "lifecycle-transition",  # a lifecycle rule moving an object into this class
    "restore",  # RestoreObject (archive classes)
    "bucket-config",  # Put*/Get* bucket configuration
    "event-notification",  # B2 event notifications
)


class Status(StrEnum):
    """How well a figure is sourced (see the research notes the tables cite)."""

    verified_primary = "verified-primary"
    verified_secondary = "verified-secondary"
    unverified = "unverified"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Tier(_Model):
    """One slice of a marginal tier ladder: units above the previous bound up to ``up_to``."""

    up_to: Quantity | None = Field(None, description="cumulative upper bound in the price's unit; none = no bound")
    price: Price = Field(description="USD per unit within this slice")
    status: Status | None = Field(None, description="how well this slice's price is sourced, if not as the whole")
    source: str | None = Field(None, description="where this price was read (an offer file's SKU and rate code)")


class TieredPrice(_Model):
    """A byte-metered price (storage, egress, transfer) with marginal tiers and allowances."""

    unit: str = Field(description='billing unit as the provider states it, e.g. "GB-month", "TB-month", "GB"')
    unit_bytes: int = Field(gt=0, le=2**60, description="bytes in one unit (10**9 for a decimal GB, 2**40 for a TiB)")
    tiers: list[Tier] = Field(min_length=1)
    free_per_month: Quantity = Field(Decimal(0), description="free units each month, before the tiers")
    free_scope: str | None = Field(None, description="what the free allowance is shared with, if anything")
    free_position: Literal["before-tiers", "first-tier"] = Field(
        "before-tiers",
        description="before-tiers: the tier bounds count the units beyond the free allowance (AWS since December"
        " 2021: 'first 10 TB / month ... beyond the global free tier'); first-tier: the bounds count all units and"
        " the free units come out of the first tier (AWS's 1 GB before December 2021)",
    )
    per_hour: bool = Field(
        False,
        description="the price is per unit-hour (Hetzner's EUR 0.0067 per TB-hour): a month bills its hours, 744 in a"
        " 31-day month and 720 in the table's 30-day one; quantities and tier bounds count unit-hours",
    )
    free_per_hour: Quantity | None = Field(
        None, description="free units each hour of an hourly price (Hetzner: the 1 TB its base fee includes)"
    )
    status: Status | None = None
    note: str | None = None

    @field_validator("tiers")
    @classmethod
    def _ladder(cls, tiers: list[Tier]) -> list[Tier]:
        bounds = [t.up_to for t in tiers]
        if bounds[-1] is not None:
            raise ValueError("the last tier must have no upper bound")
        finite = [b for b in bounds[:-1] if b is not None]
        if len(finite) != len(bounds) - 1:
            raise ValueError("only the last tier may have no upper bound")
        if any(b <= 0 for b in finite) or finite != sorted(set(finite)):
            raise ValueError("tier bounds must be positive and strictly increasing")
        if any(t.price < 0 for t in tiers):
            raise ValueError("a price cannot be negative")
        return tiers

    @model_validator(mode="after")
    def _unit_matches_bytes(self) -> TieredPrice:
        _check_unit(self.unit, self.unit_bytes)
        if self.free_per_hour is not None and not self.per_hour:
            raise ValueError("free_per_hour is for an hourly price (per_hour: true)")
        return self


class EgressRules(_Model):
    """Internet egress: a tiered price plus the allowances that come before it."""

    internet: TieredPrice
    free_per_day: Quantity = Field(Decimal(0), description="free units per day (B2 before 2023-10: 1 GB/day)")
    free_multiple_of_storage: Quantity | None = Field(
        None, description="free egress as a multiple of the average stored volume (B2: 3)"
    )
    fair_use_multiple_of_storage: Quantity | None = Field(
        None,
        description="egress above this multiple of stored volume breaks the provider's policy (no price; Wasabi: 1)",
    )
    inter_region: TieredPrice | None = Field(None, description="transfer to another region of the same provider")
    status: Status | None = None
    note: str | None = None


class RequestClass(_Model):
    """A group of operations billed at one price (S3 tier 1/2, R2 Class A/B, B2 Class B/C)."""

    id: str
    operations: list[str] = Field(min_length=1)
    price: Price = Field(ge=0, description="USD per `per` requests")
    per: int = Field(gt=0, le=10**9, description="requests the price is quoted for (1000, 10000, 1000000)")
    free_per_month: ByteCount = Field(0)
    free_per_day: ByteCount = Field(0)
    free_shared: bool = Field(
        False,
        description="the free allowance is one for the account, shared by every storage class whose request class"
        " has this id (a placement over several classes takes it once), not one for each class",
    )
    status: Status | None = None
    source: str | None = Field(None, description="where this price was read (an offer file's SKU and rate code)")
    note: str | None = None


class RetrievalOption(_Model):
    """Reading data back out of a class that charges for it (IA, Glacier)."""

    per_gb: Price = Field(ge=0, description="USD per retrieval unit of bytes read")
    per_1000_requests: Price = Field(Decimal(0), ge=0, description="USD per 1,000 retrieval requests")
    time: str | None = Field(None, description="how long a retrieval takes, as the provider states it")
    status: Status | None = None
    source: str | None = Field(None, description="where this price was read (an offer file's SKU and rate code)")


class Retrieval(_Model):
    unit: str = "GB"
    unit_bytes: int = Field(gt=0, le=2**60)
    default: str = Field(description="the option used when the usage names none")
    options: dict[str, RetrievalOption] = Field(min_length=1)

    @model_validator(mode="after")
    def _default_exists(self) -> Retrieval:
        _check_unit(self.unit, self.unit_bytes)
        if self.default not in self.options:
            raise ValueError(f"default retrieval option {self.default!r} is not among {sorted(self.options)}")
        return self


class ObjectOverhead(_Model):
    """Per-object metadata billed on top of the data (S3 Glacier Flexible and Deep Archive: 40 KB)."""

    class_rate_bytes: ByteCount = Field(description="bytes per object billed at this class's storage price")
    standard_rate_bytes: ByteCount = Field(description="bytes per object billed at `standard_rate_class` prices")
    standard_rate_class: str = Field(description="the class whose first-tier price the second part pays")
    status: Status | None = None


class Monitoring(_Model):
    """A per-object monitoring fee (S3 Intelligent-Tiering), charged on objects of at least a size."""

    price: Price = Field(ge=0)
    per: int = Field(gt=0, le=10**9, description="objects the price is quoted for")
    min_object_bytes: ByteCount = Field(description="smaller objects are not monitored (and never move tier)")
    status: Status | None = None


class RequestPayload(_Model):
    """A charge per unit of the bytes requests carry, on top of the per-request price (S3 Express One Zone:
    "upload $0.0032 per GB" on the bytes PUT and "retrieval $0.0006 per GB" on the bytes read)."""

    unit: str = "GB"
    unit_bytes: int = Field(gt=0, le=2**60)
    upload: Price = Field(ge=0, description="per unit of bytes written (PUT, upload parts)")
    retrieval: Price = Field(ge=0, description="per unit of bytes read (GET)")
    status: Status
    source: str = Field(min_length=1)
    note: str | None = None

    @model_validator(mode="after")
    def _unit(self) -> RequestPayload:
        _check_unit(self.unit, self.unit_bytes)
        return self


class Replication(_Model):
    """Storage billed again for each region an object is replicated to beyond its first (Tigris: $0.02 per
    GB-month per additional region)."""

    unit: str = "GB-month"
    unit_bytes: int = Field(gt=0, le=2**60)
    price: Price = Field(ge=0, description="per storage unit-month in each additional region")
    status: Status
    source: str = Field(min_length=1)
    note: str | None = None

    @model_validator(mode="after")
    def _unit(self) -> Replication:
        _check_unit(self.unit, self.unit_bytes)
        return self


class StorageClass(_Model):
    name: str
    storage: TieredPrice
    access_tiers: dict[str, Annotated[Price, Field(ge=0)]] = Field(
        default_factory=dict,
        description="extra access tiers priced per storage unit (Intelligent-Tiering: infrequent, archive-instant)",
    )
    access_tier_after_days: dict[str, Annotated[int, Field(gt=0, le=36500)]] = Field(
        default_factory=dict,
        description="days without a read after which an object moves into each access tier by itself",
    )
    minimum_billable_bytes: ByteCount = Field(0, description="storage billed as at least this much each month")
    min_duration_days: int = Field(0, ge=0, le=36500, description="objects deleted sooner pay for the remaining days")
    min_object_bytes: ByteCount = Field(0, description="smaller objects are billed as this size")
    object_overhead: ObjectOverhead | None = None
    monitoring: Monitoring | None = None
    requests: list[RequestClass] = Field(default_factory=list)
    free_operations: list[str] = Field(default_factory=list)
    retrieval: Retrieval | None = None
    request_payload: RequestPayload | None = None
    replication: Replication | None = None
    egress: EgressRules | None = Field(
        None, description="internet egress of this class's own, in place of the table's (Storj prices it by tier)"
    )
    compared_by_default: bool = Field(
        True, description="ranked when the workload names only the provider (false: only when asked for by name)"
    )
    status: Status | None = None
    note: str | None = None

    @model_validator(mode="after")
    def _operations_once(self) -> StorageClass:
        unknown = set(self.access_tier_after_days) - set(self.access_tiers)
        if unknown:
            raise ValueError(f"access_tier_after_days names tiers that have no price: {', '.join(sorted(unknown))}")
        seen: dict[str, str] = {}
        for group_id, ops in [(rc.id, rc.operations) for rc in self.requests] + [("free", self.free_operations)]:
            for op in ops:
                if op not in OPERATIONS:
                    raise ValueError(f"unknown operation {op!r} in {group_id} (known: {', '.join(OPERATIONS)})")
                if op in seen:
                    raise ValueError(f"operation {op!r} is priced twice ({seen[op]} and {group_id})")
                seen[op] = group_id
        return self


class BucketFee(_Model):
    included: int = Field(ge=0, le=10**9, description="buckets included per account")
    price: Price = Field(ge=0, description="USD per bucket-month beyond the included count")
    status: Status | None = None


class Multipart(_Model):
    min_part_bytes: int = Field(gt=0, le=MAX_QUANTITY)
    max_part_bytes: int = Field(gt=0, le=MAX_QUANTITY)
    max_parts: int = Field(gt=0, le=10**9)


class RequestRate(_Model):
    """A documented request rate past which the provider answers with an error (not billed).

    S3: 3,500 PUT/COPY/POST/DELETE and 5,500 GET/HEAD a second per partitioned prefix (503 SlowDown);
    R2: one write a second to the same key (429). The simulator and migrate read these.
    """

    operations: list[str] = Field(min_length=1, description="the operations counted together")
    scope: Literal["key", "prefix", "bucket"]
    per_s: float = Field(gt=0, le=10**9, description="requests a second per scope")
    error: str = Field(min_length=1, description="what the provider answers past it")
    note: str | None = None

    @model_validator(mode="after")
    def _known(self) -> RequestRate:
        for op in self.operations:
            if op not in OPERATIONS:
                raise ValueError(f"unknown operation {op!r} (known: {', '.join(OPERATIONS)})")
        return self


class RestoredCopy(_Model):
    """The temporary copy a restore makes of an archived object, billed at another class's storage price
    for the days it is kept (S3: Standard, or Reduced Redundancy where that is cheaper in the region)."""

    storage_class: str = Field(description="the class whose storage price (and tiers) the copy pays")
    status: Status
    source: str = Field(min_length=1)
    note: str | None = None


class Limits(_Model):
    max_object_bytes: int | None = Field(None, gt=0, le=MAX_QUANTITY)
    max_single_put_bytes: int | None = Field(None, gt=0, le=MAX_QUANTITY)
    multipart: Multipart | None = None
    request_rates: list[RequestRate] = Field(default_factory=list)
    restore_required: list[str] = Field(
        default_factory=list,
        description="storage classes whose objects must be restored before a read (S3 Glacier Flexible Retrieval"
        " and Deep Archive), in the time the class's retrieval options state (classes.<id>.retrieval.options"
        ".<tier>.time): no read of them meets a TTFB or throughput target",
    )
    restored_copy: RestoredCopy | None = Field(
        None, description="how the temporary copy a restore makes is billed (none: not priced, and the bill says so)"
    )
    status: Status | None = None
    note: str | None = None


class BillingUnits(_Model):
    """What the provider's "GB" and "TB" are in bytes, as its own billing examples or pages show."""

    gb_bytes: int = Field(description="bytes in the provider's billed GB (10**9 or 2**30)")
    tb_bytes: int = Field(description="bytes in the provider's billed TB (10**12 or 2**40)")
    status: Status
    sources: list[str] = Field(min_length=1, description="where the definition was read")
    note: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> BillingUnits:
        if self.gb_bytes not in (10**9, 2**30):
            raise ValueError(f"gb_bytes {self.gb_bytes} is neither 10**9 nor 2**30")
        if self.tb_bytes not in (10**12, 2**40):
            raise ValueError(f"tb_bytes {self.tb_bytes} is neither 10**12 nor 2**40")
        return self


RoundingMode = Literal["half-up", "half-even", "up", "down"]


class LineRounding(_Model):
    """How the provider's invoice rounds each line item's amount (AWS: to the cent)."""

    places: int = Field(2, ge=0, le=10, description="decimal places of a line item's amount on the invoice")
    mode: RoundingMode = "half-up"
    minimum_charge: Annotated[Money, Field(ge=0, le=1)] | None = Field(
        None, description="a line above zero but below this amount is billed as this amount (AWS: $0.01)"
    )
    status: Status
    source: str = Field(min_length=1)
    note: str | None = None


class MonthlyFee(_Model):
    """A fee each month the account holds storage (Hetzner's base price, DigitalOcean Spaces' and Akamai's
    subscription; the allowances it includes are the storage and egress prices' free units), or a minimum
    the month's charges are raised to (Storj: "$5 minimum monthly fee")."""

    price: Price = Field(ge=0, description="in the table's currency per month")
    status: Status
    source: str = Field(min_length=1)
    note: str | None = None


class ExchangeRate(_Model):
    """US dollars per unit of the table's currency, dated and cited: a non-USD table's prices are billed in
    USD at this rate (an override file gives another), each line showing both."""

    usd_per_unit: Annotated[Decimal, Field(gt=0, le=1000)]
    as_of: dt.date
    status: Status
    source: str = Field(min_length=1)


class Billing(_Model):
    units: BillingUnits | None = Field(None, description="the provider's GB and TB in bytes, cited")
    line_rounding: LineRounding | None = Field(
        None, description="how the invoice rounds each line's amount (none stated: to the cent, half-up)"
    )
    month_days: int = Field(
        30, ge=28, le=31, description="days in a billing month for prorating and per-day allowances"
    )
    round_up: bool = Field(False, description="every metered quantity is rounded up to a whole billing unit")
    storage_period_days: int | None = Field(
        None,
        ge=1,
        le=31,
        description="the storage price is for this many days, billed by the hour or day (B2 'per TB per 30 days',"
        " Wasabi's daily rate x 30), so a calendar month of other length bills its days' share; none: per"
        " calendar month (AWS: byte-hours / hours in the month)",
    )
    base_fee: MonthlyFee | None = Field(None, description="a fixed charge each month (a subscription, a base price)")
    minimum_charge: MonthlyFee | None = Field(
        None, description="the month's charges are raised to at least this (Storj's $5 minimum)"
    )
    status: Status | None = None
    note: str | None = None


class PriceRegions(_Model):
    """Whether the provider charges the same in every region, cited: a table that says so prices any of them."""

    same_price_everywhere: bool
    names: list[str] = Field(
        default_factory=list, description="the regions the provider names (none listed: any name is taken)"
    )
    status: Status
    source: str = Field(min_length=1)
    note: str | None = None


class PriceTable(_Model):
    """One provider's prices in force from ``effective_from`` until the next version begins.

    ``region`` is where the prices hold. A provider with prices by region has one folder of versions per
    region besides its default one (``pricing/tables/aws-s3/eu-central-1/``); the loader sets
    ``regional_folder`` on those, and their versions name the region.
    """

    schema_version: Literal[1]
    provider: str
    provider_name: str
    region: str
    effective_from: dt.date
    effective_from_status: Status | None = Field(None, description="how well the start date itself is sourced")
    currency: Literal["USD", "EUR"]
    exchange_rate: ExchangeRate | None = Field(None, description="required for a currency other than USD")
    compared_by_default: bool = Field(
        True,
        description="ranked when a workload names no providers (false: only when named, or with --providers all)",
    )
    status: Status
    sources: list[str] = Field(min_length=1)
    notes: list[str] = Field(default_factory=list)
    billing: Billing = Field(default_factory=Billing)
    egress: EgressRules
    buckets: BucketFee | None = None
    limits: Limits = Field(default_factory=Limits)
    classes: dict[str, StorageClass] = Field(min_length=1)
    regions: PriceRegions | None = Field(
        None, description="whether these prices hold in every region of the provider (none: only in `region`)"
    )
    regional_folder: str | None = Field(
        None, description="set by the loader on a table read from a region's folder: its versions name the region"
    )
    label: str | None = Field(None, description="set by an override file layered over a shipped version")

    def egress_for(self, storage_class: str) -> EgressRules:
        """The egress rules a class bills on: its own where it has them, else the table's."""
        return self.classes[storage_class].egress or self.egress

    def restore_required(self, storage_class: str) -> bool:
        """Whether ``storage_class``'s objects must be restored before they can be read."""
        return storage_class in self.limits.restore_required

    @property
    def version(self) -> str:
        name = f"{self.provider}/{self.regional_folder}" if self.regional_folder else self.provider
        base = f"{name}@{self.effective_from.isoformat()}"
        return f"{base}+{self.label}" if self.label else base

    @model_validator(mode="after")
    def _cross_references(self) -> PriceTable:
        self._units_agree()
        if self.currency != "USD" and self.exchange_rate is None:
            raise ValueError(f"exchange_rate: required for prices in {self.currency} (USD per {self.currency}, dated)")
        if self.currency == "USD" and self.exchange_rate is not None:
            raise ValueError("exchange_rate: only for a table whose currency is not USD")
        hourly = [("egress.internet", self.egress.internet), ("egress.inter_region", self.egress.inter_region)]
        hourly += [(f"classes.{c}.egress.internet", sc.egress.internet) for c, sc in self.classes.items() if sc.egress]
        for where, price in hourly:
            if price is not None and price.per_hour:
                raise ValueError(f"{where}.per_hour: only storage is priced by the hour")
        for class_id, storage_class in self.classes.items():
            overhead = storage_class.object_overhead
            if overhead and overhead.standard_rate_class not in self.classes:
                raise ValueError(f"classes.{class_id}.object_overhead: unknown class {overhead.standard_rate_class!r}")
        unknown = [c for c in self.limits.restore_required if c not in self.classes]
        if unknown:
            raise ValueError(f"limits.restore_required: unknown class {unknown[0]!r}")
        copy = self.limits.restored_copy
        if copy is not None and copy.storage_class not in self.classes:
            raise ValueError(f"limits.restored_copy: unknown class {copy.storage_class!r}")
        return self

    def _units_agree(self) -> None:
        """Every GB- or TB-priced figure uses the bytes the table states for its provider's GB and TB."""
        units = self.billing.units
        if units is None:
            return
        internet = self.egress.internet
        priced: list[tuple[str, str, int]] = [("egress.internet", internet.unit, internet.unit_bytes)]
        if self.egress.inter_region is not None:
            priced.append(("egress.inter_region", self.egress.inter_region.unit, self.egress.inter_region.unit_bytes))
        for class_id, storage_class in self.classes.items():
            priced.append((f"classes.{class_id}.storage", storage_class.storage.unit, storage_class.storage.unit_bytes))
            if storage_class.egress is not None:
                own = storage_class.egress.internet
                priced.append((f"classes.{class_id}.egress.internet", own.unit, own.unit_bytes))
            if storage_class.retrieval is not None:
                retrieval = storage_class.retrieval
                priced.append((f"classes.{class_id}.retrieval", retrieval.unit, retrieval.unit_bytes))
        expected = {"GB": units.gb_bytes, "TB": units.tb_bytes}
        for where, unit, unit_bytes in priced:
            name = unit.split("-")[0].strip()
            if name in expected and unit_bytes != expected[name]:
                raise ValueError(
                    f"{where}: unit {unit!r} is {unit_bytes:,} bytes, but billing.units says a {name} is "
                    f"{expected[name]:,} bytes"
                )


# --------------------------------------------------------------------------- usage


class Deletion(_Model):
    """Objects deleted (or overwritten) this month and how old they were."""

    bytes: int = Field(ge=0)
    objects: int = Field(0, ge=0)
    age_days: float = Field(ge=0)


class SizeBin(_Model):
    """``count`` stored objects of ``bytes`` each: a size distribution as a histogram."""

    bytes: int = Field(ge=0)
    count: int = Field(ge=0)


class Usage(_Model):
    """A month of usage for one provider and storage class, in bytes and request counts."""

    stored_bytes: int = Field(0, ge=0, description="average stored over the month")
    object_count: int | None = Field(None, ge=0, description="objects stored (average); derived from sizes if absent")
    object_sizes: list[SizeBin] | None = Field(None, description="size histogram of stored objects")
    requests: dict[str, int] = Field(default_factory=dict, description="requests by operation")
    egress_bytes: int = Field(0, ge=0, description="bytes served to the internet")
    inter_region_bytes: int = Field(0, ge=0)
    retrieval_bytes: int = Field(0, ge=0, description="bytes read out of a class that charges retrieval")
    upload_bytes: int = Field(0, ge=0, description="bytes written by requests (a per-GB request payload charge)")
    replica_regions: int = Field(
        0, ge=0, le=100, description="regions each object is replicated to beyond its first (a replication surcharge)"
    )
    retrieval_requests: int = Field(0, ge=0)
    retrieval_option: str | None = None
    deletions: list[Deletion] = Field(default_factory=list)
    access_tier_shares: dict[str, Decimal] = Field(
        default_factory=dict, description="share of stored bytes in each extra access tier"
    )
    unread_shares: dict[int, Decimal] = Field(
        default_factory=dict,
        description="share of stored bytes not read for at least N days, by N (classes with automatic access"
        " tiers place the bytes from it when access_tier_shares is not given)",
    )
    discounts: dict[str, Decimal] = Field(
        default_factory=dict, description="negotiated discount by provider id, as a fraction of each charged line"
    )
    buckets: int = Field(1, ge=0)
    egress_allowance_used_bytes: int = Field(
        0, ge=0, description="part of a shared free egress allowance already used elsewhere in the account"
    )
    request_allowance_used: dict[str, int] = Field(
        default_factory=dict,
        description="free requests of shared allowances (by request class id) the account's other classes already"
        " took this month (a placement's earlier classes)",
    )
    standard_rate_bytes_elsewhere: int = Field(
        0,
        ge=0,
        description="bytes the account bills at the Standard-rate class's storage price this month outside this bill"
        " (a placement's Standard class): S3 Glacier's per-object 8 KB and restored copies are billed on the"
        " Standard tiers above them, as AWS's Pricing Calculator adds them",
    )
    restored_copy_days: Decimal = Field(
        Decimal(1),
        ge=0,
        le=36500,
        description="days each restored copy of an archived object is kept (the restore request's Days; 1, the"
        " least a request takes, by default)",
    )
    month_days: int | None = Field(
        None,
        ge=28,
        le=31,
        description="days in the month billed when it is a calendar month (none: the table's month, 30 days)",
    )

    @field_validator("requests")
    @classmethod
    def _known_operations(cls, requests: dict[str, int]) -> dict[str, int]:
        for op, count in requests.items():
            if op not in OPERATIONS:
                raise ValueError(f"unknown operation {op!r} (known: {', '.join(OPERATIONS)})")
            if count < 0:
                raise ValueError(f"requests.{op} is negative")
        return requests

    @field_validator("unread_shares")
    @classmethod
    def _unread(cls, shares: dict[int, Decimal]) -> dict[int, Decimal]:
        if any(days <= 0 for days in shares) or any(s < 0 or s > 1 for s in shares.values()):
            raise ValueError("unread shares are days > 0 mapped to fractions in [0, 1]")
        ordered = [shares[d] for d in sorted(shares)]
        if any(later > earlier for earlier, later in itertools.pairwise(ordered)):
            raise ValueError("a longer unread period cannot hold more of the data than a shorter one")
        return shares

    @field_validator("discounts")
    @classmethod
    def _discounts(cls, discounts: dict[str, Decimal]) -> dict[str, Decimal]:
        if any(d < 0 or d >= 1 for d in discounts.values()):
            raise ValueError("a discount is a fraction in [0, 1)")
        return discounts

    @field_validator("access_tier_shares")
    @classmethod
    def _shares(cls, shares: dict[str, Decimal]) -> dict[str, Decimal]:
        if any(s < 0 or s > 1 for s in shares.values()) or sum(shares.values(), Decimal(0)) > 1:
            raise ValueError("access tier shares must each be in [0, 1] and sum to at most 1")
        return shares


# --------------------------------------------------------------------------- the bill

Category = Literal[
    "storage", "egress", "requests", "retrieval", "minimum", "early_deletion", "transfer", "free_allowance", "other"
]


class LineItem(_Model):
    """One line of the bill. ``amount_usd`` is rounded as the provider's invoice rounds a line;
    ``amount_unrounded_usd`` is quantity x unit price (less any discount) before that rounding."""

    category: Category
    description: str
    quantity: Money
    unit: str
    unit_price_usd: Money
    amount_usd: Money
    amount_unrounded_usd: Money | None = None
    discount: Money | None = Field(None, description="the negotiated discount applied to this line, as a fraction")
    table_version: str
    price_status: Status


class PolicyBreach(_Model):
    """Usage beyond a limit the provider sets by policy rather than by price: it is not billed, but
    the provider may limit or suspend the account (Wasabi: egress up to 1x the stored volume)."""

    policy: Literal["free-egress"] = Field(description="which policy: free-egress is a cap on free egress")
    used_bytes: int = Field(ge=0, description="the usage the policy limits (bytes of egress this month)")
    limit_bytes: int = Field(ge=0, description="what the policy allows this month")
    limit_multiple_of_storage: Quantity = Field(description="the allowance as a multiple of the stored volume")
    stored_bytes: int = Field(ge=0)
    statement: str = Field(description="the breach in words, as the bill's warnings give it")


class CostBreakdown(_Model):
    """A month's bill for one provider and storage class: line items and their sum."""

    provider: str
    storage_class: str
    table_version: str
    as_of: dt.date | None = None
    region: str | None = Field(None, description="the region priced")
    region_note: str | None = Field(None, description="how the region's prices were found (e.g. the same everywhere)")
    currency: Literal["USD"] = "USD"
    line_items: list[LineItem]
    total_usd: Money = Field(description="the sum of the rounded line amounts, as an invoice adds them")
    rounding: str | None = Field(None, description="how each line's amount was rounded, and the rule's source")
    warnings: list[str] = Field(
        default_factory=list, description="caveats for people, each policy breach's statement among them"
    )
    policy_breaches: list[PolicyBreach] = Field(
        default_factory=list, description="provider policies the usage breaks (no price): what decides feasibility"
    )
    assumptions: list[str] = Field(
        default_factory=list,
        description="how usage the workload does not assign was placed (a placement's reads go to one class)",
    )
    standard_rate_bytes: int = Field(
        0,
        ge=0,
        description="bytes this bill put on the Standard-rate class's tiers beside its own class (S3 Glacier's 8 KB"
        " per object, restored copies): where the next class of a placement starts on those tiers",
    )
    request_allowance_taken: dict[str, int] = Field(
        default_factory=dict,
        description="free requests this bill took from allowances shared by the account's classes, by request class"
        " id: what the next class of a placement finds used",
    )
    billing_month: str | None = Field(None, description="the month billed: a 30-day month or a calendar month")

    def unrounded_total_usd(self) -> Decimal:
        """The sum of the lines before the invoice rounds them (what the vectorised sweep computes)."""
        return sum(
            (i.amount_unrounded_usd if i.amount_unrounded_usd is not None else i.amount_usd for i in self.line_items),
            Decimal(0),
        )

    def by_category(self) -> dict[str, Decimal]:
        totals: dict[str, Decimal] = {}
        for item in self.line_items:
            totals[item.category] = totals.get(item.category, Decimal(0)) + item.amount_usd
        return totals
