"""Performance judgement: what a workload should see on an option (from the provider's profile, and from
a simulation of its peak), and a verdict on evidence for each of its targets."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from planner.decide.recommendation.models import PerformanceEstimate, Rejection
from planner.decide.recommendation.notes import no_get_in_window, throttle_billing
from planner.decide.recommendation.spread import spread_decides
from planner.errors import InputError, PlannerError
from planner.evidence import Evidence, TargetVerdict, is_backed, judge_target, weakest
from planner.measure.profile import Profile, ProfileSummary
from planner.measure.reference import load_profile, load_reference, reference_providers
from planner.measure.summary import lognormal_p99_s
from planner.pricing.models import ErrorResponses, Limits
from planner.sim.front.run import simulate_workload
from planner.sim.front.workload_adapter import operations_label, prefixes_needed
from planner.sim.model.provider import BandwidthCurve, BandwidthPoint, ProviderModel
from planner.sim.result import SimulationResult, demonstrated_bits_per_s
from planner.units import format_duration, format_rate
from planner.workload import Workload
from planner.workload.targets import RestoreTimes, restore_time_verdict, restore_verdicts


def stream_rate(points: list[tuple[int, float]], size: float) -> float | None:
    """Per-stream GET bytes/s at an object size from a profile's (size, bytes/s) points.

    The simulator's ``BandwidthCurve`` interpolates (linear in log(size), flat above the largest
    size); below the smallest measured size a request takes that size's time, so the rate falls
    in proportion to the size.
    """
    if not points or size <= 0:
        return None
    curve = BandwidthCurve(points=[BandwidthPoint(size_bytes=s, bits_per_s=v * 8) for s, v in points])
    rate = curve.bits_per_s(size) / 8
    smallest = points[0][0]
    return rate * size / smallest if size < smallest else rate


RESTORE_FIRST = "a restore first, then a copy in a readable class"


@dataclass(frozen=True)
class _Throughput:
    """Aggregate throughput one way, as a profile allows it."""

    direction: Literal["read", "write"]
    hard: dict[str, float]  # bounds that can reject an option: the client link, an exact provider ceiling
    achievable: float  # bits/s: the lowest of the hard bounds and of streams x per-stream rate
    bound: str  # what bounds it
    evidence: Evidence
    demonstrated: float | None  # bits/s: the highest rate the profile shows
    streams_figure: float | None = None  # bits/s: streams x the per-stream rate, where there is one


def _throughput(
    workload: Workload,
    direction: Literal["read", "write"],
    summary: ProfileSummary,
    model: ProviderModel | None,
) -> _Throughput:
    """Aggregate throughput one way.

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
    streams_figure = stream * 8 * streams if stream is not None else None
    return _Throughput(direction, hard, achievable, bound_name, evidence, demonstrated, streams_figure)


def judge_performance(
    workload: Workload,
    storage_class: str,
    summary: ProfileSummary | None,
    source: str,
    model: ProviderModel | None = None,
    *,
    restore: RestoreTimes | None = None,
) -> tuple[PerformanceEstimate, list[Rejection], list[str], list[TargetVerdict]]:
    """Analytic feasibility from a profile: (estimate, rejections beyond the targets' verdicts, warnings,
    a verdict per target).

    ``model`` (the provider model built from the same profile) says how each figure is backed;
    without it every figure is taken as assumed. ``restore`` (given for a class the price table says
    must be restored before a read, with the restore times it states): the profile's figures do not
    apply, and a workload that reads needs ``performance.max_restore`` at least as long as the restore.
    """
    archive = restore is not None
    warnings: list[str] = []
    verdicts: list[TargetVerdict] = []
    if restore is not None:
        verdicts += restore_verdicts(workload, storage_class, restore)
        waited = restore_time_verdict(workload, restore)
        if waited is not None:
            verdicts.append(waited)
    if summary is None:
        summary = ProfileSummary(provider=None, source_kind="none")
        source = "client link only (no profile)"
    ttfb, floor, ttfb_evidence = _ttfb(summary, model)
    if workload.performance.p99_ttfb is not None and not archive:
        verdicts.append(_ttfb_verdict(workload.performance.p99_ttfb, ttfb, floor, ttfb_evidence, _spread_note(summary)))
    read = _throughput(workload, "read", summary, model)
    write = _throughput(workload, "write", summary, model)
    for direction, found in (("read", read), ("write", write)):
        if not (archive and direction == "read"):
            found_verdicts = _throughput_verdict(workload, found, model)
            if direction == "read" and found.streams_figure is not None:
                found_verdicts = [
                    spread_decides(
                        verdict,
                        model,
                        wanted_bits_per_s=workload.performance.read_throughput or 0.0,
                        median_figure_bits_per_s=found.streams_figure,
                        hard_bits_per_s=min(found.hard.values()),
                        mean_object_bytes=workload.storage.mean_object_bytes,
                    )
                    for verdict in found_verdicts
                ]
            verdicts += found_verdicts
    violations, hot_warnings = _hot_object(workload, summary)
    warnings += hot_warnings + _peak_rate_warning(workload, summary)
    estimate = PerformanceEstimate(
        source=source,
        p99_ttfb_s=None if archive else ttfb,
        p99_ttfb_evidence=None if archive else ttfb_evidence,
        ttfb_is_floor=floor,
        read_throughput_bits_per_s=None if archive else read.achievable,
        read_throughput_evidence=None if archive else read.evidence,
        read_bound=RESTORE_FIRST if archive else read.bound,
        demonstrated_read_bits_per_s=read.demonstrated,
        write_throughput_bits_per_s=write.achievable,
        write_throughput_evidence=write.evidence,
        write_bound=write.bound,
        hot_object_limit=summary.hot_object_limit,
        hot_object_behaviour=summary.hot_object_behaviour,
    )
    return estimate, violations, warnings, verdicts


