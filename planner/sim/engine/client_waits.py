"""Requests drawn whole from open-loop cells do not wait for a connection twice.

An open-loop cell's latency runs from each request's arrival, so where every connection of the
client it was measured through was busy, the request's wait for one is in its latency. A steady open
loop drawn whole from such cells (``ProviderModel.queued`` is False for each operation it issues)
takes that wait from them; if the simulated client then also made it wait for one of its own
connections, the wait would count twice, and near capacity, where the cells' latency exceeds
connections / rate, the simulated pool's load passes one and its queue never drains (SeaweedFS at
87.5 % of its open-loop peak: 7.85 ms live, seconds simulated). Where the simulated client has at
least the cells' client's connections, its pool is taken as unbounded for such a window; with fewer,
the pool stays (its waits on top of the cells' are the smaller client's own, counted once too many)."""

from __future__ import annotations

from planner.sim.engine.provider_setup import queued_operations, window_load
from planner.sim.model import BILLED_OPERATIONS, ProviderModel, measured_as
from planner.sim.spec import SimSpec

UNBOUNDED_CONNECTIONS = 1 << 30
"""A connection pool no window fills."""


def cells_client_connections(spec: SimSpec, provider: ProviderModel, duration_s: float) -> int | None:
    """The connections of the client the window's latency is drawn through, when every operation the
    window issues is drawn whole from open-loop cells measured through a client with as many or fewer
    connections than the simulated one; None otherwise (the simulated pool applies)."""
    _, utilisation = window_load(spec, provider, duration_s)
    queued = queued_operations(spec, provider, utilisation)
    issued = [op for op, share in zip(BILLED_OPERATIONS[:4], spec.mix.shares(), strict=True) if share > 0]
    if not issued:
        return None
    measured_through: list[int] = []
    for op in issued:
        loaded = provider.loaded_latency.get(measured_as(op))
        if queued[BILLED_OPERATIONS.index(op)] or loaded is None or loaded.client_connections is None:
            return None
        measured_through.append(loaded.client_connections)
    widest = max(measured_through)
    return widest if spec.client.connections >= widest else None


def without_second_wait(spec: SimSpec, provider: ProviderModel, duration_s: float) -> SimSpec:
    """``spec`` with an unbounded connection pool where its requests' latency, drawn whole from open-loop
    cells, already holds their client's waits for a connection (``cells_client_connections``); else
    ``spec`` itself."""
    if cells_client_connections(spec, provider, duration_s) is None:
        return spec
    client = spec.client.model_copy(update={"connections": UNBOUNDED_CONNECTIONS})
    return spec.model_copy(update={"client": client})
