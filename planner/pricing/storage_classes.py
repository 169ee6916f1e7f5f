"""A storage class's prices: its storage price and what is billed with it (access tiers, minimums,
per-object overhead, monitoring), its request classes, retrieval options, request payload and
replication charges, and the internet egress rules a table or a class bills on.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import Field, model_validator

from planner.pricing.primitives import (
    OPERATIONS,
    ByteCount,
    Price,
    Quantity,
    Quote,
    Status,
    StrictModel,
    TieredPrice,
    check_unit,
)


class EgressRules(StrictModel):
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


class RequestClass(StrictModel):
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
    quote: Quote | None = Field(None, description="the words the price was read from")
    note: str | None = None


class RetrievalOption(StrictModel):
    """Reading data back out of a class that charges for it (IA, Glacier)."""

    per_gb: Price = Field(ge=0, description="USD per retrieval unit of bytes read")
    per_1000_requests: Price = Field(Decimal(0), ge=0, description="USD per 1,000 retrieval requests")
    time: str | None = Field(None, description="how long a retrieval takes, as the provider states it")
    status: Status | None = None
    source: str | None = Field(None, description="where this price was read (an offer file's SKU and rate code)")
    quote: Quote | None = Field(None, description="the words the prices were read from")


class Retrieval(StrictModel):
    unit: str = "GB"
    unit_bytes: int = Field(gt=0, le=2**60)
    default: str = Field(description="the option used when the usage names none")
    options: dict[str, RetrievalOption] = Field(min_length=1)

    @model_validator(mode="after")
    def _default_exists(self) -> Retrieval:
        check_unit(self.unit, self.unit_bytes)
        if self.default not in self.options:
            raise ValueError(f"default retrieval option {self.default!r} is not among {sorted(self.options)}")
        return self


class ObjectOverhead(StrictModel):
    """Per-object metadata billed on top of the data (S3 Glacier Flexible and Deep Archive: 40 KB)."""

    class_rate_bytes: ByteCount = Field(description="bytes per object billed at this class's storage price")
    standard_rate_bytes: ByteCount = Field(description="bytes per object billed at `standard_rate_class` prices")
    standard_rate_class: str = Field(description="the class whose first-tier price the second part pays")
    status: Status | None = None
    quote: Quote | None = Field(None, description="the words the overhead was read from")


class Monitoring(StrictModel):
    """A per-object monitoring fee (S3 Intelligent-Tiering), charged on objects of at least a size."""

    price: Price = Field(ge=0)
    per: int = Field(gt=0, le=10**9, description="objects the price is quoted for")
    min_object_bytes: ByteCount = Field(description="smaller objects are not charged the fee")
    tiered_from_bytes: ByteCount | None = Field(
        None,
        description="smaller objects never move tier (default: min_object_bytes); S3 charged the fee on them "
        "until September 2021 but never tiered them",
    )
    status: Status | None = None
    quote: Quote | None = Field(None, description="the words the price was read from")

    @property
    def tiered_from(self) -> int:
        """The least size of an object that moves between access tiers."""
        return self.min_object_bytes if self.tiered_from_bytes is None else self.tiered_from_bytes


class RequestPayload(StrictModel):
    """A charge per unit of the bytes requests carry, on top of the per-request price (S3 Express One Zone:
    "upload $0.0032 per GB" on the bytes PUT and "retrieval $0.0006 per GB" on the bytes read)."""

    unit: str = "GB"
    unit_bytes: int = Field(gt=0, le=2**60)
    upload: Price = Field(ge=0, description="per unit of bytes written (PUT, upload parts)")
    retrieval: Price = Field(ge=0, description="per unit of bytes read (GET)")
    status: Status
    source: str = Field(min_length=1)
    quote: Quote | None = Field(None, description="the words the prices were read from")
    note: str | None = None

    @model_validator(mode="after")
    def _unit(self) -> RequestPayload:
        check_unit(self.unit, self.unit_bytes)
        return self


class Replication(StrictModel):
    """Storage billed again for each region an object is replicated to beyond its first (Tigris: $0.02 per
    GB-month per additional region)."""

    unit: str = "GB-month"
    unit_bytes: int = Field(gt=0, le=2**60)
    price: Price = Field(ge=0, description="per storage unit-month in each additional region")
    status: Status
    source: str = Field(min_length=1)
    quote: Quote | None = Field(None, description="the words the price was read from")
    note: str | None = None

    @model_validator(mode="after")
    def _unit(self) -> Replication:
        check_unit(self.unit, self.unit_bytes)
        return self


class Redundancy(StrictModel):
    """Where a class keeps an object's copies, as the provider states it: a class in one zone loses the
    objects a zone's loss destroys (S3 One Zone-IA: "data stored in this storage class will be lost in the
    event of Availability Zone destruction")."""

    zones: int = Field(ge=1, le=10, description="availability zones (or independent facilities) holding copies")
    regions: int = Field(1, ge=1, le=10, description="regions holding copies without the user's replication")
    status: Status
    quote: Quote = Field(description="the words the zones were read from")
    note: str | None = None


class StorageClass(StrictModel):
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
    access_tier_overhead: dict[str, ObjectOverhead] = Field(
        default_factory=dict,
        description="per-object overhead of each object in an access tier, its class_rate_bytes at that tier's price"
        " (S3 Intelligent-Tiering's Archive Access and Deep Archive Access: 32 KB there and 8 KB at S3 Standard's)",
    )
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
    redundancy: Redundancy | None = Field(None, description="the zones and regions the class keeps copies in")
    quotes: dict[str, Quote] = Field(
        default_factory=dict, description="the words each access tier's price was read from, by access_tiers.<tier>"
    )
    status: Status | None = None
    note: str | None = None

    @model_validator(mode="after")
    def _operations_once(self) -> StorageClass:
        unknown = set(self.access_tier_after_days) - set(self.access_tiers)
        if unknown:
            raise ValueError(f"access_tier_after_days names tiers that have no price: {', '.join(sorted(unknown))}")
        unpriced = sorted(set(self.access_tier_overhead) - set(self.access_tiers))
        if unpriced:
            raise ValueError(f"access_tier_overhead names tiers that have no price: {', '.join(unpriced)}")
        stray = sorted(set(self.quotes) - {f"access_tiers.{tier}" for tier in self.access_tiers})
        if stray:
            raise ValueError(f"quotes.{stray[0]}: names no price (quotes are by access_tiers.<tier>)")
        seen: dict[str, str] = {}
        for group_id, ops in [(rc.id, rc.operations) for rc in self.requests] + [("free", self.free_operations)]:
            for op in ops:
                if op not in OPERATIONS:
                    raise ValueError(f"unknown operation {op!r} in {group_id} (known: {', '.join(OPERATIONS)})")
                if op in seen:
                    raise ValueError(f"operation {op!r} is priced twice ({seen[op]} and {group_id})")
                seen[op] = group_id
        return self
