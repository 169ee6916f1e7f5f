"""The event loop's inline network (one shared link) against the network's own methods, run for run."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    KeyPopularity,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    RateLimit,
    SimSpec,
    SizeDistribution,
)
from planner.sim._engine import Replication
from planner.sim.spec import MultipartPolicy, RangedGetPolicy

MIB = 2**20


class _MethodsOnly(Replication):
    inline_network = False


@settings(max_examples=25, deadline=None)
@given(
    rate=st.floats(50, 3000),
    link_gbps=st.floats(0.5, 30),
    duplex=st.sampled_from(["shared", "full"]),
    sizes=st.lists(st.sampled_from([0, 1000, MIB, 3 * MIB, 20 * MIB]), min_size=1, max_size=3),
    put_share=st.floats(0, 1),
    connections=st.integers(4, 256),
    split=st.booleans(),
    limited=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_inline_network_ends_every_stream_when_the_methods_do(
    rate: float,
    link_gbps: float,
    duplex: str,
    sizes: list[int],
    put_share: float,
    connections: int,
    split: bool,
    limited: bool,
    seed: int,
) -> None:
    provider = ProviderModel(
        provider_id="fast-path",
        ttfb_get=LatencyModel(p50_s=0.030, p99_s=0.120, floor_s=0.010),
        ttfb_put=LatencyModel(p50_s=0.040, p99_s=0.150, floor_s=0.015),
        stream_read=BandwidthCurve.flat(700e6),
        stream_write=BandwidthCurve.flat(400e6),
        rate_limits=[RateLimit(operations=["get", "put"], scope="prefix", per_s=rate / 3)] if limited else [],
        source="test",
    )
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=rate),
        mix=OperationMix(get=1 - put_share, put=put_share),
        sizes=SizeDistribution(sizes_bytes=sizes),
        keys=KeyPopularity(keys=1000, prefixes=2),
        client=ClientSpec(
            link_bits_per_s=link_gbps * 1e9,
            link_duplex=duplex,  # type: ignore[arg-type]
            connections=connections,
            multipart=MultipartPolicy(threshold_bytes=16 * MIB, part_size_bytes=5 * MIB) if split else None,
            ranged_get=RangedGetPolicy(threshold_bytes=16 * MIB, streams=4) if split else None,
        ),
    )
    inline = Replication(spec, provider, 1.0, np.random.default_rng(seed)).run()
    methods = _MethodsOnly(spec, provider, 1.0, np.random.default_rng(seed)).run()
    for field in dataclasses.fields(inline):
        a, b = getattr(inline, field.name), getattr(methods, field.name)
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b), field.name
        else:
            assert a == b, field.name
    assert len(inline.transfer_end) > 0 or not any(sizes)
