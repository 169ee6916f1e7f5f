"""From the user's ``Workload`` (a month of counts, sizes, a client) to the ``SimSpec`` of one window.

Mapping (``planner.workload.Workload`` -> ``SimSpec``):

- Arrivals: Poisson at the month's logical requests (GETs, objects written, HEADs, LISTs) over
  the workload's 30-day month; the ``mean`` window runs at that rate, the ``peak`` window at
  ``traffic.peak_factor`` times it.
- Mix: the four monthly counts as weights. Sizes: ``Workload.object_sizes()``. Keys: one per
  stored object, read uniformly (a workload states no popularity beyond its hot objects).
- Hot objects: ``count``, ``share_of_reads`` and ``replicas`` in both windows; in the peak window
  ``peak_concurrency`` readers of every hot object also start together, once, at the start.
- Client: link (shared by reads and writes), ``concurrency`` connections; uploads at or above the
  size ``Workload.parts_per_upload`` first splits go in parts of the size it uses for the largest
  object (the client's part size, raised to fit the provider's part count and minimum);
  ``read_streams`` > 1 splits reads larger than ``range_size`` into that many ranged GETs.
- Targets: ``performance.p99_ttfb`` and the read and write throughputs, the latter judged only in
  a window that offers that much load (the simulator moves what the workload asks for).

Everything the mapping had to assume is returned with the spec (``adapt_workload``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from planner.errors import InputError
from planner.pricing.models import Limits, RequestRate
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
from planner.units import format_bytes, format_rate
from planner.workload import MONTH_S, Workload
from planner.workload.cdn_split import store_requests

Window = Literal["peak", "mean"]
WINDOWS: tuple[Window, ...] = ("peak", "mean")

_MIN_PART_BYTES = 5 * 2**20  # S3's minimum part size, which every S3-compatible provider shares
_QUEUE_DEPTH = 4  # parts of one upload in flight at once; the workload does not say


@dataclass
class AdaptedWorkload:
    """A window's ``SimSpec`` and the assumptions the mapping made to build it."""

    spec: SimSpec
    window: Window
    mean_rate_per_s: float
    assumptions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class PrefixNeed:
    """A documented per-prefix request rate, the workload's peak rate of what it counts, and the
    fewest prefixes that keep the peak under it."""

    rate: RequestRate
    peak_per_s: float
    prefixes: int


def prefixes_needed(workload: Workload, limits: Limits) -> list[PrefixNeed]:
    """Per documented per-prefix rate of ``limits``: the peak rate (the month's requests of its
    operations, multipart parts and ranged GETs included, at the peak factor) and the prefixes it needs."""
    rates = [rate for rate in limits.request_rates if rate.scope == "prefix"]
    if not rates:
        return []
    requests = store_requests(workload)[0].usage_for("standard", limits).requests  # the same for every class
    needs = []
    for rate in rates:
        peak = sum(requests.get(op, 0) for op in rate.operations) / MONTH_S * workload.traffic.peak_factor
        if peak:
            needs.append(PrefixNeed(rate=rate, peak_per_s=peak, prefixes=max(1, math.ceil(peak / rate.per_s))))
    return needs


def _per_s(rate: float) -> str:
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.3g}"


def operations_label(rate: RequestRate) -> str:
    """``get/head``, or ``put/copy/...`` for a long list."""
    return "/".join(rate.operations) if len(rate.operations) <= 2 else f"{'/'.join(rate.operations[:2])}/..."


def spec_from_workload(workload: Workload, *, window: Window, limits: Limits | None = None) -> SimSpec:
    """The ``SimSpec`` of the workload's ``peak`` or ``mean`` window (``limits``: the provider's part rules)."""
    return adapt_workload(workload, window=window, limits=limits).spec


