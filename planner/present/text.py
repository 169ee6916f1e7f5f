"""Turning results into text: tables for terminals, Markdown for documents, JSON for programs.

Nothing here computes a figure; it only lays out what the library returned. JSON is the
models' own serialisation (money as strings of decimal numbers), so it is stable.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from pydantic import BaseModel
from tabulate import tabulate

from planner.costing.bills import CostProjection
from planner.decide.migration import MigrationPlan
from planner.decide.recommendation import RESTORE_FIRST, PerformanceEstimate, Recommendation
from planner.decide.sweep import Sweep
from planner.decide.uncertainty import Uncertain, UncertainAnswer
from planner.evidence import MARKERS, PRICE_MARKERS, Evidence, legend, marked, price_legend
from planner.ingest import Bill, ReconcileLine, Reconciliation
from planner.ingest.accesslog import AccessLog
from planner.ingest.inventory import Inventory
from planner.pricing.models import CostBreakdown, LineItem, PriceTable, TieredPrice
from planner.units import format_bytes, format_duration, format_rate
from planner.workload import format_field_value

CENT = Decimal("0.01")


def usd(amount: Decimal, *, places: int = 2) -> str:
    """Money for people: rounded half-up to cents (or more places for unit prices)."""
    quantum = Decimal(1).scaleb(-places)
    rounded = amount.quantize(quantum, rounding=ROUND_HALF_UP)
    return f"${rounded:,}"


def unit_price(price: Decimal) -> str:
    """A unit price exactly as the table states it, without trailing float noise."""
    text = format(price.normalize(), "f") if price else "0"
    return f"${text}"


def quantity(value: Decimal) -> str:
    text = f"{value:,.6f}".rstrip("0").rstrip(".")
    return text or "0"


def csv_text(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Rows as CSV (RFC 4180 quoting), a header row first; None is an empty cell."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    writer.writerows(["" if v is None else v for v in row] for row in rows)
    return out.getvalue().rstrip("\n")


def _plain(value: Decimal | float | None) -> str | None:
    """A number for a CSV cell: no currency sign, no thousands separator, no exponent."""
    if value is None:
        return None
    if isinstance(value, Decimal):
        return format(value, "f")
    return repr(value)


# Renderers take ``width``: wrap plain tables and bullets to this many columns (the CLI passes the
# terminal's; None: never).
_MIN_COLUMN = 16


def _column_limits(headers: Sequence[str], rows: list[Sequence[Any]], width: int) -> list[int | None] | None:
    """Widths that fit the table into ``width`` by wrapping only its widest columns, all to one cap
    (never below 16 characters: ids and amounts stay whole); None when the table fits already."""
    natural = [len(str(h)) + 2 for h in headers]  # tabulate pads a header by 2 at least
    for row in rows:
        for i, cell in enumerate(row):
            if i < len(natural):
                natural[i] = max(natural[i], max((len(part) for part in str(cell).split("\n")), default=0))
    gaps = 2 * (len(natural) - 1)
    if sum(natural) + gaps <= width:
        return None
    cap = max(natural)
    while cap > _MIN_COLUMN and sum(min(n, cap) for n in natural) + gaps > width:
        cap -= 1
    if sum(min(n, cap) for n in natural) + gaps > width:
        return None  # too many columns to fit: wrapping would only make it taller
    return [cap if n > cap else None for n in natural]


def wrap_prose(text: str, indent: str = "", *, width: int | None = None) -> str:
    """A line of prose wrapped to ``width`` columns (unchanged without one: not writing to a terminal)."""
    if not width or len(text) <= width:
        return text
    import textwrap

    return textwrap.fill(text, width=width, subsequent_indent=indent, break_on_hyphens=False)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], fmt: str, *, width: int | None = None) -> str:
    if fmt == "csv":
        return csv_text(headers, rows)
    style = "github" if fmt == "markdown" else "simple"
    listed = list(rows)
    limits = _column_limits(headers, listed, width) if fmt == "table" and width else None
    if limits is not None:
        return tabulate(listed, headers=list(headers), tablefmt=style, disable_numparse=True, maxcolwidths=limits)
    return tabulate(listed, headers=list(headers), tablefmt=style, disable_numparse=True)


def as_json(value: BaseModel | list[BaseModel] | dict[str, Any]) -> str:
    if isinstance(value, BaseModel):
        return value.model_dump_json(indent=2)
    if isinstance(value, list):
        return json.dumps([v.model_dump(mode="json") for v in value], indent=2)
    return json.dumps(value, indent=2, default=str)


def heading(text: str, fmt: str, level: int = 2) -> str:
    if fmt == "markdown":
        return f"{'#' * level} {text}\n"
    return f"{text}\n{'=' * len(text) if level <= 2 else '-' * len(text)}"


def line_item_row(item: LineItem, *, version: bool = False) -> tuple[str, ...]:
    """category, item, quantity, unit, unit price, amount (and the table version)."""
    row = (
        item.category,
        item.description,
        quantity(item.quantity),
        item.unit,
        unit_price(item.unit_price_usd),
        usd(item.amount_usd),
    )
    return (*row, item.table_version) if version else row


def breakdown(bill: CostBreakdown, fmt: str, *, title: str | None = None, width: int | None = None) -> str:
    """One month's line items and total."""
    if fmt == "csv":  # the line items alone, as numbers
        headers = ["category", "item", "quantity", "unit", "unit_price_usd", "amount_usd", "amount_unrounded_usd"]
        return csv_text(
            [*headers, "discount", "table_version", "price_status"],
            [
                (
                    i.category,
                    i.description,
                    _plain(i.quantity),
                    i.unit,
                    _plain(i.unit_price_usd),
                    _plain(i.amount_usd),
                    _plain(i.amount_unrounded_usd),
                    _plain(i.discount),
                    i.table_version,
                    i.price_status,
                )
                for i in bill.line_items
            ],
        )
    rows = [line_item_row(item) for item in bill.line_items]
    rows.append(("total", "", "", "", "", usd(bill.total_usd)))
    name = title or f"{bill.provider} {bill.storage_class}"
    parts = [
        heading(f"{name}: {usd(bill.total_usd)} a month", fmt),
        f"Prices: {bill.table_version}"
        + (f", in force on {bill.as_of}" if bill.as_of else "")
        + (f"; region {bill.region}" if bill.region else ""),
        *([f"Region: {bill.region_note}"] if bill.region_note else []),
        "",
        table(["category", "item", "quantity", "unit", "unit price", "amount"], rows, fmt, width=width),
    ]
    for assumption in bill.assumptions:
        parts.append(wrap_prose(f"assumed: {assumption}", "  ", width=width))
    for warning in bill.warnings:
        parts.append(wrap_prose(f"warning: {warning}", "  ", width=width))
    return "\n".join(parts)


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


