"""Rank every allowed provider and storage class for a workload, and say why.

Cost comes from the pricing engine month by month over the horizon; feasibility from the
performance judgement (``planner.recommendation.performance``); the points where the choice would
change from ``planner.recommendation.break_even``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from planner.costing import CostProjection, price_table, project_costs
from planner.errors import InputError, PlannerError, PricingError
from planner.evidence import TargetVerdict, combine, marked
from planner.pricing.models import CostBreakdown, PriceTable
from planner.recommendation.break_even import break_even_points, unverified_policy_note
from planner.recommendation.models import (
    STATUS_ORDER,
    Choice,
    OptionStatus,
    PerformanceEstimate,
    RankedOption,
    Recommendation,
    Rejection,
)
from planner.recommendation.performance import _load_profiles, judge_performance, prefix_warnings, simulate_option
from planner.units import format_duration, format_rate
from planner.workload import Workload

if TYPE_CHECKING:
    from planner.sim.provider import ProviderModel

ZERO = Decimal(0)


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


def _policy_violation(projection: CostProjection, table: PriceTable) -> list[Rejection]:
    """The first month whose bill breaks a provider policy, named with that month's own figures (and
    saying so when the policy's figure is unverified)."""
    for month in projection.months:
        broken = month.cost.policy_breaches
        if broken:
            statement = f"month {month.month} ({month.as_of}): {broken[0].statement}{unverified_policy_note(table)}"
            return [Rejection(kind="policy", policy=broken[0].policy, statement=statement)]
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
    simulated: dict[str, tuple[PerformanceEstimate | None, list[Rejection], list[str], list[TargetVerdict]]] = {}
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
            missed = [
                Rejection(kind="target", target=v.target, statement=v.reason) for v in combined if v.verdict == "missed"
            ]
            rejections: dict[str, Rejection] = {}  # one for each statement, the first
            for rejection in missed + violations + sim_violations + _policy_violation(projection, table):
                rejections.setdefault(rejection.statement, rejection)
            unverified = [v.reason for v in combined if v.verdict == "unverified"]
            warnings = warnings + sim_warnings + layout
            breaches = {b.statement for b in month_one.policy_breaches}  # they are violations, above
            warnings += [w for w in month_one.warnings if w not in breaches]
            status: OptionStatus = "rejected" if rejections else ("unverified" if unverified else "ok")
            options.append(
                RankedOption(
                    rank=0,
                    provider=provider,
                    storage_class=storage_class,
                    region=region,
                    monthly_cost_usd=month_one.total_usd,
                    horizon_cost_usd=projection.total_usd,
                    feasible=not rejections,
                    status=status,
                    rejections=list(rejections.values()),
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
        rejections=[Rejection(kind="unpriceable", statement=f"cannot be priced: {why}")],
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
    for kind, name in (("hot-object", "hot-object concurrency"), ("policy", "egress policy")):
        if all(any(r.kind == kind for r in o.rejections) for o in ranking):
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
