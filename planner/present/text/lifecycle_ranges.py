"""``planner lifecycle --samples``: a lifecycle policy's cost over the outcomes of the workload's ranges."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.present.text.tables import heading, table, usd
from planner.workload import format_field_value

if TYPE_CHECKING:  # the result's module only for the type checker: start-up
    from planner.decide.lifecycle_ranges import PolicyOutcomes


def policy_outcomes(answer: PolicyOutcomes, fmt: str) -> str:
    """The policy's total over the horizon and its last month at p10 / p50 / p90 of the outcomes, and at the
    inputs' central values."""
    months = answer.months
    central = answer.central
    kept = answer.samples - answer.refused
    rows = [
        [f"{q} of {kept:,} outcomes", usd(answer.total_usd[q]), usd(answer.last_month_usd[q])]
        for q in ("p10", "p50", "p90")
    ]
    if central.total_usd is not None and central.last_month_usd is not None:
        rows.append(["every input central", usd(central.total_usd), usd(central.last_month_usd)])
    ranges = ", ".join(
        f"{u.field} {u.kind} {format_field_value(u.field, u.low)}..{format_field_value(u.field, u.high)}"
        for u in answer.inputs
    )
    lines = [
        heading(f"{answer.policy} at {answer.provider} over {months} months ({answer.workload})", fmt),
        table(["", f"{months} months", f"month {months}"], rows, fmt),
        "",
        f"ranges: {ranges}; seed {answer.seed}; each outcome priced month by month as --price-only prices it"
        " (a rule's age rounded to a whole day)",
    ]
    if answer.refused:
        lines.append(
            f"{answer.refused:,} outcomes left out: the provider cannot run the policy there ({answer.first_refusal})"
        )
    return "\n".join(lines)
