"""Which lifecycle policy to apply: search a provider's classes for the cheapest policy given the reads by
age, under the workload's restore constraint, and show it against what the bucket does today.

A short pipeline over records: candidates (every class written to directly, one transition at each age of
a grid, then a second after each of the three cheapest first moves; each allowed by the provider's
lifecycle rules) > priced (``price_lifecycle`` over the horizon) > judged (an archive class that reads
reach must restore within ``performance.max_restore``) > ranked (by the horizon's total) > explained
(against today: the saving a month, the one-time transitions, the payback month; and for each policy that
loses, what it pays beyond the winner).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from pydantic import BaseModel, ConfigDict

from planner.costing.bills import hottest_class
from planner.costing.lifecycle_bills import LifecycleCost, behind_cdn, default_write_class, price_lifecycle
from planner.errors import InputError
from planner.pricing import catalog
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Money
from planner.pricing.transition_rules import LifecycleRules, lifecycle_rules
from planner.units import parse_duration
from planner.workload import Workload
from planner.workload.aging import DAY_S, IntelligentTiering, LifecycleRule, check_rules
from planner.workload.targets import RestoreTimes, parse_stated_time, restore_time_verdict, restore_times

ZERO = Decimal(0)
AGE_GRID_DAYS = (0, 30, 60, 90, 180, 365)
"""The ages at which candidate policies move data (days since creation)."""
SECOND_MOVE_AFTER = 3
"""Two-move policies are tried after this many of the cheapest feasible one-move policies."""
ARCHIVE_GRID = (
    {"archive_access": 90},
    {"deep_archive_access": 180},
    {"archive_access": 90, "deep_archive_access": 180},
)
"""The archive tiers (days unread) tried on each candidate that puts objects in a class that has them."""


class RankedPolicy(BaseModel):
    """One candidate policy: its cost over the horizon and how it fared."""

    model_config = ConfigDict(frozen=True)

    policy: str
    start_class: str
    rules: list[LifecycleRule]
    total_usd: Money
    last_month_usd: Money
    one_time_usd: Money
    feasible: bool
    why: str | None = None
    """Why it was rejected, or why it loses although its storage costs less than the winner's."""


class LifecycleProposal(BaseModel):
    """The cheapest feasible policy at a provider against today's, and the ranking that chose it."""

    model_config = ConfigDict(frozen=True)

    workload: str
    provider: str
    months: int
    current: LifecycleCost
    proposed: LifecycleCost
    saving_per_month_usd: Money
    """Today's bill less the proposal's, in the horizon's last month (once the transitions are done)."""
    one_time_usd: Money
    payback_month: int | None
    """The first month by whose end the proposal has saved what it cost to apply (None: not in the horizon)."""
    ranking: list[RankedPolicy]
    candidates: int
    allowed_classes: list[str] = []
    """the classes the workload allows (``constraints.storage_classes``; empty: every class): the candidates' only"""


# --------------------------------------------------------------------------- candidates


def _expiry(workload: Workload) -> list[LifecycleRule]:
    """The workload's own expiry rule, kept in every candidate."""
    return [rule for rule in workload.storage.lifecycle or [] if rule.expire]


def _allowed(rules: list[LifecycleRule], start: str, allowed: LifecycleRules) -> bool:
    current, entered = start, 0
    for rule in rules:
        if rule.to is None:
            continue
        if rule.to not in allowed.transitions.get(current, []):
            return False
        if rule.after_days < allowed.min_age_days.get(rule.to, 0):
            return False
        if rule.after_days - entered < allowed.min_days_in_source.get(current, 0):
            return False
        current, entered = rule.to, rule.after_days
    return True


def candidates(
    workload: Workload, table: PriceTable, allowed: LifecycleRules, write_class: str
) -> list[tuple[str, list[LifecycleRule]]]:
    """(class written to, rules) for the first round: each class alone, then one move from ``write_class`` at
    each age of the grid that the provider allows, before the workload's own expiry."""
    expiry = _expiry(workload)
    # a class outside the provider's lifecycle ladder (S3 Express One Zone, in directory buckets) is no policy's
    written = [n for n in table.classes if not allowed.classes_by_warmth or n in allowed.classes_by_warmth]
    found: list[tuple[str, list[LifecycleRule]]] = [(name, list(expiry)) for name in written]
    for first in (c for c in allowed.transitions.get(write_class, []) if c in table.classes):
        for age in _ages(expiry):
            one = [LifecycleRule(after=age * 86400.0, to=first)]
            if _allowed(one, write_class, allowed):
                found.append((write_class, one + expiry))
    return found


