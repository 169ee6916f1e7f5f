"""What to simulate: arrivals, operation mix, sizes, key popularity, the client, the targets."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from planner.units import BitsPerSecond, Bytes, Seconds

FloatArray = np.ndarray[Any, np.dtype[np.float64]]

MONTH_S = 730 * 3600.0
"""A billing month: 730 hours, the convention AWS and most price sheets quote monthly figures in."""


class _Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OpenLoop(_Spec):
    """Poisson arrivals that do not wait for answers (users, a fleet of independent jobs).

    ``profile`` shapes the simulated window: ``mean`` runs at ``mean_rate_per_s``; ``peak`` at
    ``mean_rate_per_s * peak_factor``; ``diurnal`` is a cosine cycle of ``period_s`` between a
    trough and the peak averaging the mean (peak_factor at most 2); ``burst`` runs at the peak
    for ``burst_s`` every ``period_s`` and below the mean in between, averaging the mean.
    """

    kind: Literal["open"] = "open"
    mean_rate_per_s: float = Field(gt=0)
    peak_factor: float = Field(default=1.0, ge=1)
    profile: Literal["mean", "peak", "diurnal", "burst"] = "mean"
    period_s: Seconds = Field(default=60.0, gt=0)
    burst_s: Seconds = Field(default=5.0, gt=0)

    @model_validator(mode="after")
    def _feasible(self) -> OpenLoop:
        if self.profile == "diurnal" and self.peak_factor > 2:
            raise ValueError(
                f"peak_factor {self.peak_factor} is too high for a diurnal cosine averaging the mean "
                '(at most 2; use profile "burst" for sharper peaks)'
            )
        if self.profile == "burst" and self.peak_factor * self.burst_s > self.period_s:
            raise ValueError(
                f"a burst of {self.burst_s} s at {self.peak_factor}x the mean every {self.period_s} s "
                "already exceeds the mean; lengthen period_s or shorten burst_s"
            )
        return self

    def rates_per_s(self, t_s: FloatArray) -> FloatArray:
        """The arrival rate at each time in ``t_s`` (seconds into the window)."""
        mean, peak = self.mean_rate_per_s, self.mean_rate_per_s * self.peak_factor
        if self.profile == "mean":
            return np.full_like(t_s, mean)
        if self.profile == "peak":
            return np.full_like(t_s, peak)
        if self.profile == "diurnal":
            return mean * (1 + (self.peak_factor - 1) * np.cos(2 * np.pi * t_s / self.period_s))
        between = mean * (self.period_s - self.peak_factor * self.burst_s) / (self.period_s - self.burst_s)
        return np.where(np.mod(t_s, self.period_s) < self.burst_s, peak, between)

    def expected_arrivals(self, start_s: float, end_s: float) -> float:
        """Arrivals the profile expects between two times: the rate's integral, in closed form (a grid
        of points would alias with a short period over a long window)."""
        if end_s <= start_s:
            return 0.0
        return self._arrivals_by(end_s) - self._arrivals_by(start_s)

    def _arrivals_by(self, t_s: float) -> float:
        """Arrivals the profile expects from the window's start to ``t_s``."""
        mean, peak = self.mean_rate_per_s, self.mean_rate_per_s * self.peak_factor
        if self.profile == "mean":
            return mean * t_s
        if self.profile == "peak":
            return peak * t_s
        period = self.period_s
        if self.profile == "diurnal":
            swing = (self.peak_factor - 1) * period / (2 * math.pi) * math.sin(2 * math.pi * t_s / period)
            return mean * (t_s + swing)
        burst = self.burst_s
        between = mean * (period - self.peak_factor * burst) / (period - burst)
        cycles, into = divmod(t_s, period)
        per_cycle = peak * burst + between * (period - burst)
        return cycles * per_cycle + peak * min(into, burst) + between * max(0.0, into - burst)

    @property
    def max_rate_per_s(self) -> float:
        return self.mean_rate_per_s * (1.0 if self.profile == "mean" else self.peak_factor)


class ClosedLoop(_Spec):
    """``workers`` clients, each issuing its next request when the last one ends (plus think time)."""

    kind: Literal["closed"] = "closed"
    workers: int = Field(ge=1)
    think_time_s: Seconds = Field(default=0.0, ge=0)


