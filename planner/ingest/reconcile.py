"""A bill reconciled: every S3 usage type priced with planner's matching table beside the bill's own
amount, and each ingested workload's placement priced as ``planner cost`` prices it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal

from planner.costing.bills import placement_cost
from planner.errors import PlannerError, PricingError
from planner.ingest.cloudfront_rows import origin_fetch_usd
from planner.ingest.decode import REQUESTS
from planner.ingest.models import Bill, IngestedWorkload, ReconcileLine, Reconciliation, UsageGroup
from planner.ingest.workloads import gb_to_bytes, workloads
from planner.pricing.billing import bill as price_bill
from planner.pricing.catalog import load_yaml, versions
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage
from planner.workload import Traffic, parse_workload

_TIER_OPERATION = {"tier-1": "put", "tier-2": "get"}
# Amounts in a CUR carry 10 decimal places: two figures this close are equal.
_CUR_RESOLUTION = Decimal("0.0000001")
TableFinder = Callable[[str, dt.date | None], PriceTable | None]


def _shipped_table(region: str, as_of: dt.date | None) -> PriceTable | None:
    """The aws-s3 table of ``region`` in force in the billing period; when the region's tables all
    begin later, the earliest (each reconciled line then names its version, so the gap shows)."""
    try:
        dated = versions("aws-s3", None if region == "us-east-1" else region)
    except PricingError:
        return None
    usable = [t for t in dated if as_of is None or t.effective_from <= as_of]
    return (usable or list(dated[:1]))[-1]


def reconcile(bill: Bill, *, tables: TableFinder | None = None) -> Reconciliation:
    """Price every S3 usage type of the bill with the matching table and set it beside the bill."""
    find = tables or _shipped_table
    as_of = bill.periods[-1] if bill.periods else None
    merged: dict[tuple[str, str, str, str | None], list[UsageGroup]] = {}
    for group in bill.groups:
        # transfer in is free from everywhere: one line per scope, not one per source region
        usage_type = "AWS-In-Bytes (all sources)" if group.kind == "ingress" else group.usage_type
        merged.setdefault((group.scope, usage_type, group.kind, group.storage_class), []).append(group)
    focus = bill.format == "focus"
    lines = [_reconcile_line(groups, find(groups[0].region, as_of), as_of, focus) for groups in merged.values()]
    priced = [line for line in lines if line.planner_usd is not None]
    placements = [
        line
        for ingested in workloads(bill)
        if (line := _placement_line(ingested, bill, find(ingested.region, as_of), as_of)) is not None
    ]
    return Reconciliation(
        lines=lines,
        billed_usd=sum((line.billed_usd for line in lines), Decimal(0)),
        planner_usd=sum((line.planner_usd or Decimal(0) for line in priced), Decimal(0)),
        priced_billed_usd=sum((line.billed_usd for line in priced), Decimal(0)),
        priced_list_usd=(
            sum((line.list_usd or Decimal(0) for line in priced), Decimal(0))
            if priced and all(line.list_usd is not None for line in priced)
            else None
        ),
        placements=placements,
    )


def _placement_line(
    ingested: IngestedWorkload, bill: Bill, table: PriceTable | None, as_of: dt.date | None
) -> ReconcileLine | None:
    """The written workload's placement priced as ``planner cost`` prices it (storage, minimums and
    per-object overheads of each class; no traffic), against the bill's storage and overhead rows."""
    groups = [g for g in bill.groups if g.scope == ingested.scope and g.kind in ("storage", "overhead")]
    if not groups:
        return None
    try:
        workload = parse_workload(load_yaml(ingested.text, ingested.name), ingested.name)
    except PlannerError:
        return None
    placement = workload.storage.placement
    if placement is None:
        return None
    months = Decimal(max(len(bill.periods), 1))
    billed = sum((g.billed_usd for g in groups), Decimal(0)) / months
    gb_months = sum((g.quantity for g in groups if g.kind == "storage"), Decimal(0)) / months
    base = {
        "scope": ingested.scope,
        "region": ingested.region,
        "usage_type": "placement: " + " + ".join(placement),
        "operation": "storage and object overhead",
        "quantity": gb_months,
        "unit": "GB-Mo",
        "billed_usd": billed,
    }
    if table is None:
        return ReconcileLine(
            **base,
            planner_usd=None,
            difference_usd=None,
            table_version=None,
            cause=f"no aws-s3 table for {ingested.region}",
        )
    stored_only = workload.model_copy(update={"traffic": Traffic(reads=0, writes=0)})
    try:
        cost = placement_cost(stored_only, table, as_of or table.effective_from)
    except PlannerError as error:
        return ReconcileLine(**base, planner_usd=None, difference_usd=None, table_version=None, cause=str(error))
    amount = sum(
        (i.amount_unrounded_usd or i.amount_usd for i in cost.line_items if i.category in ("storage", "minimum")),
        Decimal(0),
    ).quantize(_CUR_RESOLUTION / 1000)
    per = f"a month's average of {months} billing periods; " if months > 1 else ""
    cause = (
        f"{per}{ingested.name} as planner cost prices it, each class on its own bytes, its lines unrounded as a"
        " CUR's are (planner cost rounds each line to the cent)"
    ) + _agree(amount, billed, gb_months)
    return ReconcileLine(
        **base, planner_usd=amount, difference_usd=amount - billed, table_version=table.version, cause=cause
    )


