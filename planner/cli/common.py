"""What every command shares: the output formats, the common options, the parsers of dates and
option values, and the one way an error reaches the user (one line on stderr, exit code 2).

Imports only typer, the completions and the base layer, so every command module can import it at its top.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, NoReturn, TextIO, TypeVar, overload

import typer

from planner.cli import completion
from planner.errors import InputError, PlannerError
from planner.writing import check_parent, refuse_existing, terminal_safe

if TYPE_CHECKING:
    from planner.workload import Workload

T = TypeVar("T")


class OutputFormat(StrEnum):
    """The formats a command prints: ``csv`` only where the result is rows."""

    table = "table"
    json = "json"
    markdown = "markdown"
    csv = "csv"
    focus = "focus"  # FOCUS 1.2 rows of a forecast's bills: cost, recommend and migrate (planner.cli.focus)


TextFormat = Literal[OutputFormat.table, OutputFormat.json, OutputFormat.markdown]
"""The formats of a result that is not rows: ``csv`` is refused when the options are parsed."""

RowsFormat = Literal[OutputFormat.table, OutputFormat.json, OutputFormat.markdown, OutputFormat.csv]
FormatOption = Annotated[
    RowsFormat, typer.Option("--format", "-f", help="table, json, markdown or csv (where the result is rows)")
]
TextFormatOption = Annotated[TextFormat, typer.Option("--format", "-f", help="table, json or markdown")]
PlotOption = Annotated[
    Path | None,
    typer.Option("--plot", help="also draw the result to FILE.png or FILE.svg (needs objstore-planner[plot])"),
]
AsOfOption = Annotated[
    str | None, typer.Option("--as-of", help="price tables in force on this date (YYYY-MM-DD; default today)")
]
ForceOption = Annotated[bool, typer.Option("--force", help="replace files that already exist")]
ProviderOption = Annotated[
    str, typer.Option("--provider", "-p", help="provider id, e.g. aws-s3", autocompletion=completion.provider)
]
WorkloadArgument = Annotated[Path, typer.Argument(help="workload YAML file", show_default=False)]


OFFER_LIMIT_BYTES = 1024 * 2**20
"""An offer file: AmazonS3 for every region is tens of MiB, AWSDataTransfer a few hundred."""


def read_json(path: Path, what: str) -> object:
    """A JSON input file (an AWS offer file), or one line saying why it cannot be read (its size,
    nesting and numbers bounded: ``planner.files.load_json``)."""
    from planner.files import load_json

    return load_json(path, what=what, limit_bytes=OFFER_LIMIT_BYTES)


def rows_only(output: OutputFormat, what: str) -> None:
    """CSV is for results that are rows (rankings, line items, projections, reconciliations)."""
    if output == OutputFormat.csv:
        raise InputError(f"{what} is not a table of rows: use table, json or markdown", source="--format")


def refuse_overwrite(paths: Iterable[Path], force: bool, option: str = "--out") -> None:
    """A command that writes files replaces none that exist without ``--force``: the first is named
    (``planner.writing.refuse_existing``)."""
    refuse_existing(paths, force, option)


def check_plot(path: Path | None, force: bool, option: str = "--plot") -> None:
    """A picture option checked before any work: its name (.png or .svg), matplotlib, and no file
    there unless ``--force``."""
    if path is None:
        return
    from planner.present.plots.common import plot_target

    plot_target(path, option)
    refuse_existing([path], force, option)
    check_parent(path, option)


def parse_date(text: str | None, option: str = "--as-of") -> dt.date | None:
    """A YYYY-MM-DD option (None when it was not given)."""
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"{text!r} is not a date (use YYYY-MM-DD)", source=option) from None


@overload
def parse_option(parse: Callable[[str], T], text: str, option: str) -> T: ...
@overload
def parse_option(parse: Callable[[str], T], text: str | None, option: str) -> T | None: ...
def parse_option(parse: Callable[[str], T], text: str | None, option: str) -> T | None:
    """An option's text read by one of planner.units' parsers (``parse_duration``, ``parse_size``,
    ``parse_rate``); the parser's complaint becomes the one-line error naming the option."""
    if text is None:
        return None
    try:
        return parse(text)
    except ValueError as error:
        raise InputError(str(error), source=option) from None


