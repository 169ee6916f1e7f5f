"""What a measurement is asked to do: its options, the cells and probes they plan, and the progress
callbacks a run reports to."""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from planner.measure.clients import EngineChoice
from planner.measure.profile import OPERATIONS, Cell, Operation
from planner.measure.s3client import Addressing, sanitize_endpoint
from planner.units import format_bytes

PROBES = ("hot-object", "part-size", "range-get", "rate")
DEFAULT_OPEN_RATES_PER_S = (10.0, 40.0)
"""Sparse open-loop rates of every GET and PUT size: two, so the simulator's wake-up term
(``planner.sim.model.wakeup``: a server idle between requests answers slower) is fitted, not off."""
DEFAULT_OPEN_PEAK_FRACTIONS = (0.5, 0.8)
"""Loaded open-loop rates, as fractions of each size's closed-loop peak: the waits under load."""
_MAX_POOL_BYTES = 1 << 30  # GET/HEAD object pool per size
DELETE_WARMUP_S = 0.5


def delete_warmup_s(warmup_s: float) -> float:
    """A DELETE cell's warm-up: every object it deletes is one fewer for the measured window."""
    return min(warmup_s, DELETE_WARMUP_S)


def delete_budget_s(cell_s: float) -> float:
    """How long writing a DELETE cell's objects may take: a minute, or twice the cell if longer."""
    return max(60.0, 2 * cell_s)


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


@dataclass
class MeasureOptions:
    endpoint: str | None
    bucket: str
    out: Path
    provider: str | None = None
    region: str | None = None
    sizes: list[int] = field(default_factory=lambda: [256 * 1024, 5 << 20, 50 << 20, 100 << 20])
    concurrency: list[int] = field(default_factory=lambda: [1, 5, 10])
    duration_s: float = 30.0
    warmup_s: float = 3.0
    ops: list[Operation] = field(default_factory=lambda: list(OPERATIONS))
    probes: list[str] = field(default_factory=lambda: list(PROBES))
    link_bits_per_s: float | None = None
    addressing: Addressing = "auto"
    verify_tls: bool = True
    engine: EngineChoice = "auto"  # the client for small-object requests (measure.clients)
    processes: int | None = None
    max_attempts: int = 3
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 60.0  # no byte for this long (before or within a body): a "timeout"
    run_id: str | None = None
    # probes
    probe_duration_s: float = 3.0
    hot_object_max: int = 256
    hot_object_range_bytes: int = 64 * 1024
    part_sizes: list[int] = field(default_factory=lambda: [5 << 20, 8 << 20, 16 << 20, 32 << 20])
    queue_depths: list[int] = field(default_factory=lambda: [1, 4, 8])
    range_object_size: int = 256 << 20
    range_streams: list[int] = field(default_factory=lambda: [4, 8, 16])
    rate_object_size: int = 4096
    rate_concurrency: list[int] = field(default_factory=lambda: [16, 64])
    # open-loop cells: Poisson arrivals at these rates, after each size's closed-loop cells
    # (two sparse rates give the wake-up term, planner.sim.model.wakeup; the fractions the loaded cells)
    open_rates_per_s: list[float] = field(default_factory=lambda: list(DEFAULT_OPEN_RATES_PER_S))
    open_peak_fractions: list[float] = field(default_factory=lambda: list(DEFAULT_OPEN_PEAK_FRACTIONS))
    open_loop_sizes: list[int] | None = None  # the sizes that get open-loop cells (None: every size)
    knee_rounds: int = 2  # runs of the smallest size's GET cells at the peak's fractions (the knee)
    budget_s: float | None = None  # the whole run, probes included (see measure.plan.fit_budget)
    delete_write_s: float | None = None  # writing one DELETE list may take this long (default: delete_budget_s)
    # only these cells of the op x size x concurrency grid (their labels, "get 256KiB x1"); None: all of them
    only_cells: list[str] | None = None

    def recorded(self) -> dict[str, Any]:
        """The options as stored in the profile (no endpoint userinfo, no paths outside ours)."""
        data = asdict(self)
        data["endpoint"] = sanitize_endpoint(self.endpoint) if self.endpoint else None
        data["out"] = self.out.name
        return data


