"""The vectorised path: many usage points priced at once with numpy, for sweeps and plots.

It evaluates the engine's own rules (``pricing.rules``) on arrays of float64, so it agrees with
the exact path to float precision (a test holds it to that) and a rule changed there changes
here. It covers the dimensions a sweep varies: stored bytes, object count, egress, requests by
operation, retrieval and inter-region bytes. Deletions, access-tier and unread shares and
discounts stay with the exact engine. Totals are the lines before the invoice rounds them
(``CostBreakdown.unrounded_total_usd``). Use it to explore; quote the exact engine's line items.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from planner.errors import PricingError
from pricing import rules
from pricing.models import PriceTable

Array = npt.NDArray[np.float64]


def _as_array(value: npt.ArrayLike, size: int) -> Array:
    return np.broadcast_to(np.asarray(value, dtype=np.float64).reshape(-1), (size,)).astype(np.float64)


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
    first = float(price.tiers[0].price)
    total = rules.tiered_cost(stored / float(price.unit_bytes), price, zero, round_up)

    padding = zero
    if object_count is not None:
        count = _as_array(object_count, size)
        mean = np.floor(stored / np.where(count > 0, count, 1.0))  # the engine's one bin of the mean size
        if sc.min_object_bytes:
            padding = rules.padding_bytes(mean, count, sc.min_object_bytes)
            total += rules.units_of(padding, price.unit_bytes, round_up) * first
        if sc.object_overhead:
            overhead = sc.object_overhead
            standard = table.classes[overhead.standard_rate_class].storage
            total += rules.units_of(count * overhead.class_rate_bytes, price.unit_bytes, round_up) * first
            total += rules.units_of(count * overhead.standard_rate_bytes, standard.unit_bytes, round_up) * float(
                standard.tiers[0].price
            )
        if sc.monitoring:
            monitored = rules.monitored_objects(mean, count, sc.monitoring.min_object_bytes)
            total += rules.units_of(monitored, sc.monitoring.per, round_up) * float(sc.monitoring.price)
    if sc.minimum_billable_bytes:
        shortfall = rules.shortfall_bytes(stored + padding, sc.minimum_billable_bytes)
        total += rules.units_of(shortfall, price.unit_bytes, round_up) * first

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
        if rc.id in counts:
            total += rules.request_units(counts[rc.id], rc, days, round_up) * float(rc.price)

    if sc.retrieval is not None:
        option = sc.retrieval.options[sc.retrieval.default]
        total += rules.units_of(retrieval, sc.retrieval.unit_bytes, round_up) * float(option.per_gb)

    egress_rules = table.egress
    egress_unit = float(egress_rules.internet.unit_bytes)
    extra = rules.egress_extra_free(egress_rules, stored / egress_unit, days, zero)
    total += rules.tiered_cost(egress / egress_unit, egress_rules.internet, extra, round_up)
    if egress_rules.inter_region is not None:
        inter_units = inter / float(egress_rules.inter_region.unit_bytes)
        total += rules.tiered_cost(inter_units, egress_rules.inter_region, zero, round_up)
    return total
