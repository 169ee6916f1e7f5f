"""Reading a workload file: YAML to a validated ``Workload``, every problem one line naming the file and field.

A numeric field may be given as a range (``planner.workload.uncertain``): the workload holds it at
its central value and declares the distribution in ``Workload.uncertain``; ``correlate`` pairs
them in ``Workload.correlations``. Provider and class names are checked against ``catalog`` (the
installed tables' names when None).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from planner.errors import InputError, validation_problem
from planner.files import WORKLOAD_LIMIT_BYTES, load_yaml, read_input_text
from planner.pricing.catalog import find_boolean
from planner.units import format_bytes
from planner.workload.catalog import Catalog, with_catalog
from planner.workload.model import Workload, at, at_problem, format_field_value
from planner.workload.targets import reads_anything
from planner.workload.uncertain import NOT_POSITIVE_DEFINITE, Correlation, Uncertain, cholesky, find, pair_problem


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(top level)"


def parse_workload(data: Any, source: str = "workload", *, catalog: Catalog | None = None) -> Workload:
    """Validate already-parsed YAML/JSON; bare numbers for sizes, rates and durations need units."""
    if data is None:
        raise InputError("the file is empty (a workload needs at least name and storage)", source=source)
    if not isinstance(data, dict):
        raise InputError(f"a workload must be a mapping of keys, not {type(data).__name__}", source=source)
    boolean = find_boolean(data, allowed=frozenset({"expire"}))  # a lifecycle rule's expire: true
    if boolean is not None:
        # pydantic would read true as 1 object or a share of 1.0: refuse it instead.
        raise InputError(
            "true/false is not a valid value here (YAML reads yes/no/on/off as booleans; quote text)",
            source=source,
            field=_field_path(boolean),
        )
    try:
        return Workload.model_validate(data, context=with_catalog(catalog, {"from_file": True}))
    except ValidationError as error:
        field, message = validation_problem(error, name_types=True)
        raise InputError(message, source=source, field=field or "(top level)") from None


def load_workload(path: Path | str, *, catalog: Catalog | None = None) -> Workload:
    """Read a workload YAML file; every problem is one line naming the file and the field.

    Unlike ``parse_workload`` (which also checks the drafts ``planner ingest`` writes), it refuses
    a workload no answer can be given for: traffic that reads with nothing stored."""
    source = str(path)
    text = read_input_text(path, what="workload file", limit_bytes=WORKLOAD_LIMIT_BYTES)
    data = load_yaml(text, source)
    if isinstance(data, dict):
        data = _plain(data)
        if find(data) or "correlate" in data:
            workload = with_ranges(data, source, catalog=catalog)
            check_complete(workload, source)
            return workload
    workload = parse_workload(data, source, catalog=catalog)
    check_complete(workload, source)
    return workload


def check_complete(workload: Workload, source: str = "workload") -> None:
    """Refuse traffic that reads from a store of 0 bytes (an ingested access log leaves ``stored`` for
    the user to fill in): its requests would find nothing, and every answer would rest on that. A workload
    whose tools keep data (``tools:``) reads what they keep."""
    if workload.storage.stored or workload.tools or not reads_anything(workload):
        return
    traffic = workload.traffic
    read = [
        f"{workload.reads_per_month():,} GETs" if workload.reads_per_month() else "",
        f"{traffic.heads:,} HEADs" if traffic.heads else "",
        f"{format_bytes(traffic.egress)} of egress" if traffic.egress else "",
        f"{format_bytes(traffic.internal_reads)} of internal reads" if traffic.internal_reads else "",
        f"{format_bytes(traffic.inter_region)} copied between regions" if traffic.inter_region else "",
    ]
    raise InputError(
        f"0 B stored, but the traffic reads {' and '.join(r for r in read if r)} a month: fill in the bytes"
        ' stored (e.g. "10 TB"; access logs, or a bill without storage rows, cannot give it: ingest the bill or an'
        " inventory with --into)",
        source=source,
        field="storage.stored",
    )


def _plain(value: Any) -> Any:
    """YAML decimals back to floats for non-money fields (shares, factors): units carry the exactness."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Decimal):
        return float(value)
    return value


def _set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    """A copy of ``data`` with the field at ``path`` set (a list's item by its index)."""
    out = dict(data)
    node: Any = out
    for part in path[:-1]:
        key: Any = int(part) if isinstance(node, list) else part
        node[key] = list(node[key]) if isinstance(node[key], list) else dict(node[key])
        node = node[key]
    node[int(path[-1]) if isinstance(node, list) else path[-1]] = value
    return out


def _read(workload: Workload, path: tuple[str, ...]) -> Any:
    """The value at ``path`` in the validated workload, or None where the model holds no such field (a
    mapping's key, a field folded into another): the caller refuses a range there."""
    value: Any = workload
    for part in path:
        if isinstance(value, list):
            value = value[int(part)] if part.isdigit() and int(part) < len(value) else None
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            value = getattr(value, part, None)
    return value


