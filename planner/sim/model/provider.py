"""A provider's behaviour as plain data: latency distributions, stream bandwidth, ceilings, limits.

The event loop never hard-codes a provider; it asks a ``ProviderModel``. Models are built from a
measured profile (``ProviderModel.from_profile``) or written by hand (tests, what-if studies).
"""

from __future__ import annotations

import bisect
import math
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from planner.evidence import Evidence, weakest
from planner.pricing.models import ErrorResponses
from planner.sim.model.saturation import Knee
from planner.sim.model.wakeup import WakeUp
from planner.units import BitsPerSecond, Bytes, Seconds

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


def error_status(error: str) -> int | None:
    """The status code an error answer starts with (``"503 SlowDown"``: 503), None if it has none."""
    code = error.split(maxsplit=1)[0] if error else ""
    return int(code) if code.isdigit() and len(code) == 3 else None


def error_billing(rule: ErrorResponses | None) -> str:
    """A rule for billing error responses in words, with the words it was read from (or that there is none)."""
    if rule is None:
        return (
            "error responses: the price table states no rule for them, so every attempt is billed (errors and "
            "retries included)"
        )
    said = []
    if rule.not_billed:
        said.append(f"not billed: {', '.join(rule.not_billed)}")
    if rule.billed:
        said.append(f"billed: {', '.join(rule.billed)}")
    said.append("any other error billed as the request it answers")
    return f"error responses {'; '.join(said)} ({rule.quote.text!r}, {rule.quote.url}, read {rule.quote.read})"


