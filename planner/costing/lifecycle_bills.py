"""How data ages, priced: a lifecycle policy's bills month by month, line by line, before it is applied.

The stored objects are cohorts by age (``storage.age``, or spread evenly over the ages the writes give)
and by size; each month every cohort ages 30 days and the policy's rules move it between classes or
expire it. What each class then holds in the month (bytes x days, objects by size, transitions into it,
objects leaving it before its minimum duration, the reads ``traffic.reads_by_age`` sends to its ages)
becomes a ``Usage`` billed by the one engine (``planner.pricing.billing.bill``), so minimum billable
sizes, per-object overhead, monitoring, retrieval, restores and early deletion are the engine's own
rules. Each line names its class and the ages the class holds.

This module holds the entry point (``price_lifecycle``), its result (``LifecycleCost``, ``LifecycleMonth``),
the check of a policy against the provider's lifecycle rules and each class's month turned into a bill; the
cohorts and their months are ``planner.costing.lifecycle_cohorts``, Intelligent-Tiering's access and archive
tiers ``planner.costing.lifecycle_tiering``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, localcontext

from pydantic import BaseModel, ConfigDict

from planner.errors import InputError
from planner.pricing import catalog
from planner.pricing.bill_lines import round_line
from planner.pricing.billing import bill
from planner.pricing.breakdown import LineItem
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Money
from planner.pricing.transition_rules import NO_TRANSITIONS, LifecycleRules, lifecycle_rules
from planner.pricing.usage import Deletion, SizeBin, Usage
from planner.workload import DAY_S, Workload
from planner.workload.aging import AgeBin, IntelligentTiering, LifecycleRule, describe_policy

from .bills import add_months, check_horizon
from .cdn_bills import delivery_path
from .lifecycle_cohorts import MAX_AGE_DAYS, MONTH_DAYS, ZERO, ClassMonth, Policy
from .lifecycle_tiering import access_tiers, archive_tiers, restore_lines


class LifecycleMonth(BaseModel):
    """One month of a policy: what is stored and its bill, each line naming its class and ages."""

    model_config = ConfigDict(frozen=True)

    month: int
    as_of: dt.date
    stored_bytes: int
    objects: int
    line_items: list[LineItem]
    total_usd: Money
    one_time_usd: Money
    """What the transitions of data already stored when the policy starts cost this month (unrounded)."""
    reads_by_class: dict[str, Decimal] = {}
    """The month's reads (GETs) by the class they find their object in."""


class LifecycleCost(BaseModel):
    """A lifecycle policy priced month by month at one provider."""

    model_config = ConfigDict(frozen=True)

    provider: str
    region: str | None
    table_version: str
    start_class: str
    policy: str
    rules: list[LifecycleRule]
    rules_version: str
    placement: dict[str, int] | None = None
    """Bytes by class of the data stored at the start, where the workload's placement gave them."""
    intelligent_tiering: IntelligentTiering | None = None
    """The bucket's Intelligent-Tiering archive tiers (``storage.intelligent_tiering``), where the policy uses them."""
    restored_tiers: list[str] = []
    """The archive tiers (``archive_access``, ``deep_archive_access``) that reads restore objects from."""
    months: list[LifecycleMonth]
    total_usd: Money
    one_time_usd: Money
    assumptions: list[str]
    warnings: list[str]

    def month_totals(self) -> list[Decimal]:
        return [m.total_usd for m in self.months]

    def by_category(self) -> dict[str, Decimal]:
        """The horizon's cost by line category (storage, requests, retrieval, early_deletion, ...)."""
        totals: dict[str, Decimal] = {}
        for month in self.months:
            for item in month.line_items:
                totals[item.category] = totals.get(item.category, ZERO) + item.amount_usd
        return totals


# --------------------------------------------------------------------------- validation against a provider


