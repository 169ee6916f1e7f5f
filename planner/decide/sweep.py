"""A grid over one or two workload fields: every option's monthly bill at every point, and the winner.

``parse_axis("traffic.egress=0..500TB:26")`` reads a field, its range in the field's own units and
the number of points; ``sweep`` prices every (provider, class) the workload allows at every point
of the grid with the exact line-item engine, so a cell's amount is the total ``planner cost``
prints for the workload with that value (the invoice's rounded lines, summed).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Collection
from decimal import Decimal
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from planner.decide.lifecycle_ranges import PolicyPoint, policy_points
from planner.errors import InputError, validation_problem
from planner.evidence import weakest_price
from planner.pricing.breakdown import PolicyBreach
from planner.pricing.models import PriceTable
from planner.workload import SIZE_FIELDS, Workload, check_complete

MAX_BILLS = 50_000
"""Cells x options one sweep may price (about a minute with the exact engine)."""
MAX_POINTS = 201
CHUNK_POINTS = 200
"""Points priced together in one chunk of work (here, or on one Dask worker)."""

_AXIS = re.compile(
    r"^\s*(?P<field>[a-z_][a-z0-9_]*(?:\.(?:[a-z_][a-z0-9_]*|[0-9]+))+)\s*=\s*(?P<low>[^.][^=]*?)\s*\.\.\s*(?P<high>.+?)\s*:\s*(?P<n>\d+)\s*$"
)
_NUMBER_UNIT = re.compile(r"^\s*(-?[0-9._,]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z/%].*)?$")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class Axis(_Model):
    """One varied field: its dotted path and the values (bytes, counts or seconds, as the model holds them)."""

    field: str
    values: list[float]
    text: str = Field(description="the range as the user wrote it")


class SweepCell(_Model):
    point: dict[str, float]
    costs_usd: dict[str, Decimal] = Field(description="each option's monthly bill at this point, by option label")
    breaches: dict[str, list[PolicyBreach]] = Field(
        default_factory=dict, description="options whose bill breaks a provider policy here (never the winner)"
    )
    winner: str | None = Field(description="the cheapest option that breaks no policy (None: every one does)")
    price_status: dict[str, str] = Field(
        default_factory=dict,
        description="each option's bill here: the sourcing of the weakest price it rests on (verified-primary,"
        " verified-secondary or unverified), by option label",
    )


class Sweep(_Model):
    workload: str
    as_of: dt.date
    axes: list[Axis]
    options: list[str] = Field(description="provider:class labels, in the order of the cells' costs")
    cells: list[SweepCell]
    table_versions: dict[str, str]
    left_out: dict[str, list[str]] = Field(
        default_factory=dict,
        description="options left out because their bill rests on an unverified price somewhere in the grid"
        " (verified_only), with those prices",
    )
    lifecycle: list[PolicyPoint] = Field(
        default_factory=list,
        description="the workload's storage.lifecycle priced at each point at each provider (its total over"
        " constraints.months and its last month; planner.decide.lifecycle_ranges), whenever it has one",
    )

    def option_price_status(self, option: str) -> str:
        """The weakest sourcing of the option's bills over the whole grid."""
        return weakest_price(cell.price_status.get(option, "verified-primary") for cell in self.cells)


def _unit_of(text: str) -> str:
    match = _NUMBER_UNIT.match(text)
    return (match.group(2) or "").strip() if match else ""


