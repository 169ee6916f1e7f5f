"""The cost engine: a month of usage and a price table in, billed line items out.

One set of rules serves every provider; the tables carry the parameters. Arithmetic is
``Decimal`` at 60 digits, so a quantity such as bytes / 2**40 is exact and nothing is rounded
until a provider's own rule rounds it (R2 rounds every metered unit up to a whole unit).

The bill is written by ``_Bill``, which puts together its parts: the line-writing helpers
(``bill_lines``), storage (``bill_storage``), requests (``bill_requests``), retrieval and egress
(``bill_retrieval``) and account charges (``bill_account``); ``bill`` calls the parts in order.
"""

from __future__ import annotations

import datetime as dt
from decimal import localcontext

from planner.errors import PricingError
from planner.pricing import catalog
from planner.pricing.bill_account import _AccountLines
from planner.pricing.bill_lines import ZERO, round_line, rounding_statement
from planner.pricing.bill_requests import _RequestLines
from planner.pricing.bill_retrieval import _RetrievalLines
from planner.pricing.bill_storage import _StorageLines
from planner.pricing.breakdown import CostBreakdown
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage


class _Bill(_StorageLines, _RequestLines, _RetrievalLines, _AccountLines):
    """One month's bill for one storage class, with every part of the bill to write."""


def bill(table: PriceTable, storage_class: str, usage: Usage, *, as_of: dt.date | None = None) -> CostBreakdown:
    """Price one month of ``usage`` in ``storage_class`` with ``table``."""
    if storage_class not in table.classes:
        raise PricingError(
            f"{table.version} has no storage class {storage_class!r} (classes: {', '.join(table.classes)})"
        )
    with localcontext() as context:
        context.prec = 60
        work = _Bill(table, storage_class, table.classes[storage_class], usage)
        work.storage()
        work.early_deletion()
        work.requests()
        work.retrieval()
        work.restored_copies()
        work.egress()
        work.transfer()
        work.buckets()
        work.request_payload()
        work.replication()
        work.base_fee()
        work.minimum_charge()
        total = sum((item.amount_usd for item in work.items), round_line(ZERO, table))
    return CostBreakdown(
        provider=table.provider,
        storage_class=storage_class,
        table_version=table.version,
        as_of=as_of,
        region=table.region,
        line_items=work.items,
        total_usd=total,
        rounding=rounding_statement(table),
        warnings=work.warnings,
        policy_breaches=work.breaches,
        standard_rate_bytes=round(work.standard_rate_added_bytes),
        request_allowance_taken=work.allowance_taken,
    )


def estimate(
    provider: str,
    storage_class: str,
    usage: Usage,
    *,
    as_of: dt.date | None = None,
    table: PriceTable | None = None,
    region: str | None = None,
) -> CostBreakdown:
    """Price ``usage`` with the shipped table in force on ``as_of`` in ``region`` (default: the provider's
    default region), or with a given table (e.g. an override)."""
    day = as_of or dt.date.today()
    chosen = table if table is not None else catalog.table_for(provider, day, region)
    return bill(chosen, storage_class, usage, as_of=day)
