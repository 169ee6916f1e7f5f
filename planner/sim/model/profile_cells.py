"""Reading one cell of a measured profile: which cells are usable, the latency model a cell's
percentiles or histogram give, its requests in flight, the least-loaded cells of a size and where
a set of cells levels off (its capacity). ``planner.sim.model.measured_surface`` builds on these, and
``planner.sim.model.profile_adapter`` shares the usability test and the request-bound share."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from planner.sim.model.provider import LatencyModel

if TYPE_CHECKING:
    from planner.measure.profile import Cell, LatencyHistogram, Percentiles

REQUEST_BOUND = 0.1
"""A stream point whose transfer is under this share of its request's time is bound by the request."""


def unusable(cell: Cell) -> bool:
    return "implausible" in cell.flags or "above-link" in cell.flags


_PERCENTILE_KNOTS: tuple[tuple[float, str], ...] = (
    (0.5, "p50"),
    (0.9, "p90"),
    (0.95, "p95"),
    (0.99, "p99"),
    (0.999, "p999"),
)
_HISTOGRAM_LEVELS = (0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999)
_LEVELLED = 0.7
"""A cell set levels off when its throughput at the most requests in flight is under this share of
what the least-loaded cell's rate would give if it grew in proportion to the requests in flight."""
_SATURATED_OPEN = 0.95
"""An open-loop cell that completed under this share of its offered rate ran at the server's capacity."""


def latency_from_cell(
    percentiles: Percentiles, histogram: LatencyHistogram | None, shift_s: float = 0.0
) -> LatencyModel | None:
    """An empirical latency model from a cell's histogram (when it has 20 samples or more) or its
    percentiles, less ``shift_s`` (the part of the request the simulator moves as a transfer).

    From percentiles, the knots are the measured p50/p90/p95/p99/p99.9; the knot at probability 0
    is set so the model's mean is the cell's mean (within half to all of the p50), or at 0.85 of
    the p50 when no mean was measured. None when the cell has no p50.
    """
    knots: list[tuple[float, float]] = []
    if histogram is not None and histogram.total >= 20:
        total, half_bucket = histogram.total, math.sqrt(histogram.growth)
        first = histogram.upper_edge_s(histogram.counts[0][0]) / histogram.growth
        knots = [(0.0, first)]
        for level in _HISTOGRAM_LEVELS:
            if min(level, 1 - level) * total >= 1:
                value = histogram.quantile(level)
                assert value is not None
                knots.append((level, max(first, value / half_bucket)))
    else:
        for level, name in _PERCENTILE_KNOTS:
            value = getattr(percentiles, name)
            if value is not None:
                knots.append((level, value))
        if not knots or knots[0][0] != 0.5:
            return None
        p50 = knots[0][1]
        knots = [(0.0, 0.85 * p50), *knots]
        if percentiles.mean is not None:
            low = LatencyModel.empirical(_monotone([(0.0, 0.5 * p50), *knots[1:]])).mean_s
            high = LatencyModel.empirical(_monotone([(0.0, p50), *knots[1:]])).mean_s
            if high > low:
                share = min(1.0, max(0.0, (percentiles.mean - low) / (high - low)))
                knots[0] = (0.0, p50 * (0.5 + 0.5 * share))
    shifted = [(level, max(value - shift_s, 0.1 * value)) for level, value in knots]
    return LatencyModel.empirical(_monotone(shifted))


def _monotone(knots: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for level, value in knots:
        out.append((level, max(value, out[-1][1]) if out else value))
    return out


def in_flight(cell: Cell) -> float:
    """Requests in flight on average: achieved (``in_flight_mean``), else Little's law on the cell's
    rate and mean latency, else the nominal concurrency."""
    if cell.in_flight_mean:
        return cell.in_flight_mean
    if cell.ops_per_s and cell.latency_s.mean:
        return cell.ops_per_s * cell.latency_s.mean
    return float(cell.concurrency)


def base_cells(cells: list[Cell]) -> tuple[Cell, Cell | None]:
    """The least-loaded cells: the closed loop with the fewest requests in flight (busy: back to
    back, client and server never idle; without one, the least-loaded open loop), and the
    open-loop cell at the lowest arrival rate if it had under half a request in flight (sparse:
    most requests find client and server idle)."""
    closed = [c for c in cells if c.mode == "closed"]
    opened = sorted((c for c in cells if c.mode == "open" and c.offered_per_s), key=lambda c: c.offered_per_s or 0.0)
    sparse = opened[0] if opened and in_flight(opened[0]) < 0.5 else None
    if closed:
        return min(closed, key=in_flight), sparse
    return (opened[0] if opened else min(cells, key=in_flight)), None


def capacity_of(cells: list[Cell]) -> tuple[float, str] | None:
    """The requests a second where a cell set levels off, and how that shows; None if it never did."""
    for cell in cells:
        offered, achieved, window_s = cell.offered_per_s, cell.ops_per_s, cell.duration_s
        if cell.mode != "open" or not offered or not achieved:
            continue
        # short of the offered rate by more than the arrivals' own (Poisson) noise allows
        expected = offered * window_s if window_s else math.inf
        noise = 3 * math.sqrt(expected) / expected if window_s else 0.0
        if achieved < (_SATURATED_OPEN - noise) * offered:
            return achieved, f"an open loop offered {offered:g}/s completed {achieved:.4g}/s"
    # closed loops only: their rate is what the server answered, an open loop's what was offered
    rated = sorted((c for c in cells if c.ops_per_s and c.mode == "closed"), key=in_flight)
    if len(rated) < 2:
        return None
    low, high = rated[0], rated[-1]
    assert low.ops_per_s is not None and high.ops_per_s is not None
    n_low, n_high = in_flight(low), in_flight(high)
    if n_high <= n_low or high.ops_per_s >= _LEVELLED * low.ops_per_s * n_high / n_low:
        return None
    best = max(c.ops_per_s or 0.0 for c in rated)
    kept_up = max((c.ops_per_s or 0.0 for c in cells if c.mode == "open"), default=0.0)
    if kept_up > best:
        # an open loop completed more than any closed loop without falling behind: the closed loops'
        # client (on the same cores, or slower per request) set their pace, not the server
        return kept_up / _SATURATED_OPEN, (
            f"the closed loops level off at {best:.4g}/s, but an open loop kept up with {kept_up:.4g}/s: "
            f"at least {kept_up:.4g}/s, taken as {kept_up / _SATURATED_OPEN:.4g}/s (where an open loop falls behind)"
        )
    return best, (
        f"{low.ops_per_s:.4g}/s at {n_low:.3g} in flight, {high.ops_per_s:.4g}/s at {n_high:.3g} "
        "(in flight by Little's law: rate x mean latency)"
    )
