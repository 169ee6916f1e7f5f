"""Which part of a published per-request rate spread decided a read-throughput verdict.

The analytic read throughput is streams x the per-stream rate at the spread's median (S3: Durner et
al.'s 55 MiB/s of a 25-95 MiB/s spread, ``planner.sim.model.published_spread``). The verdict then says
whether the target is met even with every stream at the slow end, only from the median up, only at
the fast end, or not even there, each with its figure, so a reader sees how much rests on the median.
"""

from __future__ import annotations

from planner.evidence import TargetVerdict
from planner.sim.model.provider import ProviderModel
from planner.sim.model.published_spread import rate_at
from planner.units import format_rate

_MIB = 1024 * 1024


def spread_decides(
    verdict: TargetVerdict,
    model: ProviderModel | None,
    *,
    wanted_bits_per_s: float,
    median_figure_bits_per_s: float,
    hard_bits_per_s: float,
    mean_object_bytes: float,
) -> TargetVerdict:
    """``verdict`` with a clause on the part of the spread that decided it; unchanged where the model
    has no published spread at or below the workload's object size (the spread was measured at one
    size and holds above it, as the stream curve does)."""
    if model is None:
        return verdict
    sizes = [size for size in model.read_rate_spread if size <= mean_object_bytes]
    if not sizes:
        return verdict
    knots = model.read_rate_spread[max(sizes)]
    low, high = knots[0][1], knots[-1][1]
    median = rate_at(knots, 0.5)

    def at(rate: float) -> float:
        return min(median_figure_bits_per_s * rate / median, hard_bits_per_s)

    def mib(rate: float) -> str:
        return f"{rate / _MIB:.3g} MiB/s"

    spread = f"the published per-request spread ({low / _MIB:.3g}-{mib(high)}, median {mib(median)})"
    if at(low) >= wanted_bits_per_s:
        clause = f"met even at the slow end of {spread}: every request at {mib(low)} gives {format_rate(at(low))}"
    elif at(median) >= wanted_bits_per_s:
        clause = (
            f"decided by the median of {spread}: {mib(median)} a request gives {format_rate(at(median))}; at the slow"
            f" end, {mib(low)}, it gives {format_rate(at(low))} and misses"
        )
    elif at(high) >= wanted_bits_per_s:
        clause = (
            f"missed at the median of {spread}: {mib(median)} a request gives {format_rate(at(median))}; only the"
            f" fast end, {mib(high)}, gives {format_rate(at(high))} and meets it"
        )
    else:
        clause = f"missed even at the fast end of {spread}: {mib(high)} a request gives {format_rate(at(high))}"
    return verdict.model_copy(update={"reason": f"{verdict.reason}; {clause}"})
