"""``planner measure``: benchmark an endpoint, clean up, merge (``planner profiles`` is in ``planner.cli.profiles``).

boto3, the measurement engine and the plots are imported inside the commands, so ``planner --help``
stays fast. Every user error is a ``PlannerError`` (one line, exit 2).
"""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

import dataclasses
import glob
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from planner.cli.common import check_profiles, refuse_overwrite
from planner.cli.measure_options import build_options
from planner.cli.profiles import fmt_figure as _fmt
from planner.cli.profiles import profiles_app as profiles_app  # also planner measure profiles; tests import it here
from planner.cli.settings import settings
from planner.errors import InputError, MeasureError
from planner.units import format_wall_time

if TYPE_CHECKING:
    from planner.decide.measure_for import MeasurementFor
    from planner.measure.profile import Cell, Profile
    from planner.measure.run.options import MeasureOptions

app = typer.Typer(
    help="Benchmark an S3-compatible endpoint and write a measurement profile.",
    no_args_is_help=False,
    add_completion=False,
)


class AddressingChoice(StrEnum):
    auto = "auto"
    path = "path"
    virtual = "virtual"


def cell_line(cell: "Cell") -> str:
    from planner.units import format_bytes

    size = "-" if cell.object_size_bytes is None else format_bytes(cell.object_size_bytes, binary=True)
    errors = sum(cell.errors.values())
    flags = f"  [{', '.join(cell.flags)}]" if cell.flags else ""
    attempts = f" attempts={cell.requests.attempts}" if cell.requests else ""
    loop = f" open {cell.offered_per_s:.3g}/s late={cell.late_arrivals}" if cell.mode == "open" else ""
    in_flight = f" in-flight {cell.in_flight_mean:.1f}" if cell.in_flight_mean is not None else ""
    return (
        f"{cell.op:6} {size:>10} x{cell.concurrency:<4}{loop} {_fmt(cell.throughput_mib_per_s):>9} MiB/s"
        f" {_fmt(cell.ops_per_s):>9} ops/s  p50 {_fmt(cell.latency_s.p50, 1, 1000)} ms"
        f"  p99 {_fmt(cell.latency_s.p99, 1, 1000)} ms  ttfb p50 {_fmt(cell.ttfb_s.p50, 1, 1000)} ms"
        f"  n={cell.samples} err={errors} retries={cell.retries}{attempts}{in_flight}{flags}"
        + (f"  MISSING: {cell.note}" if cell.status == "missing" else "")
    )


def _rich_reporter(quiet: bool = False) -> Any:
    """Cell lines and notes on stderr (none with ``quiet``); a progress bar with the time left only
    when stderr is a terminal."""
    from planner.measure.run.options import Reporter

    class RichReporter(Reporter):
        def __init__(self) -> None:
            from rich.console import Console

            self.console = Console(stderr=True, highlight=False, quiet=quiet)
            self._bar: Any = None
            self._task: Any = None
            self._label = ""

        def _progress(self) -> Any:
            if self._bar is None and self.console.is_terminal and not quiet:
                from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

                self._bar = Progress(
                    TextColumn("{task.description}"),
                    BarColumn(),
                    TimeElapsedColumn(),
                    TextColumn("{task.fields[left]}"),
                    console=self.console,
                    transient=True,
                )
                self._task = self._bar.add_task("", total=1.0, left="")
                self._bar.start()
            return self._bar

        def info(self, message: str) -> None:
            self.console.print(message, markup=False)

        def step(self, label: str, index: int, total: int) -> None:
            self._label = f"[{index}/{total}] {label}"
            bar = self._progress()
            if bar is not None:
                bar.update(self._task, description=self._label)

        def progress(self, elapsed_s: float, remaining_s: float) -> None:
            bar = self._progress()
            if bar is not None:
                left = f"~{format_wall_time(remaining_s)} left" if remaining_s > 0 else ""
                bar.update(self._task, total=elapsed_s + remaining_s, completed=elapsed_s, left=left)

        def cell(self, cell: "Cell") -> None:
            self.console.print(cell_line(cell), markup=False)

        def done(self) -> None:
            if self._bar is not None:
                self._bar.stop()
                self._bar = None

    return RichReporter()


