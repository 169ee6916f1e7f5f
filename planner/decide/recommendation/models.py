"""What a recommendation says: each option ranked with its bill, projection, performance estimate and
verdicts, the choice and its reasons, the points where the choice would change, the egress curves a plot
draws and the profile each provider was judged on: everything a presenter shows, so none computes again."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from planner.costing.bills import CostProjection
from planner.evidence import Evidence, Sentence, TargetVerdict
from planner.measure.profile import Profile
from planner.pricing.breakdown import CostBreakdown
from planner.pricing.primitives import Money
from planner.workload import Workload


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class PerformanceEstimate(_Model):
    """What the workload should see on an option, and on what evidence."""

    source: str = Field(description="the profile (or simulation) the figures rest on")
    p99_ttfb_s: float | None = None
    ttfb_is_floor: bool = Field(False, description="only a published floor is known, not a p99")
    read_throughput_bits_per_s: float | None = Field(None, description="achievable aggregate read throughput")
    read_bound: str | None = Field(None, description="what limits the read throughput")
    hot_object_limit: int | None = None
    hot_object_behaviour: str | None = None
    throttle_rate: float | None = Field(None, description="share of request attempts throttled (simulation)")
    simulated_p99_ttfb_s: float | None = Field(None, description="GET p99 TTFB in the simulated peak window")
    simulated_read_bits_per_s: float | None = Field(None, description="GET throughput in the simulated peak window")
    p99_ttfb_evidence: Evidence | None = Field(None, description="how p99_ttfb_s is backed")
    read_throughput_evidence: Evidence | None = Field(None, description="how read_throughput_bits_per_s is backed")
    demonstrated_read_bits_per_s: float | None = Field(None, description="the highest read rate the profile shows")
    write_throughput_bits_per_s: float | None = Field(None, description="achievable aggregate write throughput")
    write_throughput_evidence: Evidence | None = Field(None, description="how write_throughput_bits_per_s is backed")
    write_bound: str | None = Field(None, description="what limits the write throughput")
    simulated_p99_ttfb_evidence: Evidence | None = None
    simulated_read_evidence: Evidence | None = None
    simulation: str | None = Field(None, description="what was simulated, on which profile")


RejectionKind = Literal["target", "hot-object", "failed-requests", "policy", "unpriceable", "redundancy", "object-size"]


class Rejection(_Model):
    """One reason an option is rejected, as data: which kind of rule it breaks and what it is about
    (the performance target it misses, the provider policy it breaks); ``statement`` says it for people,
    and nothing is decided from its words."""

    kind: RejectionKind = Field(
        description="target: a performance target missed; hot-object: more concurrent reads of one object than "
        "the provider serves; failed-requests: requests that fail after every retry in the simulated peak; "
        "policy: a provider policy broken; unpriceable: no bill could be made; redundancy: the class keeps fewer "
        "copies than constraints.redundancy needs; object-size: the workload's objects are larger than the largest "
        "the provider stores"
    )
    target: str | None = Field(None, description="the performance target missed (kind target)")
    policy: Literal["free-egress"] | None = Field(None, description="the provider policy broken (kind policy)")
    statement: str


OptionStatus = Literal["ok", "unverified", "rejected"]
STATUS_ORDER: tuple[OptionStatus, ...] = ("ok", "unverified", "rejected")


class RankedOption(_Model):
    rank: int
    provider: str
    storage_class: str
    region: str | None = Field(None, description="the region priced, when the workload names regions for it")
    monthly_cost_usd: Money
    horizon_cost_usd: Money
    feasible: bool = Field(description="no target missed and no policy broken (targets may still be unverified)")
    status: OptionStatus = Field(
        "ok",
        description="ok: every target met on evidence; unverified: none missed, some without evidence; "
        "rejected: a target missed or a policy broken",
    )
    chosen: bool = False
    violations: list[str] = Field(default_factory=list, description="why it is rejected: each rejection's statement")
    rejections: list[Rejection] = Field(default_factory=list, description="why it is rejected, as data")
    unverified: list[str] = Field(default_factory=list, description="targets no backed figure decides, and why")
    verdicts: list[TargetVerdict] = Field(default_factory=list, description="one per performance target")
    warnings: list[str] = Field(default_factory=list)
    notes: list[Sentence] = Field(
        default_factory=list,
        description="what bears on the answer beside the bill: its tables' terms (price table notes, egress policy,"
        " the CDN's terms), a single-zone class's warning, a redundancy the table does not state",
    )
    price_status: str = Field(
        "verified-primary", description="the weakest sourcing of the prices its bill rests on (see each line item)"
    )
    performance: PerformanceEstimate
    cost: CostBreakdown
    projection: CostProjection | None = Field(
        None,
        exclude=True,
        repr=False,
        description="the bill of every month of the horizon (month one is ``cost``); None when unpriceable. "
        "Held for presenters, left out of JSON (its size grows with the horizon)",
    )
    cdn: str | None = Field(None, description="the CDN in front, when recommend compares CDNs (--cdn)")

    @model_validator(mode="before")
    @classmethod
    def _violations_from_rejections(cls, data: Any) -> Any:
        """``violations`` are the rejections' statements: given the rejections, they follow from them."""
        if isinstance(data, dict) and "violations" not in data and data.get("rejections"):
            statements = [r.statement if isinstance(r, Rejection) else r["statement"] for r in data["rejections"]]
            return {**data, "violations": statements}
        return data

    @property
    def label(self) -> str:
        """provider, or provider/region when the workload ranks the provider's regions; "+ cdn" after it
        when recommend compares CDNs."""
        return option_label(self.provider, self.region, self.cdn)

    @model_serializer(mode="wrap")
    def _cdn_when_compared(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_unset_cdn(handler(self))


class BreakEven(_Model):
    dimension: Literal["egress", "reads"]
    kind: Literal["price", "policy"] = Field(
        "price", description="price: the bills cross; policy: a free-egress cap ends an option there"
    )
    option: str = Field(description="provider:class of the recommendation")
    other: str
    at: float = Field(description="bytes of egress a month, or GET requests a month, where the costs cross")
    ratio_to_stored: float | None = None
    statement: str
    sentence: Sentence | None = Field(None, description="the statement with the numbers it states")


class Choice(_Model):
    provider: str
    storage_class: str
    region: str | None = None
    reasons: list[str]
    sentences: list[Sentence] = Field(
        default_factory=list, description="the comparative reasons (lowest, saves, cheaper than) with their numbers"
    )
    cdn: str | None = None

    @property
    def label(self) -> str:
        return option_label(self.provider, self.region, self.cdn)

    @model_serializer(mode="wrap")
    def _cdn_when_compared(self, handler: SerializerFunctionWrapHandler) -> Any:
        return _without_unset_cdn(handler(self))


def _without_unset_cdn(data: Any) -> Any:
    """A serialised option or choice without ``cdn`` unless recommend compared CDNs: JSON as it always was."""
    if isinstance(data, dict) and "cdn" in data and data["cdn"] is None:
        del data["cdn"]
    return data


def option_label(provider: str, region: str | None, cdn: str | None) -> str:
    where = f"{provider}/{region}" if region else provider
    return f"{where} + {cdn}" if cdn else where


class JudgedProfile(_Model):
    """The profile a provider's performance was judged on (and its simulation built from)."""

    provider: str
    label: str = Field(description="how the judgement names its source")
    path: str | None = Field(None, description="the measured profile's file; None: the shipped reference profile")
    kind: str = Field(description="the profile's source kind (reference, measured, ...)")
    profile: Profile | None = Field(
        None, exclude=True, repr=False, description="the profile itself, for presenters; left out of JSON"
    )


class EgressCurve(_Model):
    """One option's month-one cost at each egress volume of ``EgressCurves.egress_bytes``."""

    rank: int = Field(description="the option's rank in the ranking")
    provider: str
    storage_class: str
    monthly_cost_usd: list[float]
    free_egress_cap_bytes: float | None = Field(
        None, description="monthly egress above which the provider's free-egress policy rejects the option"
    )


class EgressCurves(_Model):
    """Monthly cost against egress, everything else as in the workload: the chosen (or first) option and
    the best option of every other provider, priced exactly at each volume, so the curves cross where the
    break-even points say."""

    egress_bytes: list[float] = Field(description="the egress volumes (bytes a month), ascending")
    curves: list[EgressCurve]


class Recommendation(_Model):
    workload: Workload
    as_of: dt.date
    months: int
    ranking: list[RankedOption]
    recommendation: Choice | None = Field(description="the cheapest option that meets every target on evidence")
    provisional: Choice | None = Field(
        None,
        description="when no option meets every target on evidence: the cheapest whose targets are unverified "
        "(none missed); not a recommendation until they are measured",
    )
    break_even: list[BreakEven] = Field(default_factory=list)
    failed_targets: list[str] = Field(
        default_factory=list,
        description="when nothing is recommended: the targets every option misses, then those no option meets "
        "on evidence",
    )
    profiles: list[JudgedProfile] = Field(
        default_factory=list, description="the profile each provider was judged on (a provider with none is absent)"
    )
    egress_curves: EgressCurves | None = Field(None, description="monthly cost against egress, for plots")
    left_out: list[str] = Field(
        default_factory=list,
        description="options left out because their bill rests on an unverified price (verified_only), and which",
    )
    billing: str | None = Field(
        None,
        description="how the months were billed when not as 30-day months with restored copies kept a day"
        " (calendar months, the days restored copies are kept)",
    )
    warnings: list[Sentence] = Field(
        default_factory=list,
        description="what bears on every option: a peak that cannot pass the client's link, a lifecycle policy"
        " the bills leave out",
    )
    sentences: list[Sentence] = Field(
        default_factory=list,
        description="every comparative and verdict sentence the answer prints, with the numbers it states: the"
        " choice's reasons, the break-even points, each option's verdicts and notes, the warnings",
    )

    def profile_of(self, provider: str) -> JudgedProfile | None:
        """The profile ``provider`` was judged on, or None."""
        return next((p for p in self.profiles if p.provider == provider), None)

    def rejected_whatever_the_bill(self) -> dict[str, str]:
        """``provider:class`` of each option rejected on a ground no bill decides (a missed target, a hot
        object, failed requests; not a policy a bill breaks, not an unpriceable bill) in every region it
        was ranked in, with the first such reason: what ``--samples`` must never call the cheapest."""
        reasons: dict[str, str | None] = {}
        for option in self.ranking:
            label = f"{option.provider}:{option.storage_class}"
            why = next((r.statement for r in option.rejections if r.kind not in ("policy", "unpriceable")), None)
            reasons[label] = why if reasons.get(label, why) is not None else None
        return {label: why for label, why in reasons.items() if why is not None}