def _evidence_of(model: ProviderModel | None, key: str) -> Evidence:
    return model.evidence_of(key) if model is not None else "assumed"


def _ttfb(summary: ProfileSummary, model: ProviderModel | None) -> tuple[float | None, bool, Evidence | None]:
    """The profile's TTFB figure (its p99, else its p50 as a floor), whether it is a floor, its evidence."""
    p99 = summary.ttfb_p99_s
    if p99 is None and summary.ttfb_p50_s is not None and summary.ttfb_p90_s is not None:
        # a published p50 and p90: the p99 beyond them is extrapolated (lognormal), never a floor
        extrapolated = lognormal_p99_s(summary.ttfb_p50_s, summary.ttfb_p90_s)
        return extrapolated, False, weakest(_evidence_of(model, "latency.get"), "extrapolated")
    floor = p99 is None and summary.ttfb_p50_s is not None
    ttfb = p99 if p99 is not None else summary.ttfb_p50_s
    if ttfb is None:
        return None, floor, None
    latency = _evidence_of(model, "latency.get")
    return ttfb, floor, latency if floor else weakest(latency, _evidence_of(model, "latency.tail"))


def _spread_note(summary: ProfileSummary) -> str:
    """Which part of a published TTFB spread the p99 figure comes from, when it is not a published p99."""
    p50, p90 = summary.ttfb_p50_s, summary.ttfb_p90_s
    if summary.ttfb_p99_s is not None or p50 is None or p90 is None:
        return ""
    return (
        f"the profile publishes a p50 of {format_duration(p50)} and a p90 of {format_duration(p90)}; the p99 is the"
        " lognormal through them, extrapolated past the p90"
    )


def _ttfb_verdict(
    wanted: float, ttfb: float | None, floor: bool, evidence: Evidence | None, spread: str = ""
) -> TargetVerdict:
    return judge_target(
        "p99 TTFB",
        wanted=wanted,
        wanted_text=format_duration(wanted),
        figure=ttfb,
        figure_text=None if ttfb is None else format_duration(ttfb),
        evidence=evidence or "assumed",
        higher_is_better=False,
        bound="at least" if floor else "estimate",
        judged_on="profile",
        why_weak=spread if ttfb is not None else "the profile has none; measure it",
    )