def measured_as(operation: str) -> str:
    """The operation whose measured figures a billed operation takes: an uploaded part is a PUT of its size."""
    return "put" if operation == "upload-part" else operation


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LatencyModel(_Frozen):
    """A server latency (time to first byte) distribution.

    ``lognormal`` puts a lognormal above ``floor_s`` through a p50 and a p99 (seed: R2's TTFB
    floors at ~40 ms whatever the size); ``exponential`` has its median at ``p50_s`` above the
    floor and ignores ``p99_s`` (queueing-theory checks). ``p99_s == p50_s`` is a constant.
    ``empirical`` is a measured quantile function (``LatencyModel.empirical``): the quantiles as
    knots, linear in ``-ln(1 - q)`` between them (an exponential tail between two quantiles),
    continued past the last knot with the slope of the last two (the tail beyond what was measured).
    """

    p50_s: Seconds = Field(ge=0)
    p99_s: Seconds | None = Field(default=None, ge=0, description="defaults to p50_s (a constant latency)")
    floor_s: Seconds = Field(default=0.0, ge=0)
    distribution: Literal["lognormal", "exponential", "empirical"] = "lognormal"
    quantiles: list[tuple[float, float]] = Field(
        default_factory=list,
        description="empirical: (probability, seconds) knots by probability, the first at probability 0",
    )

    @model_validator(mode="after")
    def _ordered(self) -> LatencyModel:
        if self.floor_s > self.p50_s:
            raise ValueError(f"floor_s ({self.floor_s}) is above p50_s ({self.p50_s}); the floor is a minimum")
        if self.p99_s is not None and self.p99_s < self.p50_s:
            raise ValueError(f"p99_s ({self.p99_s}) is below p50_s ({self.p50_s})")
        if self.distribution == "empirical":
            probabilities = [q for q, _ in self.quantiles]
            values = [v for _, v in self.quantiles]
            if len(self.quantiles) < 2 or probabilities[0] != 0.0 or probabilities[-1] >= 1.0:
                raise ValueError("an empirical latency needs knots from probability 0 up to below 1")
            if probabilities != sorted(set(probabilities)) or values != sorted(values):
                raise ValueError("empirical knots must increase in probability and not decrease in seconds")
        return self

    @classmethod
    def empirical(cls, knots: list[tuple[float, float]]) -> LatencyModel:
        """A measured quantile function through ``knots`` ((probability, seconds), probability 0 first)."""
        knots = sorted(knots)
        model = cls.model_construct(
            p50_s=0.0, p99_s=None, floor_s=knots[0][1], distribution="empirical", quantiles=knots
        )
        p50, p99 = model.quantile([0.5, 0.99]).tolist()
        return cls(p50_s=p50, p99_s=max(p99, p50), floor_s=knots[0][1], distribution="empirical", quantiles=knots)

    @classmethod
    def mixture(cls, first: LatencyModel, second: LatencyModel, first_share: float) -> LatencyModel:
        """``first`` with probability ``first_share``, else ``second`` (both empirical), as one empirical model."""
        if first_share <= 0:
            return second
        if first_share >= 1:
            return first
        levels = np.array(_MIXTURE_LEVELS)
        first_values, second_values = first.quantile(levels), second.quantile(levels)
        values = np.unique(np.concatenate([first_values, second_values]))
        cdf = first_share * np.interp(values, first_values, levels, right=1.0) + (1 - first_share) * np.interp(
            values, second_values, levels, right=1.0
        )
        knots: list[tuple[float, float]] = []
        for probability, value in zip(cdf.tolist(), values.tolist(), strict=True):
            if probability >= _MIXTURE_LEVELS[-1]:
                break
            if not knots or probability > knots[-1][0]:
                knots.append((probability, value))
        knots[0] = (0.0, knots[0][1])
        return cls.empirical(knots)

    def quantile(self, q: Any) -> np.ndarray[Any, np.dtype[np.float64]]:
        """The latency at probability ``q`` (an array or list, each in [0, 1)); empirical models only."""
        u = np.asarray(q, dtype=np.float64)
        if self.distribution != "empirical":
            raise ValueError("quantile() is defined for empirical latency models")
        z_knots = -np.log1p(-np.array([p for p, _ in self.quantiles]))
        values = np.array([v for _, v in self.quantiles])
        z = -np.log1p(-np.minimum(u, 1 - 1e-12))
        out: np.ndarray[Any, np.dtype[np.float64]] = np.atleast_1d(np.interp(z, z_knots, values))
        z = np.atleast_1d(z)
        slope = (values[-1] - values[-2]) / (z_knots[-1] - z_knots[-2])
        beyond = z > z_knots[-1]
        out[beyond] = values[-1] + slope * (z[beyond] - z_knots[-1])
        return out

    @classmethod
    def constant(cls, seconds: float) -> LatencyModel:
        return cls(p50_s=seconds, p99_s=seconds)

    @classmethod
    def exponential(cls, mean_s: float, floor_s: float = 0.0) -> LatencyModel:
        """Exponential with the given mean above the floor (its median is mean·ln 2)."""
        return cls(p50_s=floor_s + mean_s * math.log(2), floor_s=floor_s, distribution="exponential")

    @property
    def mean_s(self) -> float:
        if self.distribution == "empirical":
            return float(self.quantile((np.arange(20_000) + 0.5) / 20_000).mean())
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
        if self.distribution == "empirical":
            return self.quantile(rng.random(n))
        above = self.p50_s - self.floor_s
        if above <= 0:
            return np.full(n, self.floor_s)
        if self.distribution == "exponential":
            return self.floor_s + rng.exponential(above / math.log(2), n)
        sigma = self._sigma()
        if sigma == 0.0:
            return np.full(n, self.p50_s)
        return self.floor_s + rng.lognormal(math.log(above), sigma, n)


class SizedLatency(_Frozen):
    """One operation's latency at several object sizes (measured TTFB grows with size: SeaweedFS
    1.8 ms at 4 KiB, 4.3 ms at 4 MiB). Between two sizes every quantile is interpolated linearly
    in log(size); beyond the ends the nearest size's distribution stands."""

    points: list[tuple[Bytes, LatencyModel]] = Field(min_length=1)

    @model_validator(mode="after")
    def _sorted(self) -> SizedLatency:
        sizes = [size for size, _ in self.points]
        if sizes != sorted(set(sizes)):
            raise ValueError("points must have distinct sizes in increasing order")
        return self

    def at(self, size_bytes: int) -> LatencyModel:
        sizes = [size for size, _ in self.points]
        i = bisect.bisect_left(sizes, size_bytes)
        if i < len(sizes) and sizes[i] == size_bytes:
            return self.points[i][1]
        if i == 0:
            return self.points[0][1]
        if i == len(sizes):
            return self.points[-1][1]
        (lo_size, lo), (hi_size, hi) = self.points[i - 1], self.points[i]
        if lo.distribution != "empirical" or hi.distribution != "empirical":
            return lo if size_bytes / lo_size <= hi_size / size_bytes else hi
        frac = math.log(max(size_bytes, 1) / lo_size) / math.log(hi_size / lo_size)
        levels = sorted({q for q, _ in lo.quantiles} | {q for q, _ in hi.quantiles})
        values = (1 - frac) * lo.quantile(levels) + frac * hi.quantile(levels)
        return LatencyModel.empirical(list(zip(levels, np.maximum.accumulate(values).tolist(), strict=True)))


