"""``planner migrate``: the bill, duration and payback of moving a workload between providers."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

from pathlib import Path
from typing import Annotated

import typer

from planner.cli import completion
from planner.cli.common import (
    FormatOption,
    OutputFormat,
    PlotOption,
    WorkloadArgument,
    parse_date,
    parse_option,
    rows_only,
)
from planner.cli.settings import settings
from planner.errors import InputError

app = typer.Typer()


def _copy_link(bits_per_s: float | None) -> float | None:
    """``--link`` as given: 0 is refused, not read as "the workload's link"."""
    if bits_per_s is not None and bits_per_s <= 0:
        raise InputError("a copy link must be faster than 0 (leave --link out to use the workload's)", source="--link")
    return bits_per_s


@app.command("migrate")
def migrate_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    source: Annotated[
        str, typer.Option("--from", help="PROVIDER[:CLASS] the data leaves", autocompletion=completion.endpoint)
    ],
    destination: Annotated[
        str, typer.Option("--to", help="PROVIDER[:CLASS] the data moves to", autocompletion=completion.endpoint)
    ],
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
    rows_only(output, "migrate")
    from planner.decide.migration import CHECKS, COPY_HOSTS, STRATEGIES, Endpoint, MigrationOptions, estimate_migration
    from planner.present import text as render
    from planner.units import parse_duration, parse_rate
    from planner.workload import load_workload

    if strategy is not None and strategy not in STRATEGIES:
        raise InputError(f"{strategy!r} is not a strategy (use {', '.join(STRATEGIES)})", source="--strategy")
    if copy_from not in COPY_HOSTS:
        raise InputError(f"{copy_from!r} is not a copy host (use {', '.join(COPY_HOSTS)})", source="--copy-from")
    if check not in CHECKS:
        checks = f"{', '.join(CHECKS[:-1])} or {CHECKS[-1]}"
        raise InputError(f"{check!r} is not a check (use {checks})", source="--check")

    workload = load_workload(workload_file)
    age = parse_option(parse_duration, data_age, "--data-age")
    sweep = parse_option(parse_duration, sweep_after, "--sweep-after")
    within = parse_option(parse_duration, age_out_within, "--age-out-within")
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
        link_bits_per_s=_copy_link(parse_option(parse_rate, link, "--link")),
        concurrency=concurrency,
        egress_waiver=egress_waiver,
        data_age_days=None if age is None else age / 86400,
        verify_days=(parse_option(parse_duration, verify, "--verify") or 0.0) / 86400,
        retrieval_option=retrieval,
        source_prices=source_prices,
        destination_prices=destination_prices,
    )
    plan = estimate_migration(workload, options)
    if plot is not None:
        from planner.present.plots import save_migration_plot

        save_migration_plot(plan, plot)
    typer.echo(
        render.as_json(plan)
        if output == OutputFormat.json
        else render.migration(plan, output.value, width=settings(ctx).width)
    )
