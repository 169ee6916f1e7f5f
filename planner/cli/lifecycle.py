"""``planner lifecycle``: a workload's lifecycle policy priced month by month, or the cheapest policy at a
provider proposed against today's."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).
import datetime as dt
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner.cli import completion
from planner.cli.common import (
    AsOfOption,
    OutputFormat,
    ProviderOption,
    TextFormatOption,
    WorkloadArgument,
    fields_of,
    parse_date,
    workload_region,
)
from planner.cli.settings import echo, settings
from planner.errors import InputError

if TYPE_CHECKING:
    from planner.decide.lifecycle_policy import LifecycleProposal
    from planner.workload import Workload

app = typer.Typer()


def _print_samples(
    ctx: typer.Context,
    workload: "Workload",
    provider: str,
    samples: int,
    seed: int,
    current: str | None,
    months: int | None,
    day: dt.date | None,
    region: str | None,
    output: OutputFormat,
) -> None:
    """``lifecycle --samples``: storage.lifecycle priced at seeded outcomes of the workload's ranges."""
    from planner.decide.lifecycle_ranges import sample_policy
    from planner.present import text as render
    from planner.present.text.lifecycle_ranges import policy_outcomes

    answer = sample_policy(
        workload, provider, samples, seed=seed, months=months, as_of=day, region=region, current_class=current
    )
    echo(
        ctx,
        render.as_json(answer) if output == OutputFormat.json else policy_outcomes(answer, output.value),
        output.value,
    )


def _print_age_sweep(
    ctx: typer.Context,
    workload: "Workload",
    provider: str,
    vary_age: str,
    current: str | None,
    months: int | None,
    day: dt.date | None,
    region: str | None,
    output: OutputFormat,
) -> None:
    """``lifecycle --vary-age``: one rule's age swept over a range."""
    from planner.decide.lifecycle_policy import parse_age_range, sweep_rule_age
    from planner.present import text as render
    from planner.present.text.lifecycle import age_sweep

    rule, ages = parse_age_range(vary_age)
    swept = sweep_rule_age(
        workload, provider, rule, ages, current_class=current, months=months, as_of=day, region=region
    )
    echo(ctx, render.as_json(swept) if output == OutputFormat.json else age_sweep(swept, output.value), output.value)


