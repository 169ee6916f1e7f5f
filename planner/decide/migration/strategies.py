"""The four ways of moving a workload, one class each behind one interface (as skyplane has one
``Planner`` per strategy): each cuts the data stored at the start into scheduled slices, or says
why it does not apply, and runs them through the same timeline."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import replace
from typing import ClassVar

from planner.decide.migration.inputs import MigrationInputs
from planner.decide.migration.models import Strategy
from planner.decide.migration.schedules import AgeOut, BulkCopy, CopyOnRead, Schedule, reads_done_day
from planner.decide.migration.timeline import StrategyRun, simulate_timeline


class StrategyTimeline(ABC):
    """One strategy: its slices of the stored data, and its timeline over the horizon."""

    name: ClassVar[Strategy]
    reads_follow_copies: ClassVar[bool] = False
    """Whether reads go to the destination from the first day (and copy what they miss there)."""
    ages_out: ClassVar[bool] = False
    """Whether it leaves data to expire at the source (it then needs a retention)."""

    @abstractmethod
    def schedules(self, inputs: MigrationInputs) -> list[Schedule] | str:
        """The strategy's slices of the data stored at the start, or why the strategy does not apply."""

    def notes(self, inputs: MigrationInputs) -> list[str]:
        """What the strategy assumes beyond the inputs, said when it is chosen."""
        return []

    def run(self, inputs: MigrationInputs) -> StrategyRun | str:
        """The strategy's timeline, or why it does not apply."""
        if self.ages_out and inputs.workload.storage.retention is None:
            return "the workload states no retention (storage.retention): its data never ages out"
        schedules = self.schedules(inputs)
        if isinstance(schedules, str):
            return schedules
        run = simulate_timeline(self.name, schedules, inputs, reads_follow_copies=self.reads_follow_copies)
        return replace(run, notes=[*self.notes(inputs), *run.notes])


class BulkStrategy(StrategyTimeline):
    """Copy everything at once, as fast as the slowest bound allows."""

    name = "bulk"

    def schedules(self, inputs: MigrationInputs) -> list[Schedule] | str:
        lo, hi = inputs.lives
        return [
            BulkCopy(share=1.0, lo=lo, hi=hi, copy_days=inputs.copy.copy_days, verify_days=inputs.options.verify_days)
        ]


class CopyOnReadStrategy(StrategyTimeline):
    """Copy each object on its first read (as R2's Sippy does), optionally sweeping the rest later."""

    name = "copy-on-read"
    reads_follow_copies = True

    def schedules(self, inputs: MigrationInputs) -> list[Schedule] | str:
        lo, hi = inputs.lives
        return [
            CopyOnRead(
                share=1.0,
                lo=lo,
                hi=hi,
                coverage=inputs.coverage,
                read_done_day=reads_done_day(inputs.workload, inputs.options, inputs.workload.object_count()),
                copy_days=inputs.copy.copy_days,
                sweep_day=inputs.options.sweep_after_days,
            )
        ]


class AgeOutStrategy(StrategyTimeline):
    """Copy nothing: new writes go to the destination and the source's data expires where it is."""

    name = "age-out"
    ages_out = True

    def schedules(self, inputs: MigrationInputs) -> list[Schedule] | str:
        lo, hi = inputs.lives
        return [AgeOut(share=1.0, lo=lo, hi=hi)]


class HybridStrategy(StrategyTimeline):
    """Let data that expires soon age out at the source and copy the rest in bulk."""

    name = "hybrid"
    ages_out = True

    def schedules(self, inputs: MigrationInputs) -> list[Schedule] | str:
        lo, hi = inputs.lives
        within = inputs.cutoff.days
        if hi <= within:
            return (
                f"all the data expires within {hi:,.0f} days, under the {within:,.0f}-day age-out cutoff:"
                " the hybrid is age-out"
            )
        if lo >= within:
            return f"no data expires within the {within:,.0f}-day age-out cutoff: the hybrid is a bulk copy"
        aged = (within - lo) / (hi - lo)
        copy_days = inputs.copy.copy_days * (1 - aged)
        return [
            AgeOut(share=aged, lo=lo, hi=within),
            BulkCopy(share=1 - aged, lo=within, hi=hi, copy_days=copy_days, verify_days=inputs.options.verify_days),
        ]

    def notes(self, inputs: MigrationInputs) -> list[str]:
        return [inputs.cutoff.note]


STRATEGY_TIMELINES: tuple[StrategyTimeline, ...] = (
    BulkStrategy(),
    CopyOnReadStrategy(),
    AgeOutStrategy(),
    HybridStrategy(),
)
"""In the order of ``STRATEGIES``, the order the plan compares them in."""
