"""Target rules that follow from the workload and a class's properties alone, before any profile or simulation.

An archive class (the table's ``limits.restore_required``) serves a read only after a restore, which
takes the times its table states for each retrieval option ("3-5 hours", "within 48 hours"). A
workload that reads accepts such a class only when ``performance.max_restore`` says its reads can
wait at least as long as the restore the bill prices (the class's default retrieval option).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from planner.evidence import TargetVerdict
from planner.pricing.models import PriceTable
from planner.units import format_duration, format_rate
from planner.workload.model import Workload
from planner.workload.tools import ToolMonth

_UNIT_S = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0}
_STATED = re.compile(
    r"^\s*(?:within|up to)?\s*(?:(\d+(?:\.\d+)?)\s*(?:-|to)\s*)?(\d+(?:\.\d+)?)\s*(second|minute|hour|day)s?\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class StatedTime:
    """One retrieval option's restore time as its table states it, and its bounds in seconds."""

    option: str
    stated: str
    low_s: float | None  # None: the table gives only an upper bound ("within 12 hours")
    high_s: float
    low_text: str  # the fastest this option takes, e.g. "1 minute" ("within 12 hours": "12 hours")
    high_text: str  # the slowest, e.g. "5 minutes"


def parse_stated_time(option: str, stated: str) -> StatedTime | None:
    """``"1-5 minutes"``, ``"3-5 hours"``, ``"within 48 hours"`` as bounds; None for words it cannot read."""
    found = _STATED.match(stated)
    if found is None:
        return None
    low, high, unit = found.group(1), found.group(2), found.group(3).lower()

    def text(number: str) -> str:
        return f"{number} {unit}{'' if float(number) == 1 else 's'}"

    return StatedTime(
        option=option,
        stated=stated.strip(),
        low_s=None if low is None else float(low) * _UNIT_S[unit],
        high_s=float(high) * _UNIT_S[unit],
        low_text=text(low if low is not None else high),
        high_text=text(high),
    )


@dataclass(frozen=True)
class RestoreTimes:
    """How long a restore of one archive class takes, by retrieval option, as its price table states it."""

    storage_class: str
    table_version: str
    priced_option: str  # the option the bill prices (the class's default)
    options: tuple[StatedTime, ...]  # the options whose time the table states in words this reads
    unreadable: tuple[str, ...]  # options with no time, or one this cannot read

    @property
    def priced(self) -> StatedTime | None:
        return next((o for o in self.options if o.option == self.priced_option), None)

    @property
    def span(self) -> str | None:
        """From the fastest option's quickest restore to the slowest option's longest, e.g. "12-48 hours"."""
        if not self.options:
            return None
        fastest = min(self.options, key=lambda o: o.low_s if o.low_s is not None else o.high_s)
        slowest = max(self.options, key=lambda o: o.high_s)
        low, high = fastest.low_text, slowest.high_text
        low_number, low_unit = low.split(" ")
        high_number, high_unit = high.split(" ")
        if low == high:
            return high
        if low_unit.rstrip("s") == high_unit.rstrip("s"):
            return f"{low_number}-{high_number} {high_unit}"
        return f"{low} to {high}"

    @property
    def source(self) -> str:
        """The table and each option's stated time, e.g. "table aws-s3@2025-12-01: standard within 12 hours"."""
        stated = [f"{o.option} {o.stated}" for o in self.options] + [f"{o} not stated" for o in self.unreadable]
        return f"table {self.table_version}: {', '.join(stated) or 'no retrieval times stated'}"

    def phrase(self) -> str:
        """ "restores take 12-48 hours (table ...)", or that the table states none."""
        span = self.span
        if span is None:
            return f"the table states no restore time ({self.source})"
        return f"restores take {span} ({self.source})"


def restore_times(table: PriceTable, storage_class: str) -> RestoreTimes:
    """The restore times ``table`` states for ``storage_class``'s retrieval options."""
    retrieval = table.classes[storage_class].retrieval
    options: list[StatedTime] = []
    unreadable: list[str] = []
    for name, option in retrieval.options.items() if retrieval is not None else []:
        parsed = None if option.time is None else parse_stated_time(name, option.time)
        if parsed is None:
            unreadable.append(name)
        else:
            options.append(parsed)
    return RestoreTimes(
        storage_class=storage_class,
        table_version=table.version,
        priced_option=retrieval.default if retrieval is not None else "",
        options=tuple(options),
        unreadable=tuple(unreadable),
    )


