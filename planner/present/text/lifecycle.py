"""Lifecycle policies as text: a policy's bill month by month, and a proposal against today's policy."""

from __future__ import annotations

from decimal import Decimal

from planner.costing.lifecycle_bills import LifecycleCost
from planner.decide.lifecycle_policy import AgeSweep, LifecycleProposal
from planner.present.text.fit import Reasons
from planner.present.text.tables import heading, price_freshness, quantity, table, unit_price, usd, wrap_prose
from planner.units import format_bytes


def lifecycle_cost(cost: LifecycleCost, fmt: str, *, width: int | None = None, lines_of: int | None = None) -> str:
    """Each month's total, then one month's lines by class and ages (the first by default)."""
    parts = [
        heading(f"{cost.policy} at {cost.provider} ({cost.table_version}; {cost.rules_version})", fmt),
        table(
            ["month", "as of", "stored", "objects", "total"],
            [
                [
                    m.month,
                    m.as_of.isoformat(),
                    quantity(Decimal(m.stored_bytes) / 2**30) + " GiB",
                    f"{m.objects:,}",
                    usd(m.total_usd),
                ]
                for m in cost.months
            ],
            fmt,
            width=width,
        ),
        f"\ntotal {usd(cost.total_usd)} over {len(cost.months)} months;"
        f" transitions of the data stored today {usd(cost.one_time_usd)} (once)",
    ]
    shown = cost.months[(lines_of or 1) - 1]
    parts.append("\n" + heading(f"month {shown.month}: lines by class and ages", fmt, level=3))
    parts.append(
        table(
            ["line", "quantity", "unit", "unit price", "amount"],
            [
                [i.description, quantity(i.quantity), i.unit, unit_price(i.unit_price_usd), usd(i.amount_usd)]
                for i in shown.line_items
                if i.amount_usd or i.category != "free_allowance"
            ],
            fmt,
            width=width,
        )
    )
    parts.extend(["", *(wrap_prose(f"- {a}", "  ", width=width) for a in cost.assumptions)])
    parts.extend(wrap_prose(f"! {w}", "  ", width=width) for w in cost.warnings)
    parts.extend(price_freshness((i for m in cost.months for i in m.line_items), width=width))
    return "\n".join(parts)


def _alike(cell: object) -> int:
    """How many policies costing the same a ranking row already stands for ("... (+2 alike)": 2)."""
    text = str(cell)
    return int(text.rsplit("(+", 1)[1].split()[0]) if "(+" in text else 0


def _classes(policy: str) -> set[str]:
    """The classes a policy's one-line form names ("standard -> 30d standard-ia -> 400d expire")."""
    return {step.split()[-1] for step in policy.split(" -> ")} - {"expire"}


def lifecycle_proposal(proposal: LifecycleProposal, fmt: str, *, width: int | None = None, top: int = 10) -> str:
    """Today's policy, the proposal, the saving, the one-time cost and the payback month; the ranking with
    why cheaper-looking policies lose and which were rejected."""
    current, proposed = proposal.current, proposal.proposed
    last = proposal.months
    payback = f"month {proposal.payback_month}" if proposal.payback_month else f"not within {last} months"
    today = current.policy
    if current.placement:
        held = ", ".join(f"{name} {format_bytes(size, binary=True)}" for name, size in current.placement.items())
        today = f"{today} (placed today: {held})"
    summary = [
        ["today", today, usd(current.total_usd), usd(current.months[-1].total_usd)],
        ["proposed", proposed.policy, usd(proposed.total_usd), usd(proposed.months[-1].total_usd)],
    ]
    parts = [
        heading(
            f"Lifecycle for {proposal.workload} at {proposal.provider} over {last} months"
            f" ({current.table_version}; {current.rules_version})",
            fmt,
        ),
        table(["", "policy", f"{last} months", f"month {last}"], summary, fmt, width=width),
        "",
        wrap_prose(
            (
                "Today's policy is already the cheapest of the candidates."
                if proposed.policy == current.policy and proposed.start_class == current.start_class
                else f"Saving {usd(proposal.saving_per_month_usd)} a month (month {last}); one-time transitions of"
                f" the data stored today {usd(proposal.one_time_usd)}; pays back in {payback}."
            )
            + (
                f" The candidates use only the classes the workload allows (constraints.storage_classes:"
                f" {', '.join(proposal.allowed_classes)})."
                if proposal.allowed_classes
                else ""
            ),
            width=width,
        ),
    ]
    feasible = [r for r in proposal.ranking if r.feasible]
    rejected = [r for r in proposal.ranking if not r.feasible]
    parts.append(
        "\n"
        + heading(
            f"Ranking (the {min(top, len(feasible))} cheapest of {proposal.candidates} candidate policies, then each"
            " class's cheapest)",
            fmt,
            level=3,
        )
    )
    shown = feasible[:top]
    # and, to say why they lose, each class on its own and the cheapest policy of each class not shown yet
    seen = {name for r in shown for name in _classes(r.policy)}
    for ranked in feasible[top:]:
        new = _classes(ranked.policy) - seen
        if new or not any(rule.to for rule in ranked.rules):
            shown.append(ranked)
            seen |= new
    rows: list[list[object]] = []
    previous: tuple[object, ...] | None = None
    for r in shown:
        figures = (r.total_usd, r.last_month_usd, r.one_time_usd)
        if figures == previous and rows:
            rows[-1][1] = str(rows[-1][1]).split(" (+")[0] + f" (+{_alike(rows[-1][1]) + 1} alike)"
            continue
        previous = figures
        rows.append(
            [
                proposal.ranking.index(r) + 1,
                r.policy,
                usd(r.total_usd),
                usd(r.last_month_usd),
                usd(r.one_time_usd),
                Reasons((r.why,)) if r.why else "",
            ]
        )
    parts.append(table(["#", "policy", "total", f"month {last}", "one-time", "why it loses"], rows, fmt, width=width))
    if rejected:
        parts.append("")
        parts.append(
            wrap_prose(
                f"{len(rejected)} policies rejected, e.g. {rejected[0].policy}: {rejected[0].why}", "  ", width=width
            )
        )
    parts.extend(["", *(wrap_prose(f"- {a}", "  ", width=width) for a in proposed.assumptions)])
    priced = (i for policy in (current, proposed) for m in policy.months for i in m.line_items)
    parts.extend(price_freshness(priced, width=width))
    return "\n".join(parts)


def age_sweep(swept: AgeSweep, fmt: str) -> str:
    """A rule's ages and what the policy costs with each, the cheapest marked; refused ages say why."""
    rows = [
        [
            f"{p.after_days}d" + (" *" if p.after_days == swept.cheapest_days else ""),
            usd(p.total_usd) if p.total_usd is not None else "",
            usd(p.last_month_usd) if p.last_month_usd is not None else "",
            usd(p.one_time_usd) if p.one_time_usd is not None else "",
            p.refused or "",
        ]
        for p in swept.points
    ]
    return "\n".join(
        [
            heading(f"{swept.field} at {swept.provider} over {swept.months} months ({swept.workload})", fmt),
            table(["after", f"{swept.months} months", f"month {swept.months}", "one-time", "refused"], rows, fmt),
            "",
            f"cheapest: after {swept.cheapest_days}d (*)" if swept.cheapest_days is not None else "no age is allowed",
        ]
    )
