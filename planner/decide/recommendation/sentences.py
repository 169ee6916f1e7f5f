"""Every comparative sentence ``recommend`` prints, each made by one function from the numbers it states.

A function takes the figures (two bills, a crossing, a saving), writes the sentence from them and
returns it with them (``planner.evidence.Sentence``), so the words cannot say more than the numbers
do and a script can check the one against the other. Verdict sentences (met, missed, unverified)
come from ``TargetVerdict.sentence``; the notes and warnings that bear on an option from
``planner.decide.recommendation.notes``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from planner.evidence import Sentence, SentenceKind
from planner.units import format_bytes


@dataclass(frozen=True)
class Today:
    """Two options' month-one bills at today's egress, which say which of them is the cheaper now."""

    egress_now: float
    stored: float
    option_usd: Decimal
    other_usd: Decimal
    option_total: Decimal | None = None
    """the option's total over the horizon (``months``), which the recommendation ranks by"""
    other_total: Decimal | None = None
    months: int = 0


def _usd(amount: Decimal) -> str:
    return f"${amount:,.2f}"


def _horizon(today: Today) -> tuple[str, dict[str, object]]:
    """A clause when the horizon's totals order the two options otherwise than today's month does (the data
    grows, a minimum charge ends): the month's bills then do not say which is chosen; and its numbers."""
    if today.option_total is None or today.other_total is None:
        return "", {}
    if (today.option_usd <= today.other_usd) == (today.option_total <= today.other_total):
        return "", {}
    word = "cheaper" if today.option_total <= today.other_total else "dearer"
    clause = (
        f"; over {today.months} months it is the {word} ({_usd(today.option_total)} against"
        f" {_usd(today.other_total)}), and that total is what it is ranked by"
    )
    numbers = {"option_total_usd": str(today.option_total), "other_total_usd": str(today.other_total)}
    return clause, {**numbers, "months": today.months}


def _ratio(at: float, stored: float) -> tuple[float | None, str]:
    ratio = at / stored if stored else None
    return ratio, (f" ({ratio:.2f}x stored)" if ratio is not None else "")


def lowest(option: str, group: str, months: int, total: Decimal, month_one: Decimal, drivers: str) -> Sentence:
    """ "lowest 12-month cost among ...": the option's horizon total and month one's."""
    text = f"lowest {months}-month cost among {group}: {_usd(total)} ({_usd(month_one)} this month; drivers: {drivers})"
    return Sentence(
        kind="lowest",
        text=text,
        option=option,
        numbers={"months": months, "total_usd": str(total), "month_usd": str(month_one), "group": group},
    )


def saves(
    option: str, other: str, months: int, total: Decimal, other_total: Decimal, other_month: Decimal, drivers: str
) -> Sentence:
    """ "saves $X over N months against the next such option, OTHER": X is the difference of the totals."""
    saving = other_total - total
    text = (
        f"saves {_usd(saving)} over {months} months against the next such option, {other} "
        f"({_usd(other_total)} over {months} months, {_usd(other_month)} this month; drivers: {drivers})"
    )
    return Sentence(
        kind="saves",
        text=text,
        option=option,
        other=other,
        numbers={
            "months": months,
            "saving_usd": str(saving),
            "option_total_usd": str(total),
            "other_total_usd": str(other_total),
        },
    )


def passed_over(
    option: str, chosen: str, months: int, total: Decimal, chosen_total: Decimal, status: str, why: str
) -> Sentence:
    """A cheaper (or dearer) rival and why it was not chosen: "cheaper" only when its total is below the
    chosen one's, both totals stated."""
    cheaper = total < chosen_total
    verb = "rejected" if status == "rejected" else "not chosen"
    comparison = (
        f" although cheaper ({_usd(total)} against {_usd(chosen_total)} over {months} months)" if cheaper else ""
    )
    text = f"{option} {verb}{comparison}: {why}"
    return Sentence(
        kind="cheaper-than" if cheaper else status_kind(status),
        text=text,
        option=option,
        other=chosen,
        numbers={"months": months, "option_total_usd": str(total), "other_total_usd": str(chosen_total)},
    )


def status_kind(status: str) -> SentenceKind:
    """The verdict kind of a rival's status: rejected (a target missed, a policy broken) or unverified."""
    return "missed" if status == "rejected" else "unverified"


def crossing(
    option: str,
    other: str,
    *,
    at: float,
    direction: str,
    today: Today,
    ends: str = "",
) -> Sentence:
    """Where the two month-one bills cross, by egress: the option "stays cheaper" until there when it is the
    cheaper one today, "becomes cheaper" there when it is the dearer one. ``ends``: the range ends there
    instead (", where its free-egress policy ends"), the bills not crossing."""
    egress_now, stored, option_usd, other_usd = today.egress_now, today.stored, today.option_usd, today.other_usd
    ratio, ratio_text = _ratio(at, stored)
    ratio_text = f"{ratio_text}{ends}"
    now = f"({_usd(option_usd)} against {_usd(other_usd)} a month at today's {format_bytes(egress_now)})"
    kind: SentenceKind = "stays-cheaper-until" if option_usd <= other_usd else "becomes-cheaper-at"
    change = "stays cheaper than {} until" if kind == "stays-cheaper-until" else "becomes cheaper than {} once"
    clause, horizon = _horizon(today)
    text = f"{option} {change.format(other)} monthly egress {direction} {format_bytes(at)}{ratio_text} {now}{clause}"
    return Sentence(
        kind=kind,
        text=text,
        option=option,
        other=other,
        numbers={
            "egress_bytes": at,
            "direction": direction,
            "where": "policy" if ends else "bills cross",
            "ratio_to_stored": ratio,
            "egress_now_bytes": egress_now,
            "option_usd": str(option_usd),
            "other_usd": str(other_usd),
            **horizon,
        },
    )


def everywhere(
    option: str,
    other: str,
    *,
    up_to: float,
    today: Today,
    ends: str = "",
) -> Sentence:
    """No crossing in range: the option is cheaper at every egress up to ``up_to``, or dearer, as today's two
    bills say (``ends``: where the range ends, e.g. a free-egress policy)."""
    egress_now, stored, option_usd, other_usd = today.egress_now, today.stored, today.option_usd, today.other_usd
    ratio, _ = _ratio(up_to, stored)
    ratio_text = f" ({ratio:g}x stored)" if ratio is not None and ends else ""
    cheaper = option_usd <= other_usd
    word = "cheaper" if cheaper else "dearer"
    clause, horizon = _horizon(today)
    text = (
        f"{option} is {word} than {other} at every monthly egress up to {format_bytes(up_to)}{ratio_text}{ends} "
        f"({_usd(option_usd)} against {_usd(other_usd)} a month at today's {format_bytes(egress_now)}){clause}"
    )
    return Sentence(
        kind="cheaper-everywhere" if cheaper else "dearer-everywhere",
        text=text,
        option=option,
        other=other,
        numbers={
            "up_to_bytes": up_to,
            "where": "policy" if ends else "range",
            "egress_now_bytes": egress_now,
            "option_usd": str(option_usd),
            "other_usd": str(other_usd),
            **horizon,
        },
    )


def fair_use(option: str, limit: float, multiple: float, via_cdn: str, note: str) -> Sentence:
    """The chosen provider's fair-use egress limit."""
    text = (
        f"{option} egress is free only while it stays at or below {format_bytes(limit)} a month "
        f"({multiple:g}x stored{via_cdn}); above that the provider may limit or suspend the account{note}"
    )
    return Sentence(
        kind="fair-use-limit", text=text, option=option, numbers={"limit_bytes": limit, "multiple_of_stored": multiple}
    )
