"""planner: choose object storage by measured performance and exact, versioned prices.

The public API is re-exported here and loaded lazily, so ``import planner`` (and the CLI's
start-up) pays only for what is used. ``__all__`` is the contract: every name in it is typed for a
user's type checker (the ``TYPE_CHECKING`` imports below; the package ships ``py.typed``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planner.costing.bills import estimate_cost, project_costs
    from planner.decide.migration import MigrationOptions, MigrationPlan, estimate_migration
    from planner.decide.recommendation import Recommendation, recommend
    from planner.errors import InputError, MeasureError, PlannerError, PricingError
    from planner.pricing.breakdown import CostBreakdown
    from planner.pricing.models import PriceTable
    from planner.pricing.usage import Usage
    from planner.recording import PricedMix, Recording, price_mix, record
    from planner.sim import SimulationResult, WorkloadSimulation, simulate
    from planner.sim.engine.request_life import ConnectionPool
    from planner.sim.spec import ClientSpec, MultipartPolicy
    from planner.sim.store.object_store import ObjectStore
    from planner.sim.store.store_probes import Link, Monitor
    from planner.sim.store.store_records import OperationSummary, RecordTable, StoreRecord
    from planner.workload import Workload, load_workload

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "PlannerError": "planner.errors",
    "InputError": "planner.errors",
    "PricingError": "planner.errors",
    "MeasureError": "planner.errors",
    "Workload": "planner.workload",
    "load_workload": "planner.workload",
    "estimate_cost": "planner.costing.bills",
    "project_costs": "planner.costing.bills",
    "recommend": "planner.decide.recommendation",
    "Recommendation": "planner.decide.recommendation",
    "simulate": "planner.sim",
    "SimulationResult": "planner.sim",
    "WorkloadSimulation": "planner.sim",
    "ObjectStore": "planner.sim.store.object_store",
    "ClientSpec": "planner.sim.spec",
    "MultipartPolicy": "planner.sim.spec",
    "ConnectionPool": "planner.sim.engine.request_life",
    "Link": "planner.sim.store.store_probes",
    "Monitor": "planner.sim.store.store_probes",
    "StoreRecord": "planner.sim.store.store_records",
    "OperationSummary": "planner.sim.store.store_records",
    "RecordTable": "planner.sim.store.store_records",
    "estimate_migration": "planner.decide.migration",
    "MigrationOptions": "planner.decide.migration",
    "MigrationPlan": "planner.decide.migration",
    "CostBreakdown": "planner.pricing.breakdown",
    "PriceTable": "planner.pricing.models",
    "Usage": "planner.pricing.usage",
    "record": "planner.recording",
    "Recording": "planner.recording",
    "price_mix": "planner.recording",
    "PricedMix": "planner.recording",
}

__all__ = [
    "ClientSpec",
    "ConnectionPool",
    "CostBreakdown",
    "InputError",
    "Link",
    "MeasureError",
    "MigrationOptions",
    "MigrationPlan",
    "Monitor",
    "MultipartPolicy",
    "ObjectStore",
    "OperationSummary",
    "PlannerError",
    "PriceTable",
    "PricedMix",
    "PricingError",
    "Recommendation",
    "RecordTable",
    "Recording",
    "SimulationResult",
    "StoreRecord",
    "Usage",
    "Workload",
    "WorkloadSimulation",
    "__version__",
    "estimate_cost",
    "estimate_migration",
    "load_workload",
    "price_mix",
    "project_costs",
    "recommend",
    "record",
    "simulate",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'planner' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