class TraceArrivals(_Spec):
    """Requests replayed as a trace holds them: each one's arrival (seconds from the trace's start),
    operation code (0 GET, 1 PUT, 2 HEAD, 3 LIST), bytes and key number (requests to one object
    share a key number, so per-key limits and hot objects apply as they did)."""

    kind: Literal["trace"] = "trace"
    times_s: tuple[float, ...] = Field(min_length=1)
    operations: tuple[int, ...]
    sizes: tuple[int, ...]
    keys: tuple[int, ...]
    source: str = Field(default="trace", description="where the trace came from, for the report")

    @model_validator(mode="after")
    def _consistent(self) -> TraceArrivals:
        n = len(self.times_s)
        if not len(self.operations) == len(self.sizes) == len(self.keys) == n:
            raise ValueError("a trace's times, operations, sizes and keys must be as many")
        times = np.asarray(self.times_s)
        if not np.all(np.isfinite(times)) or times[0] < 0 or np.any(np.diff(times) < 0):
            raise ValueError("a trace's times must be finite, from 0 and in order")
        if min(self.operations) < 0 or max(self.operations) > 3:
            raise ValueError("a trace's operation codes are 0 (GET), 1 (PUT), 2 (HEAD) and 3 (LIST)")
        if min(self.sizes) < 0 or min(self.keys) < 0:
            raise ValueError("a trace's sizes and key numbers are 0 or more")
        return self

    @property
    def span_s(self) -> float:
        """From the first arrival to just after the last (a trace of one second's requests spans 1 s)."""
        return max(self.times_s[-1], 1.0) if len(self.times_s) > 1 else 1.0

    @property
    def key_count(self) -> int:
        return max(self.keys) + 1

    @property
    def requests(self) -> int:
        return len(self.times_s)

    def expected_arrivals(self, start_s: float, end_s: float) -> float:
        times = np.asarray(self.times_s)
        return float(np.searchsorted(times, end_s, side="left") - np.searchsorted(times, start_s, side="left"))

    @property
    def max_rate_per_s(self) -> float:
        return self.requests / self.span_s


Arrivals = Annotated[OpenLoop | ClosedLoop | TraceArrivals, Field(discriminator="kind")]


class OperationMix(_Spec):
    """Relative weights of the operations; they need not add up to 1."""

    get: float = Field(default=0.8, ge=0)
    put: float = Field(default=0.2, ge=0)
    head: float = Field(default=0.0, ge=0)
    list_objects: float = Field(default=0.0, ge=0, description="LIST requests")

    @model_validator(mode="after")
    def _some(self) -> OperationMix:
        if self.get + self.put + self.head + self.list_objects <= 0:
            raise ValueError("the operation mix is empty: give at least one operation a weight above 0")
        return self

    def shares(self) -> tuple[float, float, float, float]:
        """Probabilities of get, put, head, list."""
        total = self.get + self.put + self.head + self.list_objects
        return self.get / total, self.put / total, self.head / total, self.list_objects / total


class SizeDistribution(_Spec):
    """Object sizes: one size, or a discrete distribution with weights."""

    sizes_bytes: list[Bytes] = Field(min_length=1)
    weights: list[float] | None = Field(default=None, description="defaults to equal weights")

    @model_validator(mode="after")
    def _weights(self) -> SizeDistribution:
        if self.weights is not None:
            if len(self.weights) != len(self.sizes_bytes):
                raise ValueError(f"{len(self.weights)} weights for {len(self.sizes_bytes)} sizes")
            if any(w < 0 for w in self.weights) or sum(self.weights) <= 0:
                raise ValueError("weights must be 0 or more and not all 0")
        return self

    @classmethod
    def fixed(cls, size_bytes: int) -> SizeDistribution:
        return cls(sizes_bytes=[size_bytes])

    def probabilities(self) -> list[float]:
        weights = self.weights or [1.0] * len(self.sizes_bytes)
        total = sum(weights)
        return [w / total for w in weights]

    @property
    def mean_bytes(self) -> float:
        return sum(s * p for s, p in zip(self.sizes_bytes, self.probabilities(), strict=True))


