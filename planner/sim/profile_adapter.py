"""From a measured or published profile summary to the ``ProviderModel`` the simulator asks.

Mapping (``measure.profile.ProfileSummary`` -> ``ProviderModel``):

- ``ttfb_p50_s``/``ttfb_p99_s`` -> ``ttfb_get``, a lognormal through both; without a p99 the
  p50 is taken as a constant (references often publish only a floor, e.g. R2's ~40 ms).
- ``get_stream_bytes_per_s`` (size, bytes/s) -> ``stream_read`` (bits/s), interpolated.
- ``read_ceiling_bytes_per_s``/``write_ceiling_bytes_per_s`` -> the aggregate ceilings.
- ``per_key_write_per_s`` -> a key-scoped token bucket on put and complete-multipart (429).
- ``hot_object_limit``/``_behaviour``/``_error`` -> ``hot_object``.

Not mapped: ``ops_per_s`` (best observed rates, which may be the client's limit rather than the
provider's) and ``range_get_speedup`` (it emerges from the stream curve and the link). Figures
the summary lacks stay unbounded; the model's ``source`` lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.errors import InputError
from planner.sim.provider import (
    BandwidthCurve,
    BandwidthPoint,
    HotObjectLimit,
    LatencyModel,
    ProviderModel,
    RateLimit,
)

if TYPE_CHECKING:
    from measure.profile import ProfileSummary

_PER_KEY_WRITE_ERROR = "429 Too Many Requests"


def provider_model_from_summary(summary: ProfileSummary) -> ProviderModel:
    """Build a ``ProviderModel`` from a ``ProfileSummary``; fields it lacks read as unknown."""
    provider = getattr(summary, "provider", None) or "unknown"
    p50 = getattr(summary, "ttfb_p50_s", None)
    if p50 is None:
        raise InputError(
            "the profile has no GET time to first byte, which the simulator needs "
            "(measure a small-object GET cell, or add a published ttfb floor)",
            source=f"profile of {provider}",
            field="ttfb_p50_s",
        )
    p99 = getattr(summary, "ttfb_p99_s", None)
    unknown: list[str] = []
    if p99 is None:
        unknown.append("ttfb p99 (TTFB taken as constant at p50)")
    ttfb = LatencyModel(p50_s=p50, p99_s=max(p99, p50) if p99 is not None else p50)

    stream_points = [
        BandwidthPoint(size_bytes=int(size), bits_per_s=float(rate) * 8)
        for size, rate in sorted(getattr(summary, "get_stream_bytes_per_s", []) or [])
        if rate and rate > 0
    ]
    if not stream_points:
        unknown.append("per-stream GET bandwidth")
    read_ceiling = getattr(summary, "read_ceiling_bytes_per_s", None)
    write_ceiling = getattr(summary, "write_ceiling_bytes_per_s", None)
    for name, value in (("read ceiling", read_ceiling), ("write ceiling", write_ceiling)):
        if value is None:
            unknown.append(name)

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
    source = f"{kind} profile of {provider}"
    if unknown:
        source += "; not in the profile, left unbounded or assumed: " + ", ".join(unknown)
    return ProviderModel(
        provider_id=provider,
        ttfb_get=ttfb,
        stream_read=BandwidthCurve(points=stream_points),
        read_ceiling_bits_per_s=read_ceiling * 8 if read_ceiling else None,
        write_ceiling_bits_per_s=write_ceiling * 8 if write_ceiling else None,
        rate_limits=limits,
        hot_object=hot,
        source=source,
    )
