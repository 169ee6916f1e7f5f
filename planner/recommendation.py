"""Rank every allowed provider and storage class for a workload, and say why.

Cost comes from the pricing engine month by month over the horizon; feasibility from the
provider's performance profile (the shipped reference profiles unless the caller gives its
own). Break-even points are solved, not scanned: a bill is piecewise linear in egress (or in
reads) between the breakpoints its price tables define, so each crossing is found exactly on
the segment where the cost difference changes sign.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from measure.profile import Profile, ProfileSummary
from planner.costing import CostProjection, egress_cap_bytes, price_table, project_costs
from planner.errors import InputError, PlannerError, PricingError
from planner.evidence import Evidence, TargetVerdict, combine, is_backed, judge_target, marked, weakest
from planner.units import format_bytes, format_duration, format_rate
from planner.workload import Workload
from pricing.engine import bill
from pricing.models import CostBreakdown, Limits, Money, PriceTable

if TYPE_CHECKING:
    from planner.sim.provider import ProviderModel

ZERO = Decimal(0)


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
    violations: list[str] = Field(default_factory=list)
    unverified: list[str] = Field(default_factory=list, description="targets no backed figure decides, and why")
    verdicts: list[TargetVerdict] = Field(default_factory=list, description="one per performance target")
    warnings: list[str] = Field(default_factory=list)
    price_status: str = Field(
        "verified-primary", description="the weakest sourcing of the prices its bill rests on (see each line item)"
    )
    performance: PerformanceEstimate
    cost: CostBreakdown

    @property
    def label(self) -> str:
        """provider, or provider/region when the workload ranks the provider's regions."""
        return f"{self.provider}/{self.region}" if self.region else self.provider


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


class Choice(_Model):
    provider: str
    storage_class: str
    region: str | None = None
    reasons: list[str]

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.region}" if self.region else self.provider


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


# ----------------------------------------------------------------------------- performance


def stream_rate(points: list[tuple[int, float]], size: float) -> float | None:
    """Per-stream GET bytes/s at an object size from a profile's (size, bytes/s) points.

    The simulator's ``BandwidthCurve`` interpolates (linear in log(size), flat above the largest
    size); below the smallest measured size a request takes that size's time, so the rate falls
    in proportion to the size.
    """
    if not points or size <= 0:
        return None
    from planner.sim.provider import BandwidthCurve, BandwidthPoint

    curve = BandwidthCurve(points=[BandwidthPoint(size_bytes=s, bits_per_s=v * 8) for s, v in points])
    rate = curve.bits_per_s(size) / 8
    smallest = points[0][0]
    return rate * size / smallest if size < smallest else rate


RESTORE_FIRST = "a restore first (minutes to hours), then a copy in a readable class"


def restore_verdicts(workload: Workload, storage_class: str) -> list[TargetVerdict]:
    """An archive class serves no read before a restore: its TTFB and read targets are missed, on the
    provider's own documentation (restores take minutes to hours)."""
    targets = workload.performance
    reason = f"{storage_class} objects must be restored (minutes to hours) before they can be read"
    found = []
    for target, wanted in (("p99 TTFB", targets.p99_ttfb), ("read throughput", targets.read_throughput)):
        if wanted is None:
            continue
        text = format_duration(wanted) if target == "p99 TTFB" else format_rate(wanted)
        found.append(
            TargetVerdict(
                target=target,
                wanted=text,
                achieved="restore first",
                evidence="published",
                verdict="missed",
                judged_on="the storage class",
                reason=f"{reason}: no TTFB or read-throughput target can be met",
            )
        )
    return found


def _throughput(
    workload: Workload,
    direction: Literal["read", "write"],
    summary: ProfileSummary,
    model: ProviderModel | None,
) -> tuple[dict[str, float], float, str, Evidence, float | None]:
    """Aggregate throughput one way: (hard bounds, achievable bits/s, what bounds it, its evidence, demonstrated).

    Hard bounds (the client link, a provider ceiling the profile states exactly) can reject an
    option. The achievable figure is the lowest of them and of streams x per-stream rate; above
    what the profile demonstrates it is extrapolated, and with no per-stream figure it is assumed.
    """
    client = workload.client
    read = direction == "read"
    ceiling = summary.read_ceiling_bytes_per_s if read else summary.write_ceiling_bytes_per_s
    ceiling_name = "read_ceiling_bytes_per_s" if read else "write_ceiling_bytes_per_s"
    hard: dict[str, float] = {"client link": client.link}
    if ceiling is not None and summary.is_exact(ceiling_name):
        hard[f"provider {direction} ceiling"] = ceiling * 8
    demonstrated = ceiling * 8 if ceiling is not None else None
    estimates = dict(hard)
    mean = workload.storage.mean_object_bytes
    points = summary.get_stream_bytes_per_s if read else summary.put_stream_bytes_per_s
    stream = stream_rate(points, mean)
    if stream is not None:
        streams = client.concurrency * (client.read_streams if read and mean > client.range_size else 1)
        estimates[f"{streams} streams at {format_rate(stream * 8)} each"] = stream * 8 * streams
    bound_name = min(estimates, key=lambda k: estimates[k])
    achievable = estimates[bound_name]
    evidence: Evidence = "assumed"
    if stream is not None and model is not None:
        evidence = model.stream_evidence(direction, round(mean))
    if is_backed(evidence) and (demonstrated is None or achievable > demonstrated * 1.0001):
        evidence = "extrapolated"  # more than any figure in the profile shows
    return hard, achievable, bound_name, evidence, demonstrated


