"""What a simulation returns: per-operation statistics, SLO verdicts, a time series, billed counts."""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from planner.evidence import Evidence, TargetVerdict, at_risk, is_backed, judge_target, weakest
from planner.units import format_duration, format_rate

if TYPE_CHECKING:
    from planner.measure.profile import ProfileSummary
    from planner.sim.model.provider import ProviderModel


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


class RiskBand(_Result):
    """The band a simulated figure spans near capacity over the measured rounds: low, high (None unbounded),
    the same in words, and what it rests on."""

    low: float
    high: float | None
    band: str = Field(description="low .. high in words")
    rests_on: str = Field(description="the measured rounds the band spans")


class SLOVerdict(_Result):
    """A target from the spec and how the simulation did against it."""

    target: str
    threshold: float
    achieved: Estimate
    met: bool = Field(description="the mean meets the target")
    certain: bool = Field(description="the whole confidence interval is on the same side of the target")
    at_risk: RiskBand | None = Field(
        None,
        description="near capacity, the target is inside the band the measured cells spread over: "
        "met by the simulated figure, but not in every round the cells were measured in",
    )


class BandFigure(_Result):
    """A simulated figure near capacity and the band the cells it rests on spread over."""

    simulated: float
    low: float
    high: float | None = Field(description="None: unbounded (the window may saturate)")

    def contains(self, value: float) -> bool:
        return self.low <= value and (self.high is None or value <= self.high)


class CapacityBand(_Result):
    """A window near an operation's capacity: its figures as bands (``planner.sim.model.saturation``)."""

    operation: str
    offered_per_s: float
    capacity_low_per_s: float
    capacity_per_s: float = Field(description="the median round's capacity")
    capacity_high_per_s: float
    may_saturate: bool = Field(description="the offered rate reaches the slowest round's capacity")
    rests_on: str
    figures: dict[str, BandFigure] = Field(description="by name: ttfb_p99_s, latency_p50_s, latency_p99_s")


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
    billed_requests: dict[str, Estimate] = Field(
        description="requests billed in the window: every attempt, retries included, less the error answers the"
        " provider does not bill (``error_billing``)"
    )
    scale_to_month: float
    scaled_billed_requests: dict[str, int]
    scaling: str = Field(description="how the window was scaled to the month, in words")
    error_billing: str = Field(
        "", description="which error answers the billed requests count, and the words the rule was read from"
    )
    slo: list[SLOVerdict]
    time_series: TimeSeries
    unfinished_requests: Estimate = Field(description="requests still open when the drain time ran out")
    throttled: Estimate = Field(
        default_factory=lambda: Estimate(mean=0.0),
        description="throttled answers (503 SlowDown, 429) in the window, every attempt and operation, with the 95 %"
        " t interval over the replications' own sums",
    )
    load_extrapolated: list[str] = Field(
        default_factory=list,
        description="billed operations whose latency at this load was extrapolated past the last open-loop "
        "cell's load (the model's notes give the cells): their latency figures are extrapolated, not measured",
    )
    near_capacity: CapacityBand | None = Field(
        None, description="GET figures as bands when the window is near a measured knee (None: not near one)"
    )
    simulated_s: float | None = Field(
        None,
        description="a long steady window simulated in part: the stretch from its start that ran (warm-up included);"
        " its counts are scaled to the window, its percentiles, means, rates and time series are the stretch's"
        " (None: the whole window ran)",
    )

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
    month_billed_requests: dict[str, int] = Field(
        description="billed requests a month, retries included, error answers as the price table bills them"
    )
    month_billed_requests_ci95: dict[str, Estimate] = Field(
        default_factory=dict,
        description="billed requests a month as the mean window's replications spread them: the window's 95 % t"
        " interval scaled as month_billed_requests is (no half-width with one replication)",
    )
    month_scaling: str
    slo: list[TargetVerdict] = Field(
        description="the workload's targets, judged in the peak window on the evidence of what they rest on"
    )
    restore_first: bool = Field(
        False, description="an archive class: no object is read before a restore, so no GET figure applies"
    )
    evidence: dict[str, Evidence] = Field(
        default_factory=dict,
        description="how each simulated figure is backed, by OPERATION.figure (ttfb, tail, throughput)",
    )
    assumptions: list[str] = Field(description="what the adapters derived or assumed, with sources")

    @property
    def slo_met(self) -> bool:
        """Every target met on evidence (an unverified target is not met)."""
        return all(verdict.verdict == "met" for verdict in self.slo)


_SIMULATED_TARGETS: dict[str, tuple[str, str | None]] = {
    "GET p99 TTFB (s)": ("p99 TTFB", None),
    "GET throughput (bytes/s)": ("read throughput", "read"),
    "PUT throughput (bytes/s)": ("write throughput", "write"),
}


