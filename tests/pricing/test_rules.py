"""The billing rules give the same answer on an exact Decimal and on a float array (one rule, two kinds)."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pytest

from planner.pricing import rules
from planner.pricing.primitives import Tier, TieredPrice
from planner.pricing.storage_classes import RequestClass


def ladder(position: str) -> TieredPrice:
    """$1 a unit up to 10, $0.50 to 50, $0.25 beyond; 2 units free a month."""
    return TieredPrice(
        unit="GB",
        unit_bytes=10**9,
        tiers=[
            Tier(up_to=Decimal(10), price=Decimal(1)),
            Tier(up_to=Decimal(50), price=Decimal("0.5")),
            Tier(price=Decimal("0.25")),
        ],
        free_per_month=Decimal(2),
        free_position=position,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("position", "quantity", "round_up", "expected"),
    [
        # free units before the tiers: 60 billable = 10 x $1 + 40 x $0.50 + 10 x $0.25
        ("before-tiers", "62", False, "32.5"),
        # free units out of the first tier: 10 + 20 + 3 for 62 units, less the first 2 at $1
        ("first-tier", "62", False, "31"),
        # exactly at a bound once the allowance is taken: 10 x $1
        ("before-tiers", "12", False, "10"),
        # rounded up to whole units: 10.2 - 2 free = 8.2 -> 9 x $1
        ("before-tiers", "10.2", True, "9"),
        ("before-tiers", "1.5", False, "0"),
    ],
)
def test_tiered_cost_is_one_rule_for_decimals_and_arrays(
    position: str, quantity: str, round_up: bool, expected: str
) -> None:
    price = ladder(position)
    exact = rules.tiered_cost(Decimal(quantity), price, Decimal(0), round_up)
    assert exact == Decimal(expected)
    points = np.array([float(quantity)] * 3)
    assert rules.tiered_cost(points, price, np.zeros(3), round_up) == pytest.approx([float(expected)] * 3)


def test_request_units_after_a_daily_allowance() -> None:
    # 2,500 free a day over a 30-day month = 75,000 free; 1,075,001 requests leave 1,000,001 -> 101 x 10,000 rounded up
    group = RequestClass(id="b", operations=["get"], price=Decimal("0.004"), per=10_000, free_per_day=2_500)
    assert rules.request_units(Decimal(1_075_001), group, 30, True) == 101
    assert rules.request_units(np.array([1_075_001.0, 10.0]), group, 30, True).tolist() == [101.0, 0.0]
