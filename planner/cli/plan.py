"""``planner cost``, ``sweep`` and ``recommend``: a workload's bill at one provider, over a grid, and the
ranking of every allowed option."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

import datetime as dt
import shlex
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner.cli import completion, focus
from planner.cli.common import (
    AsOfOption,
    ForceOption,
    FormatOption,
    OutputFormat,
    PlotOption,
    ProviderOption,
    WorkloadArgument,
    check_plot,
    check_profiles,
    fields_of,
    parse_date,
    parse_option,
    workload_region,
)
from planner.cli.settings import echo, settings
from planner.errors import InputError

if TYPE_CHECKING:
    from planner.costing.bills import BillingOptions
    from planner.decide.recommendation import Recommendation
    from planner.decide.uncertainty import UncertainAnswer
    from planner.workload import Workload

app = typer.Typer()


def parse_prices(values: list[str] | None) -> dict[str, Path]:
    """--prices PROVIDER=FILE (repeatable) into a mapping."""
    prices: dict[str, Path] = {}
    for value in values or []:
        provider, sep, path = value.partition("=")
        if not sep or not provider or not path:
            raise InputError(f"{value!r}: use PROVIDER=FILE, e.g. aws-s3=edp.yaml", source="--prices")
        prices[provider] = Path(path)
    return prices


def _restore_days(text: str) -> Decimal:
    """--restore-days: a number of days from 0 to 36,500 (a hundred years)."""
    try:
        days = Decimal(text.strip())
    except InvalidOperation:
        days = Decimal("NaN")
    if not days.is_finite() or not 0 <= days <= 36500:
        raise ValueError(f"{text!r} is not a number of days from 0 to 36,500 (use e.g. 1 or 7)")
    return days


RestoreDaysOption = Annotated[
    str,
    typer.Option(
        "--restore-days",
        help="days each restored copy is kept, billed at S3 Standard (the restore's Days; default 1, the least)",
    ),
]
CalendarOption = Annotated[
    bool,
    typer.Option("--calendar", help="bill each calendar month's real length (as AWS does) instead of a 30-day month"),
]


def billing_options(restore_days: str, calendar: bool, retrieval: str | None = None) -> "BillingOptions":
    """--retrieval, --restore-days and --calendar as the billing options of every bill a command prices."""
    from planner.costing.bills import BillingOptions

    return BillingOptions(
        retrieval=retrieval,
        restored_copy_days=parse_option(_restore_days, restore_days, "--restore-days"),
        calendar=calendar,
    )


def _check_cost_options(
    storage_class: str | None,
    region: str | None,
    plot: Path | None,
    months: int | None,
    force: bool,
    output: OutputFormat,
    out: Path | None,
) -> None:
    """``cost``'s options, checked before the workload is read."""
    if storage_class is not None and not storage_class.strip():
        raise InputError("give a storage class, e.g. standard", source="--class")
    if region is not None and not region.strip():
        raise InputError("give a region, e.g. us-east-1", source="--region")
    if plot is not None and not months:
        raise InputError("a plot needs a projection: add --months N", source="--plot")
    check_plot(plot, force)
    focus.check_out(output, out, force)


def _cost_class(workload: "Workload", storage_class: str | None, workload_file: Path) -> str | None:
    """The class ``cost`` prices: --class, else the workload's placement (None), else standard; one the
    workload's constraints allow."""
    allowed = workload.constraints.storage_classes
    if storage_class is None and workload.storage.placement is None:
        storage_class = "standard"
    if allowed and storage_class is not None and storage_class not in allowed:
        raise InputError(
            f"allows only {', '.join(allowed)}, not --class {storage_class}",
            source=str(workload_file),
            field="constraints.storage_classes",
        )
    return storage_class


