"""A provider's price table as people read it: what is charged, in which unit, with each figure's
sourcing."""

from __future__ import annotations

from decimal import Decimal

from planner.present.text.tables import heading, quantity, table, unit_price
from planner.pricing.models import PriceTable
from planner.pricing.primitives import TieredPrice
from planner.pricing.storage_classes import StorageClass


def _tiers(price: TieredPrice) -> str:
    steps = []
    lower = Decimal(0)
    for tier in price.tiers:
        if tier.up_to is None:
            span = f"over {quantity(lower)}" if lower else "all"
        else:
            span = f"{quantity(lower)}-{quantity(tier.up_to)}"
            lower = tier.up_to
        steps.append(f"{span}: {unit_price(tier.price)}")
    free = f" (first {quantity(price.free_per_month)} free)" if price.free_per_month else ""
    return f"per {price.unit} [{price.unit_bytes:,} bytes]{free}: " + "; ".join(steps)


def _regions(priced: PriceTable) -> str:
    scope = priced.regions
    assert scope is not None
    said = "the same price in every region" if scope.same_price_everywhere else f"these prices hold in {priced.region}"
    names = f" ({', '.join(scope.names)})" if scope.names else ""
    return f"{said}{names}; {scope.status.value}: {scope.source}"


# One row of a price listing: item, price, status (a status value, or its name).
Row = tuple[str, str, object]


def price_table(priced: PriceTable, fmt: str, class_filter: str | None = None, *, width: int | None = None) -> str:
    """A price table for people: what is charged, in which unit, with each figure's sourcing."""
    lines = _preamble(priced, fmt) + _fee_lines(priced)
    listed = [table(["item", "price", "status"], _egress_rows(priced) + _limit_rows(priced), fmt, width=width)]
    for class_id, storage_class in priced.classes.items():
        if class_filter and class_id != class_filter:
            continue
        listed += _class_section(priced, class_id, storage_class, fmt, width=width)
    # a table in another currency states its prices in it (the bill converts them to USD); one character for
    # another keeps the columns aligned
    lines += [text.replace("$", _SYMBOL[priced.currency]) for text in listed]
    lines += ["", "Sources:"] + [f"- {source}" for source in priced.sources]
    lines += [f"note: {note}" for note in priced.notes]
    return "\n".join(lines)


def _preamble(priced: PriceTable, fmt: str) -> list[str]:
    """The table's heading, when it is in force, and how it bills."""
    return [
        heading(f"{priced.provider_name} prices, version {priced.version}", fmt),
        f"In force from {priced.effective_from}"
        + (f" (date {priced.effective_from_status.value})" if priced.effective_from_status else "")
        + f"; figures {priced.status.value}; currency {priced.currency}; region {priced.region}",
        f"Billing: {priced.billing.month_days}-day month"
        + ("; every metered unit rounded up to a whole unit" if priced.billing.round_up else ""),
        *([f"Regions: {_regions(priced)}"] if priced.regions else []),
        "",
    ]


_SYMBOL = {"USD": "$", "EUR": "€"}


def _fee_lines(priced: PriceTable) -> list[str]:
    """The monthly base fee, minimum charge and exchange rate a table states, each with its sourcing."""
    found = []
    money = _SYMBOL[priced.currency]
    for label, fee in (
        ("Monthly base fee", priced.billing.base_fee),
        ("Minimum monthly charge", priced.billing.minimum_charge),
    ):
        if fee is not None:
            found.append(f"{label}: {money}{fee.price} ({fee.status.value}: {fee.source})")
    rate = priced.exchange_rate
    if rate is not None:
        found.append(
            f"Billed in USD at {rate.usd_per_unit} USD per {priced.currency} of {rate.as_of} ({rate.status.value}: "
            f"{rate.source})"
        )
    return [*found, ""] if found else []


def _egress_rows(priced: PriceTable) -> list[Row]:
    """Egress prices, allowances and policy, and the bucket fee: what the provider charges whatever the class."""
    egress = priced.egress
    rows: list[Row] = [("internet egress", _tiers(egress.internet), (egress.internet.status or priced.status).value)]
    if egress.free_per_day:
        rows.append(("egress allowance", f"{quantity(egress.free_per_day)} {egress.internet.unit} a day free", ""))
    if egress.free_multiple_of_storage is not None:
        rows.append(("egress allowance", f"free up to {quantity(egress.free_multiple_of_storage)}x stored", ""))
    if egress.fair_use_multiple_of_storage is not None:
        rows.append(
            ("egress policy", f"free only while egress <= {quantity(egress.fair_use_multiple_of_storage)}x stored", "")
        )
    if egress.inter_region is not None:
        rows.append(("inter-region", _tiers(egress.inter_region), (egress.inter_region.status or priced.status).value))
    if priced.buckets is not None:
        rows.append(("buckets", f"{priced.buckets.included:,} included, then {unit_price(priced.buckets.price)}", ""))
    return rows


