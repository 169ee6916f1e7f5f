"""The last stage of ``recommend``: the choice (or the provisional one) and its reasons, the rivals it
beat, the points where it would change, the egress curves, and what keeps every option out when none is
chosen, assembled into the ``Recommendation``."""

from __future__ import annotations

from planner.costing.cdn_bills import priced_paths
from planner.decide.recommendation import notes, sentences
from planner.decide.recommendation.break_even import break_even_points
from planner.decide.recommendation.curves import egress_curves
from planner.decide.recommendation.inputs import Inputs
from planner.decide.recommendation.models import BreakEven, Choice, RankedOption, Recommendation
from planner.evidence import Sentence, marked
from planner.pricing.breakdown import CostBreakdown
from planner.units import format_duration, format_rate


def explain(inputs: Inputs, ranking: list[RankedOption], *, curves: bool = True) -> Recommendation:
    """The ``Recommendation``: the chosen option with its reasons and break-even points, or (nothing
    chosen) the provisional one and the targets that keep every option out; with ``curves``, the
    egress curves a plot draws."""
    chosen = next((o for o in ranking if o.chosen), None)
    provisional = None if chosen is not None else next((o for o in ranking if o.status == "unverified"), None)
    shown = chosen or provisional
    rivals = _rivals(shown, ranking) if shown is not None else []
    choice = None
    if shown is not None:
        reasons, said = _reasons(shown, ranking, rivals, inputs.months)
        choice = Choice(
            provider=shown.provider,
            storage_class=shown.storage_class,
            region=shown.region,
            reasons=reasons,
            sentences=said,
            cdn=shown.cdn,
        )
    warnings = [*notes.link_fit(inputs.workload), *notes.lifecycle_unpriced(inputs.workload)]
    break_even: list[BreakEven] = []
    if chosen is not None:
        feasible_rivals = [r for r in rivals if r.feasible][:3]
        break_even = break_even_points(
            inputs.workload, chosen, feasible_rivals, inputs.day, inputs.prices, tables=inputs.regional
        )
    said = [
        *(choice.sentences if choice is not None else []),
        *(point.sentence for point in break_even if point.sentence is not None),
        *warnings,
        *(v.sentence(f"{o.label} {o.storage_class}") for o in ranking for v in o.verdicts),
        *(note for o in ranking for note in o.notes),
    ]
    return Recommendation(
        workload=inputs.workload,
        warnings=warnings,
        sentences=said,
        as_of=inputs.day,
        months=inputs.months,
        ranking=ranking,
        recommendation=choice if chosen is not None else None,
        provisional=choice if chosen is None else None,
        break_even=break_even,
        failed_targets=[] if chosen is not None else _failed_everywhere(ranking),
        profiles=[inputs.profiles[p] for p in inputs.providers if p in inputs.profiles],
        egress_curves=egress_curves(inputs, ranking, break_even) if curves else None,
    )


def _drivers(cost: CostBreakdown) -> str:
    totals = cost.by_category()
    total = cost.total_usd
    if not total:
        return "costs nothing this month"
    ranked = sorted(((v, k) for k, v in totals.items() if v > 0), reverse=True)[:3]
    return ", ".join(f"{k.replace('_', ' ')} {float(v / total):.0%}" for v, k in ranked)


def _rivals(chosen: RankedOption, ranking: list[RankedOption]) -> list[RankedOption]:
    """The best alternative of every other provider (in ranking order) for reasons and break-even points."""
    rivals: list[RankedOption] = []
    for option in ranking:
        if option.label != chosen.label and all(r.label != option.label for r in rivals):
            rivals.append(option)
    return rivals


def _failed_everywhere(ranking: list[RankedOption]) -> list[str]:
    """What keeps every option from being recommended: what every option misses, then the targets no
    option meets on evidence."""
    failed = [
        target
        for target in dict.fromkeys(v.target for o in ranking for v in o.verdicts)
        if all(any(v.target == target and v.verdict == "missed" for v in o.verdicts) for o in ranking)
    ]
    for kind, name in (
        ("hot-object", "hot-object concurrency"),
        ("policy", "egress policy"),
        ("object-size", "object size"),
    ):
        if all(any(r.kind == kind for r in o.rejections) for o in ranking):
            failed.append(name)
    feasible = [o for o in ranking if o.feasible]
    for target in dict.fromkeys(v.target for o in ranking for v in o.verdicts):
        if target in failed:
            continue
        judged = [o for o in feasible if any(v.target == target for v in o.verdicts)]
        if feasible and not judged:  # a target of some classes only (restore time): the feasible ones need none
            continue
        if not any(v.target == target and v.verdict == "met" for o in judged for v in o.verdicts):
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


def _reasons(
    chosen: RankedOption, ranking: list[RankedOption], rivals: list[RankedOption], months: int
) -> tuple[list[str], list[Sentence]]:
    """The choice's reasons in words, and the comparative ones among them as sentences with their numbers."""
    group = (
        "options whose targets are unverified (none missed)"
        if chosen.status != "ok"
        else "options that meet every target on evidence"
        if chosen.verdicts
        else "options that break no provider policy"
    )
    name = f"{chosen.label} {chosen.storage_class}"
    said = [
        sentences.lowest(name, group, months, chosen.horizon_cost_usd, chosen.monthly_cost_usd, _drivers(chosen.cost))
    ]
    reasons = [said[0].text + _unverified_prices(chosen)]
    runner = next((o for o in ranking if o.status == chosen.status and o is not chosen and not o.chosen), None)
    if runner is not None and runner.label == chosen.label and runner.storage_class == chosen.storage_class:
        runner = None
    if runner is not None:
        saving = sentences.saves(
            name,
            f"{runner.label} {runner.storage_class}",
            months,
            chosen.horizon_cost_usd,
            runner.horizon_cost_usd,
            runner.monthly_cost_usd,
            _drivers(runner.cost),
        )
        said.append(saving)
        reasons.append(saving.text + _unverified_prices(runner))
    for rival in rivals:
        if rival.status == "ok" or rival.status == chosen.status:
            continue
        why = (
            "; ".join(rival.violations) if rival.status == "rejected" else f"unverified: {'; '.join(rival.unverified)}"
        )
        passed = sentences.passed_over(
            f"{rival.label} {rival.storage_class}",
            name,
            months,
            rival.horizon_cost_usd,
            chosen.horizon_cost_usd,
            rival.status,
            why,
        )
        said.append(passed)
        reasons.append(passed.text)
    early = [li for li in chosen.cost.line_items if li.category == "early_deletion"]
    if early:
        reasons.append(
            f"pays ${sum(li.amount_usd for li in early):,.2f} a month in minimum-duration charges "
            "(objects deleted before the class's minimum duration)"
        )
    reasons.extend(f"priced path: {path}" for path in priced_paths(chosen.cost))
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
    return reasons, said