def price_table(priced: PriceTable, fmt: str, class_filter: str | None = None, *, width: int | None = None) -> str:
    """A price table for people: what is charged, in which unit, with each figure's sourcing."""
    lines = [
        heading(f"{priced.provider_name} prices, version {priced.version}", fmt),
        f"In force from {priced.effective_from}"
        + (f" (date {priced.effective_from_status.value})" if priced.effective_from_status else "")
        + f"; figures {priced.status.value}; currency {priced.currency}; region {priced.region}",
        f"Billing: {priced.billing.month_days}-day month"
        + ("; every metered unit rounded up to a whole unit" if priced.billing.round_up else ""),
        *([f"Regions: {_regions(priced)}"] if priced.regions else []),
        "",
    ]
    egress = priced.egress
    rows = [("internet egress", _tiers(egress.internet), (egress.internet.status or priced.status).value)]
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
    limits = priced.limits
    limit_status = (limits.status or priced.status).value
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
    lines.append(table(["item", "price", "status"], rows, fmt, width=width))
    for class_id, storage_class in priced.classes.items():
        if class_filter and class_id != class_filter:
            continue
        status = (storage_class.status or priced.status).value
        rows = [("storage", _tiers(storage_class.storage), (storage_class.storage.status or status))]
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
                    f" >= {monitoring.min_object_bytes:,} B",
                    status,
                )
            )
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
        if storage_class.retrieval:
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
        lines += ["", heading(f"{class_id}: {storage_class.name}", fmt, level=3)]
        lines.append(table(["item", "price", "status"], [(a, b, str(c)) for a, b, c in rows], fmt, width=width))
        if storage_class.note:
            lines.append(f"note: {storage_class.note}")
    lines += ["", "Sources:"] + [f"- {source}" for source in priced.sources]
    lines += [f"note: {note}" for note in priced.notes]
    return "\n".join(lines)


