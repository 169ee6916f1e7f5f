"""What a replication asks its provider model once, before it runs, kept where the event loop
finds it: the window's load on the provider's servers, the latency draws and server queues that
load implies, the network the transfers share and the admission checks (rate limits, the
hot-object limit). ``provider_setup`` returns it as one plain record; ``Replication`` reads it."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import simpy

from planner.sim.engine.answer_tables import B_GET, DrawTable, FlowTable, ServiceTable, TailTable, latency_draws
from planner.sim.engine.fluid_network import FlowClass, FluidNetwork
from planner.sim.engine.joint_tail import JointTailTable
from planner.sim.engine.request_parts import P_BILLED, P_HOT, P_KEY, P_LATENCY, P_NBYTES, P_RANGE, Part
from planner.sim.model import BILLED_OPERATIONS, LatencyModel, ProviderModel
from planner.sim.spec import ClosedLoop, OpenLoop, SimSpec

_LINK_DOWN, _LINK_UP, _PROVIDER_READ, _PROVIDER_WRITE = range(4)

# Admission checks (``admission_checks``): kind, state, scope, interval (s), slack (s), error.
_TOKENS, _HOT_REJECT, _HOT_DEGRADE = range(3)
_ANY_KEY = 1 << 62  # more than any key: a limit per key takes the key modulo this
_Check = tuple[int, dict[int, float], int, float, float, str]


@dataclass
class ProviderSetup:
    """The provider model's answers for one replication (``provider_setup``), by billed operation
    where a list."""

    idle_share: float
    """the share of requests that find client and server idle"""
    utilisation: list[float]
    """the utilisation of each operation's server queue"""
    queued: list[bool]
    """whether an operation waits in its server queue: not in a steady open loop at a load its
    open-loop cells measured whole (their waits are in the latency drawn)"""
    latencies: DrawTable
    load_extrapolated: list[str]
    """billed operations whose latency under this load is extrapolated past the last open-loop cell"""
    body_tails: TailTable | None
    queues: list[list[float] | None]
    """the free times of an operation's queue's servers (a heap shared by the operations the queue
    serves), None for no queue"""
    service_s: ServiceTable
    spreads: list[Iterator[float] | None]
    """draws of an operation's queue's service spread (a multiplier of mean 1), or None"""
    network: FluidNetwork
    read_flows: FlowTable
    write_flows: FlowTable
    admission: list[list[_Check]]
    """an operation's admission checks, in the order they are asked (``admission_checks``)"""
    hot_counts: dict[int, float]
    """reads in flight per ``range << 62 | key``, the hot-object check's state"""
    joint_tails: JointTailTable | None = None
    """a GET body's tail by the rank of its TTFB, by size (``planner.sim.engine.joint_tail``)"""


def provider_setup(
    spec: SimSpec, provider: ProviderModel, duration_s: float, rng: np.random.Generator
) -> ProviderSetup:
    """Ask ``provider`` what a replication of ``spec`` over ``duration_s`` needs; draws come from ``rng``
    when the replication first uses them (nothing is drawn here)."""
    idle_share, utilisation = window_load(spec, provider, duration_s)
    queued = queued_operations(spec, provider, utilisation)
    queues, service_s, spreads = build_server_queues(provider, queued, rng)
    network, read_flows, write_flows = build_network(spec, provider)
    admission, hot_counts = admission_checks(spec, provider)

    def get_latency(size: int) -> LatencyModel:
        return provider.latency("get", size, idle_share, utilisation[B_GET], queued=queued[B_GET])

    return ProviderSetup(
        idle_share=idle_share,
        utilisation=utilisation,
        queued=queued,
        latencies=DrawTable(provider, rng, spec.client.round_trip_s, idle_share, utilisation, queued),
        load_extrapolated=[
            op
            for op, u, waits in zip(BILLED_OPERATIONS[:4], utilisation, queued, strict=False)
            if not waits and provider.load_extrapolated(op, u)
        ],
        body_tails=TailTable(provider, rng) if provider.body_tail_by_size else None,
        queues=queues,
        service_s=service_s,
        spreads=spreads,
        network=network,
        read_flows=read_flows,
        write_flows=write_flows,
        admission=admission,
        hot_counts=hot_counts,
        joint_tails=JointTailTable(provider, get_latency, spec.client.round_trip_s)
        if provider.body_tail_by_size
        else None,
    )


def queued_operations(spec: SimSpec, provider: ProviderModel, utilisation: list[float]) -> list[bool]:
    """Per billed operation, whether it waits in its server queue at ``utilisation``: always, unless the
    window is a steady open loop at a load its open-loop cells measured whole (``ProviderModel.queued``)."""
    arrivals = spec.arrivals
    steady = isinstance(arrivals, OpenLoop) and (arrivals.profile in ("mean", "peak") or arrivals.peak_factor == 1)
    steady = steady and (spec.keys.hot is None or not spec.keys.hot.peak_concurrency)
    return [not steady or provider.queued(op, u) for op, u in zip(BILLED_OPERATIONS, utilisation, strict=True)]


