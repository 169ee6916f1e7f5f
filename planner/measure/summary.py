"""``Profile.summary()``: a profile condensed into the few figures a model needs.

Each figure comes from the best source the profile has (a usable closed-loop cell, a probe, a
published ceiling) and carries the citations it rests on; a figure the profile cannot give is
``None``, with a note where the figure is only a bound.
"""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from planner.measure.cell import MIB, OPERATIONS, Cell, Citation, ProfileModel

if TYPE_CHECKING:
    from planner.measure.profile import CitedValue, HotObjectResult, Profile, RangeGetResult, RatePoint


class RangeGetSpeedup(ProfileModel):
    streams: int
    speedup: float


class ProfileSummary(ProfileModel):
    """The compact figures a simulator or recommender needs; ``None`` = unknown."""

    provider: str | None
    source_kind: str
    ttfb_p50_s: float | None = None
    ttfb_p99_s: float | None = None
    ttfb_p90_s: float | None = Field(None, description="published where a source gives p90 but no p99")
    get_stream_bytes_per_s: list[tuple[int, float]] = Field(
        default_factory=list, description="(object size, bytes/s of one stream), by size"
    )
    put_stream_bytes_per_s: list[tuple[int, float]] = Field(
        default_factory=list, description="(object size, bytes/s of one uploading stream), by size"
    )
    read_ceiling_bytes_per_s: float | None = None
    write_ceiling_bytes_per_s: float | None = None
    ops_per_s: dict[str, float | None] = Field(default_factory=dict)
    hot_object_limit: int | None = None
    hot_object_behaviour: Literal["reject", "degrade"] | None = None
    hot_object_error: str | None = None
    per_key_write_per_s: float | None = None
    range_get_speedup: RangeGetSpeedup | None = None
    citations: dict[str, list[Citation]] = Field(default_factory=dict)
    notes: dict[str, str] = Field(default_factory=dict)

    def is_exact(self, name: str) -> bool:
        """Whether figure ``name`` (a ceiling) is a measured limit rather than the best anyone observed."""
        note = self.notes.get(name)
        return note is None or note.startswith("exact")


_Z90, _Z99 = 1.2815515655446004, 2.3263478740408408
"""Standard normal quantiles at 0.90 and 0.99."""


def lognormal_p99_s(p50_s: float, p90_s: float) -> float:
    """The p99 of the lognormal through a p50 and a p90: an extrapolation beyond what was published
    (Tigris's S3 1 KB reads, p50 22.4 ms and p90 42.0 ms, give 70.2 ms)."""
    if p90_s <= p50_s or p50_s <= 0:
        return max(p50_s, p90_s)
    sigma = math.log(p90_s / p50_s) / _Z90
    return p50_s * math.exp(sigma * _Z99)


def _stream_cells(cells: list[Cell]) -> dict[int, Cell]:
    """Per object size, the cell with the fewest streams that has a throughput."""
    by_size: dict[int, Cell] = {}
    for cell in cells:
        if cell.throughput_mib_per_s is None or cell.object_size_bytes is None:
            continue
        held = by_size.get(cell.object_size_bytes)
        if held is None or cell.concurrency < held.concurrency:
            by_size[cell.object_size_bytes] = cell
    return by_size


def _stream_points(by_size: dict[int, Cell], run_id: str | None) -> tuple[list[tuple[int, float]], list[Citation]]:
    points: list[tuple[int, float]] = []
    cites: list[Citation] = []
    for size in sorted(by_size):
        cell = by_size[size]
        assert cell.throughput_mib_per_s is not None
        points.append((size, cell.throughput_mib_per_s * MIB / cell.concurrency))
        cites.append(_cite(cell, run_id, _cell_section(cell)))
    return points, cites