def projection(result: CostProjection, fmt: str, *, width: int | None = None) -> str:
    if fmt == "csv":
        return csv_text(
            ["month", "priced_on", "stored_bytes", "category", "amount_usd", "table_version"],
            [
                (m.month, m.as_of.isoformat(), m.stored_bytes, category, _plain(amount), m.cost.table_version)
                for m in result.months
                for category, amount in [*m.cost.by_category().items(), ("total", m.cost.total_usd)]
            ],
        )
    rows = []
    for month in result.months:
        cost = month.cost
        by = cost.by_category()
        rows.append(
            (
                str(month.month),
                month.as_of.isoformat(),
                format_bytes(month.stored_bytes),
                usd(by.get("storage", Decimal(0)) + by.get("minimum", Decimal(0))),
                usd(by.get("egress", Decimal(0))),
                usd(by.get("requests", Decimal(0))),
                usd(
                    sum((v for k, v in by.items() if k not in ("storage", "minimum", "egress", "requests")), Decimal(0))
                ),
                usd(cost.total_usd),
                cost.table_version,
            )
        )
    rows.append(("total", "", "", "", "", "", "", usd(result.total_usd), ""))
    return "\n".join(
        [
            heading(
                f"{result.provider} {result.storage_class}: {usd(result.total_usd)} over {len(result.months)} months",
                fmt,
            ),
            table(
                ["month", "priced on", "stored", "storage", "egress", "requests", "other", "total", "prices"],
                rows,
                fmt,
                width=width,
            ),
            *(
                wrap_prose(f"assumed: {a}", "  ", width=width)
                for a in (result.months[0].cost.assumptions if result.months else [])
            ),
        ]
    )


def ranking_headers(result: Recommendation) -> list[str]:
    """The ranking's columns; "writes" only when the workload sets a write target."""
    writes = ["writes"] if result.workload.performance.write_throughput is not None else []
    return [
        "#",
        "provider",
        "class",
        "this month",
        f"{result.months} months",
        "p99 TTFB",
        "reads",
        *writes,
        "throttled (sim.)",
        "verdict",
        "why not",
    ]


def _figure(text: str, evidence: Evidence | None) -> str:
    return marked(text, evidence or "assumed")


def _ttfb_cell(perf: PerformanceEstimate) -> str:
    """The TTFB the verdict rests on: the profile's figure (a floor shown as one), else the simulated p99."""
    if perf.p99_ttfb_s is not None:
        floor = ">=" if perf.ttfb_is_floor else ""
        return floor + _figure(format_duration(perf.p99_ttfb_s), perf.p99_ttfb_evidence)
    if perf.simulated_p99_ttfb_s is not None:
        return _figure(format_duration(perf.simulated_p99_ttfb_s), perf.simulated_p99_ttfb_evidence)
    return "no figure"


def _money(amount: Decimal, price_status: str) -> str:
    return f"{usd(amount)}{PRICE_MARKERS.get(price_status, '')}"


