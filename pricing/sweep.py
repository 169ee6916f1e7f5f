"""The vectorised path: many usage points priced at once with numpy, for sweeps and plots.

It applies the same rules as ``pricing.engine`` to arrays of float64 and agrees with the exact
path to float precision (a test holds it to that). It covers the dimensions a sweep varies:
stored bytes, object count, egress, requests by operation, retrieval and inter-region bytes.
Deletions, access-tier and unread shares and discounts stay with the exact engine. Totals are
the lines before the invoice rounds them (``CostBreakdown.unrounded_total_usd``). Use it to
explore; quote the exact engine's line items.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from planner.errors import PricingError
from pricing.models import PriceTable, TieredPrice

Array = npt.NDArray[np.float64]


def _as_array(value: npt.ArrayLike, size: int) -> Array:
    return np.broadcast_to(np.asarray(value, dtype=np.float64).reshape(-1), (size,)).astype(np.float64)


def _ladder(quantity: Array, price: TieredPrice) -> Array:
    total = np.zeros_like(quantity)
    lower = 0.0
    for tier in price.tiers:
        upper = np.inf if tier.up_to is None else float(tier.up_to)
        total += (np.clip(quantity, lower, upper) - lower) * float(tier.price)
        lower = upper
    return total


def _tiered(quantity: Array, price: TieredPrice, extra_free: Array, round_up: bool) -> Array:
    free = np.minimum(quantity, float(price.free_per_month) + extra_free)
    if price.free_position == "first-tier":
        # The bounds count every unit and the free units are the first ones: they cost what they displace.
        return _ladder(quantity, price) - _ladder(free, price)
    return _ladder(_round(quantity - free, round_up), price)


def monthly_totals(
    table: PriceTable,
    storage_class: str,
    *,
    stored_bytes: npt.ArrayLike,
    egress_bytes: npt.ArrayLike = 0.0,
    object_count: npt.ArrayLike | None = None,
    requests: Mapping[str, npt.ArrayLike] | None = None,
    retrieval_bytes: npt.ArrayLike = 0.0,
    inter_region_bytes: npt.ArrayLike = 0.0,
) -> Array:
    """Monthly totals in USD (float64) for every point; inputs broadcast against ``stored_bytes``."""
    if storage_class not in table.classes:
        raise PricingError(f"{table.version} has no storage class {storage_class!r}")
    sc = table.classes[storage_class]
    inputs = [stored_bytes, egress_bytes, retrieval_bytes, inter_region_bytes, *(requests or {}).values()]
    if object_count is not None:
        inputs.append(object_count)
    size = int(np.broadcast(*[np.asarray(i, dtype=np.float64).reshape(-1) for i in inputs]).size)
    stored = _as_array(stored_bytes, size)
    egress = _as_array(egress_bytes, size)
    retrieval = _as_array(retrieval_bytes, size)
    inter = _as_array(inter_region_bytes, size)
    round_up = table.billing.round_up
    zero = np.zeros(size)

    price = sc.storage
    unit = float(price.unit_bytes)
    first = float(price.tiers[0].price)
    total = _tiered(stored / unit, price, zero, round_up)

    padding = zero
    if object_count is not None:
        count = _as_array(object_count, size)
        safe = np.where(count > 0, count, 1.0)
        mean = np.floor(stored / safe)
        has = count > 0
        if sc.min_object_bytes:
            padding = np.where(has & (mean < sc.min_object_bytes), (sc.min_object_bytes - mean) * count, 0.0)
            total += _round(padding / unit, round_up) * first
        if sc.object_overhead:
            overhead = sc.object_overhead
            standard = table.classes[overhead.standard_rate_class].storage
            total += _round(count * overhead.class_rate_bytes / unit, round_up) * first
            total += _round(count * overhead.standard_rate_bytes / standard.unit_bytes, round_up) * float(
                standard.tiers[0].price
            )
        if sc.monitoring:
            monitored = np.where(has & (mean >= sc.monitoring.min_object_bytes), count, 0.0)
            total += _round(monitored / sc.monitoring.per, round_up) * float(sc.monitoring.price)
    if sc.minimum_billable_bytes:
        shortfall = np.maximum(0.0, sc.minimum_billable_bytes - (stored + padding))
        total += _round(shortfall / unit, round_up) * first

    days = table.billing.month_days
    owner = {op: rc for rc in sc.requests for op in rc.operations}
    counts: dict[str, Array] = {}
    for op, values in (requests or {}).items():
        if op in sc.free_operations:
            continue
        if op not in owner:
            raise PricingError(f"{table.version} {storage_class}: operation {op!r} is not priced and not free")
        counts[owner[op].id] = counts.get(owner[op].id, zero) + _as_array(values, size)
    for rc in sc.requests:
        if rc.id not in counts:
            continue
        billable = np.maximum(0.0, counts[rc.id] - (rc.free_per_month + rc.free_per_day * days))
        total += _round(billable / rc.per, round_up) * float(rc.price)

    if sc.retrieval is not None:
        option = sc.retrieval.options[sc.retrieval.default]
        total += _round(retrieval / sc.retrieval.unit_bytes, round_up) * float(option.per_gb)

    rules = table.egress
    egress_unit = float(rules.internet.unit_bytes)
    extra = np.full(size, float(rules.free_per_day * days))
    if rules.free_multiple_of_storage:
        extra = extra + float(rules.free_multiple_of_storage) * stored / egress_unit
    total += _tiered(egress / egress_unit, rules.internet, extra, round_up)
    if rules.inter_region is not None:
        total += _tiered(inter / rules.inter_region.unit_bytes, rules.inter_region, zero, round_up)
    return total


def _round(quantity: Array, round_up: bool) -> Array:
    # Float division leaves noise far below a billing unit: do not let it round 2.0000000000001 up to 3.
    return np.ceil(quantity - 1e-12 * np.maximum(quantity, 1.0)) if round_up else quantity