class LoadedLatency(_Frozen):
    """How much more an operation's requests take under load than the unloaded latency and the
    server queue's own waits give, by the queue's utilisation (offered work over its capacity).

    ``points`` are (utilisation, excess) with the excess a distribution of seconds (empirical, its
    quantiles added to the unloaded latency's, so a slow draw stays slow): measured latency of an
    open-loop cell that kept up with its offered rate, less the unloaded latency at that rate and
    the queue's mean wait there, quantile by quantile, never below zero. Waits grow with the
    queue's load over its slack, ``x = u / (1 - u)`` (M/M/1's wait is its service time times x):
    from no excess at no load to the first point in proportion to x, and between two points every
    quantile as the power of x that joins them (linearly in x where either is zero). Beyond the
    last point the last excess stands and the queue's own waits carry the growth to the knee.

    ``whole`` holds, at the same utilisations, what the cells measured beyond the unloaded latency
    alone, their waits included: a steady open loop below the capacity is drawn from the cells
    themselves and not queued (``covers``), past the last cell's load along their own curve
    (extrapolated). The cells' waits are the server's as it measured them: on two shared cores
    SeaweedFS keeps its median near the unloaded one and puts its waits in stalls of the tail,
    which an M/G/c queue fitted to the mean spreads over every request (its median wait at 75 %
    load already exceeds the measured median). At or past the capacity, and for arrivals whose
    rate varies (a burst can outrun a steady cell's load), the queue runs and ``points`` are added.
    """

    points: list[tuple[float, LatencyModel]] = Field(min_length=1)
    whole: list[tuple[float, LatencyModel]] = Field(
        default_factory=list,
        description="(utilisation, excess over the unloaded latency alone, the waits in it) at the points' "
        "utilisations; empty: the queue always runs",
    )
    client_connections: int | None = Field(
        default=None,
        ge=1,
        description="connections of the client the open-loop cells were measured through: their latency runs from "
        "the arrival, so it holds that client's waits for a connection (``planner.sim.engine.client_waits``)",
    )

    @model_validator(mode="after")
    def _sorted(self) -> LoadedLatency:
        loads = [load for load, _ in self.points]
        if loads != sorted(set(loads)) or loads[0] <= 0 or loads[-1] >= 1:
            raise ValueError("points must have distinct utilisations in (0, 1) in increasing order")
        if any(m.distribution != "empirical" for _, m in self.points + self.whole):
            raise ValueError("excess latencies must be empirical")
        if self.whole and [load for load, _ in self.whole] != loads:
            raise ValueError("whole must have the points' utilisations")
        return self

    def covers(self, utilisation: float) -> bool:
        """Whether a steady load at ``utilisation`` is drawn from the cells whole (``whole`` points and
        a load above none and below the capacity; past the last cell's load, extrapolated)."""
        return bool(self.whole) and 0 < utilisation < 1

    def extrapolated(self, utilisation: float) -> bool:
        """Whether a steady load at ``utilisation`` is drawn from the cells past the last one's load."""
        return self.covers(utilisation) and utilisation > self.whole[-1][0]

    def excess_at(self, utilisation: float, *, whole: bool = False) -> LatencyModel | None:
        """The excess at ``utilisation`` (None at no load): beyond the unloaded latency and the queue's
        mean wait, or with ``whole`` (and ``whole`` points) beyond the unloaded latency alone.

        Past the last point the queued excess stands (the queue carries the growth); the whole one
        grows on, every quantile as the power of x = u / (1 - u) that joins the last two points,
        at least in proportion to x (M/M/1's wait), without bound as the load nears the capacity.
        """
        if utilisation <= 0:
            return None
        use_whole = whole and bool(self.whole)
        points = self.whole if use_whole else self.points
        loads = [load for load, _ in points]
        i = bisect.bisect_left(loads, utilisation)
        if i < len(loads) and loads[i] == utilisation:
            return points[i][1]
        if i == len(loads) and (not use_whole or utilisation >= 1):
            return points[-1][1]

        def slack(load: float) -> float:
            return load / (1 - load)

        def joined(lo_load: float, lo: LatencyModel, hi_load: float, hi: LatencyModel) -> tuple[list[float], Any, Any]:
            """The levels of both, and per level the power of x from ``lo`` to ``hi`` (nan where either is 0)."""
            levels = sorted({q for q, _ in hi.quantiles} | {q for q, _ in lo.quantiles})
            low, high = lo.quantile(levels), hi.quantile(levels)
            both = (low > 0) & (high > 0)
            ratio = np.where(both, high, 1.0) / np.where(both, low, 1.0)
            power = np.where(both, np.log(ratio) / math.log(slack(hi_load) / slack(lo_load)), np.nan)
            return levels, (low, high), power

        x = slack(utilisation)
        if i == len(loads):  # past the last point, whole
            last_load, last = points[-1]
            if len(points) == 1:
                levels = [q for q, _ in last.quantiles]
                high, power = last.quantile(levels), np.ones(len(levels))
            else:
                levels, (_, high), fitted = joined(*points[-2], last_load, last)
                power = np.maximum(np.nan_to_num(fitted, nan=1.0), 1.0)
            values = high * (x / slack(last_load)) ** power
        elif i == 0:
            hi_load, hi = points[0]
            levels = [q for q, _ in hi.quantiles]
            values = hi.quantile(levels) * (x / slack(hi_load))
        else:
            (lo_load, lo), (hi_load, hi) = points[i - 1], points[i]
            levels, (low, high), power = joined(lo_load, lo, hi_load, hi)
            x_lo, x_hi = slack(lo_load), slack(hi_load)
            linear = low + (high - low) * (x - x_lo) / (x_hi - x_lo)
            values = np.where(np.isnan(power), linear, low * (x / x_lo) ** np.nan_to_num(power))
        return LatencyModel.empirical(list(zip(levels, np.maximum.accumulate(values).tolist(), strict=True)))


