"""How data ages, priced: a lifecycle policy's bills month by month, line by line, before it is applied.

The stored objects are cohorts by age (``storage.age``, or spread evenly over the ages the writes give)
and by size; each month every cohort ages 30 days and the policy's rules move it between classes or
expire it. What each class then holds in the month (bytes x days, objects by size, transitions into it,
objects leaving it before its minimum duration, the reads ``traffic.reads_by_age`` sends to its ages)
becomes a ``Usage`` billed by the one engine (``planner.pricing.billing.bill``), so minimum billable
sizes, per-object overhead, monitoring, retrieval, restores and early deletion are the engine's own
rules. Each line names its class and the ages the class holds.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
from dataclasses import dataclass, field
from decimal import Decimal, localcontext

from pydantic import BaseModel, ConfigDict

from planner.errors import InputError
from planner.pricing import catalog
from planner.pricing.bill_lines import round_line
from planner.pricing.billing import bill
from planner.pricing.breakdown import LineItem
from planner.pricing.lifecycle import NO_TRANSITIONS, ArchiveTier, LifecycleRules, lifecycle_rules
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Money, Status
from planner.pricing.usage import Deletion, SizeBin, Usage
from planner.units import format_bytes, format_duration
from planner.workload import DAY_S, Workload
from planner.workload.lifecycle import AgeBin, IntelligentTiering, LifecycleRule, describe_policy
from planner.workload.targets import parse_stated_time

from .bills import add_months, check_horizon

ZERO = Decimal(0)
MONTH_DAYS = 30
_MAX_AGE_DAYS = 36500


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


# --------------------------------------------------------------------------- the cohorts


@dataclass
class _Holding:
    """Objects of one size in one cohort: where they are and since when."""

    size: int
    count: Decimal
    storage_class: str
    entered_age: Decimal
    catch_up: bool
    stuck: bool = False
    """Placed data under today's policy: it stays in its class until it expires."""


@dataclass
class _Cohort:
    age: Decimal
    """Age in days at the start of the month being priced."""
    holdings: list[_Holding]


@dataclass
class _ClassMonth:
    """What one class holds and does in a month."""

    byte_days: Decimal = ZERO
    object_days: dict[int, Decimal] = field(default_factory=dict)
    transitions_in: Decimal = ZERO
    catch_up_in: Decimal = ZERO
    deletions: list[tuple[Decimal, Decimal, Decimal]] = field(default_factory=list)
    """(bytes, objects, days in the class) of objects leaving it."""
    segments: list[tuple[int, Decimal, Decimal, Decimal, Decimal]] = field(default_factory=list)
    """(size, objects, from age, to age, age entered) held in the month."""
    ages: set[tuple[int, int | None]] = field(default_factory=set)


def _ladder(
    size: int, rules: list[LifecycleRule], start_class: str, allowed: LifecycleRules, expire_at: int | None
) -> list[tuple[int, str | None]]:
    """(from age in days, class; None: expired) for objects of ``size`` under the policy."""
    steps: list[tuple[int, str | None]] = [(0, start_class)]
    for rule in rules:
        if expire_at is not None and rule.after_days >= expire_at:
            break
        if rule.expire:
            steps.append((rule.after_days, None))
            return steps
        assert rule.to is not None
        least = rule.min_object_size if rule.min_object_size is not None else allowed.default_min_object_bytes
        least = max(least, allowed.min_object_bytes.get(rule.to, 0))
        if size >= least:
            steps.append((rule.after_days, rule.to))
    if expire_at is not None:
        steps.append((expire_at, None))
    return steps


def _class_at(ladder: list[tuple[int, str | None]], age: Decimal) -> str | None:
    found = ladder[0][1]
    for start, storage_class in ladder:
        if start <= age:
            found = storage_class
    return found