def _throughput_verdict(workload: Workload, found: _Throughput, model: ProviderModel | None) -> list[TargetVerdict]:
    """The verdict on one direction's throughput target (none without a target)."""
    direction = found.direction
    target = f"{direction} throughput"
    wanted = workload.performance.read_throughput if direction == "read" else workload.performance.write_throughput
    if wanted is None:
        return []
    hard_name = min(found.hard, key=lambda k: found.hard[k])
    if found.hard[hard_name] < wanted:  # an upper bound below the target: a miss on evidence
        client = hard_name == "client link"
        return [
            judge_target(
                target,
                wanted=wanted,
                wanted_text=format_rate(wanted),
                figure=found.hard[hard_name],
                figure_text=format_rate(found.hard[hard_name]),
                evidence="measured" if client else _evidence_of(model, f"ceiling.{direction}"),
                higher_is_better=True,
                bound="at most",
                judged_on="the client link the workload states" if client else hard_name,
            )
        ]
    shown, figure, evidence = found.demonstrated, found.achievable, found.evidence
    demonstrated_text = "the profile demonstrates " + (format_rate(shown) if shown else "none")
    stream_backed = model is not None and is_backed(
        model.stream_evidence(direction, round(workload.storage.mean_object_bytes))
    )
    if evidence == "extrapolated" and stream_backed and shown is not None and min(figure, shown) >= wanted:
        # the estimate goes beyond the profile, but what the profile does show already meets the target
        return [
            judge_target(
                target,
                wanted=wanted,
                wanted_text=format_rate(wanted),
                figure=min(figure, shown),
                figure_text=format_rate(min(figure, shown)),
                evidence=weakest(_evidence_of(model, f"stream.{direction}"), "derived"),
                higher_is_better=True,
                bound="at least",
                judged_on=f"{demonstrated_text}, and {found.bound} allows more",
            )
        ]
    return [
        judge_target(
            target,
            wanted=wanted,
            wanted_text=format_rate(wanted),
            figure=figure,
            figure_text=format_rate(figure),
            evidence=evidence,
            higher_is_better=True,
            judged_on=f"bound by {found.bound}",
            why_weak=(
                f"{demonstrated_text} and no per-stream rate"
                if evidence == "assumed"
                else f"{demonstrated_text}; measure it"
            ),
        )
    ]


def _hot_object(workload: Workload, summary: ProfileSummary) -> tuple[list[Rejection], list[str]]:
    """More concurrent reads of one hot object than the provider serves: rejected, or a warning when the
    provider only slows down past its limit."""
    hot = workload.traffic.hot_objects
    limit = summary.hot_object_limit
    if hot is None or limit is None:
        return [], []
    per_key = math.ceil(hot.peak_concurrency / hot.replicas)
    if per_key <= limit:
        return [], []
    if summary.hot_object_behaviour == "reject":
        keys = math.ceil(hot.peak_concurrency / limit)
        statement = (
            f"{per_key} concurrent reads of one hot object exceed the {limit} this provider serves before "
            f"answering {summary.hot_object_error or 'errors'}; replicate the hot object under {keys} keys"
        )
        return [Rejection(kind="hot-object", statement=statement)], []
    return [], [f"{per_key} concurrent reads of one hot object exceed {limit}: latency degrades past it"]


def _peak_rate_warning(workload: Workload, summary: ProfileSummary) -> list[str]:
    peak_get = workload.peak_read_rate_per_s()
    measured = summary.ops_per_s.get("get")
    if measured and peak_get > measured:
        return [
            f"peak GET rate {peak_get:,.0f}/s is above the highest rate in the profile ({measured:,.0f}/s); "
            "beyond it is unmeasured"
        ]
    return []


def prefix_warnings(workload: Workload, limits: Limits) -> list[str]:
    """What the provider's documented per-prefix request rates ask of the workload's key layout."""
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


SimulatedJudgement = tuple[PerformanceEstimate | None, list[Rejection], list[str], list[TargetVerdict]]
SIMULATED_WITH_QUEUEING = "simulated peak, client queueing included"


def not_simulated(why: str) -> SimulatedJudgement:
    """No simulation (``why``): the option is judged from its profile alone."""
    return None, [], [f"not simulated ({why}); judged from the profile alone"], []


def simulate_option(
    workload: Workload,
    model: ProviderModel,
    summary: ProfileSummary,
    *,
    profile_label: str,
    limits: Limits,
    errors: ErrorResponses | None = None,
    duration_s: float,
    seed: int,
) -> SimulatedJudgement:
    """Feasibility from the simulator: the peak window's p99 TTFB, GET throughput and throttling.

    ``model`` is the provider model built from the profile ``summary`` (named ``profile_label``);
    ``limits`` (the price table's) shape multipart uploads and give the documented request rates;
    ``errors`` (the table's error-response rule) says whether throttled attempts are billed.
    Each target the simulation judges comes back with the evidence of what the figure rests on:
    a backed miss rejects the option like a published floor does; a figure resting on an assumed
    or extrapolated input leaves the target unverified.
    """
    # Feasibility needs the peak only: the mean window bills the month, which the cost engine does.
    # Simulated times include waiting for the client's own connections and link: a miss there is the
    # workload's client as much as the provider, and its reason says so.
    try:
        run = simulate_workload(
            workload,
            model,
            summary=summary,
            limits=limits,
            duration_s=duration_s,
            seed=seed,
            replications=2,
            judged_on=SIMULATED_WITH_QUEUEING,
        )
    except PlannerError as error:
        return not_simulated(str(error))
    peak = run.peak
    gets = [op for op in peak.operations.values() if op.operation.lower() == "get"]
    p99 = gets[0].ttfb_p99_s.mean if gets and gets[0].requests.mean else None
    read_bits = sum(op.throughput_bytes_per_s.mean for op in gets) * 8
    rate, violations, warnings = _peak_errors(peak, errors)
    if gets and not gets[0].requests.mean:
        warnings.append(
            no_get_in_window(workload, peak.window_s, peak.replications, peak.unfinished_requests.mean).text
        )
    shown = demonstrated_bits_per_s(summary)["read"]
    read_evidence = run.evidence["GET.throughput"]
    if is_backed(read_evidence) and (shown is None or read_bits > shown * 1.0001):
        read_evidence = "extrapolated"
    label = f"simulation of the peak hour's rate ({peak.window_s:g} s x {peak.replications}) on the {profile_label}"
    estimate = PerformanceEstimate(
        source=label,
        p99_ttfb_s=p99,
        read_throughput_bits_per_s=read_bits or None,
        read_bound="the workload's own peak demand (simulated)",
        throttle_rate=rate,
        simulated_p99_ttfb_evidence=run.evidence["GET.tail"] if p99 is not None else None,
        simulated_read_evidence=read_evidence if read_bits else None,
    )
    return estimate, violations, warnings, run.verdicts