def judge_performance(
    workload: Workload,
    storage_class: str,
    summary: ProfileSummary | None,
    source: str,
    model: ProviderModel | None = None,
    *,
    restore_required: bool = False,
) -> tuple[PerformanceEstimate, list[str], list[str], list[TargetVerdict]]:
    """Analytic feasibility from a profile: (estimate, violations, warnings, a verdict per target).

    ``model`` (the provider model built from the same profile) says how each figure is backed;
    without it every figure is taken as assumed. ``restore_required`` (the class's property in the
    price table): objects are read only after a restore, so the profile's figures do not apply.
    """
    targets = workload.performance
    violations: list[str] = []
    warnings: list[str] = []
    verdicts: list[TargetVerdict] = []
    archive = restore_required
    if archive:
        verdicts += restore_verdicts(workload, storage_class)
        if not verdicts and workload.reads_per_month():
            warnings.append(
                f"{storage_class} objects must be restored (minutes to hours) before they can be read; "
                "the restore fees are in the bill"
            )
    if summary is None:
        summary = ProfileSummary(provider=None, source_kind="none")
        source = "client link only (no profile)"

    def evidence_of(key: str) -> Evidence:
        return model.evidence_of(key) if model is not None else "assumed"

    p99 = summary.ttfb_p99_s
    floor = p99 is None and summary.ttfb_p50_s is not None
    ttfb = p99 if p99 is not None else summary.ttfb_p50_s
    ttfb_evidence: Evidence | None = None
    if ttfb is not None:
        ttfb_evidence = (
            evidence_of("latency.get") if floor else weakest(evidence_of("latency.get"), evidence_of("latency.tail"))
        )
    if targets.p99_ttfb is not None and not archive:
        verdicts.append(
            judge_target(
                "p99 TTFB",
                wanted=targets.p99_ttfb,
                wanted_text=format_duration(targets.p99_ttfb),
                figure=ttfb,
                figure_text=None if ttfb is None else format_duration(ttfb),
                evidence=ttfb_evidence or "assumed",
                higher_is_better=False,
                bound="at least" if floor else "estimate",
                judged_on="profile",
                why_weak="" if ttfb is not None else "the profile has none; measure it",
            )
        )

    read_hard, achievable, bound_name, read_evidence, demonstrated = _throughput(workload, "read", summary, model)
    write_hard, write_achievable, write_bound, write_throughput_evidence, write_shown = _throughput(
        workload, "write", summary, model
    )
    directions: tuple[Literal["read", "write"], ...] = ("read", "write")
    for direction, wanted, hard, figure, bound, evidence, shown in zip(
        directions,
        (targets.read_throughput, targets.write_throughput),
        (read_hard, write_hard),
        (achievable, write_achievable),
        (bound_name, write_bound),
        (read_evidence, write_throughput_evidence),
        (demonstrated, write_shown),
        strict=True,
    ):
        target = f"{direction} throughput"
        if wanted is None or (archive and direction == "read"):
            continue
        hard_name = min(hard, key=lambda k: hard[k])
        if hard[hard_name] < wanted:  # an upper bound below the target: a miss on evidence
            verdicts.append(
                judge_target(
                    target,
                    wanted=wanted,
                    wanted_text=format_rate(wanted),
                    figure=hard[hard_name],
                    figure_text=format_rate(hard[hard_name]),
                    evidence="measured" if hard_name == "client link" else evidence_of(f"ceiling.{direction}"),
                    higher_is_better=True,
                    bound="at most",
                    judged_on="the client link the workload states" if hard_name == "client link" else hard_name,
                )
            )
            continue
        demonstrated_text = "the profile demonstrates " + (format_rate(shown) if shown else "none")
        stream_backed = model is not None and is_backed(
            model.stream_evidence(direction, round(workload.storage.mean_object_bytes))
        )
        if evidence == "extrapolated" and stream_backed and shown is not None and min(figure, shown) >= wanted:
            # the estimate goes beyond the profile, but what the profile does show already meets the target
            verdicts.append(
                judge_target(
                    target,
                    wanted=wanted,
                    wanted_text=format_rate(wanted),
                    figure=min(figure, shown),
                    figure_text=format_rate(min(figure, shown)),
                    evidence=weakest(evidence_of(f"stream.{direction}"), "derived"),
                    higher_is_better=True,
                    bound="at least",
                    judged_on=f"{demonstrated_text}, and {bound} allows more",
                )
            )
            continue
        verdicts.append(
            judge_target(
                target,
                wanted=wanted,
                wanted_text=format_rate(wanted),
                figure=figure,
                figure_text=format_rate(figure),
                evidence=evidence,
                higher_is_better=True,
                judged_on=f"bound by {bound}",
                why_weak=(
                    f"{demonstrated_text} and no per-stream rate"
                    if evidence == "assumed"
                    else f"{demonstrated_text}; measure it"
                ),
            )
        )

    hot = workload.traffic.hot_objects
    if hot is not None and summary.hot_object_limit is not None:
        per_key = math.ceil(hot.peak_concurrency / hot.replicas)
        if per_key > summary.hot_object_limit:
            keys = math.ceil(hot.peak_concurrency / summary.hot_object_limit)
            if summary.hot_object_behaviour == "reject":
                violations.append(
                    f"{per_key} concurrent reads of one hot object exceed the {summary.hot_object_limit} this "
                    f"provider serves before answering {summary.hot_object_error or 'errors'}; replicate the hot "
                    f"object under {keys} keys"
                )
            else:
                warnings.append(
                    f"{per_key} concurrent reads of one hot object exceed {summary.hot_object_limit}: latency "
                    "degrades past it"
                )
    peak_get = workload.peak_read_rate_per_s()
    measured = summary.ops_per_s.get("get")
    if measured and peak_get > measured:
        warnings.append(
            f"peak GET rate {peak_get:,.0f}/s is above the highest rate in the profile ({measured:,.0f}/s); "
            "beyond it is unmeasured"
        )
    estimate = PerformanceEstimate(
        source=source,
        p99_ttfb_s=None if archive else ttfb,
        p99_ttfb_evidence=None if archive else ttfb_evidence,
        ttfb_is_floor=floor,
        read_throughput_bits_per_s=None if archive else achievable,
        read_throughput_evidence=None if archive else read_evidence,
        read_bound=RESTORE_FIRST if archive else bound_name,
        demonstrated_read_bits_per_s=demonstrated,
        write_throughput_bits_per_s=write_achievable,
        write_throughput_evidence=write_throughput_evidence,
        write_bound=write_bound,
        hot_object_limit=summary.hot_object_limit,
        hot_object_behaviour=summary.hot_object_behaviour,
    )
    return estimate, violations, warnings, verdicts


