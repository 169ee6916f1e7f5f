"""Intelligent-Tiering in lifecycle pricing: a self-tiering class's bytes over its access tiers, month by
month, and its opt-in archive tiers.

``archive_tiers`` checks the tiers ``storage.intelligent_tiering`` turns on against the provider's rules;
``access_tiers`` splits a class's monitored bytes over its tiers from how often its objects are read (each
object read at random at its age's rate goes D days unread with probability e^(-rate x D / 30)) and works
out the restores reads make from the archive tiers; ``restore_lines`` lists those restores on the bill.
"""

from __future__ import annotations

import functools
import itertools
from decimal import Decimal, localcontext

from planner.errors import InputError
from planner.pricing.bill_lines import round_line
from planner.pricing.breakdown import LineItem
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Status
from planner.pricing.transition_rules import ArchiveTier, LifecycleRules
from planner.units import format_bytes, format_duration
from planner.workload import Workload
from planner.workload.aging import IntelligentTiering, LifecycleRule, describe_policy
from planner.workload.targets import parse_stated_time

from .lifecycle_cohorts import MONTH_DAYS, ZERO, ClassMonth, Policy


def archive_tiers(
    workload: Workload,
    tiering: IntelligentTiering | None,
    rules: list[LifecycleRule],
    start_class: str,
    placement: dict[str, int] | None,
    table: PriceTable,
    allowed: LifecycleRules,
    check_restore: bool,
) -> list[tuple[ArchiveTier, int]]:
    """The archive tiers ``storage.intelligent_tiering`` turns on, with their days, checked against the
    provider's rules: a class that has them, days within the provider's range, a price in the table, a restore
    within ``performance.max_restore`` when the workload gives one; none when the policy puts nothing in the
    class (a proposal's other candidates)."""
    if tiering is None:
        return []
    where = "storage.intelligent_tiering"
    by_option = {tier.option: tier for tier in allowed.archive_tiers}
    classes = {tier.storage_class for tier in allowed.archive_tiers}
    if not classes:
        raise InputError(
            f"{table.provider} has no class with opt-in archive tiers (archive_access and deep_archive_access"
            " configure S3 Intelligent-Tiering)",
            field=where,
        )
    used = {start_class, *(rule.to for rule in rules if rule.to), *(placement or {})}
    if not used & classes:
        raise InputError(
            f"the archive tiers apply to objects in {', '.join(sorted(classes))}, and the policy"
            f" ({describe_policy(rules, start_class)}) puts none there",
            field=where,
        )
    found = []
    for option, days in tiering.days().items():
        tier = by_option.get(option)
        if tier is None:
            raise InputError(f"{table.provider} has no such archive tier", field=f"{where}.{option}")
        if not tier.min_days <= days <= tier.max_days:
            raise InputError(
                f"{days}d is outside {tier.min_days}-{tier.max_days}d: {table.provider} moves objects to the"
                f" {tier.name} tier after {tier.min_days} to {tier.max_days} days unread ({tier.source})",
                field=f"{where}.{option}",
            )
        if tier.tier not in table.classes[tier.storage_class].access_tiers:
            raise InputError(
                f"{table.version} prices no {tier.name} tier of {tier.storage_class}", field=f"{where}.{option}"
            )
        wanted = workload.performance.max_restore
        stated = parse_stated_time(tier.priced_restore, tier.restore[tier.priced_restore])
        if check_restore and wanted is not None and stated is not None and stated.high_s > wanted:
            raise InputError(
                f"{tier.name} restores take {stated.stated} ({tier.priced_restore}), longer than"
                f" performance.max_restore {format_duration(wanted)}: reads of objects there could not wait",
                field=f"{where}.{option}",
            )
        found.append((tier, days))
    return found


