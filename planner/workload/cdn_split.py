"""Behind a CDN: what the CDN serves and what reaches the bucket, worked out once.

The CDN serves the read bytes that go through it (the split's ``cdn`` part, or all of a plain egress)
and the GETs in their share of the bytes read; its cache answers ``hit_ratio`` of them, and the bucket
sees the rest: the misses' bytes and GETs. Writes stay what the workload gives (or what its read/write
ratio makes of the month's reads, not of the fewer misses).

Every view of the workload behind a CDN starts here: the bill (``planner.costing.cdn_bills`` adds how the
misses leave the bucket, by the route to the CDN), the simulator's requests and the per-prefix rates
(``at_origin`` without a route: only the requests change).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Literal

from planner.workload.delivery import cdn_bytes
from planner.workload.model import Workload

Fetch = Literal["egress", "inside"]
"""How the misses leave the bucket: as its internet egress, or read inside the provider (no egress)."""


@dataclass(frozen=True)
class CdnSplit:
    """A month behind the workload's CDN: bytes and GETs the CDN serves, and those that reach the bucket."""

    cdn: str
    """The CDN's id."""
    hit: Decimal
    """Its hit ratio, as priced."""
    served_bytes: int
    """Bytes the CDN serves (hits and misses)."""
    miss_bytes: int
    """Bytes it fetches from the bucket."""
    reads: int
    """All of the month's GETs."""
    cdn_reads: int
    """GETs through the CDN."""
    origin_reads: int
    """GETs reaching the bucket: those not through the CDN, and the CDN's misses."""

    def note(self) -> str:
        """The requests the bucket sees, in words."""
        return (
            f"behind the CDN {self.cdn} at a {float(self.hit) * 100:g}% hit ratio the store sees"
            f" {self.origin_reads:,} of the month's {self.reads:,} GETs: a hit is not a request to the store"
        )


def _whole(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_HALF_EVEN))


def cdn_split(workload: Workload) -> CdnSplit | None:
    """The month behind ``workload``'s CDN; None without one."""
    delivery = workload.delivery
    if delivery is None:
        return None
    traffic = workload.traffic
    served = min(cdn_bytes(traffic.egress, traffic.egress_to, delivery), traffic.egress)
    hit = delivery.cdn.hit
    reads = workload.reads_per_month()
    read_bytes = traffic.egress + traffic.internal_reads + traffic.inter_region
    cdn_reads = _whole(Decimal(reads) * served / read_bytes) if read_bytes else 0
    return CdnSplit(
        cdn=delivery.cdn.provider,
        hit=hit,
        served_bytes=served,
        miss_bytes=_whole(served * (1 - hit)),
        reads=reads,
        cdn_reads=cdn_reads,
        origin_reads=reads - _whole(cdn_reads * hit),
    )


def at_origin(workload: Workload, split: CdnSplit, fetch: Fetch | None = None) -> Workload:
    """``workload`` as its bucket sees it behind the CDN of ``split``, with no CDN left in it: only the
    misses' GETs, and with ``fetch`` the bytes too (the CDN's served bytes leave the egress and its misses
    are fetched as ``fetch`` says); without ``fetch`` the bytes stay as given (the requests' view)."""
    traffic = workload.traffic
    update: dict[str, object] = {"reads": split.origin_reads}
    if fetch is not None:
        others = traffic.egress - split.served_bytes
        update["egress_to"] = None
        if fetch == "egress":
            update["egress"] = others + split.miss_bytes
        else:  # read inside the provider: no egress from the bucket, retrieval where the class charges it
            update["egress"] = others
            update["internal_reads"] = traffic.internal_reads + split.miss_bytes
    if traffic.ratio is not None:  # writes stay what the reads made them, not the fewer origin reads
        update |= {"writes": workload.writes_per_month(), "read_write_ratio": None}
    return workload.model_copy(update={"traffic": traffic.model_copy(update=update), "delivery": None})


def store_requests(workload: Workload) -> tuple[Workload, str | None]:
    """The workload as its store sees requests behind its CDN (only the misses' GETs), and that in words;
    the workload as it is, and None, without a CDN."""
    split = cdn_split(workload)
    if split is None:
        return workload, None
    return at_origin(workload, split), split.note()
