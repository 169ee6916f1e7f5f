"""The ``planner`` command: parse, call the library, render. Nothing else lives here.

The app and the commands over price tables, billing exports and workloads; ``measure`` and
``profiles`` are in ``planner.cli.measure``, ``simulate`` and ``trace`` in ``planner.cli.simulate``,
what they all share (formats, options, parsers, errors) in ``planner.cli.common``.

Heavy modules (boto3, simpy, numpy) are imported inside the commands that use them, so
``planner --help`` and the pricing commands answer at interactive speed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated

import typer

from planner.cli import completion
from planner.cli.common import (
    AsOfOption,
    FormatOption,
    OutputFormat,
    PlotOption,
    WorkloadArgument,
    parse_date,
    parse_option,
    refuse_overwrite,
    rows_only,
    run,
)
from planner.cli.measure import app as measure_app
from planner.cli.measure import profiles_app
from planner.cli.settings import Settings, settings
from planner.cli.simulate import simulate_command, trace_command
from planner.errors import InputError

app = typer.Typer(
    help="Choose object storage by measured performance and exact, versioned prices.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
app.add_typer(measure_app, name="measure")
app.add_typer(profiles_app, name="profiles")
app.command("simulate")(simulate_command)
app.command("trace")(trace_command)


@app.callback()
def _options(
    ctx: typer.Context,
    wide: Annotated[
        bool, typer.Option("--wide", help="never wrap tables to the terminal's width (piped output never wraps)")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bars")] = False,
) -> None:
    """Choose object storage by measured performance and exact, versioned prices."""
    ctx.obj = Settings.for_this_terminal(wide=wide, quiet=quiet)


def main() -> None:
    """The ``planner`` console script and ``python -m planner``."""
    run(app)


pricing_app = typer.Typer(help="The versioned price tables: list, show and compare them.", no_args_is_help=True)
app.add_typer(pricing_app, name="pricing")


@pricing_app.command("list")
def pricing_list(ctx: typer.Context, output: FormatOption = OutputFormat.table) -> None:
    """Providers, their storage classes and every price version shipped."""
    from planner.present import text as render
    from planner.pricing import catalog

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
                "regions": "same price everywhere"
                if current.regions is not None and current.regions.same_price_everywhere
                else catalog.regions(provider),
            }
        )
    if output == OutputFormat.json:
        typer.echo(render.as_json({"providers": rows}))
        return
    typer.echo(
        render.table(
            ["provider", "classes", "versions", "in force today", "regions"],
            [
                (
                    r["provider"],
                    ", ".join(r["classes"]),
                    ", ".join(r["versions"]),
                    r["in_force"],
                    r["regions"] if isinstance(r["regions"], str) else ", ".join(r["regions"]),
                )
                for r in rows
            ],
            output.value,
            width=settings(ctx).width,
        )
    )


@pricing_app.command("show")
def pricing_show(
    ctx: typer.Context,
    provider: Annotated[str, typer.Argument(help="provider id, e.g. aws-s3", autocompletion=completion.provider)],
    storage_class: Annotated[
        str | None, typer.Option("--class", help="only this storage class", autocompletion=completion.storage_class)
    ] = None,
    as_of: AsOfOption = None,
    overrides: Annotated[
        Path | None, typer.Option("--prices", help="a price override file layered over the shipped version")
    ] = None,
    region: Annotated[str | None, typer.Option("--region", help="region, e.g. eu-central-1")] = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """One provider's prices in force on a date, with units, tiers, minimums and sources."""
    rows_only(output, "pricing show")
    from planner.present import text as render

    day = parse_date(as_of)
    from planner.costing.bills import price_table

    table = price_table(provider, day or dt.date.today(), overrides, region)
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
    typer.echo(render.price_table(table, output.value, storage_class, width=settings(ctx).width))


OFFER_LIMIT_BYTES = 1024 * 2**20
"""An offer file: AmazonS3 for every region is tens of MiB, AWSDataTransfer a few hundred."""


def _read_json(path: Path, what: str) -> object:
    import json

    from planner.files import read_input_text

    text = read_input_text(path, what=what, limit_bytes=OFFER_LIMIT_BYTES)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON: {error.msg} at line {error.lineno}", source=str(path)) from None