def second_moves(
    workload: Workload, table: PriceTable, allowed: LifecycleRules, write_class: str, first: LifecycleRule
) -> list[tuple[str, list[LifecycleRule]]]:
    """(class written to, rules) for the second round: after ``first``, a second move at each later age of the
    grid that the provider allows."""
    expiry = _expiry(workload)
    found = []
    assert first.to is not None
    for second in (c for c in allowed.transitions.get(first.to, []) if c in table.classes):
        for later in (a for a in _ages(expiry) if a > first.after_days):
            two = [first, LifecycleRule(after=later * 86400.0, to=second)]
            if _allowed(two, write_class, allowed):
                found.append((write_class, two + expiry))
    return found


def _ages(expiry: list[LifecycleRule]) -> list[int]:
    """The grid's ages before the expiry."""
    return [a for a in AGE_GRID_DAYS if not expiry or a < expiry[0].after_days]


# --------------------------------------------------------------------------- judging and explaining


def archive_variants(
    candidates: list[tuple[str, list[LifecycleRule]]], table: PriceTable, allowed: LifecycleRules
) -> list[tuple[str, list[LifecycleRule], IntelligentTiering]]:
    """Each candidate that puts objects in a class with opt-in archive tiers, with each set of tiers of the grid
    the provider allows and the table prices."""
    tiers = {tier.option: tier for tier in allowed.archive_tiers}
    found = []
    for start, rules in candidates:
        used = {start, *(rule.to for rule in rules if rule.to)}
        for grid in ARCHIVE_GRID:
            picked = [tiers.get(option) for option in grid]
            if not all(
                tier is not None
                and tier.storage_class in used
                and tier.storage_class in table.classes
                and tier.tier in table.classes[tier.storage_class].access_tiers
                for tier in picked
            ):
                continue
            config = IntelligentTiering.model_validate({option: days * DAY_S for option, days in grid.items()})
            found.append((start, rules, config))
    return found


def _archive_restore_problem(
    workload: Workload, allowed: LifecycleRules, table: PriceTable, cost: LifecycleCost
) -> str | None:
    """Why a policy's Intelligent-Tiering archive tier cannot serve the reads that restore from it, if it cannot."""
    for tier in allowed.archive_tiers:
        if tier.option not in cost.restored_tiers:
            continue
        stated = [t for t in (parse_stated_time(o, text) for o, text in tier.restore.items()) if t is not None]
        times = RestoreTimes(
            storage_class=f"{table.classes[tier.storage_class].name} {tier.name} tier",
            table_version=f"{table.version}, {table.provider} lifecycle rules of {allowed.effective_from}",
            priced_option=tier.priced_restore,
            options=tuple(stated),
            unreadable=tuple(o for o in tier.restore if o not in {t.option for t in stated}),
        )
        verdict = restore_time_verdict(workload, times)
        if verdict is not None and verdict.verdict == "missed":
            return verdict.reason
    return None


def _restore_problem(workload: Workload, table: PriceTable, cost: LifecycleCost) -> str | None:
    """Why a policy's archive class cannot serve the reads that reach it, if it cannot."""
    for name in table.classes:
        if not table.restore_required(name):
            continue
        read = any(month.reads_by_class.get(name, 0) > 0 for month in cost.months)
        if not read:
            continue
        verdict = restore_time_verdict(workload, restore_times(table, name))
        if verdict is not None and verdict.verdict == "missed":
            return verdict.reason
    return None


_KINDS = (
    ("monitoring", "monitoring and automation"),
    ("lifecycle-transition", "transition requests"),
    ("minimum billable object size", "minimum object size"),
    ("per-object overhead", "per-object overhead"),
    ("restored copies", "restored copies"),
)


def _kind(category: str, description: str) -> str:
    for words, kind in _KINDS:
        if words in description:
            return kind
    return {"early_deletion": "early deletion", "retrieval": "retrieval"}.get(category, category)