def _age_slices(bins: list[tuple[AgeBin, Decimal]]) -> list[tuple[Decimal, Decimal]]:
    """(age in days, share of the stored data) for cohorts 30 days apart spreading each bin evenly; an open bin
    is one cohort at its lower bound."""
    slices = []
    for age_bin, share in bins:
        if age_bin.hi_days is None:
            slices.append((Decimal(age_bin.lo_days), share))
            continue
        width = Decimal(age_bin.hi_days - age_bin.lo_days)
        start = age_bin.lo_days
        while start < age_bin.hi_days:
            step = min(MONTH_DAYS, age_bin.hi_days - start)
            slices.append((Decimal(start), share * step / width))
            start += step
    return slices


def _sizes(workload: Workload) -> list[tuple[int, Decimal]]:
    """(object size in bytes, share of the objects)."""
    storage = workload.storage
    if storage.size_distribution is not None:
        return [(s.size, Decimal(str(s.share))) for s in storage.size_distribution]
    return [(max(1, round(storage.mean_object_bytes)), Decimal(1))]


def _overlap(lo: Decimal, hi: Decimal, age_bin: AgeBin) -> Decimal:
    top = hi if age_bin.hi_days is None else min(hi, Decimal(age_bin.hi_days))
    return max(ZERO, top - max(lo, Decimal(age_bin.lo_days)))


# --------------------------------------------------------------------------- the engine