@pricing_app.command("import")
def pricing_import(
    price_list: Annotated[str, typer.Argument(help="whose price list: aws")],
    offer: Annotated[Path, typer.Argument(help="the AmazonS3 offer file (JSON), all regions or one")],
    out: Annotated[Path, typer.Option("--out", help="the tables folder to write into, e.g. pricing/tables")],
    transfer: Annotated[
        Path | None, typer.Option("--transfer", help="the AWSDataTransfer offer file (JSON), for internet egress")
    ] = None,
    regions: Annotated[list[str] | None, typer.Option("--region", help="only this region (repeatable)")] = None,
    force: Annotated[bool, typer.Option("--force", help="replace tables that already exist")] = False,
) -> None:
    """Dated price tables for every region of an AWS Price List offer file, each price citing its SKU."""
    from planner.pricing.aws_offer import import_offer

    if price_list != "aws":
        raise InputError(f"{price_list!r}: only AWS's price list can be imported (use: aws)", source="PRICE_LIST")
    offer_data = _read_json(offer, "AWS offer file")
    transfer_data = _read_json(transfer, "AWS offer file") if transfer is not None else None
    result = import_offer(
        offer_data, str(offer), transfer_data, str(transfer) if transfer else None, regions=regions or None
    )
    targets = [(out / table.path, table) for table in result.tables]
    refuse_overwrite((path for path, _ in targets), force)
    for path, table in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(table.text, encoding="utf-8")
        typer.echo(f"wrote {path} ({table.region}, in force from {table.effective_from})")
        if table.dropped_classes:
            typer.echo(f"  classes the offer does not price, left out: {', '.join(table.dropped_classes)}")
        if table.from_defaults:
            typer.echo(f"  not in the offer, the default table's (unverified): {', '.join(table.from_defaults)}")
    typer.echo(f"{result.skipped_usage_types} usage types this planner does not price were skipped")


@pricing_app.command("diff")
def pricing_diff(
    ctx: typer.Context,
    provider: Annotated[str, typer.Argument(help="provider id")],
    first: Annotated[str, typer.Argument(help="the earlier date (YYYY-MM-DD)")],
    second: Annotated[str, typer.Argument(help="the later date (YYYY-MM-DD)")],
    output: FormatOption = OutputFormat.table,
) -> None:
    """What changed in a provider's prices between the versions in force on two dates."""
    from planner.present import text as render
    from planner.pricing import catalog
    from planner.pricing.changes import diff_tables

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
            ["field", "before", "after"],
            [(c["field"], c["before"], c["after"]) for c in changes],
            output.value,
            width=settings(ctx).width,
        )
    )


def parse_prices(values: list[str] | None) -> dict[str, Path]:
    """--prices PROVIDER=FILE (repeatable) into a mapping."""
    prices: dict[str, Path] = {}
    for value in values or []:
        provider, sep, path = value.partition("=")
        if not sep or not provider or not path:
            raise InputError(f"{value!r}: use PROVIDER=FILE, e.g. aws-s3=edp.yaml", source="--prices")
        prices[provider] = Path(path)
    return prices


ingest_app = typer.Typer(help="Workloads from your own data: billing exports.", no_args_is_help=True)
app.add_typer(ingest_app, name="ingest")