def _by_kind(cost: LifecycleCost) -> dict[str, Decimal]:
    totals: dict[str, Decimal] = {}
    for month in cost.months:
        for item in month.line_items:
            kind = _kind(item.category, item.description)
            totals[kind] = totals.get(kind, ZERO) + item.amount_usd
    return totals


def _why_it_loses(loser: LifecycleCost, winner: LifecycleCost, small_share: Decimal, least: int) -> str | None:
    """What a policy pays beyond the winner, kind by kind, largest first, and what it pays less: every kind
    whose cost differs is named, so the amounts add up to the difference (more, less what is less); for a
    policy whose storage costs less, that first."""
    if loser.total_usd <= winner.total_usd:
        return None
    lost, won = _by_kind(loser), _by_kind(winner)
    differs = {kind: lost.get(kind, ZERO) - won.get(kind, ZERO) for kind in set(lost) | set(won)}
    storage = differs.pop("storage", ZERO)
    more = sorted(((k, d) for k, d in differs.items() if d > 0), key=lambda item: (-item[1], item[0]))
    less = sorted(((k, -d) for k, d in differs.items() if d < 0), key=lambda item: (-item[1], item[0]))
    also_less = f" (and {_listed(less)} less)" if less else ""
    if storage < 0:
        text = (
            f"its storage is ${-storage:,.2f} cheaper, but it pays {_listed(more) or 'more elsewhere'} more{also_less}"
        )
    else:
        paid = [("storage", storage)] if storage > 0 else []
        text = f"${loser.total_usd - winner.total_usd:,.2f} more: {_listed(paid + more)}{also_less}"
    if "monitoring and automation" in lost and small_share > 0 and least:
        text += f"; {small_share * 100:.0f}% of the objects are under {least:,} bytes and never move or tier"
    return text


def _listed(amounts: list[tuple[str, Decimal]]) -> str:
    return ", ".join(f"{kind} ${amount:,.2f}" for kind, amount in amounts)


def _payback(current: LifecycleCost, proposed: LifecycleCost) -> int | None:
    saved = ZERO
    for before, after in zip(current.months, proposed.months, strict=True):
        saved += before.total_usd - after.total_usd
        if saved >= 0:
            return after.month
    return None


def _small_share(workload: Workload, least: int) -> Decimal:
    sizes = workload.storage.size_distribution
    if sizes is None:
        return Decimal(int(workload.storage.mean_object_bytes < least))
    return sum((Decimal(str(s.share)) for s in sizes if s.size < least), ZERO)


# --------------------------------------------------------------------------- the pipeline


def _ranking(
    priced: list[tuple[LifecycleCost, str | None]], winner: LifecycleCost, workload: Workload, least: int
) -> list[RankedPolicy]:
    """Every priced candidate in order, each with why it is not proposed: the restore it cannot serve,
    or what it pays beyond ``winner`` (``least``: the size below which an object counts as small for
    the class's minimum object size)."""
    small = _small_share(workload, least)
    return [
        RankedPolicy(
            policy=cost.policy,
            start_class=cost.start_class,
            rules=cost.rules,
            total_usd=cost.total_usd,
            last_month_usd=cost.months[-1].total_usd,
            one_time_usd=cost.one_time_usd,
            feasible=problem is None,
            why=problem if problem is not None else _why_it_loses(cost, winner, small, least),
        )
        for cost, problem in priced
    ]


SEARCH_BUDGET = 8_000
"""The largest (age bins + 10) x months ** 1.25 the search prices: every candidate policy bills each month's
cohorts against each bin, so its time grows with both (measured: 100 bins over 12 months or 5 over 120
months in about 10 s of one core, 100 over 120 in over 2 minutes); past this it is refused, not waited on."""


def check_search_size(workload: Workload, months: int) -> None:
    """Refuse, in one line naming the field, age bins too many for the search over ``months`` to answer
    within a minute."""
    by_age = workload.traffic.reads_by_age or {}
    stored = workload.storage.age or {}
    bins = len(by_age) + len(stored)
    if (bins + 10) * months**1.25 <= SEARCH_BUDGET:
        return
    most = max(int(SEARCH_BUDGET / months**1.25) - 10, 0)
    field = "traffic.reads_by_age" if len(by_age) >= len(stored) else "storage.age"
    raise InputError(
        f"{bins:,} age bins over {months} months are more than the lifecycle search prices in a minute"
        f" (at most {most:,} bins over {months} months): merge neighbouring bins, or give fewer months",
        field=field,
    )