def _value(workload: Workload, field: str, text: str) -> float:
    """``text`` read as the model reads ``field`` (units and all), as the model holds it."""
    data = workload.model_dump()
    node: Any = data
    parts = field.split(".")
    for index, part in enumerate(parts[:-1]):
        if isinstance(node, list):  # a list's item by its index: storage.lifecycle.0.after
            if not part.isdigit() or int(part) >= len(node):
                listed = ".".join(parts[:index])
                raise InputError(
                    f"{field}: {listed} has {len(node)} item(s), numbered from 0: no item {part}", source="--vary"
                )
            node = node[int(part)]
            continue
        if not isinstance(node.get(part), dict | list):
            raise InputError(f"{field}: the workload has no section {part!r} with fields", source="--vary")
        node = node[part]
    if not isinstance(node, dict) or parts[-1] not in node:
        raise InputError(f"{field}: no such field", source="--vary")
    node[parts[-1]] = text.strip()
    try:
        parsed: Any = Workload.model_validate(data)
    except ValidationError as error:
        raise InputError(f"{field}={text!r}: {validation_problem(error)[1]}", source="--vary") from None
    try:
        check_complete(parsed)  # as the workload file is checked: no reads from 0 B stored
    except InputError as error:
        raise InputError(f"{field}={text!r}: {error.problem}", source="--vary") from None
    for part in parts:
        parsed = parsed[int(part)] if isinstance(parsed, list) else getattr(parsed, part)
    if not isinstance(parsed, int | float) or isinstance(parsed, bool):
        raise InputError(f"{field} is not a number (sizes, counts, rates and durations vary)", source="--vary")
    return float(parsed)


def parse_axis(workload: Workload, text: str) -> Axis:
    """``FIELD=LOW..HIGH:N``: N evenly spaced values from LOW to HIGH (a unit given on one end only
    applies to both: ``0..500TB``)."""
    match = _AXIS.match(text)
    if match is None:
        raise InputError(f"{text!r} is not FIELD=LOW..HIGH:N (e.g. traffic.egress=0..500TB:26)", source="--vary")
    field, low, high = match["field"], match["low"], match["high"]
    n = int(match["n"]) if len(match["n"]) <= 9 else 0  # Python refuses an int of over 4,300 digits
    if not 2 <= n <= MAX_POINTS:
        shown = match["n"] if len(match["n"]) <= 20 else f"a {len(match['n']):,}-digit number"
        raise InputError(f"{field}: {shown} points; give 2 to {MAX_POINTS}", source="--vary")
    unit_low, unit_high = _unit_of(low), _unit_of(high)
    if not unit_low and not unit_high and field.rsplit(".", 1)[-1] in SIZE_FIELDS:
        raise InputError(f"{text!r}: give the size's unit, e.g. 0..500TB", source="--vary")
    if unit_high and not unit_low:
        low = f"{low} {unit_high}"
    elif unit_low and not unit_high:
        high = f"{high} {unit_low}"
    a, b = _value(workload, field, low), _value(workload, field, high)
    if b <= a:
        raise InputError(f"{text!r}: the range must rise (from {low} to {high})", source="--vary")
    step = (b - a) / (n - 1)
    values = [a + i * step for i in range(n)]
    return Axis(field=field, values=values, text=text)


def _cells(
    workload: Workload,
    points: list[dict[str, float]],
    options: list[tuple[str, str]],
    tables: dict[str, PriceTable],
    day: dt.date,
) -> list[SweepCell]:
    """Each point's cell: every option's bill with the line-item engine, and the winner."""
    from planner.costing.cdn_bills import delivered_bill
    from planner.decide.uncertainty import at

    cells = []
    for point in points:
        varied = at(workload, point)
        costs: dict[str, Decimal] = {}
        breaches: dict[str, list[PolicyBreach]] = {}
        statuses: dict[str, str] = {}
        for provider, storage_class in options:
            table = tables[provider]
            priced = delivered_bill(varied, table, storage_class, day)  # behind the workload's CDN, if any
            label = f"{provider}:{storage_class}"
            costs[label] = priced.total_usd
            statuses[label] = weakest_price(item.price_status.value for item in priced.line_items)
            if priced.policy_breaches:
                breaches[label] = list(priced.policy_breaches)
        cells.append(_cell(point, costs, breaches, statuses))
    return cells


def _cell(
    point: dict[str, float],
    costs: dict[str, Decimal],
    breaches: dict[str, list[PolicyBreach]],
    statuses: dict[str, str],
) -> SweepCell:
    """A point's cell, its winner the cheapest option that breaks no policy."""
    allowed_here = [label for label in costs if label not in breaches]
    winner = min(allowed_here, key=lambda label: costs[label]) if allowed_here else None
    return SweepCell(point=point, costs_usd=costs, breaches=breaches, winner=winner, price_status=statuses)


