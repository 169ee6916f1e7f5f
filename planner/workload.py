"""The workload a user describes in YAML, and its translation into each provider's billing units.

Human units everywhere ("200 TB", "8 GB", "30d", "10 Gbps"); unknown keys are errors that
name the key. ``Workload.usage_for`` compiles a month of the workload into a ``pricing.Usage``
for one provider and storage class: multipart uploads become the parts the provider bills,
retention becomes deletions at an age (the minimum-duration charges), growth moves the stored
volume month by month.
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from planner.errors import InputError, validation_problem
from planner.pricing.models import Deletion, Limits, SizeBin, Usage
from planner.units import (
    MAX_BYTES,
    BitsPerSecond,
    Bytes,
    Count,
    MonthlyBytes,
    Seconds,
    format_bytes,
    parse_duration,
    parse_rate,
)

DAY_S = 86400.0
MONTH_S = 30 * DAY_S
# Objects or requests a month: 10**15 is ~390 million requests a second, beyond any provider.
MAX_COUNT = 10**15


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_PER = {"s": 1.0, "sec": 1.0, "min": 60.0, "m": 60.0, "h": 3600.0, "hr": 3600.0}


def parse_request_rate(value: object) -> float:
    """Parse "300/s", "18000/min" or "1e6/h" into requests a second; a bare number has no unit."""
    hint = 'use e.g. "300/s" or "18000/min"'
    if isinstance(value, bool) or not isinstance(value, str):
        raise ValueError(f"{value!r} is not a request rate ({hint})")
    number, slash, unit = value.strip().partition("/")
    unit = unit.strip().lower()
    if not slash or unit not in _PER:
        raise ValueError(f"{value!r} is not a request rate ({hint})")
    try:
        count = float(number.strip().replace("_", ""))
    except ValueError:
        raise ValueError(f"{value!r} is not a request rate ({hint})") from None
    if not math.isfinite(count) or count <= 0:
        raise ValueError(f"{value!r}: a request rate must be more than 0")
    return count / _PER[unit]


def _request_rate_validator(value: Any, info: ValidationInfo) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and not (info.context or {}).get("from_file"):
        return float(value)  # Python callers give requests a second; a file needs the unit
    return parse_request_rate(value)


_RATE_TEXT = Annotated[str, StringConstraints(pattern=r"^\s*[0-9._eE+-]+\s*/\s*(s|sec|min|m|h|hr)\s*$")]
RequestsPerSecond = Annotated[
    float, BeforeValidator(_request_rate_validator, json_schema_input_type=float | _RATE_TEXT)
]
"""A request rate: "300/s" in a file, float requests a second in Python."""


def _fraction(value: object, what: str) -> Decimal:
    """A share or a discount: a number in [0, 1] or a percentage such as "15%"."""
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise ValueError(f'{value!r} is not a {what} (use e.g. 0.15 or "15%")')
    text = str(value).strip()
    percent = text.endswith("%")
    try:
        number = Decimal(text.removesuffix("%").strip())
    except ArithmeticError:
        raise ValueError(f'{value!r} is not a {what} (use e.g. 0.15 or "15%")') from None
    if not number.is_finite():
        raise ValueError(f'{value!r} is not a {what} (use e.g. 0.15 or "15%")')
    fraction = number / 100 if percent else number
    if fraction < 0 or fraction > 1:
        raise ValueError(f"{value!r}: a {what} lies between 0 and 1 (0% and 100%)")
    return fraction


def _share(value: object) -> object:
    """A share as a number in [0, 1] or a percentage ("30%"); other values reach the field's own checks."""
    if isinstance(value, str) and value.strip().endswith("%"):
        return float(_fraction(value, "share"))
    return value


Share = Annotated[float, BeforeValidator(_share, json_schema_input_type=float | str)]
"""A fraction: 0.3 or "30%"."""


class SizeShare(_Model):
    """Part of a size distribution: ``share`` of the objects are ``size`` bytes."""

    size: Bytes = Field(description='object size, e.g. "256 KiB"')
    share: Share = Field(gt=0, le=1, description='fraction of the objects with this size, e.g. 0.25 or "25%"')


