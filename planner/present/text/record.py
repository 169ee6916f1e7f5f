"""A recording's month at every provider, as text: the providers by request cost, each with the operations that
dominate it, then the whole bill's order and what the figures rest on."""

from __future__ import annotations

from planner.present.text.tables import table, usd, wrap_prose
from planner.recording.price import PricedMix
from planner.recording.session import Recording
from planner.units import format_bytes


def recording_summary(recording: Recording) -> str:
    state = "partial: " + (recording.partial_reason or "") if recording.partial else "complete"
    lines = [
        f"recorded {recording.requests:,} requests in {recording.duration_s:,.1f} s against"
        f" {recording.endpoint} ({state})",
        f"the run stands for {recording.times} a {recording.per}: {recording.runs_per_month:.2f} runs a month",
    ]
    return "\n".join(lines)


def priced_mix(mix: PricedMix, fmt: str = "table", *, width: int | None = None) -> str:
    rows = [
        [
            m.provider,
            m.storage_class,
            usd(m.requests_usd),
            usd(m.total_usd),
            f"{m.unbilled_errors:,}" if m.error_rule_stated else "not stated",
            m.table_version,
        ]
        for m in mix.by_requests
    ]
    headers = ["provider", "class", "requests/month", "whole bill/month", "errors not billed", "prices"]
    parts = [
        f"{mix.requests_per_month:,} requests a month ({mix.runs_per_month:.2f} runs),"
        f" {format_bytes(mix.stored_bytes)} stored, {format_bytes(mix.egress_bytes)} read out",
        table(headers, rows, fmt, width=width),
    ]
    parts += [wrap_prose(f"- {m.sentence}", "  ", width=width) for m in mix.by_requests]
    parts.append(wrap_prose("whole bill, cheapest first: " + ", ".join(mix.by_total), width=width))
    parts += [wrap_prose(f"note: {note}", "  ", width=width) for note in mix.notes]
    return "\n".join(parts)