def _usable(cell: Cell) -> bool:
    """A closed-loop cell whose figures may stand for its operation, size and concurrency.

    Open-loop cells describe latency at an arrival rate, not what ``concurrency`` workers reach,
    so the closed-loop figures below (stream rates, ceilings, ops/s, the TTFB floor) leave them
    out; a short-window cell's rate rests on too little time to be a ceiling.
    """
    if cell.mode == "open" or cell.status == "missing" or "short-window" in cell.flags:
        return False
    if "implausible" in cell.flags or "above-link" in cell.flags:
        return False
    # a cell where most requests failed says little about the successes' rate: skip it, never average it
    return not ("too-few-samples" in cell.flags and (cell.failed_ops or 0) > (cell.samples or 0))


def _cite(
    cell_or_value: Cell | CitedValue | RatePoint | HotObjectResult | RangeGetResult,
    run_id: str | None,
    section: str,
) -> Citation:
    if cell_or_value.citation is not None:
        return cell_or_value.citation
    return Citation(kind="measured", ref=run_id or "unknown run", section=section)


def _cell_section(cell: Cell) -> str:
    size = "-" if cell.object_size_bytes is None else f"{cell.object_size_bytes}B"
    return f"cells[{cell.op} {size} x{cell.concurrency}]"


def summarise_profile(profile: Profile) -> ProfileSummary:
    """The figures the simulator reads, each from the best source the profile has and cited."""
    run_id = profile.run.run_id if profile.run else None
    out = ProfileSummary(provider=profile.provider, source_kind=profile.source.kind)
    cells = [c for c in profile.cells if _usable(c)]
    gets = [c for c in cells if c.op == "get"]
    _summarise_ttfb(out, profile, gets, run_id)
    _summarise_streams(out, profile, cells, gets, run_id)
    _summarise_ceilings(out, profile, cells, run_id)
    _summarise_ops(out, profile, cells, run_id)
    _summarise_probes(out, profile, run_id)
    return out


def _summarise_ttfb(out: ProfileSummary, profile: Profile, gets: list[Cell], run_id: str | None) -> None:
    """TTFB: the least-loaded GET cell (smallest size, lowest concurrency) shows the service floor."""
    with_ttfb = [c for c in gets if c.ttfb_s.p50 is not None]
    if with_ttfb:
        best = min(with_ttfb, key=lambda c: (c.concurrency, c.object_size_bytes or 0))
        out.ttfb_p50_s = best.ttfb_s.p50
        out.ttfb_p99_s = best.ttfb_s.p99
        out.ttfb_p90_s = best.ttfb_s.p90
        out.citations["ttfb_p50_s"] = [_cite(best, run_id, _cell_section(best))]
        if best.ttfb_s.p99 is not None:
            out.citations["ttfb_p99_s"] = [_cite(best, run_id, _cell_section(best))]
    elif profile.ceilings.ttfb_floor_s is not None:
        floor = profile.ceilings.ttfb_floor_s
        out.ttfb_p50_s = floor.value
        out.citations["ttfb_p50_s"] = [floor.citation]
        out.notes["ttfb_p50_s"] = "published TTFB floor used as p50 (a lower bound); p99 not published"


def _summarise_streams(
    out: ProfileSummary, profile: Profile, cells: list[Cell], gets: list[Cell], run_id: str | None
) -> None:
    """Per-stream throughput by object size: concurrency-1 cells, else aggregate / concurrency."""
    by_size = _stream_cells(gets)
    points, stream_cites = _stream_points(by_size, run_id)
    puts = _stream_cells([c for c in cells if c.op == "put"])
    out.put_stream_bytes_per_s, put_cites = _stream_points(puts, run_id)
    if put_cites:
        out.citations["put_stream_bytes_per_s"] = put_cites
    if any(c.concurrency > 1 for c in puts.values()):
        out.notes["put_stream_bytes_per_s"] = "some points are aggregate throughput / concurrency"
    if profile.probes.range_get is not None:
        rg = profile.probes.range_get
        single = next((p for p in rg.points if p.streams == 1 and p.throughput_mib_per_s), None)
        if single is not None and rg.object_size_bytes and rg.object_size_bytes not in by_size:
            assert single.throughput_mib_per_s is not None
            # in size order with its citation beside it: ``citations`` holds one a point, in the points' order
            at = bisect.bisect(points, (rg.object_size_bytes,))
            points.insert(at, (rg.object_size_bytes, single.throughput_mib_per_s * MIB))
            stream_cites.insert(at, single.citation or _cite(rg, run_id, "probes.range_get[1 stream]"))
    out.get_stream_bytes_per_s = points
    if stream_cites:
        out.citations["get_stream_bytes_per_s"] = stream_cites
    if any(c.concurrency > 1 for c in by_size.values()):
        out.notes["get_stream_bytes_per_s"] = "some points are aggregate throughput / concurrency"