# A placement written to three figures ("33.3 TB") may miss the stated total by this much.
PLACEMENT_TOLERANCE = 0.005


def _stored_or_placement(schema: dict[str, Any]) -> None:
    """The schema says what the loader does: ``stored`` may be left out when ``placement`` is given."""
    required = [name for name in schema.get("required", []) if name != "stored"]
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    schema["anyOf"] = [{"required": ["stored"]}, {"required": ["placement"]}]


def storage_class_ids() -> set[str]:
    """Every storage class id any shipped price table defines."""
    from planner.pricing import catalog

    return {cls for tables in catalog.shipped_tables().values() for table in tables for cls in table.classes}


class Storage(_Model):
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=_stored_or_placement)

    stored: Bytes = Field(
        description='average volume stored this month, e.g. "200 TB" (may be left out when placement is given: its sum)'
    )
    placement: dict[str, Bytes] | None = Field(
        None,
        min_length=1,
        description='the bytes in each storage class today, e.g. {standard: "40 TB", glacier-flexible: "60 TB"}'
        " (a bucket with lifecycle rules holds several at once): cost prices each class on its own; in a file it"
        " adds up to stored, and a sweep that moves stored keeps the classes' shares",
    )

    @model_validator(mode="before")
    @classmethod
    def _stored_from_placement(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict) or "stored" in data or not isinstance(data.get("placement"), dict):
            return data
        from planner.units import parse_size

        strict = bool(info.context and info.context.get("from_file"))
        total = 0
        for storage_class, size in data["placement"].items():
            try:
                total += parse_size(size, allow_bare=not strict)
            except ValueError as error:
                raise ValueError(f"placement.{storage_class}: {error}") from None
        return {**data, "stored": f"{total} B" if strict else total}

    @field_validator("placement")
    @classmethod
    def _placement_classes(cls, placement: dict[str, int] | None) -> dict[str, int] | None:
        if placement is None:
            return None
        known = storage_class_ids()
        for storage_class in placement:
            if storage_class not in known:
                raise ValueError(
                    f"{storage_class!r} is no provider's storage class (known: {', '.join(sorted(known))})"
                )
        if not sum(placement.values()):
            raise ValueError("every class holds 0 bytes (leave placement out for an empty bucket)")
        return placement

    object_size: Bytes | None = Field(None, description="mean object size (or give objects, or size_distribution)")
    objects: Count | None = Field(None, gt=0, le=MAX_COUNT, description='number of objects stored, e.g. "2M"')
    size_distribution: list[SizeShare] | None = Field(None, min_length=1, description="object sizes and their shares")
    growth_per_month: MonthlyBytes = Field(
        0, description='volume added each month, e.g. "2 TB" or "70 GB/day" (the horizon projection grows by it)'
    )
    growth_rate: Share = Field(
        0.0,
        ge=0,
        le=1,
        description='volume added each month as a share of what is stored then, e.g. "5%" (compounding over the'
        " horizon; with growth_per_month both add)",
    )
    prefixes: Count | None = Field(
        None,
        ge=1,
        le=MAX_COUNT,
        description="key prefixes the objects are spread over evenly (S3's request rates are per prefix);"
        " unset: as many as the peak needs",
    )
    retention: Seconds | None = Field(
        None,
        gt=0,
        description='how long an object lives before deletion, e.g. "365d" or "1y"; "forever" for never'
        " (drives minimum-duration charges)",
    )

    @field_validator("retention", mode="before")
    @classmethod
    def _forever(cls, value: object) -> object:
        return None if isinstance(value, str) and value.strip().lower() in ("forever", "never") else value

    unread: dict[str, float | str] | None = Field(
        None,
        description='share of the stored bytes not read for at least each period, e.g. {"30d": "60%", "90d": "40%",'
        ' "180d": "10%"}: S3 Intelligent-Tiering moves such data to its cheaper tiers by itself',
    )
    buckets: Count = Field(
        1, ge=1, le=MAX_COUNT, description="buckets the data is kept in (R2 bills buckets beyond 100,000)"
    )

    @field_validator("unread", mode="before")
    @classmethod
    def _period_keys(cls, unread: object) -> object:
        # A bare number as a key ({30: 50%}) is a period without a unit: let the duration parser say so.
        if isinstance(unread, dict):
            return {key if isinstance(key, str) else repr(key): value for key, value in unread.items()}
        return unread

    @field_validator("unread")
    @classmethod
    def _unread(cls, unread: dict[str, float | str] | None) -> dict[str, float | str] | None:
        if unread is None:
            return None
        by_days: dict[float, Decimal] = {}
        for period, share in unread.items():
            days = parse_duration(period) / DAY_S
            if days <= 0 or days != int(days):
                raise ValueError(f'{period!r}: give each period in whole days, e.g. "30d"')
            by_days[days] = _fraction(share, "share")
        ordered = [by_days[d] for d in sorted(by_days)]
        if any(later > earlier for earlier, later in itertools.pairwise(ordered)):
            raise ValueError("a longer period cannot leave more of the data unread than a shorter one")
        return unread

    @model_validator(mode="after")
    def _placement_adds_up(self, info: ValidationInfo) -> Storage:
        # A file must agree with itself; a workload built in Python (a sweep or a sampled outcome that
        # moves stored) keeps the placement as the classes' shares of whatever is stored.
        if self.placement is None or not (info.context or {}).get("from_file"):
            return self
        total = sum(self.placement.values())
        if abs(total - self.stored) > PLACEMENT_TOLERANCE * max(total, self.stored):
            raise ValueError(
                f"placement adds up to {format_bytes(total)} but stored is {format_bytes(self.stored)}: they must"
                f" agree within {PLACEMENT_TOLERANCE:.1%} (or leave stored out and it is the placement's sum)"
            )
        return self

    @model_validator(mode="after")
    def _one_size(self) -> Storage:
        given = [n for n in ("object_size", "objects", "size_distribution") if getattr(self, n) is not None]
        if not given:
            raise ValueError("give one of object_size, objects or size_distribution (requests are counted per object)")
        if len(given) > 1:
            raise ValueError(f"give only one of object_size, objects and size_distribution (got {', '.join(given)})")
        if self.object_size is not None and self.object_size < 1:
            raise ValueError(f"object_size is {self.object_size:g} bytes: an object holds at least 1 byte")
        if self.object_size is not None and self.stored and self.object_size > self.stored and self.retention is None:
            # with a retention, short-lived objects can average less than one object stored
            raise ValueError(
                f"object_size ({format_bytes(self.object_size)}) is larger than stored ({format_bytes(self.stored)}):"
                " that is less than one object (give a retention if objects live only part of the month)"
            )
        if self.objects is not None and self.stored and self.objects > self.stored:
            raise ValueError(f"{self.objects:,} objects in {format_bytes(self.stored)} would be under 1 byte each")
        if self.retention is not None and self.stored * MONTH_S / self.retention > MAX_BYTES:
            turnover = format_bytes(self.stored * MONTH_S / self.retention)
            raise ValueError(
                f"retention of {self.retention:g} s turns over {turnover} a month, beyond any real workload"
                " (more than 100 EB)"
            )
        if self.size_distribution is not None:
            total = sum(s.share for s in self.size_distribution)
            if not math.isclose(total, 1.0, abs_tol=1e-6):
                raise ValueError(f"size_distribution shares must add up to 1 (they add up to {total:g})")
            if any(s.size < 1 for s in self.size_distribution):
                raise ValueError("size_distribution sizes must be at least 1 byte (an object holds at least 1 byte)")
        return self

    def unread_shares(self) -> dict[int, Decimal]:
        """Share of the stored bytes unread for at least N days, by N (empty when not given)."""
        if not self.unread:
            return {}
        return {round(parse_duration(p) / DAY_S): _fraction(share, "share") for p, share in self.unread.items()}

    @property
    def mean_object_bytes(self) -> float:
        if self.object_size is not None:
            return float(self.object_size)
        if self.objects is not None:
            return self.stored / self.objects if self.stored else 0.0
        assert self.size_distribution is not None
        return sum(s.size * s.share for s in self.size_distribution)