def ranking_rows(result: Recommendation) -> list[tuple[str, ...]]:
    """One row per option, as `planner recommend` prints them (the report uses the same rows)."""
    rows: list[tuple[str, ...]] = []
    for option in result.ranking:
        perf = option.performance
        ttfb = _ttfb_cell(perf)
        reads = (
            "no figure"
            if perf.read_throughput_bits_per_s is None
            else _figure(format_rate(perf.read_throughput_bits_per_s), perf.read_throughput_evidence)
        )
        throttled = "-" if perf.simulation is None else f"{perf.throttle_rate or 0:.1%}"
        if perf.read_bound == RESTORE_FIRST:
            ttfb = reads = "restore first"
            throttled = "-"
        writes = []
        if result.workload.performance.write_throughput is not None:
            writes = [
                "no figure"
                if perf.write_throughput_bits_per_s is None
                else _figure(format_rate(perf.write_throughput_bits_per_s), perf.write_throughput_evidence)
            ]
        verdict = "CHOSEN" if option.chosen else option.status
        why = option.violations or [f"unverified: {reason}" for reason in option.unverified]
        rows.append(
            (
                str(option.rank),
                option.label,
                option.storage_class,
                _money(option.monthly_cost_usd, option.price_status),
                _money(option.horizon_cost_usd, option.price_status),
                ttfb,
                reads,
                *writes,
                throttled,
                verdict,
                "; ".join(why) or "-",
            )
        )
    return rows


def legends() -> list[str]:
    """What the markers after figures and amounts mean."""
    return [legend(), price_legend()]


def ranking_csv(result: Recommendation) -> str:
    """The ranking as numbers, one row per option, with each figure's evidence beside it."""
    headers = ["rank", "provider", "class", "month_usd", f"{result.months}_months_usd", "price_status"]
    headers += [
        "p99_ttfb_s",
        "p99_ttfb_evidence",
        "read_bits_per_s",
        "read_evidence",
        "throttle_rate",
        "verdict",
        "why",
    ]
    rows = []
    for o in result.ranking:
        perf = o.performance
        ttfb, ttfb_evidence = perf.p99_ttfb_s, perf.p99_ttfb_evidence
        if ttfb is None:
            ttfb, ttfb_evidence = perf.simulated_p99_ttfb_s, perf.simulated_p99_ttfb_evidence
        rows.append(
            (
                o.rank,
                o.provider,
                o.storage_class,
                _plain(o.monthly_cost_usd),
                _plain(o.horizon_cost_usd),
                o.price_status,
                _plain(ttfb),
                ttfb_evidence,
                _plain(perf.read_throughput_bits_per_s),
                perf.read_throughput_evidence,
                _plain(perf.throttle_rate),
                "chosen" if o.chosen else o.status,
                "; ".join(o.violations or [f"unverified: {r}" for r in o.unverified]),
            )
        )
    return csv_text(headers, rows)


def recommendation(result: Recommendation, fmt: str, *, width: int | None = None) -> str:
    if fmt == "csv":
        return ranking_csv(result)
    rows = ranking_rows(result)
    name = result.workload.name
    notes: list[str] = []
    if fmt == "table" and width:
        # on a terminal the reasons go under the table, numbered, so the table fits
        for i, row in enumerate(rows):
            if row[-1] != "-":
                notes.append(wrap_prose(f"[{len(notes) + 1}] {row[1]} {row[2]}: {row[-1]}", "    ", width=width))
                rows[i] = (*row[:-1], f"[{len(notes)}]")
    parts = [
        heading(f"Recommendation for {name} (prices in force on {result.as_of}, {result.months}-month horizon)", fmt),
        table(
            ranking_headers(result),
            rows,
            fmt,
            width=width,
        ),
        *notes,
        "",
        *(wrap_prose(text, width=width) for text in legends()),
        "",
    ]
    if result.recommendation is None:
        parts.append(
            "No option meets every target with evidence (exit code 1). Not met on evidence anywhere: "
            + ", ".join(result.failed_targets)
        )
        provisional = result.provisional
        if provisional is None:
            return "\n".join(parts)
        option = next(
            o for o in result.ranking if o.label == provisional.label and o.storage_class == provisional.storage_class
        )
        parts += [
            "",
            heading(
                f"Cheapest with its targets unverified: {provisional.label} {provisional.storage_class}",
                fmt,
                level=3,
            ),
        ]
        parts += [wrap_prose(f"- {reason}", "  ", width=width) for reason in provisional.reasons]
        parts += [wrap_prose(f"- unverified: {reason}", "  ", width=width) for reason in option.unverified]
        parts.append("- measure it (planner measure) and run recommend again with --profiles")
        if option.warnings:
            parts += ["", heading("Caveats", fmt, level=3)] + [
                wrap_prose(f"- {w}", "  ", width=width) for w in option.warnings
            ]
        return "\n".join(parts)
    choice = result.recommendation
    parts.append(heading(f"Use {choice.label} {choice.storage_class}", fmt, level=3))
    parts += [wrap_prose(f"- {reason}", "  ", width=width) for reason in choice.reasons]
    if result.break_even:
        parts += ["", heading("What would change the answer", fmt, level=3)]
        parts += [wrap_prose(f"- {point.statement}", "  ", width=width) for point in result.break_even]
    chosen = next(o for o in result.ranking if o.chosen)
    if chosen.warnings:
        parts += ["", heading("Caveats", fmt, level=3)] + [
            wrap_prose(f"- {w}", "  ", width=width) for w in chosen.warnings
        ]
    return "\n".join(parts)


