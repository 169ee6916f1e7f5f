"""The recommendation: the ranking of every option, the choice and its reasons."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from planner.evidence import PRICE_MARKERS, Evidence, legend, marked, price_legend, weakest_price
from planner.present.text.fit import Reasons
from planner.present.text.tables import csv_text, heading, plain_number, price_freshness, table, usd, wrap_prose
from planner.units import format_duration, format_rate

if TYPE_CHECKING:  # the results' modules (and numpy behind them) only for the type checker: start-up
    from planner.decide.recommendation import PerformanceEstimate, RankedOption, Recommendation


def ranking_headers(result: Recommendation) -> list[str]:
    """The ranking's columns; "writes" only when the workload sets a write target."""
    writes = ["writes"] if result.workload.performance.write_throughput is not None else []
    return [
        "#",
        "provider",
        "class",
        "this month",
        f"{result.months} months",
        "p99 TTFB",
        "reads",
        *writes,
        "throttled (sim.)",
        "verdict",
        "why not",
    ]


def _figure(text: str, evidence: Evidence | None) -> str:
    return marked(text, evidence or "assumed")


def _ttfb_cell(perf: PerformanceEstimate) -> str:
    """The TTFB the verdict rests on: the profile's figure (a floor shown as one), else the simulated p99."""
    if perf.p99_ttfb_s is not None:
        floor = ">=" if perf.ttfb_is_floor else ""
        return floor + _figure(format_duration(perf.p99_ttfb_s), perf.p99_ttfb_evidence)
    if perf.simulated_p99_ttfb_s is not None:
        return _figure(format_duration(perf.simulated_p99_ttfb_s), perf.simulated_p99_ttfb_evidence)
    return "no figure"


def _money(amount: Decimal, price_status: str) -> str:
    return f"{usd(amount)}{PRICE_MARKERS.get(price_status, '')}"


def horizon_price_status(option: RankedOption) -> str:
    """The weakest sourcing of the prices of every month's bill over the horizon (the month's alone
    when the option has no projection)."""
    if option.projection is None:
        return option.price_status
    return weakest_price(
        item.price_status.value for month in option.projection.months for item in month.cost.line_items
    )


def _judged_cell(option: RankedOption, target: str) -> str | None:
    """The figure the option's verdict on ``target`` was judged on, marked with its evidence (a bound said
    as one): the column shows what the reasons say. None without such a verdict."""
    verdict = next((v for v in option.verdicts if v.target == target and v.achieved is not None), None)
    if verdict is None or verdict.achieved is None:
        return None
    bound = {"at least": ">=", "at most": "<="}.get(verdict.bound, "")
    return bound + _figure(verdict.achieved.split(" ± ")[0], verdict.evidence)


def ranking_rows(result: Recommendation) -> list[tuple[str, ...]]:
    """One row per option, as `planner recommend` prints them (the report uses the same rows)."""
    from planner.decide.recommendation.performance import RESTORE_FIRST  # loaded with the result already

    rows: list[tuple[str, ...]] = []
    for option in result.ranking:
        perf = option.performance
        ttfb = _judged_cell(option, "p99 TTFB") or _ttfb_cell(perf)
        reads = _judged_cell(option, "read throughput") or (
            "no figure"
            if perf.read_throughput_bits_per_s is None
            else _figure(format_rate(perf.read_throughput_bits_per_s), perf.read_throughput_evidence)
        )
        throttled = "-" if perf.simulation is None else f"{perf.throttle_rate or 0:.1%}"
        if perf.read_bound == RESTORE_FIRST:
            ttfb = reads = "restore first"
            throttled = "-"
        writes = []
        if result.workload.performance.write_throughput is not None:
            writes = [
                "no figure"
                if perf.write_throughput_bits_per_s is None
                else _figure(format_rate(perf.write_throughput_bits_per_s), perf.write_throughput_evidence)
            ]
        verdict = "CHOSEN" if option.chosen else option.status
        rows.append(
            (
                str(option.rank),
                option.label,
                option.storage_class,
                _money(option.monthly_cost_usd, option.price_status),
                _money(option.horizon_cost_usd, horizon_price_status(option)),
                ttfb,
                reads,
                *writes,
                throttled,
                verdict,
                str(_why_not(option)),
            )
        )
    return rows


def _why_not(option: RankedOption) -> Reasons:
    """Why the option is not the answer: the targets it misses (else those unverified), and the single-zone
    note wherever the class is ranked."""
    why = option.violations or [f"unverified: {reason}" for reason in option.unverified]
    return Reasons([*why, *(n.text for n in option.notes if n.kind == "single-zone")])


def legends() -> list[str]:
    """What the markers after figures and amounts mean."""
    return [legend(), price_legend()]


