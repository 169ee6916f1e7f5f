"""``planner simulate``: a workload at one provider, peak and mean windows, as a table, Markdown or JSON;
``planner trace``: a seeded synthetic trace of a workload.

Both on this module's ``app``, which ``planner.cli.app`` registers; simpy, numpy and pydantic are
imported only when they run (the text of a simulation is in ``planner.cli.simulation_text``), so
``planner --help`` stays fast.
"""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner.cli import completion
from planner.cli.common import (
    ForceOption,
    OutputFormat,
    TextFormatOption,
    WorkloadArgument,
    check_csv_name,
    check_plot,
    parse_option,
    refuse_overwrite,
)
from planner.cli.settings import echo, settings
from planner.errors import InputError

if TYPE_CHECKING:
    from planner.measure.profile import Profile
    from planner.workload import Workload

ProviderOption = Annotated[
    str | None,
    typer.Option(
        "--provider",
        "-p",
        help="provider id, e.g. cloudflare-r2 (none: the --profile's own endpoint)",
        autocompletion=completion.provider,
    ),
]
ClassOption = Annotated[str, typer.Option("--class", help="storage class id", autocompletion=completion.storage_class)]
DurationOption = Annotated[str, typer.Option("--duration", help='simulated window, e.g. "10m" or "90s"')]
SeedOption = Annotated[int, typer.Option("--seed", min=0, max=2**63 - 1, help="random seed (same seed, same result)")]
ReplicationsOption = Annotated[
    int, typer.Option("--replications", min=1, max=100, help="runs of each window, for confidence intervals")
]
ProfileOption = Annotated[
    Path | None, typer.Option("--profile", help="a measured profile (default: the shipped reference)")
]
TraceOption = Annotated[
    Path | None,
    typer.Option("--trace", help="replay this trace (ingest access-log --trace, or planner trace) as the peak window"),
]
DaskTraceOption = Annotated[
    str | None,
    typer.Option(
        "--dask",
        metavar="SCHEDULER",
        help="replay the --trace in time windows in parallel on the Dask scheduler at this address, e.g."
        " tcp://10.0.0.5:8786 (needs objstore-planner[dask]; its workers read the trace from this machine's"
        " temporary folder: a local cluster, or one sharing it; the answer is one machine's within its intervals)",
    ),
]
PeakPlotOption = Annotated[
    Path | None,
    typer.Option("--plot", help="also draw the peak window to FILE.png or FILE.svg (needs objstore-planner[plot])"),
]


def _window_s(duration: str) -> float:
    """``--duration`` in seconds, above 0."""
    from planner.units import parse_duration

    duration_s = parse_option(parse_duration, duration, "--duration")
    if duration_s <= 0:
        raise InputError(f"{duration!r}: the window must be longer than 0", source="--duration")
    return duration_s


def _at_least_one_request(
    workload: "Workload", duration: str, duration_s: float, rate_per_s: float, window: str
) -> None:
    """Refuse a window too short to expect one request at ``rate_per_s`` (its figures would all be 0)."""
    if rate_per_s <= 0 or duration_s * rate_per_s >= 1:
        return
    from planner.units import format_duration

    minimum_s = 1 / rate_per_s
    raise InputError(
        f"{duration!r} is too short to issue one request: {workload.name} averages {rate_per_s:.4g} requests a"
        f" second in its {window} window, so the window must be at least {format_duration(minimum_s)} (e.g."
        f" --duration {math.ceil(minimum_s)}s)",
        source="--duration",
    )


def _window_rate_per_s(workload: "Workload", window: str) -> float | None:
    """The request rate a window of the workload's simulation runs at (None for a closed loop of workers)."""
    from planner.sim.front.workload_adapter import adapt_workload
    from planner.sim.spec import OpenLoop

    arrivals = adapt_workload(workload, window="peak" if window == "peak" else "mean").spec.arrivals
    return arrivals.max_rate_per_s if isinstance(arrivals, OpenLoop) else None


app = typer.Typer()


