"""The third stage of ``recommend``: each provider's peak simulated once, then every priced option judged
on its profile and that simulation: its estimate, verdicts, rejections, warnings and status."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from planner.costing.bills import oversized_objects
from planner.decide.recommendation import notes
from planner.decide.recommendation.break_even import unverified_policy_note
from planner.decide.recommendation.grading import with_basis
from planner.decide.recommendation.inputs import Inputs
from planner.decide.recommendation.models import (
    OptionStatus,
    PerformanceEstimate,
    RankedOption,
    Rejection,
    option_label,
)
from planner.decide.recommendation.options import PricedOption
from planner.decide.recommendation.performance import (
    SimulatedJudgement,
    judge_performance,
    not_simulated,
    prefix_warnings,
    simulate_option,
)
from planner.evidence import TargetVerdict, combine, weakest_price
from planner.pricing.breakdown import CostBreakdown
from planner.pricing.models import PriceTable
from planner.workload import Workload
from planner.workload.targets import restore_times

ZERO = Decimal(0)
_NOT_SIMULATED: SimulatedJudgement = (None, [], [], [])


def simulate_providers(
    inputs: Inputs, *, duration_s: float, seed: int, progress: Callable[[float], None] | None = None
) -> dict[str, SimulatedJudgement]:
    """Each provider's peak, simulated once on the model built from its profile; ``progress`` hears how
    many providers are done."""
    simulated: dict[str, SimulatedJudgement] = {}
    for done, provider in enumerate(inputs.providers, start=1):
        model, judged = inputs.models.get(provider), inputs.profiles.get(provider)
        if model is None or judged is None:
            simulated[provider] = not_simulated(inputs.unmodelled.get(provider, "no profile"))
        else:
            simulated[provider] = simulate_option(
                inputs.workload,
                model,
                inputs.summaries[provider],
                profile_label=f"{judged.kind} profile of {provider}",
                limits=inputs.tables[provider].limits,
                errors=inputs.tables[provider].billing.error_responses,
                duration_s=duration_s,
                seed=seed,
            )
        if progress is not None:
            progress(done)
    return simulated


def judge_options(
    inputs: Inputs, priced: list[PricedOption], simulated: dict[str, SimulatedJudgement]
) -> list[RankedOption]:
    """Every priced option judged (rank 0: ``rank`` orders them); an unpriceable one is rejected."""
    return [
        _judge(inputs, option, simulated) if option.projection is not None else _unpriceable(option)
        for option in priced
    ]


def _judge(inputs: Inputs, option: PricedOption, simulated: dict[str, SimulatedJudgement]) -> RankedOption:
    """One option: the profile's judgement and the simulation's, combined target by target."""
    assert option.projection is not None
    workload, provider, table = inputs.workload, option.provider, option.table
    month_one = option.projection.months[0].cost
    judged = inputs.profiles.get(provider)
    restore_required = table.restore_required(option.storage_class)
    performance, violations, warnings, verdicts = judge_performance(
        workload,
        option.storage_class,
        inputs.summaries.get(provider),
        judged.label if judged is not None else "none",
        inputs.models.get(provider),
        restore=restore_times(table, option.storage_class) if restore_required else None,
    )
    # its objects are restored before any read: a simulation of immediate reads does not describe it
    sim_estimate, sim_violations, sim_warnings, sim_verdicts = (
        _NOT_SIMULATED if restore_required else simulated.get(provider, _NOT_SIMULATED)
    )
    if sim_estimate is not None:
        performance = _with_simulation(performance, sim_estimate)
    combined = _combined(verdicts + sim_verdicts)
    if not restore_required:  # an archive class's verdicts rest on its restore times, not on the profile
        combined = with_basis(combined, inputs.summaries.get(provider), workload, region=option.region or table.region)
    missed = [Rejection(kind="target", target=v.target, statement=v.reason) for v in combined if v.verdict == "missed"]
    rejections: dict[str, Rejection] = {}  # one for each statement, the first
    for rejection in missed + violations + sim_violations + _policy_violation(option) + _too_large(workload, table):
        rejections.setdefault(rejection.statement, rejection)
    name = f"{option_label(provider, option.region, option.cdn)} {option.storage_class}"
    kept, unknown, zone_warnings = notes.redundancy(name, workload, table, option.storage_class)
    for rejection in kept:
        rejections.setdefault(rejection.statement, rejection)
    unverified = [v.reason for v in combined if v.verdict == "unverified"] + [u.text for u in unknown]
    # they are violations, above: the policy breaches and objects past the largest the provider stores
    breaches = {b.statement for b in month_one.policy_breaches} | {r.statement for r in rejections.values()}
    warnings = warnings + sim_warnings + prefix_warnings(workload, table.limits)
    warnings += [w for w in month_one.warnings if w not in breaches]
    warnings += [w.text for w in zone_warnings]
    status: OptionStatus = "rejected" if rejections else ("unverified" if unverified else "ok")
    return RankedOption(
        rank=0,
        provider=provider,
        storage_class=option.storage_class,
        region=option.region,
        monthly_cost_usd=month_one.total_usd,
        horizon_cost_usd=option.projection.total_usd,
        feasible=not rejections,
        status=status,
        rejections=list(rejections.values()),
        unverified=unverified,
        verdicts=combined,
        warnings=warnings,
        notes=[
            *zone_warnings,
            *unknown,
            *notes.table_terms(name, workload, table, option.storage_class, option.cdn, inputs.day),
        ],
        performance=performance,
        cost=month_one,
        price_status=weakest_price(item.price_status.value for item in month_one.line_items),
        projection=option.projection,
        cdn=option.cdn,
    )


def _with_simulation(performance: PerformanceEstimate, simulated: PerformanceEstimate) -> PerformanceEstimate:
    return performance.model_copy(
        update={
            "simulated_p99_ttfb_s": simulated.p99_ttfb_s,
            "simulated_p99_ttfb_evidence": simulated.simulated_p99_ttfb_evidence,
            "simulated_read_bits_per_s": simulated.read_throughput_bits_per_s,
            "simulated_read_evidence": simulated.simulated_read_evidence,
            "throttle_rate": simulated.throttle_rate,
            "simulation": simulated.source,
        }
    )


def _combined(verdicts: list[TargetVerdict]) -> list[TargetVerdict]:
    """One verdict per target, in the order the targets first appear."""
    return [
        found
        for target in dict.fromkeys(v.target for v in verdicts)
        if (found := combine([v for v in verdicts if v.target == target])) is not None
    ]


def _policy_violation(option: PricedOption) -> list[Rejection]:
    """The first month whose bill breaks a provider policy, named with that month's own figures (and
    saying so when the policy's figure is unverified)."""
    assert option.projection is not None
    for month in option.projection.months:
        broken = month.cost.policy_breaches
        if broken:
            note = unverified_policy_note(option.table)
            statement = f"month {month.month} ({month.as_of}): {broken[0].statement}{note}"
            return [Rejection(kind="policy", policy=broken[0].policy, statement=statement)]
    return []


def _too_large(workload: Workload, table: PriceTable) -> list[Rejection]:
    """The option cannot hold the workload's largest object, whatever it costs (the bill's own warning)."""
    statement = oversized_objects(workload, table)
    return [] if statement is None else [Rejection(kind="object-size", statement=statement)]


def _unpriceable(option: PricedOption) -> RankedOption:
    empty = CostBreakdown(
        provider=option.provider,
        storage_class=option.storage_class,
        table_version="-",
        line_items=[],
        total_usd=ZERO,
    )
    return RankedOption(
        rank=0,
        provider=option.provider,
        storage_class=option.storage_class,
        region=option.region,
        monthly_cost_usd=ZERO,
        horizon_cost_usd=ZERO,
        feasible=False,
        status="rejected",
        rejections=[Rejection(kind="unpriceable", statement=f"cannot be priced: {option.unpriceable}")],
        performance=PerformanceEstimate(source="none"),
        cost=empty,
        cdn=option.cdn,
    )