_COPY_HOSTS = {
    "on-premises": "the copy runs on a host outside both clouds",
    "source-region": "the copy runs on a VM in the source's region",
    "destination-service": "the destination's own migration service copies",
}


def _days(days: float | None) -> str:
    if days is None or days == float("inf"):
        return "not within the horizon"
    return f"{days * 24:,.1f} hours" if days < 2 else f"{days:,.1f} days"


def migration(plan: MigrationPlan, fmt: str, *, width: int | None = None) -> str:
    items = [line_item_row(item, version=True) for item in plan.one_time]
    items.append(("total", "", "", "", "", usd(plan.one_time_cost_usd), ""))
    # The duration is the timeline's; its mark is the evidence of the copy bound that sets it, if one does.
    duration_mark = "" if plan.duration_evidence is None else MARKERS[plan.duration_evidence]
    if plan.duration_hours == float("inf"):
        share = f"{plan.left_behind_share:.1%} of the data still only at {plan.source}"
        hours = f"not complete within the {plan.horizon_months}-month horizon ({share})"
    else:
        hours = f"{plan.duration_hours:,.1f} hours ({plan.duration_hours / 24:,.1f} days)"
    payback = (
        f"month {plan.payback_month} (the first month the cumulative cost of moving is at most staying's)"
        if plan.payback_month is not None
        else f"not within the {plan.horizon_months}-month horizon"
    )
    last = plan.timeline[-1]
    parts = [
        heading(f"Migrate {plan.workload}: {plan.source} -> {plan.destination} ({plan.strategy})", fmt),
        f"Moves {format_bytes(plan.stored_bytes)} in {plan.objects:,} objects, starting {plan.start}; "
        + ("nothing is copied." if plan.strategy == "age-out" else f"{_COPY_HOSTS[plan.copy_host]}."),
        f"Strategy: {plan.strategy}; {plan.chosen_because}.",
        f"One-time cost: {usd(plan.one_time_cost_usd)}. Duration: {hours}{duration_mark}; bound by {plan.bottleneck}.",
        f"Month 1: {usd(plan.monthly_before_usd)} to stay; month {last.month}: {usd(last.stay_usd)} to stay, "
        f"{usd(plan.monthly_after_usd)} moving. Pays back in {payback}.",
        "",
        heading("Strategies compared", fmt, level=3),
        table(
            ["strategy", "cost within horizon", "one-time", "duration", "payback month", "note"],
            [
                (
                    c.strategy,
                    "-" if c.total_move_usd is None else usd(c.total_move_usd),
                    "-" if c.one_time_cost_usd is None else usd(c.one_time_cost_usd),
                    _days(c.duration_days) + ("" if c.duration_evidence is None else MARKERS[c.duration_evidence]),
                    str(c.payback_month or "-"),
                    "chosen" if c.strategy == plan.strategy else "",
                )
                if c.applicable
                else (c.strategy, "-", "-", "-", "-", f"does not apply: {c.reason}")
                for c in plan.compared
            ],
            fmt,
            width=width,
        ),
        "",
        heading("One-time costs", fmt, level=3),
        table(["category", "item", "quantity", "unit", "unit price", "amount", "prices"], items, fmt, width=width),
        "",
        heading("What bounds the duration", fmt, level=3),
        table(
            ["bound", "hours", "evidence", "detail"],
            [
                (
                    b.name,
                    ("never" if b.hours == float("inf") else f"{b.hours:,.2f}")
                    + ("" if b.evidence is None else MARKERS[b.evidence]),
                    b.evidence or "stated",
                    b.detail,
                )
                for b in plan.bounds
            ],
            fmt,
            width=width,
        ),
        legend(),
        "",
        heading("Where the data lives and what each side bills", fmt, level=3),
        table(
            [
                "month",
                "priced on",
                "at source",
                "at destination",
                "copied",
                "stay",
                "source",
                "destination",
                "of which one-time",
                "cumulative stay",
                "cumulative move",
                "moved",
            ],
            [
                (
                    str(m.month),
                    m.as_of.isoformat(),
                    format_bytes(m.source_bytes),
                    format_bytes(m.destination_bytes),
                    format_bytes(m.copied_bytes),
                    usd(m.stay_usd),
                    usd(m.source_usd),
                    usd(m.destination_usd),
                    usd(m.one_time_usd),
                    usd(m.cumulative_stay_usd),
                    usd(m.cumulative_move_usd),
                    f"{m.moved_share:.0%}",
                )
                for m in plan.timeline
            ],
            fmt,
            width=width,
        ),
    ]
    if plan.assumptions:
        parts += ["", heading("Assumptions", fmt, level=3)] + [f"- {a}" for a in plan.assumptions]
    return "\n".join(parts)