def prefix_warnings(workload: Workload, limits: Limits) -> list[str]:
    """What the provider's documented per-prefix request rates ask of the workload's key layout."""
    from planner.sim.workload_adapter import operations_label, prefixes_needed

    stated = workload.storage.prefixes
    found: list[str] = []
    for need in prefixes_needed(workload, limits):
        counted = operations_label(need.rate).upper()
        peak = f"the peak's {need.peak_per_s:,.0f} {counted} requests/s"
        if stated is None and need.prefixes > 1:
            found.append(
                f"{peak} need keys over at least {need.prefixes:,} prefixes ({need.rate.per_s:,g}/s a prefix); "
                "storage.prefixes is not stated, so that many are assumed"
            )
        elif stated is not None and need.peak_per_s > need.rate.per_s * stated:
            found.append(
                f"{peak} over {stated:,} prefix(es) exceed the documented {need.rate.per_s:,g}/s a prefix: expect "
                f"{need.rate.error} until the provider partitions them; spread keys over at least {need.prefixes:,}"
            )
    return found


def simulate_option(
    workload: Workload,
    provider: str,
    profile: Profile | None,
    *,
    limits: Limits,
    duration_s: float,
    seed: int,
) -> tuple[PerformanceEstimate | None, list[str], list[str], list[TargetVerdict]]:
    """Feasibility from the simulator: the peak window's p99 TTFB, GET throughput and throttling.

    ``limits`` (the price table's) shape multipart uploads and give the documented request rates.
    Each target the simulation judges comes back with the evidence of what the figure rests on:
    a backed miss rejects the option like a published floor does; a figure resting on an assumed
    or extrapolated input leaves the target unverified.
    """
    from measure.reference import load_reference
    from planner.sim import adapt_workload, provider_model_from_profile, simulate_spec
    from planner.sim.result import demonstrated_bits_per_s, figure_evidence, judge_simulated

    # Feasibility needs the peak only: the mean window bills the month, which the cost engine does.
    try:
        chosen = profile if profile is not None else load_reference(provider)
        model, _ = provider_model_from_profile(chosen, limits)
        adapted = adapt_workload(workload, window="peak", limits=limits)
        peak = simulate_spec(adapted.spec, model, duration_s, seed, replications=2)
    except PlannerError as error:
        return None, [], [f"not simulated ({error}); judged from the profile alone"], []
    profile_label = f"{chosen.source.kind} profile of {provider}"
    gets = [op for op in peak.operations.values() if op.operation.lower() == "get"]
    p99 = gets[0].ttfb_p99_s.mean if gets and gets[0].requests.mean else None
    read_bits = sum(op.throughput_bytes_per_s.mean for op in gets) * 8
    attempts = sum(op.requests.mean + op.retries.mean for op in peak.operations.values())
    throttled = sum(
        e.mean for op in peak.operations.values() for kind, e in op.errors.items() if kind.startswith(("503", "429"))
    )
    rate = throttled / attempts if attempts else 0.0
    violations: list[str] = []
    warnings: list[str] = []
    failed = sum(op.failed.mean for op in peak.operations.values())
    if failed and attempts:
        kinds = sorted({kind for op in peak.operations.values() for kind in op.errors})
        violations.append(
            f"simulated peak: {failed / attempts:.1%} of requests fail after every retry ({', '.join(kinds)})"
        )
    elif throttled:
        kinds = sorted({kind for op in peak.operations.values() for kind in op.errors})
        warnings.append(
            f"simulated peak: {rate:.1%} of request attempts throttled ({', '.join(kinds)}), retried and billed"
        )
    if gets and not gets[0].requests.mean:
        warnings.append("simulated peak: no GET completed inside the window (the client is saturated)")
    demonstrated = demonstrated_bits_per_s(chosen.summary())
    mean_bytes = workload.storage.mean_object_bytes
    # Simulated times include waiting for the client's own connections and link: a miss there is the
    # workload's client as much as the provider, and says so in its reason.
    verdicts = judge_simulated(
        peak.slo,
        model,
        mean_bytes=mean_bytes,
        demonstrated_bits_per_s=demonstrated,
        judged_on="simulated peak, client queueing included",
    )
    evidence = figure_evidence(model, mean_bytes)
    read_evidence = evidence["GET.throughput"]
    if is_backed(read_evidence) and (demonstrated["read"] is None or read_bits > demonstrated["read"] * 1.0001):
        read_evidence = "extrapolated"
    label = f"simulation of the peak hour's rate ({peak.window_s:g} s x {peak.replications}) on the {profile_label}"
    estimate = PerformanceEstimate(
        source=label,
        p99_ttfb_s=p99,
        read_throughput_bits_per_s=read_bits or None,
        read_bound="the workload's own peak demand (simulated)",
        throttle_rate=rate,
        simulated_p99_ttfb_evidence=evidence["GET.tail"] if p99 is not None else None,
        simulated_read_evidence=read_evidence if read_bits else None,
    )
    return estimate, violations, warnings, verdicts


