"""Provider models configured like the seeds' R2 and S3, and small specs the tests vary."""

from __future__ import annotations

import pytest

from planner.sim import (
    BandwidthCurve,
    HotObjectLimit,
    LatencyModel,
    ProviderModel,
    RateLimit,
)


@pytest.fixture
def r2_model() -> ProviderModel:
    """Seed 001: TTFB floors at ~40 ms whatever the size; 503 SlowDown past 128 concurrent reads
    of one range; ~55 Gbps read and ~36 Gbps write ceilings; one write a second per key."""
    return ProviderModel(
        provider_id="cloudflare-r2",
        ttfb_get=LatencyModel(p50_s=0.042, p99_s=0.060, floor_s=0.040),
        stream_read=BandwidthCurve.flat(2e9),
        stream_write=BandwidthCurve.flat(1e9),
        read_ceiling_bits_per_s=55e9,
        write_ceiling_bits_per_s=36e9,
        rate_limits=[RateLimit(operations=["put", "complete-multipart"], scope="key", per_s=1, burst=1, error="429")],
        hot_object=HotObjectLimit(max_concurrent_reads=128, behaviour="reject", error="503 SlowDown"),
        source="seed 001",
    )


@pytest.fixture
def s3_model() -> ProviderModel:
    """Seed 004: one GET stream reads a 2 GiB object at ~700 Mbps; S3's per-prefix request rates."""
    return ProviderModel(
        provider_id="aws-s3",
        ttfb_get=LatencyModel(p50_s=0.030, p99_s=0.080, floor_s=0.010),
        stream_read=BandwidthCurve.flat(700e6),
        stream_write=BandwidthCurve.flat(500e6),
        rate_limits=[
            RateLimit(operations=["get", "head"], scope="prefix", per_s=5500),
            RateLimit(operations=["put", "upload-part", "complete-multipart"], scope="prefix", per_s=3500),
        ],
        source="seed 004",
    )


@pytest.fixture
def bare_model() -> ProviderModel:
    """No limits and no latency: only what a test configures matters."""
    return ProviderModel(provider_id="bare", ttfb_get=LatencyModel.constant(0.0), source="test")