def propose_lifecycle(
    workload: Workload,
    provider: str,
    *,
    current_class: str | None = None,
    months: int | None = None,
    as_of: dt.date | None = None,
    region: str | None = None,
) -> LifecycleProposal:
    """The cheapest policy at ``provider`` for ``workload``, against today's: ``storage.lifecycle`` applied to
    objects written to ``current_class`` (default: the placement's class with the highest storage price,
    the placement's data staying where it is; without a placement, standard)."""
    start = as_of or dt.date.today()
    horizon = months or workload.constraints.months
    check_search_size(workload, horizon)
    # the candidates, restore checks and ranking judge the bucket's own traffic (``price_lifecycle`` bills it)
    origin, _ = behind_cdn(workload, provider, start, region)
    table = catalog.table_for(provider, start, region)
    allowed = lifecycle_rules(provider, start)
    placement = workload.storage.placement if current_class is None else None
    write_class = current_class or default_write_class(table)
    if placement and all(name in table.classes for name in placement):
        write_class = hottest_class(list(placement), table)
    current = price_lifecycle(
        workload,
        provider,
        start_class=write_class,
        current_class=current_class,
        applied=True,
        months=horizon,
        as_of=start,
        region=region,
    )
    priced: list[tuple[LifecycleCost, str | None]] = []
    # the candidates carry their own Intelligent-Tiering archive tiers, or none
    plain = workload.model_copy(update={"storage": workload.storage.model_copy(update={"intelligent_tiering": None})})

    def price(options: Sequence[tuple[str, list[LifecycleRule], IntelligentTiering | None]]) -> None:
        for written_to, rules, config in options:
            priced_workload = plain
            if config is not None:
                storage = plain.storage.model_copy(update={"intelligent_tiering": config})
                priced_workload = plain.model_copy(update={"storage": storage})
            cost = price_lifecycle(
                priced_workload,
                provider,
                rules,
                start_class=written_to,
                current_class=None if placement else write_class,
                months=horizon,
                as_of=start,
                region=region,
                check_restore=False,
            )
            problem = _restore_problem(origin, table, cost) or _archive_restore_problem(origin, allowed, table, cost)
            priced.append((cost, problem))

    kept = set(workload.constraints.storage_classes or ())

    def within(found: list[tuple[str, list[LifecycleRule]]]) -> list[tuple[str, list[LifecycleRule]]]:
        """The candidates whose every class the workload allows (``constraints.storage_classes``, if given)."""
        if not kept:
            return found
        return [(to, rules) for to, rules in found if to in kept and all(r.to in kept for r in rules if r.to)]

    options = within(candidates(origin, table, allowed, write_class))
    price([(written_to, rules, None) for written_to, rules in options])
    # a second move is tried after each of the cheapest first moves that can serve the reads
    moves = sorted(
        (item for item in priced if item[1] is None and any(r.to for r in item[0].rules)),
        key=lambda item: item[0].total_usd,
    )
    for cost, _ in moves[:SECOND_MOVE_AFTER]:
        first = next(r for r in cost.rules if r.to)
        more = within(second_moves(origin, table, allowed, write_class, first))
        options += more
        price([(written_to, rules, None) for written_to, rules in more])
    archived = archive_variants(options, table, allowed)
    price(archived)
    # on a tie, the simpler policy first: objects written where they are today, fewer rules
    priced.sort(
        key=lambda item: (
            item[1] is not None,
            item[0].total_usd,
            item[0].start_class != write_class,
            len(item[0].rules),
        )
    )
    cheapest = priced[0][0] if priced and priced[0][1] is None else None
    # today's policy wins ties: a change that saves nothing is not proposed
    winner = cheapest if cheapest is not None and cheapest.total_usd < current.total_usd else current
    ranking = _ranking(priced, winner, origin, allowed.default_min_object_bytes or 131072)
    return LifecycleProposal(
        workload=workload.name,
        provider=provider,
        months=horizon,
        current=current,
        proposed=winner,
        saving_per_month_usd=current.months[-1].total_usd - winner.months[-1].total_usd,
        one_time_usd=winner.one_time_usd,
        payback_month=_payback(current, winner),
        ranking=ranking,
        candidates=len(options) + len(archived),
        allowed_classes=sorted(kept),
    )


