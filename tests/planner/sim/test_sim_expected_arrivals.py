"""The arrivals an open-loop profile expects in a window: its rate's integral, exact however long the window.

A 20,000-point grid aliased on long windows with short periods: over 1,000 days a burst every 60 s put every
grid point (4,320 s apart, 72 whole periods) at the same phase, inside the burst, and expected the peak rate
throughout: 5x the arrivals."""

from __future__ import annotations

import math

import pytest

from planner.sim import OpenLoop

DAY_S = 86_400.0


def test_a_long_window_of_short_bursts_expects_the_mean() -> None:
    # burst of 5 s at 5x every 60 s; between bursts (60 - 25) / 55 of the mean: over whole periods, the mean
    burst = OpenLoop(mean_rate_per_s=1.0, peak_factor=5.0, profile="burst", period_s=60.0, burst_s=5.0)
    assert burst.expected_arrivals(0.0, 1000 * DAY_S) == pytest.approx(1000 * DAY_S, rel=1e-12)


def test_part_of_a_period_counts_the_burst_and_the_rest_at_their_rates() -> None:
    burst = OpenLoop(mean_rate_per_s=2.0, peak_factor=5.0, profile="burst", period_s=60.0, burst_s=5.0)
    between = 2.0 * (60 - 25) / 55
    # 3 s into the burst to 10 s into the next period: 2 s at the peak, 55 s between, 5 s peak, 5 s between
    assert burst.expected_arrivals(3.0, 70.0) == pytest.approx(7 * 10.0 + 60 * between, rel=1e-12)


def test_a_diurnal_cycle_integrates_its_cosine() -> None:
    day = OpenLoop(mean_rate_per_s=10.0, peak_factor=1.5, profile="diurnal", period_s=DAY_S)
    # the first quarter of the day: 10 x (DAY/4 + 0.5 x DAY / (2 pi) x sin(pi / 2))
    assert day.expected_arrivals(0.0, DAY_S / 4) == pytest.approx(10 * (DAY_S / 4 + 0.5 * DAY_S / (2 * math.pi)))
    assert day.expected_arrivals(0.0, 365 * DAY_S) == pytest.approx(10 * 365 * DAY_S, rel=1e-12)
