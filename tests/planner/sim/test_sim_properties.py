"""Properties over random configurations: bandwidth never exceeds what shares it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import simpy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.sim import (
    BandwidthCurve,
    ClientSpec,
    KeyPopularity,
    LatencyModel,
    OpenLoop,
    OperationMix,
    ProviderModel,
    SimSpec,
    SizeDistribution,
)
from planner.sim.engine.fluid_network import FluidNetwork
from planner.sim.engine.replication import Replication


class _Start:
    """A stream to add to the network: the value of the timeout that starts it."""

    __slots__ = ("flow", "nbytes")

    def __init__(self, flow: Any, nbytes: int) -> None:
        self.flow, self.nbytes = flow, nbytes


@settings(max_examples=60, deadline=None)
@given(
    capacity=st.floats(1e3, 1e6),
    caps=st.lists(st.one_of(st.just(math.inf), st.floats(1e2, 2e6)), min_size=1, max_size=3),
    streams=st.lists(st.tuples(st.floats(0, 5), st.integers(0, 2), st.integers(1, 200_000)), min_size=1, max_size=60),
)
def test_fluid_network_never_exceeds_capacity(
    capacity: float, caps: list[float], streams: list[tuple[float, int, int]]
) -> None:
    env = simpy.Environment()
    done: list[Any] = []
    network = FluidNetwork(env, [capacity], done.append)
    flows = [network.flow_class((0,), cap) for cap in caps]

    distinct = {id(f): f for f in flows if f is not None}.values()  # equal caps share a class

    def check() -> None:
        used = sum(f.rate * f.n for f in distinct if f.n)
        assert used <= capacity * (1 + 1e-9)

    def start(event: Any) -> None:
        stream = event.value
        network.add(stream, stream.flow, stream.nbytes, env.now)
        check()

    for at, which, nbytes in streams:
        env.timeout(at, _Start(flows[which % len(flows)], nbytes)).callbacks.append(start)
    env.run()
    assert len(done) == len(streams)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    link_bits_per_s=st.floats(1e6, 5e7),
    rate_per_s=st.floats(5, 200),
    sizes=st.lists(st.integers(1, 64 * 1024), min_size=1, max_size=3),
    get_share=st.floats(0.05, 1.0),
    connections=st.integers(1, 64),
    stream_bits_per_s=st.one_of(st.none(), st.floats(1e5, 1e8)),
    duplex=st.sampled_from(["shared", "full"]),
    seed=st.integers(0, 2**16),
)
def test_simulated_throughput_never_exceeds_the_client_link(
    link_bits_per_s: float,
    rate_per_s: float,
    sizes: list[int],
    get_share: float,
    connections: int,
    stream_bits_per_s: float | None,
    duplex: str,
    seed: int,
) -> None:
    curve = BandwidthCurve() if stream_bits_per_s is None else BandwidthCurve.flat(stream_bits_per_s)
    provider = ProviderModel(
        provider_id="random",
        ttfb_get=LatencyModel(p50_s=0.01, p99_s=0.05),
        stream_read=curve,
        stream_write=curve,
    )
    spec = SimSpec(
        arrivals=OpenLoop(mean_rate_per_s=rate_per_s),
        mix=OperationMix(get=get_share, put=1 - get_share),
        sizes=SizeDistribution(sizes_bytes=sizes),
        keys=KeyPopularity(keys=50, zipf_exponent=1.0),
        client=ClientSpec(link_bits_per_s=link_bits_per_s, link_duplex=duplex, connections=connections),
    )
    run = Replication(spec, provider, 2.0, np.random.default_rng(seed), drain_s=30.0).run()
    if not run.transfer_bytes.size:
        return
    # Any stretch of time holding whole transfers moved no more than the link carries.
    for read in (True, False):
        mine = (run.transfer_lop == 0) if read else (run.transfer_lop == 1)
        if duplex == "shared":
            mine = np.ones_like(mine)
        if not mine.any():
            continue
        span = run.transfer_end[mine].max() - run.transfer_start[mine].min()
        moved_bits = run.transfer_bytes[mine].sum() * 8
        assert moved_bits <= link_bits_per_s * span * (1 + 1e-6) + 1e-9
        for start, end, nbytes in zip(
            run.transfer_start[mine], run.transfer_end[mine], run.transfer_bytes[mine], strict=True
        ):
            assert nbytes * 8 <= link_bits_per_s * (end - start) * (1 + 1e-6)
