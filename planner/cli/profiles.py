"""``planner profiles``: list the shipped reference profiles, show one (or a measured profile file).

The profiles are loaded inside the commands, so ``planner --help`` stays fast.
"""

# No ``from __future__ import annotations`` here: see planner.cli.app (start-up time).

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from planner.cli.common import OutputFormat, TextFormat, check_plot
from planner.cli.settings import echo, settings

if TYPE_CHECKING:
    from planner.measure.profile import Profile

profiles_app = typer.Typer(
    help="List and show measurement profiles (shipped references or files).", no_args_is_help=True, add_completion=False
)


def fmt_figure(value: float | None, digits: int = 1, scale: float = 1.0) -> str:
    return "-" if value is None else f"{value * scale:.{digits}f}"


def _resolve_profile(ident: str) -> "Profile":
    from planner.measure.reference import load_profile, load_reference, reference_providers

    if ident in reference_providers():
        return load_reference(ident)
    if ident.endswith(".json") or Path(ident).exists():
        return load_profile(ident)
    return load_reference(ident)  # raises the "known: ..." error


def _render(
    rows: list[list[Any]], headers: list[str], fmt: TextFormat, width: int | None, notes: tuple[str, ...] = ()
) -> str:
    """The table as tabulate lays it out (numbers to the right) where it fits ``width``; else fitted, the
    cells of the ``notes`` columns numbered under it (``planner.present.text.table``)."""
    from tabulate import tabulate

    whole = tabulate(rows, headers=headers, tablefmt="github" if fmt is OutputFormat.markdown else "simple")
    if fmt is OutputFormat.markdown or not width or max(map(len, whole.splitlines()), default=0) <= width:
        return whole
    from planner.present.text import table

    return table(
        headers, [["" if c is None else str(c) for c in row] for row in rows], fmt.value, width=width, notes=notes
    )


def _summary_rows(profile: "Profile") -> list[list[Any]]:
    summary = profile.summary()
    rows: list[list[Any]] = []
    for name, value in summary.model_dump(exclude={"citations", "notes"}).items():
        cites = summary.citations.get(name) or [
            c for key, cs in summary.citations.items() if key.startswith(name.split("_")[0] + "_") for c in cs
        ]
        if name == "ops_per_s":
            for op, rate in value.items():
                cite = summary.citations.get(f"ops_per_s.{op}", [])
                rows.append([f"ops_per_s.{op}", "-" if rate is None else f"{rate:.1f}", _cite_text(cite)])
            continue
        if isinstance(value, float):
            shown = f"{value:.4g}"
        elif value is None:
            shown = "- (unknown)"
        else:
            shown = json.dumps(value) if not isinstance(value, str) else value
        rows.append([name, shown, _cite_text(summary.citations.get(name, cites if name.startswith("hot") else []))])
    return rows


def _cite_text(cites: list[Any]) -> str:
    if not cites:
        return ""
    first = cites[0]
    more = f" (+{len(cites) - 1})" if len(cites) > 1 else ""
    return f"{first.ref} / {first.section}{more}"


@profiles_app.command("list")
def profiles_list(ctx: typer.Context, fmt: TextFormat = typer.Option(OutputFormat.table, "--format", "-f")) -> None:
    """The shipped reference profiles (built from published benchmarks)."""
    from planner.measure.reference import load_reference, reference_providers

    entries = []
    for ident in reference_providers():
        profile = load_reference(ident)
        summary = profile.summary()
        known = sum(1 for c in profile.cells if c.status != "missing")
        entries.append(
            {
                "id": ident,
                "source": profile.source.kind,
                "date": profile.date,
                "cells": len(profile.cells),
                "cells_with_figures": known,
                "claims_rejected_or_flagged": len(profile.source.claims),
                "hot_object_limit": summary.hot_object_limit,
            }
        )
    if fmt is OutputFormat.json:
        typer.echo(json.dumps(entries, indent=2))
        return
    headers = list(entries[0]) if entries else ["id"]
    echo(ctx, _render([list(e.values()) for e in entries], headers, fmt, settings(ctx).width), fmt.value)


@profiles_app.command("show")
def profiles_show(
    ctx: typer.Context,
    ident: str = typer.Argument(..., help="a reference id (see 'list') or a profile file"),
    fmt: TextFormat = typer.Option(OutputFormat.table, "--format", "-f"),
    plot: Path | None = typer.Option(
        None, "--plot", help="also draw throughput by object size and concurrency to FILE.png or FILE.svg"
    ),
    force: bool = typer.Option(False, "--force", help="replace the --plot file if it exists"),
) -> None:
    """One profile: its summary figures with their citations, its cells and its rejected claims."""
    check_plot(plot, force)
    profile = _resolve_profile(ident)
    if plot is not None:
        from planner.present.plots import save_profile_plot  # matplotlib and the plots only when asked for

        save_profile_plot(profile, plot)
    if fmt is OutputFormat.json:
        typer.echo(
            json.dumps(
                {"profile": profile.model_dump(mode="json"), "summary": profile.summary().model_dump(mode="json")},
                indent=2,
            )
        )
        return
    width = settings(ctx).width
    provider = profile.provider or "not named (a measured endpoint without --provider)"
    lines = [f"{ident}: provider {provider}, source {profile.source.kind}, date {profile.date}"]
    lines.append(_render(_summary_rows(profile), ["figure", "value", "source"], fmt, width, ("source",)))
    cells = [c for c in profile.cells if c.status != "missing"]
    if cells:
        lines.append("")
        lines.append(
            _render(
                [
                    [
                        c.op,
                        c.object_size_bytes,
                        c.concurrency,
                        "closed" if c.mode == "closed" else f"open {c.offered_per_s or 0:.4g}/s",
                        fmt_figure(c.throughput_mib_per_s, 2),
                        fmt_figure(c.ops_per_s, 2),
                        fmt_figure(c.in_flight_mean, 1),
                        fmt_figure(c.latency_s.p99, 1, 1000),
                        ",".join(c.flags),
                        _cite_text([c.citation] if c.citation else []),
                    ]
                    for c in cells
                ],
                ["op", "size_bytes", "conc", "loop", "MiB/s", "ops/s", "in_flight", "p99_ms", "flags", "source"],
                fmt,
                width,
                ("source",),
            )
        )
    missing = len(profile.cells) - len(cells)
    if missing:
        lines.append(f"{missing} cells not covered by the sources (missing, not zero)")
    if profile.source.claims:
        lines.append("")
        lines.append(
            _render(
                [[c.action, c.claim, c.reason, _cite_text([c.citation])] for c in profile.source.claims],
                ["action", "claim", "reason", "source"],
                fmt,
                width,
                ("reason", "source"),
            )
        )
    echo(ctx, "\n".join(lines), fmt.value)
