"""Tool profiles: the requests a backup or sync tool makes, as a few coefficients on what a user knows (files,
files changed, bytes changed), fitted from recorded runs or read from the tool's documented design.

A profile (``planner/workload/tool_profiles/<id>.yaml``) names the tool, its version and options, the runs that fitted
it, and per phase (``first``: the first run over an empty bucket; ``incremental``: a later run; ``prune``:
a retention pass) the count of each billed operation a run makes:

    count = constant + per_file * files + per_new_file * new_files + per_new_mib * new_MiB + per_page * pages

where ``pages`` is the listing pages of 1,000 keys the run reads (ceil(files / 1,000)). ``ToolUse`` (the
workload's ``tools:`` entries) turns a schedule, a churn and a retention into a month of those runs
(``ToolUse.month``): the steady month after the first run, in the project's 30-day month.
"""

from __future__ import annotations

import functools
import math
from decimal import ROUND_HALF_UP, Decimal
from importlib import resources
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator, model_validator

from planner.errors import InputError, validation_problem
from planner.files import load_yaml
from planner.pricing.primitives import OPERATIONS
from planner.pricing.usage import Deletion
from planner.units import Bytes, Count, Seconds, format_bytes

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
    folder = resources.files("planner.workload") / "tool_profiles"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        source = f"workload/tool_profiles/{entry.name}"
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


DAY_S = 86_400
MONTH_DAYS = 30  # the project's billing month
RUNS_A_MONTH: dict[str, Decimal] = {"hourly": Decimal(24 * MONTH_DAYS), "daily": Decimal(MONTH_DAYS)}
RUNS_A_MONTH["weekly"] = Decimal(MONTH_DAYS) / 7
RUNS_A_MONTH["monthly"] = Decimal(1)
_PER = {"day": Decimal(1), "week": Decimal(7), "month": Decimal(MONTH_DAYS)}


def _churn(value: object) -> object:
    """A share changed a day: 0.02, "2%", "2%/day", "10%/week" or "30%/month" (a week is 7 days, a month 30)."""
    if not isinstance(value, str):
        return value
    text, _, per = value.strip().partition("/")
    days = _PER.get(per.strip().lower() or "day")
    if days is None:
        raise ValueError(f'{value!r}: churn is a share per day, week or month (e.g. "2%/day")')
    percent = text.strip().endswith("%")
    try:
        number = Decimal(text.strip().removesuffix("%").strip())
    except ArithmeticError:
        raise ValueError(f'{value!r} is not a churn (use e.g. "2%/day" or 0.02)') from None
    if not number.is_finite():
        raise ValueError(f'{value!r} is not a churn (use e.g. "2%/day" or 0.02)')
    return (number / 100 if percent else number) / days


ChurnPerDay = Annotated[Decimal, BeforeValidator(_churn, json_schema_input_type=float | str)]


class ToolMonth(_Model):
    """A month of a tool's runs: requests by billed operation, the bytes it uploads, keeps and reads back,
    and what its retention deletes."""

    requests: dict[str, int]
    upload_bytes: int
    stored_bytes: int
    read_back_bytes: int
    deletions: list[Deletion]


class ToolUse(_Model):
    """A backup or sync tool the workload runs against the bucket (``tools:``), from its shipped profile."""

    tool: str = Field(description="a shipped tool profile's id (planner/workload/tool_profiles)")
    files: Count = Field(ge=0, description='files the tool backs up or syncs, e.g. "1.4M"')
    bytes: Bytes = Field(description='bytes those files hold, e.g. "296 GiB"')
    churn: ChurnPerDay = Field(
        Decimal(0), ge=0, le=1, description='share of the files and bytes changed a day, e.g. "2%/day" or "10%/week"'
    )
    schedule: Literal["hourly", "daily", "weekly", "monthly"] = Field("daily", description="how often it runs")
    retention: Seconds | None = Field(
        None,
        description='how long changed data is kept after it is replaced, e.g. "30d" (a backup\'s history); none:'
        " a mirror keeps only the current files",
    )
    prune: Literal["daily", "weekly", "monthly"] | None = Field(
        None, description="how often a retention pass runs (only for a profile with a prune phase)"
    )

    @field_validator("tool")
    @classmethod
    def _known(cls, tool: str) -> str:
        known = profiles()
        if tool not in known:
            raise ValueError(f"no profile for {tool!r} (profiles: {', '.join(sorted(known))})")
        return tool

    @model_validator(mode="after")
    def _files_hold_bytes(self) -> ToolUse:
        if self.files > self.bytes:  # as storage.objects is refused past storage.stored
            raise ValueError(f"{self.files:,} files in {format_bytes(self.bytes)} would be under 1 byte each")
        return self

    def model_post_init(self, context: Any, /) -> None:
        if self.prune is not None and "prune" not in profile(self.tool).phases:
            raise InputError(
                f"{self.tool}'s profile has no prune phase, so its retention pass cannot be priced: leave prune out",
                field="tools.prune",
            )

    def month(self) -> ToolMonth:
        """The steady month: each run changes ``churn`` x the days since the last run of the files and bytes;
        a retention keeps those changes for its days and then deletes them (as many objects a month as the
        runs write); a prune pass reads back its profile's share of what is stored."""
        tool = profile(self.tool)
        runs = RUNS_A_MONTH[self.schedule]
        days_between = Decimal(MONTH_DAYS) / runs
        changed = self.churn * days_between
        new_files = int((self.files * changed).to_integral_value(ROUND_HALF_UP))
        new_bytes = int((self.bytes * changed).to_integral_value(ROUND_HALF_UP))
        counts = _scaled(tool, "incremental", runs, self.files, new_files, new_bytes)
        month_bytes = int(runs * new_bytes)
        retention_days = Decimal(0) if self.retention is None else Decimal(str(self.retention)) / DAY_S
        kept = int((self.bytes * self.churn * retention_days).to_integral_value(ROUND_HALF_UP))
        stored = self.bytes + kept
        read_back = 0
        if self.prune is not None:
            prunes = RUNS_A_MONTH[self.prune]
            for op, n in _scaled(tool, "prune", prunes, self.files, new_files, new_bytes).items():
                counts[op] = counts.get(op, 0) + n
            read_back = int((prunes * tool.reads_back_share * stored).to_integral_value(ROUND_HALF_UP))
        deletions = []
        if self.retention is not None and month_bytes:
            written = counts.get("put", 0) + counts.get("complete-multipart", 0)
            age = float(retention_days)
            deletions.append(Deletion(bytes=month_bytes, objects=written, age_days=age))
            counts["delete"] = counts.get("delete", 0) + written
        return ToolMonth(
            requests={op: n for op, n in counts.items() if n},
            upload_bytes=month_bytes,
            stored_bytes=stored,
            read_back_bytes=read_back,
            deletions=deletions,
        )


def _scaled(tool: ToolProfile, phase: str, runs: Decimal, files: int, new_files: int, new_bytes: int) -> dict[str, int]:
    """``runs`` runs of ``phase`` by billed operation, rounded once for the month."""
    coefficients = tool.phases.get(phase)
    if coefficients is None:
        raise InputError(f"{tool.id} has no {phase!r} phase (it has {', '.join(tool.phases)})", field="tools")
    counts = {op: runs * c.count(files, new_files, new_bytes) for op, c in coefficients.items()}
    return {op: int(n.to_integral_value(ROUND_HALF_UP)) for op, n in counts.items() if n > 0}
