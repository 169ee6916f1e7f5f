"""Every number the library's entry points take is checked: nan, infinity, zero and negatives are refused
with an InputError naming the argument, before any work is done."""

from __future__ import annotations

import math

import pytest

import planner
from tests.planner.conftest import EXAMPLES

BAD = [math.nan, math.inf, -math.inf, 0.0, -1.0]


@pytest.fixture(scope="module")
def workload() -> planner.Workload:
    return planner.load_workload(EXAMPLES / "web-assets.yaml")


@pytest.mark.parametrize("value", BAD)
def test_recommend_refuses_a_window_that_is_not_a_positive_number(workload: planner.Workload, value: float) -> None:
    with pytest.raises(planner.InputError, match=r"^sim_duration_s: .* is not a finite number above 0$"):
        planner.recommend(workload, sim_duration_s=value)


@pytest.mark.parametrize("value", BAD)
def test_simulate_refuses_a_duration_that_is_not_a_positive_number(workload: planner.Workload, value: float) -> None:
    with pytest.raises(planner.InputError, match=r"^duration_s: .* is not a finite number above 0$"):
        planner.simulate(workload, "aws-s3", duration_s=value)


@pytest.mark.parametrize("value", [0, -3])
def test_simulate_refuses_fewer_than_one_replication(workload: planner.Workload, value: int) -> None:
    with pytest.raises(planner.InputError, match=r"^replications: "):
        planner.simulate(workload, "aws-s3", replications=value)


@pytest.mark.parametrize("value", BAD)
def test_record_refuses_a_time_limit_that_is_not_a_positive_number(tmp_path: object, value: float) -> None:
    with pytest.raises(planner.InputError, match=r"--max-time"):
        planner.record(["true"], str(tmp_path), endpoint="http://127.0.0.1:9", max_time_s=value)


def test_a_window_without_simulation_is_not_read(workload: planner.Workload) -> None:
    answer = planner.recommend(workload, simulate=False, sim_duration_s=math.nan)
    assert answer.ranking