@dataclass
class _Policy:
    workload: Workload
    provider: str
    rules: list[LifecycleRule]
    start_class: str
    current_class: str
    allowed: LifecycleRules
    expire_at: int | None
    read_bins: list[tuple[AgeBin, Decimal]]
    assumptions: list[str]
    warnings: list[str]
    placement: dict[str, int] | None = None
    applied: bool = False
    bin_rates: list[Decimal] = field(default_factory=list)
    """Reads a month per object in each read bin, this month."""
    archive: list[tuple[ArchiveTier, int]] = field(default_factory=list)
    """The opt-in archive tiers turned on, with their days unread, colder last."""
    restores: dict[str, tuple[Decimal, Decimal]] = field(default_factory=dict)
    """Objects and bytes restored from each archive tier this month (``access_tiers`` works them out)."""
    restored: set[str] = field(default_factory=set)
    """The archive tiers reads have restored from in any month."""
    ladders: dict[int, list[tuple[int, str | None]]] = field(default_factory=dict)

    def ladder(self, size: int) -> list[tuple[int, str | None]]:
        if size not in self.ladders:
            self.ladders[size] = _ladder(size, self.rules, self.start_class, self.allowed, self.expire_at)
        return self.ladders[size]

    # ------------------------------------------------------------------ the stock

    def initial_cohorts(self) -> list[_Cohort]:
        """The data stored at the start, by age and size: in the placement's classes (each the same mix of
        ages), staying there when the policy is today's; else in the current class since it was written and
        moving where the policy puts its age; or, for today's policy, already where it put it."""
        workload = self.workload
        stored, objects = workload.stored_bytes(0), workload.object_count(0)
        sizes = _sizes(workload)
        bins = workload.storage.age_bins() or self._default_ages(stored)
        cohorts = []
        for age, share in _age_slices(bins):
            holdings = []
            for size, size_share in sizes:
                count = Decimal(objects) * size_share * share
                if self.placement:
                    whole = sum(self.placement.values())
                    for name, held in self.placement.items():
                        holdings.append(
                            _Holding(
                                size,
                                count * held / whole,
                                name,
                                ZERO,
                                catch_up=not self.applied,
                                stuck=self.applied and name != self.start_class,
                            )
                        )
                elif self.applied:
                    ladder = self.ladder(size)
                    placed = _class_at(ladder, age)
                    entered = max(t for t, c in ladder if t <= age)
                    if placed is not None:
                        holdings.append(_Holding(size, count, placed, Decimal(entered), catch_up=False))
                else:
                    holdings.append(_Holding(size, count, self.current_class, ZERO, catch_up=True))
            cohorts.append(_Cohort(age=age, holdings=holdings))
        return cohorts

    def _default_ages(self, stored: int) -> list[tuple[AgeBin, Decimal]]:
        retention = self.workload.storage.retention
        written = self.new_bytes(0)
        if retention is not None:
            span = max(1, round(retention / DAY_S))
            why = f"the {span}-day retention"
        elif written > 0:
            span = min(_MAX_AGE_DAYS, max(1, round(Decimal(stored) / written * MONTH_DAYS)))
            why = f"{format_bytes(stored)} stored at {format_bytes(float(written))} written a month"
        else:
            self.assumptions.append("no storage.age and no writes: all stored data is taken to be new (age 0)")
            return [(AgeBin(label="0d", lo_days=0, hi_days=1), Decimal(1))]
        self.assumptions.append(
            f"no storage.age: the stored data is taken to be spread evenly over ages 0-{span}d ({why})"
        )
        return [(AgeBin(label=f"0-{span}d", lo_days=0, hi_days=span), Decimal(1))]

    def new_bytes(self, month: int) -> Decimal:
        return Decimal(self.workload.writes_per_month(month)) * Decimal(str(self.workload.storage.mean_object_bytes))

    def new_cohort(self, month: int) -> _Cohort:
        writes = Decimal(self.workload.writes_per_month(month))
        holdings = [
            _Holding(size, writes * share, self.start_class, ZERO, catch_up=False)
            for size, share in _sizes(self.workload)
        ]
        return _Cohort(age=ZERO, holdings=holdings)

    def stays(self, holding: _Holding, target: str) -> bool:
        """Whether data stored today stays where it is rather than move to where the policy puts its age: no
        lifecycle rule moves it from its class to ``target`` (a warmer class, or no such transition), or the
        objects are too small for the rule that would move them into the class new objects are written to."""
        if target == holding.storage_class:
            return False
        if target not in self.allowed.transitions.get(holding.storage_class, []):
            return True
        least = max(self.allowed.default_min_object_bytes, self.allowed.min_object_bytes.get(target, 0))
        return target == self.start_class and holding.size < least

    # ------------------------------------------------------------------ a month

    def age_month(self, cohorts: list[_Cohort]) -> dict[str, _ClassMonth]:
        """Move every cohort through one 30-day month: the classes' holdings and events; cohorts age."""
        classes: dict[str, _ClassMonth] = {}
        for cohort in cohorts:
            lo, hi = cohort.age, cohort.age + MONTH_DAYS
            for holding in cohort.holdings:
                if not holding.count:
                    continue
                ladder = self.ladder(holding.size)
                events = sorted({lo, *(Decimal(t) for t, _ in ladder if lo <= t < hi)})
                position = lo
                for moment in events:
                    target = _class_at(ladder, moment)
                    if target == holding.storage_class:
                        continue
                    if target is not None and (holding.stuck or self.stays(holding, target)):
                        continue  # no lifecycle rule moves it there: it waits for a move one can make, or expiry
                    self._hold(classes, holding, position, moment)
                    self._leave(classes, holding, moment)
                    position = moment
                    if target is None:
                        holding.count = ZERO
                        break
                    into = classes.setdefault(target, _ClassMonth())
                    into.transitions_in += holding.count
                    if holding.catch_up and moment == lo:
                        into.catch_up_in += holding.count
                    holding.storage_class, holding.entered_age = target, moment
                if holding.count:
                    self._hold(classes, holding, position, hi)
                holding.catch_up = False
            cohort.age = hi
        return classes

    def _hold(self, classes: dict[str, _ClassMonth], holding: _Holding, lo: Decimal, hi: Decimal) -> None:
        """The holding in its class from age ``lo`` to ``hi``: bytes x days, objects x days, a segment."""
        if hi <= lo:
            return
        month = classes.setdefault(holding.storage_class, _ClassMonth())
        days = hi - lo
        month.byte_days += holding.count * holding.size * days
        month.object_days[holding.size] = month.object_days.get(holding.size, ZERO) + holding.count * days
        month.segments.append((holding.size, holding.count, lo, hi, holding.entered_age))
        self._span(month, holding)

    def _span(self, month: _ClassMonth, holding: _Holding) -> None:
        """Note the ages the holding's class spans under its ladder (all ages for objects left behind)."""
        ladder = self.ladder(holding.size)
        starts = [t for t, c in ladder if c == holding.storage_class]
        if holding.stuck or not starts:
            month.ages.add((0, next((t for t, c in ladder if c is None), None)))
            return
        ends = [t for t, _ in ladder if t > starts[0]]
        month.ages.add((starts[0], ends[0] if ends else None))

    def _leave(self, classes: dict[str, _ClassMonth], holding: _Holding, moment: Decimal) -> None:
        month = classes.setdefault(holding.storage_class, _ClassMonth())
        self._span(month, holding)
        month.deletions.append((holding.count * holding.size, holding.count, moment - holding.entered_age))

    # ------------------------------------------------------------------ reads

    def reads(self, classes: dict[str, _ClassMonth]) -> dict[str, tuple[Decimal, Decimal, dict[str, Decimal]]]:
        """Reads, bytes read and access-tier shares by class: each age bin's reads spread over the objects of
        those ages (each object alike), its bytes read in proportion to the sizes read."""
        workload = self.workload
        reads_total = Decimal(workload.reads_per_month())
        traffic = workload.traffic
        bytes_total = Decimal(traffic.egress + traffic.internal_reads + traffic.inter_region)
        bin_objects: list[Decimal] = []
        bin_sized: list[Decimal] = []
        for age_bin, _ in self.read_bins:
            objects = sized = ZERO
            for month in classes.values():
                for size, count, lo, hi, _ in month.segments:
                    part = count * _overlap(lo, hi, age_bin)
                    objects += part
                    sized += part * size
            bin_objects.append(objects)
            bin_sized.append(sized)
        self.bin_rates = [
            reads_total * share * MONTH_DAYS / objects if objects else ZERO
            for (_, share), objects in zip(self.read_bins, bin_objects, strict=True)
        ]
        found: dict[str, tuple[Decimal, Decimal, dict[str, Decimal]]] = {}
        for name, month in classes.items():
            reads = read_bytes = ZERO
            for size, count, lo, hi, _ in month.segments:
                for index, (age_bin, share) in enumerate(self.read_bins):
                    part = count * _overlap(lo, hi, age_bin)
                    if not part or not bin_objects[index]:
                        continue
                    reads += reads_total * share * part / bin_objects[index]
                    read_bytes += bytes_total * share * part * size / bin_sized[index]
            found[name] = (reads, read_bytes, {})
        for index, (age_bin, share) in enumerate(self.read_bins):
            if share and not bin_objects[index] and reads_total:
                self.warnings.append(
                    f"traffic.reads_by_age: {(share * 100).normalize():f}% of the reads fall on ages {age_bin.label},"
                    " where nothing is stored in some months: those reads are left out there"
                )
        return found

    def read_rate(self, age: Decimal) -> Decimal:
        """Reads a month per object of ``age``: its read bin's reads over the objects of those ages this month
        (``reads`` works them out first)."""
        for (age_bin, _), rate in zip(self.read_bins, self.bin_rates, strict=True):
            if age_bin.holds(age):
                return rate
        return ZERO

    def access_tiers(self, table: PriceTable, name: str, classes: dict[str, _ClassMonth]) -> dict[str, Decimal]:
        """Shares of a self-tiering class's monitored bytes in each colder access tier: an object moves after
        a tier's days without a read, each object read at random at its age's rate (Poisson): unread for D
        days with probability e^(-rate x D / 30)."""
        storage_class = table.classes[name]
        self.restores = {}
        if not storage_class.access_tier_after_days:
            return {}
        least = storage_class.monitoring.min_object_bytes if storage_class.monitoring is not None else 0
        tiers = self.tier_days(table, name)
        archived = {tier.tier: tier.option for tier, _ in self.archive if tier.storage_class == name}
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
                rate = self.read_rate((start + end) / 2)
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
        self.restores = {archived[tier]: (objects, read) for tier, (objects, read) in restored.items() if objects}
        if not monitored:
            return {}
        return {tier: amount / monitored for tier, amount in tier_byte_days.items() if amount > 0}

    def tier_days(self, table: PriceTable, name: str) -> list[tuple[str, int]]:
        """A self-tiering class's access tiers by days unread: its own, then the archive tiers turned on, which
        take objects straight from the tier before them (S3: Archive Access at 90 days bypasses Archive
        Instant Access)."""
        tiers = sorted(table.classes[name].access_tier_after_days.items(), key=lambda item: item[1])
        archive = [(tier.tier, days) for tier, days in self.archive if tier.storage_class == name]
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


