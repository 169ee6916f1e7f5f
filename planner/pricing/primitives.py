"""The primitives every price-table model is built of: money and price types and their bounds, billing
units, the operations the engine knows, how well a figure is sourced (``Status``), the models' base, and a
tiered price (``Tier``, ``TieredPrice``).

Prices are ``Decimal`` from the file to the line item; a float never touches money. Every
quantity states the provider's billing unit (``unit`` for people, ``unit_bytes`` for the
engine), so a GB that is 10**9 bytes at one provider and 2**30 at another stays explicit.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainSerializer, field_validator, model_validator


class PriceMark:
    """Marks a field as a price: the figure a quote must give (``planner.pricing.quotes`` finds them by it)."""


PRICE = PriceMark()

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


Price = Annotated[Money, Field(le=MAX_PRICE_USD), AfterValidator(_real_price), PRICE]
Quantity = Annotated[Decimal, Field(ge=0, le=MAX_QUANTITY)]
ByteCount = Annotated[int, Field(ge=0, le=MAX_QUANTITY)]

# The bytes a stated unit may stand for. Providers say "GB" for 2**30 too (Wasabi), so a decimal
# name allows either; a binary name allows only its power of 1024; a prefix off by 1000 never passes.
_UNIT_BYTES: dict[str, tuple[int, ...]] = {
    **{name: (10 ** (3 * k), 2 ** (10 * k)) for k, name in enumerate(("B", "KB", "MB", "GB", "TB", "PB"))},
    **{name: (2 ** (10 * k),) for k, name in enumerate(("KiB", "MiB", "GiB", "TiB", "PiB"), start=1)},
}


def check_unit(unit: str, unit_bytes: int) -> None:
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


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# The first reading date a quote may carry (S3 launched in March 2006) and the ops a derivation knows.
FIRST_READING = dt.date(2006, 1, 1)
_DERIVE = re.compile(r"^\s*(?:(?:[*/]\s*[0-9][0-9,]*(?:\.[0-9]+)?|round\s+[0-9]+|free)\s*)*$")


class Quote(StrictModel):
    """The words a figure was read from: a short passage of the source (a table row or a sentence, as the
    page gives it), the address it was read at, the day it was read and, where the unit changes, how the
    figure follows from the passage (``derive``: ``/ 1000`` for "$4.50 per million" priced per 1,000, ``* 730``
    for an hourly rate priced per month, ``round 6``; ``free`` for a passage that says the thing costs
    nothing). ``planner.pricing.quotes`` checks that the figure follows."""

    text: str = Field(min_length=1, max_length=2000, description="the passage, quoted as the source words it")
    url: str = Field(min_length=8, max_length=500, description="the address it was read at (a URL, or owner/repo:path)")
    read: dt.date = Field(description="the day the passage was read")
    derive: str | dict[str, str] | None = Field(
        None,
        description="how the figure follows from a number in the passage, or by field where a model has several"
        " prices ({per_gb: '/ 1000'}): ops '/ N', '* N', 'round N' (half-up, N places), 'free'",
    )
    note: str | None = None

    @field_validator("read")
    @classmethod
    def _plausible_day(cls, read: dt.date) -> dt.date:
        latest = dt.date.today() + dt.timedelta(days=1)
        if not FIRST_READING <= read <= latest:
            raise ValueError(f"{read.isoformat()} is not a day a page was read (from {FIRST_READING} to {latest})")
        return read

    @field_validator("url")
    @classmethod
    def _address(cls, url: str) -> str:
        if any(c.isspace() for c in url) or ("/" not in url and "." not in url):
            raise ValueError(f"{url!r} is not an address (a URL, or owner/repo:path)")
        return url

    @field_validator("derive")
    @classmethod
    def _known_ops(cls, derive: str | dict[str, str] | None) -> str | dict[str, str] | None:
        for ops in [derive] if isinstance(derive, str) else (derive or {}).values():
            if not _DERIVE.match(ops):
                raise ValueError(f"derive {ops!r}: ops are '/ N', '* N', 'round N' and 'free'")
        return derive


class Tier(StrictModel):
    """One slice of a marginal tier ladder: units above the previous bound up to ``up_to``."""

    up_to: Quantity | None = Field(None, description="cumulative upper bound in the price's unit; none = no bound")
    price: Price = Field(description="USD per unit within this slice")
    status: Status | None = Field(None, description="how well this slice's price is sourced, if not as the whole")
    source: str | None = Field(None, description="where this price was read (an offer file's SKU and rate code)")
    quote: Quote | None = Field(None, description="the words the price was read from")


class TieredPrice(StrictModel):
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
        check_unit(self.unit, self.unit_bytes)
        if self.free_per_hour is not None and not self.per_hour:
            raise ValueError("free_per_hour is for an hourly price (per_hour: true)")
        return self
