"""The measurement profile: one versioned JSON document per endpoint and client host.

A profile is what ``planner measure`` writes and what the simulator and the recommender read.
It holds the measured (or published) cells of the operation x object size x concurrency matrix,
the probe results, the client host facts and a ``source`` block. A figure nobody measured or
published is ``None`` (missing), never zero. Every published figure carries a ``Citation``.

The cells and their figures are in ``measure.cell``; ``Profile.summary()`` condenses a profile
into the few numbers a model needs (``ProfileSummary``, ``measure.summary``), each with the
citations it rests on. Both are re-exported here, where the rest of planner imports them from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from planner.measure.cell import (
    MAX_CONCURRENCY,
    MAX_LATENCY_S,
    MAX_MIB_PER_S,
    MAX_OPS_PER_S,
    MIB,
    OPERATIONS,
    Bound,
    Cell,
    CellFlag,
    CellKey,
    Citation,
    Conditions,
    Engine,
    EvidenceGrade,
    LatencyHistogram,
    Operation,
    Percentiles,
    ProfileModel,
    RequestCounts,
    coefficient_of_variation,
)
from planner.measure.summary import ProfileSummary, RangeGetSpeedup, summarise_profile

__all__ = [
    "MAX_CONCURRENCY",
    "MAX_LATENCY_S",
    "MAX_MIB_PER_S",
    "MAX_OPS_PER_S",
    "MIB",
    "OPERATIONS",
    "READABLE_SCHEMA_VERSIONS",
    "SCHEMA_VERSION",
    "Bound",
    "Ceilings",
    "Cell",
    "CellFlag",
    "CellKey",
    "Citation",
    "CitedValue",
    "Claim",
    "ClientHost",
    "Conditions",
    "Engine",
    "EvidenceGrade",
    "HotObjectResult",
    "HotObjectStep",
    "LatencyHistogram",
    "MergeInfo",
    "MergeInput",
    "Operation",
    "PartSizePoint",
    "PartSizeResult",
    "Percentiles",
    "Probes",
    "Profile",
    "ProfileModel",
    "ProfileSummary",
    "RangeGetPoint",
    "RangeGetResult",
    "RangeGetSpeedup",
    "RatePoint",
    "RateResult",
    "RequestCounts",
    "RunInfo",
    "Source",
    "UnsupportedStep",
    "citations_in",
    "coefficient_of_variation",
]

SCHEMA_VERSION = 2
READABLE_SCHEMA_VERSIONS = (1, 2)
"""Version 2 added latency histograms, p95/p99.9, open-loop cells and the achieved in-flight count;
version-1 profiles still load (the new fields read as missing)."""


class CitedValue(ProfileModel):
    """A single figure with its source; ``bound`` says whether it is a floor or a cap."""

    value: float
    citation: Citation
    bound: Bound = "exact"
    link_bits_per_s: float | None = None
    note: str | None = None


class HotObjectStep(ProfileModel):
    concurrency: int
    samples: int
    ops_per_s: float | None = None
    errors: dict[str, int] = Field(default_factory=dict)
    latency_s: Percentiles = Field(default_factory=Percentiles)
    ttfb_s: Percentiles = Field(default_factory=Percentiles)
    client_saturated: bool = False


class HotObjectResult(ProfileModel):
    """Concurrent ranged GETs of one range of one key, ramped until errors or a latency knee."""

    range_bytes: int | None = None
    limit: int | None = Field(default=None, description="highest concurrency served cleanly")
    behaviour: Literal["reject", "degrade"] | None = None
    error: str | None = Field(default=None, description='error past the limit, e.g. "503 SlowDown"')
    max_tested: int | None = None
    steps: list[HotObjectStep] = Field(default_factory=list)
    citation: Citation | None = None
    note: str | None = None


class PartSizePoint(ProfileModel):
    part_size_bytes: int
    queue_depth: int | None = None
    throughput_mib_per_s: float | None = None
    bound: Bound = "exact"
    samples: int | None = None
    latency_s: Percentiles = Field(default_factory=Percentiles)
    errors: dict[str, int] = Field(default_factory=dict)
    link_bits_per_s: float | None = None
    flags: list[CellFlag] = Field(default_factory=list)
    citation: Citation | None = None
    note: str | None = None


class PartSizeResult(ProfileModel):
    points: list[PartSizePoint] = Field(default_factory=list)
    best_part_size_bytes: int | None = None
    best_queue_depth: int | None = None


class RangeGetPoint(ProfileModel):
    streams: int
    throughput_mib_per_s: float | None = None
    samples: int | None = None
    flags: list[CellFlag] = Field(default_factory=list)
    citation: Citation | None = None
    note: str | None = None


class RangeGetResult(ProfileModel):
    """A large object read by one stream vs N parallel ranged GETs."""

    object_size_bytes: int | None = None
    points: list[RangeGetPoint] = Field(default_factory=list)
    speedup: float | None = Field(default=None, description="best parallel / single stream")
    best_streams: int | None = None
    link_bits_per_s: float | None = None
    citation: Citation | None = None
    note: str | None = None


class RatePoint(ProfileModel):
    op: Operation
    concurrency: int | None = None
    ops_per_s: float | None = None
    bound: Bound = "exact"
    samples: int | None = None
    errors: dict[str, int] = Field(default_factory=dict)
    flags: list[CellFlag] = Field(default_factory=list)
    citation: Citation | None = None
    note: str | None = None


class RateResult(ProfileModel):
    """Small-object ops/s ceilings per operation."""

    object_size_bytes: int | None = None
    points: list[RatePoint] = Field(default_factory=list)

    def ceiling(self, op: str) -> RatePoint | None:
        found = [p for p in self.points if p.op == op and p.ops_per_s is not None]
        return max(found, key=lambda p: p.ops_per_s or 0.0) if found else None


class Probes(ProfileModel):
    hot_object: HotObjectResult | None = None
    part_size: PartSizeResult | None = None
    range_get: RangeGetResult | None = None
    rate: RateResult | None = None


class Ceilings(ProfileModel):
    """Aggregate limits that no single cell shows (published) or the best cell showed (measured)."""

    read_bytes_per_s: CitedValue | None = None
    write_bytes_per_s: CitedValue | None = None
    per_key_write_per_s: CitedValue | None = None
    ttfb_floor_s: CitedValue | None = None


class ClientHost(ProfileModel):
    hostname: str | None = None
    cpu_count: int | None = None
    platform: str | None = None
    python_version: str | None = None
    boto3_version: str | None = None
    botocore_version: str | None = None
    obstore_version: str | None = None


class Claim(ProfileModel):
    """A published claim that was rejected or flagged, with the reason (machine-readable)."""

    claim: str
    value: float | None = None
    unit: str | None = None
    action: Literal["rejected", "flagged"]
    reason: str
    citation: Citation


class Source(ProfileModel):
    kind: Literal["measured", "published", "merged"]
    citations: list[Citation] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list, description="rejected or flagged published claims")
    note: str | None = None


class UnsupportedStep(ProfileModel):
    """A cell or probe the server refused: every request of one operation answered 400, 405 or 501."""

    step: str = Field(description='the cell or probe, e.g. "get 4KiB x1" or "probe part-size"')
    operation: str = Field(description='the S3 API call refused, e.g. "CreateMultipartUpload"')
    error: str = Field(description='the answer, e.g. "501 NotImplemented"')


class RunInfo(ProfileModel):
    run_id: str
    prefix: str
    started_at: str
    finished_at: str | None = None
    complete: bool = False
    stopped_reason: str | None = Field(default=None, description='e.g. "interrupted (SIGINT)"')
    options: dict[str, Any] = Field(default_factory=dict)
    unsupported: list[UnsupportedStep] = Field(
        default_factory=list, description="cells and probes not measured: the server does not support them"
    )
    budget_s: float | None = Field(default=None, description="the total time asked for (--budget)")
    estimated_s: float | None = Field(default=None, description="the plan's estimated duration")
    elapsed_s: float | None = Field(default=None, description="the run's duration on a monotonic clock")
    dropped: list[str] = Field(
        default_factory=list, description="steps left out or shortened to fit the budget, with the reason"
    )


class MergeInput(ProfileModel):
    run_id: str | None = None
    hostname: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    prefix: str | None = Field(default=None, description="where this host wrote (several-host runs)")
    clock_offset_s: float | None = Field(
        default=None, description="this host's clock minus the coordinator's, measured before the run"
    )
    clock_rtt_s: float | None = Field(
        default=None, description="round trip of the offset measurement: the offset is within half of it"
    )
    complete: bool | None = None
    error: str | None = Field(default=None, description="why this host stopped, if it failed")


class MergeInfo(ProfileModel):
    method: str
    overlapped: bool
    inputs: list[MergeInput] = Field(default_factory=list)


def citations_in(model: ProfileModel, where: str = "") -> Iterator[tuple[str, Citation]]:
    """Every citation inside ``model`` with its path (``cells[3].citation``), in document order."""
    for name in type(model).model_fields:
        value = getattr(model, name)
        path = f"{where}.{name}" if where else name
        items = enumerate(value) if isinstance(value, list) else [(None, value)]
        for index, item in items:
            at = path if index is None else f"{path}[{index}]"
            if isinstance(item, Citation):
                yield at, item
            elif isinstance(item, ProfileModel):
                yield from citations_in(item, at)


class Profile(ProfileModel):
    """A measurement (or published-reference) profile of one provider endpoint."""

    schema_version: Literal[1, 2] = 2
    provider: str | None = None
    endpoint: str | None = Field(default=None, description="scheme://host[:port], never userinfo or query")
    region: str | None = None
    bucket: str | None = None
    date: str | None = Field(default=None, description="ISO date of the measurement or publication")
    tool_version: str | None = None
    link_bits_per_s: float | None = Field(default=None, description="declared client link capacity")
    clients: list[ClientHost] = Field(default_factory=list)
    run: RunInfo | None = None
    merge: MergeInfo | None = None
    cells: list[Cell] = Field(default_factory=list)
    probes: Probes = Field(default_factory=Probes)
    ceilings: Ceilings = Field(default_factory=Ceilings)
    source: Source
    missing: list[str] = Field(default_factory=list, description="figures the sources do not cover")

    @field_validator("schema_version", mode="before")
    @classmethod
    def _known_version(cls, value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int) or value not in READABLE_SCHEMA_VERSIONS:
            raise ValueError(
                f"unknown profile schema_version {value!r}; this planner reads versions "
                f"{', '.join(map(str, READABLE_SCHEMA_VERSIONS))}"
                " (upgrade planner or re-run planner measure)"
            )
        return value

    @model_validator(mode="after")
    def _published_figures_are_cited(self) -> Profile:
        if self.source.kind != "published":
            return self
        for cell in self.cells:
            if cell.status != "missing" and cell.citation is None:
                raise ValueError(f"published cell {cell.key()} has no citation")
        for cell in self.cells:
            if cell.status == "published" and cell.citation is not None and cell.citation.quote:
                _latency_is_quoted(cell)
        for where, citation in citations_in(self):
            if citation.kind == "published" and not (citation.address or "").strip():
                raise ValueError(
                    f"{where} cites {citation.ref!r} without an address: give the URL or DOI a reader can check it at"
                )
        return self

    def cell(
        self, op: str, object_size_bytes: int | None, concurrency: int, offered_per_s: float | None = None
    ) -> Cell | None:
        """The closed-loop cell, or with ``offered_per_s`` the open-loop cell at that arrival rate."""
        for cell in self.cells:
            if cell.key() == (op, object_size_bytes, concurrency, offered_per_s):
                return cell
        return None

    def summary(self) -> ProfileSummary:
        return summarise_profile(self)


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _latency_is_quoted(cell: Cell) -> None:
    """A published cell's latency and TTFB figures follow from its quote: each is a number the quoted words
    state, in milliseconds or seconds (``S3 22.415 ms`` for a p50 of 0.022415 s). Refuses one that is not."""
    assert cell.citation is not None and cell.citation.quote is not None
    stated = [float(n.replace(",", "")) for n in _NUMBER.findall(cell.citation.quote)]
    for kind, figures in (("latency_s", cell.latency_s), ("ttfb_s", cell.ttfb_s)):
        for name, seconds in figures.pairs():
            if not any(abs(n - v) <= 1e-9 * max(1.0, v) for n in stated for v in (seconds * 1000, seconds)):
                raise ValueError(
                    f"published cell {cell.key()} gives {kind}.{name} {seconds * 1000:g} ms, a number its quote"
                    f" does not state: {cell.citation.quote!r}"
                )
