"""A measured profile's surface: latency by operation and object size, stream curves and server
capacity, taken from every usable cell rather than one summary figure (``with_measured_surface``,
which ``planner.sim.model.profile_adapter.provider_model_from_profile`` applies to a measured or merged
profile).

Per operation and object size, the least-loaded cell (an open-loop cell at the lowest arrival rate,
else the closed loop with the fewest requests in flight) gives the unloaded latency distribution
(GET: TTFB; its histogram, else its p50/p90/p95/p99/p99.9 as an empirical quantile function),
interpolated in log size (``latency_by_size``); GET stream rates are the size over latency less
TTFB, PUT's the size over the latency it adds to the smallest PUT; and where a size's cells level
off (the rate stops growing with the requests in flight, Little's law; ``in_flight_mean`` when
measured) their best rate is that size's capacity, one first-come-first-served server whose
queue adds the load-dependent part of the latency (``server_queues``). Open-loop cells, where
present, come first: one that fell behind its offered rate gives the capacity (its completed
rate), one that kept up with more than the closed loops reached raises it, and those that kept up
under load give the server count and service spread whose M/G/c waits fit their latency rise
(closed loops alone cannot tell one server from several). Published references
keep the summary model: they publish too few cells for it, and the assumptions say so."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from planner.evidence import Evidence
from planner.sim.model.profile_cells import (
    REQUEST_BOUND,
    base_cells,
    capacity_of,
    in_flight,
    latency_from_cell,
    unusable,
)
from planner.sim.model.provider import (
    BandwidthCurve,
    BandwidthPoint,
    LatencyModel,
    LoadedLatency,
    ProviderModel,
    ServerQueue,
    SizedLatency,
)
from planner.sim.model.wakeup import WakeUp
from planner.units import format_bytes

if TYPE_CHECKING:
    from planner.measure.profile import Cell, Profile

REPLACED_BY_SURFACE = ("PUT, HEAD and LIST server latency", "GET stream curve", "PUT stream curve")
"""Assumptions of the summary-based model that the measured surface replaces."""

_MAX_SERVERS = 64
_EXPONENTIAL = LatencyModel.empirical(
    [(q, -math.log1p(-q)) for q in (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999)]
)
"""Exponential service times of mean 1 (a quantile function through its knots; the tail continues it)."""


def erlang_c_wait_s(arrival_per_s: float, service_s: float, servers: int) -> float:
    """Mean wait in M/M/c (Erlang C): the chance of waiting over (c / s - arrival rate)."""
    offered = arrival_per_s * service_s
    if offered >= servers:
        return math.inf
    term, total = 1.0, 1.0
    for k in range(1, servers):
        term *= offered / k
        total += term
    top = term * offered / servers / (1 - offered / servers)
    return top / (total + top) / (servers / service_s - arrival_per_s)


def _servers(
    cells: list[Cell],
    capacity_per_s: float,
    unloaded_mean_s: Callable[[float], float],
    spreads: list[tuple[LatencyModel | None, str]],
) -> tuple[int, LatencyModel | None, str] | None:
    """How many servers share ``capacity_per_s``, and which of ``spreads`` their service times follow,
    from how latency rose in open-loop cells that kept up with their offered rate: the pair whose mean
    wait on top of the unloaded mean latency at the cell's rate (``unloaded_mean_s``: the idle and
    back-to-back latencies mixed as the simulator mixes them) comes closest (in log) to the cells'
    mean latencies.
    The wait is M/M/c's (Erlang C) times (1 + the squared coefficient of variation of the service
    times) / 2 (Allen-Cunneen's M/G/c), for the spread the simulator will draw (None: constant).
    None without such a cell (one server, the closed-loop spread)."""
    loaded = [
        c
        for c in cells
        if c.mode == "open"
        and c.offered_per_s
        and c.latency_s.mean
        and c.offered_per_s < capacity_per_s
        and in_flight(c) >= 1
    ]
    if not loaded:
        return None

    def misfit(servers: int, factor: float) -> float:
        service_s = servers / capacity_per_s
        return sum(
            math.log(
                (
                    unloaded_mean_s(c.offered_per_s or 0.0)
                    + factor * erlang_c_wait_s(c.offered_per_s or 0.0, service_s, servers)
                )
                / (c.latency_s.mean or 1)
            )
            ** 2
            for c in loaded
        )

    options = [(_variability(spread), spread, label) for spread, label in spreads]
    count, factor, spread, label = min(
        ((n, factor, spread, label) for n in range(1, _MAX_SERVERS + 1) for factor, spread, label in options),
        key=lambda choice: misfit(choice[0], choice[1]),
    )
    rates = ", ".join(f"{c.offered_per_s:.4g}/s {(c.latency_s.mean or 0) * 1000:.3g} ms" for c in loaded)
    return (
        count,
        spread,
        (
            f"the count and service spread ({label}) whose M/G/c waits (Erlang C x {factor:.2f}) fit the open-loop "
            f"cells' mean latencies ({rates})"
        ),
    )


def _variability(spread: LatencyModel | None) -> float:
    """Allen-Cunneen's factor on M/M/c waits for service times spread as ``spread`` (mean 1; None:
    constant): (1 + their squared coefficient of variation) / 2."""
    if spread is None:
        return 0.5
    draws = spread.quantile((np.arange(4000) + 0.5) / 4000)
    return (1 + float(draws.var() / draws.mean() ** 2)) / 2


def _loaded_latency(
    cells: list[Cell],
    queue: ServerQueue,
    op: str,
    unloaded: SizedLatency,
    sparse: SizedLatency | None,
    shifts: dict[int, float],
) -> tuple[LoadedLatency, str] | None:
    """The latency ``op``'s requests add under load, from its open-loop cells that kept up with their
    offered rate with a request or more in flight: per cell, at the queue's utilisation there, the
    measured quantiles less the unloaded model's (the idle and busy latencies mixed as the simulator
    mixes them at that rate), never below zero; once whole (``LoadedLatency.whole``) and once less
    the queue's mean wait there (Allen-Cunneen), for where the queue runs. None without such a cell."""
    factor = _variability(queue.service_spread)
    points: dict[float, LatencyModel] = {}
    whole: dict[float, LatencyModel] = {}
    shown: list[str] = []
    connections: list[int] = []
    for cell in cells:
        rate, size = cell.offered_per_s, cell.object_size_bytes or 0
        if cell.mode != "open" or not rate or in_flight(cell) < 0.5 or capacity_of([cell]) is not None:
            continue
        service_s = queue.service_for(op, size)
        load = rate * service_s / queue.servers
        if not 0 < load < 1:
            continue
        if op == "get":
            measured = latency_from_cell(cell.ttfb_s, cell.ttfb_histogram)
        else:
            measured = latency_from_cell(cell.latency_s, cell.latency_histogram, shifts.get(size, 0.0))
        if measured is None:
            continue
        busy = unloaded.at(size)
        base = busy
        if sparse is not None:
            idle = min(math.exp(-rate * busy.mean_s), 1 - load)
            base = LatencyModel.mixture(sparse.at(size), busy, idle)
        wait_s = factor * erlang_c_wait_s(rate, service_s, queue.servers)
        levels = sorted({q for q, _ in measured.quantiles} | {q for q, _ in base.quantiles})
        above = measured.quantile(levels) - base.quantile(levels)
        for into, excess in ((points, np.maximum(above - wait_s, 0.0)), (whole, np.maximum(above, 0.0))):
            into[round(load, 6)] = LatencyModel.empirical(
                list(zip(levels, np.maximum.accumulate(excess).tolist(), strict=True))
            )
        connections.append(cell.concurrency)
        shown.append(
            f"{rate:.4g}/s ({load:.0%} busy): p50 {measured.p50_s * 1000:.3g} ms measured, "
            f"{(base.p50_s + wait_s) * 1000:.3g} ms unloaded plus mean wait"
        )
    if not points:
        return None
    loaded = LoadedLatency(
        points=sorted(points.items()), whole=sorted(whole.items()), client_connections=max(connections)
    )
    return loaded, (
        f"{op.upper()} latency under load from its open-loop cells ("
        + "; ".join(shown)
        + "): a steady open loop below the capacity draws what they measured beyond the unloaded latency, "
        "quantile by quantile, at the window's utilisation (interpolated in utilisation / (1 - utilisation); "
        f"past the last cell's {max(whole):.0%} load extrapolated along the last two cells' curve), and does not "
        "queue (the cells' waits are in it); at the capacity, or with a varying rate, the queue runs and the "
        "last cell's excess beyond the queue's mean wait is added; the cells' latency runs from the arrival, so "
        f"it holds their client's waits for one of its {max(connections)} connections: drawn whole, a request "
        "does not wait for a connection again where the simulated client has as many or more"
    )


