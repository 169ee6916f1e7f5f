"""A long trace replayed in time windows, in parallel (``simulate --trace --dask``).

The trace's span is cut into windows at whole bins of the result's time series. Each window is one
replication's stretch of simulated time on its own, started cold: so that its first requests meet
the connections, queues and requests in flight they met in the whole replay, the ``warmup_s``
before the window is replayed first and its figures discarded (the engine counts only what happens
from ``warmup_s`` on: requests by arrival, billed requests, errors and retries by when they occur,
bytes by when they move). The windows' tallies are then added up as one replication's: counts and
sums add, percentiles merge their samples or histograms, each window fills its own bins. The
answer is the one-machine replay's within the replications' intervals (the windows draw their own
random numbers, and a warmed-up state is close to, not the same as, the carried one).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from planner.cluster import run_chunks
from planner.errors import InputError
from planner.sim.engine import Replication, StreamedTrace, Tally, bin_width, check_size, summarise, without_second_wait
from planner.sim.model import ProviderModel, with_wake_up_at
from planner.sim.result import SimulationResult
from planner.sim.spec import SimSpec

WARMUP_S = 60.0
"""Replayed before each window and discarded: minutes of requests are far longer than any one
request, retry or queue the simulator carries (a request's life is seconds)."""
WINDOW_REQUESTS = 2_000_000
"""About this many requests a window (at least ``MIN_WINDOWS`` windows): tasks small enough to
spread over a cluster and to hold little memory each."""
MIN_WINDOWS = 4


@dataclasses.dataclass(frozen=True)
class Window:
    """One window: ``start_s`` to ``end_s`` of the trace, simulated from ``start_s - warmup_s``;
    its bins are the result's ``first_bin`` onwards, ``edges_s`` in the window's own time."""

    start_s: float
    end_s: float
    warmup_s: float
    first_bin: int
    edges_s: tuple[float, ...]

    @property
    def simulated_s(self) -> float:
        return self.warmup_s + self.end_s - self.start_s


def plan_windows(
    duration_s: float, requests: int, count: int | None = None, warmup_s: float = WARMUP_S
) -> list[Window]:
    """``count`` windows (default: one per ``WINDOW_REQUESTS``, at least ``MIN_WINDOWS``) over
    ``duration_s``, cut at whole bins of the result's series (``planner.sim.engine.core``'s bins)."""
    width = bin_width(duration_s)
    edges = np.arange(0.0, duration_s + width / 2, width)
    if edges[-1] < duration_s:
        edges = np.append(edges, duration_s)
    bins = len(edges) - 1
    wanted = count or max(MIN_WINDOWS, math.ceil(requests / WINDOW_REQUESTS))
    cuts = sorted({round(k * bins / wanted) for k in range(wanted + 1)})
    windows = []
    for lo, hi in itertools.pairwise(cuts):
        start, end = float(edges[lo]), min(float(edges[hi]), duration_s)  # the last bin may end past the window
        # whole seconds (bins are 1 s or more): a time less a whole number is exact, so a request
        # at a window's edge falls in one window only
        warm = float(min(math.ceil(warmup_s), start))
        windows.append(Window(start, end, warm, lo, tuple((edges[lo : hi + 1] - start + warm).tolist())))
    return windows


@dataclasses.dataclass
class WindowTally:
    """What one window of one replication returns: its tally and the loads the model extrapolated."""

    tally: Tally
    extrapolated: list[str]


def simulate_window(spec: SimSpec, model: ProviderModel, window: Window, stream: np.random.SeedSequence) -> WindowTally:
    """One window of one replication, warmed up (run here or on a cluster's worker)."""
    tally = Tally(window.simulated_s, window.warmup_s)
    tally.bin_edges = np.asarray(window.edges_s)
    tally.series = {key: np.zeros(len(window.edges_s) - 1) for key in tally.series}
    replication = Replication(
        spec, model, window.simulated_s, np.random.Generator(np.random.PCG64(stream)), warmup_s=window.warmup_s
    )
    replication.run_chunks(tally.add)
    if tally.last is not None:  # only its counters are read: keep them, not the last stretch's requests
        tally.last = dataclasses.replace(tally.last, **_EMPTY)
    return WindowTally(tally, sorted(replication.load_extrapolated))


_ARRAYS = (
    "lop",
    "t_arrival",
    "t_conn",
    "t_first",
    "t_end",
    "size",
    "ok",
    "transfer_lop",
    "transfer_start",
    "transfer_end",
    "transfer_bytes",
    "error_time",
)
_EMPTY: dict[str, Any] = {name: np.empty(0) for name in _ARRAYS}


def _joined(parts: list[Tally], duration_s: float, windows: list[Window]) -> Tally:
    """The windows' tallies of one replication as the tally of the whole window."""
    whole = Tally(duration_s, 0.0)
    for part, window in zip(parts, windows, strict=True):
        for name, value in part.sums.items():
            whole.sums[name] = whole.sums.get(name, 0.0) + value
        for mine, theirs in zip((*whole.latency, *whole.ttfb), (*part.latency, *part.ttfb), strict=True):
            mine.merge(theirs)
        for key, values in part.series.items():
            whole.series[key][window.first_bin : window.first_bin + len(values)] += values
    lasts = [part.last for part in parts if part.last is not None]
    errors: dict[tuple[int, str], int] = {}
    for last in lasts:
        for kind, count in last.errors.items():
            errors[kind] = errors.get(kind, 0) + count
    whole.last = dataclasses.replace(
        lasts[-1],
        errors=errors,
        retries=np.sum([last.retries for last in lasts], axis=0).tolist(),
        billed=np.sum([last.billed for last in lasts], axis=0).tolist(),
        unfinished=sum(last.unfinished for last in lasts),
    )
    return whole


def simulate_windows(
    spec: SimSpec,
    model: ProviderModel,
    duration_s: float,
    seed: int,
    replications: int,
    *,
    scheduler: str | None,
    windows: int | None = None,
    warmup_s: float = WARMUP_S,
    progress: Callable[[], None] | None = None,
) -> SimulationResult:
    """``simulate_spec`` of a streamed trace's spec, each replication cut into time windows run as
    independent tasks (on the Dask cluster at ``scheduler``, or here with None), then joined."""
    trace = spec.arrivals
    if not isinstance(trace, StreamedTrace):
        raise InputError("only a trace read from a file is replayed in time windows", source="--dask")
    run_spec = without_second_wait(spec, model, duration_s)
    run_model = with_wake_up_at(model, spec, duration_s)
    plan = plan_windows(duration_s, trace.requests, windows, warmup_s)
    specs = []
    for window in plan:
        view = trace.window(window.start_s - window.warmup_s, window.end_s)
        part_spec = run_spec.model_copy(update={"arrivals": view})
        check_size(part_spec, window.simulated_s)
        specs.append(part_spec)
    streams = np.random.SeedSequence(seed).spawn(replications)
    chunks = [
        (part_spec, run_model, window, window_stream)
        for stream in streams
        for part_spec, window, window_stream in zip(specs, plan, stream.spawn(len(plan)), strict=True)
    ]
    done = run_chunks(simulate_window, chunks, scheduler=scheduler)
    figures = []
    extrapolated: set[str] = set()
    for r in range(replications):
        mine = done[r * len(plan) : (r + 1) * len(plan)]
        figures.append(_joined([part.tally for part in mine], duration_s, plan).figures())
        extrapolated.update(name for part in mine for name in part.extrapolated)
        if progress is not None:
            progress()
    result = summarise(spec, run_model, figures, duration_s, 0.0, seed, series_s=duration_s)
    return result.model_copy(update={"load_extrapolated": sorted(extrapolated)})