def adapt_workload(workload: Workload, *, window: Window, limits: Limits | None = None) -> AdaptedWorkload:
    """``spec_from_workload`` with the assumptions it made, in words."""
    if window not in WINDOWS:
        raise InputError(f"{window!r} is not a window (use peak or mean)", field="window")
    limits = limits or Limits()
    workload, behind = store_requests(workload)  # behind a CDN the store sees only the misses
    traffic = workload.traffic
    notes: list[str] = [behind] if behind is not None else []
    reads, writes = workload.reads_per_month(), workload.writes_per_month()
    heads, lists = traffic.heads, traffic.lists
    total = reads + writes + heads + lists
    if total == 0:
        raise InputError(
            "no requests a month to simulate (give traffic.reads, writes, heads or lists, or an egress)",
            source=workload.name,
            field="traffic",
        )
    mean_rate = total / MONTH_S
    peak_factor = traffic.peak_factor
    if traffic.peak_rate is not None:
        if traffic.peak_rate < mean_rate:
            raise InputError(
                f"{traffic.peak_rate:g}/s is below the month's average of {mean_rate:.4g} requests a second",
                source=workload.name,
                field="traffic.peak_rate",
            )
        peak_factor = traffic.peak_rate / mean_rate
    open_loop = OpenLoop(mean_rate_per_s=mean_rate, peak_factor=peak_factor, profile=window)
    arrivals: OpenLoop | ClosedLoop = open_loop
    window_rate = open_loop.max_rate_per_s
    if window == "peak" and traffic.workers is not None:
        arrivals = ClosedLoop(workers=traffic.workers, think_time_s=traffic.think_time)
        think = f" and {traffic.think_time * 1000:g} ms of think time" if traffic.think_time else ""
        notes.append(
            f"peak window: a closed loop of {traffic.workers} workers (traffic.workers), each sending its next request "
            f"when its last one ends{think}, in the mix of ({reads:,} GET + {writes:,} PUT + {heads:,} HEAD + "
            f"{lists:,} LIST) a month; the rate is what the provider answers, not a figure of the workload"
        )
    elif window == "peak" and traffic.peak_rate is not None:
        notes.append(
            f"peak window: {window_rate:.4g} requests/s (Poisson, traffic.peak_rate) in the mix of ({reads:,} GET + "
            f"{writes:,} PUT + {heads:,} HEAD + {lists:,} LIST) a month"
        )
    else:
        notes.append(
            f"{window} window: {window_rate:.4g} requests/s (Poisson) = ({reads:,} GET + {writes:,} PUT + "
            f"{heads:,} HEAD + {lists:,} LIST) a {MONTH_S / 86400:g}-day month"
            + (f" x peak factor {peak_factor:g}" if window == "peak" else "")
        )
    sizes = workload.object_sizes()
    size_distribution = SizeDistribution(
        sizes_bytes=[max(0, round(size)) for size, _ in sizes], weights=[share for _, share in sizes]
    )
    notes.append("reads and writes draw object sizes from the same distribution; keys are read uniformly")
    prefixes = workload.storage.prefixes
    needs = prefixes_needed(workload, limits)
    needed = max((need.prefixes for need in needs), default=1)
    if needs and (prefixes is not None or needed > 1):
        rates = "; ".join(
            f"peak {_per_s(need.peak_per_s)}/s of {need.rate.per_s:,g}/s for {operations_label(need.rate)}"
            for need in needs
        )
        if prefixes is None:
            prefixes = needed
            notes.append(
                f"storage.prefixes not stated: keys taken as spread evenly over {prefixes:,} prefix(es), the fewest "
                f"that keep the peak under the documented per-prefix request rates ({rates} a prefix)"
            )
        else:
            notes.append(
                f"keys spread evenly over {prefixes:,} prefix(es) (storage.prefixes) against the documented "
                f"per-prefix request rates ({rates} a prefix), with no allowance for the partitioning the "
                "provider adds to a busy prefix over time"
            )
    keys = KeyPopularity(
        keys=max(1, workload.object_count()), prefixes=prefixes or 1, hot=_hot_set(workload, window, notes)
    )
    client = _client(workload, limits, notes, window)
    offered_rate = window_rate if isinstance(arrivals, OpenLoop) else math.inf  # a closed loop asks for all it gets
    slo = _targets(workload, offered_rate, reads, writes, total, size_distribution.mean_bytes, window, notes)
    spec = SimSpec(
        arrivals=arrivals,
        mix=OperationMix(get=reads, put=writes, head=heads, list_objects=lists),
        sizes=size_distribution,
        keys=keys,
        client=client,
        slo=slo,
        month_s=MONTH_S,
    )
    return AdaptedWorkload(spec=spec, window=window, mean_rate_per_s=mean_rate, assumptions=notes)


def _hot_set(workload: Workload, window: Window, notes: list[str]) -> HotSet | None:
    hot = workload.traffic.hot_objects
    if hot is None:
        return None
    burst = hot.peak_concurrency if window == "peak" else 0
    what = (
        f"a {_size(hot.read_size)} range"
        if hot.read_size
        else "a whole object of the workload's sizes (no read_size given)"
    )
    if window == "peak" and not burst:
        notes.append(
            f"hot objects: {hot.share_of_reads:.0%} of reads go to {hot.count} hot object(s) as they arrive; "
            "no readers start together (peak_concurrency 0)"
        )
    elif window == "peak":
        notes.append(
            f"hot objects: {hot.peak_concurrency} readers of each of the {hot.count} start together once, at the "
            f"start of the window, spread round-robin over {hot.replicas} replica key(s); each reads {what}"
        )
    else:
        notes.append("hot objects: no simultaneous burst in the mean window (peak_concurrency is a peak figure)")
    return HotSet(
        objects=hot.count,
        share_of_reads=hot.share_of_reads,
        peak_concurrency=burst,
        replicas=hot.replicas,
        size_bytes=hot.read_size,
    )