@ingest_app.command("cur")
def ingest_cur(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="AWS Cost and Usage Reports (CSV, .csv.gz, Parquet) or FOCUS 1.x CSV exports")
    ],
    out: Annotated[Path, typer.Option("--out", help="folder for the workload files (one per region or bucket)")],
    bucket: Annotated[
        str | None, typer.Option("--bucket", help="only this bucket's rows (exports with resource ids)")
    ] = None,
    region: Annotated[str | None, typer.Option("--region", help="only this region's rows, e.g. us-west-2")] = None,
    reconcile: Annotated[
        bool, typer.Option("--reconcile", help="also price every S3 line with planner's tables beside the bill's")
    ] = False,
    offer: Annotated[
        list[Path] | None,
        typer.Option(
            "--offer",
            help="an AWS Price List offer file (AmazonS3, AWSDataTransfer JSON) to decode FOCUS rows' SkuId"
            " when the export has no x_UsageType column (repeatable)",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="replace workload files that already exist")] = False,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Read billing exports into workload files, each figure with the rows it came from."""
    if output == OutputFormat.csv and not reconcile:
        rows_only(output, "ingest cur without --reconcile")
    from planner import ingest
    from planner.cli import progress
    from planner.files import check_input_file
    from planner.present import text as render

    for path in files:
        check_input_file(path, what="billing export")
    skus: dict[str, tuple[str, str]] = {}
    for path in offer or []:
        skus.update(ingest.sku_usage_types(_read_json(path, "offer file"), str(path)))
    with progress.bar("reading the bill", unit="rows", quiet=settings(ctx).quiet) as moved:
        bill = ingest.read_bill(files, bucket=bucket, region=region, progress=moved, skus=skus)
    if not bill.groups:
        raise InputError("no Amazon S3 usage rows" + (" for that bucket/region" if bucket or region else ""))
    produced = ingest.workloads(bill)
    targets = [out / w.name for w in produced]
    refuse_overwrite(targets, force)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for target, workload in zip(targets, produced, strict=True):
            target.write_text(workload.text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write there ({error.strerror or error})", source="--out") from None
    result = ingest.reconcile(bill) if reconcile else None
    if output == OutputFormat.json:
        payload: dict[str, object] = {
            "bill": bill.model_dump(mode="json"),
            "written": [str(t) for t in targets],
        }
        if result is not None:
            payload["reconciliation"] = result.model_dump(mode="json")
        typer.echo(render.as_json(payload))
        return
    if output == OutputFormat.csv and result is not None:
        typer.echo(render.reconciliation(result, "csv"))
        return
    typer.echo(render.ingest_summary(bill, [str(t) for t in targets]))
    if result is not None:
        typer.echo("")
        typer.echo(render.reconciliation(result, output.value, width=settings(ctx).width))


def _new_or_updated(
    out: Path | None, into: Path | None, name: str, force: bool, section: str, block: str, new_text: Callable[[], str]
) -> tuple[Path, str]:
    """The workload file an ingest writes and its text: a new one in ``out`` named ``name``.yaml, or
    ``into`` with its ``section`` replaced by ``block``."""
    from planner.files import WORKLOAD_LIMIT_BYTES, read_input_text
    from planner.ingest.inventory import replace_section

    if into is not None:
        text = read_input_text(into, what="workload file", limit_bytes=WORKLOAD_LIMIT_BYTES)
        return into, replace_section(text, section, block, missing_ok=section == "traffic")
    assert out is not None
    target = out / f"{name.replace('/', '-')}.yaml"
    refuse_overwrite([target], force)
    return target, new_text()


def _write_workload(target: Path, text: str) -> None:
    """Write an ingested workload, after checking that it loads as a workload."""
    from planner.files import load_yaml
    from planner.workload import parse_workload

    parse_workload(load_yaml(text, str(target)), str(target))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write {target} ({error.strerror or error})") from None


@ingest_app.command("inventory")
def ingest_inventory(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="an S3 Inventory manifest.json, or its data files (CSV, .csv.gz, Parquet, ORC)")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="folder for a new workload file named after the bucket")
    ] = None,
    into: Annotated[
        Path | None, typer.Option("--into", help="replace the storage: section of this workload (e.g. from ingest cur)")
    ] = None,
    schema: Annotated[
        str | None, typer.Option("--schema", help="a headerless CSV's columns: the manifest's fileSchema")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="replace a workload file that already exists")] = False,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Read an S3 Inventory into a workload's storage: count, sizes, classes, ages, access tiers."""
    rows_only(output, "ingest inventory")
    from planner.cli import progress
    from planner.files import check_input_file
    from planner.ingest import inventory as inv
    from planner.present import text as render

    if (out is None) == (into is None):
        raise InputError("give either --out DIR (a new workload) or --into W.yaml (replace its storage)")
    for path in files:
        check_input_file(path, what="inventory file")
    with progress.bar("reading the inventory", unit="objects", quiet=settings(ctx).quiet) as moved:
        summary = inv.read_inventory(files, schema=schema, progress=moved)
    name = summary.bucket or "inventory"
    target, text = _new_or_updated(
        out,
        into,
        name,
        force,
        "storage",
        inv.storage_block(summary),
        lambda: (
            f"# Workload of bucket {name} from its S3 Inventory; the inventory says nothing of traffic:\n"
            "# add reads, writes and egress (or ingest the bill and use --into).\n"
            f'name: "{name}"\n' + inv.storage_block(summary) + 'traffic:\n  egress: "0 B"\n'
        ),
    )
    _write_workload(target, text)
    if output == OutputFormat.json:
        typer.echo(render.as_json({"inventory": summary.model_dump(mode="json"), "written": str(target)}))
        return
    typer.echo(render.inventory_summary(summary, str(target)))


