"""Near saturation, a band and not a point.

An open-loop ladder (GETs at rising offered rates, run again in several rounds) shows the server's
knee: in each round, the completed rate of the first rung that fell behind its arrivals is that
round's capacity, and on a shared machine it moves from round to round (SeaweedFS on two cores:
sim/live 0.80 one run, 1.21 the next, at 75 % of the peak). The simulator follows the cells it is
given, so near the knee its figure is only as steady as they are: ``fit_knee`` keeps each rung's
spread over the rounds (lowest, median, highest), and ``capacity_band`` turns a simulated window's
figures near capacity into the band of the rungs it rests on (each figure times the rungs' lowest
and highest over their median). A target inside that band is at risk, not met; a rate at or above
the slowest round's capacity may saturate, and its latency has no upper bound."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from planner.sim.result import BandFigure, CapacityBand
from planner.units import format_duration

if TYPE_CHECKING:
    from planner.measure.profile import Cell

__all__ = [
    "NEAR_SHARE",
    "Knee",
    "LadderRung",
    "Spread",
    "band_line",
    "capacity_band",
    "fit_knee",
    "knee_from_cells",
    "knee_note",
]

NEAR_SHARE = 0.5
"""A window is near capacity from this share of the knee's median capacity up: below it the waits the
ladder's rounds disagree on are a small part of the latency."""
_KEPT_UP = 0.95
"""A rung kept up when it completed this share of its offered rate or more (less Poisson noise)."""
_FIGURES = ("ttfb_p99_s", "latency_p50_s", "latency_p99_s")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Spread(_Frozen):
    """One figure over the rounds: the lowest, the median and the highest."""

    low: float
    median: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        return cls(low=min(values), median=statistics.median(values), high=max(values))

    def ratios(self) -> tuple[float, float]:
        """Lowest and highest over the median (1, 1 for a median of 0)."""
        if self.median <= 0:
            return 1.0, 1.0
        return self.low / self.median, self.high / self.median


class LadderRung(_Frozen):
    """One offered rate of the ladder over its rounds."""

    offered_per_s: float = Field(gt=0)
    rounds: int = Field(ge=1)
    completed_per_s: Spread
    ttfb_p99_s: Spread | None = None
    latency_p50_s: Spread | None = None
    latency_p99_s: Spread | None = None


class Knee(_Frozen):
    """Where an operation's open-loop ladder levels off, round by round (``fit_knee``)."""

    operation: str = "get"
    size_bytes: int = Field(ge=0)
    capacity_per_s: Spread = Field(description="each round's capacity: the first rung that fell behind, its rate")
    bounded: bool = Field(
        True, description="False when some round never fell behind: its capacity is its best rate, a lower bound"
    )
    rungs: list[LadderRung] = Field(min_length=1)


def _kept_up(offered_per_s: float, completed_per_s: float, window_s: float | None) -> bool:
    expected = offered_per_s * (window_s or math.inf)
    noise = 3 / math.sqrt(expected) if math.isfinite(expected) and expected > 0 else 0.0
    return completed_per_s >= (_KEPT_UP - noise) * offered_per_s


def fit_knee(
    ladder: Sequence[tuple[float, Sequence[tuple[float, float | None, dict[str, float]]]]],
    *,
    operation: str = "get",
    size_bytes: int = 0,
) -> Knee | None:
    """The knee of a ladder: per offered rate, its rounds as ``(completed_per_s, window_s, figures)``
    (``figures`` by name: ttfb_p99_s, latency_p50_s, latency_p99_s, those measured). Round ``r`` is
    each rate's ``r``-th run; its capacity is the completed rate of its lowest rate that fell behind,
    or its best completed rate if none did (a lower bound). None for an empty ladder."""
    ladder = sorted((rate, runs) for rate, runs in ladder if runs)
    if not ladder:
        return None
    rounds = max(len(runs) for _, runs in ladder)
    capacities, bounded = [], True
    for r in range(rounds):
        mine = [(rate, runs[r]) for rate, runs in ladder if r < len(runs)]
        behind = next((run[0] for rate, run in mine if not _kept_up(rate, run[0], run[1])), None)
        if behind is None:
            bounded = False
            behind = max(run[0] for _, run in mine)
        capacities.append(behind)
    rungs = []
    for rate, runs in ladder:
        figures: dict[str, Spread] = {}
        for name in _FIGURES:
            values = [run[2][name] for run in runs if name in run[2]]
            if values:
                figures[name] = Spread.of(values)
        rungs.append(
            LadderRung(
                offered_per_s=rate,
                rounds=len(runs),
                completed_per_s=Spread.of([run[0] for run in runs]),
                **figures,
            )
        )
    return Knee(
        operation=operation,
        size_bytes=size_bytes,
        capacity_per_s=Spread.of(capacities),
        bounded=bounded,
        rungs=rungs,
    )


