"""The bill as an ordered list of rules: the list is the order of the bill, a rule added to it is billed
where it stands, and the vectorised path says of every rule whether it evaluates it."""

from __future__ import annotations

from decimal import Decimal

import pytest

from planner.pricing import arrays, bill_rules, billing, catalog
from planner.pricing.bill_lines import BillContext
from planner.pricing.breakdown import LineItem
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage


def test_the_array_path_states_every_rule_in_billing_order() -> None:
    assert tuple(arrays.ON_ARRAYS) == bill_rules.rule_names()
    left = [name for name, form in arrays.ON_ARRAYS.items() if isinstance(form, str)]
    assert left == ["access_tier_overhead"]
    assert all(str(arrays.ON_ARRAYS[name]).startswith("the exact engine") for name in left)


def test_rule_names_are_unique() -> None:
    names = bill_rules.rule_names()
    assert len(set(names)) == len(names)


def test_a_rule_added_to_the_list_is_billed_where_it_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    # Storj: "$5 minimum monthly fee"; a 1 GB month bills far below it, so the shortfall line is last and
    # takes the added line into account: the total stays $5.00 while the added line is on the bill.
    table = catalog.table_for("storj")
    storage_class = next(iter(table.classes))
    usage = Usage(stored_bytes=10**9)

    def support_plan(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
        return [bill.writer.line("other", "support plan", Decimal(1), "month", Decimal("1.25"), None)]

    before = billing.bill(table, storage_class, usage)
    rules = list(bill_rules.BILL_RULES)
    rules.insert(rules.index(bill_rules.bill_account.base_fee), support_plan)
    monkeypatch.setattr(billing, "BILL_RULES", tuple(rules))
    after = billing.bill(table, storage_class, usage)

    assert [i.description for i in after.line_items][-2:] == [
        "support plan",
        after.line_items[-1].description,
    ]
    assert after.line_items[-1].category == "minimum"
    assert before.total_usd == after.total_usd == Decimal("5.00")
    added = after.line_items[-2]
    assert (added.amount_usd, added.price_status, added.table_version) == (Decimal("1.25"), table.status, table.version)
    shortfall = before.line_items[-1].amount_usd - after.line_items[-1].amount_usd
    assert shortfall == Decimal("1.25")
