"""``planner ingest``: workload files from billing exports, S3 Inventories and access logs."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner.cli.common import (
    FormatOption,
    OutputFormat,
    TextFormatOption,
    check_csv_name,
    read_json,
    refuse_overwrite,
    rows_only,
)
from planner.cli.settings import settings
from planner.errors import InputError

if TYPE_CHECKING:
    from planner.ingest.accesslog import AccessLog
    from planner.ingest.read_ages import ReadAges

app = typer.Typer(help="Workloads from your own data: billing exports.", no_args_is_help=True)


@app.command("cur")
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
    from planner.writing import check_folder, safe_name, write_all_atomically

    check_folder(out)
    for path in files:
        check_input_file(path, what="billing export")
    skus: dict[str, tuple[str, str]] = {}
    for path in offer or []:
        skus.update(ingest.sku_usage_types(read_json(path, "offer file"), str(path)))
    if not reconcile and output != OutputFormat.json:
        # any number of buckets: the bill in parts of at most MAX_GROUPS usage groups, each part's
        # workloads written as it is read (all files or none, as below)
        _ingest_cur_in_parts(ctx, files, out, bucket, region, skus, force)
        return
    with progress.bar("reading the bill", unit="rows", quiet=settings(ctx).quiet) as moved:
        bill = ingest.read_bill(files, bucket=bucket, region=region, progress=moved, skus=skus)
    if not bill.groups:
        raise InputError("no Amazon S3 usage rows" + (" for that bucket/region" if bucket or region else ""))
    produced = ingest.workloads(bill)
    targets = [out / safe_name(w.name, "workload file name", "--out") for w in produced]
    refuse_overwrite(targets, force)
    for target, workload in zip(targets, produced, strict=True):
        _check_workload(target, workload.text, f"the workload of {workload.scope}", generated=True)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot write there ({error.strerror or error})", source="--out") from None
    # all or none: no file replaces its target unless every one was written
    write_all_atomically([(t, w.text) for t, w in zip(targets, produced, strict=True)], source="--out")
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


def _ingest_cur_in_parts(
    ctx: typer.Context,
    files: list[Path],
    out: Path,
    bucket: str | None,
    region: str | None,
    skus: dict[str, tuple[str, str]],
    force: bool,
) -> None:
    """``ingest cur``'s table output for a bill of any size: read in parts (``ingest.bill_parts``),
    every part's workloads checked and written to temporary files, which replace their targets only
    once every part is written."""
    from collections.abc import Iterator

    from planner import ingest
    from planner.cli import progress
    from planner.ingest.models import Bill
    from planner.present import text as render
    from planner.units import counted
    from planner.writing import safe_name, write_all_atomically

    written: list[str] = []
    counts = [0]
    last: list[Bill] = []

    def workload_files(parts: Iterator[Bill]) -> Iterator[tuple[Path, str]]:
        for part in parts:
            last[:] = [part]
            counts[0] += len(part.groups)
            produced = ingest.workloads(part)
            targets = [out / safe_name(w.name, "workload file name", "--out") for w in produced]
            refuse_overwrite(targets, force)
            for target, workload in zip(targets, produced, strict=True):
                _check_workload(target, workload.text, f"the workload of {workload.scope}", generated=True)
                if not written:
                    _make_folder(out)
                written.append(str(target))
                yield target, workload.text

    with (
        progress.bar("reading the bill", unit="rows", quiet=settings(ctx).quiet) as moved,
        ingest.bill_parts(files, bucket=bucket, region=region, progress=moved, skus=skus) as parts,
    ):
        # all or none: no file replaces its target unless every part's were written
        write_all_atomically(workload_files(parts), source="--out")
    if not counts[0]:
        raise InputError("no Amazon S3 usage rows" + (" for that bucket/region" if bucket or region else ""))
    lines = render.ingest_summary(last[0], written).split("\n")
    # its first line counts one part's usage groups: the bill's are every part's
    bill = last[0]
    lines[0] = (
        f"read {counted(counts[0], 'S3 usage group')} from {counted(len(bill.files), 'file')} ({bill.format.upper()},"
        f" periods {', '.join(p.isoformat() for p in bill.periods) or 'unknown'});"
        f" {counted(bill.other_rows, 'row')} of other services, taxes and credits skipped"
    )
    typer.echo("\n".join(lines))


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot write there ({error.strerror or error})", source="--out") from None


def _new_or_updated(
    out: Path | None, into: Path | None, name: str, force: bool, section: str, block: str, new_text: Callable[[], str]
) -> tuple[Path, str]:
    """The workload file an ingest writes and its text: a new one in ``out`` named ``name``.yaml, or
    ``into`` with its ``section`` replaced by ``block``."""
    from planner.files import WORKLOAD_LIMIT_BYTES, read_input_text
    from planner.ingest.inventory import replace_section

    if into is not None:
        from planner.files import load_yaml

        text = read_input_text(into, what="workload file", limit_bytes=WORKLOAD_LIMIT_BYTES)
        found = load_yaml(text, str(into))
        if not isinstance(found, dict):  # its sections are replaced by name: a list or a scalar has none
            kind = "a list" if isinstance(found, list) else "empty" if found is None else "one value"
            raise InputError(f"not a workload: its YAML is {kind}, not a mapping of sections", source=str(into))
        return into, replace_section(text, section, block, missing_ok=section == "traffic")
    assert out is not None
    from planner.ingest.workloads import file_names
    from planner.writing import safe_name

    target = out / safe_name(file_names([name])[name], "workload file name", "--out")
    refuse_overwrite([target], force)
    return target, new_text()


def _check_workload(target: Path, text: str, what: str, *, generated: bool = False) -> None:
    """An ingested workload checked to load as a workload before anything is written: a bill or log
    never becomes a file every other command refuses. ``generated``: text planner wrote whole (no
    user's section in it), parsed with libyaml where there is one (a million buckets' files)."""
    from planner.files import load_yaml
    from planner.workload import parse_workload

    try:
        parse_workload(load_yaml(text, str(target), shipped=generated), str(target))
    except InputError as error:
        where = f"{error.field}: " if error.field else ""
        raise InputError(f"{what} cannot be written: {where}{error.problem}", source=str(target)) from None


def _write_workload(target: Path, text: str) -> None:
    """Write an ingested workload, after checking that it loads as a workload."""
    from planner.writing import write_atomically

    _check_workload(target, text, "the workload")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot write {target} ({error.strerror or error})") from None
    write_atomically(target, text, source=None, what=str(target))


@app.command("inventory")
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
    output: TextFormatOption = OutputFormat.table,
) -> None:
    """Read an S3 Inventory into a workload's storage: count, sizes, classes, ages, access tiers."""
    from planner.cli import progress
    from planner.files import check_input_file
    from planner.ingest import inventory as inv
    from planner.ingest.escape import comment_text, yaml_string
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
            f"# Workload of bucket {comment_text(name)} from its S3 Inventory; the inventory says nothing of traffic:\n"
            "# add reads, writes and egress (or ingest the bill and use --into).\n"
            f"name: {yaml_string(comment_text(name))}\n" + inv.storage_block(summary) + 'traffic:\n  egress: "0 B"\n'
        ),
    )
    _write_workload(target, text)
    if output == OutputFormat.json:
        typer.echo(render.as_json({"inventory": summary.model_dump(mode="json"), "written": str(target)}))
        return
    typer.echo(render.inventory_summary(summary, str(target)))