class _TerminalSafe:
    """A text stream that writes through ``planner.writing.terminal_safe``: the names, descriptions and
    labels an answer repeats from its inputs reach the terminal (or a pipe) shown, never obeyed."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _safe_stdout() -> Iterator[None]:
    saved = sys.stdout
    sys.stdout = _TerminalSafe(saved)
    try:
        yield
    finally:
        sys.stdout = saved


def _error_line(text: str) -> str:
    """An error for stderr: one line, safe for the terminal."""
    return terminal_safe(text).replace("\n", "\\n")


def run(app: typer.Typer) -> NoReturn:
    """Run a command-line app and exit: a ``PlannerError`` or a usage error is one line on stderr and
    exit code 2, never a traceback; anything else is a bug and keeps its traceback. What the command
    prints is made safe for the terminal (``planner.writing.terminal_safe``)."""
    try:
        # named planner however it is started (python -m planner, or in-process under a test runner)
        with _safe_stdout():
            code = app(standalone_mode=False, prog_name="planner")
    except PlannerError as error:
        typer.echo(_error_line(f"planner: {error}"), err=True)
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
        message = error.format_message()  # type: ignore[attr-defined]
        typer.echo(_error_line(_one_line(f"planner: {where}{message}")), err=True)
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


def _is_usage_error(error: Exception) -> bool:
    """Whether ``error`` is the CLI framework's usage error (typer vendors click, so its classes are
    matched by name rather than imported from a private module)."""
    return any(cls.__name__ == "UsageError" for cls in type(error).__mro__) and hasattr(error, "format_message")


def _one_line(text: str) -> str:
    return " ".join(text.split())


@contextlib.contextmanager
def fields_of(workload_file: Path) -> Iterator[None]:
    """An error about a workload's field (from the library, which has no file name) names the file."""
    try:
        yield
    except InputError as error:
        if error.source is None and error.field is not None:
            raise InputError(error.problem, source=str(workload_file), field=error.field) from None
        raise


def check_profiles(profiles: Path | None) -> None:
    """Refuse ``--profiles`` that is not a folder (of profiles named ``<provider>.json``), naming the path."""
    if profiles is not None and not profiles.is_dir():
        raise InputError("not a folder of profiles", source=str(profiles))


def workload_region(workload: Workload, provider: str, workload_file: Path) -> str | None:
    """The region the workload names for ``provider`` (``constraints.regions``, e.g. from ingest cur),
    or None for the provider's default (none named, or the default among several); several without
    the default are refused (a bill prices one region), and so is a region the provider has no table for."""
    from planner.pricing import catalog

    named = workload.constraints.regions.get(provider, [])
    where = f"constraints.regions.{provider}"
    known = catalog.regions(provider)
    unknown = [region for region in named if region not in known]
    if unknown:
        raise InputError(
            f"no {provider} price table for region {unknown[0]!r} (tables: {', '.join(known)})",
            source=str(workload_file),
            field=where,
        )
    if len(named) > 1 and known[0] in named:
        return None
    if len(named) > 1:
        raise InputError(
            f"names {len(named)} regions for {provider} ({', '.join(named)}): give --region",
            source=str(workload_file),
            field=where,
        )
    return named[0] if named else None


def check_csv_name(path: Path, option: str) -> None:
    """Refuse to write a CSV trace under another kind's name (a .parquet or .gz file would hold plain CSV)."""
    if path.suffix and path.suffix.lower() != ".csv":
        raise InputError(f"writes a CSV trace, not a {path.suffix} file: name it .csv", source=option)
