"""The vectorised bills of sampled outcomes against the line-item engine, outcome by outcome, to the cent.

Each case draws a few hundred outcomes over ranges that cross the tables' tier bounds (S3's egress
at 10 / 50 / 150 TB a month and storage at 50 / 500 TB; B2's free egress at 3x the stored volume;
Wasabi's and IDrive e2's free-egress policies, egress above 1x the stored volume breaks them) and
the small end where minimums and R2's whole-unit rounding bite."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from planner.costing.bills import price_table
from planner.costing.outcomes import PricedOutcomes, price_outcomes
from planner.decide.uncertainty import at
from planner.pricing import rules
from planner.pricing.billing import bill
from planner.pricing.models import LineRounding
from planner.pricing.primitives import Status
from planner.workload import Workload, load_workload, parse_workload

AS_OF = dt.date(2026, 12, 1)
TB = 1e12
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _both(
    workload: Workload, draws: dict[str, Any], month: int = 0
) -> tuple[PricedOutcomes, PricedOutcomes, list[str]]:
    tables = {p: price_table(p, AS_OF, None) for p in workload.constraints.providers}
    allowed = workload.constraints.storage_classes
    options = [(p, c) for p, t in tables.items() for c in t.classes if not allowed or c in allowed]
    fast = price_outcomes(workload, draws, options, tables, as_of=AS_OF, month=month)
    exact = price_outcomes(workload, draws, options, tables, as_of=AS_OF, month=month, engine_only=True)
    return fast, exact, [f"{p}:{c}" for p, c in options]


def _assert_same(fast: PricedOutcomes, exact: PricedOutcomes, labels: list[str], draws: dict[str, Any]) -> None:
    assert fast.by_engine == {}  # every option went through the arrays
    assert set(exact.by_engine) == set(labels)
    for i, j in np.argwhere(fast.costs_usd != exact.costs_usd):
        point = {f: float(v[i]) for f, v in draws.items()}
        pytest.fail(f"{labels[j]} at {point}: arrays ${fast.costs_usd[i, j]} != engine ${exact.costs_usd[i, j]}")
    assert (fast.feasible == exact.feasible).all()


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.yaml")))
def test_every_example_across_tier_bounds_and_policy_caps(example: str) -> None:
    workload = load_workload(EXAMPLES / example)
    if workload.delivery is not None:
        pytest.skip("a CDN's bill is priced by the line-item engine only (tests/planner/costing/test_cdn_bills.py)")
    rng = np.random.default_rng(7)
    n = 120
    draws = {
        "storage.stored": rng.uniform(1e9, 700 * TB, n),
        "traffic.egress": rng.uniform(0, 400 * TB, n),
    }
    if workload.traffic.reads is not None:
        draws["traffic.reads"] = rng.uniform(0, 2e8, n)
    if workload.traffic.writes is not None:
        draws["traffic.writes"] = rng.uniform(0, 3e6, n)
    fast, exact, labels = _both(workload, draws)
    _assert_same(fast, exact, labels, draws)
    # the ranges reach both sides of the free-egress caps and of S3's first egress tier
    assert (~exact.feasible).any() and exact.feasible.any()
    assert (draws["traffic.egress"] < 10 * TB).any() and (draws["traffic.egress"] > 150 * TB).any()


def test_small_volumes_minimums_discounts_ratio_and_objects() -> None:
    """Where R2 rounds each unit up, minimum billable sizes and durations pad, a discount comes off
    every line, reads follow writes by a ratio and the mean object size follows stored / objects."""
    data = {
        "name": "small",
        "storage": {"stored": "2 TB", "objects": 3_000_000, "retention": "20d"},
        "traffic": {"egress": "1 TB", "writes": 50_000, "read_write_ratio": "40:1", "heads": 12_345, "lists": 999},
        "constraints": {"discounts": {"aws-s3": "15%", "wasabi": "7.5%"}},
    }
    workload = parse_workload(yaml.safe_load(yaml.safe_dump(data)), "small")
    rng = np.random.default_rng(11)
    n = 200
    draws = {
        "storage.stored": rng.uniform(1e6, 3 * TB, n),
        "storage.objects": np.round(rng.uniform(1, 5e6, n)),
        "traffic.egress": rng.uniform(0, 8 * TB, n),
        "traffic.writes": np.round(rng.uniform(0, 200_000, n)),
    }
    fast, exact, labels = _both(workload, draws)
    _assert_same(fast, exact, labels, draws)


def test_a_field_the_arrays_do_not_derive_goes_to_the_engine_and_is_named() -> None:
    workload = load_workload(EXAMPLES / "web-assets.yaml")
    draws = {"client.part_size": np.array([8.0 * 2**20, 64.0 * 2**20, 128.0 * 2**20])}
    fast, exact, labels = _both(workload, draws)
    assert set(fast.by_engine) == set(labels)
    assert all("client.part_size" in why for why in fast.by_engine.values())
    assert (fast.costs_usd == exact.costs_usd).all()
    # and the engine's amount is the bill at that point
    varied = at(workload, {"client.part_size": 8.0 * 2**20})
    table = price_table("aws-s3", AS_OF, None)
    expected = bill(table, "standard", varied.usage_for("standard", table.limits)).total_usd
    assert Decimal(repr(float(fast.costs_usd[0, labels.index("aws-s3:standard")]))) == expected


@pytest.mark.parametrize(
    ("amount", "mode", "floor", "expected"),
    [
        # a half cent: half-up goes up, half-even to the even cent, down stays
        ("0.015", "half-up", None, "0.02"),
        ("0.025", "half-even", None, "0.02"),
        ("0.035", "half-even", None, "0.04"),
        ("1.011", "up", None, "1.02"),
        ("1.019", "down", None, "1.01"),
        # AWS bills a line above zero but under a cent as a cent
        ("0.0004", "half-up", "0.01", "0.01"),
        ("0", "half-up", "0.01", "0.00"),
    ],
)
def test_line_rounding_is_one_rule_for_decimals_and_arrays(
    amount: str, mode: str, floor: str | None, expected: str
) -> None:
    rule = LineRounding(
        places=2,
        mode=mode,
        minimum_charge=Decimal(floor) if floor else None,
        status=Status.verified_primary,
        source="test",
    )
    assert rules.round_amount(Decimal(amount), rule) == Decimal(expected)
    # 0.015 and its kin are not exact in binary: the array path still rounds the half as the Decimal one
    got = rules.round_amount(np.array([float(amount)]), rule)
    assert got[0] == float(expected)


@pytest.mark.parametrize("example", ["web-assets.yaml", "genomics-pipeline.yaml", "data-lake.yaml"])
def test_a_later_month_of_the_horizon_grows_as_the_engine_grows_it(example: str) -> None:
    """Month 7: stored grows (by a volume and by a compounding share a month), object counts and
    retention's deletions follow it."""
    workload = load_workload(EXAMPLES / example)
    rng = np.random.default_rng(3)
    n = 80
    draws = {
        "storage.stored": rng.uniform(1e12, 300 * TB, n),
        "storage.growth_per_month": rng.uniform(0, 20 * TB, n),
        "storage.growth_rate": rng.uniform(0, 0.15, n),
        "traffic.egress": rng.uniform(0, 200 * TB, n),
    }
    fast, exact, labels = _both(workload, draws, month=7)
    _assert_same(fast, exact, labels, draws)
