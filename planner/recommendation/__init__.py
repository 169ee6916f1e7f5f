"""Rank every allowed provider and storage class for a workload, and say why.

Cost comes from the pricing engine month by month over the horizon; feasibility from the
provider's performance profile (the shipped reference profiles unless the caller gives its
own). Break-even points are solved, not scanned: a bill is piecewise linear in egress (or in
reads) between the breakpoints its price tables define, so each crossing is found exactly on
the segment where the cost difference changes sign.

By concern: ``models`` (what a recommendation says), ``performance`` (targets, verdicts and
their evidence), ``break_even`` (where the choice would change) and ``ranking`` (``recommend``).
Every name is importable from here, as before the split.
"""

from __future__ import annotations

from planner.recommendation.break_even import break_even_points, solve_crossing
from planner.recommendation.models import (
    STATUS_ORDER,
    BreakEven,
    Choice,
    OptionStatus,
    PerformanceEstimate,
    RankedOption,
    Recommendation,
)
from planner.recommendation.performance import (
    RESTORE_FIRST,
    judge_performance,
    load_profiles,
    prefix_warnings,
    reference_summaries,
    restore_verdicts,
    simulate_option,
    stream_rate,
)
from planner.recommendation.ranking import recommend

__all__ = [
    "RESTORE_FIRST",
    "STATUS_ORDER",
    "BreakEven",
    "Choice",
    "OptionStatus",
    "PerformanceEstimate",
    "RankedOption",
    "Recommendation",
    "break_even_points",
    "judge_performance",
    "load_profiles",
    "prefix_warnings",
    "recommend",
    "reference_summaries",
    "restore_verdicts",
    "simulate_option",
    "solve_crossing",
    "stream_rate",
]