def _tiny_usd(amount: Decimal | None) -> str:
    """Bill amounts below a cent keep their digits (a CUR line of $0.0000001 is not $0.00)."""
    if amount is None:
        return "-"
    if amount == 0:
        return "0"
    if abs(amount) >= Decimal("0.01"):
        return usd(amount)
    return f"{amount:.3g}"


def ingest_summary(bill: Bill, written: Sequence[str]) -> str:
    lines = [
        f"read {len(bill.groups):,} S3 usage groups from {len(bill.files)} file(s) ({bill.format.upper()},"
        f" periods {', '.join(p.isoformat() for p in bill.periods) or 'unknown'});"
        f" {bill.other_rows:,} rows of other services, taxes and credits skipped"
    ]
    if bill.bad_rows:
        lines.append(f"{bill.bad_rows:,} rows could not be read; the first:")
        lines += [f"  {b.where}: {b.reason}" for b in bill.first_bad]
    lines += list(bill.notes)
    lines += [f"wrote {name}" for name in written]
    return "\n".join(lines)


def reconciliation(result: Reconciliation, fmt: str, *, width: int | None = None) -> str:
    """planner's amount beside the bill's, usage type by usage type."""
    if fmt == "csv":
        return csv_text(
            [
                *("scope", "region", "usage_type", "operation", "quantity", "unit", "billed_usd", "list_usd"),
                "planner_usd",
                *("difference_usd", "table_version", "cause"),
            ],
            [
                (
                    line.scope,
                    line.region,
                    line.usage_type,
                    line.operation,
                    _plain(line.quantity),
                    line.unit,
                    _plain(line.billed_usd),
                    _plain(line.list_usd),
                    _plain(line.planner_usd),
                    _plain(line.difference_usd),
                    line.table_version,
                    line.cause,
                )
                for line in result.lines
            ],
        )

    def row(line: ReconcileLine) -> tuple[str, ...]:
        return (
            line.scope,
            line.usage_type,
            f"{quantity(line.quantity)} {line.unit}",
            _tiny_usd(line.billed_usd),
            _tiny_usd(line.planner_usd),
            _tiny_usd(line.difference_usd),
            line.cause,
        )

    rows = [row(line) for line in result.lines]
    headers = ["scope", "usage type", "quantity", "billed", "planner", "difference", "why"]
    total = (
        f"billed {_tiny_usd(result.billed_usd)} in all; on the lines planner prices, billed"
        f" {_tiny_usd(result.priced_billed_usd)}"
        + ("" if result.priced_list_usd is None else f" (list cost {_tiny_usd(result.priced_list_usd)})")
        + f" against planner's {_tiny_usd(result.planner_usd)}"
    )
    if any(line.list_usd is not None for line in result.lines):
        total += "; each difference is planner less the bill's list cost (FOCUS ListCost), as planner prices at list"
    parts = [heading("Reconciliation with the bill", fmt), table(headers, rows, fmt, width=width), "", total]
    if result.placements:
        parts += [
            "",
            heading("The written placement, priced as planner cost prices it", fmt),
            table(headers, [row(line) for line in result.placements], fmt, width=width),
        ]
    return "\n".join(parts)