@app.command("cost")
def cost_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    provider: ProviderOption,
    storage_class: Annotated[
        str | None,
        typer.Option(
            "--class",
            help="storage class id (default: the workload's storage.placement, each class on its own bytes;"
            " without one, standard)",
            autocompletion=completion.storage_class,
        ),
    ] = None,
    as_of: AsOfOption = None,
    months: Annotated[int | None, typer.Option("--months", min=1, max=120, help="month-by-month projection")] = None,
    prices: Annotated[Path | None, typer.Option("--prices", help="price override file for this provider")] = None,
    region: Annotated[
        str | None, typer.Option("--region", help="region, e.g. eu-central-1 (default: us-east-1 for S3)")
    ] = None,
    output: focus.ForecastFormatOption = OutputFormat.table,
    plot: PlotOption = None,
    force: ForceOption = False,
    retrieval: Annotated[
        str | None,
        typer.Option(
            "--retrieval",
            help="retrieval tier of the restores from an archive class: standard, bulk or expedited, as the class"
            " offers (default: standard)",
        ),
    ] = None,
    restore_days: RestoreDaysOption = "1",
    calendar: CalendarOption = False,
    verified_only: Annotated[
        bool,
        typer.Option("--verified-only", help="refuse a bill that rests on an unverified price (says which lines do)"),
    ] = False,
    out: focus.FocusOutOption = None,
) -> None:
    """One month's bill for a workload at one provider, or a projection over N months."""
    from planner.costing.bills import estimate_cost, project_costs
    from planner.decide.recommendation.verified import refuse_unverified
    from planner.present import text as render
    from planner.workload import load_workload

    _check_cost_options(storage_class, region, plot, months, force, output, out)
    options = billing_options(restore_days, calendar, retrieval)
    workload = load_workload(workload_file)
    region = region or workload_region(workload, provider, workload_file)
    day = parse_date(as_of)
    if workload.storage.lifecycle or _tiered(workload, provider, storage_class, workload_file, day):
        _cost_with_lifecycle(
            ctx, workload, workload_file, provider, storage_class, months, day, region, output,
            unpriced={"--prices": prices is not None, "--plot": plot is not None, "--retrieval": retrieval is not None,
                      "--restore-days": restore_days != "1", "--calendar": calendar, "--verified-only": verified_only},
        )  # fmt: skip
        return
    storage_class = _cost_class(workload, storage_class, workload_file)
    if months:
        with fields_of(workload_file):
            result = project_costs(
                workload,
                provider,
                storage_class,
                months=months,
                as_of=day,
                prices=prices,
                region=region,
                options=options,
            )
        if verified_only:
            refuse_unverified([month.cost for month in result.months])
        if plot is not None:
            from planner.present.plots import save_projection_plot

            save_projection_plot(result, plot)
        if output == OutputFormat.focus:
            from planner.present.text.focus import cost_rows

            focus.emit(cost_rows(result, workload.name), out)
            return
        echo(
            ctx,
            render.projection_json(result)
            if output == OutputFormat.json
            else render.projection(result, output.value, width=settings(ctx).width),
            output.value,
        )
        return
    with fields_of(workload_file):
        bill = estimate_cost(
            workload, provider, storage_class, as_of=day, prices=prices, region=region, options=options
        )
    if verified_only:
        refuse_unverified([bill])
    if output == OutputFormat.focus:
        from planner.present.text.focus import cost_rows

        focus.emit(cost_rows(bill, workload.name), out)
        return
    echo(
        ctx,
        render.breakdown_json(bill)
        if output == OutputFormat.json
        else render.breakdown(bill, output.value, width=settings(ctx).width),
        output.value,
    )


def _tiered(
    workload: "Workload", provider: str, storage_class: str | None, workload_file: Path, day: "dt.date | None"
) -> bool:
    """Whether the workload's Intelligent-Tiering archive tiers apply to the class ``cost`` prices (then the
    lifecycle engine bills it: the other bill would leave the tiers out)."""
    import datetime as dt

    if workload.storage.intelligent_tiering is None:  # most workloads: the lifecycle engine is not imported
        return False
    from planner.costing.lifecycle_bills import archive_tiers_apply

    chosen = _cost_class(workload, storage_class, workload_file)
    return archive_tiers_apply(workload, provider, chosen, day or dt.date.today())


def _cost_with_lifecycle(
    ctx: typer.Context,
    workload: "Workload",
    workload_file: Path,
    provider: str,
    storage_class: str | None,
    months: int | None,
    day: "dt.date | None",
    region: str | None,
    output: OutputFormat,
    *,
    unpriced: dict[str, bool],
) -> None:
    """``cost`` of a workload with ``storage.lifecycle`` (or archive tiers on the class it prices): the policy
    billed month by month (``--months``, default one month) as ``planner lifecycle --price-only`` bills it; the
    options that bill does not take are refused, naming the command."""
    from planner.costing.lifecycle_bills import price_lifecycle
    from planner.present import text as render
    from planner.present.text.lifecycle import lifecycle_cost

    given = [option for option, on in unpriced.items() if on]
    if output in (OutputFormat.csv, OutputFormat.focus):
        given.insert(0, "--format")
    if given:
        raise InputError(
            "is not priced with storage.lifecycle: the policy's bill is planner lifecycle --price-only's"
            " (text, markdown or json); leave this option out",
            source=given[0],
        )
    with fields_of(workload_file):
        cost = price_lifecycle(
            workload,
            provider,
            start_class=storage_class,
            current_class=storage_class,
            applied=True,
            months=months or 1,
            as_of=day,
            region=region,
        )
    echo(
        ctx,
        render.as_json(cost)
        if output == OutputFormat.json
        else lifecycle_cost(cost, output.value, width=settings(ctx).width),
        output.value,
    )


