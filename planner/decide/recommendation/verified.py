"""A stage ``recommend`` runs when asked for verified prices only: between judging and ranking, every
option whose bill rests on an unverified price (in any month of the horizon) is left out, and the
statement of why goes with the result."""

from __future__ import annotations

from collections.abc import Iterable

from planner.decide.recommendation.models import RankedOption
from planner.errors import InputError
from planner.pricing.breakdown import CostBreakdown


def unverified_lines(bills: Iterable[CostBreakdown]) -> list[str]:
    """The line items of these bills priced with an unverified figure, each named once, in bill order."""
    return list(
        dict.fromkeys(
            item.description for cost in bills for item in cost.line_items if item.price_status.value == "unverified"
        )
    )


def unverified_prices(option: RankedOption) -> list[str]:
    """The line items of the option's bills, over the horizon, priced with an unverified figure."""
    bills = [m.cost for m in option.projection.months] if option.projection is not None else [option.cost]
    return unverified_lines(bills)


def refuse_unverified(bills: list[CostBreakdown]) -> None:
    """``cost --verified-only``: a bill (or every month of a projection) resting on an unverified price
    is refused, naming the lines priced with one ("idrive-e2 standard: rests on unverified prices: IDrive
    e2 storage, ...")."""
    prices = unverified_lines(bills)
    if prices and bills:
        raise InputError(
            f"{bills[0].provider} {bills[0].storage_class}: rests on unverified prices: {', '.join(prices)}",
            source="--verified-only",
        )


def leave_out_unverified(judged: list[RankedOption]) -> tuple[list[RankedOption], list[str]]:
    """The options whose bills rest on verified prices only, and a statement for each one left out
    ("idrive-e2 standard: rests on unverified prices: IDrive e2 storage, ..."); refused when none is left."""
    kept, left_out = [], []
    for option in judged:
        prices = unverified_prices(option)
        if prices:
            left_out.append(f"{option.label} {option.storage_class}: rests on unverified prices: {', '.join(prices)}")
        else:
            kept.append(option)
    if not kept and judged:
        raise InputError(
            f"every allowed option rests on an unverified price ({'; '.join(left_out)}): nothing is left",
            source="--verified-only",
        )
    return kept, left_out