def _pricing_provider(options: "MeasureOptions") -> tuple[str | None, str]:
    """The price table's provider for this endpoint, or None and why it cannot be priced."""
    from planner.pricing.catalog import providers

    if options.provider is not None:
        if options.provider in providers():
            return options.provider, ""
        return None, f"no price table for provider {options.provider!r} (tables: {', '.join(providers())})"
    if options.endpoint is None:
        return "aws-s3", ""
    return None, f"the endpoint's provider is unknown; give --provider ({', '.join(providers())})"


def measurement_bill_lines(options: "MeasureOptions", estimate: Any) -> list[str]:
    """The provider's request, egress and early-deletion bill for the measurement itself, line by line."""
    from decimal import Decimal

    from planner.errors import PricingError
    from planner.pricing.billing import estimate as price
    from planner.pricing.usage import Deletion, Usage
    from planner.units import format_bytes

    provider, why = _pricing_provider(options)
    if provider is None:
        return [f"cost of the measurement: cannot be priced: {why}"]
    requests = estimate.requests
    usage = Usage(
        requests=requests,
        egress_bytes=estimate.downloaded_bytes,
        deletions=[Deletion(bytes=estimate.uploaded_bytes, objects=requests.get("put", 0), age_days=0)],
    )
    try:
        bill = price(provider, "standard", usage)
    except PricingError as error:
        return [f"cost of the measurement: cannot be priced: {error}"]
    lines = [
        f"cost of the measurement itself ({bill.table_version}, class standard; a month with no other use of the"
        " account, so free allowances apply in full; the objects live minutes but classes with a minimum"
        " storage duration bill it on deletion):"
    ]
    total = Decimal(0)
    for item in bill.line_items:
        if item.category == "minimum":  # owed by the account with or without the measurement
            lines.append(f"  (not counted: {item.description}, ${item.amount_usd}: owed with or without it)")
            continue
        total += item.amount_usd
        lines.append(f"  {item.description}: {item.quantity} {item.unit} x ${item.unit_price_usd} = ${item.amount_usd}")
    lines.append(f"  total ${total} (estimate: requests and bytes rest on the rates above)")
    lines.append(
        f"  bytes moved: {format_bytes(estimate.uploaded_bytes)} up, {format_bytes(estimate.downloaded_bytes)} down"
    )
    return lines


def dry_run_lines(
    options: "MeasureOptions", dropped: list[str], estimate: Any, prefix: str, *, bucket_given: bool = True
) -> list[str]:
    """What ``--dry-run`` prints: the plan, its estimated time, requests, bytes and bill."""
    from planner.measure.plan import BUDGET_MARGIN_S
    from planner.measure.s3client import sanitize_endpoint

    shown = sanitize_endpoint(options.endpoint) if options.endpoint else "(AWS default)"
    cells = [s for s in estimate.steps if not s.label.startswith(("probe ", "preparing "))]
    bucket = (
        options.bucket if bucket_given else "(none given: the run needs --bucket, a scratch bucket it may write to)"
    )
    lines = [f"dry run: would measure endpoint {shown} bucket {bucket} prefix {prefix}"]
    if options.budget_s is not None:
        lines.append(
            f"budget {format_wall_time(options.budget_s)}: the plan is fitted into it (a run overruns it by at most"
            f" {BUDGET_MARGIN_S:g} s: a started step finishes, then cleanup)"
        )
        lines += [f"  to fit: {item}" for item in dropped] or ["  nothing left out"]
    lines.append(
        f"{len(cells)} cells of {options.duration_s:.3g} s (+{options.warmup_s:.3g} s warm-up), probes:"
        f" {', '.join(options.probes) or 'none'}; output {options.out}"
        + ("" if options.out.parent.exists() else f" (its folder {options.out.parent} is made when the run starts)")
    )
    lines.append(f"estimated duration: ~{format_wall_time(estimate.seconds)} (untimed writes included)")
    for step in estimate.steps:
        lines.append(f"  {step.label:<40} ~{format_wall_time(step.seconds)}")
    counted = ", ".join(f"{op} {count:,}" for op, count in sorted(estimate.requests.items()))
    lines.append(f"requests (estimate): {counted}")
    lines.append(f"rates used for the estimate: {estimate.rate_model}")
    lines += measurement_bill_lines(options, estimate)
    lines.append("nothing was sent to the endpoint")
    return lines