DaskOption = Annotated[
    str | None,
    typer.Option(
        "--dask",
        metavar="SCHEDULER",
        help="price in chunks on the Dask distributed cluster at this scheduler address, e.g. tcp://10.0.0.5:8786"
        " (needs objstore-planner[dask]; the same answer as here)",
    ),
]


VerifiedOnlyOption = Annotated[
    bool,
    typer.Option(
        "--verified-only", help="leave out options whose bill rests on an unverified price (says which were left out)"
    ),
]


@app.command("sweep")
def sweep_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    vary: Annotated[
        list[str],
        typer.Option("--vary", help="FIELD=LOW..HIGH:N, e.g. traffic.egress=0..500TB:26 (once or twice)"),
    ],
    as_of: AsOfOption = None,
    output: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
    dask: DaskOption = None,
    force: ForceOption = False,
    verified_only: VerifiedOnlyOption = False,
) -> None:
    """Every allowed option's monthly bill over a grid of one or two workload fields, and the cheapest at each point."""
    from planner.cli import progress
    from planner.decide.sweep import parse_axis, sweep
    from planner.present import text as render
    from planner.workload import load_workload

    check_plot(plot, force)
    workload = load_workload(workload_file)
    axes = [parse_axis(workload, text) for text in vary]
    points = 1
    for axis in axes:
        points *= len(axis.values)
    with progress.bar("pricing the grid", total=points, unit="points", quiet=settings(ctx).quiet) as moved:
        result = sweep(
            workload, axes, as_of=parse_date(as_of), progress=moved, scheduler=dask, verified_only=verified_only
        )
    if plot is not None:
        from planner.present.plots import save_sweep_plot

        save_sweep_plot(result, plot)
    echo(
        ctx,
        render.as_json(result)
        if output == OutputFormat.json
        else render.sweep(result, output.value, width=settings(ctx).width),
        output.value,
    )


ProfilesOption = Annotated[
    Path | None, typer.Option("--profiles", help="folder of measured profiles named <provider>.json")
]
PricesOption = Annotated[list[str] | None, typer.Option("--prices", help="PROVIDER=FILE price override (repeatable)")]
SimulateOption = Annotated[
    bool, typer.Option("--simulate/--no-simulate", help="simulate each provider's peak (default) or not")
]
SimWindowOption = Annotated[str, typer.Option("--sim-window", help='simulated peak window, e.g. "60s"')]
SamplesOption = Annotated[
    int | None,
    typer.Option("--samples", min=10, max=100_000, help="also price N outcomes of the inputs given as ranges (seeded)"),
]
SeedOption = Annotated[int, typer.Option("--seed", min=0, max=2**63 - 1, help="random seed for --samples")]
TornadoPlotOption = Annotated[
    Path | None,
    typer.Option(
        "--tornado-plot",
        help="with --samples: draw how each uncertain input moves the favourite's bill (FILE.svg or .png)",
    ),
]


def _sim_window_s(
    sim_window: str,
    *,
    samples: int | None,
    dask: str | None,
    tornado_plot: Path | None,
    prices: list[str] | None,
    profiles: Path | None,
) -> float:
    """Refuse the options of recommend that do not go together; the simulated window in seconds."""
    from planner.units import parse_duration

    if dask is not None and samples is None:
        raise InputError("prices the outcomes of --samples on a cluster: add --samples N", source="--dask")
    if tornado_plot is not None and samples is None:
        raise InputError("draws the outcomes of --samples: add --samples N", source="--tornado-plot")
    if tornado_plot is not None:  # before any work, naming the option that gave the file
        from planner.present.plots.common import plot_target

        plot_target(tornado_plot, "--tornado-plot")
    if samples is not None and prices:
        raise InputError("--samples prices the shipped tables only; leave out --prices", source="--samples")
    check_profiles(profiles)
    window_s = parse_option(parse_duration, sim_window, "--sim-window")
    if window_s <= 0 or window_s > 3600:
        raise InputError(f"{sim_window!r}: use a window between 1s and 1h", source="--sim-window")
    return window_s


