"""The workload front: from a user's ``Workload`` to the windows the engine simulates (``simulate``,
``simulate_workload``), and request traces read, generated or replayed in parallel windows.

The names below are what the rest of ``planner.sim`` uses of it."""

from planner.sim.front.run import WorkloadRun, simulate_workload
from planner.sim.front.workload_adapter import adapt_workload, spec_from_workload
from planner.sim.front.workload_sim import billed_usage, simulate

__all__ = ["WorkloadRun", "adapt_workload", "billed_usage", "simulate", "simulate_workload", "spec_from_workload"]
