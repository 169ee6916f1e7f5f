"""The measurement profile: one versioned JSON document per endpoint and client host.

A profile is what ``planner measure`` writes and what the simulator and the recommender read.
It holds the measured (or published) cells of the operation x object size x concurrency matrix,
the probe results, the client host facts and a ``source`` block. A figure nobody measured or
published is ``None`` (missing), never zero. Every published figure carries a ``Citation``.

``Profile.summary()`` condenses a profile into the few numbers a model needs
(``ProfileSummary``), each with the citations it rests on.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION = 2
READABLE_SCHEMA_VERSIONS = (1, 2)
"""Version 2 added latency histograms, p95/p99.9, open-loop cells and the achieved in-flight count;
version-1 profiles still load (the new fields read as missing)."""
MIB = 2**20

Operation = Literal["put", "get", "head", "list", "delete"]
OPERATIONS: tuple[Operation, ...] = ("put", "get", "head", "list", "delete")
CellFlag = Literal["client-saturated", "above-link", "too-few-samples", "implausible", "interrupted", "short-window"]
"""``short-window``: the figures come from a window much shorter than asked (a finite work list,
such as a DELETE cell's objects, ran out); its rate rests on little time."""
Bound = Literal["exact", "lower", "upper"]
CellKey = tuple[str, int | None, int, float | None]
Engine = Literal["boto3", "obstore"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Citation(_Model):
    """Where a figure comes from: a publication (seed file + section) or a measured run."""

    kind: Literal["published", "measured"] = "published"
    ref: str = Field(description="seed file (published) or run id (measured)")
    section: str = Field(description="section of the publication, or the cell/probe of the run")
    quote: str | None = None


MAX_CONCURRENCY = 100_000
MAX_MIB_PER_S = 1_000_000  # about 8.4 Tbps: beyond any client's links
MAX_OPS_PER_S = 100_000_000
MAX_LATENCY_S = 3600.0
"""No request of a measured cell takes an hour: a larger figure is a unit mistake."""


class Percentiles(_Model):
    """Seconds. Any percentile the source does not give is ``None``."""

    mean: float | None = Field(None, ge=0, le=MAX_LATENCY_S, allow_inf_nan=False)
    p50: float | None = Field(None, ge=0, le=MAX_LATENCY_S, allow_inf_nan=False)
    p90: float | None = Field(None, ge=0, le=MAX_LATENCY_S, allow_inf_nan=False)
    p95: float | None = Field(None, ge=0, le=MAX_LATENCY_S, allow_inf_nan=False)
    p99: float | None = Field(None, ge=0, le=MAX_LATENCY_S, allow_inf_nan=False)
    p999: float | None = Field(None, ge=0, le=MAX_LATENCY_S, allow_inf_nan=False)
    max: float | None = Field(None, ge=0, le=MAX_LATENCY_S, allow_inf_nan=False)

    @model_validator(mode="after")
    def _ordered(self) -> Percentiles:
        given = [(n, getattr(self, n)) for n in ("p50", "p90", "p95", "p99", "p999", "max")]
        given = [(n, v) for n, v in given if v is not None]
        for (low_name, low), (high_name, high) in itertools.pairwise(given):
            if high < low * (1 - 1e-9):
                raise ValueError(f"{high_name} ({high:g} s) is below {low_name} ({low:g} s): percentiles rise")
        return self

    def pairs(self) -> list[tuple[str, float]]:
        """The percentiles given, by name."""
        names = ("mean", "p50", "p90", "p95", "p99", "p999", "max")
        return [(n, getattr(self, n)) for n in names if getattr(self, n) is not None]


class LatencyHistogram(_Model):
    """Log-bucketed latency counts (HDR-style), enough to rebuild a cell's whole distribution.

    Bucket ``i`` holds samples in ``[lowest_s * g**i, lowest_s * g**(i+1))`` with
    ``g = 10 ** (1 / buckets_per_decade)``; samples below ``lowest_s`` count in bucket 0.
    ``counts`` is sparse: ``[bucket index, count]`` pairs, by index.
    """

    lowest_s: float = Field(default=1e-5, gt=0)
    buckets_per_decade: int = Field(default=40, ge=1)
    counts: list[tuple[int, int]] = Field(default_factory=list)

    @property
    def growth(self) -> float:
        return float(10 ** (1 / self.buckets_per_decade))

    def bucket(self, seconds: float) -> int:
        if seconds <= self.lowest_s:
            return 0
        return math.floor(math.log10(seconds / self.lowest_s) * self.buckets_per_decade)

    def upper_edge_s(self, index: int) -> float:
        return float(self.lowest_s * self.growth ** (index + 1))

    @classmethod
    def from_samples(
        cls, samples_s: Iterable[float], *, lowest_s: float = 1e-5, buckets_per_decade: int = 40
    ) -> LatencyHistogram:
        empty = cls(lowest_s=lowest_s, buckets_per_decade=buckets_per_decade)
        tally = Counter(empty.bucket(s) for s in samples_s)
        return cls(lowest_s=lowest_s, buckets_per_decade=buckets_per_decade, counts=sorted(tally.items()))

    @classmethod
    def merged(cls, histograms: Iterable[LatencyHistogram]) -> LatencyHistogram:
        """The sum of histograms with the same buckets (several processes' or hosts' samples)."""
        parts = list(histograms)
        if not parts:
            return cls()
        first = parts[0]
        if any((h.lowest_s, h.buckets_per_decade) != (first.lowest_s, first.buckets_per_decade) for h in parts):
            raise ValueError("histograms with different buckets cannot be merged")
        tally: Counter[int] = Counter()
        for part in parts:
            for index, count in part.counts:
                tally[index] += count
        return cls(lowest_s=first.lowest_s, buckets_per_decade=first.buckets_per_decade, counts=sorted(tally.items()))

    @property
    def total(self) -> int:
        return sum(count for _, count in self.counts)

    def quantile(self, q: float) -> float | None:
        """The ``q`` quantile (0-1), as its bucket's upper edge (within one bucket's width above)."""
        total = self.total
        if total == 0:
            return None
        rank = q * total
        seen = 0
        for index, count in self.counts:
            seen += count
            if seen >= rank:
                return self.upper_edge_s(index)
        return self.upper_edge_s(self.counts[-1][0])


class RequestCounts(_Model):
    """Every attempt a cell sent, warm-up and requests still running at the window's end included.

    ``attempts == succeeded + failed + retried``: an attempt either succeeded, failed and was
    retried, or failed and ended its request (``failed``). botocore makes one attempt per call,
    so these are exactly the requests the endpoint received.
    """

    attempts: int
    succeeded: int
    failed: int
    retried: int

    @model_validator(mode="after")
    def _adds_up(self) -> RequestCounts:
        if self.attempts != self.succeeded + self.failed + self.retried:
            raise ValueError("attempts must equal succeeded + failed + retried")
        return self


class Cell(_Model):
    """One operation x object size x concurrency cell; warm-up excluded."""

    op: Operation
    object_size_bytes: int | None = Field(default=None, description="None for LIST")
    concurrency: int
    status: Literal["measured", "published", "missing"] = "measured"
    mode: Literal["closed", "open"] = Field(
        default="closed",
        description="closed: `concurrency` workers back to back; open: arrivals at `offered_per_s` (Poisson), "
        "at most `concurrency` in flight",
    )
    offered_per_s: float | None = Field(default=None, description="open loop: the arrival rate asked for")
    in_flight_mean: float | None = Field(
        default=None, description="requests in flight on average over the window (achieved, not nominal, concurrency)"
    )
    late_arrivals: int | None = Field(
        default=None,
        description="open loop: arrivals sent more than 2 ms after their scheduled time (every worker busy, or the"
        " client too slow to send on time)",
    )
    duration_s: float | None = Field(default=None, description="measured window, warm-up excluded")
    warmup_s: float | None = None
    window_start_unix: float | None = Field(default=None, description="measured window, Unix seconds")
    window_end_unix: float | None = None
    samples: int | None = Field(default=None, description="successful requests in the window")
    throughput_mib_per_s: float | None = None
    ops_per_s: float | None = None
    latency_s: Percentiles = Field(default_factory=Percentiles)
    ttfb_s: Percentiles = Field(default_factory=Percentiles)
    latency_histogram: LatencyHistogram | None = None
    ttfb_histogram: LatencyHistogram | None = None
    errors: dict[str, int] = Field(
        default_factory=dict, description='failed attempts by cause, e.g. "503 SlowDown", "timeout", "reset"'
    )
    retries: int | None = None
    failed_ops: int | None = Field(default=None, description="requests that failed after every retry")
    requests: RequestCounts | None = Field(default=None, description="all attempts of the cell, for accounting")
    segment_s: float | None = None
    segments: int | None = None
    cv: float | None = Field(default=None, description="coefficient of variation of throughput over segments")
    client_cpu_fraction: float | None = Field(
        default=None, description="client CPU seconds / (window x cpu count), all worker processes"
    )
    client_max_process_cpu: float | None = Field(
        default=None, description="busiest worker process: CPU seconds / window (1.0 = one core)"
    )
    host_cpu_fraction: float | None = Field(
        default=None, description="the client host's CPU busy over the window, every process counted (Linux)"
    )
    processes: int | None = None
    link_bits_per_s: float | None = Field(default=None, description="link of this figure, if own")
    flags: list[CellFlag] = Field(default_factory=list)
    engine: Engine | None = Field(
        default=None,
        description="the client library that sent the cell's requests (boto3, or obstore for small objects);"
        " missing in profiles written before it was recorded",
    )
    hosts: list[str] = Field(default_factory=list, description="client hosts (merged profiles)")
    citation: Citation | None = None
    note: str | None = None

    @model_validator(mode="after")
    def _plausible(self) -> Cell:
        """Figures no measurement can give are refused: a unit slip reads as a provider's speed."""
        if not 1 <= self.concurrency <= MAX_CONCURRENCY:
            raise ValueError(f"concurrency {self.concurrency:,} is outside 1 to {MAX_CONCURRENCY:,}")
        if self.throughput_mib_per_s is not None and not 0 <= self.throughput_mib_per_s <= MAX_MIB_PER_S:
            raise ValueError(
                f"throughput {self.throughput_mib_per_s:g} MiB/s is beyond any link (at most {MAX_MIB_PER_S:,} MiB/s)"
            )
        if self.ops_per_s is not None and not 0 <= self.ops_per_s <= MAX_OPS_PER_S:
            raise ValueError(f"{self.ops_per_s:g} operations a second is beyond any endpoint")
        latency = dict(self.latency_s.pairs())
        for name, ttfb in self.ttfb_s.pairs():
            if name in latency and name != "mean" and ttfb > latency[name] * (1 + 1e-6) + 1e-6:
                raise ValueError(
                    f"TTFB {name} ({ttfb:g} s) is above the latency {name} ({latency[name]:g} s): a request's first"
                    " byte cannot come after its last"
                )
        return self

    def key(self) -> CellKey:
        """(operation, size, concurrency, arrival rate): the rate is ``None`` for a closed loop."""
        return (self.op, self.object_size_bytes, self.concurrency, self.offered_per_s if self.mode == "open" else None)


class CitedValue(_Model):
    """A single figure with its source; ``bound`` says whether it is a floor or a cap."""

    value: float
    citation: Citation
    bound: Bound = "exact"
    link_bits_per_s: float | None = None
    note: str | None = None


class HotObjectStep(_Model):
    concurrency: int
    samples: int
    ops_per_s: float | None = None
    errors: dict[str, int] = Field(default_factory=dict)
    latency_s: Percentiles = Field(default_factory=Percentiles)
    ttfb_s: Percentiles = Field(default_factory=Percentiles)
    client_saturated: bool = False


class HotObjectResult(_Model):
    """Concurrent ranged GETs of one range of one key, ramped until errors or a latency knee."""

    range_bytes: int | None = None
    limit: int | None = Field(default=None, description="highest concurrency served cleanly")
    behaviour: Literal["reject", "degrade"] | None = None
    error: str | None = Field(default=None, description='error past the limit, e.g. "503 SlowDown"')
    max_tested: int | None = None
    steps: list[HotObjectStep] = Field(default_factory=list)
    citation: Citation | None = None
    note: str | None = None


class PartSizePoint(_Model):
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


class PartSizeResult(_Model):
    points: list[PartSizePoint] = Field(default_factory=list)
    best_part_size_bytes: int | None = None
    best_queue_depth: int | None = None


class RangeGetPoint(_Model):
    streams: int
    throughput_mib_per_s: float | None = None
    samples: int | None = None
    flags: list[CellFlag] = Field(default_factory=list)
    citation: Citation | None = None
    note: str | None = None


class RangeGetResult(_Model):
    """A large object read by one stream vs N parallel ranged GETs."""

    object_size_bytes: int | None = None
    points: list[RangeGetPoint] = Field(default_factory=list)
    speedup: float | None = Field(default=None, description="best parallel / single stream")
    best_streams: int | None = None
    link_bits_per_s: float | None = None
    citation: Citation | None = None
    note: str | None = None


class RatePoint(_Model):
    op: Operation
    concurrency: int | None = None
    ops_per_s: float | None = None
    bound: Bound = "exact"
    samples: int | None = None
    errors: dict[str, int] = Field(default_factory=dict)
    flags: list[CellFlag] = Field(default_factory=list)
    citation: Citation | None = None
    note: str | None = None


class RateResult(_Model):
    """Small-object ops/s ceilings per operation."""

    object_size_bytes: int | None = None
    points: list[RatePoint] = Field(default_factory=list)

    def ceiling(self, op: str) -> RatePoint | None:
        found = [p for p in self.points if p.op == op and p.ops_per_s is not None]
        return max(found, key=lambda p: p.ops_per_s or 0.0) if found else None


class Probes(_Model):
    hot_object: HotObjectResult | None = None
    part_size: PartSizeResult | None = None
    range_get: RangeGetResult | None = None
    rate: RateResult | None = None


class Ceilings(_Model):
    """Aggregate limits that no single cell shows (published) or the best cell showed (measured)."""

    read_bytes_per_s: CitedValue | None = None
    write_bytes_per_s: CitedValue | None = None
    per_key_write_per_s: CitedValue | None = None
    ttfb_floor_s: CitedValue | None = None


class ClientHost(_Model):
    hostname: str | None = None
    cpu_count: int | None = None
    platform: str | None = None
    python_version: str | None = None
    boto3_version: str | None = None
    botocore_version: str | None = None
    obstore_version: str | None = None


class Claim(_Model):
    """A published claim that was rejected or flagged, with the reason (machine-readable)."""

    claim: str
    value: float | None = None
    unit: str | None = None
    action: Literal["rejected", "flagged"]
    reason: str
    citation: Citation


class Source(_Model):
    kind: Literal["measured", "published", "merged"]
    citations: list[Citation] = Field(default_factory=list)
    claims: list[Claim] = Field(default_factory=list, description="rejected or flagged published claims")
    note: str | None = None


class UnsupportedStep(_Model):
    """A cell or probe the server refused: every request of one operation answered 400, 405 or 501."""

    step: str = Field(description='the cell or probe, e.g. "get 4KiB x1" or "probe part-size"')
    operation: str = Field(description='the S3 API call refused, e.g. "CreateMultipartUpload"')
    error: str = Field(description='the answer, e.g. "501 NotImplemented"')


class RunInfo(_Model):
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


class MergeInput(_Model):
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


class MergeInfo(_Model):
    method: str
    overlapped: bool
    inputs: list[MergeInput] = Field(default_factory=list)


class Profile(_Model):
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
        return _profile_summary(self)


class RangeGetSpeedup(_Model):
    streams: int
    speedup: float


class ProfileSummary(_Model):
    """The compact figures a simulator or recommender needs; ``None`` = unknown."""

    provider: str | None
    source_kind: str
    ttfb_p50_s: float | None = None
    ttfb_p99_s: float | None = None
    get_stream_bytes_per_s: list[tuple[int, float]] = Field(
        default_factory=list, description="(object size, bytes/s of one stream), by size"
    )
    put_stream_bytes_per_s: list[tuple[int, float]] = Field(
        default_factory=list, description="(object size, bytes/s of one uploading stream), by size"
    )
    read_ceiling_bytes_per_s: float | None = None
    write_ceiling_bytes_per_s: float | None = None
    ops_per_s: dict[str, float | None] = Field(default_factory=dict)
    hot_object_limit: int | None = None
    hot_object_behaviour: Literal["reject", "degrade"] | None = None
    hot_object_error: str | None = None
    per_key_write_per_s: float | None = None
    range_get_speedup: RangeGetSpeedup | None = None
    citations: dict[str, list[Citation]] = Field(default_factory=dict)
    notes: dict[str, str] = Field(default_factory=dict)

    def is_exact(self, name: str) -> bool:
        """Whether figure ``name`` (a ceiling) is a measured limit rather than the best anyone observed."""
        note = self.notes.get(name)
        return note is None or note.startswith("exact")


def _stream_cells(cells: list[Cell]) -> dict[int, Cell]:
    """Per object size, the cell with the fewest streams that has a throughput."""
    by_size: dict[int, Cell] = {}
    for cell in cells:
        if cell.throughput_mib_per_s is None or cell.object_size_bytes is None:
            continue
        held = by_size.get(cell.object_size_bytes)
        if held is None or cell.concurrency < held.concurrency:
            by_size[cell.object_size_bytes] = cell
    return by_size


def _stream_points(by_size: dict[int, Cell], run_id: str | None) -> tuple[list[tuple[int, float]], list[Citation]]:
    points: list[tuple[int, float]] = []
    cites: list[Citation] = []
    for size in sorted(by_size):
        cell = by_size[size]
        assert cell.throughput_mib_per_s is not None
        points.append((size, cell.throughput_mib_per_s * MIB / cell.concurrency))
        cites.append(_cite(cell, run_id, _cell_section(cell)))
    return points, cites


def _usable(cell: Cell) -> bool:
    """A closed-loop cell whose figures may stand for its operation, size and concurrency.

    Open-loop cells describe latency at an arrival rate, not what ``concurrency`` workers reach,
    so the closed-loop figures below (stream rates, ceilings, ops/s, the TTFB floor) leave them
    out; a short-window cell's rate rests on too little time to be a ceiling.
    """
    if cell.mode == "open" or cell.status == "missing" or "short-window" in cell.flags:
        return False
    if "implausible" in cell.flags or "above-link" in cell.flags:
        return False
    # a cell where most requests failed says little about the successes' rate: skip it, never average it
    return not ("too-few-samples" in cell.flags and (cell.failed_ops or 0) > (cell.samples or 0))


def _cite(
    cell_or_value: Cell | CitedValue | RatePoint | HotObjectResult | RangeGetResult,
    run_id: str | None,
    section: str,
) -> Citation:
    if cell_or_value.citation is not None:
        return cell_or_value.citation
    return Citation(kind="measured", ref=run_id or "unknown run", section=section)


def _cell_section(cell: Cell) -> str:
    size = "-" if cell.object_size_bytes is None else f"{cell.object_size_bytes}B"
    return f"cells[{cell.op} {size} x{cell.concurrency}]"


def _profile_summary(profile: Profile) -> ProfileSummary:
    """The figures the simulator reads, each from the best source the profile has and cited."""
    run_id = profile.run.run_id if profile.run else None
    out = ProfileSummary(provider=profile.provider, source_kind=profile.source.kind)
    cells = [c for c in profile.cells if _usable(c)]
    gets = [c for c in cells if c.op == "get"]
    _summarise_ttfb(out, profile, gets, run_id)
    _summarise_streams(out, profile, cells, gets, run_id)
    _summarise_ceilings(out, profile, cells, run_id)
    _summarise_ops(out, profile, cells, run_id)
    _summarise_probes(out, profile, run_id)
    return out


def _summarise_ttfb(out: ProfileSummary, profile: Profile, gets: list[Cell], run_id: str | None) -> None:
    """TTFB: the least-loaded GET cell (smallest size, lowest concurrency) shows the service floor."""
    with_ttfb = [c for c in gets if c.ttfb_s.p50 is not None]
    if with_ttfb:
        best = min(with_ttfb, key=lambda c: (c.concurrency, c.object_size_bytes or 0))
        out.ttfb_p50_s = best.ttfb_s.p50
        out.ttfb_p99_s = best.ttfb_s.p99
        out.citations["ttfb_p50_s"] = [_cite(best, run_id, _cell_section(best))]
        if best.ttfb_s.p99 is not None:
            out.citations["ttfb_p99_s"] = [_cite(best, run_id, _cell_section(best))]
    elif profile.ceilings.ttfb_floor_s is not None:
        floor = profile.ceilings.ttfb_floor_s
        out.ttfb_p50_s = floor.value
        out.citations["ttfb_p50_s"] = [floor.citation]
        out.notes["ttfb_p50_s"] = "published TTFB floor used as p50 (a lower bound); p99 not published"


def _summarise_streams(
    out: ProfileSummary, profile: Profile, cells: list[Cell], gets: list[Cell], run_id: str | None
) -> None:
    """Per-stream throughput by object size: concurrency-1 cells, else aggregate / concurrency."""
    by_size = _stream_cells(gets)
    points, stream_cites = _stream_points(by_size, run_id)
    puts = _stream_cells([c for c in cells if c.op == "put"])
    out.put_stream_bytes_per_s, put_cites = _stream_points(puts, run_id)
    if put_cites:
        out.citations["put_stream_bytes_per_s"] = put_cites
    if any(c.concurrency > 1 for c in puts.values()):
        out.notes["put_stream_bytes_per_s"] = "some points are aggregate throughput / concurrency"
    if profile.probes.range_get is not None:
        rg = profile.probes.range_get
        single = next((p for p in rg.points if p.streams == 1 and p.throughput_mib_per_s), None)
        if single is not None and rg.object_size_bytes and rg.object_size_bytes not in by_size:
            assert single.throughput_mib_per_s is not None
            points.append((rg.object_size_bytes, single.throughput_mib_per_s * MIB))
            stream_cites.append(single.citation or _cite(rg, run_id, "probes.range_get[1 stream]"))
            points.sort()
    out.get_stream_bytes_per_s = points
    if stream_cites:
        out.citations["get_stream_bytes_per_s"] = stream_cites
    if any(c.concurrency > 1 for c in by_size.values()):
        out.notes["get_stream_bytes_per_s"] = "some points are aggregate throughput / concurrency"


def _summarise_ceilings(out: ProfileSummary, profile: Profile, cells: list[Cell], run_id: str | None) -> None:
    """Read and write ceilings: the published ones, else the best cell observed (a lower bound)."""
    for name, ceiling, ops in (
        ("read_ceiling_bytes_per_s", profile.ceilings.read_bytes_per_s, ("get",)),
        ("write_ceiling_bytes_per_s", profile.ceilings.write_bytes_per_s, ("put",)),
    ):
        if ceiling is not None:
            setattr(out, name, ceiling.value)
            out.citations[name] = [ceiling.citation]
            if ceiling.bound != "exact" or ceiling.note:
                out.notes[name] = f"{ceiling.bound} bound" + (f": {ceiling.note}" if ceiling.note else "")
            continue
        candidates = [c for c in cells if c.op in ops and c.throughput_mib_per_s is not None]
        if candidates:
            top = max(candidates, key=lambda c: c.throughput_mib_per_s or 0.0)
            assert top.throughput_mib_per_s is not None
            setattr(out, name, top.throughput_mib_per_s * MIB)
            out.citations[name] = [_cite(top, run_id, _cell_section(top))]
            out.notes[name] = "best cell observed (a lower bound on the service ceiling)"


def _summarise_ops(out: ProfileSummary, profile: Profile, cells: list[Cell], run_id: str | None) -> None:
    """Ops/s per operation: the rate probe's ceiling, or the best cell where that is higher."""
    rate = profile.probes.rate
    for op in OPERATIONS:
        point = rate.ceiling(op) if rate is not None else None
        op_cells = [c for c in cells if c.op == op and c.ops_per_s is not None]
        best_cell = max(op_cells, key=lambda c: c.ops_per_s or 0.0) if op_cells else None
        if point is not None and (best_cell is None or (point.ops_per_s or 0) >= (best_cell.ops_per_s or 0)):
            out.ops_per_s[op] = point.ops_per_s
            out.citations[f"ops_per_s.{op}"] = [
                point.citation or Citation(kind="measured", ref=run_id or "unknown run", section=f"probes.rate[{op}]")
            ]
            if point.note:
                out.notes[f"ops_per_s.{op}"] = point.note
        elif best_cell is not None:
            out.ops_per_s[op] = best_cell.ops_per_s
            out.citations[f"ops_per_s.{op}"] = [_cite(best_cell, run_id, _cell_section(best_cell))]
            if best_cell.note:
                out.notes[f"ops_per_s.{op}"] = best_cell.note
        else:
            out.ops_per_s[op] = None


def _summarise_probes(out: ProfileSummary, profile: Profile, run_id: str | None) -> None:
    """The hot-object limit, the per-key write rate and the range-GET speed-up."""
    hot = profile.probes.hot_object
    if hot is not None:
        out.hot_object_limit = hot.limit
        out.hot_object_behaviour = hot.behaviour
        out.hot_object_error = hot.error
        out.citations["hot_object"] = [_cite(hot, run_id, "probes.hot_object")]
        if hot.note:
            out.notes["hot_object"] = hot.note

    per_key = profile.ceilings.per_key_write_per_s
    if per_key is not None:
        out.per_key_write_per_s = per_key.value
        out.citations["per_key_write_per_s"] = [per_key.citation]

    speed = profile.probes.range_get
    if speed is not None and speed.speedup is not None and speed.best_streams is not None:
        out.range_get_speedup = RangeGetSpeedup(streams=speed.best_streams, speedup=speed.speedup)
        out.citations["range_get_speedup"] = [_cite(speed, run_id, "probes.range_get")]
        if speed.note:
            out.notes["range_get_speedup"] = speed.note


def coefficient_of_variation(values: list[float]) -> float | None:
    """Population CV of per-segment figures; None for fewer than two segments or a zero mean."""
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    if mean == 0:
        return None
    return statistics.pstdev(values) / mean
