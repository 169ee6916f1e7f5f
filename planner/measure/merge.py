"""Combine profiles measured from several client hosts against one endpoint.

Summing figures is only honest for load that ran *at the same time*: seed 003 summed per-host
peaks taken at different moments, which overstates the service. So, per cell:

* if every host measured the cell and the measured windows overlap by at least half of the
  shortest one, throughput and ops/s are summed (aggregate load), concurrency, requests in
  flight, arrival rates and late arrivals are summed, the latency/TTFB histograms are added
  (every host's requests in one distribution) and the percentiles are read from the added
  histogram (within a bucket's width); without histograms on every host (version-1 profiles)
  the percentiles are the worst host's, as percentiles of different hosts cannot be added;
* otherwise the cell is the best single host's (max throughput, else max ops/s), the others are
  not added, and the cell's note says so.

An open-loop cell is matched across hosts by operation, size, concurrency and an arrival rate
within 10 % (a rate set as a fraction of each host's own peak differs a little between hosts).

The merged profile's ``merge`` block records the method and whether the runs overlapped.
"""

from __future__ import annotations

from collections import Counter

from planner.errors import InputError
from planner.measure.profile import (
    Cell,
    CellKey,
    ClientHost,
    LatencyHistogram,
    MergeInfo,
    MergeInput,
    Percentiles,
    Profile,
    Source,
)

_OVERLAP = 0.5
_SAME_RATE = 0.1

METHOD = (
    "per cell: sum of throughput and ops/s where all hosts measured it in overlapping windows"
    f" (>= {int(_OVERLAP * 100)} % of the shortest); otherwise the best single host (max), never a sum"
    " of peaks from different moments; latency percentiles from the hosts' added histograms, or the"
    " worst host's where a host has none"
)


def _overlaps(cells: list[Cell]) -> bool:
    windows = [(c.window_start_unix, c.window_end_unix) for c in cells]
    if any(start is None or end is None for start, end in windows):
        return False
    starts = [w[0] for w in windows if w[0] is not None]
    ends = [w[1] for w in windows if w[1] is not None]
    common = min(ends) - max(starts)
    shortest = min(end - start for start, end in zip(starts, ends, strict=True))
    return shortest > 0 and common >= _OVERLAP * shortest


def _worst(values: list[Percentiles]) -> Percentiles:
    def top(name: str) -> float | None:
        found = [getattr(v, name) for v in values if getattr(v, name) is not None]
        return max(found) if found else None

    return Percentiles(
        mean=None, p50=top("p50"), p90=top("p90"), p95=top("p95"), p99=top("p99"), p999=top("p999"), max=top("max")
    )


def _from_histograms(
    cells: list[Cell], which: str, below: Percentiles | None = None
) -> tuple[LatencyHistogram | None, Percentiles]:
    """The hosts' histograms added, with percentiles read from the sum (else the worst host's).

    A percentile read from the sum is its bucket's upper edge, so it can pass figures the samples
    cannot: it is held at the largest sample and at ``below``'s same percentile where given (TTFB
    below latency: each request's first byte comes before its last, so at every percentile).
    """
    histograms = [getattr(c, f"{which}_histogram") for c in cells]
    values: list[Percentiles] = [getattr(c, f"{which}_s") for c in cells]
    if any(h is None for h in histograms):
        return None, _worst(values)
    merged = LatencyHistogram.merged(h for h in histograms if h is not None)
    weights = [c.samples or 0 for c in cells]
    means = [v.mean for v in values]
    mean = (
        sum(m * w for m, w in zip(means, weights, strict=True) if m is not None) / sum(weights)
        if sum(weights) and all(m is not None for m in means)
        else None
    )
    maxima = [v.max for v in values if v.max is not None]
    largest = max(maxima) if maxima and len(maxima) == len(values) else None
    tail = merged.total >= 1000

    def quantile(q: float, name: str) -> float | None:
        value = merged.quantile(q)
        bounds = [largest, getattr(below, name) if below is not None else None]
        return None if value is None else min([value, *(b for b in bounds if b is not None)])

    return merged, Percentiles(
        mean=mean,
        p50=quantile(0.50, "p50"),
        p90=quantile(0.90, "p90"),
        p95=quantile(0.95, "p95"),
        p99=quantile(0.99, "p99"),
        p999=quantile(0.999, "p999") if tail else None,
        max=largest,
    )


def _host(profile: Profile) -> str:
    if profile.clients and profile.clients[0].hostname:
        return profile.clients[0].hostname
    return profile.run.run_id if profile.run else "unknown host"