def _reconcile_line(
    groups: list[UsageGroup], table: PriceTable | None, as_of: dt.date | None, focus: bool = False
) -> ReconcileLine:
    first = groups[0]
    quantity = sum((g.quantity for g in groups), Decimal(0))
    billed = sum((g.billed_usd for g in groups), Decimal(0))
    # FOCUS gives the list cost beside the billed one (a CUR is set beside its unblended cost):
    # planner prices at list, so that is its match,
    # and what the bill took off it (a discount, a credit, a commitment) is said, not counted a miss
    listed = (
        sum((g.list_usd or Decimal(0) for g in groups), Decimal(0))
        if focus and all(g.list_usd is not None for g in groups)
        else None
    )
    against = billed if listed is None else listed
    operations = sorted({g.operation for g in groups if g.operation})
    types = sorted({g.usage_type for g in groups})
    base = {
        "scope": first.scope,
        "region": first.region,
        "usage_type": types[0] if len(types) == 1 else f"transfer in ({len(types)} usage types)",
        "operation": ", ".join(operations[:3]) + (f" (+{len(operations) - 3})" if len(operations) > 3 else ""),
        "quantity": quantity,
        "unit": first.unit,
        "billed_usd": billed,
        "list_usd": listed,
    }

    def line(planner: Decimal | None, cause: str) -> ReconcileLine:
        difference = None if planner is None else planner - against
        if listed is not None and abs(listed - billed) > _CUR_RESOLUTION:
            cause += f"; billed {_short(billed)} USD against a list cost of {_short(listed)} (the bill's discounts)"
        return ReconcileLine(
            **base,
            planner_usd=planner,
            difference_usd=difference,
            table_version=table.version if table is not None and planner is not None else None,
            cause=cause,
        )

    if first.kind == "ingress":
        return line(Decimal(0), "free: transfer into S3" + _agree(Decimal(0), against, quantity))
    if table is None:
        return line(None, f"no aws-s3 price table for {first.region}")
    try:
        amount, note = _price(first, quantity, table)
    except _Unpriced as reason:
        return line(None, str(reason))
    amount = amount.quantize(_CUR_RESOLUTION / 1000)  # the CUR's own 10 decimal places
    if as_of is not None and table.effective_from > as_of:
        note += f" (the earliest {first.region} table, {table.effective_from}, is later than the bill)"
    free = table.egress.internet.free_per_month
    if first.kind == "egress" and free and against - amount > _CUR_RESOLUTION:
        return line(
            amount,
            f"{note}; the bill charged what planner took as free: AWS's {free.normalize():f}"
            f" {table.egress.internet.unit} a month is shared by the account's regions and services,"
            " and was used elsewhere",
        )
    return line(amount, note + _agree(amount, against, quantity, [r for g in groups for r in g.rates]))


