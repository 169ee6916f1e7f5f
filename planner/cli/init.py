"""``planner init``: write a commented workload file from a preset, or from a few answers."""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from planner.cli.common import ForceOption

app = typer.Typer()

QUESTIONS = (
    ("kind", "What is the data? (video, backup, data-lake, logs, web-assets, ml-training)", "web-assets"),
    ("name", "A name for the workload", ""),
    ("stored", "How much is stored? (e.g. 50 TB)", ""),
    ("object_size", "Mean object size? (e.g. 64 MB)", ""),
    ("growth_per_month", "Growth a month? (e.g. 2 TB, or 0 B)", ""),
    ("egress", "Read out to the internet a month? (e.g. 5 TB)", ""),
    ("reads", "GET requests a month? (blank: from the egress and object size)", ""),
    ("p99_ttfb", "Time to first byte 99 % of reads need? (e.g. 200 ms, or none)", ""),
    ("read_throughput", "Read rate the service needs at peak? (e.g. 5 Gbps, or none)", ""),
)


@app.command("init")
def init_command(
    out: Annotated[Path, typer.Argument(help="the workload file to write")] = Path("workload.yaml"),
    preset: Annotated[
        str | None,
        typer.Option("--preset", help="video, backup, data-lake, logs, web-assets or ml-training (no questions)"),
    ] = None,
    force: ForceOption = False,
) -> None:
    """Write a commented workload file: a preset as it is, or one with your answers to a few questions.

    Blank answers keep the preset's figure. Every command takes the file: planner recommend workload.yaml
    """
    from planner.workload.init import Answers, preset_text, workload_text
    from planner.writing import atomic_output, check_parent, refuse_existing

    refuse_existing([out], force, option="OUT")
    check_parent(out, option="OUT")
    if preset is not None:
        text = preset_text(preset)
    else:
        given = {key: _ask(question, default) for key, question, default in QUESTIONS}
        text = workload_text(
            Answers(**{k: (v if v != "" else None) for k, v in given.items() if k != "kind"}, kind=given["kind"])
        )
    with atomic_output(out, source="OUT", what="the workload file") as handle:
        handle.write(text)
    typer.echo(f"wrote {out}; next:\n  planner recommend {shlex.quote(str(out))}")


def _ask(question: str, default: str) -> str:
    """One answer. From a terminal the user's typing ends the prompt's line; piped answers are not echoed,
    so each is written after its prompt ("(blank)" for none) and the next question starts a line of its own."""
    answer: str = typer.prompt(question, default=default, show_default=bool(default))
    if not sys.stdin.isatty():
        typer.echo(answer if answer else "(blank)")
    return answer
