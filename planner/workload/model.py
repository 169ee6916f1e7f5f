"""The workload a user describes in YAML, and its translation into each provider's billing units.

``Workload.usage_for`` compiles a month of the workload into a ``pricing.Usage`` for one provider
and storage class: multipart uploads become the parts the provider bills, retention becomes
deletions at an age (the minimum-duration charges), growth moves the stored volume month by month.
Inputs a file gave as ranges are declared fields (``uncertain``, ``correlations``), so a workload
keeps them through ``model_dump`` and JSON; the fields they vary hold their central values.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from planner.errors import InputError, validation_problem
from planner.pricing.models import Limits
from planner.pricing.usage import Deletion, SizeBin, Usage
from planner.units import MAX_BYTES, format_bytes
from planner.workload.catalog import CATALOG, Catalog, with_catalog
from planner.workload.delivery import Delivery, delivery_problem, drop_unset_delivery, with_hit_ratio
from planner.workload.parts import (
    DAY_S,
    MONTH_S,
    Client,
    Constraints,
    Performance,
    Storage,
    StrictModel,
    Traffic,
)
from planner.workload.tools import ToolUse
from planner.workload.uncertain import Correlation, Uncertain, correlation_problem


class Workload(StrictModel):
    """A storage workload: what is stored, how it is read and written, and what it must achieve."""

    name: str = Field(min_length=1)
    description: str | None = None
    storage: Storage
    traffic: Traffic = Field(default_factory=Traffic)
    performance: Performance = Field(default_factory=Performance)
    client: Client = Field(default_factory=Client)
    constraints: Constraints = Field(default_factory=Constraints)
    delivery: Delivery | None = Field(
        None, validate_default=True, description="a CDN in front of the bucket (planner.workload.delivery)"
    )
    tools: list[ToolUse] = Field(
        default_factory=list,
        description="backup or sync tools run against the bucket, from their shipped profiles: their month's"
        " requests, uploads, kept history and read-backs are billed with the rest",
    )
    # A file gives these as ranges in place and a ``correlate`` list (planner.workload.load), so they
    # are no keys of the file and not in its schema; the fields they vary hold their central values.
    uncertain: SkipJsonSchema[list[Uncertain]] = Field(
        default_factory=list, description="the inputs given as distributions; recommend --samples draws from them"
    )
    correlations: SkipJsonSchema[list[Correlation]] = Field(
        default_factory=list, description="uncertain inputs drawn together"
    )

    @model_validator(mode="before")
    @classmethod
    def _constraints_of_the_catalog(cls, data: Any, info: ValidationInfo) -> Any:
        # left out, the constraints take their default providers from the catalog of the context
        if isinstance(data, dict) and "constraints" not in data and CATALOG in (info.context or {}):
            return {**data, "constraints": {}}
        return data

    @field_validator("uncertain", "correlations", mode="before")
    @classmethod
    def _not_in_a_file(cls, value: Any, info: ValidationInfo) -> Any:
        if (info.context or {}).get("from_file"):
            raise PydanticCustomError("extra_forbidden", "Extra inputs are not permitted")
        return value

    @model_validator(mode="after")
    def _uncertain_inputs(self) -> Workload:
        fields = [u.field for u in self.uncertain]
        for field in fields:
            if fields.count(field) > 1:
                raise ValueError(f"uncertain: {field} is given twice")
            value = _field_value(self, field)
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise ValueError(f"uncertain: {field} is not a numeric field of the workload")
        problem = correlation_problem(self.uncertain, self.correlations)
        if problem is not None:
            raise ValueError(f"correlations: {problem}")
        return self

    @model_serializer(mode="wrap")
    def _without_empty_ranges(self, handler: SerializerFunctionWrapHandler) -> Any:
        # a workload without ranges serialises as it always has
        data = handler(self)
        if isinstance(data, dict):
            for key in ("uncertain", "correlations"):
                if key in data and not data[key]:
                    del data[key]
            drop_unset_delivery(data)  # a workload without a CDN or a split serialises as it always has
        return data

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

    @field_validator("delivery")
    @classmethod
    def _delivery_agrees(cls, delivery: Delivery | None, info: ValidationInfo) -> Delivery | None:
        traffic, storage = info.data.get("traffic"), info.data.get("storage")
        problem = delivery_problem(traffic.egress_to if isinstance(traffic, Traffic) else None, delivery)
        if problem is not None:
            raise ValueError(problem)
        if not isinstance(traffic, Traffic) or not isinstance(storage, Storage):
            return delivery  # their own errors are reported
        read_bytes = traffic.egress + traffic.internal_reads + traffic.inter_region
        reads = _reads_per_month(storage, traffic)
        return with_hit_ratio(delivery, traffic.hot_objects, reads, read_bytes, storage.mean_object_bytes)

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
        """Figures of the workload that contradict each other (priced as written, but said): egress with no
        GET to carry it; objects written a month against what retention deletes plus growth."""
        found = []
        if self.traffic.egress and not self.reads_per_month():
            found.append(
                f"traffic.egress: {format_bytes(self.traffic.egress)} a month leaves the bucket, but the workload reads"
                " nothing (traffic.reads 0): egress is the body of GETs (priced as written; check reads and egress)"
            )
        return found + self._writes_against_retention()

    def _writes_against_retention(self) -> list[str]:
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
        return _reads_per_month(self.storage, self.traffic)

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
        tools = [use.month() for use in self.tools]
        for used in tools:
            for op, n in used.requests.items():
                requests[op] = requests.get(op, 0) + n
            deletions += used.deletions
        read_back = sum(used.read_back_bytes for used in tools)
        retrieval_bytes = traffic.egress + traffic.internal_reads + traffic.inter_region + read_back
        bins = self.size_bins(month)
        return Usage(
            stored_bytes=self.stored_bytes(month) + sum(used.stored_bytes for used in tools),
            object_count=None if bins is not None else self.object_count(month),
            object_sizes=bins,
            requests={op: n for op, n in requests.items() if n},
            egress_bytes=traffic.egress + read_back,
            inter_region_bytes=traffic.inter_region,
            retrieval_bytes=retrieval_bytes,
            upload_bytes=round(sum(writes * share * size for size, share in self.object_sizes()))
            + sum(used.upload_bytes for used in tools),
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


def _field_value(workload: Workload, field: str) -> Any:
    """The value of a dotted field (``traffic.egress``), None when the workload has no such field."""
    value: Any = workload
    for part in field.split("."):
        if isinstance(value, list):  # a list's item by index: storage.lifecycle.0.after
            value = value[int(part)] if part.isdigit() and int(part) < len(value) else None
            continue
        value = getattr(value, part) if isinstance(value, BaseModel) and part in type(value).model_fields else None
    return value


def _names_of(workload: Workload) -> Catalog:
    """The provider and class names a valid workload already uses: checked when it was made."""
    constraints = workload.constraints
    providers = dict.fromkeys([*constraints.providers, *constraints.discounts, *constraints.regions])
    return Catalog(providers=tuple(providers), storage_classes=frozenset(workload.storage.placement or ()))


def at(workload: Workload, point: dict[str, float]) -> Workload:
    """The workload with the given fields (in the model's units) set."""
    try:
        return _at(workload, point)
    except ValidationError as error:
        where, message = validation_problem(error)
        raise InputError(f"at {point} the workload is not valid: {message}", field=where) from None


def at_problem(workload: Workload, point: dict[str, float]) -> str | None:
    """Why the workload with the given fields set is not valid (its field first), or None when it is."""
    try:
        _at(workload, point)
    except ValidationError as error:
        where, message = validation_problem(error)
        return f"{where}: {message}" if where else message
    return None


def _at(workload: Workload, point: dict[str, float]) -> Workload:
    data = workload.model_dump()
    for field, value in point.items():
        node = data
        parts = field.split(".")
        for part in parts[:-1]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        current = node.get(parts[-1])
        if is_rule_age(field):  # a lifecycle rule acts at a whole day of age
            value = round(value / DAY_S) * DAY_S
        node[parts[-1]] = round(value) if isinstance(current, int) else value
    return Workload.model_validate(data, context=with_catalog(_names_of(workload)))


SIZE_FIELDS = ("stored", "egress", "internal_reads", "inter_region", "growth_per_month", "object_size")
SHARE_FIELDS = ("growth_rate",)
"""The workload's byte-valued fields (by their last name): a value of one reads as a size."""


def is_rule_age(field: str) -> bool:
    """Whether a dotted field is a lifecycle rule's age (``storage.lifecycle.0.after``)."""
    return re.fullmatch(r"storage\.lifecycle\.\d+\.after", field) is not None


def format_field_value(field: str, value: float, *, whole: bool = False) -> str:
    """A value of a dotted workload field as people read it: a size for the byte fields, a whole
    number for counts, days for a lifecycle rule's age, four figures otherwise."""
    if is_rule_age(field):
        return f"{round(value / DAY_S)}d"
    if field.rsplit(".", 1)[-1] in SIZE_FIELDS:
        return format_bytes(value)
    if field.rsplit(".", 1)[-1] in SHARE_FIELDS:
        return f"{100 * value:.3g} %"
    return f"{value:,.0f}" if whole or value == int(value) else f"{value:.4g}"


def _reads_per_month(storage: Storage, traffic: Traffic) -> int:
    """GETs a month: as given, from the writes and the read:write ratio, or the bytes read / the mean object."""
    if traffic.reads is not None:
        return traffic.reads
    if traffic.ratio is not None and traffic.writes is not None:
        return round(traffic.writes * traffic.ratio)
    mean = storage.mean_object_bytes
    read_bytes = traffic.egress + traffic.internal_reads + traffic.inter_region
    return math.ceil(read_bytes / mean) if mean else 0