def window_load(spec: SimSpec, provider: ProviderModel, duration_s: float) -> tuple[float, list[float]]:
    """The share of requests that find client and server idle, and per billed operation the
    utilisation of its server queue (the window's mean offered work over the queue's capacity).

    Idle: nothing else in flight, exp(-L) with L requests in flight on average by Little's law
    (Poisson arrivals at the window's mean rate times the busy latency of the operations and
    sizes drawn), and at most the share of time the busiest server queue is idle (1 - its
    utilisation); 0 for a closed loop without think time. A closed loop's utilisation is left
    at 0: its rate is what its latency allows, and the queue alone sets how it levels off."""
    utilisation = [0.0] * len(BILLED_OPERATIONS)
    if not provider.sparse_latency_by_size and not provider.loaded_latency:
        return 0.0, utilisation
    arrivals = spec.arrivals
    sizes = list(zip(spec.sizes.sizes_bytes, spec.sizes.probabilities(), strict=True))
    put_sizes = sizes
    if spec.put_sizes is not None:
        put_sizes = list(zip(spec.put_sizes.sizes_bytes, spec.put_sizes.probabilities(), strict=True))

    def sizes_of(op: str) -> list[tuple[int, float]]:
        return put_sizes if op == "put" else sizes if op == "get" else [(0, 1.0)]

    busy_s = sum(
        share * sum(p * provider.latency(op, size).mean_s for size, p in sizes_of(op))
        for op, share in zip(BILLED_OPERATIONS[:4], spec.mix.shares(), strict=True)
        if share
    )
    if isinstance(arrivals, ClosedLoop):
        if arrivals.think_time_s == 0:
            return 0.0, utilisation
        in_flight = arrivals.workers * busy_s / (busy_s + arrivals.think_time_s)
        return math.exp(-in_flight), utilisation
    rate = arrivals.expected_arrivals(0.0, duration_s) / duration_s
    idle = math.exp(-rate * busy_s)
    for queue in provider.server_queues:
        busy = sum(
            rate * share * p * queue.service_for(op, size)
            for op, share in zip(BILLED_OPERATIONS[:4], spec.mix.shares(), strict=True)
            if op in queue.operations
            for size, p in sizes_of(op)
        )
        idle = min(idle, max(0.0, 1.0 - busy / queue.servers))
        for op in queue.operations:
            utilisation[BILLED_OPERATIONS.index(op)] = busy / queue.servers
    return (idle if provider.sparse_latency_by_size else 0.0), utilisation


def build_server_queues(
    provider: ProviderModel, queued: list[bool], rng: np.random.Generator
) -> tuple[list[list[float] | None], ServiceTable, list[Iterator[float] | None]]:
    """Per billed operation, the free times of its queue's servers (a heap shared by the operations
    the queue serves; None for no queue or one it does not wait in) and draws of its service spread;
    service times by ``billed | size << 3``."""
    queues: list[list[float] | None] = [None] * len(BILLED_OPERATIONS)
    spreads: list[Iterator[float] | None] = [None] * len(BILLED_OPERATIONS)
    for queue in provider.server_queues:
        free = [0.0] * queue.servers
        spread = latency_draws(queue.service_spread, rng) if queue.service_spread is not None else None
        for op in queue.operations:
            if queued[BILLED_OPERATIONS.index(op)]:
                queues[BILLED_OPERATIONS.index(op)] = free
                spreads[BILLED_OPERATIONS.index(op)] = spread
    return queues, ServiceTable(provider), spreads


def build_network(
    spec: SimSpec,
    provider: ProviderModel,
    env: simpy.Environment | None = None,
    on_done: Callable[[Any], None] | None = None,
) -> tuple[FluidNetwork, FlowTable, FlowTable]:
    """The fluid network the transfers share (the client's link, the provider's ceilings) and the
    flow classes of reads and writes by size. Without ``env`` its owner polls it on its own clock
    (the replication); with one it arms its own SimPy timer and calls ``on_done`` as each transfer
    ends (``planner.sim.store.object_store``)."""
    client = spec.client
    link = client.link_bits_per_s / 8 if client.link_bits_per_s is not None else math.inf
    read_resources: tuple[int, ...] = (_LINK_DOWN, _PROVIDER_READ)
    if client.link_duplex == "shared":
        write_resources: tuple[int, ...] = (_LINK_DOWN, _PROVIDER_WRITE)
    else:
        write_resources = (_LINK_UP, _PROVIDER_WRITE)
    capacities = [link, link, provider.ceiling_bits_per_s("read") / 8, provider.ceiling_bits_per_s("write") / 8]
    network = FluidNetwork(env, capacities, on_done, timer=env is not None)

    def flow_class(read: bool, nbytes: int) -> FlowClass | None:
        cap = provider.stream_bits_per_s("read" if read else "write", nbytes) / 8
        return network.flow_class(read_resources if read else write_resources, cap)

    read_flows = FlowTable(lambda nbytes: flow_class(True, nbytes))
    write_flows = FlowTable(lambda nbytes: flow_class(False, nbytes))
    read_flows[0] = write_flows[0] = None  # no bytes, no transfer
    return network, read_flows, write_flows


