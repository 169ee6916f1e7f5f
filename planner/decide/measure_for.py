"""The smallest measurement that decides a workload's targets (``planner measure --for WORKLOAD``).

From a recommendation judged on the profiles at hand: the options still in contention are those whose
targets are unverified and that cost less than the cheapest option meeting every target on evidence
(a dearer one cannot change the choice); for each of their unverified targets the cells whose figures
decide it, and for every other target why it is skipped. Cells are op x request size x concurrency
of the existing measurement grid:

- p99 TTFB: a small GET (at most 256 KiB) with nothing else in flight (the least-loaded GET cell is the
  TTFB the verdict and the simulation read; a small one gives the p99 hundreds of samples);
- read throughput: the same GET alone (the per-stream rate) and at the workload's streams in flight
  (the aggregate a profile must demonstrate before a verdict may rest on it);
- write throughput: a PUT of one upload request (a part, or the object) alone and at its concurrency.

A target already met or missed on evidence is skipped only when that evidence is a measured profile:
a measured profile replaces the shipped reference whole, so the targets the reference decided are
measured again with the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from planner.decide.recommendation import RankedOption, Recommendation
from planner.units import format_bytes
from planner.workload import Workload

_Need = Callable[[str, int, int, str, str, str], None]
"""Asks for a cell: op, request size, concurrency, the target it decides, the option, why."""

MAX_CELL_BYTES = 100 * 2**20
"""Larger requests are measured at 100 MiB: the stream curve is held flat above its largest size, so a
100 MiB GET stands for an 8 GB one (the figure above it is derived, a backed reading)."""

TTFB_CELL_BYTES = 256 * 2**10
"""The GET a TTFB target is measured with: small enough for a p99 to rest on hundreds of samples."""

MAX_CONCURRENCY = 64
"""The most requests in flight a planned cell asks for: past it a measurement costs more than it says."""


@dataclass(frozen=True)
class PlannedCell:
    """One cell to measure: which target it decides, for which options, and why it is needed."""

    op: str
    size_bytes: int
    concurrency: int
    target: str
    options: tuple[str, ...]
    why: str

    def label(self) -> str:
        return f"{self.op.upper()} {binary_size(self.size_bytes)} x{self.concurrency}"


@dataclass(frozen=True)
class Skipped:
    """A target (or option) the measurement leaves alone, and why."""

    what: str
    why: str


@dataclass
class MeasurementFor:
    """The cells to measure on one provider's endpoint, and what is left alone."""

    provider: str
    cells: list[PlannedCell] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def ops(self) -> list[str]:
        return sorted({c.op for c in self.cells}, key=["put", "get"].index)

    @property
    def sizes(self) -> list[int]:
        return sorted({c.size_bytes for c in self.cells})

    @property
    def concurrency(self) -> list[int]:
        return sorted({c.concurrency for c in self.cells})

    def lines(self) -> list[str]:
        """The plan in words: each cell with the target it decides, then what is skipped and why."""
        out = [f"measurement for {self.provider}: {len(self.cells)} cell(s) decide its unverified targets"]
        for cell in self.cells:
            out.append(f"  {cell.label():<22} decides {cell.target} of {', '.join(cell.options)}: {cell.why}")
        if not self.cells:
            out.append("  nothing to measure: no target of this provider's options is left to decide")
        out += [f"  skipped {s.what}: {s.why}" for s in self.skipped]
        return out


