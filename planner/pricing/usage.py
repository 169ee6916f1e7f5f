"""The usage a month is billed on: one provider and storage class's stored bytes and objects, requests,
egress, retrieval, deletions and the account context a placement passes between its classes.
"""

from __future__ import annotations

import itertools
from decimal import Decimal

from pydantic import Field, field_validator

from planner.pricing.primitives import OPERATIONS, StrictModel


class Deletion(StrictModel):
    """Objects deleted (or overwritten) this month and how old they were."""

    bytes: int = Field(ge=0)
    objects: int = Field(default=0, ge=0)
    age_days: float = Field(ge=0)


class SizeBin(StrictModel):
    """``count`` stored objects of ``bytes`` each: a size distribution as a histogram."""

    bytes: int = Field(ge=0)
    count: int = Field(ge=0)


class Usage(StrictModel):
    """A month of usage for one provider and storage class, in bytes and request counts."""

    stored_bytes: int = Field(default=0, ge=0, description="average stored over the month")
    object_count: int | None = Field(
        default=None, ge=0, description="objects stored (average); derived from sizes if absent"
    )
    object_sizes: list[SizeBin] | None = Field(default=None, description="size histogram of stored objects")
    requests: dict[str, int] = Field(default_factory=dict, description="requests by operation")
    egress_bytes: int = Field(default=0, ge=0, description="bytes served to the internet")
    inter_region_bytes: int = Field(default=0, ge=0)
    retrieval_bytes: int = Field(default=0, ge=0, description="bytes read out of a class that charges retrieval")
    upload_bytes: int = Field(
        default=0, ge=0, description="bytes written by requests (a per-GB request payload charge)"
    )
    replica_regions: int = Field(
        default=0,
        ge=0,
        le=100,
        description="regions each object is replicated to beyond its first (a replication surcharge)",
    )
    retrieval_requests: int = Field(default=0, ge=0)
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
    buckets: int = Field(default=1, ge=0)
    egress_allowance_used_bytes: int = Field(
        default=0, ge=0, description="part of a shared free egress allowance already used elsewhere in the account"
    )
    request_allowance_used: dict[str, int] = Field(
        default_factory=dict,
        description="free requests of shared allowances (by request class id) the account's other classes already"
        " took this month (a placement's earlier classes)",
    )
    standard_rate_bytes_elsewhere: int = Field(
        default=0,
        ge=0,
        description="bytes the account bills at the Standard-rate class's storage price this month outside this bill"
        " (a placement's Standard class): S3 Glacier's per-object 8 KB and restored copies are billed on the"
        " Standard tiers above them, as AWS's Pricing Calculator adds them",
    )
    restored_copy_days: Decimal = Field(
        default=Decimal(1),
        ge=0,
        le=36500,
        description="days each restored copy of an archived object is kept (the restore request's Days; 1, the"
        " least a request takes, by default)",
    )
    request_days: int | None = Field(
        default=None,
        ge=1,
        le=31,
        description="days of the month on which the requests are made (a run once a week: 4 or 5); a daily free"
        " allowance counts only those days (none: requests every day)",
    )
    month_days: int | None = Field(
        default=None,
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
