"""``planner pricing``: list, show, import, compare and audit the versioned price tables."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

import datetime as dt
from pathlib import Path
from typing import Annotated, Any

import typer

from planner.cli import completion
from planner.cli.common import (
    AsOfOption,
    FormatOption,
    OutputFormat,
    TextFormatOption,
    parse_date,
    read_json,
    refuse_overwrite,
)
from planner.cli.settings import echo, settings
from planner.errors import InputError

app = typer.Typer(help="The versioned price tables: list, show, compare and audit them.", no_args_is_help=True)


@app.command("list")
def pricing_list(ctx: typer.Context, output: FormatOption = OutputFormat.table) -> None:
    """Providers, their storage classes and every price version shipped."""
    from planner.present import text as render
    from planner.pricing import catalog

    today = dt.date.today()
    rows: list[dict[str, Any]] = []
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
                "status": current.status.value,
                "currency": current.currency,
                "compared_by_default": current.compared_by_default,
            }
        )
    if output == OutputFormat.json:
        typer.echo(render.as_json({"providers": rows}))
        return
    echo(
        ctx,
        render.table(
            ["provider", "classes", "versions", "in force today", "regions", "sourcing", "compared"],
            [
                (
                    r["provider"],
                    ", ".join(r["classes"]),
                    ", ".join(r["versions"]),
                    r["in_force"],
                    r["regions"] if isinstance(r["regions"], str) else ", ".join(r["regions"]),
                    r["status"] + ("" if r["currency"] == "USD" else f", prices in {r['currency']}"),
                    "by default" if r["compared_by_default"] else "when named",
                )
                for r in rows
            ],
            output.value,
            width=settings(ctx).width,
        ),
        output.value,
    )


@app.command("show")
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
    output: TextFormatOption = OutputFormat.table,
) -> None:
    """One provider's prices in force on a date, with units, tiers, minimums and sources."""
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
    echo(ctx, render.price_table(table, output.value, storage_class, width=settings(ctx).width), output.value)


@app.command("import")
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
    from planner.writing import check_folder, inside, write_all_atomically

    if price_list != "aws":
        raise InputError(f"{price_list!r}: only AWS's price list can be imported (use: aws)", source="PRICE_LIST")
    check_folder(out)
    offer_data = read_json(offer, "AWS offer file")
    transfer_data = read_json(transfer, "AWS offer file") if transfer is not None else None
    result = import_offer(
        offer_data, str(offer), transfer_data, str(transfer) if transfer else None, regions=regions or None
    )
    targets = [(out / table.path, table) for table in result.tables]
    for path, _ in targets:
        inside(out, path, "table", "--out")
    refuse_overwrite((path for path, _ in targets), force)
    for path, _ in targets:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"cannot make {path.parent} ({error.strerror or error})", source="--out") from None
    # all or none: no table replaces its file unless every one was written
    write_all_atomically([(path, table.text) for path, table in targets], source="--out")
    for path, table in targets:
        typer.echo(f"wrote {path} ({table.region}, in force from {table.effective_from})")
        if table.dropped_classes:
            typer.echo(f"  classes the offer does not price, left out: {', '.join(table.dropped_classes)}")
        if table.from_defaults:
            typer.echo(f"  not in the offer, the default table's (unverified): {', '.join(table.from_defaults)}")
    typer.echo(f"{result.skipped_usage_types} usage types this planner does not price were skipped")


@app.command("diff")
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

    earlier, later = parse_date(first, "FIRST"), parse_date(second, "SECOND")
    if earlier is not None and later is not None and later < earlier:  # "before" and "after" would read backwards
        raise InputError(f"{second} is before FIRST ({first}): give the earlier date first", source="SECOND")
    old = catalog.table_for(provider, earlier)
    new = catalog.table_for(provider, later)
    changes = diff_tables(old, new)
    if output == OutputFormat.json:
        typer.echo(render.as_json({"from": old.version, "to": new.version, "changes": changes}))
        return
    typer.echo(f"{old.version} -> {new.version}")
    if not changes:
        typer.echo("no changes")
        return
    echo(
        ctx,
        render.table(
            ["field", "before", "after"],
            [(c["field"], c["before"], c["after"]) for c in changes],
            output.value,
            width=settings(ctx).width,
        ),
        output.value,
    )


@app.command("audit")
def pricing_audit(
    ctx: typer.Context,
    provider: Annotated[
        str | None, typer.Argument(help="a provider id, a CDN id or routes (default: every table)")
    ] = None,
    older_than: Annotated[
        str | None,
        typer.Option(
            "--older-than",
            help="only readings older than this (30d, 6m, 12m, 1y) and the prices with no quote, whose age is unknown",
        ),
    ] = None,
    output: FormatOption = OutputFormat.table,
) -> None:
    """Every price in force today with its quote, address, day read, sourcing and age; a summary line."""
    from planner.present.text.pricing import audit, audit_json
    from planner.pricing import audit as auditing

    today = dt.date.today()
    days = auditing.age_days(older_than, today) if older_than is not None else None
    rows = auditing.audit(provider, days, today)
    found = auditing.summary(rows)
    if output == OutputFormat.json:
        typer.echo(audit_json(rows, found))
        return
    echo(ctx, audit(rows, found, output.value, width=settings(ctx).width), output.value)