def _body_tail(cell: Cell, median_s: float) -> LatencyModel | None:
    """How much longer than ``median_s`` a body took in ``cell``: its latency less its TTFB,
    quantile by quantile (comonotone: a slow first byte and a slow body go together, an
    approximation), less the median, never below zero. None without both distributions."""
    total = latency_from_cell(cell.latency_s, cell.latency_histogram)
    first = latency_from_cell(cell.ttfb_s, cell.ttfb_histogram)
    if total is None or first is None:
        return None
    levels = sorted({q for q, _ in total.quantiles} | {q for q, _ in first.quantiles})
    beyond = np.maximum(total.quantile(levels) - first.quantile(levels) - median_s, 0.0)
    if not beyond.any():
        return None
    return LatencyModel.empirical(list(zip(levels, np.maximum.accumulate(beyond).tolist(), strict=True)))


def _service_spread(cells: list[Cell]) -> tuple[LatencyModel | None, str]:
    """How much one request's service time varies, from the most loaded closed-loop cell of the
    smallest size: its latency distribution over its mean. A saturated server shares itself among
    the requests in flight, so each one's time there scales with its own work; the spread of that
    cell is the spread of the work."""
    smallest = min(c.object_size_bytes or 0 for c in cells)
    loaded = [c for c in cells if (c.object_size_bytes or 0) == smallest and c.mode == "closed"]
    if not loaded:
        return None, "service times taken as constant (no closed-loop cell shows their spread)"
    busiest = max(loaded, key=in_flight)
    model = latency_from_cell(busiest.latency_s, busiest.latency_histogram)
    if model is None or in_flight(busiest) < 2:
        return None, "service times taken as constant (no loaded cell shows their spread)"
    mean = model.mean_s
    spread = LatencyModel.empirical([(q, v / mean) for q, v in model.quantiles])
    return spread, (
        f"service times spread as the latency of the most loaded {busiest.op.upper()} cell "
        f"({in_flight(busiest):.3g} in flight; p99 {spread.p99_s or 0:.2g}x and p50 {spread.p50_s:.2g}x the mean)"
    )