def plus(first: LatencyModel, second: LatencyModel) -> LatencyModel:
    """The comonotone sum of two empirical latencies: quantile by quantile."""
    levels = sorted({q for q, _ in first.quantiles} | {q for q, _ in second.quantiles})
    values = first.quantile(levels) + second.quantile(levels)
    return LatencyModel.empirical(list(zip(levels, np.maximum.accumulate(values).tolist(), strict=True)))


class ServerQueue(_Frozen):
    """The server's request handling for some operations: ``servers`` servers, first come first
    served, each holding a request for ``service_s``, so at most ``servers / service_s`` a second.

    A request waits for a free server, then takes its drawn latency (which includes its service):
    unloaded, latencies are as measured without load; as the offered rate nears the capacity the
    waits grow, and past it they grow without bound (the saturation knee).
    """

    operations: list[str] = Field(min_length=1, description="billed operations served by these servers")
    servers: int = Field(default=1, ge=1)
    service_s: Seconds = Field(gt=0, description="a request's service time, unless service_by_size says")
    service_spread: LatencyModel | None = Field(
        default=None,
        description="a request's service time is its mean (service_s, service_by_size) times a draw of this "
        "distribution of mean 1 (None: every request takes exactly its mean)",
    )
    service_by_size: dict[str, list[tuple[Bytes, Seconds]]] = Field(
        default_factory=dict,
        description="per operation, (object size, service time) points, interpolated in log size, flat beyond "
        "the ends: a large object holds the server longer (its bytes/s capacity)",
    )

    @property
    def capacity_per_s(self) -> float:
        return self.servers / self.service_s

    def service_for(self, operation: str, size_bytes: int) -> float:
        """Service time of one request of ``operation`` moving ``size_bytes``."""
        points = self.service_by_size.get(measured_as(operation))
        if not points:
            return self.service_s
        sizes = [size for size, _ in points]
        i = bisect.bisect_left(sizes, size_bytes)
        if i == 0:
            return points[0][1]
        if i == len(points):
            return points[-1][1]
        (lo_size, lo), (hi_size, hi) = points[i - 1], points[i]
        frac = math.log(size_bytes / lo_size) / math.log(hi_size / lo_size)
        return lo + frac * (hi - lo)

    def capacity_for(self, operation: str, size_bytes: int) -> float:
        """Requests a second of ``operation`` at ``size_bytes`` the servers handle at most."""
        return self.servers / self.service_for(operation, size_bytes)

    @model_validator(mode="after")
    def _known(self) -> ServerQueue:
        unknown = [op for op in self.operations if op not in BILLED_OPERATIONS]
        if unknown:
            raise ValueError(f"unknown operations {unknown} (known: {', '.join(BILLED_OPERATIONS)})")
        return self


