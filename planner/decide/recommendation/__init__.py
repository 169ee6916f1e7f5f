"""Rank every allowed provider and storage class for a workload, and say why.

Cost comes from the pricing engine month by month over the horizon; feasibility from the
provider's performance profile (the shipped reference profiles unless the caller gives its
own). Break-even points are solved, not scanned: a bill is piecewise linear in egress (or in
reads) between the breakpoints its price tables define, so each crossing is found exactly on
the segment where the cost difference changes sign.

``recommend`` (``ranking``) is a pipeline of stages over explicit records: ``inputs`` (tables,
profiles, provider models, loaded once) -> ``options`` (each option priced, with its projection)
-> ``judge`` (one simulation per provider; targets, rejections, status) -> ``rank`` ->
``explain`` (reasons, rivals, ``break_even`` points and ``curves``). ``models`` says what a
recommendation holds; ``performance`` judges a profile and a simulated peak.
"""

from __future__ import annotations

from planner.decide.recommendation.break_even import break_even_points, solve_crossing
from planner.decide.recommendation.models import (
    STATUS_ORDER,
    BreakEven,
    Choice,
    EgressCurve,
    EgressCurves,
    JudgedProfile,
    OptionStatus,
    PerformanceEstimate,
    RankedOption,
    Recommendation,
)
from planner.decide.recommendation.performance import (
    RESTORE_FIRST,
    judge_performance,
    load_profiles,
    prefix_warnings,
    reference_summaries,
    simulate_option,
    stream_rate,
)
from planner.decide.recommendation.ranking import recommend
from planner.workload.targets import restore_verdicts

__all__ = [
    "RESTORE_FIRST",
    "STATUS_ORDER",
    "BreakEven",
    "Choice",
    "EgressCurve",
    "EgressCurves",
    "JudgedProfile",
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