def _load_profiles(providers: list[str], profiles_dir: Path | None) -> dict[str, tuple[Profile, str]]:
    from measure.reference import load_profile, load_reference, reference_providers

    found: dict[str, tuple[Profile, str]] = {}
    shipped = set(reference_providers())
    for provider in providers:
        if profiles_dir is not None and (profiles_dir / f"{provider}.json").is_file():
            path = profiles_dir / f"{provider}.json"
            profile = load_profile(path)
            if profile.provider is not None and profile.provider != provider:
                raise InputError(
                    f"the profile is of {profile.provider}, not {provider}", source=str(path), field="provider"
                )
            found[provider] = (profile, f"measured profile {path}")
        elif provider in shipped:
            found[provider] = (load_reference(provider), f"reference profile {provider} (published benchmarks)")
    return found


def reference_summaries(
    providers: list[str], profiles_dir: Path | None = None
) -> dict[str, tuple[ProfileSummary, str]]:
    """Profile summaries by provider: the user's profiles (``<provider>.json`` in a folder) or the shipped ones."""
    return {p: (profile.summary(), label) for p, (profile, label) in _load_profiles(providers, profiles_dir).items()}


# ----------------------------------------------------------------------------- break-even


def _egress_breakpoints(table: PriceTable, workload: Workload) -> list[float]:
    """Egress volumes (bytes) where this table's marginal egress price can change."""
    rules = table.egress
    unit = rules.internet.unit_bytes
    stored_units = workload.stored_bytes() / unit
    free = float(rules.internet.free_per_month + rules.free_per_day * table.billing.month_days)
    if rules.free_multiple_of_storage:
        free += float(rules.free_multiple_of_storage) * stored_units
    points = [free * unit]
    points += [(free + float(t.up_to)) * unit for t in rules.internet.tiers if t.up_to is not None]
    return points


def _read_breakpoints(table: PriceTable, storage_class: str) -> list[float]:
    """GET counts where this class's request allowances run out."""
    days = table.billing.month_days
    return [
        float(rc.free_per_month + rc.free_per_day * days)
        for rc in table.classes[storage_class].requests
        if "get" in rc.operations and (rc.free_per_month or rc.free_per_day)
    ]


