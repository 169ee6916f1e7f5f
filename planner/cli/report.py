"""``planner report``: one self-contained document about a workload's choice."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

from pathlib import Path
from typing import Annotated

import typer

from planner.cli.common import (
    AsOfOption,
    ForceOption,
    WorkloadArgument,
    check_profiles,
    parse_date,
)
from planner.cli.plan import CalendarOption, RestoreDaysOption, billing_options
from planner.cli.settings import settings

app = typer.Typer()


@app.command("report")
def report_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="report.html or report.md")],
    as_of: AsOfOption = None,
    profiles: Annotated[
        Path | None, typer.Option("--profiles", help="folder of measured profiles named <provider>.json")
    ] = None,
    simulate: Annotated[
        bool, typer.Option("--simulate/--no-simulate", help="simulate each provider's peak (default) or not")
    ] = True,
    force: ForceOption = False,
    verified_only: Annotated[
        bool,
        typer.Option(
            "--verified-only",
            help="leave out options whose bill rests on an unverified price (says which were left out)",
        ),
    ] = False,
    restore_days: RestoreDaysOption = "1",
    calendar: CalendarOption = False,
) -> None:
    """One self-contained document: the recommendation, reasons, tables, plots, prices and sources."""
    from planner.cli import progress
    from planner.present.report import write_report
    from planner.workload import load_workload

    billing = billing_options(restore_days, calendar)
    check_profiles(profiles)
    workload = load_workload(workload_file)
    pictures: list[Path] = []
    with progress.bar(
        "simulating each provider", total=len(workload.constraints.providers), quiet=settings(ctx).quiet
    ) as moved:
        written = write_report(
            workload,
            out,
            as_of=parse_date(as_of),
            profiles_dir=profiles,
            simulate=simulate,
            progress=moved,
            force=force,
            pictures=pictures,
            verified_only=verified_only,
            billing=billing,
        )
    for path in [written, *pictures]:
        typer.echo(f"wrote {path}")