def figure_evidence(model: ProviderModel, mean_bytes: float, extrapolated: Collection[str] = ()) -> dict[str, Evidence]:
    """How each simulated figure is backed, by ``OPERATION.figure``: a simulation is at best derived
    from its inputs, and no better than the weakest of them; an operation in ``extrapolated``
    (``SimulationResult.load_extrapolated``) ran past the loads its open-loop cells measured."""
    size = max(1, round(mean_bytes))
    found: dict[str, Evidence] = {}
    for operation, key in (("GET", "get"), ("PUT", "put"), ("HEAD", "head"), ("LIST", "list")):
        found[f"{operation}.ttfb"] = weakest("derived", model.evidence_of(f"latency.{key}"))
        if key in extrapolated:
            found[f"{operation}.ttfb"] = weakest(found[f"{operation}.ttfb"], "extrapolated")
        found[f"{operation}.tail"] = weakest(found[f"{operation}.ttfb"], model.evidence_of("latency.tail"))
    found["GET.throughput"] = weakest("derived", model.stream_evidence("read", size))
    found["PUT.throughput"] = weakest("derived", model.stream_evidence("write", size))
    return found


def demonstrated_bits_per_s(summary: ProfileSummary) -> dict[str, float | None]:
    """The highest read and write rates a profile shows (its ceilings, exact or demonstrated), bits/s."""
    return {
        direction: None if ceiling is None else ceiling * 8
        for direction, ceiling in (
            ("read", summary.read_ceiling_bytes_per_s),
            ("write", summary.write_ceiling_bytes_per_s),
        )
    }


def judge_simulated(
    slo: list[SLOVerdict],
    model: ProviderModel,
    *,
    mean_bytes: float,
    demonstrated_bits_per_s: dict[str, float | None],
    judged_on: str,
    extrapolated: Collection[str] = (),
) -> list[TargetVerdict]:
    """The simulation's verdicts on the workload's targets, each on the evidence of what it rests on.

    A simulated figure is only as good as its inputs: a TTFB p99 from a latency taken as constant
    (no published spread) or a throughput from a stream left unbounded is assumed, and a rate above
    what the profile demonstrates is extrapolated; either leaves the target unverified, met or not.
    A confidence interval that straddles the target does not decide it either.
    """
    evidence_by = figure_evidence(model, mean_bytes, extrapolated)
    verdicts = []
    for verdict in slo:
        if verdict.target not in _SIMULATED_TARGETS:
            continue
        target, direction = _SIMULATED_TARGETS[verdict.target]
        achieved = verdict.achieved
        if direction is None:
            evidence = evidence_by["GET.tail"]

            def text(value: float) -> str:
                return format_duration(value)

            scale = 1.0
        else:
            evidence = evidence_by["GET.throughput" if direction == "read" else "PUT.throughput"]
            shown = demonstrated_bits_per_s.get(direction)
            if is_backed(evidence) and (shown is None or achieved.mean * 8 > shown * 1.0001):
                evidence = "extrapolated"

            def text(value: float) -> str:
                return format_rate(value)

            scale = 8.0
        if not math.isfinite(achieved.mean):
            figure_text = None
        elif achieved.ci95_half_width and achieved.ci95_half_width > 1e-3 * abs(achieved.mean):
            figure_text = f"{text(achieved.mean * scale)} ± {text(achieved.ci95_half_width * scale)}"
        else:
            figure_text = text(achieved.mean * scale)
        judged = judge_target(
            target,
            wanted=verdict.threshold * scale,
            wanted_text=text(verdict.threshold * scale),
            figure=achieved.mean * scale if figure_text else None,
            figure_text=figure_text,
            evidence=evidence,
            higher_is_better=direction is not None,
            judged_on=judged_on,
            why_weak=_weakness(target, evidence),
        )
        risk = verdict.at_risk
        if judged.verdict == "met" and risk is not None:
            high = None if risk.high is None else risk.high * scale
            judged = at_risk(judged, risk.low * scale, high, risk.band, risk.rests_on)
        elif judged.verdict != "unverified" and not verdict.certain:
            judged = judged.model_copy(
                update={
                    "verdict": "unverified",
                    "reason": f"{judged.reason}, but its 95% interval straddles the target: simulate longer",
                }
            )
        verdicts.append(judged)
    return verdicts


def _weakness(target: str, evidence: Evidence) -> str:
    if evidence == "extrapolated":
        if target == "p99 TTFB":  # the tail's evidence: its p99 lies past the percentiles the profile gives
            return "the profile's latency percentiles stop below the p99, so the simulated p99 extends their spread"
        return "it is above any rate the profile demonstrates"
    if evidence != "assumed":
        return ""
    if target == "p99 TTFB":
        return "the profile gives no latency spread, so the simulated latency is a constant, not a p99"
    return "the profile has no per-stream rate for it, so the simulation left each stream unbounded"
