"""The cells of a measurement profile and the figures they are made of.

A cell is one operation x object size x concurrency point (or, in an open loop, an arrival rate):
its rates, percentiles, latency histograms, request accounting and flags. Every published figure
carries a ``Citation``. ``measure.profile`` assembles cells and probe results into a ``Profile``.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

MIB = 2**20

Operation = Literal["put", "get", "head", "list", "delete"]
OPERATIONS: tuple[Operation, ...] = ("put", "get", "head", "list", "delete")
CellFlag = Literal["client-saturated", "above-link", "too-few-samples", "implausible", "interrupted", "short-window"]
"""``short-window``: the figures come from a window much shorter than asked (a finite work list,
such as a DELETE cell's objects, ran out); its rate rests on little time."""
Bound = Literal["exact", "lower", "upper"]
CellKey = tuple[str, int | None, int, float | None]
Engine = Literal["boto3", "obstore"]


class ProfileModel(BaseModel):
    """The base of every profile model: a field the schema does not know is refused."""

    model_config = ConfigDict(extra="forbid", frozen=False)


EvidenceGrade = Literal[
    "peer-reviewed", "independent-with-method", "vendor-with-method", "vendor-claim", "documented-limit"
]
"""How far a published figure can be trusted, strongest first: a refereed paper; a third party that
publishes its method (client, region, tool); the provider (or a competitor) publishing its method;
the provider's claim without a method; a limit the provider's own documentation states."""

GRADE_ORDER: tuple[EvidenceGrade, ...] = (
    "peer-reviewed",
    "independent-with-method",
    "vendor-with-method",
    "vendor-claim",
    "documented-limit",
)


class Conditions(ProfileModel):
    """What a published figure was measured under; a figure says little about a workload run elsewhere."""

    client: str | None = Field(None, description="where the client ran: cloud, instance, location")
    region: str | None = Field(None, description="the bucket's region or the provider's location")
    object_size: str | None = Field(None, description='e.g. "1 KB", "16 MiB"')
    concurrency: str | None = Field(None, description='requests in flight, e.g. "256", "10 workers"')
    client_library: str | None = Field(None, description="tool or SDK, e.g. go-ycsb, warp, AnyBlob")

    def text(self) -> str:
        """The stated conditions in one line (empty when none is stated)."""
        named = (
            ("client", self.client),
            ("region", self.region),
            ("objects", self.object_size),
            ("concurrency", self.concurrency),
            ("with", self.client_library),
        )
        return ", ".join(f"{name} {value}" for name, value in named if value)


class Citation(ProfileModel):
    """Where a figure comes from: a publication (its address, date, grade and conditions) or a measured run.

    A published citation names the publication in ``ref`` and where a reader can check it in
    ``address`` (a URL or ``doi:...``); a published profile refuses one without it."""

    kind: Literal["published", "measured"] = "published"
    ref: str = Field(description="the publication's title (published) or run id (measured)")
    section: str = Field(description="section of the publication, or the cell/probe of the run")
    quote: str | None = None
    address: str | None = Field(None, description="URL or DOI where a reader can check the figure")
    date: str | None = Field(None, description="when the figure was published (ISO date, or year-month)")
    grade: EvidenceGrade | None = None
    conditions: Conditions | None = None


MAX_CONCURRENCY = 100_000
MAX_MIB_PER_S = 1_000_000  # about 8.4 Tbps: beyond any client's links
MAX_OPS_PER_S = 100_000_000
MAX_LATENCY_S = 3600.0
"""No request of a measured cell takes an hour: a larger figure is a unit mistake."""


class Percentiles(ProfileModel):
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


class LatencyHistogram(ProfileModel):
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


class RequestCounts(ProfileModel):
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


class Cell(ProfileModel):
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
    throughput_spread_mib_per_s: list[tuple[float, float]] | None = Field(
        default=None,
        description="a published per-request rate's spread as (probability, MiB/s) knots, slowest first, from "
        "probability 0 to 1 (linear between them); the simulator draws each request's rate from it",
    )

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


def coefficient_of_variation(values: list[float]) -> float | None:
    """Population CV of per-segment figures; None for fewer than two segments or a zero mean."""
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    if mean == 0:
        return None
    return statistics.pstdev(values) / mean