def _summarise_ceilings(out: ProfileSummary, profile: Profile, cells: list[Cell], run_id: str | None) -> None:
    """Read and write ceilings: the published ones, else the best cell observed (a lower bound)."""
    for name, ceiling, ops in (
        ("read_ceiling_bytes_per_s", profile.ceilings.read_bytes_per_s, ("get",)),
        ("write_ceiling_bytes_per_s", profile.ceilings.write_bytes_per_s, ("put",)),
    ):
        if ceiling is not None:
            setattr(out, name, ceiling.value)
            out.citations[name] = [ceiling.citation]
            if ceiling.bound != "exact" or ceiling.note:
                out.notes[name] = f"{ceiling.bound} bound" + (f": {ceiling.note}" if ceiling.note else "")
            continue
        candidates = [c for c in cells if c.op in ops and c.throughput_mib_per_s is not None]
        if candidates:
            top = max(candidates, key=lambda c: c.throughput_mib_per_s or 0.0)
            assert top.throughput_mib_per_s is not None
            setattr(out, name, top.throughput_mib_per_s * MIB)
            out.citations[name] = [_cite(top, run_id, _cell_section(top))]
            out.notes[name] = "best cell observed (a lower bound on the service ceiling)"


def _summarise_ops(out: ProfileSummary, profile: Profile, cells: list[Cell], run_id: str | None) -> None:
    """Ops/s per operation: the rate probe's ceiling, or the best cell where that is higher."""
    rate = profile.probes.rate
    for op in OPERATIONS:
        point = rate.ceiling(op) if rate is not None else None
        op_cells = [c for c in cells if c.op == op and c.ops_per_s is not None]
        best_cell = max(op_cells, key=lambda c: c.ops_per_s or 0.0) if op_cells else None
        if point is not None and (best_cell is None or (point.ops_per_s or 0) >= (best_cell.ops_per_s or 0)):
            out.ops_per_s[op] = point.ops_per_s
            out.citations[f"ops_per_s.{op}"] = [
                point.citation or Citation(kind="measured", ref=run_id or "unknown run", section=f"probes.rate[{op}]")
            ]
            if point.note:
                out.notes[f"ops_per_s.{op}"] = point.note
        elif best_cell is not None:
            out.ops_per_s[op] = best_cell.ops_per_s
            out.citations[f"ops_per_s.{op}"] = [_cite(best_cell, run_id, _cell_section(best_cell))]
            if best_cell.note:
                out.notes[f"ops_per_s.{op}"] = best_cell.note
        else:
            out.ops_per_s[op] = None


def _summarise_probes(out: ProfileSummary, profile: Profile, run_id: str | None) -> None:
    """The hot-object limit, the per-key write rate and the range-GET speed-up."""
    hot = profile.probes.hot_object
    if hot is not None:
        out.hot_object_limit = hot.limit
        out.hot_object_behaviour = hot.behaviour
        out.hot_object_error = hot.error
        out.citations["hot_object"] = [_cite(hot, run_id, "probes.hot_object")]
        if hot.note:
            out.notes["hot_object"] = hot.note

    per_key = profile.ceilings.per_key_write_per_s
    if per_key is not None:
        out.per_key_write_per_s = per_key.value
        out.citations["per_key_write_per_s"] = [per_key.citation]

    speed = profile.probes.range_get
    if speed is not None and speed.speedup is not None and speed.best_streams is not None:
        out.range_get_speedup = RangeGetSpeedup(streams=speed.best_streams, speedup=speed.speedup)
        out.citations["range_get_speedup"] = [_cite(speed, run_id, "probes.range_get")]
        if speed.note:
            out.notes["range_get_speedup"] = speed.note
