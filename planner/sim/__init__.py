"""Discrete-event simulation of a workload against a provider model (SimPy).

``simulate_spec(spec, provider_model, duration_s, seed, replications)`` takes a ``SimSpec`` and
a ``ProviderModel`` and returns a ``SimulationResult``; it prints nothing and reads no files.
"""

from __future__ import annotations

from planner.sim.provider import (
    BandwidthCurve,
    BandwidthPoint,
    HotObjectLimit,
    LatencyModel,
    ProviderModel,
    RateLimit,
)
from planner.sim.result import Estimate, OperationStats, SimulationResult, SLOVerdict, TimeSeries
from planner.sim.simulate import simulate_spec
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

__all__ = [
    "BandwidthCurve",
    "BandwidthPoint",
    "ClientSpec",
    "ClosedLoop",
    "Estimate",
    "HotObjectLimit",
    "HotSet",
    "KeyPopularity",
    "LatencyModel",
    "MultipartPolicy",
    "OpenLoop",
    "OperationMix",
    "OperationStats",
    "ProviderModel",
    "RangedGetPolicy",
    "RateLimit",
    "RetryPolicy",
    "SLOTargets",
    "SLOVerdict",
    "SimSpec",
    "SimulationResult",
    "SizeDistribution",
    "TimeSeries",
    "simulate_spec",
]
