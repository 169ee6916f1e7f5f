"""Where a slice of the stored data is on a given day: one schedule per way of moving it.

A strategy cuts the data stored at the start into slices, each moved one way: copied in bulk,
copied on its first read (with an optional bulk sweep), or left to age out at the source. A
schedule answers, for day t, how much of its slice is still alive, how much has been copied and
how much the source still holds; the timeline asks only these questions.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from planner.decide.migration.models import MigrationOptions
from planner.workload import DAY_S, MONTH_S, Workload

Coverage = Callable[[float], float]
"""Share of the objects read at least once by day t."""


@dataclass(frozen=True, kw_only=True)
class Schedule(ABC):
    """A slice of the data stored at the start, with one schedule: copied by day t, kept at the source.

    Remaining lives at day 0 are uniform over [lo, hi] days (steady state under a retention), a
    single value when lo == hi (all data of one age), or unbounded (no retention).
    """

    share: float
    lo: float = math.inf
    hi: float = math.inf

    def alive(self, t: float) -> float:
        """Share of this slice's bytes not yet expired at day t."""
        if math.isinf(self.hi):
            return 1.0
        if self.hi <= self.lo:
            return 1.0 if t < self.lo else 0.0
        return min(1.0, max(0.0, (self.hi - max(self.lo, t)) / (self.hi - self.lo)))

    def remaining(self, t: float) -> tuple[float, float]:
        """Bounds of the remaining lives of the bytes still alive at day t."""
        return max(self.lo, t) - t, self.hi - t

    @abstractmethod
    def copied(self, t: float) -> tuple[float, float]:
        """(share of the slice's live bytes copied by day t, share still held at the source)."""

    def copy_done_day(self) -> float:
        """Day by which every byte of the slice has been copied (inf if a copy never ends it)."""
        return math.inf

    def done(self) -> tuple[float, bool]:
        """(day from which the source holds no byte of this slice that only it has, whether a copy ends it)."""
        copied = self.copy_done_day()
        expired = self.hi if not math.isinf(self.hi) else math.inf
        return min(copied, expired), copied < expired

    def copy_moment(self, day: int) -> float:
        """The moment of ``day`` at which what it copies is counted (how much of it is alive then)."""
        return day + 0.5

    def bulk_copying(self, day: int) -> bool:
        """Whether what is copied on ``day`` is copied by a bulk copy (listed, then checked)."""
        return False

    def listing_starts(self, day: int) -> bool:
        """Whether a bulk copy starts on ``day``: the copy tool then lists every key at the source."""
        return False

    def source_deleted_at(self, day: int) -> float:
        """The moment at which the source's copies let go on ``day`` are deleted: the day's middle."""
        return day + 0.5


@dataclass(frozen=True, kw_only=True)
class AgeOut(Schedule):
    """Never copied: the slice expires at the source."""

    def copied(self, t: float) -> tuple[float, float]:
        return 0.0, 1.0


@dataclass(frozen=True, kw_only=True)
class BulkCopy(Schedule):
    """Copied at a steady rate from day 0 over ``copy_days``; the source keeps it ``verify_days`` more."""

    copy_days: float = 0.0
    verify_days: float = 0.0

    def copied(self, t: float) -> tuple[float, float]:
        copied = 1.0 if self.copy_days <= 0 else min(1.0, t / self.copy_days)
        return copied, 1.0 if t < self.copy_days + self.verify_days else 0.0

    def copy_done_day(self) -> float:
        return self.copy_days

    def copy_moment(self, day: int) -> float:
        # a bulk copy that ends within the day copies at the middle of its own part of the day
        t0, t1 = float(day), float(day + 1)
        return (t0 + min(t1, self.copy_days)) / 2 if self.copy_days > t0 else day + 0.5

    def bulk_copying(self, day: int) -> bool:
        return True

    def listing_starts(self, day: int) -> bool:
        return day == 0

    def source_deleted_at(self, day: int) -> float:
        # a bulk copy's source is deleted at one moment: the end of its verification
        return self.copy_days + self.verify_days