def _fitted(options: "MeasureOptions") -> tuple["MeasureOptions", list[str], Any]:
    """The options as the run will carry them out (fitted to ``--budget`` if given), what the budget
    left out, and the plan's estimate."""
    from planner.measure import plan

    if options.budget_s is None:
        return options, [], plan.estimate(options)
    try:
        return plan.fit_budget(options, options.budget_s)
    except ValueError as error:
        raise InputError(str(error), source="--budget") from None


def _print_dry_run(options: "MeasureOptions", *, bucket_given: bool = True, width: int | None = None) -> None:
    """``--dry-run``: the plan (fitted to ``--budget`` if given), its time, requests, bytes and bill."""
    from planner.measure.journal import run_prefix
    from planner.measure.run.options import new_run_id

    options, dropped, estimate = _fitted(options)
    from planner.present.text.fit import fit_text

    prefix = run_prefix(options.run_id or new_run_id())
    for line in dry_run_lines(options, dropped, estimate, prefix, bucket_given=bucket_given):
        typer.echo(fit_text(line, width))


def plan_summary_line(options: "MeasureOptions", estimate: Any) -> str:
    """Before a run: its cells, estimated time and the bill's total for the measurement itself."""
    cells = [s for s in estimate.steps if not s.label.startswith(("probe ", "preparing "))]
    bill = measurement_bill_lines(options, estimate)
    total = next((line.split()[1] for line in bill if line.strip().startswith("total $")), None)
    costed = f"about {total} in requests, egress and deletions (estimate)" if total is not None else bill[0]
    probes = ", ".join(options.probes) or "none"
    return (
        f"plan: {len(cells)} cells and probes: {probes}, ~{format_wall_time(estimate.seconds)}"
        + (f" (fitted to the {format_wall_time(options.budget_s)} budget)" if options.budget_s is not None else "")
        + f"; {costed}; --dry-run lists the cells and the bill"
    )


def _report_run(profile: "Profile", options: "MeasureOptions", reporter: Any) -> None:
    """The end of a run: why it stopped (exit 130), its overrun, what the server did not support."""
    assert profile.run is not None
    if profile.run.stopped_reason:
        reporter.info(f"stopped: {profile.run.stopped_reason}; {len(profile.cells)} cells in {options.out}")
        raise typer.Exit(130)
    run = profile.run
    if run.budget_s is not None and run.elapsed_s is not None and run.elapsed_s > run.budget_s:
        reporter.info(f"the run took {run.elapsed_s:.0f} s, {run.elapsed_s - run.budget_s:.0f} s over its budget")
    if run.unsupported:
        reporter.info(f"not supported by the server: {', '.join(sorted({u.operation for u in run.unsupported}))}")
    reporter.info(f"wrote {options.out} ({len(profile.cells)} cells)")


def _check_outputs(options: "MeasureOptions", *, dry_run: bool, dask: str | None, force: bool) -> None:
    """Before anything is sent: the profile (and, with --dask, each host's beside it) is not replaced
    without --force, and --dask has its extra installed."""
    if dry_run:  # a plan of a run that could not write its profile is no plan: a folder in --out's place
        refuse_overwrite([options.out], force=True)
    else:
        # with --dask each host's profile is also written beside --out, as <stem>.<host><suffix>
        beside = options.out.parent.glob(f"{glob.escape(options.out.stem)}.*{glob.escape(options.out.suffix)}")
        refuse_overwrite([options.out, *(sorted(beside) if dask is not None else [])], force)
    if dask is not None:
        from planner.cluster import require_distributed

        require_distributed()


