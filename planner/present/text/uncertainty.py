"""The ranking under uncertain inputs: each option over sampled outcomes and what moves the bill."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from planner.present.text.tables import heading, marked_usd, price_legends, table, usd, wrap_prose
from planner.workload import format_field_value

if TYPE_CHECKING:  # the results' modules (and numpy behind them) only for the type checker: start-up
    from planner.decide.uncertainty import Uncertain, UncertainAnswer


def uncertain_note(inputs: Sequence[Uncertain], answer: UncertainAnswer | None, *, width: int | None = None) -> str:
    """What the ranking above assumed of the inputs given as ranges."""
    central = ", ".join(f"{u.field} = {format_field_value(u.field, u.central, whole=u.whole)}" for u in inputs)
    text = f"\nThe ranking above prices the central value of each input given as a range: {central}."
    if answer is None:
        text += " Add --samples N to price the ranges themselves."
    return wrap_prose(text, width=width)


def uncertain_answer(answer: UncertainAnswer, fmt: str, *, width: int | None = None) -> str:
    """Each option over the sampled outcomes, the favourite's robustness, and what moves its bill."""

    def money(amount: float, status: str) -> str:
        return marked_usd(Decimal(repr(amount)), status)

    rows = [
        (
            o.option,
            "rejected" if o.option in answer.rejected else f"{100 * o.p_cheapest:.1f} %",
            f"{100 * o.p_feasible:.1f} %",
            money(o.p10_usd, o.price_status),
            money(o.p50_usd, o.price_status),
            money(o.p90_usd, o.price_status),
            " / ".join(money(v, o.price_status) for v in (o.horizon_p10_usd, o.horizon_p50_usd, o.horizon_p90_usd)),
            "-" if o.expected_regret_usd == float("inf") else usd(Decimal(repr(o.expected_regret_usd))),
        )
        for o in answer.options
    ]
    favourite = answer.options[0].price_status if answer.options else "verified-primary"
    horizon = f"p10 / p50 / p90 over {answer.months} months"
    headers = ["option", "cheapest", "no policy broken", "p10 a month", "p50", "p90", horizon, "expected regret"]
    inputs = "; ".join(
        f"{u.field}: {u.kind} {format_field_value(u.field, u.low, whole=u.whole)}"
        + (f" / {format_field_value(u.field, u.likely, whole=u.whole)}" if u.likely is not None else "")
        + f" / {format_field_value(u.field, u.high, whole=u.whole)}"
        for u in answer.inputs
    )
    swings = [
        (
            s.field,
            money(s.at_p10_usd, favourite),
            money(s.at_p90_usd, favourite),
            "-" if s.first_order_index is None else f"{100 * s.first_order_index:.0f} %",
        )
        for s in answer.tornado
    ]
    if answer.correlations:
        together = ", ".join(f"{c.first} and {c.second} {c.rho:g}" for c in answer.correlations)
        inputs += f"; correlated (a Gaussian copula over normal scores): {together}"
    reasons: dict[str, list[str]] = {}
    for label, why in answer.by_engine.items():
        reasons.setdefault(why, []).append(label)
    engine = [
        wrap_prose(
            f"Priced outcome by outcome with the line-item engine, not as arrays: {', '.join(labels)} ({why}).",
            width=width,
        )
        for why, labels in reasons.items()
    ]
    rejected = [
        wrap_prose(f"Never the cheapest: {label} is rejected above whatever its bill: {why}", "  ", width=width)
        for label, why in answer.rejected.items()
    ]
    return "\n".join(
        [
            "",
            heading(f"Under uncertainty: {answer.samples:,} outcomes (seed {answer.seed})", fmt, level=3),
            wrap_prose(f"Inputs: {inputs}.", width=width),
            *engine,
            table(headers, rows, fmt, width=width),
            *rejected,
            "",
            wrap_prose(answer.statement + ".", width=width),
            "",
            heading(
                f"What moves the favourite's bill over {answer.months} months (one input at its p10 and p90,"
                " the others central)",
                fmt,
                level=3,
            ),
            table(["input", "at p10", "at p90", "share of its variance (first-order index)"], swings, fmt, width=width),
            *(wrap_prose(line, "  ", width=width) for line in _tail_notes(answer)),
            *price_legends((o.price_status for o in answer.options), width=width),
        ]
    )


def _tail_notes(answer: UncertainAnswer) -> list[str]:
    """What the tornado's figures say together that neither says alone: an input whose share is large while
    the bill is the same at its p10 and p90 moves the bill only beyond them; correlated inputs' shares
    overlap, so they can sum past 100 %."""
    notes = []
    for swing in answer.tornado:
        index = swing.first_order_index
        if index is not None and index >= 0.05 and swing.at_p10_usd == swing.at_p90_usd:
            partners = [
                c.second if c.first == swing.field else c.first
                for c in answer.correlations
                if swing.field in (c.first, c.second)
            ]
            via = f", or through {', '.join(partners)}, correlated with it" if partners else ""
            notes.append(
                f"{swing.field} explains {100 * index:.0f} % of the bill's variance while the bill is the same at"
                f" its p10 and p90: the bill varies only in its outer tenths{via}."
            )
    shares = [s.first_order_index for s in answer.tornado if s.first_order_index is not None]
    if answer.correlations and sum(shares) > 1:
        notes.append(
            f"The shares sum to {100 * sum(shares):.0f} %: correlated inputs explain the same variance together,"
            " so each one's share counts it."
        )
    return notes
