"""``planner measure``: placeholder until the measurement commands land."""

from __future__ import annotations

import typer

app = typer.Typer(help="Benchmark an S3-compatible endpoint and write a measurement profile.")