def binary_size(size: int) -> str:
    """A request size as a measurement names it (100 MiB, 256 KiB, 1000 B)."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def read_request_bytes(workload: Workload) -> int:
    """The bytes one GET of the workload asks for: a range of a large object read in parallel, else the object."""
    client, mean = workload.client, workload.storage.mean_object_bytes
    ranged = client.read_streams > 1 and mean > client.range_size
    return int(client.range_size if ranged else mean)


def write_request_bytes(workload: Workload) -> int:
    """The bytes one upload request of the workload carries: a part past the multipart threshold, else the object."""
    client, mean = workload.client, workload.storage.mean_object_bytes
    return int(client.part_size if mean > client.multipart_threshold else mean)


def _streams(workload: Workload, read: bool) -> int:
    client, mean = workload.client, workload.storage.mean_object_bytes
    ranged = read and client.read_streams > 1 and mean > client.range_size
    return client.concurrency * (client.read_streams if ranged else 1)


def in_contention(result: Recommendation) -> tuple[list[RankedOption], list[Skipped]]:
    """The options a measurement could still change the choice among, and the others with the reason."""
    decided = [o for o in result.ranking if o.status == "ok"]
    cheapest_ok = min(decided, key=lambda o: o.horizon_cost_usd) if decided else None
    contending: list[RankedOption] = []
    skipped: list[Skipped] = []
    for option in result.ranking:
        name = f"{option.provider} {option.storage_class}"
        if option.status == "rejected":
            why = option.rejections[0].statement if option.rejections else "rejected"
            skipped.append(Skipped(name, f"rejected on evidence whatever is measured ({why})"))
        elif option.status == "ok":
            skipped.append(Skipped(name, "every target already met on evidence"))
        elif cheapest_ok is not None and option.horizon_cost_usd >= cheapest_ok.horizon_cost_usd:
            skipped.append(
                Skipped(
                    name,
                    f"costs no less than {cheapest_ok.provider} {cheapest_ok.storage_class}, which already meets"
                    " every target: it cannot become the choice",
                )
            )
        else:
            contending.append(option)
    return contending, skipped


def plan_measurement(workload: Workload, result: Recommendation, provider: str) -> MeasurementFor:
    """The cells of ``provider``'s endpoint that decide its contending options' unverified targets."""
    plan = MeasurementFor(provider=provider)
    contending, skipped = in_contention(result)
    plan.skipped += [s for s in skipped if s.what.startswith(f"{provider} ")]
    mine = [o for o in contending if o.provider == provider]
    others = sorted({o.provider for o in contending if o.provider != provider})
    if others:
        plan.skipped.append(Skipped(", ".join(others), "other providers: measure each endpoint with its own run"))
    wanted: dict[tuple[str, int, int], PlannedCell] = {}

    def need(op: str, size: int, concurrency: int, target: str, option: str, why: str) -> None:
        key = (op, min(size, MAX_CELL_BYTES), max(1, min(concurrency, MAX_CONCURRENCY)))
        held = wanted.get(key)
        if held is None:
            wanted[key] = PlannedCell(*key, target=target, options=(option,), why=why)
            return
        targets = held.target if target in held.target.split(" and ") else f"{held.target} and {target}"
        reasons = held.why if why in held.why.split("; ") else f"{held.why}; {why}"
        options = tuple(dict.fromkeys([*held.options, option]))
        wanted[key] = PlannedCell(*key, target=targets, options=options, why=reasons)

    judged = result.profile_of(provider)
    # a measured profile replaces the shipped reference whole: what the reference decided is measured again
    replaces_reference = judged is None or judged.path is None
    for option in mine:
        name = f"{option.provider} {option.storage_class}"
        for verdict in option.verdicts:
            if verdict.verdict != "unverified" and not replaces_reference:
                plan.skipped.append(Skipped(f"{verdict.target} of {name}", f"already {verdict.verdict} on evidence"))
                continue
            _cells_for(workload, verdict.target, name, need)
    plan.cells = [wanted[key] for key in sorted(wanted, key=lambda k: (["put", "get"].index(k[0]), k[1], k[2]))]
    return plan


def _request(size: int) -> str:
    if size <= MAX_CELL_BYTES:
        return f"{format_bytes(size)} requests"
    return f"{format_bytes(size)} requests, measured at {binary_size(MAX_CELL_BYTES)}: the curve is flat above it"


def _cells_for(workload: Workload, target: str, option: str, need: _Need) -> None:
    read_size, write_size = read_request_bytes(workload), write_request_bytes(workload)
    shown = _request(read_size)
    if target == "p99 TTFB":
        need(
            "get",
            min(read_size, TTFB_CELL_BYTES),
            1,
            target,
            option,
            "the p99 TTFB of a GET with nothing else in flight (the first byte does not wait for the body: a"
            f" {binary_size(min(read_size, TTFB_CELL_BYTES))} GET gives hundreds of samples where a large one gives"
            " tens)",
        )
    elif target == "read throughput":
        streams = _streams(workload, read=True)
        need("get", read_size, 1, target, option, f"one stream's rate ({shown}), the per-stream figure")
        need("get", read_size, streams, target, option, f"the aggregate of the workload's {streams} streams in flight")
    elif target == "write throughput":
        streams = _streams(workload, read=False)
        need("put", write_size, 1, target, option, f"one upload stream's rate ({_request(write_size)})")
        need("put", write_size, streams, target, option, f"the aggregate of {streams} uploads in flight")