@ingest_app.command("access-log")
def ingest_access_log(
    ctx: typer.Context,
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="S3 server access logs, Cloudflare Logpush http_requests or R2 Data Access Logs as JSON lines"
            " (or .gz), or folders of them"
        ),
    ],
    out: Annotated[
        Path | None, typer.Option("--out", help="folder for a new workload file named after the bucket")
    ] = None,
    into: Annotated[
        Path | None, typer.Option("--into", help="replace the traffic: section of this workload (e.g. from ingest cur)")
    ] = None,
    trace: Annotated[
        Path | None, typer.Option("--trace", help="also write every request to this CSV trace, for replay")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="replace files that already exist")] = False,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Read S3 server access logs (or Cloudflare http_requests, R2 Data Access Logs) into a workload's traffic:
    request mix, peak rate, egress, hot keys."""
    rows_only(output, "ingest access-log")

    from planner.cli import progress
    from planner.ingest import accesslog
    from planner.present import text as render

    if (out is None) == (into is None):
        raise InputError("give either --out DIR (a new workload) or --into W.yaml (replace its traffic)")
    for path in paths:
        if not path.exists():
            raise InputError("file not found", source=str(path))
    if trace is not None:
        refuse_overwrite([trace], force, "--trace")
    with contextlib.ExitStack() as stack:
        handle = None
        if trace is not None:
            try:
                handle = stack.enter_context(trace.open("w", encoding="utf-8", newline=""))
            except OSError as error:
                raise InputError(f"cannot write it ({error.strerror or error})", source="--trace") from None
        with progress.bar("reading the logs", unit="requests", quiet=settings(ctx).quiet) as moved:
            summary = accesslog.read_logs(paths, trace=handle, progress=moved)
    block = accesslog.traffic_block(summary)
    name = summary.buckets[0] if len(summary.buckets) == 1 else "access-logs"
    size = max(round(summary.mean_object_bytes or 2**20), 1)
    target, text = _new_or_updated(
        out,
        into,
        name,
        force,
        "traffic",
        block,
        lambda: (
            f"# Workload of {name} from its access logs, which say nothing of what is stored:\n"
            "# give storage.stored (ingest the bill or an inventory and use --into).\n"
            f'name: "{name}"\nstorage:\n  stored: "0 B"  # ASSUMED\n'
            f"  # mean size of the objects the GETs read{'' if summary.mean_object_bytes else ' (none: ASSUMED)'}\n"
            f'  object_size: "{size} B"\n' + block
        ),
    )
    _write_workload(target, text)
    if output == OutputFormat.json:
        typer.echo(render.as_json({"access_log": summary.model_dump(mode="json"), "written": str(target)}))
        return
    typer.echo(render.access_log_summary(summary, str(target), str(trace) if trace else None))


@contextlib.contextmanager
def _fields_of(workload_file: Path) -> Iterator[None]:
    """An error about a workload's field (from the library, which has no file name) names the file."""
    try:
        yield
    except InputError as error:
        if error.source is None and error.field is not None:
            raise InputError(error.problem, source=str(workload_file), field=error.field) from None
        raise


@app.command("cost")
def cost_command(
    ctx: typer.Context,
    workload_file: WorkloadArgument,
    provider: Annotated[
        str, typer.Option("--provider", "-p", help="provider id, e.g. aws-s3", autocompletion=completion.provider)
    ],
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
    output: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
) -> None:
    """One month's bill for a workload at one provider, or a projection over N months."""
    from planner.costing.bills import estimate_cost, project_costs
    from planner.present import text as render
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    allowed = workload.constraints.storage_classes
    if storage_class is None and workload.storage.placement is None:
        storage_class = "standard"
    if allowed and storage_class is not None and storage_class not in allowed:
        raise InputError(
            f"allows only {', '.join(allowed)}, not --class {storage_class}",
            source=str(workload_file),
            field="constraints.storage_classes",
        )
    day = parse_date(as_of)
    if months:
        with _fields_of(workload_file):
            result = project_costs(
                workload, provider, storage_class, months=months, as_of=day, prices=prices, region=region
            )
        if plot is not None:
            from planner.present.plots import save_projection_plot

            save_projection_plot(result, plot)
        typer.echo(
            render.as_json(result)
            if output == OutputFormat.json
            else render.projection(result, output.value, width=settings(ctx).width)
        )
        return
    if plot is not None:
        raise InputError("a plot needs a projection: add --months N", source="--plot")
    with _fields_of(workload_file):
        bill = estimate_cost(workload, provider, storage_class, as_of=day, prices=prices, region=region)
    typer.echo(
        render.as_json(bill)
        if output == OutputFormat.json
        else render.breakdown(bill, output.value, width=settings(ctx).width)
    )


