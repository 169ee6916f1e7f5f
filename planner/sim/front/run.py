"""One path from a workload and a provider model to simulated windows and target verdicts.

``simulate_workload`` is what ``planner simulate`` (``planner.sim.front.workload_sim``) and
``recommend`` both run: it adapts the workload to each window, simulates it on the
``ProviderModel`` the caller has already built, and judges the workload's targets on the peak
window with the evidence of what each figure rests on. It loads nothing and prints nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.errors import InputError
from planner.evidence import Evidence, TargetVerdict
from planner.sim.engine import StreamedTrace, shortest_request_s, simulate_spec
from planner.sim.front.workload_adapter import Window, adapt_workload
from planner.sim.result import SimulationResult, demonstrated_bits_per_s, figure_evidence, judge_simulated
from planner.sim.spec import SimSpec, TraceArrivals
from planner.units import format_duration
from planner.workload import Workload

if TYPE_CHECKING:
    from planner.measure.profile import ProfileSummary
    from planner.pricing.models import Limits
    from planner.sim.model import ProviderModel

SIMULATED_PEAK = "simulated peak"


@dataclass(frozen=True)
class WorkloadRun:
    """A workload's simulated windows on one provider model, and its targets judged on the peak."""

    windows: dict[str, SimulationResult]
    verdicts: list[TargetVerdict]
    evidence: dict[str, Evidence]
    notes: list[str]  # what the adapters derived or assumed (and a replayed trace), in order, each once

    @property
    def peak(self) -> SimulationResult:
        return self.windows["peak"]


def simulate_workload(
    workload: Workload,
    model: ProviderModel,
    *,
    summary: ProfileSummary,
    limits: Limits | None = None,
    windows: Sequence[Window] = ("peak",),
    duration_s: float,
    seed: int,
    replications: int,
    trace: TraceArrivals | None = None,
    progress: Callable[[], None] | None = None,
    judged_on: str = SIMULATED_PEAK,
) -> WorkloadRun:
    """Simulate ``duration_s`` of each window ``replications`` times on ``model`` and judge the targets.

    ``summary`` is the profile the model was built from (what it demonstrates bounds the evidence of
    a simulated rate); ``limits`` (a price table's) shape multipart uploads and give the documented
    request rates. ``trace`` replaces the peak window's arrivals with a trace's, over its own span.
    ``judged_on`` names what the verdicts rest on, as the caller shows it.
    """
    notes: list[str] = []
    results: dict[str, SimulationResult] = {}
    for window in windows:
        adapted = adapt_workload(workload, window=window, limits=limits)
        notes += [note for note in adapted.assumptions if note not in notes]
        spec, window_s = _replayed(adapted.spec, trace, notes) if window == "peak" else (adapted.spec, None)
        if window_s is None:
            _check_window(spec, model, duration_s)
        arrivals = spec.arrivals
        if window_s is not None and isinstance(arrivals, StreamedTrace) and arrivals.scheduler is not None:
            from planner.sim.front.trace_windows import (
                simulate_windows,  # a streamed trace, in time windows on a cluster
            )

            results[window] = simulate_windows(
                spec, model, window_s, seed, replications, scheduler=arrivals.scheduler, progress=progress
            )
            continue
        results[window] = simulate_spec(spec, model, window_s or duration_s, seed, replications, progress=progress)
    peak = results["peak"]
    mean_bytes = workload.storage.mean_object_bytes
    verdicts = judge_simulated(
        peak.slo,
        model,
        mean_bytes=mean_bytes,
        demonstrated_bits_per_s=demonstrated_bits_per_s(summary),
        judged_on=judged_on,
        extrapolated=peak.load_extrapolated,
    )
    evidence = figure_evidence(model, mean_bytes, peak.load_extrapolated)
    return WorkloadRun(windows=results, verdicts=verdicts, evidence=evidence, notes=notes)


def _replayed(spec: SimSpec, trace: TraceArrivals | None, notes: list[str]) -> tuple[SimSpec, float | None]:
    """The peak window's spec with the trace's arrivals (and keys) in place of the synthetic ones."""
    if trace is None:
        return spec, None
    from planner.sim.front.trace import replay_window_s

    keys = spec.keys.model_copy(update={"keys": trace.key_count, "hot": None, "zipf_exponent": 0.0})
    window_s = replay_window_s(trace)
    notes.append(
        f"peak window: {trace.source} replayed ({trace.requests:,} requests over {window_s:g} s), its"
        " operations, sizes and keys as recorded; the workload's client, limits and provider model apply"
    )
    return spec.model_copy(update={"arrivals": trace, "keys": keys, "put_sizes": None}), window_s


def _check_window(spec: SimSpec, model: ProviderModel, duration_s: float) -> None:
    """Refuse a window shorter than the shortest request the model answers: no request would end in it."""
    shortest_s = shortest_request_s(spec, model)
    if duration_s < shortest_s:
        least = f"{math.ceil(shortest_s * 1000)}ms" if shortest_s < 1 else f"{math.ceil(shortest_s)}s"
        raise InputError(
            f"a {format_duration(duration_s)} window is shorter than the shortest request: {model.provider_id}'s model"
            f" answers none in less than {format_duration(shortest_s)} (give --duration {least} or more; the"
            " percentiles of a steady load settle within minutes)",
            source="--duration",
        )
