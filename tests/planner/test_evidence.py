"""The verdict rules: a target is met or missed only on backed figures, and a bound decides one way."""

from __future__ import annotations

import pytest

from planner.evidence import Bound, Evidence, TargetVerdict, combine, judge_target
from planner.units import format_duration, format_rate, significant


@pytest.mark.parametrize(
    ("figure", "wanted", "higher_is_better", "bound", "evidence", "expected"),
    [
        (0.021, 0.150, False, "estimate", "measured", "met"),  # a measured p99 under the target
        (0.200, 0.150, False, "estimate", "derived", "missed"),
        (0.021, 0.150, False, "estimate", "assumed", "unverified"),  # a constant taken for a p99
        (0.200, 0.150, False, "estimate", "assumed", "missed"),  # an assumed figure on the wrong side decides: missed
        (0.040, 0.005, False, "at least", "published", "missed"),  # R2's 40 ms floor against 5 ms
        (0.040, 0.150, False, "at least", "published", "unverified"),  # ... says nothing of 150 ms
        (3.35e9, 10e9, True, "at most", "published", "missed"),  # an exact ceiling below the target
        (30e9, 10e9, True, "at most", "published", "unverified"),  # a ceiling above it promises nothing
        (15.8e9, 10e9, True, "at least", "published", "met"),  # demonstrated above the target
        (100e9, 40e9, True, "estimate", "extrapolated", "unverified"),  # the link, not the provider
    ],
)
def test_judge_target(
    figure: float, wanted: float, higher_is_better: bool, bound: Bound, evidence: Evidence, expected: str
) -> None:
    text = format_rate if higher_is_better else format_duration
    verdict = judge_target(
        "t",
        wanted=wanted,
        wanted_text=text(wanted),
        figure=figure,
        figure_text=text(figure),
        evidence=evidence,
        higher_is_better=higher_is_better,
        bound=bound,
        judged_on="test",
    )
    assert verdict.verdict == expected, verdict.reason


def test_no_figure_is_unverified_and_a_backed_miss_wins() -> None:
    def judge(figure: float | None, evidence: Evidence) -> TargetVerdict:
        return judge_target(
            "p99 TTFB",
            wanted=0.1,
            wanted_text="100 ms",
            figure=figure,
            figure_text=None if figure is None else format_duration(figure),
            evidence=evidence,
            higher_is_better=False,
            judged_on="test",
        )

    none, assumed, met, missed = (
        judge(None, "assumed"),
        judge(0.05, "assumed"),
        judge(0.05, "measured"),
        judge(0.2, "derived"),
    )
    assert none.verdict == "unverified" and none.achieved is None
    assert combine([none, assumed, met, missed]) is missed
    assert combine([none, assumed, met]) is met
    assert combine([none, assumed]) is assumed  # the one with a figure
    assert combine([]) is None


@pytest.mark.parametrize(
    ("value", "text"), [(999.6, "1000"), (1234.0, "1234"), (9.8, "9.8"), (0.000573, "0.000573"), (435.2, "435")]
)
def test_significant_never_uses_scientific_notation(value: float, text: str) -> None:
    assert significant(value) == text
