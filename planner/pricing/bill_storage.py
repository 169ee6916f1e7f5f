"""The storage rules of a bill: the stored bytes (by access tier), what is billed with them (minimum
object size, per-object overhead, monitoring, minimum billable storage), early deletion before a
class's minimum duration, and replication to more regions.

Each rule is a function of the month's usage, the price table and the bill being written
(``BillContext``) that returns its lines; ``planner.pricing.bill_rules`` lists them in billing order.
"""

from __future__ import annotations

from decimal import Decimal

from planner.errors import PricingError
from planner.pricing import rules
from planner.pricing.bill_lines import ZERO, BillContext, free_where, number, worst
from planner.pricing.breakdown import LineItem
from planner.pricing.models import PriceTable
from planner.pricing.usage import SizeBin, Usage


def object_bins(usage: Usage) -> list[SizeBin] | None:
    """The stored objects as a size histogram, or None when the usage gives no count."""
    if usage.object_sizes is not None:
        return list(usage.object_sizes)
    if usage.object_count:
        mean = usage.stored_bytes // usage.object_count
        return [SizeBin(bytes=mean, count=usage.object_count)]
    return None


def access_shares(bill: BillContext) -> dict[str, Decimal]:
    """Shares of the monitored bytes in each extra access tier: as given, or placed from how long data goes unread.

    An object moves into a tier after ``access_tier_after_days`` without a read, so a tier holds the
    data unread for at least its days but not for the next tier's. The unread share for N days is
    the workload's figure for the shortest period of at least N days it gives (0 when none): a lower
    bound on the data that has moved, never an overstatement of the saving.
    """
    usage, sc = bill.usage, bill.storage_class
    if usage.access_tier_shares or not usage.unread_shares or not sc.access_tier_after_days:
        return dict(usage.access_tier_shares)

    def unread(days: int) -> Decimal:
        longer = [d for d in usage.unread_shares if d >= days]
        return usage.unread_shares[min(longer)] if longer else ZERO

    ordered = sorted(sc.access_tier_after_days.items(), key=lambda item: item[1])
    shares: dict[str, Decimal] = {}
    for index, (tier_id, days) in enumerate(ordered):
        colder = unread(ordered[index + 1][1]) if index + 1 < len(ordered) else ZERO
        share = unread(days) - colder
        if share > 0:
            shares[tier_id] = share
    return shares


