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

A measured (or merged) profile is then read cell by cell, every usable cell rather than one summary
figure: ``planner.sim.model.measured_surface``. Published references keep the summary model.

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

from typing import TYPE_CHECKING

from planner.errors import InputError
from planner.evidence import Evidence
from planner.measure.summary import lognormal_p99_s
from planner.sim.model.measured_surface import REPLACED_BY_SURFACE, with_measured_surface
from planner.sim.model.profile_cells import REQUEST_BOUND, unusable
from planner.sim.model.provider import (
    BILLED_OPERATIONS,
    BandwidthCurve,
    BandwidthPoint,
    HotObjectLimit,
    LatencyModel,
    ProviderModel,
    RateLimit,
)
from planner.sim.model.published_spread import with_published_spread
from planner.sim.model.saturation import knee_from_cells, knee_note
from planner.units import format_bytes

if TYPE_CHECKING:
    from planner.measure.profile import Cell, Citation, Profile, ProfileSummary
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
        if summary.ttfb_p99_s is None and summary.ttfb_p90_s is not None:
            assumptions.append(
                f"GET TTFB p99 not in the profile: a lognormal through its p50 ({summary.ttfb_p50_s * 1000:.3g} ms) and"
                f" p90 ({summary.ttfb_p90_s * 1000:.3g} ms), the p99 beyond them extrapolated"
            )
        elif summary.ttfb_p99_s is None:
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
        assumptions = [a for a in assumptions if not a.startswith(REPLACED_BY_SURFACE)] + notes
        knee = knee_from_cells(profile.cells)
        if knee is not None:
            model = model.model_copy(update={"knee": knee})
            assumptions.append(knee_note(knee))
    model, spread_notes = with_published_spread(model, profile)
    assumptions += spread_notes
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
    candidates = [c for c in profile.cells if c.status != "missing" and not unusable(c) and c.mode == "closed"]

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
        if transfer_s < REQUEST_BOUND * request_s:
            dropped.append(int(size))
            continue
        curve.append(BandwidthPoint(size_bytes=int(size), bits_per_s=size / transfer_s * 8))
    return curve, dropped


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
    unknown: list[str] = []  # what the model's source lists as not in the profile, in this order
    ttfb = _summary_ttfb(summary, ttfb, provider, unknown)
    stream_points, _ = transfer_curve(getattr(summary, "get_stream_bytes_per_s", []) or [], ttfb.p50_s)
    if not stream_points:
        unknown.append("per-stream GET bandwidth")
    write_points, _ = transfer_curve(getattr(summary, "put_stream_bytes_per_s", []) or [], ttfb.p50_s)
    if not write_points:
        unknown.append("per-stream PUT bandwidth")
    read_ceiling, write_ceiling = _summary_ceilings(summary, unknown)
    kind = getattr(summary, "source_kind", "unknown")
    backed: Evidence = "published" if kind == "published" else "measured"
    p50, p99 = getattr(summary, "ttfb_p50_s", None), getattr(summary, "ttfb_p99_s", None)
    evidence: dict[str, Evidence] = {
        # PUT, HEAD and LIST take GET's latency: no profile states them separately yet
        "latency.put": "assumed",
        "latency.head": "assumed",
        "latency.list": "assumed",
        "latency.tail": _tail_evidence(backed, p50, p99, getattr(summary, "ttfb_p90_s", None)),
    }
    for name, present in (
        ("latency.get", p50 is not None),
        ("stream.read", bool(stream_points)),
        ("stream.write", bool(write_points)),
        ("ceiling.read", read_ceiling is not None),
        ("ceiling.write", write_ceiling is not None),
    ):
        if present:
            evidence[name] = backed
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
        rate_limits=_summary_rate_limits(summary),
        hot_object=_summary_hot_object(summary),
        source=source,
        evidence=evidence,
    )


def _summary_ttfb(
    summary: ProfileSummary, ttfb: LatencyModel | None, provider: str, unknown: list[str]
) -> LatencyModel:
    """GET's time to first byte: a lognormal through the summary's p50 and p99 (constant at the p50
    without a p99), else ``ttfb``; an ``InputError`` without either."""
    p50 = getattr(summary, "ttfb_p50_s", None)
    if p50 is None and ttfb is None:
        raise InputError(
            "the profile has no GET time to first byte, which the simulator needs "
            "(measure a small-object GET cell, or add a published ttfb floor)",
            source=f"profile of {provider}",
            field="ttfb_p50_s",
        )
    p99 = getattr(summary, "ttfb_p99_s", None)
    if p50 is None:
        assert ttfb is not None
        unknown.append("GET TTFB (derived or assumed)")
        return ttfb
    p90 = getattr(summary, "ttfb_p90_s", None)
    if p99 is None and p90 is not None:
        # a published spread without its tail: the lognormal through p50 and p90, its p99 extrapolated
        unknown.append("ttfb p99 (extrapolated from the published p50 and p90)")
        return LatencyModel(p50_s=p50, p99_s=lognormal_p99_s(p50, p90))
    if p99 is None:
        unknown.append("ttfb p99 (TTFB taken as constant at p50)")
    return LatencyModel(p50_s=p50, p99_s=max(p99, p50) if p99 is not None else p50)


def _tail_evidence(backed: Evidence, p50: float | None, p99: float | None, p90: float | None) -> Evidence:
    """A published p99 backs the tail; a p90 without it leaves the tail extrapolated; else it is assumed."""
    if p50 is not None and p99 is not None:
        return backed
    return "extrapolated" if p50 is not None and p90 is not None else "assumed"


def _summary_ceilings(summary: ProfileSummary, unknown: list[str]) -> tuple[float | None, float | None]:
    """The aggregate read and write ceilings (bytes/s) where the summary gives them as exact; a
    lower bound (the best rate a benchmark reached, often its client's limit) is not enforced."""
    ceilings: list[float | None] = []
    for name in ("read ceiling", "write ceiling"):
        value = getattr(summary, f"{name.replace(' ', '_')}_bytes_per_s", None)
        if value is None:
            unknown.append(name)
        elif not summary.is_exact(f"{name.replace(' ', '_')}_bytes_per_s"):
            # the best rate a benchmark reached (often its client's limit), not the service's: enforcing
            # it would cap every workload at one benchmark's client
            unknown.append(f"{name} (not enforced: {value * 8 / 1e9:.3g} Gbps demonstrated is a lower bound)")
            value = None
        ceilings.append(value)
    return ceilings[0], ceilings[1]


def _summary_rate_limits(summary: ProfileSummary) -> list[RateLimit]:
    """A measured per-key write limit as a key-scoped token bucket on put and complete-multipart."""
    per_key = getattr(summary, "per_key_write_per_s", None)
    if not per_key:
        return []
    return [
        RateLimit(
            operations=["put", "complete-multipart"],
            scope="key",
            per_s=per_key,
            burst=1.0,
            error=_PER_KEY_WRITE_ERROR,
        )
    ]


def _summary_hot_object(summary: ProfileSummary) -> HotObjectLimit | None:
    """The hot-object limit, where the summary gives both its concurrency and its behaviour."""
    limit = getattr(summary, "hot_object_limit", None)
    behaviour = getattr(summary, "hot_object_behaviour", None)
    if not limit or behaviour not in ("reject", "degrade"):
        return None
    return HotObjectLimit(
        max_concurrent_reads=int(limit),
        behaviour=behaviour,
        error=getattr(summary, "hot_object_error", None) or "503 SlowDown",
    )