def check_policy(rules: list[LifecycleRule], start_class: str, table: PriceTable, allowed: LifecycleRules) -> None:
    """Refuse a policy the provider cannot run: a class it lacks, a move to a warmer class, a move it does
    not support, a rule earlier than the provider allows. Each error names the rule's field."""
    current, entered = start_class, 0
    for index, rule in enumerate(rules):
        where = f"storage.lifecycle[{index}]"
        if rule.expire:
            continue
        target = rule.to
        assert target is not None
        if target not in table.classes:
            raise InputError(
                f"{target!r} is not a storage class of {table.version} (classes: {', '.join(table.classes)})",
                field=f"{where}.to",
            )
        if target == current:
            raise InputError(
                f"the objects are already in {target} (rule {index} moves them nowhere)", field=f"{where}.to"
            )
        if target not in allowed.transitions.get(current, []):
            if allowed.warmer(target, current):
                raise InputError(
                    f"{target} is warmer than {current}, where the objects are by then: {table.provider} lifecycle"
                    " rules move objects only to colder classes",
                    field=f"{where}.to",
                )
            supported = ", ".join(allowed.transitions.get(current, [])) or "none"
            raise InputError(
                f"{table.provider} lifecycle rules do not move objects from {current} to {target} (from {current}:"
                f" {supported}; {allowed.sources[0]})",
                field=f"{where}.to",
            )
        least = allowed.min_age_days.get(target, 0)
        if rule.after_days < least:
            raise InputError(
                f"{rule.after_days}d is earlier than {table.provider} allows: objects move to {target} at"
                f" {least} days at the earliest ({allowed.sources[0]})",
                field=f"{where}.after",
            )
        stay = allowed.min_days_in_source.get(current, 0)
        if rule.after_days - entered < stay:
            raise InputError(
                f"{rule.after_days}d leaves the objects {rule.after_days - entered} days in {current}:"
                f" {table.provider} moves them on after {stay} days there at the earliest",
                field=f"{where}.after",
            )
        current, entered = target, rule.after_days


# --------------------------------------------------------------------------- a policy priced, month by month


def _age_label(ages: set[tuple[int, int | None]]) -> str:
    spans = sorted(ages, key=lambda a: (a[0], a[1] if a[1] is not None else MAX_AGE_DAYS * 10))
    return ", ".join(f"{lo}d+" if hi is None else f"{lo}-{hi}d" for lo, hi in spans)


def _class_usage(
    policy: Policy,
    table: PriceTable,
    name: str,
    held: ClassMonth,
    reads: tuple[Decimal, Decimal, dict[str, Decimal]],
    write_side: Usage | None,
    tiers: dict[str, Decimal],
    standard_elsewhere: int,
) -> Usage:
    read_count, read_bytes, _ = reads
    requests: dict[str, int] = {}
    if write_side is not None:
        requests = {op: n for op, n in write_side.requests.items() if op not in ("get", "delete")}
    if round(read_count):
        requests["get"] = round(read_count)
    if round(held.transitions_in):
        storage_class = table.classes[name]
        priced = {op for group in storage_class.requests for op in group.operations} | set(
            storage_class.free_operations
        )
        if "lifecycle-transition" in priced:
            requests["lifecycle-transition"] = round(held.transitions_in)
        else:  # Tigris, Scaleway: no price for a lifecycle move is known
            policy.warnings.append(
                f"{table.version} {name}: the table prices no lifecycle transition, so the"
                f" {round(held.transitions_in):,} moves into it are not billed"
            )
    minimum = table.classes[name].min_duration_days
    deletions = [
        Deletion(bytes=round(b), objects=round(n), age_days=float(days))
        for b, n, days in held.deletions
        if minimum and days < minimum and round(n)
    ]
    return Usage(
        stored_bytes=round(held.byte_days / MONTH_DAYS),
        object_sizes=[SizeBin(bytes=size, count=round(days / MONTH_DAYS)) for size, days in held.object_days.items()],
        requests=requests,
        egress_bytes=write_side.egress_bytes if write_side is not None else 0,
        inter_region_bytes=write_side.inter_region_bytes if write_side is not None else 0,
        retrieval_bytes=round(read_bytes),
        retrieval_requests=round(read_count),
        deletions=deletions,
        access_tier_shares=tiers,
        discounts=write_side.discounts if write_side is not None else policy.workload.constraints.discount_fractions(),
        buckets=write_side.buckets if write_side is not None else 0,
        standard_rate_bytes_elsewhere=standard_elsewhere,
    )


def _one_time(table: PriceTable, name: str, count: Decimal) -> Decimal:
    """What the transitions that move the data already stored into a class at once cost (before allowances)."""
    for request_class in table.classes[name].requests:
        if "lifecycle-transition" in request_class.operations:
            return count * request_class.price / request_class.per
    return ZERO


def default_write_class(table: PriceTable) -> str:
    """The class new objects go to when no class is named: ``standard``, or where a provider has none
    (Azure Blob's hot, cool, cold and archive tiers) the table's first class, its hottest."""
    return "standard" if "standard" in table.classes else next(iter(table.classes))


def _check_classes(table: PriceTable, written: tuple[str, str], placement: dict[str, int] | None) -> None:
    """The classes a policy starts from, and the placement's, are the table's (one-line errors naming
    --current, which sets both of ``written``, or storage.placement)."""
    for name in written:
        if name not in table.classes:
            raise InputError(
                f"{name!r} is not a storage class of {table.version} (classes: {', '.join(table.classes)})",
                source="--current",
            )
    for name in placement or {}:
        if name not in table.classes:
            raise InputError(
                f"{name!r} is not a storage class of {table.version} (classes: {', '.join(table.classes)})",
                field="storage.placement",
            )