def _client(workload: Workload, limits: Limits, notes: list[str], window: Window) -> ClientSpec:
    client = workload.client
    multipart = _multipart(workload, limits, notes)
    ranged = None
    largest = max(size for size, _ in workload.object_sizes())
    streams = min(client.read_streams, math.ceil(largest / client.range_size))
    if streams > 1:
        # As the cost model counts them: min(read_streams, size / range_size) ranges per read.
        ranged = RangedGetPolicy(threshold_bytes=client.range_size + 1, streams=streams)
        notes.append(
            f"reads over {_size(client.range_size)} are split into {streams} equal ranged GETs "
            f"(min of read_streams {client.read_streams} and the largest object over range_size, as billed)"
        )
    connections = client.concurrency
    hot = workload.traffic.hot_objects
    if hot is not None and window == "peak":
        # The hot object's readers are other clients (tasks, viewers), each with its own connection:
        # they add to the client's pool rather than queue behind it.
        connections += hot.peak_concurrency * hot.count
        notes.append(
            f"connections: the client's {client.concurrency} plus one for each of the "
            f"{hot.peak_concurrency * hot.count} hot-object readers"
        )
    retry = RetryPolicy()
    notes.append(
        f"retries: {retry.max_attempts} attempts in all, full-jitter exponential backoff from {retry.base_s:g} s "
        f"(capped at {retry.max_backoff_s:g} s); the workload does not state a retry policy"
    )
    notes.append("reads and writes share the client link (the workload gives one link figure)")
    return ClientSpec(
        link_bits_per_s=client.link,
        link_duplex="shared",
        connections=connections,
        multipart=multipart,
        ranged_get=ranged,
        retry=retry,
    )


def _multipart(workload: Workload, limits: Limits, notes: list[str]) -> MultipartPolicy | None:
    """Multipart as ``Workload.parts_per_upload`` (the cost model) decides it, for this provider."""
    split = sorted(
        (size, workload.parts_per_upload(size, limits))
        for size, share in workload.object_sizes()
        if share > 0 and workload.parts_per_upload(size, limits) > 1
    )
    if not split:
        return None
    threshold = max(1, math.floor(split[0][0]))
    largest, parts = split[-1]
    part_size = math.ceil(largest / parts)
    if part_size < _MIN_PART_BYTES:
        notes.append(f"part size {_size(part_size)} raised to the 5 MiB minimum of S3-compatible APIs")
        part_size = _MIN_PART_BYTES
    notes.append(
        f"uploads of {_size(threshold)} and more go in {_size(part_size)} parts "
        f"({parts} for a {_size(largest)} object, as the cost model counts them), {_QUEUE_DEPTH} parts "
        "at a time (the workload gives no queue depth)"
    )
    changed = [size for size, count in split if math.ceil(size / part_size) != count]
    if changed:
        notes.append(
            f"one part size for every object: {len(changed)} smaller size(s) get fewer parts here than the "
            "cost model counts"
        )
    return MultipartPolicy(threshold_bytes=threshold, part_size_bytes=part_size, queue_depth=_QUEUE_DEPTH)


def _size(size_bytes: float) -> str:
    return format_bytes(size_bytes, binary=True)


def _targets(
    workload: Workload,
    window_rate: float,
    reads: int,
    writes: int,
    total: int,
    mean_bytes: float,
    window: Window,
    notes: list[str],
) -> SLOTargets:
    performance = workload.performance
    offered = {
        "read": window_rate * reads / total * mean_bytes,
        "write": window_rate * writes / total * mean_bytes,
    }
    targets: dict[str, float] = {}
    for direction, wanted in (("read", performance.read_throughput), ("write", performance.write_throughput)):
        if wanted is None:
            continue
        if offered[direction] * 8 >= wanted:
            targets[f"{direction}_bytes_per_s"] = wanted / 8
        else:
            notes.append(
                f"{direction}_throughput target {format_rate(wanted)} not judged in the {window} window: it offers "
                f"only {format_rate(offered[direction] * 8)} of {direction}s (the simulation moves what the "
                "workload asks for, not the most the provider could)"
            )
    return SLOTargets(p99_ttfb_s=performance.p99_ttfb, **targets)
