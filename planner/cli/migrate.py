"""``planner migrate``: the bill, duration and payback of moving a workload between providers."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner.cli import completion, focus
from planner.cli.common import (
    ForceOption,
    OutputFormat,
    PlotOption,
    WorkloadArgument,
    check_plot,
    parse_date,
    parse_option,
)
from planner.cli.settings import echo, settings
from planner.errors import InputError

if TYPE_CHECKING:
    from planner.decide.migration import MigrationOptions

app = typer.Typer()

FromOption = Annotated[
    str, typer.Option("--from", help="PROVIDER[:CLASS] the data leaves", autocompletion=completion.endpoint)
]
ToOption = Annotated[
    str, typer.Option("--to", help="PROVIDER[:CLASS] the data moves to", autocompletion=completion.endpoint)
]
StrategyOption = Annotated[
    str | None,
    typer.Option("--strategy", help="bulk, copy-on-read, age-out or hybrid (default: the cheapest within the horizon)"),
]
CopyFromOption = Annotated[
    str,
    typer.Option(
        "--copy-from",
        help="where the copy runs: on-premises, source-region (a VM there) or destination-service (e.g. R2's)",
    ),
]
CheckOption = Annotated[str, typer.Option("--check", help="how the copy checks the destination: list, head or none")]
NeverReadOption = Annotated[
    float, typer.Option("--never-read", help="copy-on-read: share of objects never read (0 to 1)")
]
SweepAfterOption = Annotated[
    str | None, typer.Option("--sweep-after", help='copy-on-read: bulk-copy what is left after e.g. "90d"')
]
AgeOutWithinOption = Annotated[
    str | None,
    typer.Option("--age-out-within", help='hybrid: data expiring within e.g. "180d" ages out (default: horizon)'),
]
LinkOption = Annotated[str | None, typer.Option("--link", help='copy link, e.g. "10Gbps" (default: the workload\'s)')]
ConcurrencyOption = Annotated[
    int | None, typer.Option("--concurrency", min=1, max=100_000, help="copy streams (at most 100,000)")
]
StartOption = Annotated[str | None, typer.Option("--start", help="first day of the move (YYYY-MM-DD; default today)")]
MonthsOption = Annotated[int | None, typer.Option("--months", min=1, max=120, help="timeline horizon")]
EgressWaiverOption = Annotated[
    bool, typer.Option("--egress-waiver", help="the source waives egress for the move (AWS does on request)")
]
DataAgeOption = Annotated[str | None, typer.Option("--data-age", help='age of the stored data at the move, e.g. "30d"')]
VerifyOption = Annotated[str, typer.Option("--verify", help="how long both copies are kept for verification")]
RetrievalOption = Annotated[
    str | None, typer.Option("--retrieval", help="archive retrieval option at the source, e.g. bulk")
]
FromPricesOption = Annotated[Path | None, typer.Option("--from-prices", help="price override for the source")]
ToPricesOption = Annotated[Path | None, typer.Option("--to-prices", help="price override for the destination")]


def _copy_link(bits_per_s: float | None) -> float | None:
    """``--link`` as given: 0 is refused, not read as "the workload's link"."""
    if bits_per_s is not None and bits_per_s <= 0:
        raise InputError("a copy link must be faster than 0 (leave --link out to use the workload's)", source="--link")
    return bits_per_s


def _check_choices(strategy: str | None, copy_from: str, check: str) -> None:
    """``--strategy``, ``--copy-from`` and ``--check`` name one of the model's choices."""
    from planner.decide.migration import CHECKS, COPY_HOSTS, STRATEGIES

    if strategy is not None and strategy not in STRATEGIES:
        raise InputError(f"{strategy!r} is not a strategy (use {', '.join(STRATEGIES)})", source="--strategy")
    if copy_from not in COPY_HOSTS:
        raise InputError(f"{copy_from!r} is not a copy host (use {', '.join(COPY_HOSTS)})", source="--copy-from")
    if check not in CHECKS:
        checks = f"{', '.join(CHECKS[:-1])} or {CHECKS[-1]}"
        raise InputError(f"{check!r} is not a check (use {checks})", source="--check")


def _days(text: str | None, option: str) -> float | None:
    """A duration option in days, or None when it is not given."""
    from planner.units import parse_duration

    seconds = parse_option(parse_duration, text, option)
    return None if seconds is None else seconds / 86400


