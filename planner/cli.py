"""The ``planner`` command: parse, call the library, render. Nothing else lives here.

Heavy modules (boto3, simpy, numpy) are imported inside the commands that use them, so
``planner --help`` and the pricing commands answer at interactive speed.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from measure.cli import app as measure_app
from measure.cli import profiles_app, set_profile_plotter
from planner.errors import InputError, PlannerError
from planner.sim.cli import simulate_command

if TYPE_CHECKING:
    from measure.profile import Profile

app = typer.Typer(
    help="Choose object storage by measured performance and exact, versioned prices.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(measure_app, name="measure")
app.add_typer(profiles_app, name="profiles")
app.command("simulate")(simulate_command)


def _draw_profile(profile: Profile, path: Path) -> None:
    from planner.reports.plots import save_profile_plot  # matplotlib and the plots only when asked for

    save_profile_plot(profile, path)


set_profile_plotter(_draw_profile)


class OutputFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"


def fail(message: str, code: int = 2) -> NoReturn:
    """One line on stderr and an exit code; never a traceback for a user's mistake."""
    typer.echo(f"planner: {message}", err=True)
    raise typer.Exit(code)


def main() -> None:
    try:
        code = app(standalone_mode=False)
    except PlannerError as error:
        typer.echo(f"planner: {error}", err=True)
        sys.exit(2)
    except typer.Abort:
        typer.echo("planner: aborted", err=True)
        sys.exit(1)
    except Exception as error:
        if not _is_usage_error(error):
            raise
        if type(error).__name__ == "NoArgsIsHelpError":  # `planner pricing` alone: its help, as before
            error.show()  # type: ignore[attr-defined]
            sys.exit(2)
        # typer's usage errors (a bad option, a value out of range, an unknown --format) as one line
        context = getattr(error, "ctx", None)
        subcommand = context.command_path.partition(" ")[2] if context is not None else ""
        where = f"{subcommand}: " if subcommand else ""
        typer.echo(f"{_one_line('planner: ' + where + error.format_message())}", err=True)  # type: ignore[attr-defined]
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


def _is_usage_error(error: Exception) -> bool:
    """Whether ``error`` is the CLI framework's usage error (typer vendors click, so its classes are
    matched by name rather than imported from a private module)."""
    return any(cls.__name__ == "UsageError" for cls in type(error).__mro__) and hasattr(error, "format_message")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def parse_date(text: str | None, option: str = "--as-of") -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"{text!r} is not a date (use YYYY-MM-DD)", source=option) from None


FormatOption = Annotated[OutputFormat, typer.Option("--format", "-f", help="table, json or markdown")]
PlotOption = Annotated[
    Path | None, typer.Option("--plot", help="also draw the result to FILE.png or FILE.svg (needs planner[plot])")
]
AsOfOption = Annotated[
    str | None, typer.Option("--as-of", help="price tables in force on this date (YYYY-MM-DD; default today)")
]

pricing_app = typer.Typer(help="The versioned price tables: list, show and compare them.", no_args_is_help=True)
app.add_typer(pricing_app, name="pricing")


@pricing_app.command("list")
def pricing_list(output: FormatOption = OutputFormat.table) -> None:
    """Providers, their storage classes and every price version shipped."""
    from planner import render
    from pricing import catalog

    today = dt.date.today()
    rows = []
    for provider in catalog.providers():
        current = catalog.table_for(provider, today)
        versions = [t.effective_from.isoformat() for t in catalog.versions(provider)]
        rows.append(
            {
                "provider": provider,
                "name": current.provider_name,
                "classes": list(current.classes),
                "versions": versions,
                "in_force": current.version,
            }
        )
    if output == OutputFormat.json:
        typer.echo(render.as_json({"providers": rows}))
        return
    typer.echo(
        render.table(
            ["provider", "classes", "versions", "in force today"],
            [(r["provider"], ", ".join(r["classes"]), ", ".join(r["versions"]), r["in_force"]) for r in rows],
            output.value,
        )
    )


