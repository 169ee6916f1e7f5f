"""What a run will do before it does it: its steps, their estimated time, requests and bytes, and a
plan fitted into a total time budget (``planner measure --budget``).

Pure: no network, no files. Durations are estimates from the options (each step's warm-up, window and
start-up); requests and bytes moved depend on the endpoint's speed, which is not known before a
measurement, so they rest on a stated rate model: the provider's shipped reference profile where
there is one, else ``ASSUMED_TTFB_S`` and ``ASSUMED_STREAM_BYTES_PER_S`` (labelled as assumptions).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from planner.measure.run.options import (
    MeasureOptions,
    cell_label,
    data_key_count,
    delete_budget_s,
    delete_warmup_s,
    in_plan,
    open_loop_steps,
    open_window_s,
)
from planner.units import format_bytes

STEP_OVERHEAD_S = 0.8
"""Start-up of one load on the worker processes (the 0.3 s common start, task hand-out, results)."""
ASSUMED_TTFB_S = 0.02
ASSUMED_STREAM_BYTES_PER_S = 100 * 2**20
ASSUMED_WRITE_BYTES_PER_S = 50 * 2**20
"""Untimed writes (objects for GET/HEAD/LIST, the probes' objects) when nothing better is known."""
MIN_CELL_S = 5.0
"""A budget never shortens a cell's window below this (a shorter one has too few samples to trust)."""
MIN_WARMUP_S = 1.0
MIN_PROBE_S = 2.0
BUDGET_MARGIN_S = 15.0
"""How far a budgeted run may overrun: a started step finishes (a step is admitted only if its
estimate fits in what is left), and cleanup after the last step is not in the estimate."""
CLEANUP_RESERVE_FRACTION = 0.05
"""The share of a budget held back for cleanup and the untimed writes the estimate can only guess."""

DROP_ORDER = (
    "shorten cell windows (to 5 s), warm-ups (to 1 s) and probe steps (to 2 s)",
    "drop probes: hot-object, then range-get, part-size, rate",
    "drop middle concurrency levels (keep the lowest and the highest)",
    "drop the knee's further rounds",
    "drop open-loop cells but the smallest size's",
    "drop object sizes, largest first (keep the smallest)",
    "drop operations: list, head, delete (keep put and get)",
    "drop open-loop cells",
)
"""How ``fit_budget`` makes a plan fit, in this order, stopping as soon as it fits."""


@dataclass
class StepEstimate:
    label: str
    seconds: float
    requests: dict[str, int] = field(default_factory=dict)  # by pricing operation: put, get, head, ...
    uploaded_bytes: int = 0
    downloaded_bytes: int = 0


@dataclass
class PlanEstimate:
    steps: list[StepEstimate]
    rate_model: str

    @property
    def seconds(self) -> float:
        return sum(step.seconds for step in self.steps)

    @property
    def requests(self) -> dict[str, int]:
        total: dict[str, int] = {}
        for step in self.steps:
            for op, count in step.requests.items():
                total[op] = total.get(op, 0) + count
        return total

    @property
    def uploaded_bytes(self) -> int:
        return sum(step.uploaded_bytes for step in self.steps)

    @property
    def downloaded_bytes(self) -> int:
        return sum(step.downloaded_bytes for step in self.steps)

    def step(self, label: str) -> StepEstimate | None:
        return next((s for s in self.steps if s.label == label), None)


@dataclass(frozen=True)
class RateModel:
    """Seconds per request of one stream: a time to first byte plus the body at a stream rate."""

    ttfb_s: float
    get_bytes_per_s: float
    put_bytes_per_s: float
    link_bytes_per_s: float | None
    source: str

    def request_s(self, op: str, size: int) -> float:
        if op in ("get", "put", "upload_part"):
            return self.ttfb_s + size / (self.get_bytes_per_s if op == "get" else self.put_bytes_per_s)
        return self.ttfb_s

    def write_s(self, total_bytes: int) -> float:
        rate = min(ASSUMED_WRITE_BYTES_PER_S, self.link_bytes_per_s or math.inf)
        return total_bytes / rate


def _median(values: list[float]) -> float | None:
    return sorted(values)[len(values) // 2] if values else None


def rate_model(options: MeasureOptions) -> RateModel:
    """Each figure from the provider's shipped reference profile (published medians) where it has one,
    else the stated assumption; the source says which is which."""
    from planner.measure.reference import load_reference, reference_providers

    link = options.link_bits_per_s / 8 if options.link_bits_per_s else None
    ttfb: float | None = None
    get_rate: float | None = None
    put_rate: float | None = None
    if options.provider in reference_providers():
        summary = load_reference(options.provider).summary()
        ttfb = summary.ttfb_p50_s
        get_rate = _median([rate for _, rate in summary.get_stream_bytes_per_s])
        put_rate = _median([rate for _, rate in summary.put_stream_bytes_per_s])
    parts = [
        f"{(ttfb or ASSUMED_TTFB_S) * 1000:g} ms to first byte ({'published' if ttfb else 'assumed'})",
        f"GET {(get_rate or ASSUMED_STREAM_BYTES_PER_S) / 2**20:.0f} MiB/s per stream"
        f" ({'published' if get_rate else 'assumed'})",
        f"PUT {(put_rate or ASSUMED_STREAM_BYTES_PER_S) / 2**20:.0f} MiB/s per stream"
        f" ({'published' if put_rate else 'assumed'})",
        f"link {link * 8 / 1e9:g} Gbps" if link else "no link cap (give --link)",
    ]
    where = f"; published: the {options.provider} reference profile" if ttfb or get_rate or put_rate else ""
    return RateModel(
        ttfb_s=ttfb or ASSUMED_TTFB_S,
        get_bytes_per_s=get_rate or ASSUMED_STREAM_BYTES_PER_S,
        put_bytes_per_s=put_rate or ASSUMED_STREAM_BYTES_PER_S,
        link_bytes_per_s=link,
        source=", ".join(parts) + where,
    )


def _load(label: str, op: str, size: int, streams: int, window_s: float, model: RateModel) -> StepEstimate:
    """``streams`` closed-loop streams of ``op`` for ``window_s`` (warm-up included: it moves bytes too)."""
    per_stream = window_s / model.request_s(op, size)
    moved = streams * per_stream * size
    if model.link_bytes_per_s and moved > model.link_bytes_per_s * window_s:
        per_stream *= model.link_bytes_per_s * window_s / moved
    count = math.ceil(streams * per_stream)
    pricing_op = {"upload_part": "upload-part"}.get(op, op)
    step = StepEstimate(label, window_s + STEP_OVERHEAD_S, {pricing_op: count})
    if op in ("put", "upload_part"):
        step.uploaded_bytes = count * size
    elif op == "get":
        step.downloaded_bytes = count * size
    return step


def _write(label: str, count: int, size: int, model: RateModel) -> StepEstimate:
    seconds = STEP_OVERHEAD_S + model.write_s(count * size)
    return StepEstimate(label, seconds, {"put": count}, uploaded_bytes=count * size)


def estimate(options: MeasureOptions) -> PlanEstimate:
    """Every step of a run with its estimated seconds, requests and bytes."""
    model = rate_model(options)
    steps: list[StepEstimate] = []
    cell_s = options.warmup_s + options.duration_s
    prepared: set[int] = set()
    for op in options.ops:
        sizes: list[int | None] = [None] if op == "list" else list(options.sizes)
        for size in sizes:
            if op in ("get", "head", "list"):
                data_size = min(options.sizes) if size is None else size
                if data_size not in prepared:
                    prepared.add(data_size)
                    count = data_key_count(options, data_size)
                    steps.append(_write(f"preparing {count} objects of {data_size} B", count, data_size, model))
            for concurrency in options.concurrency:
                if not in_plan(options, op, size, concurrency):
                    continue
                label = cell_label(op, size, concurrency)
                if op == "delete":
                    window = delete_warmup_s(options.warmup_s) + options.duration_s
                    step = _load(label, "delete", size or 0, concurrency, window, model)
                    step.seconds += options.delete_write_s or delete_budget_s(window)
                    written = step.requests["delete"]
                    step.requests["put"] = written
                    step.uploaded_bytes = written * (size or 0)
                else:
                    step = _load(label, op, size or 0, concurrency, cell_s, model)
                steps.append(step)
            steps += _open_loop_estimates(options, op, size, cell_s, model)
    steps += _probe_estimates(options, model)
    return PlanEstimate(steps, model.source)


def _open_loop_estimates(
    options: MeasureOptions, op: str, size: int | None, cell_s: float, model: RateModel
) -> list[StepEstimate]:
    """The open-loop steps of ``op`` and ``size``: each sends its arrival rate (a fixed one, or its
    fraction of what the highest concurrency's closed loop would), never more than that closed loop."""
    first, again = open_loop_steps(options, op, size)
    fractions = list(options.open_peak_fractions)
    offered: list[tuple[float | None, float]] = [(rate, 1.0) for rate in options.open_rates_per_s]
    offered += [(None, fraction) for fraction in fractions] * (1 + (len(again) // len(fractions) if fractions else 0))
    steps = []
    for label, (rate, fraction) in zip(first + again, offered, strict=False):
        window_s = cell_s - options.duration_s + open_window_s(options, rate)
        step = _load(label, op, size or 0, max(options.concurrency), window_s, model)
        closed = sum(step.requests.values())
        share = min(1.0, (rate * window_s if rate is not None else fraction * closed) / max(closed, 1))
        step.requests = {name: math.ceil(count * share) for name, count in step.requests.items()}
        step.uploaded_bytes = math.ceil(step.uploaded_bytes * share)
        step.downloaded_bytes = math.ceil(step.downloaded_bytes * share)
        steps.append(step)
    return steps


def _probe_estimates(options: MeasureOptions, model: RateModel) -> list[StepEstimate]:
    from planner.measure.probes import hot_object_ramp, probe_warmup_s

    step_s = options.probe_duration_s + probe_warmup_s(options.probe_duration_s)
    out: list[StepEstimate] = []
    for name in options.probes:
        parts: list[StepEstimate] = []
        if name == "hot-object":
            size = max(options.hot_object_range_bytes, 1 << 20)
            parts.append(_write("", 1, size, model))
            parts += [
                _load("", "get", options.hot_object_range_bytes, c, step_s, model)
                for c in hot_object_ramp(options.hot_object_max)
            ]
        elif name == "part-size":
            parts += [
                _load("", "upload_part", size, depth, step_s, model)
                for size in options.part_sizes
                for depth in options.queue_depths
            ]
        elif name == "range-get":
            parts.append(_write("", 1, options.range_object_size, model))
            streams = [1, *[s for s in options.range_streams if s > 1]]
            parts += [_load("", "get", options.range_object_size // s, s, step_s, model) for s in streams]
        elif name == "rate":
            keys = max(16, max(options.rate_concurrency))
            parts.append(_write("", keys, options.rate_object_size, model))
            for rate_op in options.ops:
                for c in options.rate_concurrency:
                    part = _load("", rate_op, options.rate_object_size, c, step_s, model)
                    if rate_op == "delete":
                        part.seconds += options.delete_write_s or 60.0
                    parts.append(part)
        total = StepEstimate(f"probe {name}", sum(p.seconds for p in parts))
        for part in parts:
            for op, count in part.requests.items():
                total.requests[op] = total.requests.get(op, 0) + count
            total.uploaded_bytes += part.uploaded_bytes
            total.downloaded_bytes += part.downloaded_bytes
        out.append(total)
    return out


def fit_budget(options: MeasureOptions, budget_s: float) -> tuple[MeasureOptions, list[str], PlanEstimate]:
    """The options shortened and cut, in ``DROP_ORDER``, until the estimate fits the budget (less the
    cleanup reserve); returns them, what was changed (one line each) and the new estimate.

    Raises ``ValueError`` when even the smallest plan (one size, one concurrency, put and get, no
    probes, ``MIN_CELL_S`` windows) does not fit.
    """
    target = budget_s * (1 - CLEANUP_RESERVE_FRACTION)
    dropped: list[str] = []
    current = replace(options, delete_write_s=options.delete_write_s or 2 * (options.warmup_s + options.duration_s))
    plan = estimate(current)
    if plan.seconds <= target:
        return current, dropped, plan
    current, shortening = _shortened_to_fit(options, current, target)
    if shortening is not None:
        dropped.append(shortening)
    plan = estimate(current)
    if plan.seconds <= target:
        return current, dropped, plan
    for change, cut in _cuts(current):
        dropped.append(change)
        current, plan = cut, estimate(cut)
        if plan.seconds <= target:
            return _regrown(options, current, dropped[1 if shortening is not None else 0 :], target)
    if current.only_cells is not None:
        raise ValueError(
            f"the {len(current.only_cells)} cell(s) this workload's targets need take about {plan.seconds:.0f} s at"
            f" {MIN_CELL_S:g} s windows, and a budget drops none of them; give a budget of at least"
            f" {math.ceil(plan.seconds / 0.95)} s, or none"
        )
    raise ValueError(
        f"the smallest plan ({', '.join(current.ops)} at one size and concurrency, {MIN_CELL_S:g} s cells) takes"
        f" about {plan.seconds:.0f} s; give a budget of at least {math.ceil(plan.seconds / 0.95)} s"
    )


def _regrown(
    options: MeasureOptions, cut: MeasureOptions, cuts: list[str], target_s: float
) -> tuple[MeasureOptions, list[str], PlanEstimate]:
    """After the cuts, the windows as long again as the budget allows (no longer than asked): what
    was cut makes room for the cells that are left."""
    asked = replace(
        cut,
        duration_s=options.duration_s,
        warmup_s=options.warmup_s,
        probe_duration_s=options.probe_duration_s,
        delete_write_s=options.delete_write_s or 2 * (options.warmup_s + options.duration_s),
    )
    if estimate(asked).seconds <= target_s:
        return asked, cuts, estimate(asked)
    regrown, shortening = _shortened_to_fit(options, asked, target_s)
    return regrown, [shortening, *cuts] if shortening is not None else cuts, estimate(regrown)


def _shortened_to_fit(
    options: MeasureOptions, current: MeasureOptions, target_s: float
) -> tuple[MeasureOptions, str | None]:
    """``DROP_ORDER`` 1: the windows, warm-ups and probe steps shortened by one factor (bisected) until
    the plan fits or they reach their minimums; with a line saying so, or None if nothing changed."""

    def shortened(scale: float) -> MeasureOptions:
        duration = max(MIN_CELL_S, min(options.duration_s, options.duration_s * scale))
        warmup = max(min(options.warmup_s, MIN_WARMUP_S), options.warmup_s * scale)
        probe = max(MIN_PROBE_S, min(options.probe_duration_s, options.probe_duration_s * scale))
        write_s = 2 * (warmup + duration)
        return replace(current, duration_s=duration, warmup_s=warmup, probe_duration_s=probe, delete_write_s=write_s)

    low, high = 0.0, 1.0
    for _ in range(14):
        middle = (low + high) / 2
        low, high = (middle, high) if estimate(shortened(middle)).seconds <= target_s else (low, middle)
    chosen = shortened(low)
    if (chosen.duration_s, chosen.warmup_s, chosen.probe_duration_s) == (
        current.duration_s,
        current.warmup_s,
        current.probe_duration_s,
    ):
        return current, None
    return chosen, (
        f"cell windows {current.duration_s:g} s -> {chosen.duration_s:.3g} s, warm-ups {current.warmup_s:g} s ->"
        f" {chosen.warmup_s:.3g} s, probe steps {current.probe_duration_s:g} s -> {chosen.probe_duration_s:.3g} s"
    )


def _cuts(current: MeasureOptions) -> Iterator[tuple[str, MeasureOptions]]:
    """``DROP_ORDER`` 2 onwards: each cut in turn, as (what was cut, the options after it), each made to
    the options the cut before it left; the caller stops taking them once the plan fits. The
    open-loop cells the simulator's model rests on (two sparse rates, the loaded rates, the knee's
    rounds, at the smallest size) go after the probes, the middle concurrency levels and the
    larger sizes' open loops, and only just before the last concurrency level."""
    for name in ("hot-object", "range-get", "part-size", "rate"):  # longest and least used first
        if name in current.probes:
            current = replace(current, probes=[p for p in current.probes if p != name])
            yield f"probe {name}", current
    if current.only_cells is not None:
        # the cells a workload's targets need (measure --for): each one is why the run is made
        yield from _open_loop_cuts(current, every_cut=True)
        return
    levels = sorted(set(current.concurrency))
    if len(levels) > 2:
        current = replace(current, concurrency=[levels[0], levels[-1]])
        yield f"concurrency {', '.join(str(c) for c in levels[1:-1])}", current
    for change, cut in _open_loop_cuts(current, every_cut=False):
        current = cut
        yield change, current
    while len(current.sizes) > 1:
        largest = max(current.sizes)
        current = replace(current, sizes=[s for s in current.sizes if s != largest])
        yield f"size {format_bytes(largest, binary=True)}", current
    for op in ("list", "head", "delete"):
        if op in current.ops and len(current.ops) > 1:
            current = replace(current, ops=[o for o in current.ops if o != op])
            yield f"operation {op}", current
    if current.open_rates_per_s or current.open_peak_fractions:
        current = replace(current, open_rates_per_s=[], open_peak_fractions=[])
        yield "open-loop cells", current
    if len(current.concurrency) > 1:
        highest = max(current.concurrency)
        current = replace(current, concurrency=[min(current.concurrency)])
        yield f"concurrency {highest}", current


def _open_loop_cuts(current: MeasureOptions, *, every_cut: bool) -> Iterator[tuple[str, MeasureOptions]]:
    """The knee's further rounds, then the open-loop cells of every size but the smallest (and, with
    ``every_cut``, then the rest of them)."""
    if not (current.open_rates_per_s or current.open_peak_fractions):
        return
    if current.knee_rounds > 1 and current.open_peak_fractions:
        current = replace(current, knee_rounds=1)
        yield "the knee's further rounds (the loaded open-loop cells run once)", current
    smallest = min(current.sizes)
    if len(current.sizes) > 1 and current.open_loop_sizes != [smallest]:
        current = replace(current, open_loop_sizes=[smallest])
        yield f"open-loop cells but the {format_bytes(smallest, binary=True)} ones", current
    if every_cut:
        current = replace(current, open_rates_per_s=[], open_peak_fractions=[])
        yield "open-loop cells", current