class HotSet(_Spec):
    """A few objects most readers want at once (an index, a header, a reference genome).

    ``share_of_reads`` of GETs go to the hot objects, spread evenly; each hot object is stored
    under ``replicas`` keys read round-robin (the seed's cure for R2's 503s). ``peak_concurrency``
    reads of every hot object start at the same instant at t=0 and every ``burst_every_s``: a
    batch of tasks all opening the same file.
    """

    objects: int = Field(default=1, ge=1)
    share_of_reads: float = Field(default=0.0, ge=0, le=1)
    peak_concurrency: int = Field(default=0, ge=0)
    burst_every_s: Seconds | None = Field(default=None, gt=0)
    replicas: int = Field(default=1, ge=1)
    size_bytes: Bytes | None = Field(default=None, description="defaults to the workload's size distribution")


class KeyPopularity(_Spec):
    """Which keys requests touch: Zipf(``zipf_exponent``) over ``keys`` (0 is uniform), plus a hot set."""

    keys: int = Field(default=10_000, ge=1)
    zipf_exponent: float = Field(default=0.0, ge=0)
    prefixes: int = Field(default=1, ge=1, description="keys are spread round-robin over this many prefixes")
    hot: HotSet | None = None


class MultipartPolicy(_Spec):
    """Uploads at or above ``threshold_bytes`` go in parts, ``queue_depth`` at a time."""

    threshold_bytes: Bytes = Field(default=8 * 2**20, ge=1)
    part_size_bytes: Bytes = Field(default=8 * 2**20, ge=5 * 2**20)
    queue_depth: int = Field(default=4, ge=1)


class RangedGetPolicy(_Spec):
    """Reads at or above ``threshold_bytes`` are split into ``streams`` concurrent ranged GETs."""

    threshold_bytes: Bytes = Field(default=64 * 2**20, ge=1)
    streams: int = Field(default=16, ge=2)


class RetryPolicy(_Spec):
    """Exponential backoff with full jitter: wait U(0, min(max_backoff_s, base_s * 2**(n-1)))."""

    max_attempts: int = Field(default=3, ge=1, description="attempts in all, the first included")
    base_s: Seconds = Field(default=0.1, ge=0)
    max_backoff_s: Seconds = Field(default=20.0, ge=0)


class ClientSpec(_Spec):
    """The client: its link, connection pool and transfer strategy."""

    link_bits_per_s: BitsPerSecond | None = Field(default=None, gt=0, description="None: unlimited")
    link_duplex: Literal["shared", "full"] = Field(
        default="shared", description="shared: reads and writes split one capacity; full: each way has it"
    )
    connections: int = Field(default=64, ge=1, description="requests in flight at most; the rest queue")
    round_trip_s: Seconds = Field(
        default=0.0,
        ge=0,
        description="network round trip the client adds to every request beyond the profile's own (a "
        "farther client, a proxy): added to each request's time to first byte or response",
    )
    multipart: MultipartPolicy | None = None
    ranged_get: RangedGetPolicy | None = None
    retry: RetryPolicy = Field(default_factory=RetryPolicy)


class SLOTargets(_Spec):
    """Targets the result is judged against; each is optional."""

    p99_ttfb_s: Seconds | None = Field(default=None, gt=0, description="GET time to first byte, p99")
    read_bytes_per_s: float | None = Field(default=None, gt=0, description="GET throughput over the window")
    write_bytes_per_s: float | None = Field(default=None, gt=0, description="PUT throughput over the window")
    max_error_rate: float | None = Field(default=None, ge=0, le=1, description="failed requests / requests")


class SimSpec(_Spec):
    """A workload as the simulator sees it."""

    arrivals: Arrivals
    mix: OperationMix = Field(default_factory=OperationMix)
    sizes: SizeDistribution
    put_sizes: SizeDistribution | None = Field(
        default=None, description="sizes of the objects PUT writes, when they differ from those read (None: ``sizes``)"
    )
    keys: KeyPopularity = Field(default_factory=KeyPopularity)
    client: ClientSpec = Field(default_factory=ClientSpec)
    slo: SLOTargets = Field(default_factory=SLOTargets)
    month_s: Seconds = Field(default=MONTH_S, gt=0, description="length of the month billed counts scale to")