DaskOption = Annotated[
    str | None,
    typer.Option(
        "--dask",
        metavar="SCHEDULER",
        help="price in chunks on the Dask distributed cluster at this scheduler address, e.g. tcp://10.0.0.5:8786"
        " (needs planner[dask]; the same answer as here)",
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
) -> None:
    """Every allowed option's monthly bill over a grid of one or two workload fields, and the cheapest at each point."""
    from planner.cli import progress
    from planner.decide.sweep import parse_axis, sweep
    from planner.present import text as render
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    axes = [parse_axis(workload, text) for text in vary]
    points = 1
    for axis in axes:
        points *= len(axis.values)
    with progress.bar("pricing the grid", total=points, unit="points", quiet=settings(ctx).quiet) as moved:
        result = sweep(workload, axes, as_of=parse_date(as_of), progress=moved, scheduler=dask)
    if plot is not None:
        from planner.present.plots import save_sweep_plot

        save_sweep_plot(result, plot)
    typer.echo(
        render.as_json(result)
        if output == OutputFormat.json
        else render.sweep(result, output.value, width=settings(ctx).width)
    )


@app.command("recommend")
def recommend_command(
    ctx: typer.Context,
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
    samples: Annotated[
        int | None,
        typer.Option(
            "--samples", min=10, max=100_000, help="also price N outcomes of the inputs given as ranges (seeded)"
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**63 - 1, help="random seed for --samples")] = 0,
    output: FormatOption = OutputFormat.table,
    plot: PlotOption = None,
    dask: DaskOption = None,
    tornado_plot: Annotated[
        Path | None,
        typer.Option(
            "--tornado-plot",
            help="with --samples: draw how each uncertain input moves the favourite's bill (FILE.svg or .png)",
        ),
    ] = None,
) -> None:
    """Rank every allowed provider and storage class for a workload, and explain the choice."""
    from planner.decide.recommendation import recommend
    from planner.present import text as render
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    if dask is not None and samples is None:
        raise InputError("prices the outcomes of --samples on a cluster: add --samples N", source="--dask")
    if tornado_plot is not None and samples is None:
        raise InputError("draws the outcomes of --samples: add --samples N", source="--tornado-plot")
    if samples is not None and prices:
        raise InputError("--samples prices the shipped tables only; leave out --prices", source="--samples")
    if profiles is not None and not profiles.is_dir():
        raise InputError("not a folder of profiles", source=str(profiles))
    from planner.units import parse_duration

    window_s = parse_option(parse_duration, sim_window, "--sim-window")
    if window_s <= 0 or window_s > 3600:
        raise InputError(f"{sim_window!r}: use a window between 1s and 1h", source="--sim-window")
    from planner.cli import progress

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
        )
    if plot is not None:
        from planner.present.plots import save_recommendation_plot

        save_recommendation_plot(result, plot)
    answer = None
    if samples is not None:
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
            )
        if tornado_plot is not None:
            from planner.present.plots import save_tornado_plot

            save_tornado_plot(answer, tornado_plot)
    if output == OutputFormat.json:
        payload = result.model_dump(mode="json")
        if answer is not None:
            payload["uncertainty"] = answer.model_dump(mode="json")
        typer.echo(render.as_json(payload))
    else:
        typer.echo(render.recommendation(result, output.value, width=settings(ctx).width))
        if workload.uncertain and output != OutputFormat.csv:
            typer.echo(render.uncertain_note(workload.uncertain, answer, width=settings(ctx).width))
        if answer is not None:
            typer.echo(render.uncertain_answer(answer, output.value, width=settings(ctx).width))
    if result.recommendation is None:
        raise typer.Exit(1)


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
) -> None:
    """One self-contained document: the recommendation, reasons, tables, plots, prices and sources."""
    from planner.cli import progress
    from planner.present.report import write_report
    from planner.workload import load_workload

    workload = load_workload(workload_file)
    with progress.bar(
        "simulating each provider", total=len(workload.constraints.providers), quiet=settings(ctx).quiet
    ) as moved:
        written = write_report(
            workload, out, as_of=parse_date(as_of), profiles_dir=profiles, simulate=simulate, progress=moved
        )
    typer.echo(f"wrote {written}")


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
    storage_class: Annotated[str, typer.Option("--class", help="storage class with --provider")] = "standard",
    as_of: AsOfOption = None,
    simulate: Annotated[
        bool, typer.Option("--simulate/--no-simulate", help="simulate when recommending each side (default)")
    ] = True,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Two scenarios side by side: the cost difference per line item."""
    rows_only(output, "diff")
    from planner.decide.scenarios import diff_scenarios
    from planner.present import text as render
    from planner.present.scenarios import render_diff
    from planner.workload import load_workload

    result = diff_scenarios(
        load_workload(first),
        load_workload(second),
        provider=provider,
        storage_class=storage_class,
        as_of=parse_date(as_of),
        simulate=simulate,
    )
    typer.echo(
        render.as_json(result)
        if output == OutputFormat.json
        else render_diff(result, output.value, width=settings(ctx).width)
    )