@dataclass
class _Surface:
    """What one operation's usable cells show, size by size: the unloaded latency (``points``), the
    latency when client and server idle (``sparse_points``), the body's tail (``tail_points``), the
    stream curve, the service time where a size's cells level off, the best server fit, and the
    transfer each size's latency holds (``shifts``, taken back out of the loaded cells)."""

    points: list[tuple[int, LatencyModel]] = field(default_factory=list)
    sparse_points: list[tuple[int, LatencyModel]] = field(default_factory=list)
    tail_points: list[tuple[int, LatencyModel]] = field(default_factory=list)
    stream: list[BandwidthPoint] = field(default_factory=list)
    service: list[tuple[int, float]] = field(default_factory=list)
    server: tuple[int, LatencyModel | None, str] | None = None
    shifts: dict[int, float] = field(default_factory=dict)
    wake_up: WakeUp | None = None


_SURFACE_FIELD = {"get": "ttfb_get", "put": "ttfb_put", "head": "ttfb_head", "list": "ttfb_list"}


def with_measured_surface(model: ProviderModel, profile: Profile) -> tuple[ProviderModel, list[str]]:
    """``model`` with latency by operation and size, stream curves and server capacity taken from
    every usable cell of a measured profile, and the notes saying how.

    Per operation and size, the least-loaded cell gives the unloaded latency distribution (GET:
    its TTFB; PUT, HEAD, LIST: its whole latency less the transfer the simulator adds); the load
    on top of it comes from one first-come-first-served server whose service time per operation
    and size is the inverse of the rate where that size's cells level off (Little's law on the
    in-flight count). Closed-loop cells cannot tell one server of service s from c servers of
    c·s (their curves agree), so one server is modelled and the note says so.
    """
    cells = [c for c in profile.cells if not unusable(c) and c.status != "missing" and c.latency_s.p50 is not None]
    updates: dict[str, object] = {}
    evidence: dict[str, Evidence] = dict(model.evidence)
    notes: list[str] = []
    surfaces: dict[str, _Surface] = {}
    for op in ("get", "put", "head", "list"):
        mine = [c for c in cells if c.op == op and (op != "get" or c.ttfb_s.p50 is not None)]
        if mine:
            surfaces[op] = surface = _survey(op, mine, cells, notes)
            if surface.points:
                updates.update(_adopt_surface(op, surface, notes, evidence))
    sized = {op: SizedLatency(points=s.points) for op, s in surfaces.items() if s.points}
    if not sized:
        return model, notes
    sparse_sized = {op: SizedLatency(points=s.sparse_points) for op, s in surfaces.items() if s.sparse_points}
    _note_tail_and_sparse(sized, bool(sparse_sized), notes, evidence)
    queues, loaded = _server_queues(surfaces, cells, sized, sparse_sized, notes, evidence)
    updates.update(
        latency_by_size=sized,
        sparse_latency_by_size=sparse_sized,
        body_tail_by_size={
            op: SizedLatency(points=s.tail_points) for op, s in surfaces.items() if s.points and s.tail_points
        },
        server_queues=queues,
        loaded_latency=loaded,
        wake_up={op: s.wake_up for op, s in surfaces.items() if s.wake_up is not None and s.wake_up.extra_s > 0},
        evidence=evidence,
    )
    return model.model_copy(update=updates), notes