_MIXTURE_LEVELS = (
    0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999,
    0.9995, 0.9999,
)  # fmt: skip


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

    def bits_per_s(self, size_bytes: float) -> float:
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
    burst: float | None = Field(default=None, ge=1, description="bucket size; defaults to one second of per_s")
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
    ttfb_put: LatencyModel | None = Field(default=None, description="after the body is sent; defaults to ttfb_get")
    ttfb_head: LatencyModel | None = None
    ttfb_list: LatencyModel | None = None
    latency_by_size: dict[str, SizedLatency] = Field(
        default_factory=dict,
        description="per billed operation (get, put, head, list), latency by object size; replaces ttfb_* "
        "for that operation when the simulator knows the size",
    )
    sparse_latency_by_size: dict[str, SizedLatency] = Field(
        default_factory=dict,
        description="per billed operation, latency by size of a request that finds client and server idle "
        "(sparse open-loop cells); the simulator mixes it in by how often that happens",
    )
    wake_up: dict[str, WakeUp] = Field(
        default_factory=dict,
        description="per billed operation, the wake-up cost sparse cells at two rates show: the sparse latency is "
        "the sparser cell's, less what a busier window does not pay (``planner.sim.model.wakeup``)",
    )
    server_queues: list[ServerQueue] = Field(
        default_factory=list, description="the server's request capacity, per group of operations"
    )
    loaded_latency: dict[str, LoadedLatency] = Field(
        default_factory=dict,
        description="per billed operation (get, put, head, list), the latency its requests add under load "
        "beyond the server queue's waits, by the queue's utilisation (open-loop cells at rising rates)",
    )
    body_tail_by_size: dict[str, SizedLatency] = Field(
        default_factory=dict,
        description="per billed operation (get), by object size, how much longer a body takes than the median "
        "(the measured latency less TTFB, quantile by quantile, beyond its median: a body stalls now and then); "
        "drawn after the transfer, so it lengthens the latency and not the time to first byte",
    )
    stream_read: BandwidthCurve = Field(default_factory=BandwidthCurve)
    stream_write: BandwidthCurve = Field(default_factory=BandwidthCurve)
    knee: Knee | None = Field(
        default=None,
        description="GET's open-loop ladder over several rounds, each rung's spread kept: near capacity the "
        "simulated figures become bands (``planner.sim.model.saturation``)",
    )
    read_ceiling_bits_per_s: BitsPerSecond | None = Field(default=None, gt=0, description="all reads together")
    write_ceiling_bits_per_s: BitsPerSecond | None = Field(default=None, gt=0, description="all writes together")
    rate_limits: list[RateLimit] = Field(default_factory=list)
    hot_object: HotObjectLimit | None = None
    error_responses: ErrorResponses | None = Field(
        default=None,
        description="which error responses the provider bills (a price table's billing.error_responses); None: "
        "not stated, every attempt is billed",
    )
    source: str = Field(default="", description="where the numbers come from (profile file, seed, hand-made)")
    evidence: dict[str, Evidence] = Field(
        default_factory=dict,
        description="how each part of the model is backed, by key: latency.get, latency.put, latency.head, "
        "latency.list, latency.tail, stream.read, stream.write, ceiling.read, ceiling.write, capacity; "
        "latency.size (latency varies with object size), capacity.get, capacity.put, capacity.head, "
        "capacity.list (a server queue's requests a second), latency.load.get (.put, .head, .list: how "
        "latency grows with load, from open-loop cells), latency.body.get (a GET body's spread beyond its "
        "median); a key not present is 'assumed' (a hand-made "
        "model states its own)",
    )
    read_rate_spread: dict[int, list[tuple[float, float]]] = Field(
        default_factory=dict,
        description="a published spread of one GET request's whole rate, by the object size it was measured at: "
        "(probability, bytes/s) knots, slowest first (``planner.sim.model.published_spread``)",
    )

    def bills_error(self, error: str) -> bool:
        """Whether an attempt answered ``error`` (``"503 SlowDown"``) is billed: as ``error_responses`` says,
        and every attempt where it says nothing or the answer has no status code."""
        status = error_status(error)
        return self.error_responses is None or status is None or self.error_responses.bills(status)

    @property
    def error_billing(self) -> str:
        """How the model bills error responses, in words, with the rule's source."""
        return error_billing(self.error_responses)

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

    def queued(self, operation: str, utilisation: float) -> bool:
        """Whether a steady open loop at ``utilisation`` of ``operation``'s server queue waits in it:
        not below the capacity where open-loop cells measured its latency whole (their waits are in
        it); past the last cell's load that latency is extrapolated along the cells' curve."""
        loaded = self.loaded_latency.get(measured_as(operation))
        return loaded is None or not loaded.covers(utilisation)

    def load_extrapolated(self, operation: str, utilisation: float) -> bool:
        """Whether a steady open loop at ``utilisation`` takes ``operation``'s latency from past the
        last open-loop cell's load (along the cells' curve: extrapolated, not measured)."""
        loaded = self.loaded_latency.get(measured_as(operation))
        return loaded is not None and loaded.extrapolated(utilisation)

    def latency(
        self,
        operation: str,
        size_bytes: int | None = None,
        idle_share: float = 0.0,
        utilisation: float = 0.0,
        *,
        queued: bool = True,
    ) -> LatencyModel:
        """Server latency of a billed operation: TTFB for reads, response time after the body for writes.

        With ``size_bytes``, the operation's latency at that size when the model has one
        (``latency_by_size``; an uploaded part as a PUT of its size); ``idle_share`` of the
        requests find client and server idle and draw from ``sparse_latency_by_size`` instead;
        at ``utilisation`` of the operation's server queue, ``loaded_latency`` adds its excess:
        beyond the queue's waits if the simulator ``queued`` the operation, else the cells' whole.
        """
        if size_bytes is not None and self.latency_by_size:
            name = measured_as(operation)
            sized = self.latency_by_size.get(name)
            if sized is not None:
                unloaded = sized.at(size_bytes)
                sparse = self.sparse_latency_by_size.get(name)
                if sparse is not None and idle_share > 0:
                    unloaded = LatencyModel.mixture(sparse.at(size_bytes), unloaded, idle_share)
                loaded = self.loaded_latency.get(name)
                excess = loaded.excess_at(utilisation, whole=not queued) if loaded is not None else None
                return unloaded if excess is None else plus(unloaded, excess)
        if operation in ("get",):
            return self.ttfb_get
        if operation == "head":
            return self.ttfb_head or self.ttfb_get
        if operation == "list":
            return self.ttfb_list or self.ttfb_get
        return self.ttfb_put or self.ttfb_get

    def body_tail(self, operation: str, size_bytes: int) -> LatencyModel | None:
        """How much longer than the median a body of ``size_bytes`` takes (None: no spread measured)."""
        tails = self.body_tail_by_size.get(operation)
        return tails.at(size_bytes) if tails is not None else None

    def server_queue(self, operation: str) -> ServerQueue | None:
        """The server queue that serves ``operation``, if the model has one."""
        return next((queue for queue in self.server_queues if operation in queue.operations), None)

    def stream_bits_per_s(self, direction: Direction, size_bytes: int) -> float:
        curve = self.stream_read if direction == "read" else self.stream_write
        return curve.bits_per_s(size_bytes)

    def ceiling_bits_per_s(self, direction: Direction) -> float:
        ceiling = self.read_ceiling_bits_per_s if direction == "read" else self.write_ceiling_bits_per_s
        return math.inf if ceiling is None else ceiling