class Reporter:
    """Progress callbacks; the CLI renders them with rich, tests may leave them silent."""

    def info(self, message: str) -> None:
        pass

    def step(self, label: str, index: int, total: int) -> None:
        pass

    def progress(self, elapsed_s: float, remaining_s: float) -> None:
        """Time so far (monotonic clock) and the plan's estimate of the time left, after every step."""

    def cell(self, cell: Cell) -> None:
        pass

    def done(self) -> None:
        pass


OPEN_LOOP_OPS: tuple[Operation, ...] = ("get", "put")
"""Operations that get open-loop cells: the requests a workload sends at a rate (a DELETE cell's
work list is finite; HEAD and LIST follow GET closely enough on the servers measured)."""


def open_loop_rates(options: MeasureOptions) -> list[str]:
    """The open-loop arrival rates asked for, as shown: "10/s", "0.5x peak"."""
    return [f"{rate:g}/s" for rate in options.open_rates_per_s] + [
        f"{fraction:g}x peak" for fraction in options.open_peak_fractions
    ]


def plan_steps(options: MeasureOptions) -> list[str]:
    """Human-readable list of the cells and probes a run will perform (for --dry-run and progress)."""
    steps: list[str] = []
    for op in options.ops:
        sizes: list[int | None] = [None] if op == "list" else list(options.sizes)
        for size in sizes:
            for concurrency in options.concurrency:
                if in_plan(options, op, size, concurrency):
                    steps.append(cell_label(op, size, concurrency))
            first, again = open_loop_steps(options, op, size)
            steps += first + again
    steps += [f"probe {name}" for name in options.probes]
    return steps


def open_loop_steps(options: MeasureOptions, op: str, size: int | None) -> tuple[list[str], list[str]]:
    """The open-loop steps planned for ``op`` and ``size``: one a rate asked for, then the knee's
    further rounds of the loaded rates (GET at the smallest size: ``planner.sim.model.saturation`` reads a
    knee where a rate was run in two rounds or more)."""
    if op not in OPEN_LOOP_OPS or (options.open_loop_sizes is not None and size not in options.open_loop_sizes):
        return [], []
    shown = cell_label(op, size, max(options.concurrency))
    first = [f"{shown} open {rate}" for rate in open_loop_rates(options)]
    again = [
        f"{shown} open {fraction:g}x peak, round {round_}"
        for round_ in range(2, knee_rounds(options, op, size) + 1)
        for fraction in options.open_peak_fractions
    ]
    return first, again


SPARSE_MIN_SAMPLES = 200
"""A fixed-rate open-loop cell's window holds at least this many arrivals: the simulator reads a
cell's distribution only as far as its samples reach (a p99 needs 100, a p99.5 200), and a sparse
cell's tail is the tail of every lightly loaded window it simulates."""
SPARSE_MAX_WINDOW_S = 60.0
"""... up to this long a window (at 1/s, 60 requests is what there is)."""


def open_window_s(options: MeasureOptions, rate_per_s: float | None) -> float:
    """An open-loop cell's window: the cells' window, or for a fixed rate (``rate_per_s``) at least long
    enough for ``SPARSE_MIN_SAMPLES`` arrivals (at most ``SPARSE_MAX_WINDOW_S``); a budget shortens
    no further."""
    if rate_per_s is None:
        return options.duration_s
    return max(options.duration_s, min(SPARSE_MIN_SAMPLES / rate_per_s, SPARSE_MAX_WINDOW_S))


def knee_rounds(options: MeasureOptions, op: str, size: int | None) -> int:
    """How many rounds the loaded open-loop rates of ``op`` and ``size`` run: ``knee_rounds`` for GET
    at the smallest size, else one."""
    return options.knee_rounds if op == "get" and options.sizes and size == min(options.sizes) else 1


def data_key_count(options: MeasureOptions, size: int) -> int:
    """Objects written once per size for the GET, HEAD and LIST cells."""
    return max(1, min(max(options.concurrency) * 2, _MAX_POOL_BYTES // max(size, 1), 64))


def in_plan(options: MeasureOptions, op: str, size: int | None, concurrency: int) -> bool:
    """Whether the closed-loop cell is measured: every cell of the grid, or only those ``only_cells`` names."""
    return options.only_cells is None or cell_label(op, size, concurrency) in options.only_cells


def cell_label(op: str, size: int | None, concurrency: int, offered_per_s: float | None = None) -> str:
    shown = "-" if size is None else format_bytes(size, binary=True).replace(" ", "")
    label = f"{op} {shown} x{concurrency}"
    return label if offered_per_s is None else f"{label} open {offered_per_s:.3g}/s"
