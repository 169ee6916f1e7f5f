"""The vectorised sweep agrees with the exact engine, and bills behave as bills should."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.pricing import catalog
from planner.pricing.arrays import monthly_totals
from planner.pricing.billing import bill
from planner.pricing.usage import Usage

NOW = dt.date(2026, 12, 1)
CLASSES = [(p, c) for p in catalog.providers() for c in catalog.table_for(p, NOW).classes]
OLD_TABLES = [t for versions in catalog.shipped_tables().values() for t in versions]

sizes = st.integers(min_value=0, max_value=3 * 10**15)
counts = st.integers(min_value=0, max_value=10**9)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(OLD_TABLES).flatmap(lambda t: st.tuples(st.just(t), st.sampled_from(sorted(t.classes)))),
    sizes,
    sizes,
    st.integers(min_value=0, max_value=10**9),
    counts,
    counts,
    sizes,
)
def test_sweep_agrees_with_exact_engine(
    pick: tuple[object, str], stored: int, egress: int, objects: int, gets: int, puts: int, retrieval: int
) -> None:
    table, storage_class = pick
    exact = bill(
        table,  # type: ignore[arg-type]
        storage_class,
        Usage(
            stored_bytes=stored,
            object_count=objects,
            egress_bytes=egress,
            requests={"get": gets, "put": puts},
            retrieval_bytes=retrieval,
        ),
    ).unrounded_total_usd()
    fast = monthly_totals(
        table,  # type: ignore[arg-type]
        storage_class,
        stored_bytes=[stored],
        egress_bytes=[egress],
        object_count=[objects],
        requests={"get": [gets], "put": [puts]},
        retrieval_bytes=[retrieval],
    )[0]
    assert abs(float(exact) - fast) <= 1e-9 * max(1.0, float(exact)) + 1e-6


def test_sweep_of_many_points_matches_point_by_point() -> None:
    table = catalog.table_for("aws-s3", NOW)
    egress = np.linspace(0, 300e12, 301)
    fast = monthly_totals(table, "standard", stored_bytes=100e12, egress_bytes=egress)
    for e, value in zip(egress[::50], fast[::50], strict=True):
        exact = bill(table, "standard", Usage(stored_bytes=10**14, egress_bytes=int(e))).unrounded_total_usd()
        assert abs(float(exact) - value) < 1e-6


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CLASSES), sizes, sizes, sizes, counts, counts)
def test_cost_is_monotone_in_usage(
    pick: tuple[str, str], stored: int, extra: int, egress: int, gets: int, more: int
) -> None:
    provider, storage_class = pick
    table = catalog.table_for(provider, NOW)

    def total(stored_bytes: int, egress_bytes: int, get: int) -> Decimal:
        usage = Usage(stored_bytes=stored_bytes, egress_bytes=egress_bytes, requests={"get": get})
        return bill(table, storage_class, usage).unrounded_total_usd()

    base = total(stored, egress, gets)
    assert total(stored, egress + extra, gets) >= base
    assert total(stored, egress, gets + more) >= base
    # More storage never costs less for storage itself (egress allowances can grow with it, so hold egress at 0).
    assert total(stored + extra, 0, gets) >= total(stored, 0, gets)


@settings(max_examples=100, deadline=None)
@given(sizes)
def test_equal_tier_prices_add_up_to_the_flat_price(stored: int) -> None:
    table = catalog.table_for("aws-s3", NOW)
    raw = table.model_dump(mode="python")
    tiers = raw["classes"]["standard"]["storage"]["tiers"]
    raw["classes"]["standard"]["storage"]["tiers"] = [{**t, "price": Decimal("0.023")} for t in tiers]
    flat = type(table).model_validate(raw)
    got = bill(flat, "standard", Usage(stored_bytes=stored)).unrounded_total_usd()
    expected = Decimal(stored) / 2**30 * Decimal("0.023")  # AWS bills GB of 2**30 bytes
    assert abs(got - expected) < Decimal("1e-20")


def test_sweep_rounds_one_byte_past_a_whole_unit_up_as_the_engine_does() -> None:
    # R2 rounds every metered unit up (developers.cloudflare.com/r2/pricing/): 100,000 GB and one
    # byte read from Infrequent Access bills 100,001 GB of retrieval at $0.01, $1,000.01; the float
    # quotient 100000.000000001 is within the array path's noise guard, so it must round by remainder
    table = catalog.table_for("cloudflare-r2", NOW)
    usage = Usage(stored_bytes=0, retrieval_bytes=10**14 + 1)
    assert bill(table, "infrequent-access", usage).unrounded_total_usd() == Decimal("1000.01")
    fast = monthly_totals(table, "infrequent-access", stored_bytes=[0], retrieval_bytes=[10**14 + 1])[0]
    assert fast == 1000.01
