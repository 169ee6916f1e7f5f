"""The text of ``planner simulate``: both windows' operations, the target verdicts, the month.

Apart from ``planner.cli.simulate`` so that registering the command loads neither pydantic nor the
evidence markers: the command imports this module when it runs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from planner.evidence import Evidence, marked, weakest
from planner.units import format_duration

if TYPE_CHECKING:
    from planner.sim.result import Estimate, OperationStats, SimulationResult, WorkloadSimulation


def report(result: WorkloadSimulation, fmt: str, table: _Table, heading: _Heading) -> str:
    """The result for people: both windows' operations, the target verdicts, the month, the assumptions."""
    from planner.evidence import legend
    from planner.present.text.fit import Reasons

    parts = [
        heading(f"{result.workload} at {result.provider} {result.storage_class}: simulated", fmt),
        f"Provider model: {result.profile}; part limits from {result.prices}",
        "",
    ]
    if result.restore_first:
        parts += [
            f"{result.storage_class} objects must be restored before they can be read (how long: see the assumptions): "
            "GET figures are not shown (restore first); the windows still count the requests the month bills.",
            "",
        ]
    for name, window in (("peak", result.peak), ("mean", result.mean)):
        parts += [
            heading(f"{name} window: {_window(window)}", fmt, level=3),
            _operations(window, result, fmt, table),
            f"throttled answers (503 SlowDown, 429), every attempt: {_interval(window.throttled)}",
            "",
        ]
        if window.near_capacity is not None:
            from planner.sim.model.saturation import band_line

            parts[-1:-1] = [band_line(window.near_capacity)]
    parts += [legend(), ""]
    if result.slo:
        parts.append(heading("Targets (peak window)", fmt, level=3))
        rows = [
            (v.target, v.wanted, marked(v.achieved or "no figure", v.evidence), v.verdict, Reasons((v.reason,)))
            for v in result.slo
        ]
        parts += [table(["target", "wanted", "achieved (95% CI)", "verdict", "why"], rows, fmt), ""]
    parts.append(heading("Billed requests a month", fmt, level=3))
    intervals = result.month_billed_requests_ci95
    month_rows = [
        (op, f"{count:,}", _bounds(intervals[op]) if op in intervals else "-")
        for op, count in sorted(result.month_billed_requests.items())
    ]
    replications = f"95% CI ({result.mean.replications} replications)"
    parts += [table(["request", "a month", replications], month_rows, fmt), result.month_scaling]
    if result.assumptions:
        parts += ["", heading("Derived and assumed", fmt, level=3)]
        parts += [f"- {note}" for note in result.assumptions]
    return "\n".join(parts)


def _bounds(estimate: Estimate) -> str:
    """A count's 95 % interval as ``low .. high`` (never below 0); ``-`` from one replication."""
    if estimate.ci95_half_width is None or math.isnan(estimate.ci95_half_width):
        return "- (one replication gives no interval)"
    return f"{max(0.0, estimate.low):,.0f} .. {estimate.high:,.0f}"


def _interval(estimate: Estimate) -> str:
    """A count with its 95 % interval: ``120 (95% CI 96 .. 144)``."""
    if estimate.ci95_half_width is None or math.isnan(estimate.ci95_half_width):
        return f"{estimate.mean:,.0f}"
    return f"{estimate.mean:,.0f} (95% CI {_bounds(estimate)})"


def _window(window: SimulationResult) -> str:
    unfinished = window.unfinished_requests.mean
    text = f"{window.window_s:g} s x {window.replications} replication(s), seed {window.seed}"
    if window.simulated_s is not None:
        text += f" (steady: its first {window.simulated_s:g} s simulated, counts scaled to the window)"
    return text + (f", {unfinished:,.0f} request(s) unfinished" if unfinished else "")


def _percentiles(stats: OperationStats, figure: str, evidence: Evidence, tail: Evidence) -> str:
    """p50 / p95 / p99 / p99.9, each with its evidence; one value said to be constant when they are all
    the same figure (a latency taken as constant is not a distribution)."""
    values = [getattr(stats, f"{figure}_{p}_s").mean for p in ("p50", "p95", "p99", "p999")]
    if any(math.isnan(v) for v in values):
        return "-"
    if max(values) - min(values) <= 1e-9 * max(values, default=1.0):
        return marked(format_duration(values[0]), evidence) + " constant"
    return " / ".join(marked(format_duration(v), evidence if i == 0 else tail) for i, v in enumerate(values))


def _operations(window: SimulationResult, result: WorkloadSimulation, fmt: str, table: _Table) -> str:
    evidence = result.evidence
    rows = []
    for op, stats in window.operations.items():
        errors = ", ".join(f"{kind}: {e.mean:,.4g}" for kind, e in stats.errors.items()) or "-"
        ttfb_evidence = evidence.get(f"{op}.ttfb", "assumed")
        tail = evidence.get(f"{op}.tail", "assumed")
        stream = evidence.get(f"{op}.throughput", tail)
        if result.restore_first and op == "GET":
            latency = ttfb = rate = "restore first"
        else:
            latency = _percentiles(stats, "latency", weakest(ttfb_evidence, stream), weakest(tail, stream))
            ttfb = _percentiles(stats, "ttfb", ttfb_evidence, tail)
            rate = _rate(stats.throughput_bytes_per_s.mean, stream)
        rows.append(
            (
                op,
                f"{stats.requests.mean:,.0f}",
                f"{stats.failed.mean:,.0f}",
                errors,
                f"{stats.retries.mean:,.0f}",
                latency,
                ttfb,
                rate,
            )
        )
    headers = [
        "op",
        "requests",
        "failed",
        "errors (every attempt)",
        "retries",
        "latency p50/p95/p99/p99.9",
        "TTFB p50/p95/p99/p99.9",
        "throughput",
    ]
    return table(headers, rows, fmt)


def _rate(bytes_per_s: float, evidence: Evidence) -> str:
    from planner.units import format_rate

    return "-" if math.isnan(bytes_per_s) or bytes_per_s <= 0 else marked(format_rate(bytes_per_s * 8), evidence)


if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

    _Table = Callable[[Sequence[str], Iterable[Sequence[Any]], str], str]
    _Heading = Callable[..., str]