def _outcomes(
    ctx: typer.Context,
    workload: "Workload",
    samples: int,
    *,
    seed: int,
    as_of: str | None,
    dask: str | None,
    tornado_plot: Path | None,
    rejected: dict[str, str] | None = None,
) -> "UncertainAnswer":
    """``--samples``: the bills of N seeded outcomes of the workload's ranges, drawn if asked."""
    from planner.cli import progress
    from planner.decide.uncertainty import sample

    with progress.bar("pricing the outcomes", total=samples, unit="samples", quiet=settings(ctx).quiet) as moved:
        answer = sample(
            workload,
            workload.uncertain,
            samples,
            seed=seed,
            as_of=parse_date(as_of),
            progress=moved,
            scheduler=dask,
            correlations=workload.correlations,
            rejected=rejected,
        )
    if tornado_plot is not None:
        from planner.present.plots import save_tornado_plot

        save_tornado_plot(answer, tornado_plot)
    return answer


def _print_recommendation(
    ctx: typer.Context,
    workload: "Workload",
    result: "Recommendation",
    answer: "UncertainAnswer | None",
    output: OutputFormat,
    settle: list[str] | None = None,
    lifecycle_of: Path | None = None,
    as_of: str | None = None,
) -> None:
    from planner.present import text as render

    if output == OutputFormat.json:
        payload = result.model_dump(mode="json")
        if answer is not None:
            payload["uncertainty"] = answer.model_dump(mode="json")
        if lifecycle_of is not None:  # --lifecycle: each provider's proposal, and where none is made
            from planner.cli.lifecycle import proposals

            found, elsewhere = proposals(lifecycle_of, as_of)
            payload["lifecycle"] = {
                "proposals": [p.model_dump(mode="json") for p in found],
                "not_proposed": elsewhere,
            }
        typer.echo(render.as_json(payload))
        return
    echo(
        ctx,
        render.recommendation(result, output.value, width=settings(ctx).width, exact_measure_follows=bool(settle)),
        output.value,
    )
    if workload.uncertain and output != OutputFormat.csv:
        echo(ctx, render.uncertain_note(workload.uncertain, answer, width=settings(ctx).width), "table")
    if answer is not None:
        echo(ctx, render.uncertain_answer(answer, output.value, width=settings(ctx).width), output.value)


CdnOption = Annotated[
    str | None,
    typer.Option(
        "--cdn",
        metavar="CDN,CDN,...",
        help="compare delivery paths: price every option behind each of these CDNs (e.g. cloudfront,cloudflare,"
        "bunny) at the workload's hit ratio, and rank them together (the workload names a CDN)",
    ),
]


def parse_cdns(value: str | None) -> list[str] | None:
    """--cdn's comma-separated CDN ids, or None when not given."""
    if value is None:
        return None
    cdns = [cdn.strip() for cdn in value.split(",") if cdn.strip()]
    if not cdns:
        raise InputError("give CDN ids separated by commas, e.g. cloudfront,cloudflare,bunny", source="--cdn")
    return cdns


def _check_recommend_outputs(
    plot: Path | None,
    tornado_plot: Path | None,
    output: OutputFormat,
    out: Path | None,
    force: bool,
    *,
    sampled: bool,
    lifecycle: bool,
) -> None:
    """``recommend``'s output options, checked before any work: two pictures, two files; files not
    overwritten without --force; --format focus writes bills, not outcomes; --lifecycle needs text."""
    if plot is not None and tornado_plot is not None and plot.resolve() == tornado_plot.resolve():
        raise InputError("names the same file as --plot: give each picture its own file", source="--tornado-plot")
    check_plot(plot, force)
    check_plot(tornado_plot, force, "--tornado-plot")
    focus.check_out(output, out, force)
    if output == OutputFormat.focus and sampled:
        raise InputError(
            "prices outcomes, which --format focus does not write (it writes the bills): leave out --samples",
            source="--samples",
        )
    if lifecycle:
        from planner.cli.lifecycle import check_text_output

        check_text_output(output)


def _recommend_billing(
    restore_days: str, calendar: bool, cdn: str | None, *, sampled: bool
) -> tuple["BillingOptions", list[str] | None]:
    """``recommend``'s billing options and --cdn, refused with --samples where the outcomes cannot honour
    them (they are priced as arrays, in 30-day months with restored copies kept a day, with the
    workload's own CDN)."""
    from planner.costing.bills import BillingOptions

    billing = billing_options(restore_days, calendar)
    if sampled and billing != BillingOptions():
        raise InputError(
            "the --samples outcomes are priced in 30-day months with restored copies kept a day: leave out"
            " --samples, or this option",
            source="--calendar" if calendar else "--restore-days",
        )
    cdns = parse_cdns(cdn)
    if cdns is not None and sampled:
        raise InputError(
            "the --samples outcomes price the workload's own CDN: leave out --samples, or this option", source="--cdn"
        )
    return billing, cdns