class _Unpriced(Exception):
    pass


def _agree(planner: Decimal, billed: Decimal, quantity: Decimal, rates: list[Decimal] | None = None) -> str:
    """Why planner's amount and the bill's differ, or "" when they agree (to 1 %, or within the CUR's
    10 decimal places; where the bill has one rate, planner must also match quantity x that rate)."""
    single = sorted(set(rates or []))
    if len(single) == 1 and quantity > 0:
        expected = quantity * single[0]
        if abs(planner - expected) > max(abs(expected) / 100, _CUR_RESOLUTION / 1000):
            if billed < planner and single[0] == 0:
                return "; the bill charged it at $0 (a free allowance shared across regions or accounts)"
            effective = planner / quantity
            return (
                f"; the bill's rate {single[0].normalize()} differs from the table's"
                f" {_short(effective)} (a price the table lacks, a discount or a credit)"
            )
        return ""
    difference = planner - billed
    if abs(difference) <= _CUR_RESOLUTION or (billed and abs(difference) <= abs(billed) / 100):
        return ""
    if rates and billed < planner and any(r == 0 for r in rates):
        return "; the bill charged part of it at $0 (a free allowance shared across regions or accounts)"
    return f"; differs by {difference:+.6f} USD (a discount, credit or price the table lacks)"


def _short(value: Decimal) -> str:
    return f"{value:.3g}"


def _price(group: UsageGroup, quantity: Decimal, table: PriceTable) -> tuple[Decimal, str]:
    cls = group.storage_class
    if group.kind in ("storage", "overhead", "early-deletion"):
        assert cls is not None
        if cls not in table.classes:
            raise _Unpriced(f"{table.version} has no class {cls}")
        if group.kind == "early-deletion":
            # AWS bills early deletion as the storage the object would have used for the rest of its
            # minimum duration: GB-months at the class's storage price
            price = table.classes[cls].storage.tiers[0].price
            return quantity * price, f"early deletion as {cls} storage at {price} per GB-month"
        usage = Usage(stored_bytes=gb_to_bytes(quantity), buckets=0)
        what = "object overhead" if group.kind == "overhead" else "storage"
        return price_bill(table, cls, usage).unrounded_total_usd(), f"{cls} {what}"
    if group.kind == "requests":
        assert cls is not None
        if cls not in table.classes:
            raise _Unpriced(f"{table.version} has no class {cls}")
        tier = REQUESTS.get(group.usage_type, (cls, "tier-1"))[1]
        op = group.planner_operation if group.usage_type.endswith("Tier3") else _TIER_OPERATION[tier]
        usage = Usage(requests={op or "put": int(quantity)}, buckets=0)
        return price_bill(table, cls, usage).unrounded_total_usd(), f"{cls} {tier} requests as {op}"
    if group.kind == "egress":
        usage = Usage(egress_bytes=gb_to_bytes(quantity), buckets=0)
        return price_bill(table, "standard", usage).unrounded_total_usd(), "internet egress after the free allowance"
    if group.kind == "inter-region":
        usage = Usage(inter_region_bytes=gb_to_bytes(quantity), buckets=0)
        return price_bill(table, "standard", usage).unrounded_total_usd(), "transfer to another AWS region"
    if group.kind == "cdn" and (free := origin_fetch_usd(table.provider, "cloudfront", quantity)):
        return free
    raise _Unpriced(f"{group.usage_type}: a usage type planner does not model")