def _migration_options(
    *,
    source: str,
    destination: str,
    strategy: str | None,
    copy_from: str,
    check: str,
    never_read: float,
    sweep_after: str | None,
    age_out_within: str | None,
    link: str | None,
    concurrency: int | None,
    start: str | None,
    months: int | None,
    egress_waiver: bool,
    data_age: str | None,
    verify: str,
    retrieval: str | None,
    source_prices: Path | None,
    destination_prices: Path | None,
) -> "MigrationOptions":
    """The command-line options, checked and parsed, as ``MigrationOptions`` (no workload needed)."""
    from pydantic import ValidationError

    from planner.decide.migration import MAX_VERIFY_DAYS, Endpoint, MigrationOptions
    from planner.errors import validation_problem
    from planner.units import parse_rate

    age = _days(data_age, "--data-age")
    sweep = _days(sweep_after, "--sweep-after")
    within = _days(age_out_within, "--age-out-within")
    verify_days = _days(verify, "--verify") or 0.0
    if verify_days > MAX_VERIFY_DAYS:
        raise InputError(f"{verify!r} is longer than 10 years ({MAX_VERIFY_DAYS:,} days) of keeping both copies",
                         source="--verify")  # fmt: skip
    if within is not None and within <= 0:
        raise InputError("give a positive duration, e.g. 180d", source="--age-out-within")
    # validated as the model validates its fields (the strings of --strategy, --copy-from and --check
    # are checked there, as every other caller's are)
    try:
        return MigrationOptions.model_validate({
            "source": Endpoint.parse(source, "--from"),
            "destination": Endpoint.parse(destination, "--to"),
            "strategy": strategy,
            "copy_host": copy_from,
            "check": check,
            "never_read_share": never_read,
            "sweep_after_days": sweep,
            "age_out_within_days": within,
            "start": parse_date(start, "--start"),
            "months": months,
            "link_bits_per_s": _copy_link(parse_option(parse_rate, link, "--link")),
            "concurrency": concurrency,
            "egress_waiver": egress_waiver,
            "data_age_days": age,
            "verify_days": verify_days,
            "retrieval_option": retrieval,
            "source_prices": source_prices,
            "destination_prices": destination_prices,
        })  # fmt: skip
    except ValidationError as error:
        field, message = validation_problem(error)
        if field is None:  # a check of the options together ("never_read_share: applies to ..."): by its flag
            name, _, rest = message.partition(": ")
            if name in _OPTIONS:
                field, message = name, rest
        raise InputError(message, source=_OPTIONS.get(field, field) if field else None) from None


_OPTIONS = {
    "never_read_share": "--never-read",
    "sweep_after_days": "--sweep-after",
    "age_out_within_days": "--age-out-within",
    "data_age_days": "--data-age",
    "verify_days": "--verify",
    "concurrency": "--concurrency",
    "months": "--months",
    "link_bits_per_s": "--link",
    "strategy": "--strategy",
    "copy_host": "--copy-from",
    "check": "--check",
    "retrieval_option": "--retrieval",
}
"""the option that gives each field of ``MigrationOptions``, to name it when the model refuses a value"""


def _check_retrieval(options: "MigrationOptions") -> None:
    """``--retrieval`` names one of the source class's retrieval options: refused where it has none, rather
    than ignored."""
    if options.retrieval_option is None:
        return
    import datetime as dt

    from planner.costing.bills import price_table

    source = options.source
    table = price_table(source.provider, options.start or dt.date.today(), options.source_prices)
    found = table.classes.get(source.storage_class)
    if found is None:  # refused with the table's classes when the plan is made
        return
    if found.retrieval is None:
        raise InputError(
            f"{options.retrieval_option!r}: {source} has no retrieval options ({table.version} bills no retrieval"
            " for it); --retrieval applies to a source class that charges reads, e.g. aws-s3:glacier-flexible",
            source="--retrieval",
        )
    if options.retrieval_option not in found.retrieval.options:
        raise InputError(
            f"{options.retrieval_option!r} is not a retrieval option of {source} in {table.version}"
            f" (options: {', '.join(found.retrieval.options)})",
            source="--retrieval",
        )


@app.command("migrate")
def migrate_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    source: FromOption,
    destination: ToOption,
    strategy: StrategyOption = None,
    copy_from: CopyFromOption = "on-premises",
    check: CheckOption = "list",
    never_read: NeverReadOption = 0.0,
    sweep_after: SweepAfterOption = None,
    age_out_within: AgeOutWithinOption = None,
    link: LinkOption = None,
    concurrency: ConcurrencyOption = None,
    start: StartOption = None,
    months: MonthsOption = None,
    egress_waiver: EgressWaiverOption = False,
    data_age: DataAgeOption = None,
    verify: VerifyOption = "7d",
    retrieval: RetrievalOption = None,
    source_prices: FromPricesOption = None,
    destination_prices: ToPricesOption = None,
    output: focus.PlanFormatOption = OutputFormat.table,
    plot: PlotOption = None,
    force: ForceOption = False,
    out: focus.FocusOutOption = None,
) -> None:
    """One-time bill, duration and payback of moving a workload between providers."""
    check_plot(plot, force)
    focus.check_out(output, out, force)
    from planner.decide.migration import estimate_migration
    from planner.present import text as render
    from planner.workload import load_workload

    _check_choices(strategy, copy_from, check)
    workload = load_workload(workload_file)
    options = _migration_options(
        source=source, destination=destination, strategy=strategy, copy_from=copy_from, check=check,
        never_read=never_read, sweep_after=sweep_after, age_out_within=age_out_within, link=link,
        concurrency=concurrency, start=start, months=months, egress_waiver=egress_waiver, data_age=data_age,
        verify=verify, retrieval=retrieval, source_prices=source_prices, destination_prices=destination_prices,
    )  # fmt: skip
    _check_retrieval(options)
    plan = estimate_migration(workload, options)
    if plot is not None:
        from planner.present.plots import save_migration_plot

        save_migration_plot(plan, plot)
    if output == OutputFormat.focus:
        from planner.present.text.focus import migration_rows

        focus.emit(migration_rows(plan), out)
        return
    echo(
        ctx,
        render.as_json(plan)
        if output == OutputFormat.json
        else render.migration(plan, output.value, width=settings(ctx).width),
        output.value,
    )
