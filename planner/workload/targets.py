"""Target rules that follow from the workload and a class's properties alone, before any profile or simulation."""

from __future__ import annotations

from planner.evidence import TargetVerdict
from planner.units import format_duration, format_rate
from planner.workload.model import Workload


def restore_verdicts(workload: Workload, storage_class: str) -> list[TargetVerdict]:
    """An archive class serves no read before a restore: its TTFB and read targets are missed, on the
    provider's own documentation (restores take minutes to hours)."""
    targets = workload.performance
    reason = f"{storage_class} objects must be restored (minutes to hours) before they can be read"
    found = []
    for target, wanted in (("p99 TTFB", targets.p99_ttfb), ("read throughput", targets.read_throughput)):
        if wanted is None:
            continue
        text = format_duration(wanted) if target == "p99 TTFB" else format_rate(wanted)
        found.append(
            TargetVerdict(
                target=target,
                wanted=text,
                achieved="restore first",
                evidence="published",
                verdict="missed",
                judged_on="the storage class",
                reason=f"{reason}: no TTFB or read-throughput target can be met",
            )
        )
    return found