def inventory_summary(inventory: Inventory, written: str) -> str:
    lines = [
        f"{inventory.objects:,} current objects, {format_bytes(inventory.bytes)} in {len(inventory.files)} file(s)"
        + (
            f"; {inventory.noncurrent_versions:,} noncurrent versions ({format_bytes(inventory.noncurrent_bytes)})"
            if inventory.noncurrent_versions
            else ""
        )
        + (f"; {inventory.delete_markers:,} delete markers" if inventory.delete_markers else "")
    ]
    for cls, share in sorted(inventory.classes.items(), key=lambda kv: -kv[1].bytes):
        lines.append(f"  {cls}: {share.objects:,} objects, {format_bytes(share.bytes)}")
    if inventory.bad_rows:
        lines.append(f"{inventory.bad_rows:,} rows could not be read; the first:")
        lines += [f"  {where}" for where in inventory.first_bad]
    lines.append(f"wrote {written}")
    return "\n".join(lines)


def access_log_summary(log: AccessLog, written: str, trace: str | None) -> str:
    from planner.units import format_duration

    mix = ", ".join(f"{op} {count:,}" for op, count in log.requests.items())
    lines = [
        f"{sum(log.requests.values()):,} requests over {format_duration(log.window_s)} ({mix})",
        f"busiest second {log.peak_per_s:,} requests (GETs {log.peak_get_per_s:,}); mean {log.mean_per_s:.3g}/s;"
        f" GETs sent {format_bytes(log.get_bytes_sent)}, {log.ranged_gets:,} of them ranged",
    ]
    if log.errors:
        lines.append("errors: " + ", ".join(f"{code} x{n:,}" for code, n in sorted(log.errors.items())))
    for hot in log.hot_keys:
        lines.append(
            f"  hot key {hot.key!r}: {100 * hot.share_of_gets:.3g} % of GETs, {hot.peak_per_s} in its busiest second,"
            + (" in flight unknown" if log.untimed_requests else f" about {hot.peak_in_flight:.3g} in flight")
        )
    if log.cached:
        lines.append(
            f"{log.cached:,} requests answered from Cloudflare's cache left out (they never reached the bucket)"
        )
    lines += [f"the logs cannot give {what}" for what in log.unavailable]
    if log.bad_lines:
        lines.append(f"{log.bad_lines:,} lines could not be read; the first:")
        lines += [f"  {where}" for where in log.first_bad]
    lines.append(f"wrote {written}" + (f" and the trace {trace}" if trace else ""))
    return "\n".join(lines)


def sweep(result: Sweep, fmt: str, *, width: int | None = None) -> str:
    """A sweep: per point the winner and its bill and the runner-up (CSV: every option at every point)."""
    fields = [a.field for a in result.axes]
    if fmt == "csv":
        return csv_text(
            [*fields, "option", "month_usd", "policy_breach", "winner"],
            [
                (
                    *(_plain(cell.point[f]) for f in fields),
                    option,
                    _plain(cost),
                    "yes" if option in cell.breaches else "",
                    "yes" if option == cell.winner else "",
                )
                for cell in result.cells
                for option, cost in cell.costs_usd.items()
            ],
        )
    rows = []
    for cell in result.cells:
        ranked = sorted((c, o) for o, c in cell.costs_usd.items() if o not in cell.breaches)
        runner = ranked[1] if len(ranked) > 1 else None
        rows.append(
            (
                *(format_field_value(f, cell.point[f]) for f in fields),
                cell.winner or "none (every option breaks a policy)",
                usd(cell.costs_usd[cell.winner]) if cell.winner else "-",
                f"{runner[1]} {usd(runner[0])}" if runner else "-",
                ", ".join(cell.breaches) or "-",
            )
        )
    title = f"Sweep of {result.workload} over {' x '.join(fields)} (prices in force on {result.as_of})"
    return "\n".join(
        [
            heading(title, fmt),
            table([*fields, "cheapest", "a month", "next", "breaks a policy"], rows, fmt, width=width),
            "",
            "Each amount is the month's bill planner cost prints at that point; an option that breaks a"
            " provider's policy there (a free-egress cap) is never the cheapest.",
        ]
    )