def _reads_and_assumptions(
    workload: Workload,
    provider: str,
    allowed: LifecycleRules,
    placement: dict[str, int] | None,
    applied: bool,
) -> tuple[list[tuple[AgeBin, Decimal]], list[str]]:
    """How the reads fall over the objects' ages (``traffic.reads_by_age``, else alike on every age),
    and the assumptions the bill states."""
    assumptions = [
        "each month is 30 days; every cohort of objects ages 30 days a month, and a month's writes are stored"
        " from its first day: the first month's on top of the data already stored, so that it holds"
        " storage.stored, and each later month's what keeps the volume on the workload's course (stored,"
        " growth) under its retention, unless the workload states its writes (traffic.writes or a ratio)",
        "each age holds the same mix of object sizes",
    ]
    read_bins = workload.traffic.read_age_bins()
    if read_bins is not None:
        assumptions.append(
            "the reads of each age bin fall on its objects alike, at random: an object unread for a tier's days"
            " moves to that access tier with probability e^(-reads per object a month x days / 30)"
        )
    else:
        read_bins = [(AgeBin(label="0d+", lo_days=0, hi_days=None), Decimal(1))]
        assumptions.append("no traffic.reads_by_age: reads fall on objects of every age alike")
    if allowed.default_min_object_bytes:
        assumptions.append(
            f"objects under {allowed.default_min_object_bytes:,} bytes do not move unless a rule's min_object_size"
            f" says ({provider}'s default)"
        )
    if placement:
        assumptions.append(
            "the data stored today is in storage.placement's classes, each with the same mix of ages and sizes"
            + ("; it stays there, new objects follow the policy" if applied else "")
        )
    return read_bins, assumptions


def behind_cdn(workload: Workload, provider: str, day: dt.date, region: str | None) -> tuple[Workload, str | None]:
    """``workload`` as ``provider``'s bucket sees it behind the workload's CDN (``cdn_bills.delivery_path``),
    and that in words; as it is, and None, without a CDN. The CDN's own bill does not depend on where the
    bucket keeps its objects, so a lifecycle policy is priced on the bucket's bill alone."""
    path = delivery_path(workload, provider, day, region)
    if path is None:
        return workload, None
    return path.origin, f"{path.statement}; the CDN's own bill is the same under every policy and not in these totals"


def archive_tiers_apply(workload: Workload, provider: str, storage_class: str | None, day: dt.date) -> bool:
    """Whether ``storage.intelligent_tiering`` bears on a bill of ``storage_class`` (None: the workload's
    placement) at ``provider``: the workload turns archive tiers on and objects are in a class that has them,
    so the bill is the lifecycle engine's (``price_lifecycle``), which prices the tiers."""
    if workload.storage.intelligent_tiering is None:
        return False
    classes = {storage_class} if storage_class is not None else set(workload.storage.placement or {})
    return any(tier.storage_class in classes for tier in lifecycle_rules(provider, day).archive_tiers)


