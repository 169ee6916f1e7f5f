"""A placement spread over several of one provider's classes pays the provider's minimum monthly charge
once: Storj's tiered page (storj/docs, effective 2025-11-01) says "A $5 minimum monthly fee applies to all
active storage accounts. You won't be charged the minimum if your usage exceeds $5" -- an account's
minimum, not each tier's. Storj Global Collaboration $0.015 and Active Archive $0.006 per GB-month."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from planner.costing.bills import estimate_cost
from planner.workload import parse_workload

DAY = dt.date(2026, 6, 30)  # the tiered prices, in force until Simplified pricing began on 2026-07-01


@pytest.mark.parametrize(
    ("collaboration", "archive", "lines", "total"),
    [
        # 100 GB x $0.015 = $1.50 and 200 GB x $0.006 = $1.20: $2.70, one shortfall of $2.30 to the $5
        ("100 GB", "200 GB", ["1.50", "1.20", "2.30"], "5.00"),
        # 300 GB x $0.015 = $4.50 and 500 GB x $0.006 = $3.00: $7.50 exceeds $5, no minimum (each tier alone
        # is under $5, so a minimum per tier would have added $0.50 + $2.00)
        ("300 GB", "500 GB", ["4.50", "3.00"], "7.50"),
    ],
)
def test_a_storj_placement_over_two_tiers_pays_one_5_dollar_minimum(
    collaboration: str, archive: str, lines: list[str], total: str
) -> None:
    workload = parse_workload(
        {
            "name": "w",
            "storage": {
                "placement": {"global-collaboration": collaboration, "active-archive": archive},
                "object_size": "10 MB",
            },
            "traffic": {"writes": 0},
        },
        "w.yaml",
    )
    cost = estimate_cost(workload, "storj", None, as_of=DAY)
    assert [item.amount_usd for item in cost.line_items] == [Decimal(x) for x in lines]
    minimums = [item.description for item in cost.line_items if item.category == "minimum"]
    assert minimums == (["minimum monthly charge of $5: the shortfall"] if len(lines) == 3 else [])
    assert cost.total_usd == Decimal(total)