def _run(
    options: "MeasureOptions",
    plan_lines: list[str],
    *,
    quiet: bool,
    dry_run: bool,
    dask: str | None,
    bucket_given: bool = True,
    width: int | None = None,
) -> None:
    """The run itself (or its plan, with --dry-run): here, or from every worker of a Dask cluster."""
    from planner.measure.run.measurement import Measurement
    from planner.present.text.fit import fit_text

    reporter = _rich_reporter(quiet)
    for line in plan_lines:
        typer.echo(fit_text(line, width) if dry_run else line, err=not dry_run)
    if dry_run:
        _print_dry_run(options, bucket_given=bucket_given, width=width)
        return
    _check_writable(options.out.resolve().parent)  # a refusal is the only line, before the plan's
    if not quiet:
        fitted, _, estimate = _fitted(options)
        typer.echo(plan_summary_line(fitted, estimate), err=True)
    if dask is not None:
        from planner.measure.distributed import measure_and_report

        measure_and_report(options, dask, reporter)
        return
    _report_run(Measurement(options, reporter).run(), options, reporter)


def _check_writable(folder: Path) -> None:
    """Refuse a folder that cannot hold the run's journal before anything is printed or sent (a folder not
    made yet is made by the run)."""
    import tempfile

    if not folder.is_dir():
        return
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise InputError(
            f"{folder}: cannot write the run's journal there ({error.strerror or error});"
            " choose an --out in a folder you can write to"
        ) from None


DEFAULT_OPEN_LOOP = "10/s,40/s,0.5x,0.8x"
"""``--open-loop``'s default: two sparse rates (the wake-up term) and two loaded ones (waits, the knee)."""
LATENCY_PEAK_CONCURRENCY = 10
"""The closed loop a latency target's open-loop fractions are of (``--concurrency``'s highest default)."""


def for_latency(options: "MeasureOptions", plan: "MeasurementFor") -> tuple["MeasureOptions", list[str]]:
    """``measure --for``'s options where a latency (TTFB) target is at stake, and the plan's lines saying
    so: the simulator's latency at a workload's rate rests on sparse open-loop cells at two rates (the
    wake-up term) and loaded ones (its waits and knee), so that GET size gets the default open-loop
    cells and a closed loop of ``LATENCY_PEAK_CONCURRENCY`` to take the fractions of. ``options``
    unchanged without such a target."""
    from planner.measure.run.options import DEFAULT_OPEN_PEAK_FRACTIONS, DEFAULT_OPEN_RATES_PER_S, cell_label
    from planner.units import format_bytes

    sizes = sorted({c.size_bytes for c in plan.cells if c.op == "get" and "TTFB" in c.target})
    if not sizes:
        return options, []
    levels = sorted({*options.concurrency, LATENCY_PEAK_CONCURRENCY})
    planned = options.only_cells or []
    peaks = [cell_label("get", size, levels[-1]) for size in sizes]
    lines = [
        f"  GET {format_bytes(size, binary=True)} open loop   for the latency target: {DEFAULT_OPEN_LOOP} (two sparse"
        f" rates fit the wake-up term, the fractions of the x{levels[-1]} peak, run twice, the waits under load and"
        " the knee)"
        for size in sizes
    ]
    fitted = dataclasses.replace(
        options,
        concurrency=levels,
        open_rates_per_s=list(DEFAULT_OPEN_RATES_PER_S),
        open_peak_fractions=list(DEFAULT_OPEN_PEAK_FRACTIONS),
        open_loop_sizes=sizes,
        only_cells=[*planned, *(cell for cell in peaks if cell not in planned)],
    )
    return fitted, lines


