"""What a model can watch in an ``ObjectStore``: its link (``store.link``, a view of the fluid network the
transfers share) and a ``Monitor`` that samples the pool and the link at a fixed step.

The pool (``store.pool``, ``planner.sim.engine.request_life.ConnectionPool``) is a SimPy resource: a probe may
attach to it (called on every take and give-back) or a ``Monitor`` may sample it. The link is not a
queue of whole requests but a processor-sharing resource (every transfer on it moves at once, at its
share of the capacity), so what it shows is the transfers on it and the rate they move at.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import simpy

from planner.errors import InputError
from planner.sim.engine import ConnectionPool, FlowClass, FluidNetwork

__all__ = ["Link", "Monitor"]

_LINK = (0, 1)  # the client link's resources in the network (``provider_setup.build_network``): down, up


class Link:
    """The client's link as the store's transfers share it: ``capacity_bits_per_s`` each way (None:
    unlimited), ``transfers`` in flight on it and the ``rate_bits_per_s`` they move at now, and
    ``utilisation`` (that rate over the capacity, each way added)."""

    def __init__(self, network: FluidNetwork, capacity_bits_per_s: float | None) -> None:
        self._network = network
        self.capacity_bits_per_s = capacity_bits_per_s

    def _on_link(self) -> list[FlowClass]:
        return [flow for flow in self._network.flow_classes() if flow.n and any(r in _LINK for r in flow.resources)]

    @property
    def transfers(self) -> int:
        """Bodies moving on the link now (its queue: they share it, none waits)."""
        return sum(flow.n for flow in self._on_link())

    @property
    def rate_bits_per_s(self) -> float:
        """What the transfers on the link move now, in bits a second."""
        return float(sum(flow.n * flow.rate * 8 for flow in self._on_link()))

    @property
    def utilisation(self) -> float:
        """The rate now over the link's capacity (0 for an unlimited link)."""
        if self.capacity_bits_per_s is None:
            return 0.0
        return self.rate_bits_per_s / self.capacity_bits_per_s


class Monitor:
    """Samples a pool and a link every ``every_s`` seconds until ``until_s`` (a SimPy process, desmod's
    sampled probe): ``times``, connections ``in_use``, requests ``waiting``, ``link_bits_per_s``."""

    def __init__(
        self,
        env: simpy.Environment,
        every_s: float,
        until_s: float,
        *,
        pool: ConnectionPool | None = None,
        link: Link | None = None,
    ) -> None:
        for name, value in (("every_s", every_s), ("until_s", until_s)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
                raise InputError(f"{name} {value!r}: give a time in seconds above 0", field=name)
        if not isinstance(env, simpy.Environment):
            raise InputError(f"env {type(env).__name__}: give the simpy.Environment to sample on", field="env")
        if pool is not None and not isinstance(pool, ConnectionPool):
            raise InputError(f"pool {type(pool).__name__}: give a ConnectionPool (store.pool) or None", field="pool")
        if link is not None and not isinstance(link, Link):
            raise InputError(f"link {type(link).__name__}: give a Link (store.link) or None", field="link")
        self.pool, self.link = pool, link
        self.times: list[float] = []
        self.in_use: list[int] = []
        self.waiting: list[int] = []
        self.link_bits_per_s: list[float] = []
        env.process(self._sample(env, float(every_s), float(until_s)))

    def _sample(self, env: simpy.Environment, every_s: float, until_s: float) -> Generator[simpy.Event, Any, None]:
        while env.now <= until_s:
            self.times.append(env.now)
            if self.pool is not None:
                self.in_use.append(self.pool.count)
                self.waiting.append(len(self.pool.queue))
            if self.link is not None:
                self.link_bits_per_s.append(self.link.rate_bits_per_s)
            yield env.timeout(every_s)

    def mean(self, series: str) -> float:
        """The mean of one sampled series (``"in_use"``, ``"waiting"``, ``"link_bits_per_s"``)."""
        values = getattr(self, series, None)
        if series not in ("in_use", "waiting", "link_bits_per_s") or not values:
            raise InputError(f"series {series!r}: give in_use, waiting or link_bits_per_s (sampled)", field="series")
        return float(sum(values)) / len(values)