def _sum(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def _combine(cells: list[Cell], hosts: list[str]) -> Cell:
    if len(cells) == len(hosts) and len(cells) > 1 and _overlaps(cells):
        errors: Counter[str] = Counter()
        for cell in cells:
            errors.update(cell.errors)
        flags = sorted({flag for cell in cells for flag in cell.flags})
        latency_histogram, latency = _from_histograms(cells, "latency")
        ttfb_histogram, ttfb = _from_histograms(cells, "ttfb", below=latency)
        open_loop = cells[0].mode == "open"
        how = "added histograms" if latency_histogram is not None else "the worst host's"
        return Cell(
            op=cells[0].op,
            object_size_bytes=cells[0].object_size_bytes,
            concurrency=sum(c.concurrency for c in cells),
            status="measured",
            mode=cells[0].mode,
            offered_per_s=_sum([c.offered_per_s for c in cells]) if open_loop else None,
            in_flight_mean=_sum([c.in_flight_mean for c in cells]),
            late_arrivals=sum(c.late_arrivals or 0 for c in cells) if open_loop else None,
            latency_histogram=latency_histogram,
            ttfb_histogram=ttfb_histogram,
            duration_s=min(c.duration_s or 0.0 for c in cells),
            warmup_s=cells[0].warmup_s,
            window_start_unix=max(c.window_start_unix or 0.0 for c in cells),
            window_end_unix=min(c.window_end_unix or 0.0 for c in cells),
            samples=sum(c.samples or 0 for c in cells),
            throughput_mib_per_s=_sum([c.throughput_mib_per_s for c in cells]),
            ops_per_s=_sum([c.ops_per_s for c in cells]),
            latency_s=latency,
            ttfb_s=ttfb,
            errors=dict(errors),
            retries=sum(c.retries or 0 for c in cells),
            failed_ops=sum(c.failed_ops or 0 for c in cells),
            cv=max((c.cv for c in cells if c.cv is not None), default=None),
            client_cpu_fraction=max((c.client_cpu_fraction or 0.0 for c in cells), default=None),
            flags=flags,  # type: ignore[arg-type,unused-ignore]
            engine=cells[0].engine if len({c.engine for c in cells}) == 1 else None,
            hosts=hosts,
            note=f"sum of {len(cells)} hosts measured concurrently; percentiles from {how}",
        )
    best = max(cells, key=lambda c: (c.throughput_mib_per_s or 0.0, c.ops_per_s or 0.0))
    merged = best.model_copy(deep=True)
    merged.hosts = [hosts[cells.index(best)]]
    if len(cells) > 1:
        merged.note = f"best of {len(cells)} hosts (windows did not overlap: not summed)"
    return merged


def _same_cell(a: CellKey, b: CellKey) -> bool:
    """The same closed-loop cell, or open-loop cells whose arrival rates are within 10 %."""
    if a[:3] != b[:3] or (a[3] is None) != (b[3] is None):
        return False
    if a[3] is None or b[3] is None:
        return True
    return abs(a[3] - b[3]) <= _SAME_RATE * max(a[3], b[3])


def merge_profiles(profiles: list[Profile]) -> Profile:
    """One profile from several hosts' profiles of the same endpoint (see the module docstring)."""
    if len(profiles) < 2:
        raise InputError("merge needs at least two profiles", source="merge")
    endpoints = {p.endpoint for p in profiles}
    if len(endpoints) > 1:
        raise InputError(
            f"profiles measure different endpoints: {', '.join(sorted(map(str, endpoints)))}", source="merge"
        )
    if any(p.source.kind == "published" for p in profiles):
        raise InputError("published reference profiles cannot be merged with measurements", source="merge")
    hosts = [_host(p) for p in profiles]
    keys: list[CellKey] = []
    for profile in profiles:
        for cell in profile.cells:
            if not any(_same_cell(cell.key(), key) for key in keys):
                keys.append(cell.key())
    cells: list[Cell] = []
    all_overlapped = True
    for key in keys:
        found: list[tuple[Cell, str]] = []
        for profile, host in zip(profiles, hosts, strict=True):
            held = next((c for c in profile.cells if _same_cell(c.key(), key)), None)
            if held is not None:
                found.append((held, host))
        combined = _combine([c for c, _ in found], [h for _, h in found])
        all_overlapped &= combined.hosts == [h for _, h in found] and len(found) == len(profiles)
        cells.append(combined)
    first = profiles[0]
    links = [p.link_bits_per_s for p in profiles]
    clients: list[ClientHost] = [client for p in profiles for client in p.clients]
    return Profile(
        provider=first.provider if len({p.provider for p in profiles}) == 1 else None,
        endpoint=first.endpoint,
        region=first.region,
        bucket=first.bucket,
        date=min(p.date for p in profiles if p.date) if any(p.date for p in profiles) else None,
        tool_version=first.tool_version,
        link_bits_per_s=_sum(links),
        clients=clients,
        merge=MergeInfo(
            method=METHOD,
            overlapped=all_overlapped,
            inputs=[
                MergeInput(
                    run_id=p.run.run_id if p.run else None,
                    hostname=host,
                    started_at=p.run.started_at if p.run else None,
                    finished_at=p.run.finished_at if p.run else None,
                )
                for p, host in zip(profiles, hosts, strict=True)
            ],
        ),
        cells=cells,
        probes=first.probes,
        source=Source(kind="merged", note=f"merged from {len(profiles)} profiles; probes from the first"),
    )
