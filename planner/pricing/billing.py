"""The cost engine: a month of usage and a price table in, billed line items out.

One set of rules serves every provider; the tables carry the parameters. Arithmetic is
``Decimal`` at 60 digits, so a quantity such as bytes / 2**40 is exact and nothing is rounded
until a provider's own rule rounds it (R2 rounds every metered unit up to a whole unit).

``bill`` runs the billing rules (``planner.pricing.bill_rules.BILL_RULES``, in the order the invoice
lists them) over a ``BillContext``, each rule's lines written by its ``LineWriter`` (``bill_lines``).
"""

from __future__ import annotations

import datetime as dt
from decimal import localcontext

from planner.errors import PricingError
from planner.pricing import catalog
from planner.pricing.bill_lines import ZERO, BillContext, round_line, rounding_statement
from planner.pricing.bill_rules import BILL_RULES
from planner.pricing.breakdown import CostBreakdown
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage


def bill(table: PriceTable, storage_class: str, usage: Usage, *, as_of: dt.date | None = None) -> CostBreakdown:
    """Price one month of ``usage`` in ``storage_class`` with ``table``."""
    if storage_class not in table.classes:
        raise PricingError(
            f"{table.version} has no storage class {storage_class!r} (classes: {', '.join(table.classes)})"
        )
    with localcontext() as context:
        context.prec = 60
        work = BillContext.start(table, storage_class, usage)
        for rule in BILL_RULES:
            work.items += rule(usage, table, work)
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