def with_ranges(data: dict[str, Any], source: str, *, catalog: Catalog | None = None) -> Workload:
    """The workload of a parsed file that gives ranges: at the central value of each distribution,
    with the distributions and the correlations the file gives between them declared."""
    data = dict(data)
    given = data.pop("correlate", None)
    found = find(data)
    placeholder = data
    for path, spec in found:
        # while the endpoints are read, the field holds one of them
        placeholder = _set(placeholder, path, spec.get("likely", spec.get("low", spec.get("p10"))))
    uncertain = []
    for path, spec in found:
        field = ".".join(path)
        if path[:2] == ("traffic", "egress") and len(path) > 2:
            raise InputError(
                "a range inside the egress split cannot be priced (the split is folded into fixed sizes):"
                " give traffic.egress as one range, or the split's parts as sizes",
                source=source,
                field=field,
            )
        keys = set(spec)
        if keys == {"low", "likely", "high"}:
            kind: Literal["triangular", "uniform", "lognormal"] = "triangular"
        elif keys == {"low", "high"}:
            kind = "uniform"
        elif keys == {"p10", "p90"}:
            kind = "lognormal"
        else:
            raise InputError(
                "give {low, likely, high} (triangular), {low, high} (uniform) or {p10, p90} (lognormal)",
                source=source,
                field=field,
            )
        values: dict[str, float] = {}
        whole = False
        for key, text in spec.items():
            value = _read(parse_workload(_set(placeholder, path, text), source, catalog=catalog), path)
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise InputError(
                    "only a number (a size, count, rate or duration) can be uncertain", source=source, field=field
                )
            values[key], whole = float(value), isinstance(value, int)
        low = values.get("low", values.get("p10", 0.0))
        high = values.get("high", values.get("p90", 0.0))
        if not low <= values.get("likely", low) <= high or high <= low:
            raise InputError("the values must rise: low <= likely <= high, and low < high", source=source, field=field)
        if kind == "lognormal" and low <= 0:
            raise InputError("a lognormal's p10 must be above 0", source=source, field=field)
        uncertain.append(
            Uncertain(field=field, kind=kind, low=low, likely=values.get("likely"), high=high, whole=whole)
        )
    workload = parse_workload(placeholder, source, catalog=catalog)
    correlations = _correlations(given, uncertain, source) if given is not None else []
    central = at(workload, {u.field: u.central for u in uncertain})
    _check_reach(central, uncertain, source)
    # every range and correlation was checked above, each with its own field: this cannot fail
    return Workload.model_validate(
        {**central.model_dump(), "uncertain": uncertain, "correlations": correlations},
        context=with_catalog(catalog),
    )


def _check_reach(central: Workload, uncertain: list[Uncertain], source: str) -> None:
    """Every outcome ``--samples`` can draw is a workload the other commands accept: each range at its
    highest and lowest with the others central, then all at their highest and all at their lowest."""
    ends: tuple[Literal["high", "low"], ...] = ("high", "low")
    points = [(u.field, end, {u.field: u.reach(end)}) for u in uncertain for end in ends]
    if len(uncertain) > 1:
        names = ", ".join(u.field for u in uncertain)
        points += [(names, end, {u.field: u.reach(end) for u in uncertain}) for end in ends]
    for field, end, point in points:
        problem = at_problem(central, point)
        if problem is None:
            continue
        where = "the range's" if len(point) == 1 else "every range's"
        together = "" if len(point) == 1 else " together"
        values = ", ".join(f"{name} {format_field_value(name, value)}" for name, value in point.items())
        lognormal = (
            " (a lognormal's: one draw in a billion)"
            if any(u.kind == "lognormal" and u.field in point for u in uncertain)
            else ""
        )
        raise InputError(
            f"at {where} {end}est{together}{lognormal} ({values}) the workload is not valid: {problem}"
            " (--samples would draw such outcomes: narrow the range)",
            source=source,
            field=field,
        )


def _correlations(given: Any, inputs: list[Uncertain], source: str) -> list[Correlation]:
    fields = [u.field for u in inputs]
    shape = "a list of [field, field, correlation], e.g. [[traffic.egress, storage.stored, 0.8]]"
    if not isinstance(given, list) or not given:
        raise InputError(f"give {shape}", source=source, field="correlate")
    found: list[Correlation] = []
    for index, item in enumerate(given):
        where = f"correlate.{index}"
        if not isinstance(item, list) or len(item) != 3:
            raise InputError(f"give {shape}", source=source, field=where)
        first, second, rho = item
        problem = pair_problem(fields, first, second, found)
        if problem is not None:
            raise InputError(problem, source=source, field=where)
        if isinstance(rho, bool) or not isinstance(rho, int | float) or not -1 <= rho <= 1:
            raise InputError(f"{rho!r}: a correlation is a number from -1 to 1", source=source, field=where)
        found.append(Correlation(first=first, second=second, rho=float(rho)))
    if cholesky(inputs, found) is None:
        raise InputError(NOT_POSITIVE_DEFINITE, source=source, field="correlate")
    return found