def _peak_errors(peak: SimulationResult, errors: ErrorResponses | None) -> tuple[float, list[Rejection], list[str]]:
    """The share of request attempts throttled in the simulated peak, a rejection when requests fail after
    every retry, else a warning when some were throttled."""
    operations = peak.operations.values()
    requests = sum(op.requests.mean for op in operations)
    attempts = requests + sum(op.retries.mean for op in operations)
    throttled = sum(e.mean for op in operations for kind, e in op.errors.items() if kind.startswith(("503", "429")))
    rate = throttled / attempts if attempts else 0.0
    failed = sum(op.failed.mean for op in operations)
    kinds = ", ".join(sorted({kind for op in operations for kind in op.errors}))
    if failed and requests:
        statement = (
            f"simulated peak: {failed / requests:.1%} of requests ({failed:,.0f} of {requests:,.0f}) fail after"
            f" every retry ({kinds})"
        )
        return rate, [Rejection(kind="failed-requests", statement=statement)], []
    if throttled:
        return (
            rate,
            [],
            [
                f"simulated peak: {rate:.1%} of request attempts throttled ({kinds}), retried;"
                f" {throttle_billing(kinds, errors)}"
            ],
        )
    return rate, [], []


def load_profiles(providers: Sequence[str], profiles_dir: Path | None) -> dict[str, tuple[Profile, Path | None]]:
    """The profile each provider is judged on, with its file: ``<provider>.json`` in ``profiles_dir``
    (a measured profile, which must name that provider: a file name says nothing of where it was
    measured), else the shipped reference profile (no file: None). A provider with neither is left out."""
    found: dict[str, tuple[Profile, Path | None]] = {}
    shipped = set(reference_providers())
    for provider in providers:
        if profiles_dir is not None and (profiles_dir / f"{provider}.json").is_file():
            path = profiles_dir / f"{provider}.json"
            profile = load_profile(path)
            problem = provider_problem(profile, provider)
            if problem is not None:
                raise InputError(problem, source=str(path), field="provider")
            found[provider] = (profile, path)
        elif provider in shipped:
            found[provider] = (load_reference(provider), None)
    return found


def provider_problem(profile: Profile, provider: str) -> str | None:
    """Why ``profile`` is no evidence of ``provider`` (it names another provider, or none), or None."""
    if profile.provider == provider:
        return None
    if profile.provider is not None:
        return f"the profile is of {profile.provider}, not {provider}"
    where = f"measured at {profile.endpoint}" if profile.endpoint else "its endpoint unnamed"
    return (
        f"the profile names no provider ({where}), so it is no evidence of {provider}: re-run planner measure"
        f' --provider {provider}, or set "provider": "{provider}" in the file if it was measured there'
    )


def _load_profiles(providers: list[str], profiles_dir: Path | None) -> dict[str, tuple[Profile, str]]:
    """``load_profiles`` with the label the judgement names its source by."""
    return {
        provider: (
            profile,
            f"measured profile {path}" if path else f"reference profile {provider} (published benchmarks)",
        )
        for provider, (profile, path) in load_profiles(providers, profiles_dir).items()
    }


def reference_summaries(
    providers: list[str], profiles_dir: Path | None = None
) -> dict[str, tuple[ProfileSummary, str]]:
    """Profile summaries by provider: the user's profiles (``<provider>.json`` in a folder) or the shipped ones."""
    return {p: (profile.summary(), label) for p, (profile, label) in _load_profiles(providers, profiles_dir).items()}
