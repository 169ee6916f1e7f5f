"""What a simulation returns: per-operation statistics, SLO verdicts, a time series, billed counts."""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Estimate(_Result):
    """A figure averaged over replications, with its 95 % t confidence half-width (None for one)."""

    mean: float
    ci95_half_width: float | None = None

    @property
    def low(self) -> float:
        return self.mean - (self.ci95_half_width or 0.0)

    @property
    def high(self) -> float:
        return self.mean + (self.ci95_half_width or 0.0)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


class OperationStats(_Result):
    """One logical operation (GET, PUT, HEAD, LIST) over the window.

    Times run from the moment the application asks: ``wait`` until a connection is free,
    ``ttfb`` until the first byte of the answer (a write's answer comes after its body),
    ``latency`` until the last byte; retries and backoff are inside them. Percentiles are over
    the requests that succeeded.
    """

    operation: str
    requests: Estimate = Field(description="requests that arrived in the window and ended")
    failed: Estimate = Field(description="requests that gave up after their last attempt")
    retries: Estimate
    errors: dict[str, Estimate] = Field(description="error responses by type, every attempt counted")
    mean_wait_s: Estimate
    mean_latency_s: Estimate
    latency_p50_s: Estimate
    latency_p95_s: Estimate
    latency_p99_s: Estimate
    latency_p999_s: Estimate
    ttfb_p50_s: Estimate
    ttfb_p95_s: Estimate
    ttfb_p99_s: Estimate
    ttfb_p999_s: Estimate
    throughput_bytes_per_s: Estimate = Field(description="bytes moved per second over the window")


class SLOVerdict(_Result):
    """A target from the spec and how the simulation did against it."""

    target: str
    threshold: float
    achieved: Estimate
    met: bool = Field(description="the mean meets the target")
    certain: bool = Field(description="the whole confidence interval is on the same side of the target")


class TimeSeries(_Result):
    """Per-bin counts over the window, averaged over replications."""

    bin_s: float
    requests: list[float] = Field(description="requests that ended in the bin")
    errors: list[float] = Field(description="error responses in the bin")
    bytes: list[float] = Field(description="bytes moved in the bin (each transfer spread over its span)")


class SimulationResult(_Result):
    """A representative window, and its billed requests scaled to a month.

    A month at thousands of requests a second is billions of requests, so the simulator runs a
    window (``window_s`` after ``warmup_s``) and multiplies its billed counts by
    ``scale_to_month``: month requests at the mean rate over window requests at the window's
    rate. Retries are scaled with the rest, so a peak window overstates the month's retries.
    """

    provider_id: str
    seed: int
    replications: int
    window_s: float
    warmup_s: float
    operations: dict[str, OperationStats]
    billed_requests: dict[str, Estimate] = Field(description="requests billed in the window, retries included")
    scale_to_month: float
    scaled_billed_requests: dict[str, int]
    scaling: str = Field(description="how the window was scaled to the month, in words")
    slo: list[SLOVerdict]
    time_series: TimeSeries
    unfinished_requests: Estimate = Field(description="requests still open when the drain time ran out")

    @property
    def slo_met(self) -> bool:
        return all(verdict.met for verdict in self.slo)

    def total_billed_requests(self) -> float:
        return math.fsum(e.mean for e in self.billed_requests.values())


class WorkloadSimulation(_Result):
    """A workload simulated at one provider: its peak and mean windows, and the month they bill.

    The peak window answers "does it hold up" (latency, errors, SLO verdicts); the mean window is
    the month's average hour, so the month's billed requests (retries included) are the mean
    window's, scaled by month seconds / window seconds (``month_scaling`` says so with numbers).
    """

    workload: str
    provider: str
    storage_class: str
    prices: str = Field(description="price table version whose part limits shaped the uploads")
    profile: str = Field(description="the profile the provider model was built from")
    peak: SimulationResult
    mean: SimulationResult
    month_billed_requests: dict[str, int] = Field(description="billed requests a month, retries included")
    month_scaling: str
    slo: list[SLOVerdict] = Field(description="the workload's targets, judged in the peak window")
    assumptions: list[str] = Field(description="what the adapters derived or assumed, with sources")

    @property
    def slo_met(self) -> bool:
        return all(verdict.met for verdict in self.slo)