@dataclass(frozen=True, kw_only=True)
class CopyOnRead(Schedule):
    """Each object copied on its first read (and the source's copy deleted); what is left after
    ``sweep_day`` is bulk-copied over its share of ``copy_days``."""

    coverage: Coverage
    read_done_day: float = math.inf
    """Day from which fewer than one object is expected still unread."""
    copy_days: float = 0.0
    """Days the sweep would take for all of the slice."""
    sweep_day: float | None = None

    def copied(self, t: float) -> tuple[float, float]:
        if self.sweep_day is not None and t > self.sweep_day:
            before = self.coverage(self.sweep_day)
            rest_days = self.copy_days * (1 - before)
            swept = 1.0 if rest_days <= 0 else min(1.0, (t - self.sweep_day) / rest_days)
            copied = before + (1 - before) * swept
        else:
            copied = self.coverage(t)
        return copied, 1 - copied

    def copy_done_day(self) -> float:
        if self.sweep_day is None:
            return self.read_done_day
        return min(self.read_done_day, self.sweep_day + self.copy_days * (1 - self.coverage(self.sweep_day)))

    def bulk_copying(self, day: int) -> bool:
        return self.sweep_day is not None and float(day) >= self.sweep_day

    def listing_starts(self, day: int) -> bool:
        return self.sweep_day is not None and float(day) <= self.sweep_day < float(day + 1)


def _read_split(workload: Workload, objects: int) -> tuple[float, int, float]:
    """(reads a day, hot objects, share of the reads on them)."""
    reads_per_day = workload.reads_per_month() * DAY_S / MONTH_S
    hot = workload.traffic.hot_objects
    hot_count = min(hot.count, objects) if hot is not None and hot.share_of_reads > 0 else 0
    hot_share = hot.share_of_reads if hot is not None and hot_count else 0.0
    return reads_per_day, hot_count, hot_share


def read_coverage(workload: Workload, options: MigrationOptions, objects: int) -> Coverage:
    """Share of the objects read at least once by day t (each read moves its object, as Sippy does).

    Uniform reads are the coupon collector's draws: after k reads over N objects the expected share
    never drawn is (1 - 1/N)^k. Hot objects take their share of the reads among themselves; a
    never-read share of the rest is never drawn at all.
    """
    reads_per_day, hot_count, hot_share = _read_split(workload, objects)
    cold_readable = (objects - hot_count) * (1 - options.never_read_share)

    def drawn(population: float, draws: float) -> float:
        if population <= 0 or draws <= 0:
            return 0.0
        if population <= 1:
            return population
        return population * -math.expm1(draws * math.log1p(-1 / population))

    def coverage(t: float) -> float:
        if not objects:
            return 1.0
        covered = drawn(hot_count, hot_share * reads_per_day * t) + drawn(
            cold_readable, (1 - hot_share) * reads_per_day * t
        )
        return min(1.0, covered / objects)

    return coverage


def reads_done_day(workload: Workload, options: MigrationOptions, objects: int) -> float:
    """Day from which fewer than one object is expected never to have been read (inf if some never are).

    N objects drawn uniformly r times a day keep N (1 - 1/N)^(r t) unread: below one after
    t = ln N / (-r ln(1 - 1/N)), about N ln N / r (the coupon collector's N H_N draws, less N x 0.58).
    """
    reads_per_day, hot_count, hot_share = _read_split(workload, objects)
    cold = objects - hot_count
    if cold and options.never_read_share > 0:
        return math.inf

    def done(population: int, per_day: float) -> float:
        if population <= 1:
            return 0.0 if population == 0 else (math.inf if per_day <= 0 else 1 / per_day)
        if per_day <= 0:
            return math.inf
        return math.log(population) / (-per_day * math.log1p(-1 / population))

    return max(done(hot_count, hot_share * reads_per_day), done(cold, (1 - hot_share) * reads_per_day))


def young(low: float, high: float, minimum: float) -> tuple[float, float]:
    """(share below ``minimum``, their mean) of a value uniform over [low, high] (a point if equal)."""
    if minimum <= 0 or low >= minimum:
        return 0.0, 0.0
    if high <= low:
        return 1.0, low
    upper = min(minimum, high)
    return (upper - low) / (high - low), (low + upper) / 2