def solve_crossing(difference: Callable[[float], Decimal], breakpoints: list[float], upper: float) -> float | None:
    """The smallest x in (0, upper] where a piecewise-linear difference changes sign."""
    xs = sorted({0.0, upper, *[b for b in breakpoints if 0 < b < upper]})
    previous_x, previous = xs[0], difference(xs[0])
    for x in xs[1:]:
        value = difference(x)
        if (previous < 0 < value) or (previous > 0 > value) or (value == 0 and previous != 0):
            # Linear on this segment: the zero lies where the line crosses.
            share = float(previous / (previous - value)) if previous != value else 1.0
            return previous_x + (x - previous_x) * share
        previous_x, previous = x, value
    return None


def _monthly(workload: Workload, table: PriceTable, storage_class: str) -> Decimal:
    """Month one's total with a table already loaded (the solver evaluates it many times)."""
    return bill(table, storage_class, workload.usage_for(storage_class, table.limits)).total_usd


def _unverified_policy(table: PriceTable) -> str:
    """A note for a statement resting on the egress policy when the table marks it unverified (in its
    status, or in the note that cites it)."""
    egress = table.egress
    unverified = (egress.status is not None and egress.status.value == "unverified") or "unverified" in (
        egress.note or ""
    )
    return " (the policy's figure is unverified)" if unverified else ""


def break_even_points(
    workload: Workload,
    chosen: RankedOption,
    others: list[RankedOption],
    as_of: dt.date,
    prices: dict[str, Path],
) -> list[BreakEven]:
    """Where the recommendation stops being cheaper than each provider's best alternative, by egress and reads."""
    results: list[BreakEven] = []
    label = f"{chosen.label}:{chosen.storage_class}"
    stored = workload.stored_bytes()
    chosen_table = price_table(chosen.provider, as_of, prices.get(chosen.provider), chosen.region)
    for other in others:
        other_label = f"{other.label}:{other.storage_class}"
        other_table = price_table(other.provider, as_of, prices.get(other.provider), other.region)

        def egress_diff(egress: float, other: RankedOption = other, other_table: PriceTable = other_table) -> Decimal:
            variant = workload.model_copy(
                update={"traffic": workload.traffic.model_copy(update={"egress": round(egress)})}
            )
            a = _monthly(variant, chosen_table, chosen.storage_class)
            b = _monthly(variant, other_table, other.storage_class)
            return a - b

        current = float(workload.traffic.egress)
        upper = max(current * 10, stored * 10, 10.0**15)
        points = _egress_breakpoints(chosen_table, workload) + _egress_breakpoints(other_table, workload)
        if workload.traffic.reads is None:  # reads follow egress: their allowances are breakpoints too
            mean = workload.storage.mean_object_bytes
            points += [r * mean for r in _read_breakpoints(chosen_table, chosen.storage_class)]
            points += [r * mean for r in _read_breakpoints(other_table, other.storage_class)]

        # Solve above and below today's egress separately: the nearest crossing on each side matters.
        def up(x: float, base: float = current) -> Decimal:
            return egress_diff(base + x)

        def down(x: float, base: float = current) -> Decimal:
            return egress_diff(base - x)

        # A free-egress cap ends an option as surely as a price does: past it the option is rejected.
        caps = {
            name: cap
            for name, cap in (
                (label, egress_cap_bytes(chosen_table, stored)),
                (other_label, egress_cap_bytes(other_table, stored)),
            )
            if cap is not None and current < cap < upper
        }
        limit = min([upper, *caps.values()])
        above = solve_crossing(up, [p - current for p in points], limit - current)
        below = solve_crossing(down, [current - p for p in points], current) if current else None
        for crossing, direction in ((above, "exceeds"), (below, "falls below")):
            if crossing is None:
                continue
            at = current + crossing if direction == "exceeds" else current - crossing
            ratio = at / stored if stored else None
            ratio_text = f" ({ratio:.2f}x stored)" if ratio is not None else ""
            results.append(
                BreakEven(
                    dimension="egress",
                    option=label,
                    other=other_label,
                    at=at,
                    ratio_to_stored=ratio,
                    statement=(
                        f"{label} stays cheaper than {other_label} until monthly egress {direction} "
                        f"{format_bytes(at)}{ratio_text}"
                    ),
                )
            )
        if above is None and caps:
            capped = min(caps, key=lambda name: caps[name])
            at = caps[capped]
            ratio = at / stored
            whose = "its" if capped == label else f"{other_label}'s"
            statement = (
                f"{label} stays cheaper than {other_label} until monthly egress exceeds {format_bytes(at)} "
                f"({ratio:g}x stored), where {whose} free-egress policy ends"
                if capped == label
                else f"{label} is cheaper than {other_label} at every monthly egress up to {format_bytes(at)} "
                f"({ratio:g}x stored), where {whose} free-egress policy ends"
            )
            results.append(
                BreakEven(
                    dimension="egress",
                    kind="policy",
                    option=label,
                    other=other_label,
                    at=at,
                    ratio_to_stored=ratio,
                    statement=statement + _unverified_policy(chosen_table if capped == label else other_table),
                )
            )
        elif above is None and below is None:
            results.append(
                BreakEven(
                    dimension="egress",
                    option=label,
                    other=other_label,
                    at=math.inf,
                    ratio_to_stored=None,
                    statement=(
                        f"{label} is cheaper than {other_label} at every monthly egress up to {format_bytes(upper)}"
                    ),
                )
            )
    policy = chosen_table.egress.fair_use_multiple_of_storage
    if policy is not None and stored:
        limit = float(policy) * stored
        results.append(
            BreakEven(
                dimension="egress",
                kind="policy",
                option=label,
                other="free-egress policy",
                at=limit,
                ratio_to_stored=float(policy),
                statement=(
                    f"{label} egress is free only while it stays at or below {format_bytes(limit)} a month "
                    f"({float(policy):g}x stored); above that the provider may limit or suspend the account"
                    + _unverified_policy(chosen_table)
                ),
            )
        )
    return results