@app.command("recommend")
def recommend_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    as_of: AsOfOption = None,
    profiles: ProfilesOption = None,
    prices: PricesOption = None,
    simulate: SimulateOption = True,
    sim_window: SimWindowOption = "60s",
    samples: SamplesOption = None,
    seed: SeedOption = 0,
    output: focus.ForecastFormatOption = OutputFormat.table,
    plot: PlotOption = None,
    dask: DaskOption = None,
    tornado_plot: TornadoPlotOption = None,
    force: ForceOption = False,
    verified_only: VerifiedOnlyOption = False,
    restore_days: RestoreDaysOption = "1",
    calendar: CalendarOption = False,
    out: focus.FocusOutOption = None,
    providers: Annotated[
        str | None,
        typer.Option(
            "--providers",
            help="compare these instead of the workload's providers: ids and PROVIDER:CLASS separated by commas,"
            ' or "all" (every provider and class)',
        ),
    ] = None,
    lifecycle: Annotated[
        bool,
        typer.Option("--lifecycle", help="also propose each provider's cheapest lifecycle policy (planner lifecycle)"),
    ] = False,
    cdn: CdnOption = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="exit 1 when no option meets every target with evidence (a target unmet or unverified)",
        ),
    ] = False,
) -> None:
    """Rank every allowed provider and storage class for a workload, and explain the choice."""
    from planner.cli import progress
    from planner.decide.recommendation import recommend
    from planner.workload import load_workload

    window_s = _sim_window_s(
        sim_window, samples=samples, dask=dask, tornado_plot=tornado_plot, prices=prices, profiles=profiles
    )
    _check_recommend_outputs(plot, tornado_plot, output, out, force, sampled=samples is not None, lifecycle=lifecycle)
    billing, cdns = _recommend_billing(restore_days, calendar, cdn, sampled=samples is not None)
    workload = load_workload(workload_file)
    if providers is not None:
        from planner.workload.providers import with_providers

        workload = with_providers(workload, providers)
    with progress.bar(
        "simulating each provider", total=len(workload.constraints.providers), quiet=settings(ctx).quiet
    ) as moved:
        result = recommend(
            workload,
            as_of=parse_date(as_of),
            profiles_dir=profiles,
            prices=parse_prices(prices),
            simulate=simulate,
            sim_duration_s=window_s,
            progress=moved,
            curves=plot is not None or output == OutputFormat.json,
            verified_only=verified_only,
            billing=billing,
            cdns=cdns,
        )
    if plot is not None:
        from planner.present.plots import save_recommendation_plot

        save_recommendation_plot(result, plot)
    answer = None
    if samples is not None:
        if workload.storage.lifecycle:
            raise InputError(
                "prices each class holding all the data, not storage.lifecycle: the policy's outcomes at a"
                f" provider are planner lifecycle {shlex.quote(str(workload_file))}"
                f" --provider {workload.constraints.providers[0]} --samples {samples}'s",
                source="--samples",
            )
        answer = _outcomes(
            ctx, workload, samples, seed=seed, as_of=as_of, dask=dask, tornado_plot=tornado_plot,
            rejected=result.rejected_whatever_the_bill(),
        )  # fmt: skip
    settle: list[str] = []
    if result.recommendation is None and output in (OutputFormat.table, OutputFormat.markdown):
        from planner.cli.measure_for import settle_lines

        settle = settle_lines(workload_file, workload, result)
    if output == OutputFormat.focus:
        from planner.present.text.focus import recommendation_rows

        focus.emit(recommendation_rows(result), out)
    else:
        _print_recommendation(
            ctx,
            workload,
            result,
            answer,
            output,
            settle,
            lifecycle_of=workload_file if lifecycle else None,
            as_of=as_of,
        )
    if lifecycle and output != OutputFormat.json:
        from planner.cli.lifecycle import print_proposals

        print_proposals(ctx, workload_file, as_of, output)
    if result.recommendation is None:
        if settle:
            echo(ctx, "\n".join(settle), output.value)
        if strict:  # an answer was given (exit 0); --strict asks for 1 when it is only provisional
            raise typer.Exit(1)
