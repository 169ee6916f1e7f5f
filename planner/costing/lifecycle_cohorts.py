"""The month-by-month engine of lifecycle pricing: the stored objects as cohorts by age and size, each
month aging 30 days and moving between classes (or expiring) as the policy's rules say.

``Policy`` holds the policy being priced and its stock: the data stored at the start (``storage.age``, or
spread evenly over the ages the writes give), each month's new cohort, and ``age_month``, which moves every
cohort through a month and returns what each class holds and does in it (``ClassMonth``: bytes x days,
objects by size, transitions into it, objects leaving it and their days there, the ages it spans); its
``reads`` spreads ``traffic.reads_by_age`` over those ages. ``planner.costing.lifecycle_bills`` bills each class's
month; ``planner.costing.lifecycle_tiering`` splits a self-tiering class's bytes over its access tiers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from planner.pricing.transition_rules import ArchiveTier, LifecycleRules
from planner.units import format_bytes
from planner.workload import DAY_S, Workload
from planner.workload.aging import AgeBin, LifecycleRule

ZERO = Decimal(0)
MONTH_DAYS = 30
MAX_AGE_DAYS = 36500


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
class ClassMonth:
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


def _present(age: Decimal, expire_at: int | None) -> Decimal:
    """Days of a 30-day month that data of ``age`` at its start stays before ``expire_at`` days of age."""
    if expire_at is None:
        return Decimal(MONTH_DAYS)
    return min(Decimal(MONTH_DAYS), max(ZERO, Decimal(expire_at) - age))


def _overlap(lo: Decimal, hi: Decimal, age_bin: AgeBin) -> Decimal:
    top = hi if age_bin.hi_days is None else min(hi, Decimal(age_bin.hi_days))
    return max(ZERO, top - max(lo, Decimal(age_bin.lo_days)))


# --------------------------------------------------------------------------- the engine


@dataclass
class Policy:
    """A policy being priced at one provider: its rules, what the provider allows, and this month's state."""

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
    stock_scale: Decimal = Decimal(1)
    """The share of ``storage.stored`` held before the first month's writes (``plan_writes``)."""
    written: list[Decimal] = field(default_factory=list)
    """Bytes written in each month of the horizon (``plan_writes``)."""
    stock_bins: list[tuple[AgeBin, Decimal]] | None = None

    def ladder(self, size: int) -> list[tuple[int, str | None]]:
        if size not in self.ladders:
            self.ladders[size] = _ladder(size, self.rules, self.start_class, self.allowed, self.expire_at)
        return self.ladders[size]

    # ------------------------------------------------------------------ the stock

    def _bins(self) -> list[tuple[AgeBin, Decimal]]:
        if self.stock_bins is None:
            self.stock_bins = self.workload.storage.age_bins() or self._default_ages(self.workload.stored_bytes(0))
        return self.stock_bins

    def plan_writes(self, horizon: int) -> None:
        """Each month's new bytes, and how much of ``storage.stored`` was there before the first month's.

        The volume follows the workload's course (``stored_bytes``: as much held on average in month m as
        ``cost`` bills) under its own retention, whatever the policy priced: the first month writes the
        workload's writes a month, on top of a stock scaled so that month holds ``storage.stored``; each
        later month writes what the month needs beyond what is still held (an expiry rule the policy adds
        then holds less than today's, as it should). Writes the workload states (``traffic.writes``, or a
        read/write ratio) are written as stated every month. Requests are the workload's writes either way."""
        stored = Decimal(self.workload.stored_bytes(0))
        expire_at, month_days = self.expire_at, Decimal(MONTH_DAYS)
        stock = [(age, stored * share) for age, share in _age_slices(self._bins())]
        fresh = _present(ZERO, expire_at)
        first = self.new_bytes(0)
        stock_days = sum((b * _present(a, expire_at) for a, b in stock), ZERO)
        scale = (stored * month_days - first * fresh) / stock_days if stock_days else ZERO
        self.stock_scale = min(Decimal(1), max(ZERO, scale))
        traffic = self.workload.traffic
        if traffic.writes is not None or traffic.ratio is not None:  # the writes the workload states, as stated
            self.written = [self.new_bytes(month) for month in range(horizon)]
            return
        self.written = [first]
        held = [(a, b * self.stock_scale) for a, b in stock] + [(ZERO, first)]
        for month in range(1, horizon):
            held = [(a + month_days, b) for a, b in held if expire_at is None or a + month_days < expire_at]
            wanted = Decimal(self.workload.stored_bytes(month)) * month_days
            kept = sum((b * _present(a, expire_at) for a, b in held), ZERO)
            written = max(ZERO, (wanted - kept) / fresh) if fresh else ZERO
            self.written.append(written)
            held.append((ZERO, written))

    def initial_cohorts(self) -> list[_Cohort]:
        """The data stored at the start, by age and size: in the placement's classes (each the same mix of
        ages), staying there when the policy is today's; else in the current class since it was written and
        moving where the policy puts its age; or, for today's policy, already where it put it."""
        workload = self.workload
        objects = workload.object_count(0)
        sizes = _sizes(workload)
        cohorts = []
        for age, share in _age_slices(self._bins()):
            holdings = []
            for size, size_share in sizes:
                count = Decimal(objects) * size_share * share * self.stock_scale
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
            span = min(MAX_AGE_DAYS, max(1, round(Decimal(stored) / written * MONTH_DAYS)))
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
        writes = self.written[month] / Decimal(str(self.workload.storage.mean_object_bytes))
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

    def age_month(self, cohorts: list[_Cohort]) -> dict[str, ClassMonth]:
        """Move every cohort through one 30-day month: the classes' holdings and events; cohorts age."""
        classes: dict[str, ClassMonth] = {}
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
                    self._leave(classes, holding, moment, charged=target is None or self.allowed.early_deletion_on_move)
                    position = moment
                    if target is None:
                        holding.count = ZERO
                        break
                    into = classes.setdefault(target, ClassMonth())
                    into.transitions_in += holding.count
                    if holding.catch_up and moment == lo:
                        into.catch_up_in += holding.count
                    holding.storage_class, holding.entered_age = target, moment
                if holding.count:
                    self._hold(classes, holding, position, hi)
                holding.catch_up = False
            cohort.age = hi
        return classes

    def _hold(self, classes: dict[str, ClassMonth], holding: _Holding, lo: Decimal, hi: Decimal) -> None:
        """The holding in its class from age ``lo`` to ``hi``: bytes x days, objects x days, a segment."""
        if hi <= lo:
            return
        month = classes.setdefault(holding.storage_class, ClassMonth())
        days = hi - lo
        month.byte_days += holding.count * holding.size * days
        month.object_days[holding.size] = month.object_days.get(holding.size, ZERO) + holding.count * days
        month.segments.append((holding.size, holding.count, lo, hi, holding.entered_age))
        self._span(month, holding)

    def _span(self, month: ClassMonth, holding: _Holding) -> None:
        """Note the ages the holding's class spans under its ladder (all ages for objects left behind)."""
        ladder = self.ladder(holding.size)
        starts = [t for t, c in ladder if c == holding.storage_class]
        if holding.stuck or not starts:
            month.ages.add((0, next((t for t, c in ladder if c is None), None)))
            return
        ends = [t for t, _ in ladder if t > starts[0]]
        month.ages.add((starts[0], ends[0] if ends else None))

    def _leave(self, classes: dict[str, ClassMonth], holding: _Holding, moment: Decimal, *, charged: bool) -> None:
        """The holding leaves its class at age ``moment``; ``charged``: its days there count against the class's
        minimum duration (an expiry always; a rule's move where the provider says so)."""
        month = classes.setdefault(holding.storage_class, ClassMonth())
        self._span(month, holding)
        if charged:
            month.deletions.append((holding.count * holding.size, holding.count, moment - holding.entered_age))

    # ------------------------------------------------------------------ reads

    def reads(self, classes: dict[str, ClassMonth]) -> dict[str, tuple[Decimal, Decimal, dict[str, Decimal]]]:
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