def uncertain_note(inputs: Sequence[Uncertain], answer: UncertainAnswer | None, *, width: int | None = None) -> str:
    """What the ranking above assumed of the inputs given as ranges."""
    central = ", ".join(f"{u.field} = {format_field_value(u.field, u.central, whole=u.whole)}" for u in inputs)
    text = f"\nThe ranking above prices the central value of each input given as a range: {central}."
    if answer is None:
        text += " Add --samples N to price the ranges themselves."
    return wrap_prose(text, width=width)


def uncertain_answer(answer: UncertainAnswer, fmt: str, *, width: int | None = None) -> str:
    """Each option over the sampled outcomes, the favourite's robustness, and what moves its bill."""
    rows = [
        (
            o.option,
            f"{100 * o.p_cheapest:.1f} %",
            f"{100 * o.p_feasible:.1f} %",
            usd(Decimal(repr(o.p10_usd))),
            usd(Decimal(repr(o.p50_usd))),
            usd(Decimal(repr(o.p90_usd))),
            " / ".join(usd(Decimal(repr(v))) for v in (o.horizon_p10_usd, o.horizon_p50_usd, o.horizon_p90_usd)),
            "-" if o.expected_regret_usd == float("inf") else usd(Decimal(repr(o.expected_regret_usd))),
        )
        for o in answer.options
    ]
    horizon = f"p10 / p50 / p90 over {answer.months} months"
    headers = ["option", "cheapest", "no policy broken", "p10 a month", "p50", "p90", horizon, "expected regret"]
    inputs = "; ".join(
        f"{u.field}: {u.kind} {format_field_value(u.field, u.low, whole=u.whole)}"
        + (f" / {format_field_value(u.field, u.likely, whole=u.whole)}" if u.likely is not None else "")
        + f" / {format_field_value(u.field, u.high, whole=u.whole)}"
        for u in answer.inputs
    )
    swings = [
        (
            s.field,
            usd(Decimal(repr(s.at_p10_usd))),
            usd(Decimal(repr(s.at_p90_usd))),
            "-" if s.first_order_index is None else f"{100 * s.first_order_index:.0f} %",
        )
        for s in answer.tornado
    ]
    if answer.correlations:
        together = ", ".join(f"{c.first} and {c.second} {c.rho:g}" for c in answer.correlations)
        inputs += f"; correlated (a Gaussian copula over normal scores): {together}"
    reasons: dict[str, list[str]] = {}
    for label, why in answer.by_engine.items():
        reasons.setdefault(why, []).append(label)
    engine = [
        wrap_prose(
            f"Priced outcome by outcome with the line-item engine, not as arrays: {', '.join(labels)} ({why}).",
            width=width,
        )
        for why, labels in reasons.items()
    ]
    return "\n".join(
        [
            "",
            heading(f"Under uncertainty: {answer.samples:,} outcomes (seed {answer.seed})", fmt, level=3),
            wrap_prose(f"Inputs: {inputs}.", width=width),
            *engine,
            table(headers, rows, fmt, width=width),
            "",
            wrap_prose(answer.statement + ".", width=width),
            "",
            heading("What moves the favourite's bill (one input at its p10 and p90, the others central)", fmt, level=3),
            table(["input", "at p10", "at p90", "share of its variance (first-order index)"], swings, fmt, width=width),
        ]
    )