def _limit_rows(priced: PriceTable) -> list[Row]:
    """Object sizes, multipart rules and request rates the provider allows."""
    limits = priced.limits
    limit_status = (limits.status or priced.status).value
    rows: list[Row] = []
    if limits.max_object_bytes:
        rows.append(("largest object", f"{limits.max_object_bytes:,} bytes", limit_status))
    if limits.max_single_put_bytes:
        rows.append(("largest single PUT", f"{limits.max_single_put_bytes:,} bytes", limit_status))
    if limits.multipart:
        part = limits.multipart
        rows.append(
            (
                "multipart",
                f"parts {part.min_part_bytes:,} to {part.max_part_bytes:,} bytes, at most {part.max_parts:,}",
                limit_status,
            )
        )
    for rate in limits.request_rates:
        rows.append(
            (
                f"request rate per {rate.scope}",
                f"{rate.per_s:,g}/s: {', '.join(rate.operations)} (past it: {rate.error})",
                limit_status,
            )
        )
    return rows


def _class_section(
    priced: PriceTable, class_id: str, storage_class: StorageClass, fmt: str, *, width: int | None
) -> list[str]:
    """One storage class: its heading, its prices and rules, and its note."""
    status = (storage_class.status or priced.status).value
    rows = [
        *_storage_rows(storage_class, status),
        *_request_rows(storage_class, status),
        *_retrieval_rows(storage_class, status),
    ]
    lines = ["", heading(f"{class_id}: {storage_class.name}", fmt, level=3)]
    lines.append(table(["item", "price", "status"], [(a, b, str(c)) for a, b, c in rows], fmt, width=width))
    if storage_class.note:
        lines.append(f"note: {storage_class.note}")
    return lines


def _storage_rows(storage_class: StorageClass, status: str) -> list[Row]:
    """What storing costs in the class: the price, access tiers, minimums, overheads and monitoring."""
    rows: list[Row] = [("storage", _tiers(storage_class.storage), (storage_class.storage.status or status))]
    for tier_id, tier_price in storage_class.access_tiers.items():
        rows.append((f"storage ({tier_id})", f"per {storage_class.storage.unit}: {unit_price(tier_price)}", status))
    if storage_class.minimum_billable_bytes:
        rows.append(("minimum storage", f"{storage_class.minimum_billable_bytes:,} bytes a month", status))
    if storage_class.min_duration_days:
        rows.append(("minimum duration", f"{storage_class.min_duration_days} days", status))
    if storage_class.min_object_bytes:
        rows.append(("minimum object size", f"{storage_class.min_object_bytes:,} bytes", status))
    if storage_class.object_overhead:
        overhead = storage_class.object_overhead
        rows.append(
            (
                "per-object overhead",
                f"{overhead.class_rate_bytes:,} bytes at this rate + {overhead.standard_rate_bytes:,} bytes "
                f"at {overhead.standard_rate_class}",
                status,
            )
        )
    if storage_class.monitoring:
        monitoring = storage_class.monitoring
        rows.append(
            (
                "monitoring",
                f"{unit_price(monitoring.price)} per {monitoring.per:,} objects >= {monitoring.min_object_bytes:,} B",
                status,
            )
        )
    return rows


def _request_rows(storage_class: StorageClass, status: str) -> list[Row]:
    """Each request class's price and allowances, then the operations that are free."""
    rows: list[Row] = []
    for request_class in storage_class.requests:
        free = []
        if request_class.free_per_month:
            free.append(f"{request_class.free_per_month:,} a month free")
        if request_class.free_per_day:
            free.append(f"{request_class.free_per_day:,} a day free")
        rows.append(
            (
                f"requests: {request_class.id}",
                f"{unit_price(request_class.price)} per {request_class.per:,}"
                + (f" ({', '.join(free)})" if free else "")
                + f": {', '.join(request_class.operations)}",
                (request_class.status or status),
            )
        )
    if storage_class.free_operations:
        rows.append(("requests: free", ", ".join(storage_class.free_operations), status))
    return rows


def _retrieval_rows(storage_class: StorageClass, status: str) -> list[Row]:
    """The price of each way of restoring or reading back an archived object."""
    rows: list[Row] = []
    if not storage_class.retrieval:
        return rows
    for name, option in storage_class.retrieval.options.items():
        per_request = (
            f" + {unit_price(option.per_1000_requests)} per 1,000 requests" if option.per_1000_requests else ""
        )
        rows.append(
            (
                f"retrieval: {name}",
                f"{unit_price(option.per_gb)} per {storage_class.retrieval.unit}{per_request}"
                + (f" ({option.time})" if option.time else ""),
                (option.status or status),
            )
        )
    return rows
