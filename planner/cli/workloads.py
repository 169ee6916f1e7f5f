"""``planner schema`` (the workload file format) and ``planner diff`` (two workloads side by side)."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

from pathlib import Path
from typing import Annotated

import typer

from planner.cli.common import (
    AsOfOption,
    OutputFormat,
    TextFormatOption,
    parse_date,
)
from planner.cli.settings import echo, settings
from planner.errors import InputError

app = typer.Typer()


@app.command("schema")
def schema_command(
    what: Annotated[str, typer.Argument(help="which file format: workload")] = "workload",
) -> None:
    """The JSON Schema of a file format, for editors (yaml-language-server) and validators."""
    from planner.present import text as render
    from planner.workload.schema import schema_for

    typer.echo(render.as_json(schema_for(what)))


@app.command("diff")
def diff_command(
    ctx: typer.Context,
    first: Annotated[Path, typer.Argument(help="the first workload YAML")],
    second: Annotated[Path, typer.Argument(help="the second workload YAML")],
    provider: Annotated[
        str | None, typer.Option("--provider", "-p", help="compare at this provider (default: each one's choice)")
    ] = None,
    storage_class: Annotated[
        str | None, typer.Option("--class", help="storage class with --provider (default: standard)")
    ] = None,
    as_of: AsOfOption = None,
    simulate: Annotated[
        bool, typer.Option("--simulate/--no-simulate", help="simulate when recommending each side (default)")
    ] = True,
    output: TextFormatOption = OutputFormat.table,
) -> None:
    """Two scenarios side by side: the cost difference per line item."""
    from planner.decide.scenarios import diff_scenarios
    from planner.present import text as render
    from planner.present.scenarios import render_diff
    from planner.workload import load_workload

    if storage_class is not None and provider is None:  # each side's choice has its own class
        raise InputError("prices a class at one provider: give --provider too", source="--class")
    result = diff_scenarios(
        load_workload(first),
        load_workload(second),
        provider=provider,
        storage_class=storage_class or "standard",
        as_of=parse_date(as_of),
        simulate=simulate,
    )
    echo(
        ctx,
        render.as_json(result)
        if output == OutputFormat.json
        else render_diff(result, output.value, width=settings(ctx).width),
        output.value,
    )
