"""The data-out rules of a bill: retrieval fees of classes that charge for reads, the temporary copy a
restore makes of an archived object, internet egress after its allowances (and the free-egress
policy's limit), and inter-region transfer.

Each rule is a function of the month's usage, the price table and the bill being written
(``BillContext``) that returns its lines; ``planner.pricing.bill_rules`` lists them in billing order.
"""

from __future__ import annotations

from decimal import Decimal

from planner.errors import PricingError
from planner.pricing import rules
from planner.pricing.bill_lines import BillContext, free_where, number
from planner.pricing.breakdown import LineItem, PolicyBreach
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage
from planner.units import format_bytes


def retrieval(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """The retrieval fee per GB read from a class that charges for reads, and per 1,000 restore requests,
    at the usage's retrieval option (else the class's default)."""
    sc = bill.storage_class
    if sc.retrieval is None or not (usage.retrieval_bytes or usage.retrieval_requests):
        return []
    name = usage.retrieval_option or sc.retrieval.default
    if name not in sc.retrieval.options:
        raise PricingError(
            f"{table.version} {bill.storage_class_id}: no retrieval option {name!r} "
            f"(options: {', '.join(sc.retrieval.options)})"
        )
    option = sc.retrieval.options[name]
    status = bill.status(option.status)
    at = f"{bill.class_path}.retrieval.options.{name}"
    items = []
    if usage.retrieval_bytes:
        items.append(
            bill.writer.line(
                "retrieval",
                f"{sc.name} data retrieval ({name})",
                rules.units_of(Decimal(usage.retrieval_bytes), sc.retrieval.unit_bytes, table.billing.round_up),
                sc.retrieval.unit,
                option.per_gb,
                status,
                field=f"{at}.per_gb",
                quote=option.quote,
            )
        )
    if usage.retrieval_requests and option.per_1000_requests:
        items.append(
            bill.writer.line(
                "retrieval",
                f"{sc.name} retrieval requests ({name})",
                rules.units_of(Decimal(usage.retrieval_requests), 1000, table.billing.round_up),
                "1,000 requests",
                option.per_1000_requests,
                status,
                field=f"{at}.per_1000_requests",
                quote=option.quote,
            )
        )
    return items


def restored_copies(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """The temporary copy each restore of an archived object makes, billed at the table's restored-copy
    class's storage price (S3 Standard) for the days it is kept, over the month: the bytes restored are
    the bytes read from the class (``retrieval_bytes``), each copy kept ``restored_copy_days``."""
    if not table.restore_required(bill.storage_class_id) or not usage.retrieval_bytes:
        return []
    rule = table.limits.restored_copy
    if rule is None:
        bill.warnings.append(
            f"{bill.storage_class.name}: the temporary copy each restore makes is not priced ({table.version}"
            " states no price for it)"
        )
        return []
    days = usage.restored_copy_days
    if not days:
        return []
    price = table.classes[rule.storage_class].storage
    units = Decimal(usage.retrieval_bytes) / Decimal(price.unit_bytes) * days / Decimal(bill.month_days)
    return bill.on_standard_tiers(
        "storage",
        f"restored copies: {format_bytes(usage.retrieval_bytes)} kept {number(days)} day"
        f"{'' if days == 1 else 's'} of a {bill.month_days}-day month",
        rule.storage_class,
        units,
        rule.status,
    )


def egress(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """Internet egress on its tiers after its free allowances (per month, per day, a multiple of the stored
    bytes, less what the account's other classes used); a breach of a free-egress policy's limit is
    reported beside the bill."""
    egress_rules = table.egress_for(bill.storage_class_id)
    price = egress_rules.internet
    unit_bytes = Decimal(price.unit_bytes)
    quantity = Decimal(usage.egress_bytes) / unit_bytes
    stored_units = Decimal(usage.stored_bytes) / unit_bytes
    multiple = egress_rules.fair_use_multiple_of_storage
    if multiple is not None and rules.exceeds_multiple(quantity, multiple, stored_units):
        statement = (
            f"{table.provider_name}: egress of {format_bytes(usage.egress_bytes)} exceeds "
            f"{number(multiple)}x the stored {format_bytes(usage.stored_bytes)}; "
            "the free-egress policy allows no more, and sustained excess may be limited or suspended"
        )
        bill.breaches.append(
            PolicyBreach(
                policy="free-egress",
                used_bytes=usage.egress_bytes,
                limit_bytes=int(multiple * usage.stored_bytes),
                limit_multiple_of_storage=multiple,
                stored_bytes=usage.stored_bytes,
                statement=statement,
            )
        )
        bill.warnings.append(statement)
    if quantity == 0:
        return []
    used_elsewhere = min(Decimal(usage.egress_allowance_used_bytes) / unit_bytes, price.free_per_month)
    extra = rules.egress_extra_free(egress_rules, stored_units, bill.month_days, used_elsewhere)
    labels = []
    if egress_rules.free_multiple_of_storage:
        labels.append(f"{number(egress_rules.free_multiple_of_storage)}x average stored")
    if egress_rules.free_per_day:
        labels.append(f"{number(egress_rules.free_per_day)} {price.unit} a day")
    if price.free_per_month:
        labels.append(f"{number(price.free_per_month)} {price.unit} a month")
    own = bill.storage_class.egress is not None
    return bill.writer.tiered(
        "egress",
        "internet egress",
        price,
        quantity,
        path=f"{bill.class_path}.egress.internet" if own else "egress.internet",
        extra_free=extra,
        free_label="free allowance" + (f" ({', '.join(labels)})" if labels else "") + free_where(price),
    )


def transfer(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """Inter-region transfer on its tiers; a warning where the provider publishes no price for it."""
    if not usage.inter_region_bytes:
        return []
    price = table.egress.inter_region
    if price is None:
        bill.warnings.append(f"{table.provider_name} publishes no inter-region transfer price; none charged")
        return []
    return bill.writer.tiered(
        "transfer",
        "inter-region transfer",
        price,
        Decimal(usage.inter_region_bytes) / Decimal(price.unit_bytes),
        path="egress.inter_region",
        free_label="free allowance" + free_where(price),
    )
