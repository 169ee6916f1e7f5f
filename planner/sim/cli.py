"""``planner simulate``: a workload at one provider, peak and mean windows, as a table, Markdown or JSON.

A plain function the main CLI registers with ``app.command("simulate")(simulate_command)``;
simpy and numpy are imported only when it runs, so ``planner --help`` stays fast.
"""

from __future__ import annotations

import math
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner.errors import InputError

if TYPE_CHECKING:
    from planner.sim.result import Estimate, SimulationResult, WorkloadSimulation


class OutputFormat(StrEnum):
    """The formats every planner command prints (the same values as ``planner.cli.OutputFormat``;
    defined here so the main CLI can import this module at its top without a cycle)."""

    table = "table"
    json = "json"
    markdown = "markdown"


FormatOption = Annotated[OutputFormat, typer.Option("--format", "-f", help="table, json or markdown")]


def simulate_command(
    workload_file: Annotated[Path, typer.Argument(help="workload YAML file", show_default=False)],
    provider: Annotated[
        str | None,
        typer.Option("--provider", "-p", help="provider id, e.g. cloudflare-r2 (none: the --profile's own endpoint)"),
    ] = None,
    storage_class: Annotated[str, typer.Option("--class", help="storage class id")] = "standard",
    duration: Annotated[str, typer.Option("--duration", help='simulated window, e.g. "10m" or "90s"')] = "10m",
    seed: Annotated[int, typer.Option("--seed", help="random seed (same seed, same result)")] = 0,
    replications: Annotated[
        int, typer.Option("--replications", min=1, max=100, help="runs of each window, for confidence intervals")
    ] = 3,
    profile: Annotated[
        Path | None, typer.Option("--profile", help="a measured profile (default: the shipped reference)")
    ] = None,
    output: FormatOption = OutputFormat.table,
    plot: Annotated[
        Path | None, typer.Option("--plot", help="also draw the peak window to FILE.png or FILE.svg (planner[plot])")
    ] = None,
) -> None:
    """Simulate a workload's peak and mean against a provider: latency, errors, retries, SLOs, billed requests."""
    from planner import render
    from planner.sim.workload_sim import simulate
    from planner.units import parse_duration
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    try:
        duration_s = parse_duration(duration)
    except ValueError as error:
        raise InputError(str(error), source="--duration") from None
    if duration_s <= 0:
        raise InputError(f"{duration!r}: the window must be longer than 0", source="--duration")
    measured = None
    if profile is not None:
        from measure.reference import load_profile

        measured = load_profile(profile)
    result = simulate(
        workload,
        provider,
        storage_class=storage_class,
        profile=measured,
        duration_s=duration_s,
        seed=seed,
        replications=replications,
    )
    if plot is not None:
        from planner.reports.plots import save_simulation_plot

        save_simulation_plot(result.peak, plot)
    if output == OutputFormat.json:
        typer.echo(result.model_dump_json(indent=2))
        return
    typer.echo(report(result, output.value, render.table, render.heading))


def report(result: WorkloadSimulation, fmt: str, table: _Table, heading: _Heading) -> str:
    """The result for people: both windows' operations, the SLO verdicts, the month, the assumptions."""
    parts = [
        heading(f"{result.workload} at {result.provider} {result.storage_class}: simulated", fmt),
        f"Provider model: {result.profile}; part limits from {result.prices}",
        "",
    ]
    for name, window in (("peak", result.peak), ("mean", result.mean)):
        parts += [heading(f"{name} window: {_window(window)}", fmt, level=3), _operations(window, fmt, table), ""]
    parts.append(heading("Targets (peak window)", fmt, level=3))
    if result.slo:
        rows = [
            (
                v.target,
                _number(v.threshold),
                _estimate(v.achieved),
                "met" if v.met else "MISSED",
                "yes" if v.certain else "no",
            )
            for v in result.slo
        ]
        parts.append(table(["target", "threshold", "achieved (95% CI)", "verdict", "certain"], rows, fmt))
    else:
        parts.append("none judged")
    parts += ["", heading("Billed requests a month", fmt, level=3)]
    month_rows = [(op, f"{count:,}") for op, count in sorted(result.month_billed_requests.items())]
    parts += [table(["request", "a month"], month_rows, fmt), result.month_scaling, ""]
    parts.append(heading("Derived and assumed", fmt, level=3))
    parts += [f"- {note}" for note in result.assumptions]
    return "\n".join(parts)


def _window(window: SimulationResult) -> str:
    unfinished = window.unfinished_requests.mean
    text = f"{window.window_s:g} s x {window.replications} replication(s), seed {window.seed}"
    return text + (f", {unfinished:g} request(s) unfinished" if unfinished else "")


def _operations(window: SimulationResult, fmt: str, table: _Table) -> str:
    rows = []
    for op, stats in window.operations.items():
        errors = ", ".join(f"{kind}: {e.mean:g}" for kind, e in stats.errors.items()) or "-"
        rows.append(
            (
                op,
                f"{stats.requests.mean:,.6g}",
                f"{stats.failed.mean:g}",
                errors,
                f"{stats.retries.mean:g}",
                " / ".join(_ms(getattr(stats, f"latency_{p}_s").mean) for p in ("p50", "p95", "p99", "p999")),
                " / ".join(_ms(getattr(stats, f"ttfb_{p}_s").mean) for p in ("p50", "p95", "p99", "p999")),
                _rate(stats.throughput_bytes_per_s.mean),
            )
        )
    headers = [
        "op",
        "requests",
        "failed",
        "errors (every attempt)",
        "retries",
        "latency p50/p95/p99/p99.9 (ms)",
        "TTFB p50/p95/p99/p99.9 (ms)",
        "throughput",
    ]
    return table(headers, rows, fmt)


def _ms(seconds: float) -> str:
    return "-" if math.isnan(seconds) else f"{seconds * 1000:.4g}"


def _rate(bytes_per_s: float) -> str:
    from planner.units import format_rate

    return "-" if math.isnan(bytes_per_s) or bytes_per_s <= 0 else format_rate(bytes_per_s * 8)


def _number(value: float) -> str:
    return f"{value:.4g}"


def _estimate(estimate: Estimate) -> str:
    if estimate.ci95_half_width is None:
        return _number(estimate.mean)
    return f"{_number(estimate.mean)} ± {_number(estimate.ci95_half_width)}"


if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

    _Table = Callable[[Sequence[str], Iterable[Sequence[Any]], str], str]
    _Heading = Callable[..., str]