def _survey(op: str, mine: list[Cell], cells: list[Cell], notes: list[str]) -> _Surface:
    """One operation's surface from its cells, size by size (``notes`` hears each size's capacity and
    the sparse cells)."""
    by_size: dict[int, list[Cell]] = {}
    for cell in mine:
        by_size.setdefault(cell.object_size_bytes or 0, []).append(cell)
    bases = {size: base_cells(group) for size, group in sorted(by_size.items())}
    smallest = bases[min(bases)][0]
    surface = _Surface()
    for size, (base, sparse) in bases.items():
        transfer_s, tail = _transfer_s(op, base, sparse, smallest)
        if tail is not None:
            surface.tail_points.append((size, tail))
        assert base.latency_s.p50 is not None
        moves = size > 0 and transfer_s >= REQUEST_BOUND * base.latency_s.p50
        surface.shifts[size] = transfer_s if moves and op != "get" else 0.0
        if moves:
            surface.stream.append(BandwidthPoint(size_bytes=size, bits_per_s=size * 8 / transfer_s))
        for source, into in ((base, surface.points), (sparse, surface.sparse_points)):
            latency = None if source is None else _unloaded_latency(op, source, transfer_s if moves else 0.0)
            if latency is not None:
                into.append((size, latency))
        _fit_capacity(op, size, by_size[size], (base, sparse), cells, surface, notes)
    surface.wake_up = _wake_up(op, mine, notes) if surface.sparse_points else None
    if surface.sparse_points:
        notes.append(
            f"{op.upper()} latency when client and server idle: the sparse open-loop cells (p50 "
            + ", ".join(
                f"{format_bytes(size, binary=True)} {m.p50_s * 1000:.3g} ms" for size, m in surface.sparse_points
            )
            + "); a request arriving with nothing else in flight (probability exp(-requests in flight), the "
            "in-flight count by Little's law on the simulated rate) draws from it"
        )
    return surface


def _wake_up(op: str, mine: list[Cell], notes: list[str]) -> WakeUp | None:
    """The wake-up term (``planner.sim.model.wakeup``) of ``op``'s sparse open-loop cells (under half a request
    in flight) at the smallest size measured at two rates or more: the sparsest and the busiest sparse
    cell's distributions (GET: TTFB) read at the same probabilities. None, and ``notes`` says the term
    is off, without two such rates."""
    by_size: dict[int, dict[float, Cell]] = {}
    for cell in mine:
        if cell.mode == "open" and cell.offered_per_s and in_flight(cell) < 0.5:
            by_size.setdefault(cell.object_size_bytes or 0, {})[cell.offered_per_s] = cell
    laddered = sorted(size for size, rates in by_size.items() if len(rates) >= 2)
    if not laddered:
        notes.append(
            f"{op.upper()} wake-up term off: no sparse open-loop cells at two rates (a server idle between requests "
            "may answer slower at sparser traffic; to fit it, measure two sparse rates, e.g. planner measure "
            "--open-loop 10/s,40/s,0.5x,0.8x)"
        )
        return None
    size = laddered[0]
    rates = by_size[size]
    slow, fast = rates[min(rates)], rates[max(rates)]
    slow_model, fast_model = (_unloaded_latency(op, cell, 0.0) for cell in (slow, fast))
    if slow_model is None or fast_model is None:
        return None
    levels = sorted({q for q, _ in slow_model.quantiles} | {q for q, _ in fast_model.quantiles})
    term = WakeUp(
        slow_rate_per_s=min(rates),
        fast_rate_per_s=max(rates),
        quantiles=list(
            zip(levels, slow_model.quantile(levels).tolist(), fast_model.quantile(levels).tolist(), strict=True)
        ),
    )
    slow_p95, fast_p95 = slow_model.quantile([0.95]).item(), fast_model.quantile([0.95]).item()
    notes.append(
        f"{op.upper()} wake-up term from its sparse {format_bytes(size, binary=True)} cells: p50 "
        f"{slow_model.p50_s * 1000:.3g} ms and p95 {slow_p95 * 1000:.3g} ms at {term.slow_rate_per_s:g}/s, "
        f"{fast_model.p50_s * 1000:.3g} ms and {fast_p95 * 1000:.3g} ms at {term.fast_rate_per_s:g}/s; between "
        "the two rates each percentile is a power of the rate, below the sparser the sparser cell's, above the "
        "busier the busier one's"
    )
    return term


