"""From a measured or published profile summary to the ``ProviderModel`` the simulator asks.

Mapping (``measure.profile.ProfileSummary`` -> ``ProviderModel``):

- ``ttfb_p50_s``/``ttfb_p99_s`` -> ``ttfb_get``, a lognormal through both; without a p99 the
  p50 is taken as a constant (references often publish only a floor, e.g. R2's ~40 ms).
- ``get_stream_bytes_per_s``/``put_stream_bytes_per_s`` (size, bytes/s of a whole request) ->
  ``stream_read``/``stream_write`` (bits/s of the transfer alone: ``transfer_curve`` takes the
  latency the simulator adds to each request back out), interpolated.
- ``read_ceiling_bytes_per_s``/``write_ceiling_bytes_per_s`` -> the aggregate ceilings, when they are
  exact (a measured limit); a lower bound (the best rate a benchmark reached, often its client's
  limit) is not enforced, and the model's ``source`` says so.
- ``per_key_write_per_s`` -> a key-scoped token bucket on put and complete-multipart (429).
- ``hot_object_limit``/``_behaviour``/``_error`` -> ``hot_object``.

The price table's documented request rates (``Limits.request_rates``: S3's 3,500 writes and
5,500 reads a second per prefix, R2's one write a second per key) become token buckets too when
``provider_model_from_profile`` is given the table's limits; a documented rate replaces a
profile's figure of the same scope for the same operations.

Not mapped from the summary: ``ops_per_s`` (best observed rates, which may be the client's limit
rather than the provider's) and ``range_get_speedup`` (it emerges from the stream curve and the
link). Figures the summary lacks stay unbounded; the model's ``source`` lists them.

A measured (or merged) profile is then read cell by cell (``with_measured_surface``): per
operation and object size, the least-loaded cell (an open-loop cell at the lowest arrival rate,
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
keep the summary model: they publish too few cells for it, and the assumptions say so.

Most published references give no GET time to first byte (only R2's ~40 ms floor, seed 001).
``provider_model_from_profile`` then derives a request latency from what the profile does
publish, in this order, and says which in its assumptions:

1. a published mean (or p50) request latency of a small-request cell (HEAD, then LIST, then a
   GET of at most 256 KiB), e.g. IDrive e2's 9.8 ms HEAD latency (seed 002, section 6.3);
2. Little's law on a closed-loop cell with ops/s: mean latency = workers / (ops/s), since each of
   the ``concurrency`` workers always has one request in flight (seed 002 ran 10 workers:
   S3's 475.95 HEAD/s gives 21 ms);
3. only if neither exists, ``DEFAULT_TTFB_S``, flagged as a default.

A derived latency is a whole request's latency from the benchmark's client (network round trip
included), taken as a constant (no spread is published), and used for every operation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from planner.errors import InputError
from planner.evidence import Evidence
from planner.sim.provider import (
    BILLED_OPERATIONS,
    BandwidthCurve,
    BandwidthPoint,
    HotObjectLimit,
    LatencyModel,
    LoadedLatency,
    ProviderModel,
    RateLimit,
    ServerQueue,
    SizedLatency,
)
from planner.units import format_bytes

if TYPE_CHECKING:
    from planner.measure.profile import Cell, Citation, LatencyHistogram, Percentiles, Profile, ProfileSummary
    from planner.pricing.models import Limits

_PER_KEY_WRITE_ERROR = "429 Too Many Requests"
_SMALL_GET_BYTES = 256 * 1024  # seed 001: under ~256 KiB a GET is bound by request handling, not bytes

DEFAULT_TTFB_S = 0.050
"""Last-resort request latency when a profile publishes nothing to derive one from (50 ms: a
round figure inside the 10-100 ms the seeds' providers show; flagged wherever it is used)."""


def provider_model_from_profile(profile: Profile, limits: Limits | None = None) -> tuple[ProviderModel, list[str]]:
    """A ``ProviderModel`` from a whole profile, and the assumptions made where figures are missing.

    Unlike ``provider_model_from_summary`` it never fails for want of a GET TTFB: it derives one
    from the profile's cells (see the module docstring) or falls back to ``DEFAULT_TTFB_S``.
    ``limits`` (a price table's) adds the provider's documented request rates.
    """
    summary = profile.summary()
    assumptions: list[str] = []
    ttfb: LatencyModel | None = None
    latency_evidence: Evidence | None = None
    if summary.ttfb_p50_s is None:
        seconds, how = derived_latency_s(profile)
        ttfb = LatencyModel.constant(seconds)
        assumptions.append(how)
        latency_evidence = "assumed" if how.startswith("DEFAULT") else "derived"
    else:
        note = summary.notes.get("ttfb_p50_s")
        cited = "; ".join(_citation_text(c) for c in summary.citations.get("ttfb_p50_s", []))
        if note:
            assumptions.append(f"GET TTFB {summary.ttfb_p50_s * 1000:g} ms: {note} ({cited})")
        if summary.ttfb_p99_s is None:
            assumptions.append("GET TTFB p99 not in the profile: TTFB taken as constant at its p50")
    model = provider_model_from_summary(summary, ttfb=ttfb)
    if latency_evidence is not None:
        model = model.model_copy(update={"evidence": {**model.evidence, "latency.get": latency_evidence}})
    unknown = [
        item
        for item in model.source.partition("left unbounded or assumed: ")[2].split(", ")
        if item and not item.lower().startswith(("get ttfb", "ttfb p99"))
    ]
    if unknown:
        assumptions.append(f"not in the profile, left unbounded: {', '.join(unknown)}")
    if summary.hot_object_behaviour is not None and model.hot_object is None:
        assumptions.append(
            f"hot-object behaviour {summary.hot_object_behaviour!r} published without the concurrency "
            "where it starts: not modelled"
        )
    assumptions.append("PUT, HEAD and LIST server latency taken equal to GET TTFB (not published separately)")
    latency_ms = model.ttfb_get.p50_s * 1000
    for label, points in (("GET", summary.get_stream_bytes_per_s), ("PUT", summary.put_stream_bytes_per_s)):
        if not points:
            continue
        _, dropped = transfer_curve(points, model.ttfb_get.p50_s)
        note = (
            f"{label} stream curve: the profile's whole-request rates less the {latency_ms:.3g} ms latency the "
            "simulator adds to each request"
        )
        if dropped:
            sizes = ", ".join(format_bytes(size) for size in dropped)
            note += f"; {sizes} left out (bound by request latency: under a tenth of the request moves bytes)"
        assumptions.append(note)
    if profile.source.kind != "published":
        model, notes = with_measured_surface(model, profile)
        assumptions = [a for a in assumptions if not a.startswith(_REPLACED_BY_SURFACE)] + notes
    if not model.latency_by_size:
        assumptions.append(
            "latency taken as the same for every object size and load (the profile gives no latency by size)"
        )
    if not model.server_queues:
        assumptions.append(
            "server capacity unknown (no cells where the rate levels off while latency rises): requests never "
            "queue at the server, so latency does not grow with the offered rate"
        )
    if limits is not None and limits.request_rates:
        model = with_request_rates(model, limits)
    return model, assumptions


def with_request_rates(model: ProviderModel, limits: Limits) -> ProviderModel:
    """``model`` with the documented request rates of ``limits`` as token buckets (one second's burst).

    Only the operations the simulator issues are counted (a COPY or DELETE is not simulated); a
    documented rate replaces the model's limits of the same scope that count the same operations.
    """
    documented: list[RateLimit] = []
    for rate in limits.request_rates:
        operations = [op for op in rate.operations if op in BILLED_OPERATIONS]
        if operations:
            documented.append(RateLimit(operations=operations, scope=rate.scope, per_s=rate.per_s, error=rate.error))
    kept = [
        limit
        for limit in model.rate_limits
        if not any(d.scope == limit.scope and set(d.operations) & set(limit.operations) for d in documented)
    ]
    return model.model_copy(update={"rate_limits": [*kept, *documented]})


def derived_latency_s(profile: Profile) -> tuple[float, str]:
    """A request latency derived from a profile without a GET TTFB, and how it was derived.

    Closed-loop cells only: Little's law on workers / ops/s holds where every worker always has a
    request in flight, and an open-loop cell's rate is what was offered, not what its latency allows.
    """
    candidates = [c for c in profile.cells if c.status != "missing" and not _unusable(c) and c.mode == "closed"]

    def small(cell: Cell) -> int:
        order = {"head": 0, "list": 1, "get": 2}
        return order.get(cell.op, 9) * 100 + cell.concurrency

    eligible = sorted(
        (c for c in candidates if c.op in ("head", "list") or (c.op == "get" and _is_small(c))), key=small
    )
    for cell in eligible:
        published = cell.latency_s.mean if cell.latency_s.mean is not None else cell.latency_s.p50
        if published:
            kind = "mean" if cell.latency_s.mean is not None else "p50"
            return published, (
                f"GET TTFB derived: {published * 1000:.3g} ms, the published {kind} latency of the "
                f"{cell.op.upper()} cell at {cell.concurrency} workers ({_cell_citation(cell)}); a whole "
                "request from the benchmark's client, taken as constant"
            )
    for cell in eligible:
        if cell.ops_per_s:
            seconds = cell.concurrency / cell.ops_per_s
            return seconds, (
                f"GET TTFB derived by Little's law: {cell.concurrency} workers / {cell.ops_per_s:g} "
                f"{cell.op.upper()}/s = {seconds * 1000:.3g} ms mean request latency ({_cell_citation(cell)}); "
                "closed-loop workers always have a request in flight; network round trip included; "
                "taken as constant"
            )
    return DEFAULT_TTFB_S, (
        f"DEFAULT: GET TTFB {DEFAULT_TTFB_S * 1000:g} ms assumed; the profile publishes no latency and no "
        "small-request rate to derive one from (measure the provider to replace it)"
    )


_REQUEST_BOUND = 0.1
"""A stream point whose transfer is under this share of its request's time is bound by the request."""


def transfer_curve(points: list[tuple[int, float]], latency_s: float) -> tuple[list[BandwidthPoint], list[int]]:
    """A stream curve of transfer rates from a profile's whole-request rates, and the sizes dropped.

    A profile's per-stream figure is bytes over the whole request, its time to first byte (or
    response) included, but the simulator adds that latency to each request before moving the
    body at the stream's rate: taken as they are, small objects would pay their latency twice
    (IDrive e2's 256 KiB GETs: 14.6 ms a request, 9.8 ms of it to the first byte). The transfer
    rate is the size over the request's time less ``latency_s``; a point whose transfer is under
    a tenth of its request's time is bound by request handling, not bytes, and is dropped (the
    curve's nearest point stands in for it, as the simulator extends the curve flat).
    """
    curve: list[BandwidthPoint] = []
    dropped: list[int] = []
    for size, rate in sorted(points):
        if not rate or rate <= 0:
            continue
        request_s = size / rate
        transfer_s = request_s - latency_s
        if transfer_s < _REQUEST_BOUND * request_s:
            dropped.append(int(size))
            continue
        curve.append(BandwidthPoint(size_bytes=int(size), bits_per_s=size / transfer_s * 8))
    return curve, dropped


def _unusable(cell: Cell) -> bool:
    return "implausible" in cell.flags or "above-link" in cell.flags


def _is_small(cell: Cell) -> bool:
    return cell.object_size_bytes is not None and cell.object_size_bytes <= _SMALL_GET_BYTES


def _citation_text(citation: Citation) -> str:
    return f"{citation.ref}, {citation.section}"


def _cell_citation(cell: Cell) -> str:
    return _citation_text(cell.citation) if cell.citation is not None else "measured cell"


def provider_model_from_summary(summary: ProfileSummary, *, ttfb: LatencyModel | None = None) -> ProviderModel:
    """Build a ``ProviderModel`` from a ``ProfileSummary``; fields it lacks read as unknown.

    ``ttfb`` stands in for a summary without a GET TTFB (else that is an ``InputError``).
    """
    provider = getattr(summary, "provider", None) or "unknown"
    p50 = getattr(summary, "ttfb_p50_s", None)
    if p50 is None and ttfb is None:
        raise InputError(
            "the profile has no GET time to first byte, which the simulator needs "
            "(measure a small-object GET cell, or add a published ttfb floor)",
            source=f"profile of {provider}",
            field="ttfb_p50_s",
        )
    p99 = getattr(summary, "ttfb_p99_s", None)
    unknown: list[str] = []
    if p50 is None:
        assert ttfb is not None
        unknown.append("GET TTFB (derived or assumed)")
    else:
        if p99 is None:
            unknown.append("ttfb p99 (TTFB taken as constant at p50)")
        ttfb = LatencyModel(p50_s=p50, p99_s=max(p99, p50) if p99 is not None else p50)

    stream_points, _ = transfer_curve(getattr(summary, "get_stream_bytes_per_s", []) or [], ttfb.p50_s)
    if not stream_points:
        unknown.append("per-stream GET bandwidth")
    write_points, _ = transfer_curve(getattr(summary, "put_stream_bytes_per_s", []) or [], ttfb.p50_s)
    if not write_points:
        unknown.append("per-stream PUT bandwidth")
    read_ceiling = getattr(summary, "read_ceiling_bytes_per_s", None)
    write_ceiling = getattr(summary, "write_ceiling_bytes_per_s", None)
    for name, value in (("read ceiling", read_ceiling), ("write ceiling", write_ceiling)):
        if value is None:
            unknown.append(name)
        elif not summary.is_exact(f"{name.replace(' ', '_')}_bytes_per_s"):
            # the best rate a benchmark reached (often its client's limit), not the service's: enforcing
            # it would cap every workload at one benchmark's client
            unknown.append(f"{name} (not enforced: {value * 8 / 1e9:.3g} Gbps demonstrated is a lower bound)")
    if read_ceiling is not None and not summary.is_exact("read_ceiling_bytes_per_s"):
        read_ceiling = None
    if write_ceiling is not None and not summary.is_exact("write_ceiling_bytes_per_s"):
        write_ceiling = None

    limits: list[RateLimit] = []
    per_key = getattr(summary, "per_key_write_per_s", None)
    if per_key:
        limits.append(
            RateLimit(
                operations=["put", "complete-multipart"],
                scope="key",
                per_s=per_key,
                burst=1.0,
                error=_PER_KEY_WRITE_ERROR,
            )
        )
    hot = None
    limit = getattr(summary, "hot_object_limit", None)
    behaviour = getattr(summary, "hot_object_behaviour", None)
    if limit and behaviour in ("reject", "degrade"):
        hot = HotObjectLimit(
            max_concurrent_reads=int(limit),
            behaviour=behaviour,
            error=getattr(summary, "hot_object_error", None) or "503 SlowDown",
        )
    kind = getattr(summary, "source_kind", "unknown")
    backed: Evidence = "published" if kind == "published" else "measured"
    evidence: dict[str, Evidence] = {
        # PUT, HEAD and LIST take GET's latency: no profile states them separately yet
        "latency.put": "assumed",
        "latency.head": "assumed",
        "latency.list": "assumed",
        "latency.tail": backed if p50 is not None and p99 is not None else "assumed",
    }
    if p50 is not None:
        evidence["latency.get"] = backed
    if stream_points:
        evidence["stream.read"] = backed
    if write_points:
        evidence["stream.write"] = backed
    if read_ceiling is not None:
        evidence["ceiling.read"] = backed
    if write_ceiling is not None:
        evidence["ceiling.write"] = backed
    source = f"{kind} profile of {provider}"
    if unknown:
        source += "; not in the profile, left unbounded or assumed: " + ", ".join(unknown)
    return ProviderModel(
        provider_id=provider,
        ttfb_get=ttfb,
        stream_read=BandwidthCurve(points=stream_points),
        stream_write=BandwidthCurve(points=write_points),
        read_ceiling_bits_per_s=read_ceiling * 8 if read_ceiling else None,
        write_ceiling_bits_per_s=write_ceiling * 8 if write_ceiling else None,
        rate_limits=limits,
        hot_object=hot,
        source=source,
        evidence=evidence,
    )


# -- the measured surface: every cell of a measured profile, not one summary figure --

_REPLACED_BY_SURFACE = ("PUT, HEAD and LIST server latency", "GET stream curve", "PUT stream curve")
"""Assumptions of the summary-based model that the measured surface replaces."""

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


def _in_flight(cell: Cell) -> float:
    """Requests in flight on average: achieved (``in_flight_mean``), else Little's law on the cell's
    rate and mean latency, else the nominal concurrency."""
    if cell.in_flight_mean:
        return cell.in_flight_mean
    if cell.ops_per_s and cell.latency_s.mean:
        return cell.ops_per_s * cell.latency_s.mean
    return float(cell.concurrency)


def _base_cells(cells: list[Cell]) -> tuple[Cell, Cell | None]:
    """The least-loaded cells: the closed loop with the fewest requests in flight (busy: back to
    back, client and server never idle; without one, the least-loaded open loop), and the
    open-loop cell at the lowest arrival rate if it had under half a request in flight (sparse:
    most requests find client and server idle)."""
    closed = [c for c in cells if c.mode == "closed"]
    opened = sorted((c for c in cells if c.mode == "open" and c.offered_per_s), key=lambda c: c.offered_per_s or 0.0)
    sparse = opened[0] if opened and _in_flight(opened[0]) < 0.5 else None
    if closed:
        return min(closed, key=_in_flight), sparse
    return (opened[0] if opened else min(cells, key=_in_flight)), None


def _capacity(cells: list[Cell]) -> tuple[float, str] | None:
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
    rated = sorted((c for c in cells if c.ops_per_s and c.mode == "closed"), key=_in_flight)
    if len(rated) < 2:
        return None
    low, high = rated[0], rated[-1]
    assert low.ops_per_s is not None and high.ops_per_s is not None
    n_low, n_high = _in_flight(low), _in_flight(high)
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
        and _in_flight(c) >= 1
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
    for cell in cells:
        rate, size = cell.offered_per_s, cell.object_size_bytes or 0
        if cell.mode != "open" or not rate or _in_flight(cell) < 0.5 or _capacity([cell]) is not None:
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
        shown.append(
            f"{rate:.4g}/s ({load:.0%} busy): p50 {measured.p50_s * 1000:.3g} ms measured, "
            f"{(base.p50_s + wait_s) * 1000:.3g} ms unloaded plus mean wait"
        )
    if not points:
        return None
    loaded = LoadedLatency(points=sorted(points.items()), whole=sorted(whole.items()))
    return loaded, (
        f"{op.upper()} latency under load from its open-loop cells ("
        + "; ".join(shown)
        + "): a steady open loop below the capacity draws what they measured beyond the unloaded latency, "
        "quantile by quantile, at the window's utilisation (interpolated in utilisation / (1 - utilisation); "
        f"past the last cell's {max(whole):.0%} load extrapolated along the last two cells' curve), and does not "
        "queue (the cells' waits are in it); at the capacity, or with a varying rate, the queue runs and the "
        "last cell's excess beyond the queue's mean wait is added"
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
    busiest = max(loaded, key=_in_flight)
    model = latency_from_cell(busiest.latency_s, busiest.latency_histogram)
    if model is None or _in_flight(busiest) < 2:
        return None, "service times taken as constant (no loaded cell shows their spread)"
    mean = model.mean_s
    spread = LatencyModel.empirical([(q, v / mean) for q, v in model.quantiles])
    return spread, (
        f"service times spread as the latency of the most loaded {busiest.op.upper()} cell "
        f"({_in_flight(busiest):.3g} in flight; p99 {spread.p99_s or 0:.2g}x and p50 {spread.p50_s:.2g}x the mean)"
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
    cells = [c for c in profile.cells if not _unusable(c) and c.status != "missing" and c.latency_s.p50 is not None]
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
        evidence=evidence,
    )
    return model.model_copy(update=updates), notes


def _survey(op: str, mine: list[Cell], cells: list[Cell], notes: list[str]) -> _Surface:
    """One operation's surface from its cells, size by size (``notes`` hears each size's capacity and
    the sparse cells)."""
    by_size: dict[int, list[Cell]] = {}
    for cell in mine:
        by_size.setdefault(cell.object_size_bytes or 0, []).append(cell)
    bases = {size: _base_cells(group) for size, group in sorted(by_size.items())}
    smallest = bases[min(bases)][0]
    surface = _Surface()
    for size, (base, sparse) in bases.items():
        transfer_s, tail = _transfer_s(op, base, sparse, smallest)
        if tail is not None:
            surface.tail_points.append((size, tail))
        assert base.latency_s.p50 is not None
        moves = size > 0 and transfer_s >= _REQUEST_BOUND * base.latency_s.p50
        surface.shifts[size] = transfer_s if moves and op != "get" else 0.0
        if moves:
            surface.stream.append(BandwidthPoint(size_bytes=size, bits_per_s=size * 8 / transfer_s))
        for source, into in ((base, surface.points), (sparse, surface.sparse_points)):
            latency = None if source is None else _unloaded_latency(op, source, transfer_s if moves else 0.0)
            if latency is not None:
                into.append((size, latency))
        _fit_capacity(op, size, by_size[size], (base, sparse), cells, surface, notes)
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
    capacity = _capacity(group)
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