# ----------------------------------------------------------------------------- ranking


def _drivers(cost: CostBreakdown) -> str:
    totals = cost.by_category()
    total = cost.total_usd
    if not total:
        return "costs nothing this month"
    ranked = sorted(((v, k) for k, v in totals.items() if v > 0), reverse=True)[:3]
    return ", ".join(f"{k.replace('_', ' ')} {float(v / total):.0%}" for v, k in ranked)


_PRICE_ORDER = ("verified-primary", "verified-secondary", "unverified")


def _price_status(cost: CostBreakdown) -> str:
    """The weakest sourcing among the prices a bill rests on."""
    statuses = [str(item.price_status.value) for item in cost.line_items]
    return max(statuses, key=_PRICE_ORDER.index) if statuses else "verified-primary"


def _policy_violation(projection: CostProjection, table: PriceTable) -> list[str]:
    """The first month whose bill breaks a provider policy, named with that month's own figures (and
    saying so when the policy's figure is unverified)."""
    for month in projection.months:
        broken = month.cost.policy_breaches
        if broken:
            return [f"month {month.month} ({month.as_of}): {broken[0].statement}{_unverified_policy(table)}"]
    return []


def recommend(
    workload: Workload,
    *,
    as_of: dt.date | None = None,
    profiles_dir: Path | None = None,
    prices: dict[str, Path] | None = None,
    simulate: bool = True,
    sim_duration_s: float = 60.0,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
) -> Recommendation:
    """Every allowed provider and storage class, ranked: options meeting every target on evidence first,
    then those whose targets are unverified, then rejected ones, each group by horizon cost.

    With ``simulate`` (the default) each provider's peak is also simulated against its profile; a
    target is met or missed only on backed figures (``planner.evidence``), else it is unverified.
    ``progress`` hears how many providers have been simulated.
    """
    from planner.sim.profile_adapter import provider_model_from_profile

    day = as_of or dt.date.today()
    prices = prices or {}
    months = workload.constraints.months
    providers = workload.constraints.providers
    for provider in prices:
        if provider not in providers:
            raise InputError(
                f"{provider!r} is not among the providers this workload considers ({', '.join(providers)})",
                source="--prices",
            )
    # Price tables first: a bad override file or an unpriced region fails before any simulation runs.
    tables = {provider: price_table(provider, day, prices.get(provider)) for provider in providers}
    regional: dict[tuple[str, str | None], PriceTable] = {}
    for provider in providers:
        for region in workload.constraints.regions_for(provider):
            try:
                regional[(provider, region)] = price_table(provider, day, prices.get(provider), region)
            except PricingError as error:
                raise InputError(str(error), field=f"constraints.regions.{provider}") from None
    known = {c for table in [*tables.values(), *regional.values()] for c in table.classes}
    unknown = [c for c in workload.constraints.storage_classes or [] if c not in known]
    if unknown:
        raise InputError(
            f"{unknown[0]!r} is not a storage class of any allowed provider (classes: {', '.join(sorted(known))})",
            field="constraints.storage_classes",
        )
    profiles = _load_profiles(providers, profiles_dir)
    summaries = {p: (profile.summary(), label) for p, (profile, label) in profiles.items()}
    models: dict[str, ProviderModel] = {}
    for provider, (loaded, _) in profiles.items():
        with contextlib.suppress(PlannerError):  # no model: every figure is judged as assumed
            models[provider] = provider_model_from_profile(loaded, tables[provider].limits)[0]
    simulated: dict[str, tuple[PerformanceEstimate | None, list[str], list[str], list[TargetVerdict]]] = {}
    if simulate:
        for done, provider in enumerate(providers, start=1):
            profile = profiles.get(provider, (None, ""))[0]
            simulated[provider] = simulate_option(
                workload, provider, profile, limits=tables[provider].limits, duration_s=sim_duration_s, seed=seed
            )
            if progress is not None:
                progress(done)
    options: list[RankedOption] = []
    for (provider, region), table in regional.items():
        layout = prefix_warnings(workload, table.limits)
        classes = [
            c
            for c in table.classes
            if workload.constraints.storage_classes in (None, []) or c in (workload.constraints.storage_classes or [])
        ]
        for storage_class in classes:
            try:
                projection = project_costs(
                    workload,
                    provider,
                    storage_class,
                    months=months,
                    as_of=day,
                    prices=prices.get(provider),
                    region=region,
                )
            except PlannerError as error:  # a class that cannot hold this workload (e.g. vanished in a version)
                options.append(_unpriceable(provider, storage_class, str(error), region))
                continue
            month_one = projection.months[0].cost
            summary, source = summaries.get(provider, (None, "none"))
            restore_required = table.restore_required(storage_class)
            performance, violations, warnings, verdicts = judge_performance(
                workload, storage_class, summary, source, models.get(provider), restore_required=restore_required
            )
            sim_estimate, sim_violations, sim_warnings, sim_verdicts = simulated.get(provider, (None, [], [], []))
            if restore_required:
                # its objects are restored before any read: a simulation of immediate reads does not describe it
                sim_estimate, sim_violations, sim_warnings, sim_verdicts = None, [], [], []
            if sim_estimate is not None:
                performance = performance.model_copy(
                    update={
                        "simulated_p99_ttfb_s": sim_estimate.p99_ttfb_s,
                        "simulated_p99_ttfb_evidence": sim_estimate.simulated_p99_ttfb_evidence,
                        "simulated_read_bits_per_s": sim_estimate.read_throughput_bits_per_s,
                        "simulated_read_evidence": sim_estimate.simulated_read_evidence,
                        "throttle_rate": sim_estimate.throttle_rate,
                        "simulation": sim_estimate.source,
                    }
                )
            combined = [
                found
                for target in dict.fromkeys(v.target for v in verdicts + sim_verdicts)
                if (found := combine([v for v in verdicts + sim_verdicts if v.target == target])) is not None
            ]
            missed = [v.reason for v in combined if v.verdict == "missed"]
            violations = list(
                dict.fromkeys(missed + violations + sim_violations + _policy_violation(projection, table))
            )
            unverified = [v.reason for v in combined if v.verdict == "unverified"]
            warnings = warnings + sim_warnings + layout
            breaches = {b.statement for b in month_one.policy_breaches}  # they are violations, above
            warnings += [w for w in month_one.warnings if w not in breaches]
            status: OptionStatus = "rejected" if violations else ("unverified" if unverified else "ok")
            options.append(
                RankedOption(
                    rank=0,
                    provider=provider,
                    storage_class=storage_class,
                    region=region,
                    monthly_cost_usd=month_one.total_usd,
                    horizon_cost_usd=projection.total_usd,
                    feasible=not violations,
                    status=status,
                    violations=violations,
                    unverified=unverified,
                    verdicts=combined,
                    warnings=warnings,
                    performance=performance,
                    cost=month_one,
                    price_status=_price_status(month_one),
                )
            )
    if not any(o.cost.line_items or o.feasible for o in options):
        raise PlannerError("no provider and storage class could be priced for this workload")
    options.sort(key=lambda o: (STATUS_ORDER.index(o.status), o.horizon_cost_usd, o.monthly_cost_usd))
    best = next((o for o in options if o.status == "ok"), None)
    ranking = [
        o.model_copy(update={"rank": i + 1, "chosen": best is not None and o is best}) for i, o in enumerate(options)
    ]
    if best is None:
        provisional = next((o for o in ranking if o.status == "unverified"), None)
        return Recommendation(
            workload=workload,
            as_of=day,
            months=months,
            ranking=ranking,
            recommendation=None,
            provisional=None
            if provisional is None
            else Choice(
                provider=provisional.provider,
                storage_class=provisional.storage_class,
                region=provisional.region,
                reasons=_reasons(provisional, ranking, _rivals(provisional, ranking), months),
            ),
            failed_targets=_failed_everywhere(ranking),
        )
    chosen = next(o for o in ranking if o.chosen)
    rivals = _rivals(chosen, ranking)
    reasons = _reasons(chosen, ranking, rivals, months)
    feasible_rivals = [r for r in rivals if r.feasible][:3]
    return Recommendation(
        workload=workload,
        as_of=day,
        months=months,
        ranking=ranking,
        recommendation=Choice(
            provider=chosen.provider, storage_class=chosen.storage_class, region=chosen.region, reasons=reasons
        ),
        break_even=break_even_points(workload, chosen, feasible_rivals, day, prices),
    )


