"""The engine: one replication of a ``SimSpec`` against a ``ProviderModel`` on its own clock (the event
loop, the request's life, the fluid network, the draws and tables it asks the model), and ``simulate_spec``,
the replications of one window summarised. It imports the provider model, never the front or the store.

The names below are what the rest of ``planner.sim`` uses of it."""

from planner.sim.engine.answer_tables import B_GET, B_PUT, BySizeClass, DrawTable, TailTable, latency_draws
from planner.sim.engine.client_waits import without_second_wait
from planner.sim.engine.core import Tally, bin_width, check_size, simulate_spec, summarise
from planner.sim.engine.fluid_network import FlowClass, FluidNetwork
from planner.sim.engine.provider_setup import admission_checks, build_network, build_server_queues
from planner.sim.engine.replication import Replication
from planner.sim.engine.replication_records import RawRun
from planner.sim.engine.request_life import ConnectionPool, RequestLife
from planner.sim.engine.request_parts import (
    FIRST_BYTE,
    P_BILLED,
    P_ERROR,
    P_NBYTES,
    P_REQUEST,
    P_STEP,
    P_TRANSFER,
    RESPONSE,
    RETRY,
    Part,
    Request,
)
from planner.sim.engine.requests import FloatArray, IntArray, RequestSource
from planner.sim.engine.stats import delivered_bytes
from planner.sim.engine.stretch import shortest_request_s
from planner.sim.engine.trace_stream import OPERATIONS, StreamedTrace, open_trace

__all__ = [
    "B_GET",
    "B_PUT",
    "FIRST_BYTE",
    "OPERATIONS",
    "P_BILLED",
    "P_ERROR",
    "P_NBYTES",
    "P_REQUEST",
    "P_STEP",
    "P_TRANSFER",
    "RESPONSE",
    "RETRY",
    "BySizeClass",
    "ConnectionPool",
    "DrawTable",
    "FloatArray",
    "FlowClass",
    "FluidNetwork",
    "IntArray",
    "Part",
    "RawRun",
    "Replication",
    "Request",
    "RequestLife",
    "RequestSource",
    "StreamedTrace",
    "TailTable",
    "Tally",
    "admission_checks",
    "bin_width",
    "build_network",
    "build_server_queues",
    "check_size",
    "delivered_bytes",
    "latency_draws",
    "open_trace",
    "shortest_request_s",
    "simulate_spec",
    "summarise",
    "without_second_wait",
]