@pricing_app.command("show")
def pricing_show(
    provider: Annotated[str, typer.Argument(help="provider id, e.g. aws-s3")],
    storage_class: Annotated[str | None, typer.Option("--class", help="only this storage class")] = None,
    as_of: AsOfOption = None,
    overrides: Annotated[
        Path | None, typer.Option("--prices", help="a price override file layered over the shipped version")
    ] = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """One provider's prices in force on a date, with units, tiers, minimums and sources."""
    from planner import render

    day = parse_date(as_of)
    from planner.costing import price_table

    table = price_table(provider, day or dt.date.today(), overrides)
    if storage_class is not None and storage_class not in table.classes:
        raise InputError(
            f"{table.version} has no storage class {storage_class!r} (classes: {', '.join(table.classes)})",
            source="--class",
        )
    if output == OutputFormat.json:
        data = table.model_dump(mode="json")
        if storage_class:
            data["classes"] = {storage_class: data["classes"][storage_class]}
        typer.echo(render.as_json({"version": table.version, **data}))
        return
    typer.echo(render.price_table(table, output.value, storage_class))


@pricing_app.command("diff")
def pricing_diff(
    provider: Annotated[str, typer.Argument(help="provider id")],
    first: Annotated[str, typer.Argument(help="the earlier date (YYYY-MM-DD)")],
    second: Annotated[str, typer.Argument(help="the later date (YYYY-MM-DD)")],
    output: FormatOption = OutputFormat.table,
) -> None:
    """What changed in a provider's prices between the versions in force on two dates."""
    from planner import render
    from pricing import catalog
    from pricing.diff import diff_tables

    old = catalog.table_for(provider, parse_date(first, "FIRST"))
    new = catalog.table_for(provider, parse_date(second, "SECOND"))
    changes = diff_tables(old, new)
    if output == OutputFormat.json:
        typer.echo(render.as_json({"from": old.version, "to": new.version, "changes": changes}))
        return
    typer.echo(f"{old.version} -> {new.version}")
    if not changes:
        typer.echo("no changes")
        return
    typer.echo(
        render.table(
            ["field", "before", "after"], [(c["field"], c["before"], c["after"]) for c in changes], output.value
        )
    )


WorkloadArgument = Annotated[Path, typer.Argument(help="workload YAML file", show_default=False)]


def parse_prices(values: list[str] | None) -> dict[str, Path]:
    """--prices PROVIDER=FILE (repeatable) into a mapping."""
    prices: dict[str, Path] = {}
    for value in values or []:
        provider, sep, path = value.partition("=")
        if not sep or not provider or not path:
            raise InputError(f"{value!r}: use PROVIDER=FILE, e.g. aws-s3=edp.yaml", source="--prices")
        prices[provider] = Path(path)
    return prices


@app.command("cost")
def cost_command(
    workload_file: WorkloadArgument,
    provider: Annotated[str, typer.Option("--provider", "-p", help="provider id, e.g. aws-s3")],
    storage_class: Annotated[str, typer.Option("--class", help="storage class id")] = "standard",
    as_of: AsOfOption = None,
    months: Annotated[int | None, typer.Option("--months", min=1, max=120, help="month-by-month projection")] = None,
    prices: Annotated[Path | None, typer.Option("--prices", help="price override file for this provider")] = None,
    output: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """One month's bill for a workload at one provider, or a projection over N months."""
    from planner import render
    from planner.costing import estimate_cost, project_costs
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    day = parse_date(as_of)
    if months:
        result = project_costs(workload, provider, storage_class, months=months, as_of=day, prices=prices)
        if plot is not None:
            from planner.reports.plots import save_projection_plot

            save_projection_plot(result, plot)
        typer.echo(render.as_json(result) if output == OutputFormat.json else render.projection(result, output.value))
        return
    if plot is not None:
        raise InputError("a plot needs a projection: add --months N", source="--plot")
    bill = estimate_cost(workload, provider, storage_class, as_of=day, prices=prices)
    typer.echo(render.as_json(bill) if output == OutputFormat.json else render.breakdown(bill, output.value))


@app.command("recommend")
def recommend_command(
    workload_file: WorkloadArgument,
    as_of: AsOfOption = None,
    profiles: Annotated[
        Path | None, typer.Option("--profiles", help="folder of measured profiles named <provider>.json")
    ] = None,
    prices: Annotated[
        list[str] | None, typer.Option("--prices", help="PROVIDER=FILE price override (repeatable)")
    ] = None,
    simulate: Annotated[
        bool, typer.Option("--simulate/--no-simulate", help="simulate each provider's peak (default) or not")
    ] = True,
    sim_window: Annotated[str, typer.Option("--sim-window", help='simulated peak window, e.g. "60s"')] = "60s",
    output: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """Rank every allowed provider and storage class for a workload, and explain the choice."""
    from planner import render
    from planner.recommendation import recommend
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    if profiles is not None and not profiles.is_dir():
        raise InputError("not a folder of profiles", source=str(profiles))
    from planner.units import parse_duration

    try:
        window_s = parse_duration(sim_window)
    except ValueError as error:
        raise InputError(str(error), source="--sim-window") from None
    if window_s <= 0 or window_s > 3600:
        raise InputError(f"{sim_window!r}: use a window between 1s and 1h", source="--sim-window")
    result = recommend(
        workload,
        as_of=parse_date(as_of),
        profiles_dir=profiles,
        prices=parse_prices(prices),
        simulate=simulate,
        sim_duration_s=window_s,
    )
    if plot is not None:
        from planner.reports.plots import save_recommendation_plot

        save_recommendation_plot(result, plot, prices=parse_prices(prices))
    typer.echo(render.as_json(result) if output == OutputFormat.json else render.recommendation(result, output.value))
    if result.recommendation is None:
        raise typer.Exit(1)


def _copy_link(bits_per_s: float | None) -> float | None:
    """``--link`` as given: 0 is refused, not read as "the workload's link"."""
    if bits_per_s is not None and bits_per_s <= 0:
        raise InputError("a copy link must be faster than 0 (leave --link out to use the workload's)", source="--link")
    return bits_per_s


@app.command("migrate")
def migrate_command(
    workload_file: WorkloadArgument,
    source: Annotated[str, typer.Option("--from", help="PROVIDER[:CLASS] the data leaves")],
    destination: Annotated[str, typer.Option("--to", help="PROVIDER[:CLASS] the data moves to")],
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy", help="bulk, copy-on-read, age-out or hybrid (default: the cheapest within the horizon)"
        ),
    ] = None,
    copy_from: Annotated[
        str,
        typer.Option(
            "--copy-from",
            help="where the copy runs: on-premises, source-region (a VM there) or destination-service (e.g. R2's)",
        ),
    ] = "on-premises",
    check: Annotated[
        str, typer.Option("--check", help="how the copy checks the destination: list, head or none")
    ] = "list",
    never_read: Annotated[
        float, typer.Option("--never-read", min=0.0, max=1.0, help="copy-on-read: share of objects never read")
    ] = 0.0,
    sweep_after: Annotated[
        str | None, typer.Option("--sweep-after", help='copy-on-read: bulk-copy what is left after e.g. "90d"')
    ] = None,
    age_out_within: Annotated[
        str | None,
        typer.Option("--age-out-within", help='hybrid: data expiring within e.g. "180d" ages out (default: horizon)'),
    ] = None,
    link: Annotated[
        str | None, typer.Option("--link", help='copy link, e.g. "10Gbps" (default: the workload\'s)')
    ] = None,
    concurrency: Annotated[int | None, typer.Option("--concurrency", min=1, help="copy streams")] = None,
    start: Annotated[
        str | None, typer.Option("--start", help="first day of the move (YYYY-MM-DD; default today)")
    ] = None,
    months: Annotated[int | None, typer.Option("--months", min=1, max=120, help="timeline horizon")] = None,
    egress_waiver: Annotated[
        bool, typer.Option("--egress-waiver", help="the source waives egress for the move (AWS does on request)")
    ] = False,
    data_age: Annotated[
        str | None, typer.Option("--data-age", help='age of the stored data at the move, e.g. "30d"')
    ] = None,
    verify: Annotated[str, typer.Option("--verify", help="how long both copies are kept for verification")] = "7d",
    retrieval: Annotated[
        str | None, typer.Option("--retrieval", help="archive retrieval option at the source, e.g. bulk")
    ] = None,
    source_prices: Annotated[Path | None, typer.Option("--from-prices", help="price override for the source")] = None,
    destination_prices: Annotated[
        Path | None, typer.Option("--to-prices", help="price override for the destination")
    ] = None,
    output: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """One-time bill, duration and payback of moving a workload between providers."""
    from planner import render
    from planner.migration import STRATEGIES, Endpoint, MigrationOptions, estimate_migration
    from planner.units import parse_duration, parse_rate
    from planner.workload import load_workload

    if strategy is not None and strategy not in STRATEGIES:
        raise InputError(f"{strategy!r} is not a strategy (use {', '.join(STRATEGIES)})", source="--strategy")
    hosts = ("on-premises", "source-region", "destination-service")
    if copy_from not in hosts:
        raise InputError(f"{copy_from!r} is not a copy host (use {', '.join(hosts)})", source="--copy-from")
    if check not in ("list", "head", "none"):
        raise InputError(f"{check!r} is not a check (use list, head or none)", source="--check")

    def option(parse: Callable[[str], float], text: str | None, name: str) -> float | None:
        if text is None:
            return None
        try:
            return parse(text)
        except ValueError as error:
            raise InputError(str(error), source=name) from None

    workload = load_workload(workload_file)
    age = option(parse_duration, data_age, "--data-age")
    sweep = option(parse_duration, sweep_after, "--sweep-after")
    within = option(parse_duration, age_out_within, "--age-out-within")
    if within is not None and within <= 0:
        raise InputError("give a positive duration, e.g. 180d", source="--age-out-within")
    options = MigrationOptions(
        source=Endpoint.parse(source, "--from"),
        destination=Endpoint.parse(destination, "--to"),
        strategy=strategy,
        copy_host=copy_from,
        check=check,
        never_read_share=never_read,
        sweep_after_days=None if sweep is None else sweep / 86400,
        age_out_within_days=None if within is None else within / 86400,
        start=parse_date(start, "--start"),
        months=months,
        link_bits_per_s=_copy_link(option(parse_rate, link, "--link")),
        concurrency=concurrency,
        egress_waiver=egress_waiver,
        data_age_days=None if age is None else age / 86400,
        verify_days=(option(parse_duration, verify, "--verify") or 0.0) / 86400,
        retrieval_option=retrieval,
        source_prices=source_prices,
        destination_prices=destination_prices,
    )
    plan = estimate_migration(workload, options)
    if plot is not None:
        from planner.reports.plots import save_migration_plot

        save_migration_plot(plan, plot)
    typer.echo(render.as_json(plan) if output == OutputFormat.json else render.migration(plan, output.value))


@app.command("report")
def report_command(
    workload_file: WorkloadArgument,
    out: Annotated[Path, typer.Option("--out", "-o", help="report.html or report.md")],
    as_of: AsOfOption = None,
    profiles: Annotated[
        Path | None, typer.Option("--profiles", help="folder of measured profiles named <provider>.json")
    ] = None,
    simulate: Annotated[
        bool, typer.Option("--simulate/--no-simulate", help="simulate each provider's peak (default) or not")
    ] = True,
) -> None:
    """One self-contained document: the recommendation, reasons, tables, plots, prices and sources."""
    from planner.reports.document import write_report
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    written = write_report(workload, out, as_of=parse_date(as_of), profiles_dir=profiles, simulate=simulate)
    typer.echo(f"wrote {written}")


@app.command("schema")
def schema_command(
    what: Annotated[str, typer.Argument(help="which file format: workload")] = "workload",
) -> None:
    """The JSON Schema of a file format, for editors (yaml-language-server) and validators."""
    from planner import render
    from planner.reports.schema import schema_for

    typer.echo(render.as_json(schema_for(what)))


@app.command("diff")
def diff_command(
    first: Annotated[Path, typer.Argument(help="the first workload YAML")],
    second: Annotated[Path, typer.Argument(help="the second workload YAML")],
    provider: Annotated[
        str | None, typer.Option("--provider", "-p", help="compare at this provider (default: each one's choice)")
    ] = None,
    storage_class: Annotated[str, typer.Option("--class", help="storage class with --provider")] = "standard",
    as_of: AsOfOption = None,
    simulate: Annotated[
        bool, typer.Option("--simulate/--no-simulate", help="simulate when recommending each side (default)")
    ] = True,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Two scenarios side by side: the cost difference per line item."""
    from planner import render
    from planner.reports.diff import diff_scenarios, render_diff
    from planner.workload import load_workload

    result = diff_scenarios(
        load_workload(first),
        load_workload(second),
        provider=provider,
        storage_class=storage_class,
        as_of=parse_date(as_of),
        simulate=simulate,
    )
    typer.echo(render.as_json(result) if output == OutputFormat.json else render_diff(result, output.value))
