"""A provider's behaviour as plain data: latency distributions, stream bandwidth, ceilings, limits.

The event loop never hard-codes a provider; it asks a ``ProviderModel``. Models are built from a
measured profile (``ProviderModel.from_profile``) or written by hand (tests, what-if studies).
"""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from planner.evidence import Evidence, weakest
from planner.units import BitsPerSecond, Bytes, Seconds

if TYPE_CHECKING:
    from measure.profile import ProfileSummary

# Standard normal quantile at 0.99: a lognormal's p99 sits this many sigmas above its median.
_Z99 = 2.3263478740408408

Direction = Literal["read", "write"]
"""Which way the bytes flow: a read downloads to the client, a write uploads from it."""

BILLED_OPERATIONS: tuple[str, ...] = (
    "get",
    "put",
    "head",
    "list",
    "create-multipart",
    "upload-part",
    "complete-multipart",
)
"""The requests the simulator issues, named as the price tables name them."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LatencyModel(_Frozen):
    """A server latency (time to first byte) distribution fitted to a measured p50 and p99.

    ``lognormal`` puts a lognormal above ``floor_s`` through the two percentiles (seed: R2's TTFB
    floors at ~40 ms whatever the size); ``exponential`` has its median at ``p50_s`` above the
    floor and ignores ``p99_s`` (queueing-theory checks). ``p99_s == p50_s`` is a constant.
    """

    p50_s: Seconds = Field(ge=0)
    p99_s: Seconds | None = Field(None, ge=0, description="defaults to p50_s (a constant latency)")
    floor_s: Seconds = Field(0.0, ge=0)
    distribution: Literal["lognormal", "exponential"] = "lognormal"

    @model_validator(mode="after")
    def _ordered(self) -> LatencyModel:
        if self.floor_s > self.p50_s:
            raise ValueError(f"floor_s ({self.floor_s}) is above p50_s ({self.p50_s}); the floor is a minimum")
        if self.p99_s is not None and self.p99_s < self.p50_s:
            raise ValueError(f"p99_s ({self.p99_s}) is below p50_s ({self.p50_s})")
        return self

    @classmethod
    def constant(cls, seconds: float) -> LatencyModel:
        return cls(p50_s=seconds, p99_s=seconds)

    @classmethod
    def exponential(cls, mean_s: float, floor_s: float = 0.0) -> LatencyModel:
        """Exponential with the given mean above the floor (its median is mean·ln 2)."""
        return cls(p50_s=floor_s + mean_s * math.log(2), floor_s=floor_s, distribution="exponential")

    @property
    def mean_s(self) -> float:
        above = self.p50_s - self.floor_s
        if self.distribution == "exponential":
            return self.floor_s + above / math.log(2)
        sigma = self._sigma()
        return self.floor_s + above * math.exp(sigma * sigma / 2)

    def _sigma(self) -> float:
        above50 = self.p50_s - self.floor_s
        above99 = (self.p99_s if self.p99_s is not None else self.p50_s) - self.floor_s
        if above50 <= 0 or above99 <= above50:
            return 0.0
        return math.log(above99 / above50) / _Z99

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray[Any, np.dtype[np.float64]]:
        """``n`` independent draws in seconds."""
        above = self.p50_s - self.floor_s
        if above <= 0:
            return np.full(n, self.floor_s)
        if self.distribution == "exponential":
            return self.floor_s + rng.exponential(above / math.log(2), n)
        sigma = self._sigma()
        if sigma == 0.0:
            return np.full(n, self.p50_s)
        return self.floor_s + rng.lognormal(math.log(above), sigma, n)


class BandwidthPoint(_Frozen):
    size_bytes: Bytes = Field(ge=1)
    bits_per_s: BitsPerSecond = Field(gt=0)


class BandwidthCurve(_Frozen):
    """Throughput of one stream as a function of the bytes it moves.

    Linear in log(size) between points, flat beyond the ends (small transfers never leave TCP
    slow start; large ones run at the stream's steady rate). No points: unlimited per stream.
    """

    points: list[BandwidthPoint] = Field(default_factory=list)

    @model_validator(mode="after")
    def _sorted(self) -> BandwidthCurve:
        sizes = [p.size_bytes for p in self.points]
        if sizes != sorted(set(sizes)):
            raise ValueError("points must have distinct sizes in increasing order")
        return self

    @classmethod
    def flat(cls, bits_per_s: float) -> BandwidthCurve:
        return cls(points=[BandwidthPoint(size_bytes=1, bits_per_s=bits_per_s)])

    def bits_per_s(self, size_bytes: int) -> float:
        """Steady rate of one stream moving ``size_bytes`` (``inf`` when the curve is empty)."""
        points = self.points
        if not points:
            return math.inf
        sizes = [p.size_bytes for p in points]
        i = bisect.bisect_left(sizes, size_bytes)
        if i == 0:
            return points[0].bits_per_s
        if i == len(points):
            return points[-1].bits_per_s
        lo, hi = points[i - 1], points[i]
        frac = math.log(size_bytes / lo.size_bytes) / math.log(hi.size_bytes / lo.size_bytes)
        return lo.bits_per_s + frac * (hi.bits_per_s - lo.bits_per_s)


class RateLimit(_Frozen):
    """A token bucket: ``per_s`` requests a second per scope, ``burst`` at once; past it, ``error``.

    S3: 3,500 writes and 5,500 reads a second per prefix, answered with 503 SlowDown.
    R2: one write a second to the same key, answered with 429.
    """

    operations: list[str] = Field(min_length=1, description="billed operations the bucket counts")
    scope: Literal["key", "prefix", "bucket"]
    per_s: float = Field(gt=0)
    burst: float | None = Field(None, ge=1, description="bucket size; defaults to one second of per_s")
    error: str = "503 SlowDown"

    @model_validator(mode="after")
    def _known(self) -> RateLimit:
        unknown = [op for op in self.operations if op not in BILLED_OPERATIONS]
        if unknown:
            raise ValueError(f"unknown operations {unknown} (known: {', '.join(BILLED_OPERATIONS)})")
        return self

    @property
    def burst_requests(self) -> float:
        return self.burst if self.burst is not None else max(1.0, self.per_s)


class HotObjectLimit(_Frozen):
    """Concurrent reads of the same byte range of one key beyond which the provider pushes back.

    ``reject``: answers ``error`` at once (R2: 503 SlowDown past 128 concurrent reads).
    ``degrade``: serves everyone, TTFB stretched by concurrent/limit (Wasabi: no errors).
    """

    max_concurrent_reads: int = Field(ge=1)
    behaviour: Literal["reject", "degrade"]
    error: str = "503 SlowDown"


class ProviderModel(_Frozen):
    """Everything the simulator asks about a provider; built from a profile or by hand."""

    provider_id: str
    ttfb_get: LatencyModel
    ttfb_put: LatencyModel | None = Field(None, description="after the body is sent; defaults to ttfb_get")
    ttfb_head: LatencyModel | None = None
    ttfb_list: LatencyModel | None = None
    stream_read: BandwidthCurve = Field(default_factory=BandwidthCurve)
    stream_write: BandwidthCurve = Field(default_factory=BandwidthCurve)
    read_ceiling_bits_per_s: BitsPerSecond | None = Field(None, gt=0, description="all reads together")
    write_ceiling_bits_per_s: BitsPerSecond | None = Field(None, gt=0, description="all writes together")
    rate_limits: list[RateLimit] = Field(default_factory=list)
    hot_object: HotObjectLimit | None = None
    source: str = Field("", description="where the numbers come from (profile file, seed, hand-made)")
    evidence: dict[str, Evidence] = Field(
        default_factory=dict,
        description="how each part of the model is backed, by key: latency.get, latency.put, latency.head, "
        "latency.list, latency.tail, stream.read, stream.write, ceiling.read, ceiling.write, capacity; "
        "a key not present is 'assumed' (a hand-made model states its own)",
    )

    def evidence_of(self, key: str) -> Evidence:
        """How part ``key`` of the model is backed (``assumed`` when the model does not say)."""
        return self.evidence.get(key, "assumed")

    def stream_evidence(self, direction: Direction, size_bytes: int) -> Evidence:
        """Evidence of the per-stream rate at ``size_bytes``: a measured point as it is backed, between
        points or above the largest ``derived``, below the smallest ``extrapolated``, no curve ``assumed``.

        Above the largest point the curve is held flat: a larger object's stream has left TCP slow
        start and runs at least at the largest measured size's steady rate, so the flat figure is
        a conservative reading of the evidence. Below the smallest point, request handling takes
        a growing share and the flat figure overstates the rate.
        """
        curve = self.stream_read if direction == "read" else self.stream_write
        base = self.evidence_of(f"stream.{direction}")
        if not curve.points:
            return "assumed"
        sizes = [p.size_bytes for p in curve.points]
        if size_bytes in sizes:
            return base
        if size_bytes > sizes[0]:
            return weakest(base, "derived")
        return weakest(base, "extrapolated")

    def latency(self, operation: str) -> LatencyModel:
        """Server latency of a billed operation: TTFB for reads, response time after the body for writes."""
        if operation in ("get",):
            return self.ttfb_get
        if operation == "head":
            return self.ttfb_head or self.ttfb_get
        if operation == "list":
            return self.ttfb_list or self.ttfb_get
        return self.ttfb_put or self.ttfb_get

    def stream_bits_per_s(self, direction: Direction, size_bytes: int) -> float:
        curve = self.stream_read if direction == "read" else self.stream_write
        return curve.bits_per_s(size_bytes)

    def ceiling_bits_per_s(self, direction: Direction) -> float:
        ceiling = self.read_ceiling_bits_per_s if direction == "read" else self.write_ceiling_bits_per_s
        return math.inf if ceiling is None else ceiling

    @classmethod
    def from_profile(cls, summary: ProfileSummary) -> ProviderModel:
        """Adapt a profile's ``summary()``; the mapping is in ``planner.sim.profile_adapter``."""
        from planner.sim.profile_adapter import provider_model_from_summary

        return provider_model_from_summary(summary)
