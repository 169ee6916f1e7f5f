"""Moving a workload between providers: where each byte lives month by month, what each side bills.

One timeline per strategy (bulk copy, copy-on-read, age-out, hybrid) follows the data stored at the
start: where it is each day, when it is copied, when it expires. Each month is billed on both sides
from that state, and the headline figures (duration, one-time cost, payback month) are read from the
timeline, never computed beside it.

Every one-time charge is an increment the engine computes, never a formula of its own: the
source's bill for the month with the migration's egress, GETs and LISTs added, minus the bill
without them, so the source's tiers and free allowances apply as they would on the invoice.
The same holds for the destination's PUTs (multipart parts as the destination bills them),
the source's early-deletion charges and archive retrieval fees.

The modules, in the order a plan is made:

- ``models``: the records users see (``MigrationOptions``, ``MigrationPlan`` and its rows);
- ``inputs``: the first stage, every table and figure the timelines need, loaded and checked once;
- ``bounds``: what bounds the duration of a copy;
- ``schedules``: where a slice of the data is on a given day (bulk copy, copy-on-read, age-out);
- ``strategies``: the four strategies, one class each, as slices of the stored data;
- ``timeline``: one strategy's timeline, day by day and month by month;
- ``charges``: what the move adds to each side's bill, as the engine's increments;
- ``plan``: the stages ``estimate_migration`` runs: inputs, timelines, choice, explanation.
"""

from __future__ import annotations

from planner.decide.migration.models import (
    CHECKS,
    COPY_HOSTS,
    MAX_VERIFY_DAYS,
    STRATEGIES,
    Check,
    CopyHost,
    DurationBound,
    Endpoint,
    MigrationOptions,
    MigrationPlan,
    Strategy,
    StrategyOutcome,
    TimelineMonth,
)
from planner.decide.migration.plan import estimate_migration
from planner.decide.migration.schedules import read_coverage

_coverage = read_coverage
"""The former name, kept for its callers."""

__all__ = [
    "CHECKS",
    "COPY_HOSTS",
    "MAX_VERIFY_DAYS",
    "STRATEGIES",
    "Check",
    "CopyHost",
    "DurationBound",
    "Endpoint",
    "MigrationOptions",
    "MigrationPlan",
    "Strategy",
    "StrategyOutcome",
    "TimelineMonth",
    "estimate_migration",
]