PLANNED_BY_FOR = ("sizes", "concurrency", "ops", "probes", "open_loop")
"""The options ``--for`` sets itself, from the cells that decide the workload."""


def _refuse_with_for(ctx: typer.Context) -> None:
    """An option ``--for`` would silently override, given on the command line: refused, naming it."""
    for name in PLANNED_BY_FOR:  # typer vendors click: its ParameterSource is matched by name
        if getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "DEFAULT":
            option = "--" + name.replace("_", "-")
            raise InputError(
                "--for measures the cells that decide the workload (their ops, sizes and concurrency, no probes):"
                " leave this option out, or leave out --for",
                source=option,
            )


@app.callback(invoke_without_command=True)
def measure(
    ctx: typer.Context,
    endpoint: str | None = typer.Option(None, help="S3 endpoint URL (default: AWS for --region)"),
    bucket: str | None = typer.Option(None, help="a scratch bucket the run may write to"),
    out: Path | None = typer.Option(
        None, "--out", help="profile JSON to write (after every cell; its folder is made if it does not exist)"
    ),
    provider: str | None = typer.Option(None, help="provider id stored in the profile, e.g. cloudflare-r2"),
    region: str | None = typer.Option(None, help="signing region (default us-east-1)"),
    sizes: str = typer.Option("256KiB,5MiB,50MiB,100MiB", help="object sizes"),
    concurrency: str = typer.Option("1,5,10", help="concurrency levels"),
    duration: str = typer.Option("30s", help="measured time per cell (warm-up excluded)"),
    warmup: str = typer.Option("3s", help="warm-up per cell, excluded from the figures"),
    ops: str = typer.Option("put,get,head,list,delete", help="operations"),
    probes: str = typer.Option("hot-object,part-size,range-get,rate", help="probes, or 'none'"),
    link: str | None = typer.Option(None, help="declared client link capacity, e.g. 10Gbps"),
    addressing: AddressingChoice = typer.Option(AddressingChoice.auto, help="path or virtual-host addressing"),
    no_verify_tls: bool = typer.Option(False, "--no-verify-tls", help="do not verify the TLS certificate"),
    processes: int | None = typer.Option(None, help="worker processes (default: CPU count)"),
    max_attempts: int = typer.Option(3, help="attempts per request, including the first"),
    read_timeout: str = typer.Option("60s", help="no byte for this long (before or within a body) is a timeout"),
    connect_timeout: str = typer.Option("5s", help="a TCP/TLS connection not made within this long is a timeout"),
    run_id: str | None = typer.Option(None, help="run id (default: time + random)"),
    probe_duration: str = typer.Option("5s", help="measured time per probe step"),
    hot_object_max: int = typer.Option(256, help="hot-object probe: highest concurrency to try"),
    part_sizes: str = typer.Option("5MiB,8MiB,16MiB,32MiB", help="part-size probe: part sizes"),
    queue_depths: str = typer.Option("1,4,8", help="part-size probe: parts in flight"),
    range_object_size: str = typer.Option("256MiB", help="range-get probe: object size"),
    range_streams: str = typer.Option("4,8,16", help="range-get probe: parallel streams"),
    rate_concurrency: str = typer.Option("16,64", help="rate probe: concurrency ramp"),
    open_loop: str = typer.Option(
        DEFAULT_OPEN_LOOP,
        "--open-loop",
        help="open-loop GET and PUT cells per size: Poisson arrival rates (10/s; two sparse rates fit the"
        " simulator's wake-up term) and fractions of the size's measured closed-loop peak (0.5x; the smallest"
        " size's GETs at these run twice, for the knee), at most the highest --concurrency in flight; 'none'"
        " for none",
    ),
    budget: str | None = typer.Option(
        None,
        "--budget",
        help="total time for the run, probes included (e.g. 10m): windows are shortened (to 5 s) and cells dropped"
        " to fit; --dry-run shows what",
    ),
    quiet: bool = typer.Option(False, "--quiet", help="no progress bar, cell lines or notes (errors still show)"),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="print the plan, its time, requests, bytes and bill, and touch nothing (no --bucket or --out needed:"
        " without --out it shows measured/PROVIDER.json)",
    ),
    dask: str | None = typer.Option(
        None,
        "--dask",
        metavar="SCHEDULER",
        help="run the plan from every worker of this Dask cluster (e.g. tcp://10.0.0.5:8786) with a common start,"
        " each host under its own prefix, and merge the hosts' profiles (needs objstore-planner[dask])",
    ),
    force: bool = typer.Option(False, "--force", help="replace the --out profile if it exists"),
    for_workload: Path | None = typer.Option(
        None,
        "--for",
        help="measure only the cells that decide this workload's unverified targets on --provider (no probes)",
    ),
    profiles_dir: Path | None = typer.Option(
        None, "--profiles", help="with --for: judge the workload on the profiles in this folder, not the shipped ones"
    ),
) -> None:
    """Measure an endpoint: every op x size x concurrency cell, then the probes."""
    if ctx.invoked_subcommand is not None:
        return
    plan_lines: list[str] = []
    if for_workload is not None:
        from planner.cli.measure_for import measurement_for

        _refuse_with_for(ctx)

        check_profiles(profiles_dir)
        planned = measurement_for(for_workload, provider, profiles_dir)
        plan_lines = planned.plan.lines()
        if not planned.plan.cells:
            from planner.present.text.fit import fit_text

            for line in plan_lines:
                typer.echo(fit_text(line, settings(ctx).width))
            return
        ops, sizes, concurrency, probes, open_loop = planned.ops, planned.sizes, planned.concurrency, "none", "none"
    # --dry-run sends nothing, so it needs no bucket and writes nothing: without --bucket the plan names
    # none, and without --out it shows the profile a run would write, measured/<provider>.json. A real run
    # makes --out's folder when the checks have passed (an --out in a folder not yet made is no typo to
    # refuse: `measure --for`'s printed command writes under measured/).
    target = out if out is not None or not dry_run else default_out(provider)
    checked = target if target is None or target.parent.exists() else Path(target.name)  # its folder: below
    options = build_options(
        endpoint=endpoint, bucket=DRY_RUN_BUCKET if bucket is None and dry_run else bucket, out=checked,
        provider=provider, region=region, sizes=sizes,
        concurrency=concurrency, duration=duration, warmup=warmup, ops=ops, probes=probes, link=link,
        addressing=addressing.value, no_verify_tls=no_verify_tls, processes=processes,
        max_attempts=max_attempts, run_id=run_id, probe_duration=probe_duration,
        hot_object_max=hot_object_max, part_sizes=part_sizes, queue_depths=queue_depths,
        range_object_size=range_object_size, range_streams=range_streams, rate_concurrency=rate_concurrency,
        read_timeout=read_timeout, open_loop=open_loop, connect_timeout=connect_timeout, budget=budget,
    )  # fmt: skip
    assert target is not None  # build_options refused a run without --out
    options = dataclasses.replace(options, out=target)
    if for_workload is not None:
        options, latency_lines = for_latency(dataclasses.replace(options, only_cells=planned.cells), planned.plan)
        plan_lines += latency_lines
    _check_outputs(options, dry_run=dry_run, dask=dask, force=force)
    if not dry_run:
        target.parent.mkdir(parents=True, exist_ok=True)
    _run(
        options,
        plan_lines,
        quiet=quiet,
        dry_run=dry_run,
        dask=dask,
        bucket_given=bucket is not None,
        width=settings(ctx).width,
    )