def price_lifecycle(
    workload: Workload,
    provider: str,
    rules: list[LifecycleRule] | None = None,
    *,
    start_class: str | None = None,
    current_class: str | None = None,
    applied: bool = False,
    months: int | None = None,
    as_of: dt.date | None = None,
    region: str | None = None,
    check_restore: bool = True,
) -> LifecycleCost:
    """Price a lifecycle policy (``rules``, by default ``storage.lifecycle``) over the horizon: objects are
    written to ``start_class`` (default: ``current_class``, else ``default_write_class``); data already stored
    sits in ``current_class`` (default: the workload's ``storage.placement``, else the start class) and moves
    to where the policy puts its age in the first month (the one-time transitions) where a lifecycle rule can
    move it. ``applied``: the policy is today's, so the data stored is already where it puts it (or, placed,
    stays where it is). ``storage.intelligent_tiering`` turns on Intelligent-Tiering's archive tiers;
    ``check_restore``: refuse one whose restore takes longer than ``performance.max_restore`` (a proposal
    judges its candidates instead)."""
    start = as_of or dt.date.today()
    horizon = months or workload.constraints.months
    check_horizon(start, horizon)
    workload, cdn_note = behind_cdn(workload, provider, start, region)
    chosen = list(workload.storage.lifecycle or []) if rules is None else list(rules)
    table = catalog.table_for(provider, start, region)
    allowed = lifecycle_rules(provider, start)
    start_class = start_class or current_class or default_write_class(table)
    current = current_class or start_class
    placement = workload.storage.placement if current_class is None else None
    _check_classes(table, (current, start_class), placement)
    check_policy(chosen, start_class, table, allowed)
    tiering = workload.storage.intelligent_tiering
    archive = archive_tiers(workload, tiering, chosen, start_class, placement, table, allowed, check_restore)
    retention = workload.storage.retention
    expire_at = round(retention / DAY_S) if retention is not None else None
    read_bins, assumptions = _reads_and_assumptions(workload, provider, allowed, placement, applied)
    if cdn_note is not None:
        assumptions.insert(0, cdn_note)
    policy = Policy(
        workload,
        provider,
        chosen,
        start_class,
        current,
        allowed,
        expire_at,
        read_bins,
        assumptions,
        [],
        placement,
        applied,
        archive=archive,
    )
    if archive:
        assumptions.append(
            "reads fall on an Intelligent-Tiering object at random, so the share of the reads that find it in an"
            " archive tier is the share of its bytes there; each such read restores it first (back to Frequent"
            " Access) with the standard restore"
        )
    policy.plan_writes(horizon)
    cohorts = policy.initial_cohorts()
    result: list[LifecycleMonth] = []
    with localcontext() as context:
        context.prec = 60
        for month in range(horizon):
            day = add_months(start, month)
            month_table = catalog.table_for(provider, day, region)
            # each month's writes, the first month's too: objects written in month 1 that cross a rule's age
            # in it (a 0-day rule at once) move, and their transitions are billed, in month 1
            cohorts.append(policy.new_cohort(month))
            classes = policy.age_month(cohorts)
            cohorts = [c for c in cohorts if any(h.count for h in c.holdings)]
            result.append(_bill_month(policy, month_table, classes, month, day))
    total = sum((m.total_usd for m in result), ZERO)
    describe = describe_policy(chosen, start_class)
    if archive:
        describe += f" (archive tiers: {tiering.describe() if tiering is not None else ''})"
    return LifecycleCost(
        provider=provider,
        region=table.region,
        table_version=table.version,
        start_class=start_class,
        policy=describe,
        rules=chosen,
        rules_version=f"{provider} lifecycle rules of {allowed.effective_from} ({allowed.status})"
        if allowed is not NO_TRANSITIONS
        else f"no lifecycle transitions for {provider}: only expiry",
        placement=dict(placement) if placement else None,
        intelligent_tiering=tiering if archive else None,
        restored_tiers=[tier.option for tier, _ in archive if tier.option in policy.restored],
        months=result,
        total_usd=total,
        one_time_usd=sum((m.one_time_usd for m in result), ZERO),
        assumptions=policy.assumptions,
        warnings=list(dict.fromkeys(policy.warnings)),
    )


def _bill_month(
    policy: Policy, table: PriceTable, classes: dict[str, ClassMonth], month: int, day: dt.date
) -> LifecycleMonth:
    reads = policy.reads(classes)
    write_side = policy.workload.usage_for(policy.start_class, table.limits, month)
    standard = "standard" if "standard" in table.classes else None
    order = sorted(classes, key=lambda name: (name != standard, name != policy.start_class))
    if policy.start_class not in classes:
        order.insert(0, policy.start_class)
        classes[policy.start_class] = ClassMonth()
        reads.setdefault(policy.start_class, (ZERO, ZERO, {}))
    elsewhere = 0
    items: list[LineItem] = []
    total = round_line(ZERO, table)
    one_time = ZERO
    stored = objects = 0
    for name in order:
        held = classes[name]
        tiers = access_tiers(policy, table, name, classes)
        usage = _class_usage(
            policy,
            table,
            name,
            held,
            reads[name],
            write_side if name == policy.start_class else None,
            tiers,
            0 if name == standard else elsewhere,
        )
        priced = bill(table, name, usage, as_of=day)
        restores = restore_lines(policy, table, name)
        priced = priced.model_copy(update={"line_items": [*priced.line_items, *restores]})
        if name == standard:
            elsewhere += usage.stored_bytes
        elsewhere += priced.standard_rate_bytes
        label = f"{table.classes[name].name}, ages {_age_label(held.ages)}" if held.ages else table.classes[name].name
        items.extend(i.model_copy(update={"description": f"{label}: {i.description}"}) for i in priced.line_items)
        total += priced.total_usd
        one_time += _one_time(table, name, held.catch_up_in)
        policy.warnings.extend(priced.warnings)
        stored += usage.stored_bytes
        objects += sum(b.count for b in usage.object_sizes or [])
    return LifecycleMonth(
        month=month + 1,
        as_of=day,
        stored_bytes=stored,
        objects=objects,
        line_items=items,
        total_usd=total,
        one_time_usd=one_time,
        reads_by_class={name: reads[name][0] for name in order if reads[name][0]},
    )