def _unverified_prices(
    workload: Workload,
    cells: list[SweepCell],
    options: list[tuple[str, str]],
    tables: dict[str, PriceTable],
    day: dt.date,
) -> dict[str, list[str]]:
    """The options whose bill rests on an unverified price at some point of the grid, with the line
    items priced so (at the first such point)."""
    from planner.costing.cdn_bills import delivered_bill
    from planner.decide.uncertainty import at

    left_out: dict[str, list[str]] = {}
    for provider, storage_class in options:
        label = f"{provider}:{storage_class}"
        cell = next((c for c in cells if c.price_status.get(label) == "unverified"), None)
        if cell is None:
            continue
        table = tables[provider]
        priced = delivered_bill(at(workload, cell.point), table, storage_class, day)
        left_out[label] = list(
            dict.fromkeys(i.description for i in priced.line_items if i.price_status.value == "unverified")
        )
    return left_out


def _without(cells: list[SweepCell], left_out: Collection[str]) -> list[SweepCell]:
    """The cells with the options ``left_out`` removed and each winner chosen again."""
    return [
        _cell(
            cell.point,
            {o: c for o, c in cell.costs_usd.items() if o not in left_out},
            {o: b for o, b in cell.breaches.items() if o not in left_out},
            {o: s for o, s in cell.price_status.items() if o not in left_out},
        )
        for cell in cells
    ]


def sweep(
    workload: Workload,
    axes: list[Axis],
    *,
    as_of: dt.date | None = None,
    progress: Callable[[float], None] | None = None,
    scheduler: str | None = None,
    verified_only: bool = False,
) -> Sweep:
    """Every allowed option's monthly bill at every point of the grid the axes span, priced here or
    in chunks of points on the Dask cluster at ``scheduler`` (the same cells either way).

    ``verified_only`` leaves out every option whose bill rests on an unverified price somewhere in the
    grid (``left_out`` names them and those prices)."""
    import itertools

    from planner.cluster import run_chunks
    from planner.costing.bills import price_table

    if not 1 <= len(axes) <= 2 or len({a.field for a in axes}) != len(axes):
        raise InputError("vary one or two different fields", source="--vary")
    day = as_of or dt.date.today()
    tables = {p: price_table(p, day, None) for p in workload.constraints.providers}
    allowed = workload.constraints.storage_classes
    options = [(p, c) for p, t in tables.items() for c in t.classes if not allowed or c in allowed]
    if not options:
        raise InputError("no provider and class is allowed", field="constraints")
    points = [
        dict(zip([a.field for a in axes], combo, strict=True)) for combo in itertools.product(*[a.values for a in axes])
    ]
    if len(points) * len(options) > MAX_BILLS:
        raise InputError(
            f"{len(points):,} points x {len(options)} options is more than {MAX_BILLS:,} bills: give fewer points",
            source="--vary",
        )
    starts = range(0, len(points), CHUNK_POINTS)
    chunks = [(workload, points[i : i + CHUNK_POINTS], options, tables, day) for i in starts]
    moved = None if progress is None else (lambda k: progress(min(len(points), k * CHUNK_POINTS)))
    cells = [cell for part in run_chunks(_cells, chunks, scheduler=scheduler, progress=moved) for cell in part]
    left_out = _unverified_prices(workload, cells, options, tables, day) if verified_only else {}
    if left_out and len(left_out) == len(options):
        raise InputError(
            f"every allowed option rests on an unverified price in the grid ({', '.join(left_out)}): nothing is left",
            source="--verified-only",
        )
    if left_out:
        cells = _without(cells, left_out)
    return Sweep(
        workload=workload.name,
        as_of=day,
        axes=axes,
        options=[label for p, c in options if (label := f"{p}:{c}") not in left_out],
        cells=cells,
        table_versions={p: t.version for p, t in tables.items()},
        left_out=left_out,
        lifecycle=policy_points(workload, points, as_of=day),
    )
