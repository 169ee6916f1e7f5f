"""A sweep's axes are read as the workload file is: a point the file would refuse is refused, and any field
the workload has (its name may hold a digit) may vary."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.decide.sweep import parse_axis
from planner.errors import InputError
from planner.workload import load_workload

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_an_axis_that_stores_nothing_under_reads_is_refused() -> None:
    # 0 B stored under 50 TB of egress had been priced ($66.96), a workload the file loader refuses
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    with pytest.raises(InputError, match=r"^--vary: storage.stored='0 TB': 0 B stored, but the traffic reads"):
        parse_axis(workload, "storage.stored=0..5TB:3")
    assert parse_axis(workload, "storage.stored=1..5TB:3").values == [1e12, 3e12, 5e12]


def test_a_field_whose_name_holds_a_digit_varies() -> None:
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    axis = parse_axis(workload, "performance.p99_ttfb=10ms..100ms:3")
    assert axis.values == pytest.approx([0.01, 0.055, 0.1])


def test_a_negative_end_is_said_to_be_negative() -> None:
    # the unit of the other end had been added to it: "'-5TB TB' is not a size"
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    with pytest.raises(InputError, match=r"traffic.egress='-5TB': '-5TB' is negative; a size must be 0 or more"):
        parse_axis(workload, "traffic.egress=-5TB..5TB:3")