def knee_from_cells(cells: Sequence[Cell], operation: str = "get") -> Knee | None:
    """The knee of a profile's open-loop cells of ``operation`` at its most laddered size, where some
    rate was run in two rounds or more (the same offered rate more than once); None otherwise."""
    ladders: dict[int, dict[float, list[tuple[float, float | None, dict[str, float]]]]] = {}
    for cell in cells:
        if cell.mode != "open" or cell.op != operation or not cell.offered_per_s or not cell.ops_per_s:
            continue
        figures = {
            name: value
            for name, value in (
                ("ttfb_p99_s", cell.ttfb_s.p99),
                ("latency_p50_s", cell.latency_s.p50),
                ("latency_p99_s", cell.latency_s.p99),
            )
            if value is not None
        }
        size = cell.object_size_bytes or 0
        ladders.setdefault(size, {}).setdefault(cell.offered_per_s, []).append(
            (cell.ops_per_s, cell.duration_s, figures)
        )
    repeated = {size: ladder for size, ladder in ladders.items() if any(len(runs) > 1 for runs in ladder.values())}
    if not repeated:
        return None
    size, ladder = max(repeated.items(), key=lambda item: len(item[1]))
    return fit_knee(list(ladder.items()), operation=operation, size_bytes=size)


def capacity_band(knee: Knee, offered_per_s: float, simulated: dict[str, float]) -> CapacityBand | None:
    """The band around a window's simulated figures (``simulated`` by name, as ``LadderRung``'s) at
    ``offered_per_s`` of the knee's operation: each figure times the lowest and highest over the median
    of the rungs it rests on (the rung at or below the rate and the one above; past the ladder, the last).
    None below ``NEAR_SHARE`` of the median capacity. At or above the slowest round's capacity the
    window may saturate: no upper bound."""
    capacity = knee.capacity_per_s
    if offered_per_s < NEAR_SHARE * capacity.median:
        return None
    below = [rung for rung in knee.rungs if rung.offered_per_s <= offered_per_s]
    above = [rung for rung in knee.rungs if rung.offered_per_s > offered_per_s]
    rests_on = ([below[-1]] if below else []) + ([above[0]] if above else [])
    may_saturate = offered_per_s >= capacity.low
    figures: dict[str, BandFigure] = {}
    for name in _FIGURES:
        value = simulated.get(name)
        spreads = [getattr(rung, name) for rung in rests_on if getattr(rung, name) is not None]
        if value is None or not math.isfinite(value) or not spreads:
            continue
        low = min(spread.ratios()[0] for spread in spreads)
        high = max(spread.ratios()[1] for spread in spreads)
        figures[name] = BandFigure(simulated=value, low=value * low, high=None if may_saturate else value * high)
    rounds = max(rung.rounds for rung in rests_on)
    rates = " and ".join(f"{rung.offered_per_s:.4g}/s" for rung in rests_on)
    return CapacityBand(
        operation=knee.operation.upper(),
        offered_per_s=offered_per_s,
        capacity_low_per_s=capacity.low,
        capacity_per_s=capacity.median,
        capacity_high_per_s=capacity.high,
        may_saturate=may_saturate,
        rests_on=f"the ladder's rungs at {rates} over {rounds} round(s)",
        figures=figures,
    )


def band_text(band: BandFigure) -> str:
    """``12 ms .. 40 ms``, or ``12 ms .. unbounded``."""
    high = "unbounded" if band.high is None else format_duration(band.high)
    return f"{format_duration(band.low)} .. {high}"


def knee_note(knee: Knee) -> str:
    """The knee in words, for the model's notes."""
    capacity = knee.capacity_per_s
    rounds = max(rung.rounds for rung in knee.rungs)
    bound = "" if knee.bounded else " (a round that never fell behind gives its best rate: a lower bound)"
    return (
        f"{knee.operation.upper()} knee from {len(knee.rungs)} open-loop rates over {rounds} rounds: capacity"
        f" {capacity.low:.4g}/s to {capacity.high:.4g}/s (median {capacity.median:.4g}/s){bound}; from"
        f" {NEAR_SHARE:.0%} of it the simulated GET figures are shown as the band the rounds of the rates they rest"
        " on spread over, and a target inside it is at risk, not met"
    )


_FIGURE_NAMES = {"ttfb_p99_s": "TTFB p99", "latency_p50_s": "latency p50", "latency_p99_s": "latency p99"}


def band_line(band: CapacityBand) -> str:
    """A window near capacity in one line: its rate against the rounds' capacities, and each band."""
    bands = ", ".join(f"{_FIGURE_NAMES[name]} {band_text(figure)}" for name, figure in band.figures.items())
    saturate = "; at or above the slowest round's capacity: it may saturate" if band.may_saturate else ""
    return (
        f"near capacity: {band.operation} {band.offered_per_s:.4g}/s offered, capacity {band.capacity_low_per_s:.4g}"
        f" to {band.capacity_high_per_s:.4g}/s over the ladder's rounds{saturate}; as a band ({band.rests_on}):"
        f" {bands or 'no figure'}"
    )
