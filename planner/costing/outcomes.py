"""Every allowed option's monthly bill in many sampled outcomes at once.

The workload's month of usage is derived for all outcomes together as numpy arrays, the way
``Workload.usage_for`` derives it for one (month 0), and priced by ``pricing.arrays.monthly_bills``,
which evaluates the engine's own rules (``pricing.bill_rules``, as ``pricing.arrays.ON_ARRAYS`` lists
them) and rounds each line as the invoice does, so each amount is the engine's ``total_usd`` (a test
holds the two to the cent).

What the arrays do not express is priced outcome by outcome with the exact line-item engine, and
the result says which options and why: an uncertain field outside ``VECTORISED_FIELDS``, a size
histogram (``storage.size_distribution``), a class with access tiers and unread shares.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.costing.cdn_bills import delivered_bill
from planner.pricing.arrays import Deletions, monthly_bills
from planner.pricing.models import Limits, PriceTable
from planner.workload import DAY_S, MONTH_S, Workload, at
from planner.workload.model import is_rule_age

Array = npt.NDArray[np.float64]

VECTORISED_FIELDS = frozenset(
    {
        "storage.stored",
        "storage.objects",
        "storage.growth_per_month",
        "storage.growth_rate",
        "traffic.egress",
        "traffic.internal_reads",
        "traffic.inter_region",
        "traffic.reads",
        "traffic.writes",
        "traffic.heads",
        "traffic.lists",
    }
)
"""Uncertain fields whose outcomes the arrays derive; any other sends every option to the engine."""


@dataclass
class PricedOutcomes:
    """Bills in USD (outcomes x options), whether each breaks no provider policy, and the options the
    exact engine priced outcome by outcome, with the reason."""

    costs_usd: Array
    feasible: npt.NDArray[np.bool_]
    by_engine: dict[str, str] = field(default_factory=dict)


def held(workload: Workload, field_path: str, values: Array) -> Array:
    """Sampled values as the model holds the field: whole numbers where it holds an int (as ``at`` rounds)."""
    current: Any = workload
    for part in field_path.split("."):
        current = current[int(part)] if isinstance(current, list) else getattr(current, part)
    return np.round(values) if isinstance(current, int) and not isinstance(current, bool) else values


def _workload_reason(workload: Workload, fields: list[str]) -> str | None:
    if workload.delivery is not None:
        return "the workload names a CDN (delivery.cdn), whose bill only the line-item engine prices"
    if workload.storage.size_distribution is not None:
        return "the workload gives a size distribution (storage.size_distribution)"
    # a lifecycle rule's age moves no one-class bill (planner lifecycle --samples prices the policy)
    other = [f for f in fields if f not in VECTORISED_FIELDS and not is_rule_age(f)]
    if other:
        return f"{', '.join(other)} is uncertain and only the line-item engine derives its effect"
    return None


def _usage(workload: Workload, draws: dict[str, Array], n: int, limits: Limits, month: int) -> dict[str, Any]:
    """A month of usage for every outcome, as ``Workload.usage_for`` derives it for one."""
    storage, traffic, client = workload.storage, workload.traffic, workload.client

    def value(path: str, current: float | int | None) -> Array:
        if path in draws:
            return draws[path]
        return np.full(n, float(current or 0))

    def per_mean(numerator: Array, mean: Array) -> Array:
        return np.divide(numerator, mean, out=np.zeros(n), where=mean > 0)

    first = value("storage.stored", storage.stored)
    growth = value("storage.growth_per_month", storage.growth_per_month)
    rate = value("storage.growth_rate", storage.growth_rate)
    stored = np.round(first * (1 + rate) ** month) + growth * month  # no rate: first x 1, exactly
    if storage.object_size is not None:
        mean = np.full(n, float(storage.object_size))
    else:
        mean = np.where(first > 0, first / value("storage.objects", storage.objects), 0.0)
    if storage.objects is not None and month == 0:
        count = value("storage.objects", storage.objects)
    else:
        count = np.where((mean > 0) & (stored > 0), np.maximum(1.0, np.round(per_mean(stored, mean))), 0.0)
    retention = storage.retention
    deleted = stored * MONTH_S / retention if retention is not None else np.zeros(n)
    written = growth + stored * rate + deleted
    egress = value("traffic.egress", traffic.egress)
    internal = value("traffic.internal_reads", traffic.internal_reads)
    inter = value("traffic.inter_region", traffic.inter_region)
    read_bytes = egress + internal + inter
    ratio = traffic.ratio
    if traffic.reads is not None:
        reads = value("traffic.reads", traffic.reads)
    elif ratio is not None and traffic.writes is not None:
        reads = np.round(value("traffic.writes", traffic.writes) * ratio)
    else:
        reads = np.where(mean > 0, np.ceil(per_mean(read_bytes, mean)), 0.0)
    if traffic.writes is not None:
        writes = value("traffic.writes", traffic.writes)
    elif ratio is not None:
        writes = np.ceil(reads / ratio)
    else:
        writes = np.where(mean > 0, np.ceil(per_mean(written, mean)), 0.0)
    sizes, where = np.unique(mean, return_inverse=True)
    per_object = np.array([workload.parts_per_upload(float(s), limits) for s in sizes], dtype=np.float64)[where]
    single = per_object == 1
    uploads = np.round(writes * 1.0)
    gets = reads
    if client.read_streams > 1:
        ranges = np.array(
            [1.0 * max(1, min(client.read_streams, math.ceil(s / client.range_size))) for s in sizes], dtype=np.float64
        )[where]
        gets = np.round(reads * ranges)
    deleted_objects = np.zeros(n)
    deleted_bytes = np.zeros(n)
    if retention is not None:
        objects = per_mean(deleted, mean)
        deleted_objects = np.where(deleted != 0, np.round(objects * 1.0), 0.0)
        deleted_bytes = np.where(
            deleted != 0, np.where(mean > 0, np.round(objects * 1.0 * mean), np.round(deleted)), 0.0
        )
    return {
        "stored_bytes": stored,
        "object_count": count,
        "requests": {
            "put": np.where(single, uploads, 0.0),
            "create-multipart": np.where(single, 0.0, uploads),
            "upload-part": np.where(single, 0.0, np.round(writes * 1.0 * per_object)),
            "complete-multipart": np.where(single, 0.0, uploads),
            "get": gets,
            "head": value("traffic.heads", traffic.heads),
            "list": value("traffic.lists", traffic.lists),
            "delete": deleted_objects,
        },
        "egress_bytes": egress,
        "inter_region_bytes": inter,
        "retrieval_bytes": read_bytes,
        "retrieval_requests": reads,
        "upload_bytes": np.round(writes * mean),  # the bytes PUT, as Workload.usage_for counts them
        "deletions": (deleted_bytes, deleted_objects, retention / DAY_S if retention is not None else 0.0),
    }


def engine_reasons(
    workload: Workload,
    fields: list[str],
    options: list[tuple[str, str]],
    tables: dict[str, PriceTable],
    *,
    engine_only: bool = False,
) -> dict[str, str]:
    """The options (``provider:class``) only the line-item engine can price with these fields uncertain, and why."""
    common = "asked for the line-item engine" if engine_only else _workload_reason(workload, fields)
    reasons = {}
    for provider, storage_class in options:
        why = common
        table = tables[provider]
        if why is None and table.classes[storage_class].access_tiers and workload.storage.unread_shares():
            why = "its access tiers take the unread shares, which only the line-item engine places"
        if why is not None:
            reasons[f"{provider}:{storage_class}"] = why
    return reasons


def price_outcomes(
    workload: Workload,
    draws: dict[str, Array],
    options: list[tuple[str, str]],
    tables: dict[str, PriceTable],
    *,
    as_of: dt.date,
    month: int = 0,
    engine_only: bool = False,
    progress: Callable[[float], None] | None = None,
) -> PricedOutcomes:
    """Every option's bill for ``month`` of the horizon (0 is the first), priced with ``tables`` (those
    in force on ``as_of``, that month's day), in each outcome of ``draws`` (field -> values, in the
    model's units).

    ``engine_only`` prices every outcome with the line-item engine (the reference the arrays are
    held to, and the benchmark's baseline)."""
    n = len(next(iter(draws.values()))) if draws else 0
    values = {f: held(workload, f, np.asarray(v, dtype=np.float64)) for f, v in draws.items()}
    costs = np.zeros((n, len(options)))
    feasible = np.ones((n, len(options)), dtype=bool)
    by_engine = engine_reasons(workload, list(draws), options, tables, engine_only=engine_only)
    usages: dict[str, dict[str, Any]] = {}
    for j, (provider, storage_class) in enumerate(options):
        if f"{provider}:{storage_class}" in by_engine:
            continue
        table = tables[provider]
        template = workload.usage_for(storage_class, table.limits, month)
        if provider not in usages:
            usages[provider] = _usage(workload, values, n, table.limits, month)
        usage = usages[provider]
        deleted_bytes, deleted_objects, age_days = usage["deletions"]
        costs[:, j], breaks = monthly_bills(
            table,
            storage_class,
            stored_bytes=usage["stored_bytes"],
            egress_bytes=usage["egress_bytes"],
            object_count=usage["object_count"],
            requests=usage["requests"],
            retrieval_bytes=usage["retrieval_bytes"],
            retrieval_requests=usage["retrieval_requests"],
            inter_region_bytes=usage["inter_region_bytes"],
            upload_bytes=usage["upload_bytes"],
            deletions=Deletions(deleted_bytes, deleted_objects, age_days) if template.deletions else None,
            buckets=template.buckets,
            discount=template.discounts.get(provider, Decimal(0)),
        )
        feasible[:, j] = ~breaks
    slow = [(j, p, c) for j, (p, c) in enumerate(options) if f"{p}:{c}" in by_engine]
    if slow:
        for i in range(n):
            varied = at(workload, {f: float(v[i]) for f, v in values.items()})
            for j, provider, storage_class in slow:
                table = tables[provider]
                priced = delivered_bill(varied, table, storage_class, as_of, month)  # behind the CDN, if any
                costs[i, j], feasible[i, j] = float(priced.total_usd), not priced.policy_breaches
            if progress is not None:
                progress(i + 1)
    elif progress is not None:
        progress(n)
    return PricedOutcomes(costs_usd=costs, feasible=feasible, by_engine=by_engine)