def access_tiers(policy: Policy, table: PriceTable, name: str, classes: dict[str, ClassMonth]) -> dict[str, Decimal]:
    """Shares of a self-tiering class's monitored bytes in each colder access tier: an object moves after
    a tier's days without a read, each object read at random at its age's rate (Poisson): unread for D
    days with probability e^(-rate x D / 30)."""
    storage_class = table.classes[name]
    policy.restores = {}
    if not storage_class.access_tier_after_days:
        return {}
    least = storage_class.monitoring.tiered_from if storage_class.monitoring is not None else 0
    tiers = tier_days(policy, table, name)
    archived = {tier.tier: tier.option for tier, _ in policy.archive if tier.storage_class == name}
    tier_byte_days = {tier: ZERO for tier, _ in tiers}
    restored = {tier: [ZERO, ZERO] for tier in archived}
    monitored = ZERO
    for size, count, lo, hi, entered in classes[name].segments:
        if size < least:
            continue
        cuts = sorted({lo, hi, *(entered + days for _, days in tiers if lo < entered + days < hi)})
        for start, end in itertools.pairwise(cuts):
            weight = count * size * (end - start)
            monitored += weight
            rate = policy.read_rate((start + end) / 2)
            reads = count * rate * (end - start) / MONTH_DAYS
            unread = [_unread(rate, days) if start >= entered + days else ZERO for _, days in tiers]
            for index, (tier, _) in enumerate(tiers):
                colder = unread[index + 1] if index + 1 < len(unread) else ZERO
                tier_byte_days[tier] += weight * (unread[index] - colder)
                if tier in restored:
                    # reads at random see the tiers as the bytes are spread: those on an archived object
                    # restore it first (back to Frequent Access, which the e^(-rate x days / 30) holds)
                    restored[tier][0] += reads * (unread[index] - colder)
                    restored[tier][1] += reads * (unread[index] - colder) * size
    policy.restores = {archived[tier]: (objects, read) for tier, (objects, read) in restored.items() if objects}
    if not monitored:
        return {}
    return {tier: amount / monitored for tier, amount in tier_byte_days.items() if amount > 0}


def tier_days(policy: Policy, table: PriceTable, name: str) -> list[tuple[str, int]]:
    """A self-tiering class's access tiers by days unread: its own, then the archive tiers turned on, which
    take objects straight from the tier before them (S3: Archive Access at 90 days bypasses Archive
    Instant Access)."""
    tiers = sorted(table.classes[name].access_tier_after_days.items(), key=lambda item: item[1])
    archive = [(tier.tier, days) for tier, days in policy.archive if tier.storage_class == name]
    if archive:
        first = min(days for _, days in archive)
        tiers = [(tier, days) for tier, days in tiers if days < first] + archive
    return tiers


@functools.lru_cache(maxsize=4096)
def _unread(rate: Decimal, days: int) -> Decimal:
    """The chance an object read ``rate`` times a month at random goes ``days`` days unread: e^(-rate x days / 30)."""
    with localcontext() as context:
        context.prec = 60
        return (-rate * days / MONTH_DAYS).exp()


def restore_lines(policy: Policy, table: PriceTable, name: str) -> list[LineItem]:
    """The month's restores from each archive tier of ``name``: the objects and bytes reads restore first, at
    the tier's priced restore fee (none for S3 Intelligent-Tiering's standard restores)."""
    lines = []
    for tier, _ in policy.archive:
        if tier.storage_class != name or tier.option not in policy.restores:
            continue
        objects, restored_bytes = policy.restores[tier.option]
        count = round(objects)
        if not count:
            continue
        policy.restored.add(tier.option)
        lines.append(
            LineItem(
                category="retrieval",
                description=f"restores from the {tier.name} tier: {count:,} object{'s' if count != 1 else ''},"
                f" {format_bytes(float(restored_bytes))}, {tier.priced_restore} restore"
                f" ({tier.restore[tier.priced_restore]}; fee {tier.restore_fee.partition(':')[0]})",
                quantity=Decimal(count),
                unit="restores",
                unit_price_usd=ZERO,
                amount_usd=round_line(ZERO, table),
                amount_unrounded_usd=ZERO,
                table_version=table.version,
                price_status=Status.verified_primary,
            )
        )
    return lines