def _rivals(chosen: RankedOption, ranking: list[RankedOption]) -> list[RankedOption]:
    """The best alternative of every other provider (in ranking order) for reasons and break-even points."""
    rivals: list[RankedOption] = []
    for option in ranking:
        if option.label != chosen.label and all(r.label != option.label for r in rivals):
            rivals.append(option)
    return rivals


def _unpriceable(provider: str, storage_class: str, why: str, region: str | None = None) -> RankedOption:
    empty = CostBreakdown(
        provider=provider, storage_class=storage_class, table_version="-", line_items=[], total_usd=ZERO
    )
    return RankedOption(
        rank=0,
        provider=provider,
        storage_class=storage_class,
        region=region,
        monthly_cost_usd=ZERO,
        horizon_cost_usd=ZERO,
        feasible=False,
        status="rejected",
        violations=[f"cannot be priced: {why}"],
        performance=PerformanceEstimate(source="none"),
        cost=empty,
    )


def _failed_everywhere(ranking: list[RankedOption]) -> list[str]:
    """What keeps every option from being recommended: what every option misses, then the targets no
    option meets on evidence."""
    failed = [
        target
        for target in dict.fromkeys(v.target for o in ranking for v in o.verdicts)
        if all(any(v.target == target and v.verdict == "missed" for v in o.verdicts) for o in ranking)
    ]
    kinds = {"hot object": "hot-object concurrency", "policy": "egress policy"}
    for needle, name in kinds.items():
        if all(any(needle in v for v in o.violations) for o in ranking):
            failed.append(name)
    for target in dict.fromkeys(v.target for o in ranking for v in o.verdicts):
        if target in failed:
            continue
        if not any(v.target == target and v.verdict == "met" for o in ranking if o.feasible for v in o.verdicts):
            failed.append(f"{target} (no option meets it on evidence)")
    return failed or ["every option violates at least one target (see each option's violations)"]


