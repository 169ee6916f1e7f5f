"""A provider's price table as people read it: what is charged, in which unit, with each figure's
sourcing and the words it was read from; and the audit of every price in force with its reading."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from planner.present.text.tables import csv_text, heading, quantity, table, unit_price, wrap_prose
from planner.pricing import quotes
from planner.pricing.bill_lines import worst
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Quote, Status, TieredPrice
from planner.pricing.storage_classes import StorageClass

if TYPE_CHECKING:  # the audit (and the CDN and lifecycle tables behind it) only for the type checker: start-up
    from planner.pricing.audit import AuditRow, Summary


def _ladder_status(price: TieredPrice, fallback: Status) -> Status:
    """A ladder's status as its bills take it: the weakest of its tiers, each as sourced itself, else as
    the whole price, else as ``fallback`` (the class's, then the table's)."""
    return functools.reduce(worst, (tier.status or price.status or fallback for tier in price.tiers))


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
    lines += ["", heading("Quotes", fmt, level=3), *_quote_lines(priced, class_filter, width)]
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
    internet = _ladder_status(egress.internet, priced.status).value
    rows: list[Row] = [("internet egress", _tiers(egress.internet), internet)]
    if egress.free_per_day:
        rows.append(("egress allowance", f"{quantity(egress.free_per_day)} {egress.internet.unit} a day free", ""))
    if egress.free_multiple_of_storage is not None:
        rows.append(("egress allowance", f"free up to {quantity(egress.free_multiple_of_storage)}x stored", ""))
    if egress.fair_use_multiple_of_storage is not None:
        rows.append(
            ("egress policy", f"free only while egress <= {quantity(egress.fair_use_multiple_of_storage)}x stored", "")
        )
    if egress.inter_region is not None:
        inter = _ladder_status(egress.inter_region, priced.status).value
        rows.append(("inter-region", _tiers(egress.inter_region), inter))
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
    stored = _ladder_status(storage_class.storage, Status(status)).value
    rows: list[Row] = [("storage", _tiers(storage_class.storage), stored)]
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
                f"{unit_price(monitoring.price)} per {monitoring.per:,} objects"
                + (f" >= {monitoring.min_object_bytes:,} B" if monitoring.min_object_bytes else "")
                + (
                    f" (objects under {monitoring.tiered_from:,} B never move tier)"
                    if monitoring.tiered_from != monitoring.min_object_bytes
                    else ""
                ),
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


def _number(value: Decimal) -> str:
    return format(value.normalize(), "f") if value else "0"


def quote_words(quote: Quote | None, *, limit: int | None = None) -> str:
    """A quote as people read it: the passage in quotation marks (cut to ``limit`` characters), then where and
    when it was read and how the figure follows; "no quote" for a price without one."""
    if quote is None:
        return "no quote"
    text = " ".join(quote.text.split())
    if limit is not None and len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    how = ""
    if quote.derive:
        steps = (
            quote.derive if isinstance(quote.derive, str) else "; ".join(f"{k}: {v}" for k, v in quote.derive.items())
        )
        how = f", derived: {steps}"
    return f'"{text}" ({quote.url}, read {quote.read}{how})'


def _quote_lines(priced: PriceTable, class_filter: str | None, width: int | None) -> list[str]:
    """Each price of the table with the words it was read from (or "no quote"), one under the other."""
    lines = []
    for reading in quotes.readings(priced):
        parts = reading.field.split(".")
        if class_filter and parts[0] == "classes" and parts[1] != class_filter:
            continue
        line = f"- {reading.field} = {_number(reading.figure)}: {quote_words(reading.quote)}"
        lines.append(wrap_prose(line, "    ", width=width))
    return lines


_AUDIT_COLUMNS = ["table", "field", "figure", "unit", "status", "read", "age_days", "stale", "quote", "address"]
_SHORT_QUOTE = 60


def _summary_line(found: Summary) -> str:
    """The audit's totals: prices, quoted, unquoted, the stale readings and the oldest reading."""
    text = (
        f"{found.prices} price{'' if found.prices == 1 else 's'}: {found.quoted} quoted, {found.unquoted} with no quote"
    )
    oldest = found.oldest
    if oldest is None or oldest.quote is None:
        return f"{text}; no reading"
    stale = f"; {found.stale} reading{'' if found.stale == 1 else 's'} older than 12 months" if found.stale else ""
    days = f"{oldest.age_days} day{'' if oldest.age_days == 1 else 's'}"
    return f"{text}{stale}; oldest reading {oldest.quote.read} ({oldest.source} {oldest.field}, {days})"


def _cells(row: AuditRow, *, limit: int | None) -> tuple[Any, ...]:
    quote = row.quote
    if quote is None:
        words: str | None = None
    else:
        words = " ".join(quote.text.split())
        if limit is not None and len(words) > limit:
            words = words[: limit - 3].rstrip() + "..."
    return (
        row.source,
        row.field,
        row.figure,
        row.unit,
        row.status,
        quote.read.isoformat() if quote is not None else None,
        row.age_days,
        ("true" if row.stale else "false") if quote is not None else None,
        words,
        quote.url if quote is not None else None,
    )


def audit(rows: Sequence[AuditRow], found: Summary, fmt: str, *, width: int | None = None) -> str:
    """The audit as a table (each quote cut short, "no quote" where a price has none) and its summary line, or
    as CSV (every quote whole)."""
    if fmt == "csv":
        return csv_text(_AUDIT_COLUMNS, (_cells(r, limit=None) for r in rows))
    shown = []
    for row in rows:
        cells = list(_cells(row, limit=_SHORT_QUOTE))
        cells[5] = cells[5] or "-"
        cells[6] = "-" if cells[6] is None else f"{cells[6]:,}"
        cells[7] = "stale" if row.stale else ""
        cells[8] = f'"{cells[8]}"' if cells[8] else "no quote"
        cells[3] = cells[3] or ""
        cells[9] = cells[9] or ""
        shown.append(cells)
    headers = ["table", "field", "figure", "unit", "status", "read", "age (days)", "stale", "quote", "address"]
    return "\n".join([table(headers, shown, fmt, width=width), "", wrap_prose(_summary_line(found), "  ", width=width)])


def audit_json(rows: Sequence[AuditRow], found: Summary) -> str:
    """The audit as JSON: every row with its quote whole, and the summary."""
    listed = [
        {
            "provider": r.provider,
            "table": r.source,
            "field": r.field,
            "figure": r.figure,
            "unit": r.unit,
            "currency": r.currency,
            "status": r.status,
            "quoted": r.quoted,
            "quote": None if r.quote is None else r.quote.model_dump(mode="json", exclude_none=True),
            "read": None if r.read is None else r.read.isoformat(),
            "age_days": r.age_days,
            "stale": r.stale,
        }
        for r in rows
    ]
    oldest = found.oldest
    summary = {
        "prices": found.prices,
        "quoted": found.quoted,
        "unquoted": found.unquoted,
        "stale": found.stale,
        "oldest_reading": None
        if oldest is None or oldest.read is None
        else {"read": oldest.read.isoformat(), "table": oldest.source, "field": oldest.field},
        "line": _summary_line(found),
    }
    return json.dumps({"prices": listed, "summary": summary}, indent=2)
