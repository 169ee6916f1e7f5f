"""The billing rules, in the order a bill is written: each one a function of the month's usage, the price
table and the bill being written, returning its line items.

``planner.pricing.billing.bill`` runs ``BILL_RULES`` in order, appending each rule's lines to the bill;
a rule reads the lines before it from ``bill.items`` (the minimum monthly charge reads them all). The
rules are general: a provider's prices and how they apply are fields of its table
(``planner.pricing.models``, ``planner.pricing.storage_classes``), and the arithmetic they share, on
``Decimal`` here and on numpy arrays in the sweep, is in ``planner.pricing.rules``.

Adding a billing rule
---------------------
1. Write the rule: a function ``(usage, table, bill) -> list[LineItem]`` beside the rules of its kind
   (``bill_storage``, ``bill_requests``, ``bill_retrieval``, ``bill_account``). It writes each line with
   ``bill.writer.line`` (one quantity at one price, naming the price's field in the table and its quote)
   or ``bill.writer.tiered`` (a quantity on a tier ladder after its free allowance); the writer converts
   the currency, takes off the discount and rounds the line as the invoice does. Return ``[]`` when the
   rule does not apply. Replication is a real example, from ``bill_storage``::

       def replication(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
           \"\"\"The class's storage billed again in each region it is replicated to beyond the first.\"\"\"
           price = bill.storage_class.replication
           if price is None or not usage.replica_regions or not usage.stored_bytes:
               return []
           stored_units = Decimal(usage.stored_bytes) / Decimal(price.unit_bytes)
           return [
               bill.writer.line(
                   "storage",
                   f"{bill.storage_class.name} replication to {usage.replica_regions} more region"
                   f"{'' if usage.replica_regions == 1 else 's'}",
                   bill.round(rules.replicated_units(stored_units, usage.replica_regions)),
                   price.unit,
                   price.price,
                   bill.status(price.status),
                   field=f"{bill.class_path}.replication.price",
                   quote=price.quote,
               )
           ]

2. List it: one line in ``BILL_RULES`` below, where the invoice puts it (``bill_storage.replication``
   sits after ``bill_requests.request_payload``).

Its price is a field of the table's model (``StorageClass.replication`` above), with its quote, so the
loader checks it; a bill priced by hand from the quoted words holds the rule to its figures. Sweeps price
many points at once in ``planner.pricing.arrays``, whose ``ON_ARRAYS`` names every rule of this list with
its array form (``_replication`` there) or a sentence saying which points the exact engine prices
instead; ``tests/pricing/test_bill_rules.py`` fails until the new rule is named there too.
"""

from __future__ import annotations

from collections.abc import Callable

from planner.pricing import bill_account, bill_requests, bill_retrieval, bill_storage
from planner.pricing.bill_lines import BillContext
from planner.pricing.breakdown import LineItem
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage

BillRule = Callable[[Usage, PriceTable, BillContext], list[LineItem]]

BILL_RULES: tuple[BillRule, ...] = (
    bill_storage.stored_bytes,
    bill_storage.minimum_object_size,
    bill_storage.object_overhead,
    bill_storage.access_tier_overhead,
    bill_storage.monitoring,
    bill_storage.minimum_storage,
    bill_storage.early_deletion,
    bill_requests.requests,
    bill_retrieval.retrieval,
    bill_retrieval.restored_copies,
    bill_retrieval.egress,
    bill_retrieval.transfer,
    bill_account.buckets,
    bill_requests.request_payload,
    bill_storage.replication,
    bill_account.base_fee,
    bill_account.minimum_charge,
)
"""Every billing rule, in the order its lines appear on the bill."""


def rule_names() -> tuple[str, ...]:
    """The rules' names, in billing order: ``stored_bytes``, ``minimum_object_size``, ..."""
    return tuple(rule.__name__ for rule in BILL_RULES)
