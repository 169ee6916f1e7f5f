"""The ``planner`` app: its global options and the command modules it registers.

Every command module defines its commands on its own ``typer.Typer()``; this module registers each
one the same way, with ``app.add_typer``: under a name for a group (``planner pricing list``), without
one for top-level commands (``planner cost``). The order of registration is the order of ``--help``.

Heavy modules (pydantic, boto3, simpy, numpy) are imported inside the commands that use them, so
``planner --help`` and the pricing commands answer at interactive speed.
"""

# No ``from __future__ import annotations`` in the command modules: typer reads each command's
# annotations several times while it builds the app, and string annotations are compiled and
# evaluated every time (about 14 ms of ``planner --help``, which should answer at once).

from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from planner.cli import (
    ingest,
    init,
    lifecycle,
    measure,
    migrate,
    plan,
    pricing,
    profiles,
    record,
    report,
    simulate,
    workloads,
)
from planner.cli.common import run
from planner.cli.settings import Settings

QUIET = ("-q", "--quiet")


class _QuietAnywhere(TyperGroup):
    """The ``planner`` group: ``-q``/``--quiet`` may also follow the subcommand (``planner recommend
    W.yaml -q``); it is moved before the subcommand, where ``planner``'s own option reads it. A
    command with a ``--quiet`` of its own (``measure``) keeps it, and nothing after ``--`` moves."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, _quiet_first(self, ctx, args))


def _quiet_first(group: TyperGroup, ctx: Any, args: list[str]) -> list[str]:
    start = next((i for i, arg in enumerate(args) if not arg.startswith("-")), len(args))
    command: Any = group
    for arg in args[start:]:  # down to the command that runs (``pricing show``: the group, then show)
        if arg.startswith("-") or not hasattr(command, "get_command"):
            break
        command = command.get_command(ctx, arg)
        if command is None:
            return args
    options = [param for param in getattr(command, "params", []) if getattr(param, "param_type_name", "") == "option"]
    if any(name in QUIET for param in options for name in param.opts):
        return args
    taking_values = {name for param in options if not param.is_flag and not param.count for name in param.opts}
    kept: list[str] = []
    moved = False
    for index, arg in enumerate(args):
        if arg == "--":
            kept.extend(args[index:])
            break
        follows_option = index > 0 and args[index - 1] in taking_values
        if index > start and arg in QUIET and not follows_option:
            moved = True
            continue
        kept.append(arg)
    return ["--quiet", *kept] if moved else args


def _show_version(value: bool) -> None:
    """``planner --version``: the installed distribution's version (the source tree's without one)."""
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    import planner

    try:
        installed = version(DISTRIBUTION)
    except PackageNotFoundError:
        installed = planner.__version__
    typer.echo(f"planner {installed}")
    raise typer.Exit()


DISTRIBUTION = "objstore-planner"
"""The name on the package index (``pip install objstore-planner``); the import name and the command are ``planner``."""

app = typer.Typer(
    cls=_QuietAnywhere,
    help="Choose object storage by measured performance and exact, versioned prices.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # click's plain help: wrapped at the terminal's width, no word cut short
)
app.add_typer(simulate.app)
app.add_typer(plan.app)
app.add_typer(lifecycle.app)
app.add_typer(migrate.app)
app.add_typer(report.app)
app.add_typer(workloads.app)
app.add_typer(init.app)
app.add_typer(record.app)
app.add_typer(measure.app, name="measure")
app.add_typer(profiles.profiles_app, name="profiles")
app.add_typer(pricing.app, name="pricing")
app.add_typer(ingest.app, name="ingest")


@app.callback()
def _options(
    ctx: typer.Context,
    wide: Annotated[
        bool,
        typer.Option(
            "--wide",
            help="one line per table row, every reason inline (otherwise tables fit COLUMNS, the terminal, or 100"
            " columns when piped, with long reasons numbered under the table)",
        ),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="no progress bars (before or after the command's name)")
    ] = False,
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_show_version, help="print planner's version and exit"),
    ] = False,
) -> None:
    """Choose object storage by measured performance and exact, versioned prices."""
    ctx.obj = Settings.for_this_terminal(wide=wide, quiet=quiet)


def main() -> None:
    """The ``planner`` console script and ``python -m planner``."""
    run(app)