class HotObjects(_Model):
    """A few objects read by many clients at once (an index, a reference genome, a manifest)."""

    count: Count = Field(1, ge=1, le=MAX_COUNT, description="how many hot objects")
    share_of_reads: Share = Field(
        0.0, ge=0, le=1, description='fraction of all reads that go to them, e.g. 0.3 or "30%"'
    )
    peak_concurrency: Count = Field(
        1,
        ge=0,
        le=MAX_COUNT,
        description="concurrent readers of one hot object at peak, starting together (0: no burst, the hot share "
        "of reads arrives with the rest)",
    )
    replicas: Count = Field(1, ge=1, le=MAX_COUNT, description="copies under different keys that readers spread over")
    read_size: Bytes | None = Field(
        None, description='bytes each hot read fetches, e.g. "1 MiB" for a header region (default: the whole object)'
    )


class Traffic(_Model):
    egress: MonthlyBytes = Field(0, description='bytes served to the internet per month, e.g. "120 TB" or "4 TB/day"')
    reads: Count | None = Field(
        None, ge=0, le=MAX_COUNT, description='GET requests per month, e.g. "60M" (default: egress / object size)'
    )
    writes: Count | None = Field(
        None, ge=0, le=MAX_COUNT, description="objects written per month (default: from growth and retention)"
    )
    read_write_ratio: str | None = Field(None, description='reads per write, e.g. "10:1" (instead of reads or writes)')
    heads: Count = Field(0, ge=0, le=MAX_COUNT, description="HEAD requests per month")
    lists: Count = Field(0, ge=0, le=MAX_COUNT, description="LIST requests per month")
    reads_by_class: dict[str, Count] | None = Field(
        None,
        description='GETs a month from classes of storage.placement, e.g. {standard-ia: "20k"}: each pays its'
        " class's request price and retrieval (its share of the bytes read); the rest of reads go to the"
        " placement's class with the highest storage price",
    )
    internal_reads: MonthlyBytes = Field(
        0, description="bytes read inside the provider's region per month (no egress, but retrieval fees)"
    )
    inter_region: MonthlyBytes = Field(0, description="bytes copied to another region of the same provider per month")
    hot_objects: HotObjects | None = None
    peak_factor: float = Field(1.0, ge=1, le=1000, description="peak request rate / mean request rate")
    peak_rate: RequestsPerSecond | None = Field(
        None,
        gt=0,
        le=1e9,
        description='requests a second at peak, e.g. "300/s" (or "/min", "/h"): the simulated peak window runs '
        "at this rate, in the monthly counts' mix, instead of the month's average x peak_factor",
    )
    workers: int | None = Field(
        None,
        ge=1,
        le=100_000,
        description="the peak as a closed loop: this many clients, each sending its next request when its last "
        "one ends (after think_time), in the monthly counts' mix, instead of Poisson arrivals at a rate",
    )
    think_time: Seconds = Field(0.0, ge=0, description='a worker\'s pause between requests, e.g. "50 ms"')

    @field_validator("read_write_ratio")
    @classmethod
    def _ratio(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\s*\d+(\.\d+)?\s*:\s*\d+(\.\d+)?\s*", value):
            raise ValueError(f'{value!r} is not a ratio (use e.g. "10:1")')
        if value is not None and float(value.split(":")[1]) == 0:
            raise ValueError(f"{value!r}: the write side of a ratio cannot be 0")
        return value

    @model_validator(mode="after")
    def _not_overdetermined(self) -> Traffic:
        if self.read_write_ratio is not None and self.reads is not None and self.writes is not None:
            raise ValueError("give at most two of reads, writes and read_write_ratio")
        if self.workers is not None and self.peak_rate is not None:
            raise ValueError("give peak_rate (an open loop) or workers (a closed loop), not both")
        if self.think_time and self.workers is None:
            raise ValueError("think_time is a closed loop's pause: give workers too")
        return self

    @property
    def ratio(self) -> float | None:
        if self.read_write_ratio is None:
            return None
        reads, writes = (float(x) for x in self.read_write_ratio.split(":"))
        return reads / writes


class Performance(_Model):
    p99_ttfb: Seconds | None = Field(None, description='99th-percentile time to first byte target, e.g. "200 ms"')
    read_throughput: BitsPerSecond | None = Field(None, description='aggregate read throughput needed, e.g. "10 Gbps"')
    write_throughput: BitsPerSecond | None = Field(None, description="aggregate write throughput needed")


class Client(_Model):
    link: BitsPerSecond = Field(parse_rate("10 Gbps"), gt=0, description="client network capacity")
    concurrency: int = Field(64, ge=1, le=100_000, description="concurrent requests the client keeps in flight")
    part_size: Bytes = Field(100 * 2**20, gt=0, description="multipart upload part size")
    multipart_threshold: Bytes = Field(100 * 2**20, gt=0, description="objects at least this large upload in parts")
    read_streams: int = Field(1, ge=1, le=1024, description="parallel ranged GETs per large object read")
    range_size: Bytes = Field(64 * 2**20, gt=0, description="bytes per ranged GET when read_streams > 1")


def _known_providers() -> list[str]:
    """Every provider the price tables define, in the tables' order."""
    from planner.pricing import catalog

    return catalog.providers()


def _check_provider(provider: str) -> None:
    known = _known_providers()
    if provider not in known:
        raise ValueError(f"unknown provider {provider!r} (known: {', '.join(known)})")


class Constraints(_Model):
    providers: list[str] = Field(default_factory=lambda: _known_providers(), min_length=1)
    storage_classes: list[str] | None = Field(None, description="consider only these storage class ids")
    months: int = Field(12, ge=1, le=120, description="horizon for totals and growth")
    discounts: dict[str, float | str] = Field(
        default_factory=dict,
        description='negotiated discounts by provider, e.g. {"aws-s3": "15%"}: taken off every charged line',
    )
    regions: dict[str, list[str]] = Field(
        default_factory=dict,
        description='regions to consider by provider, e.g. {"aws-s3": ["eu-central-1", "us-east-1"]}: each is'
        " ranked as an option of its own (default: the provider's default region, us-east-1 for S3)",
    )

    @field_validator("regions")
    @classmethod
    def _regions(cls, regions: dict[str, list[str]]) -> dict[str, list[str]]:
        for provider, names in regions.items():
            known = _known_providers()
            if provider not in known:
                raise ValueError(f"unknown provider {provider!r} (known: {', '.join(known)})")
            if not names or len(set(names)) != len(names) or not all(n.strip() for n in names):
                raise ValueError(f"{provider}: a list of distinct region names, e.g. [eu-central-1, us-east-1]")
        return regions

    @model_validator(mode="after")
    def _regions_of_considered_providers(self) -> Constraints:
        ignored = [p for p in self.regions if p not in self.providers]
        if ignored:
            raise ValueError(f"regions: {', '.join(ignored)} not among constraints.providers")
        return self

    def regions_for(self, provider: str) -> list[str | None]:
        """The regions to price ``provider`` in; None stands for its default region."""
        return list(self.regions.get(provider, [None]))

    @field_validator("discounts")
    @classmethod
    def _discounts(cls, discounts: dict[str, float | str]) -> dict[str, float | str]:
        for provider, discount in discounts.items():
            _check_provider(provider)
            if _fraction(discount, "discount") >= 1:
                raise ValueError(f"{discount!r}: a discount must be less than 100%")
        return discounts

    def discount_fractions(self) -> dict[str, Decimal]:
        return {provider: _fraction(d, "discount") for provider, d in self.discounts.items()}

    @field_validator("providers")
    @classmethod
    def _known(cls, providers: list[str]) -> list[str]:
        for provider in providers:
            _check_provider(provider)
        return providers


class Workload(_Model):
    """A storage workload: what is stored, how it is read and written, and what it must achieve."""

    name: str = Field(min_length=1)
    description: str | None = None
    storage: Storage
    traffic: Traffic = Field(default_factory=Traffic)
    performance: Performance = Field(default_factory=Performance)
    client: Client = Field(default_factory=Client)
    constraints: Constraints = Field(default_factory=Constraints)
    # The inputs the file gave as distributions (planner.uncertainty): the fields hold their central
    # values; recommend --samples draws from them.
    _uncertain: list[Any] = PrivateAttr(default_factory=list)
    _correlations: list[Any] = PrivateAttr(default_factory=list)

    @property
    def uncertain(self) -> list[Any]:
        """The uncertain inputs (``planner.uncertainty.Uncertain``) the file gave, if any."""
        return list(self._uncertain)

    @property
    def correlations(self) -> list[Any]:
        """The correlations between uncertain inputs the file gave (``planner.uncertainty.Correlation``)."""
        return list(self._correlations)

    @field_validator("name")
    @classmethod
    def _one_line(cls, name: str) -> str:
        if any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise ValueError(f"{name!r}: a name is one line of text without control characters")
        # format characters (zero-width spaces, right-to-left overrides) make a name print as another
        hidden = [c for c in name if unicodedata.category(c) in ("Cf", "Co", "Cs")]
        if hidden:
            codes = ", ".join(f"U+{ord(c):04X}" for c in dict.fromkeys(hidden))
            raise ValueError(f"{name!r}: a name may not hold invisible or direction-changing characters ({codes})")
        if not name.strip():
            raise ValueError("a name needs at least one visible character")
        return name

    @model_validator(mode="after")
    def _reads_by_placed_class(self) -> Workload:
        by_class = self.traffic.reads_by_class
        if by_class is None:
            return self
        placement = self.storage.placement
        if placement is None:
            raise ValueError("traffic.reads_by_class names classes of storage.placement: give the placement too")
        unplaced = [cls for cls in by_class if cls not in placement]
        if unplaced:
            raise ValueError(
                f"traffic.reads_by_class: {unplaced[0]!r} holds nothing in storage.placement ({', '.join(placement)})"
            )
        if any(count < 0 for count in by_class.values()):
            raise ValueError("traffic.reads_by_class: a count cannot be negative")
        stated, reads = sum(by_class.values()), self.reads_per_month()
        if stated > reads:
            raise ValueError(
                f"traffic.reads_by_class adds up to {stated:,} GETs, more than the {reads:,} reads a month"
            )
        return self

    @model_validator(mode="after")
    def _horizon_within_reason(self) -> Workload:
        last = self.stored_bytes(self.constraints.months - 1)
        if last > MAX_BYTES:
            raise ValueError(
                f"storage growth over constraints.months {self.constraints.months} reaches"
                f" {format_bytes(last)} stored, beyond any real workload (more than 100 EB)"
            )
        return self

    # ------------------------------------------------------------------ derived quantities

    def stored_bytes(self, month: int = 0) -> int:
        grown = self.storage.stored
        if self.storage.growth_rate:
            grown = round(grown * (1 + self.storage.growth_rate) ** month)
        return grown + self.storage.growth_per_month * month

    def object_count(self, month: int = 0) -> int:
        mean = self.storage.mean_object_bytes
        if self.storage.objects is not None and month == 0:
            return self.storage.objects
        return max(1, round(self.stored_bytes(month) / mean)) if mean and self.stored_bytes(month) else 0

    def written_bytes(self, month: int = 0) -> float:
        """Bytes written a month: growth plus replacement of what retention deletes."""
        replaced = self.deleted_bytes(month)
        return float(self.storage.growth_per_month) + self.stored_bytes(month) * self.storage.growth_rate + replaced

    def consistency_warnings(self) -> list[str]:
        """Figures of the workload that contradict each other (priced as written, but said): objects
        written a month against what retention deletes plus growth."""
        traffic, storage = self.traffic, self.storage
        if traffic.writes is None or storage.retention is None or not storage.stored:
            return []
        written = traffic.writes * storage.mean_object_bytes
        needed = self.written_bytes(0)
        if needed <= 0 or 0.5 <= written / needed <= 2:
            return []
        days = storage.retention / DAY_S
        change = "shrink" if written < needed else "grow"
        return [
            f"traffic.writes: {traffic.writes:,} objects of {format_bytes(storage.mean_object_bytes)} write"
            f" {format_bytes(written)} a month, but a {days:g}-day retention deletes"
            f" {format_bytes(self.deleted_bytes(0))} a month"
            + (f" and growth adds {format_bytes(storage.growth_per_month)}" if storage.growth_per_month else "")
            + f": the stored volume would {change} by {format_bytes(abs(needed - written))} a month, not stay at"
            f" {format_bytes(storage.stored)} (priced as written; check writes, retention and stored)"
        ]

    def deleted_bytes(self, month: int = 0) -> float:
        retention = self.storage.retention
        if retention is None:
            return 0.0
        # In steady state a volume S with lifetime R turns over S x (month / R) each month.
        return self.stored_bytes(month) * MONTH_S / retention

    def reads_per_month(self) -> int:
        traffic = self.traffic
        if traffic.reads is not None:
            return traffic.reads
        if traffic.ratio is not None and traffic.writes is not None:
            return round(traffic.writes * traffic.ratio)
        mean = self.storage.mean_object_bytes
        read_bytes = traffic.egress + traffic.internal_reads + traffic.inter_region
        return math.ceil(read_bytes / mean) if mean else 0

    def writes_per_month(self, month: int = 0) -> int:
        traffic = self.traffic
        if traffic.writes is not None:
            return traffic.writes
        if traffic.ratio is not None:
            return math.ceil(self.reads_per_month() / traffic.ratio)
        mean = self.storage.mean_object_bytes
        return math.ceil(self.written_bytes(month) / mean) if mean else 0

    def size_bins(self, month: int = 0) -> list[SizeBin] | None:
        distribution = self.storage.size_distribution
        if distribution is None:
            return None
        count = self.object_count(month)
        return [SizeBin(bytes=s.size, count=round(count * s.share)) for s in distribution]

    def object_sizes(self) -> list[tuple[float, float]]:
        """(object size in bytes, share of objects) pairs."""
        if self.storage.size_distribution is not None:
            return [(float(s.size), s.share) for s in self.storage.size_distribution]
        return [(self.storage.mean_object_bytes, 1.0)]

    def parts_per_upload(self, size_bytes: float, limits: Limits) -> int:
        """Requests one object's upload takes at a provider: 1 PUT, or 1 + parts + 1 for multipart."""
        part = float(self.client.part_size)
        single_max = limits.max_single_put_bytes
        multipart = size_bytes >= self.client.multipart_threshold or (
            single_max is not None and size_bytes > single_max
        )
        if not multipart:
            return 1
        if limits.multipart is not None:
            part = max(part, limits.multipart.min_part_bytes)
            # Too many parts: the client must raise its part size to fit the provider's part count.
            part = max(part, size_bytes / limits.multipart.max_parts)
            part = min(part, limits.multipart.max_part_bytes)
        return math.ceil(size_bytes / part)

    def usage_for(self, storage_class: str, limits: Limits, month: int = 0) -> Usage:
        """One month of this workload in a provider's billing units."""
        writes = self.writes_per_month(month)
        put = create = parts = complete = 0
        for size, share in self.object_sizes():
            count = writes * share
            per_object = self.parts_per_upload(size, limits)
            if per_object == 1:
                put += round(count)
            else:
                create += round(count)
                complete += round(count)
                parts += round(count * per_object)
        reads = self.reads_per_month()
        if self.client.read_streams > 1:
            # Large objects read as parallel ranges: each range is a billed GET.
            ranges = sum(
                share * max(1, min(self.client.read_streams, math.ceil(size / self.client.range_size)))
                for size, share in self.object_sizes()
            )
            reads = round(reads * ranges)
        deleted = self.deleted_bytes(month)
        deletions = []
        mean = self.storage.mean_object_bytes
        if deleted and self.storage.retention is not None:
            # One deletion per object size, so a class with a minimum billable size pads each size's
            # early deletion on its own (a mean over mixed sizes would hide the small ones).
            objects = deleted / mean if mean else 0.0
            for size, share in self.object_sizes():
                deletions.append(
                    Deletion(
                        bytes=round(objects * share * size) if mean else round(deleted),
                        objects=round(objects * share),
                        age_days=self.storage.retention / DAY_S,
                    )
                )
        requests = {
            "put": put,
            "create-multipart": create,
            "upload-part": parts,
            "complete-multipart": complete,
            "get": reads,
            "head": self.traffic.heads,
            "list": self.traffic.lists,
            "delete": sum(d.objects for d in deletions),
        }
        traffic = self.traffic
        retrieval_bytes = traffic.egress + traffic.internal_reads + traffic.inter_region
        bins = self.size_bins(month)
        return Usage(
            stored_bytes=self.stored_bytes(month),
            object_count=None if bins is not None else self.object_count(month),
            object_sizes=bins,
            requests={op: n for op, n in requests.items() if n},
            egress_bytes=traffic.egress,
            inter_region_bytes=traffic.inter_region,
            retrieval_bytes=retrieval_bytes,
            # every read of a class that needs a restore is a restore request (the table says which do)
            retrieval_requests=self.reads_per_month(),
            deletions=deletions,
            unread_shares=self.storage.unread_shares(),
            discounts=self.constraints.discount_fractions(),
            buckets=self.storage.buckets,
        )

    def peak_read_rate_per_s(self) -> float:
        return self.reads_per_month() / MONTH_S * self.traffic.peak_factor

    def peak_write_rate_per_s(self) -> float:
        return self.writes_per_month() / MONTH_S * self.traffic.peak_factor


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(top level)"


def parse_workload(data: Any, source: str = "workload") -> Workload:
    """Validate already-parsed YAML/JSON; bare numbers for sizes, rates and durations need units."""
    if data is None:
        raise InputError("the file is empty (a workload needs at least name and storage)", source=source)
    if not isinstance(data, dict):
        raise InputError(f"a workload must be a mapping of keys, not {type(data).__name__}", source=source)
    from planner.pricing.catalog import find_boolean

    boolean = find_boolean(data)
    if boolean is not None:
        # pydantic would read true as 1 object or a share of 1.0: refuse it instead.
        raise InputError(
            "true/false is not a valid value here (YAML reads yes/no/on/off as booleans; quote text)",
            source=source,
            field=_field_path(boolean),
        )
    try:
        return Workload.model_validate(data, context={"from_file": True})
    except ValidationError as error:
        field, message = validation_problem(error, name_types=True)
        raise InputError(message, source=source, field=field or "(top level)") from None


SIZE_FIELDS = ("stored", "egress", "internal_reads", "inter_region", "growth_per_month", "object_size")
SHARE_FIELDS = ("growth_rate",)
"""The workload's byte-valued fields (by their last name): a value of one reads as a size."""


def format_field_value(field: str, value: float, *, whole: bool = False) -> str:
    """A value of a dotted workload field as people read it: a size for the byte fields, a whole
    number for counts, four figures otherwise."""
    if field.rsplit(".", 1)[-1] in SIZE_FIELDS:
        return format_bytes(value)
    if field.rsplit(".", 1)[-1] in SHARE_FIELDS:
        return f"{100 * value:.3g} %"
    return f"{value:,.0f}" if whole or value == int(value) else f"{value:.4g}"


def load_workload(path: Path | str) -> Workload:
    """Read a workload YAML file; every problem is one line naming the file and the field."""
    from planner.files import WORKLOAD_LIMIT_BYTES, read_input_text
    from planner.pricing.catalog import load_yaml

    source = str(path)
    text = read_input_text(path, what="workload file", limit_bytes=WORKLOAD_LIMIT_BYTES)
    data = load_yaml(text, source)
    if isinstance(data, dict):
        data = _plain(data)
        from planner import uncertainty

        if uncertainty.find(data) or "correlate" in data:
            workload, inputs, correlations = uncertainty.load(data, source)
            workload._uncertain = inputs
            workload._correlations = correlations
            return workload
    return parse_workload(data, source)


def _plain(value: Any) -> Any:
    """YAML decimals back to floats for non-money fields (shares, factors): units carry the exactness."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        return float(value)
    return value