def ranking_csv(result: Recommendation) -> str:
    """The ranking as numbers, one row per option, with each figure's evidence beside it."""
    headers = ["rank", "provider", "class", "month_usd", f"{result.months}_months_usd", "price_status"]
    headers += [
        "p99_ttfb_s",
        "p99_ttfb_evidence",
        "read_bits_per_s",
        "read_evidence",
        "throttle_rate",
        "verdict",
        "why",
    ]
    rows = []
    for o in result.ranking:
        perf = o.performance
        ttfb, ttfb_evidence = perf.p99_ttfb_s, perf.p99_ttfb_evidence
        if ttfb is None:
            ttfb, ttfb_evidence = perf.simulated_p99_ttfb_s, perf.simulated_p99_ttfb_evidence
        rows.append(
            (
                o.rank,
                o.provider,
                o.storage_class,
                plain_number(o.monthly_cost_usd),
                plain_number(o.horizon_cost_usd),
                o.price_status,
                plain_number(ttfb),
                ttfb_evidence,
                plain_number(perf.read_throughput_bits_per_s),
                perf.read_throughput_evidence,
                plain_number(perf.throttle_rate),
                "chosen" if o.chosen else o.status,
                "; ".join(o.violations or [f"unverified: {r}" for r in o.unverified]),
            )
        )
    return csv_text(headers, rows)


def _freshness(result: Recommendation, width: int | None) -> list[str]:
    """When the prices of the answer's bill were read: the chosen option's (else the provisional one's, else
    the cheapest's) every month of the horizon."""
    shown = result.recommendation or result.provisional
    option = next(
        (
            o
            for o in result.ranking
            if shown is not None and (o.label, o.storage_class) == (shown.label, shown.storage_class)
        ),
        result.ranking[0] if result.ranking else None,
    )
    if option is None:
        return []
    months = option.projection.months if option.projection is not None else []
    items = [i for m in months for i in m.cost.line_items] or option.cost.line_items
    return price_freshness(items, width=width, subject=f"{option.label} {option.storage_class}")


def recommendation(
    result: Recommendation, fmt: str, *, width: int | None = None, exact_measure_follows: bool = False
) -> str:
    if fmt == "csv":
        return ranking_csv(result)
    rows = ranking_rows(result)
    name = result.workload.name
    # where the table does not fit, each reason goes under it, numbered (the same reason under one number)
    reasoned = [(*row[:-1], _why_not(option)) for row, option in zip(rows, result.ranking, strict=True)]
    parts = [
        heading(f"Recommendation for {name} (prices in force on {result.as_of}, {result.months}-month horizon)", fmt),
        *([f"Billed: {result.billing}", *([""] if fmt == "markdown" else [])] if result.billing else []),
        table(ranking_headers(result), reasoned, fmt, width=width, keys=3),
        "",
        *(wrap_prose(text, width=width) for text in legends()),
        *(wrap_prose(f"Left out (--verified-only): {text}", "  ", width=width) for text in result.left_out),
        *_freshness(result, width),
        *(wrap_prose(f"Warning: {w.text}", "  ", width=width) for w in result.warnings),
        "",
    ]
    if result.recommendation is None:
        parts.append(
            "No option meets every target with evidence (--strict exits 1 on this). Not met on evidence anywhere: "
            + ", ".join(result.failed_targets)
        )
        provisional = result.provisional
        if provisional is None:
            return "\n".join(parts)
        option = next(
            o for o in result.ranking if o.label == provisional.label and o.storage_class == provisional.storage_class
        )
        parts += [
            "",
            heading(
                f"Cheapest with its targets unverified: {provisional.label} {provisional.storage_class}",
                fmt,
                level=3,
            ),
        ]
        parts += [wrap_prose(f"- {reason}", "  ", width=width) for reason in provisional.reasons]
        parts += [wrap_prose(f"- unverified: {reason}", "  ", width=width) for reason in option.unverified]
        if not exact_measure_follows:  # else the caller prints the exact ``measure --for`` commands below
            parts.append("- measure it (planner measure) and run recommend again with --profiles")
        if option.warnings:
            parts += ["", heading("Caveats", fmt, level=3)] + [
                wrap_prose(f"- {w}", "  ", width=width) for w in option.warnings
            ]
        return "\n".join(parts + _terms(option, fmt, width))
    choice = result.recommendation
    parts.append(heading(f"Use {choice.label} {choice.storage_class}", fmt, level=3))
    parts += [wrap_prose(f"- {reason}", "  ", width=width) for reason in choice.reasons]
    if result.break_even:
        parts += ["", heading("What would change the answer", fmt, level=3)]
        parts += [wrap_prose(f"- {point.statement}", "  ", width=width) for point in result.break_even]
    chosen = next(o for o in result.ranking if o.chosen)
    if chosen.warnings:
        parts += ["", heading("Caveats", fmt, level=3)] + [
            wrap_prose(f"- {w}", "  ", width=width) for w in chosen.warnings
        ]
    return "\n".join(parts + _terms(chosen, fmt, width))


def _terms(option: RankedOption, fmt: str, width: int | None) -> list[str]:
    """The terms of the option's tables (price table notes, egress policy, the CDN's), under the option."""
    said = [n for n in option.notes if n.kind == "terms"]
    if not said:
        return []
    title = f"Terms that bear on {option.label} {option.storage_class}"
    return ["", heading(title, fmt, level=3), *(wrap_prose(f"- {n.text}", "  ", width=width) for n in said)]