@app.command("lifecycle")
def lifecycle_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    provider: ProviderOption,
    current: Annotated[
        str | None,
        typer.Option(
            "--current",
            help="the class the data is in today and new objects are written to (default: the workload's"
            " storage.placement, new objects in its dearest class; without one, standard, or the provider's first"
            " class where it has no standard: azure-blob's hot)",
            autocompletion=completion.storage_class,
        ),
    ] = None,
    months: Annotated[
        int | None, typer.Option("--months", min=1, max=120, help="horizon (default: constraints.months)")
    ] = None,
    as_of: AsOfOption = None,
    region: Annotated[str | None, typer.Option("--region", help="region (default: the provider's default)")] = None,
    price_only: Annotated[
        bool,
        typer.Option("--price-only", help="price the workload's own storage.lifecycle month by month; propose nothing"),
    ] = False,
    month: Annotated[
        int | None, typer.Option("--month", min=1, max=120, help="with --price-only: the month whose lines to show")
    ] = None,
    top: Annotated[int, typer.Option("--top", min=1, max=1000, help="policies shown in the ranking")] = 10,
    vary_age: Annotated[
        str | None,
        typer.Option(
            "--vary-age",
            help="RULE=LOW..HIGH:N, e.g. 0=30d..180d:6: storage.lifecycle's rule RULE at N ages, each priced"
            " (the cheapest age found; ages the provider refuses say why)",
        ),
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples",
            min=10,
            max=100_000,
            help="price storage.lifecycle (as --price-only) at N seeded outcomes of the workload's ranges, e.g."
            " after: {low: 30d, high: 90d}: p10 / p50 / p90 of its total and its last month",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**63 - 1, help="random seed for --samples")] = 0,
    output: TextFormatOption = OutputFormat.table,
) -> None:
    """The cheapest lifecycle policy at a provider for how the workload's data ages and is read, against
    today's: saving a month, one-time transition cost and payback month (--price-only: today's policy's bills)."""
    from planner.present import text as render
    from planner.present.text.lifecycle import lifecycle_cost, lifecycle_proposal
    from planner.workload import load_workload

    if month is not None and not price_only:
        raise InputError("shows a month of --price-only's bills: give --price-only too", source="--month")
    workload = load_workload(workload_file)
    region = region or workload_region(workload, provider, workload_file)
    day = parse_date(as_of)
    width = settings(ctx).width
    with fields_of(workload_file):
        if samples is not None:
            if vary_age is not None or month is not None:
                raise InputError("prices outcomes of the ranges: leave out --vary-age and --month", source="--samples")
            _print_samples(ctx, workload, provider, samples, seed, current, months, day, region, output)
            return
        if vary_age is not None:
            _print_age_sweep(ctx, workload, provider, vary_age, current, months, day, region, output)
            return
        if price_only:
            from planner.costing.lifecycle_bills import price_lifecycle

            cost = price_lifecycle(
                workload,
                provider,
                start_class=current,
                current_class=current,
                applied=True,
                months=months,
                as_of=day,
                region=region,
            )
            if month is not None and month > len(cost.months):
                raise InputError(f"{month} is past the {len(cost.months)}-month horizon", source="--month")
            echo(
                ctx,
                render.as_json(cost)
                if output == OutputFormat.json
                else lifecycle_cost(cost, output.value, width=width, lines_of=month),
                output.value,
            )
            return
        from planner.decide.lifecycle_policy import propose_lifecycle

        proposal = propose_lifecycle(workload, provider, current_class=current, months=months, as_of=day, region=region)
    echo(
        ctx,
        render.as_json(proposal)
        if output == OutputFormat.json
        else lifecycle_proposal(proposal, output.value, width=width, top=top),
        output.value,
    )


def proposals(workload_file: Path, as_of: str | None) -> "tuple[list[LifecycleProposal], list[str]]":
    """``recommend --lifecycle``: the cheapest lifecycle policy at each provider the workload considers,
    against today's, and the providers that do not have the classes the data is placed in."""
    from planner.decide.lifecycle_policy import propose_lifecycle
    from planner.pricing import catalog
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    day = parse_date(as_of)
    placed = set(workload.storage.placement or {})
    found, elsewhere = [], []
    with fields_of(workload_file):
        for provider in workload.constraints.providers:
            if not placed <= set(catalog.table_for(provider, day or dt.date.today()).classes):
                elsewhere.append(provider)
                continue
            found.append(propose_lifecycle(workload, provider, as_of=day))
    return found, elsewhere


def print_proposals(ctx: typer.Context, workload_file: Path, as_of: str | None, output: OutputFormat) -> None:
    """``recommend --lifecycle`` in text or Markdown: after the ranking, each provider's proposal."""
    from planner.present.text.lifecycle import lifecycle_proposal

    found, elsewhere = proposals(workload_file, as_of)
    for proposal in found:
        echo(ctx, "\n" + lifecycle_proposal(proposal, output.value, width=settings(ctx).width, top=3), output.value)
    if elsewhere:
        workload = shlex.quote(str(workload_file))
        echo(
            ctx,
            "\n".join(
                [
                    f"\nNot proposed at {', '.join(elsewhere)}: the data is placed in classes they do not have;"
                    " a policy there from their standard class:",
                    *(f"  planner lifecycle {workload} -p {provider} --current standard" for provider in elsewhere),
                ]
            ),
            output.value,
        )


def check_text_output(output: OutputFormat) -> None:
    """``recommend --lifecycle`` prints text, Markdown or JSON: refuse CSV and FOCUS before anything is printed."""
    if output not in (OutputFormat.table, OutputFormat.markdown, OutputFormat.json):
        raise InputError(
            f"prints proposals, not {output.value} rows: give --format table, markdown or json",
            source="--lifecycle",
        )