def admission_checks(spec: SimSpec, provider: ProviderModel) -> tuple[list[list[_Check]], dict[int, float]]:
    """Per billed operation, the provider's admission checks of it, in the order they are asked
    (``Replication._loop``, where a part begins): its rate limits, then (GETs) the hot-object limit. A check is a tuple
    ``(kind, state, scope, interval_s, slack_s, error)``:

    - ``_TOKENS``, a token bucket as its equivalent virtual schedule (GCRA): ``state`` holds, per
      scope id (the key modulo ``scope``: ``_ANY_KEY`` for a limit per key, the number of
      prefixes for one per prefix, 1 for one per bucket), the time ``due`` at which
      the bucket is full again but for one token; a request at ``now`` finds a token iff
      ``due - now <= slack_s``, (burst - 1) tokens' worth of time, and then takes it (``due``
      moves on by ``interval_s``, ``1 / per_s``, from ``max(due, now)``); a rejection leaves it as it is.
    - ``_HOT_REJECT`` or ``_HOT_DEGRADE``, concurrent reads of one byte range of one key: ``state``
      counts the reads in flight per ``range << 62 | key`` (keys are below ``_ANY_KEY``); past ``scope``
      of them the read is rejected, or its TTFB stretched by count / ``scope`` (``interval_s`` and
      ``slack_s`` unused).
    """
    admission: list[list[_Check]] = [[] for _ in BILLED_OPERATIONS]
    for limit in provider.rate_limits:
        state: dict[int, float] = {}
        for op in limit.operations:
            modulus = {"key": _ANY_KEY, "prefix": spec.keys.prefixes, "bucket": 1}[limit.scope]
            interval_s = 1.0 / limit.per_s
            check = (_TOKENS, state, modulus, interval_s, (limit.burst_requests - 1.0) * interval_s, limit.error)
            admission[BILLED_OPERATIONS.index(op)].append(check)
    hot_counts: dict[int, float] = {}
    hot = provider.hot_object
    if hot is not None:
        kind = _HOT_DEGRADE if hot.behaviour == "degrade" else _HOT_REJECT
        admission[B_GET].append((kind, hot_counts, hot.max_concurrent_reads, 0.0, 0.0, hot.error))
    return admission, hot_counts


def admit(part: Part, checks: list[_Check], now: float, latencies: dict[int, Iterator[float]]) -> str | None:
    """Ask a part's admission checks (``admission_checks``) in order: the refusal of the first that
    refuses it, None if all admit it. A hot-object check draws the part's latency from ``latencies``
    if it was not drawn (``P_LATENCY`` -1) and makes it longer if the hot object degrades it."""
    key = part[P_KEY]
    for kind, state, scope, interval_s, slack_s, refusal in checks:
        if kind == _TOKENS:
            scope_id = key % scope
            due = state.get(scope_id, now)
            if due - now > slack_s:
                return refusal
            state[scope_id] = (due if due > now else now) + interval_s
        else:  # past ``scope`` reads of this range in flight: reject, or degrade
            latency = part[P_LATENCY]
            if latency < 0.0:
                latency = part[P_LATENCY] = next(latencies[part[P_BILLED] | part[P_NBYTES] << 3])
            # a whole-object read's (range 0) is its key: ``key << 32`` had no low bits, so every
            # key's hash began at one slot of the dict and looking one up took a string of probes
            hot_id = part[P_RANGE] << 62 | key
            count = state.get(hot_id, 0) + 1
            if count > scope:
                if kind == _HOT_REJECT:
                    return refusal
                part[P_LATENCY] = latency * (count / scope)
            state[hot_id] = count
            part[P_HOT] = hot_id
    return None


def server_start(
    part: Part, queue: list[float], service_s: dict[int, float], spreads: list[Iterator[float] | None], now: float
) -> float:
    """When a server of ``part``'s operation's queue takes it: at ``now`` or when the first of ``queue``'s
    servers (their free times, a heap) is free, for the operation's service time at its size times a
    draw of its spread (``build_server_queues``)."""
    billed = part[P_BILLED]
    free = queue[0]
    start = free if free > now else now
    spread = spreads[billed]
    service = service_s[billed | part[P_NBYTES] << 3]
    heapq.heapreplace(queue, start + (service if spread is None else service * next(spread)))
    return start