@app.command("simulate")
def simulate_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    provider: ProviderOption = None,
    storage_class: ClassOption = "standard",
    duration: DurationOption = "10m",
    seed: SeedOption = 0,
    replications: ReplicationsOption = 3,
    profile: ProfileOption = None,
    trace: TraceOption = None,
    dask: DaskTraceOption = None,
    output: TextFormatOption = OutputFormat.table,
    plot: PeakPlotOption = None,
    force: ForceOption = False,
) -> None:
    """Simulate a workload's peak and mean against a provider: latency, errors, retries, SLOs, billed requests."""
    from planner.present import text as render
    from planner.sim.front.workload_sim import simulate
    from planner.workload import load_workload

    check_plot(plot, force)
    workload = load_workload(workload_file)
    duration_s = _window_s(duration)
    rate_per_s = None if trace is not None else _window_rate_per_s(workload, "peak")
    if rate_per_s is not None:
        _at_least_one_request(workload, duration, duration_s, rate_per_s, "peak")
    measured = None
    if profile is not None:
        from planner.measure.reference import load_profile

        measured = load_profile(profile)
        _check_profile_provider(measured, provider, profile)
    if dask is not None and trace is None:
        raise InputError("replays a --trace in time windows on a cluster: add --trace FILE", source="--dask")
    from contextlib import ExitStack

    from planner.cli import progress

    replay = None
    notes: list[str] = []
    with ExitStack() as stack:
        if trace is not None:
            from planner.sim.engine.trace_stream import MAX_CLUSTER_REQUESTS, MAX_ONE_MACHINE_REQUESTS, open_trace

            limit = MAX_ONE_MACHINE_REQUESTS if dask is None else MAX_CLUSTER_REQUESTS
            # read once into records on disk, replayed a stretch at a time: memory does not grow with the trace
            replay, notes = stack.enter_context(open_trace(trace, limit=limit))
            if dask is not None:
                replay = replay.model_copy(update={"scheduler": dask})
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
    from planner.cli.simulation_text import report

    echo(
        ctx,
        report(result, output.value, lambda *table: render.table(*table, width=width), render.heading),
        output.value,
    )


def _check_profile_provider(measured: "Profile", provider: str | None, path: Path) -> None:
    """A profile naming another provider is no evidence of ``-p``'s, as recommend rules
    (``planner.decide.recommendation.performance.provider_problem``); one naming none is taken as
    ``-p``'s, since the user named it, and the simulation's provider model line says so."""
    if provider is None or measured.provider is None:
        return
    from planner.decide.recommendation.performance import provider_problem

    problem = provider_problem(measured, provider)
    if problem is not None:
        raise InputError(
            f"{problem} (leave out -p to simulate the profile's own endpoint)", source=str(path), field="provider"
        )


@app.command("trace")
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
    from planner.sim.front.trace import draw_stretches, write_trace
    from planner.sim.front.workload_adapter import WINDOWS, adapt_workload
    from planner.workload import load_workload
    from planner.writing import atomic_output, check_parent

    if window not in WINDOWS:
        raise InputError(f"{window!r} is not a window (peak or mean)", source="--window")
    check_csv_name(out, "--out")
    refuse_overwrite([out], force)
    check_parent(out)
    workload = load_workload(workload_file)
    duration_s = _window_s(duration)
    adapted = adapt_workload(workload, window="peak" if window == "peak" else "mean")
    rate_per_s = _window_rate_per_s(workload, window)
    if rate_per_s is not None:
        _at_least_one_request(workload, duration, duration_s, rate_per_s, window)
    written = 0
    with atomic_output(out, source="--out", what="it") as handle:
        # a stretch of about a million requests at a time (32 bytes each): memory does not grow with --duration
        for number, drawn in enumerate(draw_stretches(adapted.spec, duration_s, seed)):
            write_trace(drawn, handle, header=number == 0)
            written += len(drawn)
    typer.echo(f"wrote {written:,} requests over {duration_s:g} s to {out}")