def stored_bytes(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """The stored bytes; in a class with extra access tiers (Intelligent-Tiering), each tier's share of the
    monitored objects' bytes at its price and the rest as frequent access. Warns when per-object charges
    cannot be billed for want of an object count."""
    sc = bill.storage_class
    bins = object_bins(usage)
    needs_objects = sc.min_object_bytes or sc.object_overhead or sc.monitoring
    if needs_objects and bins is None and usage.stored_bytes:
        bill.warnings.append(
            f"{sc.name}: no object count given, so per-object charges (minimum object size, "
            "overhead, monitoring) are left out"
        )
    price = sc.storage
    unit_bytes = Decimal(price.unit_bytes)
    stored = Decimal(usage.stored_bytes)
    tier_bytes: dict[str, Decimal] = {}
    if sc.access_tiers:
        eligible = stored
        if sc.monitoring and bins is not None:
            eligible = Decimal(sum(b.bytes * b.count for b in bins if b.bytes >= sc.monitoring.tiered_from))
        for tier_id, share in access_shares(bill).items():
            if tier_id not in sc.access_tiers:
                raise PricingError(
                    f"{table.version} {bill.storage_class_id}: no access tier {tier_id!r} "
                    f"(tiers: {', '.join(sc.access_tiers)})"
                )
            tier_bytes[tier_id] = eligible * share
    elif usage.access_tier_shares:
        raise PricingError(f"{table.version} {bill.storage_class_id} has no access tiers")
    if sc.access_tiers and not tier_bytes and not usage.unread_shares and stored:
        bill.warnings.append(
            f"{sc.name}: every byte is billed at frequent access, the dearest of its tiers: the workload does not "
            "say how much of its data goes unread (storage.unread, e.g. {30d: 0.6, 90d: 0.4}), so none is placed "
            "in a cheaper one"
        )
    frequent = stored - sum(tier_bytes.values(), ZERO)
    label = f"{sc.name} storage" + (" (frequent access)" if sc.access_tiers else "")
    hourly_free = (price.free_per_hour or ZERO) * bill.hours
    items = bill.writer.tiered(
        "storage",
        label + bill.period_note,
        price,
        frequent / unit_bytes * bill.storage_scale,
        path=f"{bill.class_path}.storage",
        extra_free=hourly_free,
        free_label="free allowance" + free_where(price),
    )
    for tier_id, tier_b in tier_bytes.items():
        if tier_b > 0:
            items.append(
                bill.writer.line(
                    "storage",
                    f"{sc.name} storage ({tier_id} access)",
                    bill.round(tier_b / unit_bytes * bill.storage_scale),
                    price.unit,
                    sc.access_tiers[tier_id],
                    bill.status(price.status),
                    field=f"{bill.class_path}.access_tiers.{tier_id}",
                    quote=sc.quotes.get(f"access_tiers.{tier_id}"),
                )
            )
    return items


def _padding(usage: Usage, bill: BillContext) -> Decimal:
    """The bytes the class's minimum billable object size adds to the stored objects (0 without a count)."""
    bins, least = object_bins(usage), bill.storage_class.min_object_bytes
    if bins is None or not least:
        return ZERO
    return sum((rules.padding_bytes(Decimal(b.bytes), Decimal(b.count), least) for b in bins), ZERO)


def minimum_object_size(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """Objects under the class's minimum billable size billed as that size."""
    sc = bill.storage_class
    price = sc.storage
    bins = object_bins(usage)
    padding = _padding(usage, bill)
    if bins is None or padding <= 0:
        return []
    count = sum(b.count for b in bins if b.bytes < sc.min_object_bytes and b.count)
    return [
        bill.writer.line(
            "minimum",
            f"minimum billable object size: {count:,} objects under {sc.min_object_bytes:,} bytes billed as that size",
            rules.units_of(padding * bill.storage_scale, price.unit_bytes, table.billing.round_up),
            price.unit,
            price.tiers[0].price,
            bill.status(price.status),
            field=bill.first_tier_field,
            quote=price.tiers[0].quote,
        )
    ]


def object_overhead(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """Glacier's per-object overhead: bytes at the class's own rate and bytes at a standard rate."""
    sc = bill.storage_class
    overhead = sc.object_overhead
    bins = object_bins(usage)
    objects = sum(b.count for b in bins) if bins is not None else 0
    if overhead is None or not objects:
        return []
    price = sc.storage
    status = bill.status(overhead.status)
    own = bill.writer.line(  # the rule's bytes at the class's first-tier price: as sourced as the weaker of them
        "storage",
        f"per-object overhead: {objects:,} objects x {overhead.class_rate_bytes:,} bytes at {sc.name} rate",
        bill.round(Decimal(objects * overhead.class_rate_bytes) / Decimal(price.unit_bytes) * bill.storage_scale),
        price.unit,
        price.tiers[0].price,
        worst(status, bill.status(price.tiers[0].status, price.status)),
        field=bill.first_tier_field,
        quote=price.tiers[0].quote,
    )
    standard = table.classes[overhead.standard_rate_class].storage
    return [
        own,
        *bill.on_standard_tiers(
            "storage",
            f"per-object overhead: {objects:,} objects x {overhead.standard_rate_bytes:,} bytes",
            overhead.standard_rate_class,
            Decimal(objects * overhead.standard_rate_bytes) / Decimal(standard.unit_bytes) * bill.storage_scale,
            status,
        ),
    ]


def access_tier_overhead(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """The per-object overhead of the objects in an access tier that has one (S3 Intelligent-Tiering's
    Archive Access and Deep Archive Access: "8 KB ... billed at S3 Standard storage rates and 32 KB ...
    billed at S3 Glacier Flexible Retrieval and S3 Glacier Deep Archive storage rates"). A tier holds its
    share of the monitored objects, as of their bytes: every monitored object alike."""
    sc = bill.storage_class
    bins = object_bins(usage)
    if not sc.access_tier_overhead or bins is None:
        return []
    least = sc.monitoring.tiered_from if sc.monitoring is not None else 0
    monitored = Decimal(sum(b.count for b in bins if b.bytes >= least))
    price = sc.storage
    items = []
    for tier_id, share in access_shares(bill).items():
        overhead = sc.access_tier_overhead.get(tier_id)
        objects = monitored * share
        if overhead is None or not objects:
            continue
        status = bill.status(overhead.status)
        count = number(bill.round(objects))
        items.append(
            bill.writer.line(
                "storage",
                f"per-object overhead: {count} objects in the {tier_id} access tier x"
                f" {overhead.class_rate_bytes:,} bytes at its rate",
                bill.round(objects * overhead.class_rate_bytes / Decimal(price.unit_bytes) * bill.storage_scale),
                price.unit,
                sc.access_tiers[tier_id],
                status,
                field=f"{bill.class_path}.access_tiers.{tier_id}",
                quote=sc.quotes.get(f"access_tiers.{tier_id}"),
            )
        )
        standard = table.classes[overhead.standard_rate_class].storage
        items += bill.on_standard_tiers(
            "storage",
            f"per-object overhead: {count} objects in the {tier_id} access tier x"
            f" {overhead.standard_rate_bytes:,} bytes",
            overhead.standard_rate_class,
            objects * overhead.standard_rate_bytes / Decimal(standard.unit_bytes) * bill.storage_scale,
            status,
        )
    return items


def monitoring(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """Intelligent-Tiering's monitoring and automation charge, per object large enough to monitor."""
    charge = bill.storage_class.monitoring
    bins = object_bins(usage)
    if charge is None or bins is None:
        return []
    least = charge.min_object_bytes
    monitored = sum((rules.monitored_objects(Decimal(b.bytes), Decimal(b.count), least) for b in bins), ZERO)
    if not monitored:
        return []
    return [
        bill.writer.line(
            "storage",
            f"monitoring and automation: {monitored:,} objects" + (f" of at least {least:,} bytes" if least else ""),
            rules.units_of(monitored, charge.per, table.billing.round_up),
            f"{charge.per:,} objects",
            charge.price,
            bill.status(charge.status),
            field=f"{bill.class_path}.monitoring.price",
            quote=charge.quote,
        )
    ]


def minimum_storage(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """The shortfall below the class's minimum billable storage (Wasabi's and IDrive e2's 1 TB), counting
    the bytes the minimum object size adds."""
    sc = bill.storage_class
    price = sc.storage
    if not sc.minimum_billable_bytes:
        return []
    shortfall = rules.shortfall_bytes(Decimal(usage.stored_bytes) + _padding(usage, bill), sc.minimum_billable_bytes)
    if shortfall <= 0:
        return []
    return [
        bill.writer.line(
            "minimum",
            f"minimum billable storage of {number(sc.minimum_billable_bytes / Decimal(price.unit_bytes))} "
            f"{price.unit}: the shortfall",
            rules.units_of(shortfall * bill.storage_scale, price.unit_bytes, table.billing.round_up),
            price.unit,
            price.tiers[0].price,
            bill.status(price.status),
            field=bill.first_tier_field,
            quote=price.tiers[0].quote,
        )
    ]


def early_deletion(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """Objects deleted before the class's minimum duration pay for the remaining days.

    In a class with a minimum billable object size, a smaller object's remaining days are billed
    on the padded size, as its storage is: AWS meters that part separately (usage types
    EarlyDelete-SIA-SmObjects, EarlyDelete-ZIA-SmObjects, EarlyDelete-GIR-SmObjects: "prorated
    storage usage for small objects (smaller than 128 KB) ... deleted before the minimum").
    A deletion gives bytes and an object count; the objects are taken as all of the mean size.
    """
    sc = bill.storage_class
    if not sc.min_duration_days:
        return []
    days = bill.month_days
    month_days = Decimal(days)
    price = sc.storage
    hourly = rules.hourly_scale(price.per_hour, days)  # an hourly price bills the month's hours
    round_up = table.billing.round_up
    status = bill.status(price.status)
    items = []
    for deletion in usage.deletions:
        age = Decimal(str(deletion.age_days))
        remaining = Decimal(sc.min_duration_days) - age
        if remaining <= 0 or deletion.bytes == 0:
            continue
        when = (
            f"deleted at {number(age)} days, before the {sc.min_duration_days}-day minimum; "
            f"{number(remaining)} remaining days over a {month_days}-day month"
        )
        items.append(
            bill.writer.line(
                "early_deletion",
                f"{sc.name}: {when}",
                rules.early_deletion_units(Decimal(deletion.bytes), price.unit_bytes, remaining, days, round_up)
                * hourly,
                price.unit,
                price.tiers[0].price,
                status,
                field=bill.first_tier_field,
                quote=price.tiers[0].quote,
            )
        )
        padded = deletion.objects * sc.min_object_bytes
        if sc.min_object_bytes and padded > deletion.bytes:
            mean = number(Decimal(deletion.bytes) / deletion.objects)
            items.append(
                bill.writer.line(
                    "early_deletion",
                    f"{sc.name}: small objects padded to {sc.min_object_bytes:,} bytes, {when} "
                    f"({deletion.objects:,} objects averaging {mean} bytes)",
                    rules.early_deletion_units(
                        Decimal(padded - deletion.bytes), price.unit_bytes, remaining, days, round_up
                    )
                    * hourly,
                    price.unit,
                    price.tiers[0].price,
                    status,
                    field=bill.first_tier_field,
                    quote=price.tiers[0].quote,
                )
            )
    return items


def replication(usage: Usage, table: PriceTable, bill: BillContext) -> list[LineItem]:
    """The class's storage billed again in each region it is replicated to beyond the first."""
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
