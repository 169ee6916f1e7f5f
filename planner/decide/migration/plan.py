"""A migration plan as stages over records: load the inputs once (``MigrationInputs``), run every
strategy's timeline (``StrategyRun``), choose one (``_Choice``), explain it (``MigrationPlan``).

The plan carries every figure its presenters show; text, JSON and the plot only present it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from planner.costing.cdn_bills import cdn_note
from planner.decide.migration.bounds import strategy_bounds
from planner.decide.migration.inputs import MigrationInputs, load_inputs
from planner.decide.migration.models import (
    PREFERENCE,
    MigrationOptions,
    MigrationPlan,
    Strategy,
    StrategyOutcome,
    destination_services,
    usd_text,
)
from planner.decide.migration.strategies import STRATEGY_TIMELINES
from planner.decide.migration.timeline import StrategyRun
from planner.errors import InputError, of_type
from planner.evidence import weakest_price
from planner.workload import DAY_S, Workload

_REASONS: dict[Strategy, str] = {
    "age-out": "the data expires at the source, so none of it is copied and no egress is paid",
    "hybrid": "data that expires soon ages out at the source; only the rest is copied",
    "copy-on-read": "only data that is read is copied, in the reads the workload makes anyway",
    "bulk": "one copy moves everything at once, so the source's bill stops soonest",
}


@dataclass(frozen=True)
class _Timelines:
    """Every strategy's timeline where it applies, and the comparison the plan shows."""

    runs: dict[Strategy, StrategyRun]
    compared: list[StrategyOutcome]


@dataclass(frozen=True)
class _Choice:
    strategy: Strategy
    because: str

    def run(self, timelines: _Timelines) -> StrategyRun:
        return timelines.runs[self.strategy]


def estimate_migration(workload: Workload, options: MigrationOptions) -> MigrationPlan:
    """Plan a move of ``workload`` from ``options.source`` to ``options.destination``.

    Every applicable strategy is run on its own timeline; the cheapest within the horizon is chosen
    unless ``options.strategy`` forces one.
    """
    of_type(workload, Workload, "workload", "a planner.Workload (planner.load_workload(path))")
    of_type(options, MigrationOptions, "options", "a MigrationOptions")
    inputs = load_inputs(workload, options)
    timelines = _timelines(inputs)
    choice = _choose(inputs, timelines)
    return _explain(inputs, choice, choice.run(timelines), timelines.compared)


def _timelines(inputs: MigrationInputs) -> _Timelines:
    runs: dict[Strategy, StrategyRun] = {}
    compared: list[StrategyOutcome] = []
    for strategy in STRATEGY_TIMELINES:
        run = strategy.run(inputs)
        if isinstance(run, str):
            compared.append(StrategyOutcome(strategy=strategy.name, applicable=False, reason=run))
            continue
        runs[strategy.name] = run
        compared.append(
            StrategyOutcome(
                strategy=strategy.name,
                applicable=True,
                total_move_usd=run.total_move_usd,
                one_time_cost_usd=run.one_time_cost_usd,
                duration_days=run.duration_days,
                duration_evidence=inputs.copy.slowest.evidence if run.done_by_copy else None,
                payback_month=run.payback_month,
                move_price_status=weakest_price(
                    s for m in run.timeline for s in (m.source_price_status, m.destination_price_status)
                ),
                one_time_price_status=weakest_price(i.price_status.value for i in run.one_time),
            )
        )
    return _Timelines(runs=runs, compared=compared)


def _choose(inputs: MigrationInputs, timelines: _Timelines) -> _Choice:
    """The strategy forced by ``--strategy``, or the cheapest within the horizon (on a tie, the one
    that copies less)."""
    runs, forced = timelines.runs, inputs.options.strategy
    if forced is not None:
        if forced not in runs:
            (outcome,) = [c for c in timelines.compared if c.strategy == forced]
            raise InputError(f"{forced} does not apply: {outcome.reason}", source="--strategy")
        return _Choice(forced, f"forced by --strategy {forced}")
    if not runs:
        reasons = "; ".join(f"{c.strategy}: {c.reason}" for c in timelines.compared)
        raise InputError("no strategy applies: " + reasons, source="migrate")
    totals = {s: r.total_move_usd for s, r in runs.items()}
    chosen = min(runs, key=lambda s: (totals[s], PREFERENCE.index(s)))
    return _Choice(chosen, _why(chosen, totals, inputs.months))


