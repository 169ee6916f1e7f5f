"""What reading a bill, an inventory or access logs found, and a bill reconciled against planner's
prices."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from planner.present.text.fit import Reasons
from planner.present.text.tables import csv_text, heading, plain_number, quantity, table, usd
from planner.units import counted, format_bytes, format_duration

if TYPE_CHECKING:  # the results' modules (and numpy behind them) only for the type checker: start-up
    from planner.ingest import Bill, ReconcileLine, Reconciliation
    from planner.ingest.accesslog import AccessLog
    from planner.ingest.inventory import Inventory


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
        f"read {counted(len(bill.groups), 'S3 usage group')} from {counted(len(bill.files), 'file')}"
        f" ({bill.format.upper()},"
        f" periods {', '.join(p.isoformat() for p in bill.periods) or 'unknown'});"
        f" {counted(bill.other_rows, 'row')} of other services, taxes and credits skipped"
    ]
    if bill.bad_rows:
        lines.append(f"{counted(bill.bad_rows, 'row')} could not be read; the first:")
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
                    plain_number(line.quantity),
                    line.unit,
                    plain_number(line.billed_usd),
                    plain_number(line.list_usd),
                    plain_number(line.planner_usd),
                    plain_number(line.difference_usd),
                    line.table_version,
                    line.cause,
                )
                for line in result.lines
            ],
        )

    def row(line: ReconcileLine) -> tuple[str | Reasons, ...]:
        return (
            line.scope,
            line.usage_type,
            f"{quantity(line.quantity)} {line.unit}",
            _tiny_usd(line.billed_usd),
            _tiny_usd(line.planner_usd),
            _tiny_usd(line.difference_usd),
            Reasons((line.cause,)) if line.cause else "",
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
        f"{inventory.objects:,} current objects, {format_bytes(inventory.bytes)}"
        f" in {counted(len(inventory.files), 'file')}"
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
        lines.append(f"{counted(inventory.bad_rows, 'row')} could not be read; the first:")
        lines += [f"  {where}" for where in inventory.first_bad]
    lines.append(f"wrote {written}")
    return "\n".join(lines)


def access_log_summary(log: AccessLog, written: str, trace: str | None) -> str:

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
        lines.append(f"{counted(log.bad_lines, 'line')} could not be read; the first:")
        lines += [f"  {where}" for where in log.first_bad]
    lines.append(f"wrote {written}" + (f" and the trace {trace}" if trace else ""))
    return "\n".join(lines)
