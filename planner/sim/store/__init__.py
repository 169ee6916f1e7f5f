"""The SimPy component: ``ObjectStore``, a provider model inside the user's own SimPy model, taking the
engine's request life step by step; its records, probes and bill. It never imports the workload front.

The names below are what the rest of ``planner.sim`` uses of it."""

from planner.sim.store.object_store import ObjectStore
from planner.sim.store.store_probes import Link, Monitor
from planner.sim.store.store_records import OperationSummary, Recorder, RecordTable, StoreRecord

__all__ = ["Link", "Monitor", "ObjectStore", "OperationSummary", "RecordTable", "Recorder", "StoreRecord"]