def _why(chosen: Strategy, totals: dict[Strategy, Decimal], months: int) -> str:
    ranked = sorted(totals, key=lambda s: (totals[s], PREFERENCE.index(s)))
    text = f"{chosen} costs {usd_text(totals[chosen])} over the {months} months"
    if len(ranked) > 1:
        runner = ranked[1]
        saving = usd_text(totals[runner] - totals[chosen])
        tie = saving == usd_text(Decimal(0))
        text += f", as much as {runner} (preferred on a tie)" if tie else f", {saving} less than {runner}"
    return f"{text}: {_REASONS[chosen]}"


def _explain(
    inputs: MigrationInputs, choice: _Choice, run: StrategyRun, compared: list[StrategyOutcome]
) -> MigrationPlan:
    """The chosen timeline as the plan: its headline figures, bounds and every assumption behind it."""
    options, timeline = inputs.options, run.timeline
    assumptions = [
        *inputs.copy.notes,
        *(f"the move itself: {w}" for w in run.warnings),
        *_assumptions(choice.strategy, inputs),
        *run.notes,
    ]
    duration_days = run.duration_days
    bounds, bottleneck = strategy_bounds(choice.strategy, inputs.copy, inputs.workload, options)
    return MigrationPlan(
        workload=inputs.workload.name,
        source=str(options.source),
        destination=str(options.destination),
        strategy=choice.strategy,
        chosen_because=choice.because,
        start=inputs.start,
        stored_bytes=inputs.stored,
        objects=inputs.objects,
        copy_host=options.copy_host,
        one_time_cost_usd=run.one_time_cost_usd,
        one_time=run.one_time,
        duration_hours=math.inf if duration_days is None else duration_days * 24,
        bottleneck=bottleneck,
        duration_evidence=inputs.copy.slowest.evidence if run.done_by_copy else None,
        bounds=bounds,
        monthly_before_usd=timeline[0].stay_usd,
        monthly_after_usd=timeline[-1].move_usd,
        payback_month=run.payback_month,
        timeline=timeline,
        compared=compared,
        left_behind_share=timeline[-1].at_source_share,
        assumptions=assumptions,
        horizon_months=len(timeline),
        saving_usd=timeline[-1].cumulative_stay_usd - timeline[-1].cumulative_move_usd,
    )


def _read_notes(inputs: MigrationInputs) -> list[str]:
    """Copy-on-read: the read pattern that moves the data, and how much of it moves."""
    workload, options, coverage = inputs.workload, inputs.options, inputs.coverage
    hot = workload.traffic.hot_objects
    pattern = f"{workload.reads_per_month():,} reads a month over {inputs.objects:,} objects"
    if hot is not None and hot.share_of_reads:
        pattern += f", {hot.share_of_reads:.0%} of them on {hot.count:,} hot objects"
    if options.never_read_share:
        pattern += f", {options.never_read_share:.0%} of the rest never read"
    notes = [
        f"an object moves on its first read ({pattern}): {coverage(30):.1%} read within 30 days, "
        f"{coverage(inputs.horizon_days):.1%} within the horizon; the source's copy is deleted once moved; "
        "all of it has moved once fewer than one object is expected unread"
    ]
    if options.sweep_after_days is not None:
        notes.append(f"what is left at the source after {options.sweep_after_days:g} days is bulk-copied")
    return notes


def _copy_host_note(options: MigrationOptions) -> str:
    destination = options.destination.provider
    return {
        "on-premises": "the copy runs on a host outside both clouds: the source bills internet egress",
        "source-region": "the copy runs on a VM in the source's region: the source still bills internet egress; "
        "the VM and any NAT gateway it sends through (AWS bills NAT data processing per GB) are not priced here",
        "destination-service": f"the copy is {destination}'s own migration service "
        f"({destination_services().get(destination, '')}): the source bills its LISTs, GETs and "
        "egress, the destination the PUTs it makes; the service's own checks are not billed here",
    }[options.copy_host]


def _assumptions(strategy: Strategy, inputs: MigrationInputs) -> list[str]:
    workload, options = inputs.workload, inputs.options
    notes = ["new writes go to the destination from the first day; reads go to wherever the data is"]
    retention = workload.storage.retention
    if retention is not None:
        age = (
            f"all data is {options.data_age_days:g} days old at the start"
            if options.data_age_days is not None
            else f"object ages uniform over the {retention / DAY_S:g}-day retention"
        )
        notes.append(f"{age}: data expires at its retention age wherever it is")
    if strategy == "copy-on-read":
        notes += _read_notes(inputs)
    if options.egress_waiver:
        notes.append(f"{options.source.provider} waives internet egress for the move (ask for it in advance)")
    notes.append(_copy_host_note(options))
    if workload.delivery is not None:
        notes.append(cdn_note(workload))
    if strategy in ("bulk", "hybrid"):
        notes.append(f"the source keeps its copy for {options.verify_days:g} days after the copy while it is verified")
    return notes