def _unverified_prices(option: RankedOption) -> str:
    """' (rests on unverified prices: ...)' when a price in the option's bill is unverified, else ''."""
    items = list(
        dict.fromkeys(
            item.description
            for item in option.cost.line_items
            if item.price_status.value == "unverified" and item.category != "free_allowance"
        )
    )
    if not items:
        return ""
    return f" (rests on unverified prices: {', '.join(items[:3])}{', ...' if len(items) > 3 else ''})"


def _reasons(chosen: RankedOption, ranking: list[RankedOption], rivals: list[RankedOption], months: int) -> list[str]:
    group = (
        "options whose targets are unverified (none missed)"
        if chosen.status != "ok"
        else "options that meet every target on evidence"
        if chosen.verdicts
        else "options that break no provider policy"
    )
    reasons = [
        f"lowest {months}-month cost among {group}: ${chosen.horizon_cost_usd:,.2f} "
        f"(${chosen.monthly_cost_usd:,.2f} this month; drivers: {_drivers(chosen.cost)})"
        f"{_unverified_prices(chosen)}"
    ]
    runner = next((o for o in ranking if o.status == chosen.status and o is not chosen and not o.chosen), None)
    if runner is not None and runner.label == chosen.label and runner.storage_class == chosen.storage_class:
        runner = None
    if runner is not None:
        saving = runner.horizon_cost_usd - chosen.horizon_cost_usd
        reasons.append(
            f"saves ${saving:,.2f} over {months} months against the next such option, "
            f"{runner.label} {runner.storage_class} (${runner.monthly_cost_usd:,.2f} this month; "
            f"drivers: {_drivers(runner.cost)}){_unverified_prices(runner)}"
        )
    for rival in rivals:
        if rival.status == "ok" or rival.status == chosen.status:
            continue
        cheaper = " although cheaper" if rival.horizon_cost_usd < chosen.horizon_cost_usd else ""
        if rival.status == "rejected":
            reasons.append(f"{rival.label} {rival.storage_class} rejected{cheaper}: {'; '.join(rival.violations)}")
        else:
            reasons.append(
                f"{rival.label} {rival.storage_class} not chosen{cheaper}: unverified: {'; '.join(rival.unverified)}"
            )
    early = [li for li in chosen.cost.line_items if li.category == "early_deletion"]
    if early:
        reasons.append(
            f"pays ${sum(li.amount_usd for li in early):,.2f} a month in minimum-duration charges "
            "(objects deleted before the class's minimum duration)"
        )
    if chosen.performance.source != "none":
        perf = chosen.performance
        facts = []
        if perf.p99_ttfb_s is not None:
            facts.append(
                f"{'TTFB floor' if perf.ttfb_is_floor else 'p99 TTFB'} "
                f"{marked(format_duration(perf.p99_ttfb_s), perf.p99_ttfb_evidence or 'assumed')}"
            )
        if perf.read_throughput_bits_per_s is not None:
            evidence = perf.read_throughput_evidence or "assumed"
            facts.append(
                f"reads up to {marked(format_rate(perf.read_throughput_bits_per_s), evidence)} "
                f"({evidence}, bound by {perf.read_bound})"
            )
        if facts:
            reasons.append(f"performance from the {perf.source}: {', '.join(facts)}")
    return reasons


__all__ = [
    "BreakEven",
    "Choice",
    "PerformanceEstimate",
    "RankedOption",
    "Recommendation",
    "recommend",
]
