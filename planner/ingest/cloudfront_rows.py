"""An S3 bill's CloudFront rows: the origin fetches of a CDN in front of the bucket.

A CUR bills S3's transfer to CloudFront as ``CloudFront-Out-Bytes`` (free: "Free for origin fetches
from any AWS origin such as Amazon S3", aws.amazon.com/cloudfront/pricing). Those bytes are the CDN's
misses, not what it serves: the S3 bill cannot tell the hit ratio, so the workload written from it
sends them through CloudFront at a hit ratio of 0 and says so, for the user to correct from
CloudFront's own usage (its ``DataTransfer-Out-Bytes``).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from planner.pricing import cdn_prices


def cdn_egress_lines(internet_bytes: int, fetched_bytes: int, where: str) -> list[str]:
    """``traffic.egress`` split into the internet part and CloudFront's origin fetches."""
    return [
        f"  # {where} (CloudFront-Out-Bytes: CloudFront's origin fetches, its misses)",
        f'  egress: {{internet: "{internet_bytes} B", cdn: "{fetched_bytes} B"}}',
    ]


def cdn_delivery_lines() -> list[str]:
    """The ``delivery`` section of a bill with CloudFront origin fetches."""
    return [
        "delivery:",
        "  # ASSUMED: the S3 bill shows what CloudFront fetched, not what it served; with a hit ratio of 0 the",
        "  # CloudFront bill is the fetched bytes' (a lower bound): give egress.cdn as CloudFront's",
        "  # DataTransfer-Out-Bytes and its cache hit ratio from its reports",
        "  cdn: {provider: cloudfront, hit_ratio: 0}",
    ]


def origin_fetch_usd(
    provider: str, cdn: str, quantity_gb: Decimal, day: dt.date | None = None
) -> tuple[Decimal, str] | None:
    """What the bucket bills for its origin fetches to ``cdn`` when the route (in force on ``day``, today's
    by default) is free, else None."""
    route, version = cdn_prices.route_between(provider, cdn, day)
    if route.kind != "free":
        return None
    return Decimal(0), f"{quantity_gb:,.6f} GB of origin fetches to {cdn}: free ({route.status.value}, {version})"