def _age_label(ages: set[tuple[int, int | None]]) -> str:
    spans = sorted(ages, key=lambda a: (a[0], a[1] if a[1] is not None else _MAX_AGE_DAYS * 10))
    return ", ".join(f"{lo}d+" if hi is None else f"{lo}-{hi}d" for lo, hi in spans)


def _class_usage(
    policy: _Policy,
    table: PriceTable,
    name: str,
    held: _ClassMonth,
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
    chosen = list(workload.storage.lifecycle or []) if rules is None else list(rules)
    table = catalog.table_for(provider, start, region)
    allowed = lifecycle_rules(provider, start)
    start_class = start_class or current_class or default_write_class(table)
    current = current_class or start_class
    placement = workload.storage.placement if current_class is None else None
    for name in (current, start_class):  # the command's --current sets both
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
    check_policy(chosen, start_class, table, allowed)
    tiering = workload.storage.intelligent_tiering
    archive = _archive_tiers(workload, tiering, chosen, start_class, placement, table, allowed, check_restore)
    retention = workload.storage.retention
    expire_at = round(retention / DAY_S) if retention is not None else None
    assumptions = [
        "each month is 30 days; every cohort of objects ages 30 days a month, and a month's writes are stored"
        " from its first day (the first month's are among the data stored at the start)",
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
    policy = _Policy(
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
    cohorts = policy.initial_cohorts()
    result: list[LifecycleMonth] = []
    with localcontext() as context:
        context.prec = 60
        for month in range(horizon):
            day = add_months(start, month)
            month_table = catalog.table_for(provider, day, region)
            if month:
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
    policy: _Policy, table: PriceTable, classes: dict[str, _ClassMonth], month: int, day: dt.date
) -> LifecycleMonth:
    reads = policy.reads(classes)
    write_side = policy.workload.usage_for(policy.start_class, table.limits, month)
    standard = "standard" if "standard" in table.classes else None
    order = sorted(classes, key=lambda name: (name != standard, name != policy.start_class))
    if policy.start_class not in classes:
        order.insert(0, policy.start_class)
        classes[policy.start_class] = _ClassMonth()
        reads.setdefault(policy.start_class, (ZERO, ZERO, {}))
    elsewhere = 0
    items: list[LineItem] = []
    total = round_line(ZERO, table)
    one_time = ZERO
    stored = objects = 0
    for name in order:
        held = classes[name]
        tiers = policy.access_tiers(table, name, classes)
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
        restores = _restore_lines(policy, table, name)
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


# --------------------------------------------------------------------------- Intelligent-Tiering's archive tiers


def _archive_tiers(
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


def _restore_lines(policy: _Policy, table: PriceTable, name: str) -> list[LineItem]:
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
