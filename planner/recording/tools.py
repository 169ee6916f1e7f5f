"""Tool profiles: the requests a backup or sync tool makes, as a few coefficients on what a user knows (files,
files changed, bytes changed), fitted from recorded runs or read from the tool's documented design.

A profile (``planner/recording/profiles/<id>.yaml``) names the tool, its version and options, the runs that fitted
it, and per phase (``first``: the first run over an empty bucket; ``incremental``: a later run; ``prune``:
a retention pass) the count of each billed operation a run makes:

    count = constant + per_file * files + per_new_file * new_files + per_new_mib * new_MiB + per_page * pages

where ``pages`` is the listing pages of 1,000 keys the run reads (ceil(files / 1,000)). ``ToolUse`` (the
workload's ``tools:`` entries) turns a schedule, a churn and a retention into a month of those runs.
"""

from __future__ import annotations

import functools
import math
from decimal import ROUND_HALF_UP, Decimal
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner.errors import InputError, validation_problem
from planner.files import load_yaml
from planner.pricing.primitives import OPERATIONS

MIB = 2**20
LIST_PAGE = 1000


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Coefficients(_Model):
    constant: Decimal = Decimal(0)
    per_file: Decimal = Decimal(0)
    per_new_file: Decimal = Decimal(0)
    per_new_mib: Decimal = Decimal(0)
    per_page: Decimal = Decimal(0)

    def count(self, files: int, new_files: int, new_bytes: int) -> Decimal:
        pages = math.ceil(files / LIST_PAGE) if files else 0
        return (
            self.constant
            + self.per_file * files
            + self.per_new_file * new_files
            + self.per_new_mib * Decimal(new_bytes) / MIB
            + self.per_page * pages
        )


class ToolRun(_Model):
    """A recorded run a profile was fitted from, and what it did."""

    phase: str
    files: int
    new_files: int
    new_bytes: int
    requests: dict[str, int] = Field(description="recorded requests by billed operation")


class ToolProfile(_Model):
    id: str
    tool: str
    version: str
    command: str = Field(description="the command and options the runs used")
    status: Literal["fitted", "documented"]
    source: str = Field(description="how the coefficients were found: the runs, or the tool's documentation")
    note: str | None = None
    reads_back_share: Decimal = Field(
        Decimal(0), ge=0, le=10, description="bytes a prune or check pass reads back, as a share of the bytes stored"
    )
    phases: dict[str, dict[str, Coefficients]] = Field(description="per phase, the coefficients by billed operation")
    runs: list[ToolRun] = Field(default_factory=list)

    def requests(self, phase: str, files: int, new_files: int, new_bytes: int) -> dict[str, int]:
        """Requests of one run of ``phase`` by billed operation (rounded to whole requests)."""
        coefficients = self.phases.get(phase)
        if coefficients is None:
            raise InputError(f"{self.id} has no {phase!r} phase (it has {', '.join(self.phases)})", field="tools")
        counts = {op: c.count(files, new_files, new_bytes) for op, c in coefficients.items()}
        return {op: int(n.to_integral_value(ROUND_HALF_UP)) for op, n in counts.items() if n > 0}


@functools.cache
def profiles() -> dict[str, ToolProfile]:
    """The shipped tool profiles by id."""
    found: dict[str, ToolProfile] = {}
    folder = resources.files("planner.recording") / "profiles"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        source = f"recording/profiles/{entry.name}"
        raw = load_yaml(entry.read_text(encoding="utf-8"), source, shipped=True)
        try:
            profile = ToolProfile.model_validate(raw)
        except ValidationError as error:
            field, message = validation_problem(error)
            raise InputError(message, source=source, field=field) from None
        unknown = {op for phase in profile.phases.values() for op in phase} - set(OPERATIONS)
        if unknown:
            raise InputError(f"unknown operation {sorted(unknown)[0]!r}", source=source, field="phases")
        found[profile.id] = profile
    return found


def profile(tool: str) -> ToolProfile:
    known = profiles()
    if tool not in known:
        raise InputError(f"no profile for {tool!r} (profiles: {', '.join(sorted(known))})", field="tool")
    return known[tool]