DRY_RUN_BUCKET = "BUCKET"
"""The bucket a dry run without ``--bucket`` plans for: a name to pass the checks, shown as not given."""


def default_out(provider: str | None) -> Path:
    """The profile a dry run without ``--out`` shows: ``measured/<provider>.json`` (the folder
    ``recommend --profiles measured`` reads), ``measured/profile.json`` without ``--provider``."""
    return Path("measured") / f"{provider or 'profile'}.json"


@app.command("cleanup")
def cleanup(
    run_id: str = typer.Option(..., help="the run id to finish cleaning up"),
    endpoint: str | None = typer.Option(None, help="S3 endpoint URL"),
    bucket: str = typer.Option(..., help="bucket of the run"),
    region: str | None = typer.Option(None),
    journal: Path | None = typer.Option(None, help="journal file (default: ./planner-measure-<id>.journal.jsonl)"),
    addressing: AddressingChoice = typer.Option(AddressingChoice.auto),
) -> None:
    """Delete what a crashed or killed run wrote (only keys in its journal) and abort its uploads."""
    from planner.measure import journal as journal_module
    from planner.measure.cleanup import checked_prefix, cleanup_run
    from planner.measure.s3client import make_client, sanitize_endpoint

    if not journal_module.valid_run_id(run_id):  # it names the journal's file: '../x' would reach outside
        raise InputError("use letters, digits, '-' and '_' only (at most 64)", source="--run-id")
    path = journal or journal_module.journal_path(Path.cwd(), run_id)
    if not path.exists():
        raise InputError("no journal for this run (pass --journal PATH)", source=str(path))
    state = journal_module.read(path)
    if state.run_id is None:
        raise InputError("not a journal of a run (it names none)", source=str(path))
    if state.run_id != run_id:
        raise InputError(f"journal belongs to run {state.run_id!r}, not {run_id!r}", source=str(path))
    if state.bucket != bucket:
        raise InputError(f"journal is for bucket {state.bucket!r}, not {bucket!r}", source=str(path))
    shown = sanitize_endpoint(endpoint) if endpoint else None
    if state.endpoint != shown:
        raise InputError(f"journal is for endpoint {state.endpoint!r}, not {shown!r}", source=str(path))
    prefix = checked_prefix(state, path)
    typer.echo(f"cleaning up endpoint {shown or '(AWS default)'} bucket {bucket} prefix {prefix}", err=True)
    client = make_client(endpoint, region, addressing=addressing.value)
    try:
        report = cleanup_run(client, bucket, path)
    except MeasureError:
        raise
    except Exception as error:
        from planner.measure.s3client import describe_client_error

        raise MeasureError(f"cleanup failed ({describe_client_error(error)})") from None
    typer.echo(f"deleted {report.deleted} objects, aborted {report.aborted_uploads} uploads", err=True)
    if report.foreign:
        typer.echo(f"left {len(report.foreign)} objects under the prefix that the journal does not list", err=True)
    if not report.clean:
        raise MeasureError(f"{len(report.remaining)} objects could not be deleted; run cleanup again")


@app.command("merge")
def merge(
    profiles: list[Path] = typer.Argument(..., help="profiles from several client hosts"),
    out: Path = typer.Option(..., "--out", help="merged profile to write"),
    force: bool = typer.Option(False, "--force", help="replace the --out profile if it exists"),
) -> None:
    """Combine profiles of one endpoint from several hosts (sums only concurrent measurements)."""
    from planner.measure.merge import merge_profiles
    from planner.measure.reference import load_profile
    from planner.writing import check_parent, write_atomically

    refuse_overwrite([out], force)
    check_parent(out)
    merged = merge_profiles([load_profile(path) for path in profiles])
    write_atomically(out, merged.model_dump_json(indent=2) + "\n", source="--out")
    assert merged.merge is not None
    typer.echo(f"wrote {out} ({len(merged.cells)} cells; runs overlapped: {merged.merge.overlapped})")


# -- profiles ----------------------------------------------------------------------------------


# ``planner measure profiles`` is the same group as ``planner profiles``.
app.add_typer(profiles_app, name="profiles")