def _transfer_s(op: str, base: Cell, sparse: Cell | None, smallest: Cell) -> tuple[float, LatencyModel | None]:
    """The time a size's least-loaded cell spends moving bytes, and (GET) how much longer than that
    its body took."""
    assert base.latency_s.p50 is not None
    if op == "get":
        assert base.ttfb_s.p50 is not None
        # a lone request's body time: the sparse open-loop cell's where there is one (client and
        # server idle, nothing else in flight, and the client the open-loop cells ran with)
        lone = sparse if sparse is not None and sparse.ttfb_s.p50 is not None else base
        transfer_s = (lone.latency_s.p50 or 0.0) - (lone.ttfb_s.p50 or 0.0)
        return transfer_s, _body_tail(lone, transfer_s)
    return (base.latency_s.p50 - (smallest.latency_s.p50 or 0.0) if op == "put" else 0.0), None


def _unloaded_latency(op: str, source: Cell, shift_s: float) -> LatencyModel | None:
    """A cell's latency distribution as the simulator draws it: GET's TTFB, else the whole latency
    less the transfer the simulator adds."""
    if op == "get":
        return latency_from_cell(source.ttfb_s, source.ttfb_histogram)
    return latency_from_cell(source.latency_s, source.latency_histogram, shift_s)


def _fit_capacity(
    op: str,
    size: int,
    group: list[Cell],
    least_loaded: tuple[Cell, Cell | None],
    cells: list[Cell],
    surface: _Surface,
    notes: list[str],
) -> None:
    """Where a size's cells level off: its service time, and the servers whose waits fit its
    open-loop cells (kept in ``surface`` when more than any other size's)."""
    capacity = capacity_of(group)
    if capacity is None:
        return
    surface.service.append((size, 1.0 / capacity[0]))
    notes.append(
        f"{op.upper()} {format_bytes(size, binary=True) if size else ''} capacity {capacity[0]:.4g}/s: "
        f"where its cells level off ({capacity[1]})"
    )
    base, sparse = least_loaded
    busy_mean = base.latency_s.mean or base.latency_s.p50 or 0.0
    idle_mean = (sparse.latency_s.mean or sparse.latency_s.p50 or 0.0) if sparse else busy_mean

    def unloaded(rate: float) -> float:
        share = math.exp(-rate * busy_mean)  # as the simulator mixes them (Little's law on the rate)
        return share * idle_mean + (1 - share) * busy_mean

    closed_spread, _ = _service_spread([c for c in cells if c.op == op])
    spreads = [(closed_spread, "the most loaded closed loop's"), (_EXPONENTIAL, "exponential")]
    fitted = _servers(group, capacity[0], unloaded, spreads)
    if fitted is not None and fitted[0] > (surface.server or (0, None, ""))[0]:
        surface.server = fitted