def reads_anything(workload: Workload) -> bool:
    """Whether the workload reads its stored data: GETs, HEADs or bytes read out, its tools' among them."""
    traffic = workload.traffic
    return bool(
        _gets(workload)
        or traffic.heads
        or traffic.egress
        or traffic.internal_reads
        or traffic.inter_region
        or any(used.requests.get("head") or used.read_back_bytes for used in _tool_months(workload))
    )


def _tool_months(workload: Workload) -> list[ToolMonth]:
    return [use.month() for use in workload.tools]


def _gets(workload: Workload) -> int:
    """GETs a month: the traffic's and its tools'."""
    return workload.reads_per_month() + sum(used.requests.get("get", 0) for used in _tool_months(workload))


def _reads(workload: Workload) -> str:
    """The workload's reads in words, its tools' share named."""
    by_tools = _gets(workload) - workload.reads_per_month()
    of_them = f", {by_tools:,} of them by its tools" if by_tools else ""
    return f"the workload reads ({_gets(workload):,} GETs a month{of_them})"


def restore_time_verdict(workload: Workload, times: RestoreTimes) -> TargetVerdict | None:
    """The restore-time target of a workload that reads, on an archive class: met when the restore the
    bill prices is done within ``performance.max_restore``; missed when it takes longer, when the
    table states no time for it, or when the workload gives no ``max_restore`` (its reads cannot wait)."""
    if not reads_anything(workload):
        return None
    wanted_s = workload.performance.max_restore
    reads = _reads(workload)
    base = f"{times.storage_class} objects must be restored before a read, and {times.phrase()}"
    achieved = times.span
    if wanted_s is None:
        return TargetVerdict(
            target="restore time",
            wanted="none (no performance.max_restore)",
            achieved=achieved,
            evidence="published",
            verdict="missed",
            judged_on="the storage class",
            reason=f"{base}: {reads} and gives no performance.max_restore"
            f" (set e.g. max_restore: {_hours(times)} if its reads can wait that long for a restore)",
        )
    wanted = format_duration(wanted_s)
    priced = times.priced
    if priced is None:
        return TargetVerdict(
            target="restore time",
            wanted=wanted,
            achieved=achieved,
            evidence="published",
            verdict="missed",
            judged_on="the storage class",
            reason=f"{base}: the table states no time for the {times.priced_option or 'priced'} restore the bill"
            f" prices, so it cannot be judged against performance.max_restore {wanted}",
        )
    if priced.high_s <= wanted_s:
        return TargetVerdict(
            target="restore time",
            wanted=wanted,
            achieved=priced.stated,
            evidence="published",
            verdict="met",
            judged_on="the storage class",
            reason=f"{times.storage_class} {priced.option} restores (the ones priced) take {priced.stated},"
            f" within performance.max_restore {wanted} ({times.source})",
        )
    faster = [o for o in times.options if o.high_s <= wanted_s]
    hint = (
        f"; {', '.join(f'{o.option} ({o.stated})' for o in faster)} would be in time, at a price this bill does"
        " not include"
        if faster
        else ""
    )
    return TargetVerdict(
        target="restore time",
        wanted=wanted,
        achieved=priced.stated,
        evidence="published",
        verdict="missed",
        judged_on="the storage class",
        reason=f"{base}: the {priced.option} restores the bill prices take {priced.stated}, longer than"
        f" performance.max_restore {wanted}{hint}",
    )


def _hours(times: RestoreTimes) -> str:
    """The priced restore's longest time as a max_restore value, e.g. "48h"."""
    priced = times.priced or (max(times.options, key=lambda o: o.high_s) if times.options else None)
    if priced is None:
        return "12h"
    hours = priced.high_s / 3600
    return f"{hours:g}h" if hours >= 1 else f"{priced.high_s / 60:g}m"


def restore_verdicts(workload: Workload, storage_class: str, times: RestoreTimes | None = None) -> list[TargetVerdict]:
    """An archive class serves no read before a restore: its TTFB and read targets are missed, on the
    provider's own documentation (``times``: the restore times its table states)."""
    targets = workload.performance
    reason = f"{storage_class} objects must be restored before they can be read"
    if times is not None:
        reason += f" ({times.phrase()})"
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
