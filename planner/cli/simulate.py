"""``planner simulate``: a workload at one provider, peak and mean windows, as a table, Markdown or JSON;
``planner trace``: a seeded synthetic trace of a workload.

Plain functions the app registers with ``app.command("simulate")(simulate_command)``; simpy and
numpy are imported only when they run, so ``planner --help`` stays fast.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner.cli import completion
from planner.cli.common import OutputFormat, TextFormatOption, WorkloadArgument, parse_option, refuse_overwrite
from planner.cli.settings import settings
from planner.errors import InputError
from planner.evidence import Evidence, marked, weakest
from planner.units import format_duration

if TYPE_CHECKING:
    from planner.sim.result import OperationStats, SimulationResult, WorkloadSimulation


def _window_s(duration: str) -> float:
    """``--duration`` in seconds, above 0."""
    from planner.units import parse_duration

    duration_s = parse_option(parse_duration, duration, "--duration")
    if duration_s <= 0:
        raise InputError(f"{duration!r}: the window must be longer than 0", source="--duration")
    return duration_s


def simulate_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    provider: Annotated[
        str | None,
        typer.Option(
            "--provider",
            "-p",
            help="provider id, e.g. cloudflare-r2 (none: the --profile's own endpoint)",
            autocompletion=completion.provider,
        ),
    ] = None,
    storage_class: Annotated[
        str, typer.Option("--class", help="storage class id", autocompletion=completion.storage_class)
    ] = "standard",
    duration: Annotated[str, typer.Option("--duration", help='simulated window, e.g. "10m" or "90s"')] = "10m",
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**63 - 1, help="random seed (same seed, same result)")] = 0,
    replications: Annotated[
        int, typer.Option("--replications", min=1, max=100, help="runs of each window, for confidence intervals")
    ] = 3,
    profile: Annotated[
        Path | None, typer.Option("--profile", help="a measured profile (default: the shipped reference)")
    ] = None,
    trace: Annotated[
        Path | None,
        typer.Option(
            "--trace", help="replay this trace (ingest access-log --trace, or planner trace) as the peak window"
        ),
    ] = None,
    output: TextFormatOption = OutputFormat.table,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="also draw the peak window to FILE.png or FILE.svg (needs planner\\[plot])"),
    ] = None,
) -> None:
    """Simulate a workload's peak and mean against a provider: latency, errors, retries, SLOs, billed requests."""
    from planner.present import text as render
    from planner.sim.workload_sim import simulate
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    duration_s = _window_s(duration)
    measured = None
    if profile is not None:
        from planner.measure.reference import load_profile

        measured = load_profile(profile)
    replay = None
    notes: list[str] = []
    if trace is not None:
        from planner.sim.trace import read_trace

        replay, notes = read_trace(trace)
    from planner.cli import progress

    with progress.bar("simulating", total=2 * replications, unit="runs", quiet=settings(ctx).quiet) as moved:
        runs = [0]

        def one_more() -> None:
            runs[0] += 1
            moved(runs[0])

        result = simulate(
            workload,
            provider,
            storage_class=storage_class,
            profile=measured,
            duration_s=duration_s,
            seed=seed,
            replications=replications,
            trace=replay,
            progress=one_more,
        )
    if notes:
        result = result.model_copy(update={"assumptions": [*result.assumptions, *notes]})
    if plot is not None:
        from planner.present.plots import save_simulation_plot

        save_simulation_plot(result.peak, plot, judged=result.slo)
    if output == OutputFormat.json:
        typer.echo(result.model_dump_json(indent=2))
        return
    width = settings(ctx).width
    typer.echo(report(result, output.value, lambda *table: render.table(*table, width=width), render.heading))


def report(result: WorkloadSimulation, fmt: str, table: _Table, heading: _Heading) -> str:
    """The result for people: both windows' operations, the target verdicts, the month, the assumptions."""
    from planner.evidence import legend

    parts = [
        heading(f"{result.workload} at {result.provider} {result.storage_class}: simulated", fmt),
        f"Provider model: {result.profile}; part limits from {result.prices}",
        "",
    ]
    if result.restore_first:
        parts += [
            f"{result.storage_class} objects must be restored (minutes to hours) before they can be read: "
            "GET figures are not shown (restore first); the windows still count the requests the month bills.",
            "",
        ]
    for name, window in (("peak", result.peak), ("mean", result.mean)):
        parts += [
            heading(f"{name} window: {_window(window)}", fmt, level=3),
            _operations(window, result, fmt, table),
            "",
        ]
    parts += [legend(), ""]
    if result.slo:
        parts.append(heading("Targets (peak window)", fmt, level=3))
        rows = [
            (v.target, v.wanted, marked(v.achieved or "no figure", v.evidence), v.verdict, v.reason) for v in result.slo
        ]
        parts += [table(["target", "wanted", "achieved (95% CI)", "verdict", "why"], rows, fmt), ""]
    parts.append(heading("Billed requests a month", fmt, level=3))
    month_rows = [(op, f"{count:,}") for op, count in sorted(result.month_billed_requests.items())]
    parts += [table(["request", "a month"], month_rows, fmt), result.month_scaling]
    if result.assumptions:
        parts += ["", heading("Derived and assumed", fmt, level=3)]
        parts += [f"- {note}" for note in result.assumptions]
    return "\n".join(parts)


def _window(window: SimulationResult) -> str:
    unfinished = window.unfinished_requests.mean
    text = f"{window.window_s:g} s x {window.replications} replication(s), seed {window.seed}"
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


def trace_command(
    workload_file: WorkloadArgument,
    out: Annotated[Path, typer.Option("--out", help="the trace to write (CSV)")],
    duration: Annotated[str, typer.Option("--duration", help='how long a stretch, e.g. "10m"')] = "10m",
    window: Annotated[str, typer.Option("--window", help="peak or mean: the rate to draw at")] = "peak",
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**63 - 1, help="random seed")] = 0,
    force: Annotated[bool, typer.Option("--force", help="replace the file if it exists")] = False,
) -> None:
    """Write a seeded synthetic trace of a workload (the requests its simulation would draw), for replay
    with simulate --trace or by another tool."""
    from planner.sim.trace import generate, write_trace
    from planner.sim.workload_adapter import WINDOWS, adapt_workload
    from planner.workload import load_workload

    if window not in WINDOWS:
        raise InputError(f"{window!r} is not a window (peak or mean)", source="--window")
    workload = load_workload(workload_file)
    duration_s = _window_s(duration)
    refuse_overwrite([out], force)
    adapted = adapt_workload(workload, window="peak" if window == "peak" else "mean")
    drawn = generate(adapted.spec, duration_s, seed)
    try:
        with out.open("w", encoding="utf-8") as handle:
            write_trace(drawn, handle)
    except OSError as error:
        raise InputError(f"cannot write it ({error.strerror or error})", source="--out") from None
    typer.echo(f"wrote {len(drawn.times_s):,} requests over {duration_s:g} s to {out}")