def _adopt_surface(op: str, surface: _Surface, notes: list[str], evidence: dict[str, Evidence]) -> dict[str, object]:
    """The model fields one operation's surface sets, with its notes and evidence."""
    if surface.tail_points:
        notes.append(
            f"{op.upper()} body time beyond its median from the least-loaded cells (p99 "
            + ", ".join(
                f"{format_bytes(size, binary=True)} +{m.p99_s * 1000 if m.p99_s else 0:.3g} ms"
                for size, m in surface.tail_points
            )
            + "): latency less TTFB, quantile by quantile, less its median, drawn after the transfer (a body "
            "that stalls lengthens the latency, not the time to first byte)"
        )
        evidence[f"latency.body.{op}"] = "measured"
    what = "TTFB" if op == "get" else "latency"
    sizes_text = ", ".join(
        f"{format_bytes(size, binary=True)} {latency.p50_s * 1000:.3g} ms" if size else f"{latency.p50_s * 1000:.3g} ms"
        for size, latency in surface.points
    )
    notes.append(
        f"{op.upper()} {what} from the least-loaded cells of each size (p50 {sizes_text}), their measured "
        "quantiles as the distribution, interpolated in log size"
    )
    evidence[f"latency.{op}"] = "measured"
    updates: dict[str, object] = {_SURFACE_FIELD[op]: surface.points[0][1]}
    if op in ("get", "put"):
        direction = "read" if op == "get" else "write"
        updates[f"stream_{direction}"] = BandwidthCurve(points=surface.stream)
        if surface.stream:
            evidence[f"stream.{direction}"] = "measured"
        if op == "get" and len(surface.points) > 1:
            evidence["latency.size"] = "measured"
    if surface.service:
        evidence[f"capacity.{op}"] = "derived"
    else:
        evidence[f"capacity.{op}"] = "assumed"
        notes.append(
            f"{op.upper()} capacity: its cells never level off (the rate grew with the requests in flight): "
            "left unbounded"
        )
    return updates


def _note_tail_and_sparse(
    sized: dict[str, SizedLatency], sparse: bool, notes: list[str], evidence: dict[str, Evidence]
) -> None:
    tails = [m for s in sized.values() for _, m in s.points]
    evidence["latency.tail"] = "measured"
    last = max(q for m in tails for q, _ in m.quantiles)
    notes.append(
        f"latency tail: measured up to the p{last * 100:g}; beyond it the slope of the last two quantiles "
        "continues (extrapolated)"
    )
    if sparse:
        evidence["latency.sparse"] = "measured"
    else:
        evidence["latency.sparse"] = "assumed"
        notes.append(
            "unloaded latency from closed loops back to back; sparse arrivals may see more (a server and client "
            "that idle between requests wake up slower): the profile has no open-loop cell to show it"
        )


def _server_queues(
    surfaces: dict[str, _Surface],
    cells: list[Cell],
    sized: dict[str, SizedLatency],
    sparse_sized: dict[str, SizedLatency],
    notes: list[str],
    evidence: dict[str, Evidence],
) -> tuple[list[ServerQueue], dict[str, LoadedLatency]]:
    """A first-come-first-served queue for each operation whose cells level off, and the latency its
    open-loop cells measured under load."""
    queues: list[ServerQueue] = []
    loaded: dict[str, LoadedLatency] = {}
    service = {op: s.service for op, s in surfaces.items() if s.service}
    for op, op_service in sorted(service.items()):
        surface = surfaces[op]
        spread, spread_note = _service_spread([c for c in cells if c.op == op])
        count, fitted_spread, how = surface.server or (1, spread, "")
        if how:
            spread = fitted_spread
            spread_note = "service times spread as the open-loop cells' waits show (below)"
        queue = ServerQueue(
            operations=[op, "upload-part"] if op == "put" else [op],
            servers=count,
            service_s=min(op_service)[1] * count,
            service_spread=spread,
            service_by_size={op: [(size, seconds * count) for size, seconds in sorted(op_service)]},
        )
        queues.append(queue)
        if op in sized:
            found = _loaded_latency(
                [c for c in cells if c.op == op], queue, op, sized[op], sparse_sized.get(op), surface.shifts
            )
            if found is not None:
                loaded[op] = found[0]
                notes.append(found[1])
                evidence[f"latency.load.{op}"] = "measured"
        notes.append(f"{op.upper()} {spread_note}")
        if how:
            notes.append(f"{op.upper()} capacity shared by {count} server(s): {how}")
    if queues:
        evidence["capacity"] = "derived"
        notes.append(
            "server capacity as first-come-first-served servers per operation ("
            + ", ".join(op.upper() for op in sorted(service))
            + "), each request holding one for servers / its size's capacity: latency is the unloaded draw plus the "
            "wait for a server (one server unless open-loop cells under load show how the waits grow: closed-loop "
            "cells cannot tell one server from several slower ones; operations do not slow each other, so a mix "
            "is held to each operation's own capacity)"
        )
    return queues, loaded
