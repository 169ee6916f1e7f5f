"""The parts of a workload: storage, traffic, performance targets, the client and the constraints.

Human units everywhere ("200 TB", "8 GB", "30d", "10 Gbps"); unknown keys are errors that
name the key. Provider and storage-class names are checked against the ``Catalog`` in the
validation context (``planner.workload.catalog``; the shipped one when none is given).
"""

from __future__ import annotations

import itertools
import math
import re
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

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
    parse_size,
)
from planner.workload.aging import AgeBin, IntelligentTiering, LifecycleRule, check_rules, parse_age_bins
from planner.workload.catalog import catalog_in, shipped_catalog
from planner.workload.delivery import EgressTo, egress_split_schema, split_egress

DAY_S = 86400.0
MONTH_S = 30 * DAY_S
# Objects or requests a month: 10**15 is ~390 million requests a second, beyond any provider.
MAX_COUNT = 10**15


class StrictModel(BaseModel):
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


class SizeShare(StrictModel):
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
    """Every storage class id any installed price table defines (those of ``shipped_catalog()``)."""
    return set(shipped_catalog().storage_classes)


class Storage(StrictModel):
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra=_stored_or_placement)

    stored: Bytes = Field(
        description='average volume stored this month, e.g. "200 TB" (may be left out when placement is given: its sum)'
    )
    placement: dict[str, Bytes] | None = Field(
        default=None,
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
    def _placement_classes(cls, placement: dict[str, int] | None, info: ValidationInfo) -> dict[str, int] | None:
        if placement is None:
            return None
        known = catalog_in(info.context).storage_classes
        for storage_class in placement:
            if storage_class not in known:
                raise ValueError(
                    f"{storage_class!r} is no provider's storage class (known: {', '.join(sorted(known))})"
                )
        if not sum(placement.values()):
            raise ValueError("every class holds 0 bytes (leave placement out for an empty bucket)")
        return placement

    object_size: Bytes | None = Field(
        default=None, description="mean object size (or give objects, or size_distribution)"
    )
    objects: Count | None = Field(default=None, gt=0, le=MAX_COUNT, description='number of objects stored, e.g. "2M"')
    size_distribution: list[SizeShare] | None = Field(
        default=None, min_length=1, description="object sizes and their shares"
    )
    growth_per_month: MonthlyBytes = Field(
        default=0,
        description='volume added each month, e.g. "2 TB" or "70 GB/day" (the horizon projection grows by it)',
    )
    growth_rate: Share = Field(
        default=0.0,
        ge=0,
        le=1,
        description='volume added each month as a share of what is stored then, e.g. "5%" (compounding over the'
        " horizon; with growth_per_month both add)",
    )
    prefixes: Count | None = Field(
        default=None,
        ge=1,
        le=MAX_COUNT,
        description="key prefixes the objects are spread over evenly (S3's request rates are per prefix);"
        " unset: as many as the peak needs",
    )
    retention: Seconds | None = Field(
        default=None,
        gt=0,
        description='how long an object lives before deletion, e.g. "365d" or "1y"; "forever" for never'
        " (drives minimum-duration charges)",
    )

    @field_validator("retention", mode="before")
    @classmethod
    def _forever(cls, value: object) -> object:
        return None if isinstance(value, str) and value.strip().lower() in ("forever", "never") else value

    unread: dict[str, float | str] | None = Field(
        default=None,
        description='share of the stored bytes not read for at least each period, e.g. {"30d": "60%", "90d": "40%",'
        ' "180d": "10%"}: S3 Intelligent-Tiering moves such data to its cheaper tiers by itself',
    )
    buckets: Count = Field(
        default=1, ge=1, le=MAX_COUNT, description="buckets the data is kept in (R2 bills buckets beyond 100,000)"
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
        lives_all_month = self.retention is None or self.retention >= MONTH_S
        if self.object_size is not None and self.stored and self.object_size > self.stored and lives_all_month:
            # with a retention under a month, short-lived objects can average less than one object stored
            raise ValueError(
                f"object_size ({format_bytes(self.object_size)}) is larger than stored ({format_bytes(self.stored)}):"
                " that is less than one object (give a retention under 30d if objects live only part of the month)"
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

    # How data ages (planner.workload.aging): priced by planner.costing.lifecycle_bills.
    age: dict[str, float | str] | None = Field(
        default=None,
        description='share of the stored bytes (and objects) by age, e.g. {"0-30d": "20%", "30-180d": "30%",'
        ' "180d+": "50%"} (default: spread evenly over the ages the writes and retention give)',
    )
    lifecycle: list[LifecycleRule] | None = Field(
        default=None,
        description="lifecycle rules by age, e.g. [{after: 30d, to: standard-ia}, {after: 400d, expire: true}]",
    )
    intelligent_tiering: IntelligentTiering | None = Field(
        default=None,
        description="the bucket's Intelligent-Tiering archive tiers, e.g. {archive_access: 90d, deep_archive_access:"
        " 180d}: objects in intelligent-tiering unread that long move there, and a read restores them first",
    )

    @field_validator("age")
    @classmethod
    def _age_bins(cls, age: dict[str, float | str] | None) -> dict[str, float | str] | None:
        if age is not None:
            parse_age_bins(age, "", _fraction)
        return age

    def age_bins(self) -> list[tuple[AgeBin, Decimal]] | None:
        """``age`` as checked bins and their shares."""
        return None if self.age is None else parse_age_bins(self.age, "storage.age", _fraction)

    @field_validator("lifecycle")
    @classmethod
    def _rules_in_order(cls, rules: list[LifecycleRule] | None) -> list[LifecycleRule] | None:
        return None if rules is None else check_rules(rules)


class HotObjects(StrictModel):
    """A few objects read by many clients at once (an index, a reference genome, a manifest)."""

    count: Count = Field(default=1, ge=1, le=MAX_COUNT, description="how many hot objects")
    share_of_reads: Share = Field(
        default=0.0, ge=0, le=1, description='fraction of all reads that go to them, e.g. 0.3 or "30%"'
    )
    peak_concurrency: Count = Field(
        default=1,
        ge=0,
        le=MAX_COUNT,
        description="concurrent readers of one hot object at peak, starting together (0: no burst, the hot share "
        "of reads arrives with the rest)",
    )
    replicas: Count = Field(
        default=1, ge=1, le=MAX_COUNT, description="copies under different keys that readers spread over"
    )
    read_size: Bytes | None = Field(
        default=None,
        description='bytes each hot read fetches, e.g. "1 MiB" for a header region (default: the whole object)',
    )


class Traffic(StrictModel):
    egress: MonthlyBytes = Field(
        default=0,
        description='bytes served to the internet per month, e.g. "120 TB" or "4 TB/day"',
        json_schema_extra=egress_split_schema,
    )
    reads: Count | None = Field(
        default=None,
        ge=0,
        le=MAX_COUNT,
        description='GET requests per month, e.g. "60M" (default: egress / object size)',
    )
    writes: Count | None = Field(
        default=None, ge=0, le=MAX_COUNT, description="objects written per month (default: from growth and retention)"
    )
    read_write_ratio: str | None = Field(
        default=None, description='reads per write, e.g. "10:1" (instead of reads or writes)'
    )
    heads: Count = Field(default=0, ge=0, le=MAX_COUNT, description="HEAD requests per month")
    lists: Count = Field(default=0, ge=0, le=MAX_COUNT, description="LIST requests per month")
    reads_by_class: dict[str, Count] | None = Field(
        default=None,
        description='GETs a month from classes of storage.placement, e.g. {standard-ia: "20k"}: each pays its'
        " class's request price and retrieval (its share of the bytes read); the rest of reads go to the"
        " placement's class with the highest storage price",
    )
    internal_reads: MonthlyBytes = Field(
        default=0, description="bytes read inside the provider's region per month (no egress, but retrieval fees)"
    )
    inter_region: MonthlyBytes = Field(
        default=0, description="bytes copied to another region of the same provider per month"
    )
    hot_objects: HotObjects | None = None
    peak_factor: float = Field(default=1.0, ge=1, le=1000, description="peak request rate / mean request rate")
    peak_rate: RequestsPerSecond | None = Field(
        default=None,
        gt=0,
        le=1e9,
        description='requests a second at peak, e.g. "300/s" (or "/min", "/h"): the simulated peak window runs '
        "at this rate, in the monthly counts' mix, instead of the month's average x peak_factor",
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        le=100_000,
        description="the peak as a closed loop: this many clients, each sending its next request when its last "
        "one ends (after think_time), in the monthly counts' mix, instead of Poisson arrivals at a rate",
    )
    think_time: Seconds = Field(default=0.0, ge=0, description='a worker\'s pause between requests, e.g. "50 ms"')
    egress_to: EgressTo | None = Field(
        default=None, description="egress by destination, when traffic.egress is a split (planner.workload.delivery)"
    )

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

    @model_validator(mode="before")
    @classmethod
    def _egress_by_destination(cls, data: Any) -> Any:
        return split_egress(data)

    @property
    def ratio(self) -> float | None:
        if self.read_write_ratio is None:
            return None
        reads, writes = (float(x) for x in self.read_write_ratio.split(":"))
        return reads / writes

    reads_by_age: dict[str, float | str] | None = Field(
        default=None,
        description='share of the reads (and bytes read) by object age, e.g. {"0-30d": "70%", "30-90d": "20%",'
        ' "90d+": "10%"} (default: in proportion to the objects of each age)',
    )

    @field_validator("reads_by_age")
    @classmethod
    def _read_bins(cls, shares: dict[str, float | str] | None) -> dict[str, float | str] | None:
        if shares is not None:
            parse_age_bins(shares, "", _fraction)
        return shares

    def read_age_bins(self) -> list[tuple[AgeBin, Decimal]] | None:
        """``reads_by_age`` as checked bins and their shares."""
        return (
            None if self.reads_by_age is None else parse_age_bins(self.reads_by_age, "traffic.reads_by_age", _fraction)
        )


class Performance(StrictModel):
    p99_ttfb: Seconds | None = Field(
        default=None, gt=0, description='99th-percentile time to first byte target, e.g. "200 ms"'
    )
    read_throughput: BitsPerSecond | None = Field(
        default=None, gt=0, description='aggregate read throughput needed, e.g. "10 Gbps"'
    )
    write_throughput: BitsPerSecond | None = Field(default=None, gt=0, description="aggregate write throughput needed")
    max_restore: Seconds | None = Field(
        default=None,
        gt=0,
        description='the longest wait for a restore before a read that the reads accept, e.g. "12h": an archive'
        " class whose restores (as its price table states them) take longer is rejected; unset, data that is"
        " read must be readable without a restore",
    )


CLOUDS: tuple[str, ...] = ("aws", "gcp", "azure", "oci", "other")
"""Clouds a client may run in; a figure measured in a provider's own cloud region names the same ones."""


class CloudLocation(StrictModel):
    """A client inside a cloud region: ``{cloud: aws, region: us-east-1}``."""

    cloud: Literal["aws", "gcp", "azure", "oci", "other"] = Field(description="the cloud the client runs in")
    region: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64)] = Field(
        description="the cloud region the client runs in, e.g. us-east-1"
    )

    def text(self) -> str:
        return f"{self.cloud} {self.region}"


class Client(StrictModel):
    location: Literal["internet"] | CloudLocation = Field(
        default="internet",
        description='where the client runs: "internet" (the default), or {cloud: aws, region: us-east-1}; a figure'
        " measured in the bucket's region decides a target only for a client in that region",
    )
    link: BitsPerSecond = Field(default=parse_rate("10 Gbps"), gt=0, description="client network capacity")
    concurrency: int = Field(default=64, ge=1, le=100_000, description="concurrent requests the client keeps in flight")
    part_size: Bytes = Field(default=100 * 2**20, gt=0, description="multipart upload part size")
    multipart_threshold: Bytes = Field(
        default=100 * 2**20, gt=0, description="objects at least this large upload in parts"
    )
    read_streams: int = Field(default=1, ge=1, le=1024, description="parallel ranged GETs per large object read")
    range_size: Bytes = Field(default=64 * 2**20, gt=0, description="bytes per ranged GET when read_streams > 1")


def _check_provider(provider: str, known: tuple[str, ...]) -> None:
    if provider not in known:
        raise ValueError(f"unknown provider {provider!r} (known: {', '.join(known)})")


def expand_providers(entries: list[Any], known: tuple[str, ...]) -> dict[str, list[Any]]:
    """``providers`` entries as providers and named classes: "all" is every known provider and class,
    PROVIDER:CLASS that provider with that class (ranked though its table leaves it out by default)."""
    providers: list[Any] = []
    named: list[str] = []
    for entry in entries:
        if entry == "all":
            providers += known
            named.append("*")
        elif isinstance(entry, str) and ":" in entry:
            provider, _, storage_class = entry.partition(":")
            providers.append(provider)
            named.append(f"{provider}:{storage_class}")
        else:
            providers.append(entry)
    return {"providers": list(dict.fromkeys(providers)), "named_classes": list(dict.fromkeys(named))}


class RedundancyNeed(StrictModel):
    """How many copies the data must survive on: ``zones: 2`` (availability zones, or a class kept in
    several regions), or ``copies: 2`` across regions or providers."""

    zones: int | None = Field(default=None, ge=1, le=10, description="availability zones the class must keep copies in")
    copies: int | None = Field(
        default=None, ge=1, le=10, description="copies in separate regions (or providers) the class must keep by itself"
    )

    @model_validator(mode="after")
    def _one_given(self) -> RedundancyNeed:
        if self.zones is None and self.copies is None:
            raise ValueError("give zones (e.g. zones: 2) or copies (e.g. copies: 2)")
        return self

    def text(self) -> str:
        said = [f"zones: {self.zones}"] if self.zones is not None else []
        said += [f"copies: {self.copies}"] if self.copies is not None else []
        return ", ".join(said)


class Constraints(StrictModel):
    redundancy: RedundancyNeed | None = Field(
        default=None,
        description="copies the data must survive on, e.g. {zones: 2} or {copies: 2}: a class whose price table"
        " states fewer is rejected; unset, a single-zone class carries a warning",
    )
    providers: list[str] = Field(default_factory=lambda: list(shipped_catalog().compared_by_default), min_length=1)
    storage_classes: list[str] | None = Field(default=None, description="consider only these storage class ids")
    months: int = Field(default=12, ge=1, le=120, description="horizon for totals and growth")
    discounts: dict[str, float | str] = Field(
        default_factory=dict,
        description='negotiated discounts by provider, e.g. {"aws-s3": "15%"}: taken off every charged line',
    )
    regions: dict[str, list[str]] = Field(
        default_factory=dict,
        description='regions to consider by provider, e.g. {"aws-s3": ["eu-central-1", "us-east-1"]}: each is'
        " ranked as an option of its own (default: the provider's default region, us-east-1 for S3)",
    )

    named_classes: SkipJsonSchema[list[str]] = Field(
        default_factory=list,
        description="classes ranked though their table leaves them out of a default comparison, as PROVIDER:CLASS"
        ' ("*": every class); `providers` entries PROVIDER:CLASS and "all" fill it',
    )

    @model_validator(mode="before")
    @classmethod
    def _providers_of_the_catalog(cls, data: Any, info: ValidationInfo) -> Any:
        # the default is the providers the catalog given in the context compares by default (the shipped one
        # without); "all" is every provider and class, PROVIDER:CLASS one class besides them
        if isinstance(data, dict) and "providers" not in data:
            return {**data, "providers": list(catalog_in(info.context).compared_by_default)}
        entries = data.get("providers") if isinstance(data, dict) else None
        if isinstance(entries, list) and all(isinstance(entry, str) for entry in entries):
            return {**data, **expand_providers(entries, catalog_in(info.context).providers)}
        return data  # not a list of names: the field's own check names the entry at fault

    @field_validator("named_classes")
    @classmethod
    def _named(cls, named: list[str], info: ValidationInfo) -> list[str]:
        known = catalog_in(info.context).storage_classes
        for entry in named:
            storage_class = entry.partition(":")[2]
            if entry != "*" and storage_class not in known:
                raise ValueError(
                    f"{entry!r}: unknown storage class {storage_class!r} (known: {', '.join(sorted(known))})"
                )
        return named

    def asks_for(self, provider: str, storage_class: str) -> bool:
        """Whether a class its table leaves out of a default comparison is named (or "all" was asked)."""
        return "*" in self.named_classes or f"{provider}:{storage_class}" in self.named_classes

    @field_validator("regions")
    @classmethod
    def _regions(cls, regions: dict[str, list[str]], info: ValidationInfo) -> dict[str, list[str]]:
        known = catalog_in(info.context).providers
        for provider, names in regions.items():
            _check_provider(provider, known)
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
    def _discounts(cls, discounts: dict[str, float | str], info: ValidationInfo) -> dict[str, float | str]:
        known = catalog_in(info.context).providers
        for provider, discount in discounts.items():
            _check_provider(provider, known)
            if _fraction(discount, "discount") >= 1:
                raise ValueError(f"{discount!r}: a discount must be less than 100%")
        return discounts

    def discount_fractions(self) -> dict[str, Decimal]:
        return {provider: _fraction(d, "discount") for provider, d in self.discounts.items()}

    @field_validator("providers")
    @classmethod
    def _known(cls, providers: list[str], info: ValidationInfo) -> list[str]:
        known = catalog_in(info.context).providers
        for provider in providers:
            _check_provider(provider, known)
        return providers
