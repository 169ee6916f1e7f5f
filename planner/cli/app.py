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

from typing import Annotated

import typer

from planner.cli import ingest, measure, migrate, plan, pricing, profiles, report, simulate, workloads
from planner.cli.common import run
from planner.cli.settings import Settings

app = typer.Typer(
    help="Choose object storage by measured performance and exact, versioned prices.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)
app.add_typer(simulate.app)
app.add_typer(plan.app)
app.add_typer(migrate.app)
app.add_typer(report.app)
app.add_typer(workloads.app)
app.add_typer(measure.app, name="measure")
app.add_typer(profiles.profiles_app, name="profiles")
app.add_typer(pricing.app, name="pricing")
app.add_typer(ingest.app, name="ingest")


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