# --------------------------------------------------------------------------- a rule's age as a range


class AgePoint(BaseModel):
    """The policy priced with one rule acting at ``after_days``, or why the provider refuses that age."""

    model_config = ConfigDict(frozen=True)

    after_days: int
    total_usd: Money | None = None
    last_month_usd: Money | None = None
    one_time_usd: Money | None = None
    refused: str | None = None


class AgeSweep(BaseModel):
    """A policy's cost as one of its rules' ages moves over a range: where the cheapest age lies."""

    model_config = ConfigDict(frozen=True)

    workload: str
    provider: str
    field: str
    months: int
    points: list[AgePoint]
    cheapest_days: int | None


def parse_age_range(text: str) -> tuple[int, list[int]]:
    """``RULE=LOW..HIGH:N`` (``0=30d..180d:6``): the rule's index and N ages in whole days from LOW to HIGH."""
    hint = f"{text!r} is not RULE=LOW..HIGH:N (e.g. 0=30d..180d:6)"
    index_text, equals, span = text.partition("=")
    low_text, dots, rest = span.partition("..")
    high_text, colon, count_text = rest.rpartition(":")
    whole = [index_text.strip(), count_text.strip()]
    if not (equals and dots and colon) or not all(t.isdigit() and t.isascii() for t in whole):
        raise InputError(hint, source="--vary-age")
    if len(whole[1]) > 3:  # past 100 points, however many digits (Python refuses an int of 4,300 digits)
        shown = whole[1] if len(whole[1]) <= 20 else f"a {len(whole[1]):,}-digit number of"
        raise InputError(f"{text[:60]!r}: {shown} points; give 2 to 100", source="--vary-age")
    if len(whole[0]) > 6:
        raise InputError(f"{text!r}: no rule {whole[0][:20]}", source="--vary-age")
    try:
        low = round(parse_duration(low_text.strip()) / DAY_S)
        high = round(parse_duration(high_text.strip()) / DAY_S)
    except ValueError as error:
        raise InputError(f"{text!r}: {error}", source="--vary-age") from None
    count = int(count_text)
    if not 2 <= count <= 100:
        raise InputError(f"{text!r}: {count} points; give 2 to 100", source="--vary-age")
    if high <= low:
        raise InputError(f"{text!r}: the range must rise (from {low}d to {high}d)", source="--vary-age")
    ages = sorted({round(low + (high - low) * i / (count - 1)) for i in range(count)})
    return int(index_text), ages


def sweep_rule_age(
    workload: Workload,
    provider: str,
    rule: int,
    ages_days: list[int],
    *,
    current_class: str | None = None,
    months: int | None = None,
    as_of: dt.date | None = None,
    region: str | None = None,
) -> AgeSweep:
    """Price adopting ``storage.lifecycle`` today (the data stored moving where each policy puts its age) with
    rule ``rule`` acting at each age: an age the provider refuses (before its least age, out of order with
    the other rules) is a refused point saying why, not an error."""
    rules = list(workload.storage.lifecycle or [])
    field = f"storage.lifecycle[{rule}].after"
    if not 0 <= rule < len(rules):
        raise InputError(f"the workload has {len(rules)} lifecycle rules: no rule {rule}", source="--vary-age")
    horizon = months or workload.constraints.months
    points = []
    for days in ages_days:
        varied = [*rules[:rule], rules[rule].model_copy(update={"after": days * DAY_S}), *rules[rule + 1 :]]
        try:
            check_rules(varied)
            cost = price_lifecycle(
                workload,
                provider,
                varied,
                start_class=current_class,
                current_class=current_class,
                months=horizon,
                as_of=as_of,
                region=region,
            )
        except (InputError, ValueError) as error:
            points.append(AgePoint(after_days=days, refused=str(error)))
            continue
        points.append(
            AgePoint(
                after_days=days,
                total_usd=cost.total_usd,
                last_month_usd=cost.months[-1].total_usd,
                one_time_usd=cost.one_time_usd,
            )
        )
    priced = [p for p in points if p.total_usd is not None]
    cheapest = min(priced, key=lambda p: (p.total_usd, p.after_days)) if priced else None
    return AgeSweep(
        workload=workload.name,
        provider=provider,
        field=field,
        months=horizon,
        points=points,
        cheapest_days=cheapest.after_days if cheapest is not None else None,
    )
