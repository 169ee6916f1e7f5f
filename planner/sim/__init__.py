"""Discrete-event simulation of a workload against a provider model (an event loop of its own), and
the same provider model as a SimPy component (``ObjectStore``) for the user's own SimPy model.

``simulate(workload, provider, ...)`` runs a user's ``Workload`` against a provider (its shipped
reference profile unless one is given) in a peak and a mean window and returns a
``WorkloadSimulation``; ``billed_usage`` prices its month through ``pricing.billing.bill``.
``simulate_workload(workload, provider_model, ...)`` is the one path both ``simulate`` and
``recommend`` take from a workload and a model already built to its windows and verdicts.
``simulate_spec(spec, provider_model, duration_s, seed, replications)`` is the core: a ``SimSpec``
and a ``ProviderModel`` in, a ``SimulationResult`` out; it prints nothing and reads no files.

Its parts, one concept each: ``model`` (the provider model, built from profiles), ``engine`` (one
replication on its own clock, and ``simulate_spec``), ``front`` (from a workload to its windows, and
traces), ``store`` (the SimPy component); ``spec`` and ``result`` are what all of them share. The front
and the store stand beside each other over the engine, which stands over the model (``lint-imports``).

Names are imported on first use, so ``planner.cli.simulate`` loads without numpy and simpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.sim.engine.core import simulate_spec
    from planner.sim.engine.request_life import ConnectionPool
    from planner.sim.front.run import WorkloadRun, simulate_workload
    from planner.sim.front.workload_adapter import adapt_workload, spec_from_workload
    from planner.sim.front.workload_sim import billed_usage, simulate
    from planner.sim.model.profile_adapter import provider_model_from_profile
    from planner.sim.model.provider import (
        BandwidthCurve,
        BandwidthPoint,
        HotObjectLimit,
        LatencyModel,
        ProviderModel,
        RateLimit,
        ServerQueue,
        SizedLatency,
    )
    from planner.sim.result import (
        Estimate,
        OperationStats,
        SimulationResult,
        SLOVerdict,
        TimeSeries,
        WorkloadSimulation,
    )
    from planner.sim.spec import (
        ClientSpec,
        ClosedLoop,
        HotSet,
        KeyPopularity,
        MultipartPolicy,
        OpenLoop,
        OperationMix,
        RangedGetPolicy,
        RetryPolicy,
        SimSpec,
        SizeDistribution,
        SLOTargets,
    )
    from planner.sim.store.object_store import ObjectStore
    from planner.sim.store.store_probes import Link, Monitor
    from planner.sim.store.store_records import OperationSummary, Recorder, RecordTable, StoreRecord

_WHERE = {
    "planner.sim.model.profile_adapter": ("provider_model_from_profile",),
    "planner.sim.model.provider": (
        "BandwidthCurve",
        "BandwidthPoint",
        "HotObjectLimit",
        "LatencyModel",
        "ProviderModel",
        "RateLimit",
        "ServerQueue",
        "SizedLatency",
    ),
    "planner.sim.result": (
        "Estimate",
        "OperationStats",
        "SimulationResult",
        "SLOVerdict",
        "TimeSeries",
        "WorkloadSimulation",
    ),
    "planner.sim.engine.core": ("simulate_spec",),
    "planner.sim.front.run": ("WorkloadRun", "simulate_workload"),
    "planner.sim.spec": (
        "ClientSpec",
        "ClosedLoop",
        "HotSet",
        "KeyPopularity",
        "MultipartPolicy",
        "OpenLoop",
        "OperationMix",
        "RangedGetPolicy",
        "RetryPolicy",
        "SimSpec",
        "SizeDistribution",
        "SLOTargets",
    ),
    "planner.sim.store.object_store": ("ObjectStore",),
    "planner.sim.store.store_records": ("OperationSummary", "RecordTable", "Recorder", "StoreRecord"),
    "planner.sim.store.store_probes": ("Link", "Monitor"),
    "planner.sim.engine.request_life": ("ConnectionPool",),
    "planner.sim.front.workload_adapter": ("adapt_workload", "spec_from_workload"),
    "planner.sim.front.workload_sim": ("billed_usage", "simulate"),
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = [
    "BandwidthCurve",
    "BandwidthPoint",
    "ClientSpec",
    "ClosedLoop",
    "ConnectionPool",
    "Estimate",
    "HotObjectLimit",
    "HotSet",
    "KeyPopularity",
    "LatencyModel",
    "Link",
    "Monitor",
    "MultipartPolicy",
    "ObjectStore",
    "OpenLoop",
    "OperationMix",
    "OperationStats",
    "OperationSummary",
    "ProviderModel",
    "RangedGetPolicy",
    "RateLimit",
    "RecordTable",
    "Recorder",
    "RetryPolicy",
    "SLOTargets",
    "SLOVerdict",
    "ServerQueue",
    "SimSpec",
    "SimulationResult",
    "SizeDistribution",
    "SizedLatency",
    "StoreRecord",
    "TimeSeries",
    "WorkloadRun",
    "WorkloadSimulation",
    "adapt_workload",
    "billed_usage",
    "provider_model_from_profile",
    "simulate",
    "simulate_spec",
    "simulate_workload",
    "spec_from_workload",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'planner.sim' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
