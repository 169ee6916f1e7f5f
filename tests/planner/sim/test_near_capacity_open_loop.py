"""Near capacity, a steady open loop drawn from the open-loop ladder's cells stays stable on the
client the cells were measured through: their latency runs from the arrival and so holds that
client's waits for a connection, which the simulator must not add again (SeaweedFS at 87.5 % of its
open-loop peak: 7.85 ms live, 9 s simulated, the 32-connection pool's load past one)."""

from __future__ import annotations

import pytest

from planner.measure.profile import Profile, Source
from planner.sim import OpenLoop, simulate_spec
from planner.sim.engine.client_waits import UNBOUNDED_CONNECTIONS, cells_client_connections, without_second_wait
from planner.sim.model.profile_adapter import provider_model_from_profile

from .cells import KIB, closed_get, ladder_get, open_gets


def _seaweed_like() -> Profile:
    """Closed loops peak at 2,700/s; the open-loop ladder keeps up with 3,375/s (p50 16 ms) and
    completes 3,600/s of 4,050/s offered."""
    closed = [closed_get(1, 850, 0.0011), closed_get(16, 2700, 0.0059)]
    ladder = [
        ladder_get(900, 900, 0.0014, 0.0026, 0.0045),
        ladder_get(1800, 1800, 0.0020, 0.0050, 0.0090),
        ladder_get(2700, 2700, 0.0044, 0.0200, 0.0320),
        ladder_get(3375, 3375, 0.0160, 0.0900, 0.1300),
        ladder_get(4050, 3600, 0.4000, 0.8000, 0.9000),
    ]
    return Profile(provider="local", cells=closed + ladder, source=Source(kind="measured"))


def test_the_capacity_is_the_ladders_completed_rate_not_the_closed_loop_peak() -> None:
    model, notes = provider_model_from_profile(_seaweed_like())
    queue = model.server_queue("get")
    assert queue is not None and queue.capacity_for("get", 4 * KIB) == pytest.approx(3600)
    capacity = "GET 4 KiB capacity 3600/s: where its cells level off (an open loop offered 4050/s completed 3600/s)"
    assert capacity in notes
    assert model.loaded_latency["get"].client_connections == 32


def test_a_load_near_the_ladders_peak_stays_stable_on_the_cells_client() -> None:
    model, _ = provider_model_from_profile(_seaweed_like())
    # 3,150/s: 87.5 % of the 3,600/s the ladder completed, 117 % of the closed-loop peak; between the
    # rungs at 2,700/s (p50 4.4 ms) and 3,375/s (16 ms)
    result = simulate_spec(open_gets(3150, 32), model, 20.0, seed=1)
    get = result.operations["GET"]
    done_per_s = (get.requests.mean - get.failed.mean) / result.window_s
    assert done_per_s == pytest.approx(3150, rel=0.03)
    assert 0.0044 < get.latency_p50_s.mean < 0.016
    assert get.latency_p99_s.mean < 0.13
    # the cells' own latency, their client's waits in it: the same as on a pool that never fills
    unbounded = simulate_spec(open_gets(3150, 100_000), model, 20.0, seed=1).operations["GET"]
    assert get.latency_p50_s.mean == pytest.approx(unbounded.latency_p50_s.mean, rel=0.05)
    # at a rung's own rate the simulated median is the rung's
    at_rung = simulate_spec(open_gets(3375, 32), model, 20.0, seed=1).operations["GET"]
    assert at_rung.latency_p50_s.mean == pytest.approx(0.016, rel=0.2)


def test_a_smaller_client_than_the_cells_keeps_its_connection_pool() -> None:
    model, _ = provider_model_from_profile(_seaweed_like())
    assert cells_client_connections(open_gets(3150, 32), model, 20.0) == 32
    assert cells_client_connections(open_gets(3150, 16), model, 20.0) is None
    assert without_second_wait(open_gets(3150, 16), model, 20.0).client.connections == 16
    assert without_second_wait(open_gets(3150, 64), model, 20.0).client.connections == UNBOUNDED_CONNECTIONS
    # past the capacity the queue runs: the pool is the simulated client's again
    assert cells_client_connections(open_gets(3700, 32), model, 20.0) is None
    # a varying rate runs the queue whatever the cells measured
    diurnal = open_gets(3150, 32).model_copy(
        update={"arrivals": OpenLoop(mean_rate_per_s=3150, profile="diurnal", peak_factor=1.5, period_s=20)}
    )
    assert cells_client_connections(diurnal, model, 20.0) is None