def _read_ages(inventory: list[Path] | None) -> "ReadAges | None":
    """--inventory: each current key's last modified, for the GETs to be aged by (None without one)."""
    if not inventory:
        return None
    import datetime as dt

    from planner.ingest.inventory import read_inventory
    from planner.ingest.read_ages import ReadAges

    modified: dict[str, dt.datetime] = {}
    read_inventory(inventory, modified=modified)
    return ReadAges(modified)


def _access_log_workload(
    summary: "AccessLog", out: Path | None, into: Path | None, force: bool, extra: tuple[str, ...] = ()
) -> tuple[Path, str]:
    """The workload file an access-log ingest writes, and its text (``extra``: lines added to its traffic)."""
    from planner.ingest import accesslog
    from planner.ingest.escape import comment_text, yaml_string

    block = accesslog.traffic_block(summary) + "".join(f"{line}\n" for line in extra)
    name = summary.buckets[0] if len(summary.buckets) == 1 else "access-logs"
    size = max(round(summary.mean_object_bytes or 2**20), 1)
    return _new_or_updated(
        out,
        into,
        name,
        force,
        "traffic",
        block,
        lambda: (
            f"# Workload of {comment_text(name)} from its access logs, which say nothing of what is stored:\n"
            "# give storage.stored (ingest the bill or an inventory and use --into).\n"
            f"name: {yaml_string(comment_text(name))}\n"
            'storage:\n  stored: "0 B"  # ASSUMED\n'
            f"  # mean size of the objects the GETs read{'' if summary.mean_object_bytes else ' (none: ASSUMED)'}\n"
            f'  object_size: "{size} B"\n' + block
        ),
    )


@app.command("access-log")
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
    output: TextFormatOption = OutputFormat.table,
    inventory: Annotated[
        list[Path] | None,
        typer.Option(
            "--inventory",
            help="the bucket's S3 Inventory (its manifest.json): each GET joined to its key's last modified"
            " gives traffic.reads_by_age",
        ),
    ] = None,
) -> None:
    """Read S3 server access logs (or Cloudflare http_requests, R2 Data Access Logs) into a workload's traffic:
    request mix, peak rate, egress, hot keys."""
    from planner.cli import progress
    from planner.ingest import accesslog
    from planner.present import text as render
    from planner.writing import atomic_output

    if (out is None) == (into is None):
        raise InputError("give either --out DIR (a new workload) or --into W.yaml (replace its traffic)")
    from planner.files import check_input_file

    for path in paths:
        if not path.is_dir():  # a FIFO, device or symlink loop is refused before the trace is opened
            check_input_file(path, what="access log")
    if trace is not None:
        check_csv_name(trace, "--trace")
        refuse_overwrite([trace], force, "--trace")
    with contextlib.ExitStack() as stack:
        handle = None
        if trace is not None:
            # the old trace is replaced only once the logs are read and their workload checked
            handle = stack.enter_context(atomic_output(trace, source="--trace", what="it"))
        ages = _read_ages(inventory)
        with progress.bar("reading the logs", unit="requests", quiet=settings(ctx).quiet) as moved:
            summary = accesslog.read_logs(paths, trace=handle, progress=moved, each=ages)
        target, text = _access_log_workload(summary, out, into, force, tuple(ages.lines()) if ages else ())
        _check_workload(target, text, "the workload")
    _write_workload(target, text)
    if output == OutputFormat.json:
        typer.echo(render.as_json({"access_log": summary.model_dump(mode="json"), "written": str(target)}))
        return
    typer.echo(render.access_log_summary(summary, str(target), str(trace) if trace else None))
