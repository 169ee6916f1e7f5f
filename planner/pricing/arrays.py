"""The vectorised path: many usage points priced at once with numpy, for sweeps and plots.

It evaluates the engine's own rules (``pricing.rules``) on arrays of float64, so it agrees with
the exact path to float precision (a test holds it to that) and a rule changed there changes
here. It covers the dimensions a sweep varies: stored bytes, object count, egress, requests by
operation, retrieval bytes and requests, inter-region bytes, early deletions of one object size,
bucket fees and discounts. Access-tier and unread shares and size histograms stay with the exact
engine. ``monthly_totals`` gives the lines before the invoice rounds them
(``CostBreakdown.unrounded_total_usd``); ``monthly_bills`` rounds each line as the invoice does,
so its totals are the engine's ``total_usd`` (a test holds it to the cent), and says where a
free-egress policy is broken. Use it to explore; quote the exact engine's line items.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
import numpy.typing as npt

from planner.errors import PricingError
from planner.pricing import rules
from planner.pricing.models import PriceTable
from planner.pricing.primitives import TieredPrice
from planner.pricing.storage_classes import StorageClass

Array = npt.NDArray[np.float64]


def _as_array(value: npt.ArrayLike, size: int) -> Array:
    return np.broadcast_to(np.asarray(value, dtype=np.float64).reshape(-1), (size,)).astype(np.float64)


@dataclass
class Deletions:
    """Objects of one size deleted a month at an age (days): what an early-deletion charge needs."""

    deleted_bytes: npt.ArrayLike
    objects: npt.ArrayLike
    age_days: float


@dataclass
class _Lines:
    """A bill's lines as arrays over the points: each one amount the engine would write as one line."""

    size: int
    usd_per_unit: Decimal | None = None  # a table priced in another currency is billed in USD at its rate
    amounts: list[Array] = field(default_factory=list)

    def add(self, amount: Array) -> None:
        self.amounts.append(rules.in_usd(amount, self.usd_per_unit))

    def tiered(self, quantity: Array, price: TieredPrice, extra_free: Array, round_up: bool) -> None:
        free = rules.free_units(quantity, price, extra_free)
        for tier, _, units in rules.billed_tiers(quantity, price, free, round_up):
            self.add(units * float(tier.price))


def _lines(
    table: PriceTable,
    storage_class: str,
    *,
    stored_bytes: npt.ArrayLike,
    egress_bytes: npt.ArrayLike = 0.0,
    object_count: npt.ArrayLike | None = None,
    requests: Mapping[str, npt.ArrayLike] | None = None,
    retrieval_bytes: npt.ArrayLike = 0.0,
    retrieval_requests: npt.ArrayLike = 0.0,
    inter_region_bytes: npt.ArrayLike = 0.0,
    deletions: Deletions | None = None,
    buckets: int = 1,
    upload_bytes: npt.ArrayLike = 0.0,
    replica_regions: int = 0,
) -> tuple[_Lines, Array]:
    """Every line's amount before rounding and discount, and the egress quantity in the price's units."""
    if storage_class not in table.classes:
        raise PricingError(f"{table.version} has no storage class {storage_class!r}")
    sc = table.classes[storage_class]
    inputs = [stored_bytes, egress_bytes, retrieval_bytes, retrieval_requests, inter_region_bytes, upload_bytes]
    inputs += list((requests or {}).values())
    if object_count is not None:
        inputs.append(object_count)
    if deletions is not None:
        inputs += [deletions.deleted_bytes, deletions.objects]
    size = int(np.broadcast(*[np.asarray(i, dtype=np.float64).reshape(-1) for i in inputs]).size)
    stored = _as_array(stored_bytes, size)
    egress = _as_array(egress_bytes, size)
    retrieval = _as_array(retrieval_bytes, size)
    inter = _as_array(inter_region_bytes, size)
    lines = _Lines(size, None if table.exchange_rate is None else table.exchange_rate.usd_per_unit)
    standard_units = _storage_lines(lines, table, sc, stored, object_count)
    if deletions is not None and sc.min_duration_days:
        _early_deletion_lines(lines, table, sc, deletions)
    _request_lines(lines, table, storage_class, requests or {})
    if sc.retrieval is not None:
        option = sc.retrieval.options[sc.retrieval.default]
        round_up = table.billing.round_up
        lines.add(rules.units_of(retrieval, sc.retrieval.unit_bytes, round_up) * float(option.per_gb))
        if option.per_1000_requests:
            restores = _as_array(retrieval_requests, size)
            lines.add(rules.units_of(restores, 1000, round_up) * float(option.per_1000_requests))
    copy = table.limits.restored_copy
    if copy is not None and table.restore_required(storage_class):
        # each restore's copy kept the engine's default day, on the Standard tiers above the overhead
        copy_price = table.classes[copy.storage_class].storage
        copy_units = retrieval / float(copy_price.unit_bytes) / table.billing.month_days
        _standard_tier_lines(lines, table, copy_price, standard_units, copy_units)
    egress_units = _transfer_lines(lines, table, storage_class, stored, egress, inter)
    fee = table.buckets
    if fee is not None and buckets > fee.included:
        lines.add(np.full(size, float((buckets - fee.included) * fee.price)))
    _payload_and_replication_lines(lines, table, sc, stored, retrieval, _as_array(upload_bytes, size), replica_regions)
    if table.billing.base_fee is not None:
        lines.add(np.full(size, float(table.billing.base_fee.price)))
    return lines, egress_units


def _payload_and_replication_lines(
    lines: _Lines, table: PriceTable, sc: StorageClass, stored: Array, read: Array, written: Array, regions: int
) -> None:
    """Charges per unit of request payload (S3 Express One Zone) and storage billed again in each extra region."""
    round_up = table.billing.round_up
    payload = sc.request_payload
    if payload is not None:
        lines.add(rules.units_of(written, payload.unit_bytes, round_up) * float(payload.upload))
        lines.add(rules.units_of(read, payload.unit_bytes, round_up) * float(payload.retrieval))
    if sc.replication is not None and regions:
        units = rules.replicated_units(stored / float(sc.replication.unit_bytes), regions)
        lines.add(rules.round_units(units, round_up) * float(sc.replication.price))


def _minimum_usd(table: PriceTable) -> float:
    """The month's minimum charge in USD (0 when the table has none)."""
    least = table.billing.minimum_charge
    if least is None:
        return 0.0
    rate = None if table.exchange_rate is None else table.exchange_rate.usd_per_unit
    return float(rules.in_usd(least.price, rate))


def _standard_tier_lines(lines: _Lines, table: PriceTable, price: TieredPrice, start: Array, units: Array) -> Array:
    """Units billed on a Standard-rate class's tiers above ``start`` units already there, a line per tier."""
    for tier, _, amount in rules.ladder_slices(start, units, price.tiers):
        lines.add(rules.round_units(amount, table.billing.round_up) * float(tier.price))
    return start + units


def _storage_lines(
    lines: _Lines, table: PriceTable, sc: StorageClass, stored: Array, object_count: npt.ArrayLike | None
) -> Array:
    """Storage and what is billed with it, as the engine writes them; the units it put on the
    Standard-rate class's tiers (S3 Glacier's 8 KB per object)."""
    round_up = table.billing.round_up
    price = sc.storage
    scale = rules.hourly_scale(price.per_hour, table.billing.month_days)
    first = float(price.tiers[0].price)
    zero = np.zeros(lines.size)
    hourly_free = np.full(lines.size, float((price.free_per_hour or 0) * scale))
    lines.tiered(stored / float(price.unit_bytes) * scale, price, hourly_free, round_up)
    padding = zero
    standard_units = zero
    if object_count is not None:
        count = _as_array(object_count, lines.size)
        mean = np.floor(stored / np.where(count > 0, count, 1.0))  # the engine's one bin of the mean size
        if sc.min_object_bytes:
            padding = rules.padding_bytes(mean, count, sc.min_object_bytes)
            lines.add(rules.units_of(padding * scale, price.unit_bytes, round_up) * first)
        if sc.object_overhead:
            overhead = sc.object_overhead
            standard = table.classes[overhead.standard_rate_class].storage
            lines.add(rules.units_of(count * overhead.class_rate_bytes * scale, price.unit_bytes, round_up) * first)
            units = count * overhead.standard_rate_bytes / float(standard.unit_bytes)
            standard_units = _standard_tier_lines(lines, table, standard, standard_units, units)
        if sc.monitoring:
            monitored = rules.monitored_objects(mean, count, sc.monitoring.min_object_bytes)
            lines.add(rules.units_of(monitored, sc.monitoring.per, round_up) * float(sc.monitoring.price))
    if sc.minimum_billable_bytes:
        shortfall = rules.shortfall_bytes(stored + padding, sc.minimum_billable_bytes)
        lines.add(rules.units_of(shortfall * scale, price.unit_bytes, round_up) * first)
    return standard_units


def _early_deletion_lines(lines: _Lines, table: PriceTable, sc: StorageClass, deletions: Deletions) -> None:
    """Objects deleted before the class's minimum duration pay for the remaining days."""
    assert sc.min_duration_days
    round_up, days = table.billing.round_up, table.billing.month_days
    price = sc.storage
    first = float(price.tiers[0].price) * rules.hourly_scale(price.per_hour, days)
    remaining = np.full(lines.size, float(sc.min_duration_days) - deletions.age_days)
    if remaining[0] > 0:
        deleted = _as_array(deletions.deleted_bytes, lines.size)
        lines.add(rules.early_deletion_units(deleted, price.unit_bytes, remaining, days, round_up) * first)
        if sc.min_object_bytes:
            padded = _as_array(deletions.objects, lines.size) * sc.min_object_bytes
            short = np.where(padded > deleted, padded - deleted, 0.0)
            lines.add(rules.early_deletion_units(short, price.unit_bytes, remaining, days, round_up) * first)


def _request_lines(lines: _Lines, table: PriceTable, storage_class: str, requests: Mapping[str, npt.ArrayLike]) -> None:
    """Each request class's line, its operations' counts added together; free operations bill nothing."""
    sc = table.classes[storage_class]
    owner = {op: rc for rc in sc.requests for op in rc.operations}
    counts: dict[str, Array] = {}
    for op, values in requests.items():
        if op in sc.free_operations:
            continue
        if op not in owner:
            raise PricingError(f"{table.version} {storage_class}: operation {op!r} is not priced and not free")
        counts[owner[op].id] = counts.get(owner[op].id, np.zeros(lines.size)) + _as_array(values, lines.size)
    for rc in sc.requests:
        if rc.id in counts:
            lines.add(
                rules.request_units(counts[rc.id], rc, table.billing.month_days, table.billing.round_up)
                * float(rc.price)
            )


def _transfer_lines(
    lines: _Lines, table: PriceTable, storage_class: str, stored: Array, egress: Array, inter: Array
) -> Array:
    """Internet egress (after any free allowance) and inter-region transfer; the egress in its price's units."""
    round_up = table.billing.round_up
    zero = np.zeros(lines.size)
    egress_rules = table.egress_for(storage_class)
    egress_unit = float(egress_rules.internet.unit_bytes)
    egress_units = egress / egress_unit
    extra = rules.egress_extra_free(egress_rules, stored / egress_unit, table.billing.month_days, zero)
    lines.tiered(egress_units, egress_rules.internet, extra, round_up)
    if table.egress.inter_region is not None:
        inter_units = inter / float(table.egress.inter_region.unit_bytes)
        lines.tiered(inter_units, table.egress.inter_region, zero, round_up)
    return egress_units


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
    upload_bytes: npt.ArrayLike = 0.0,
    replica_regions: int = 0,
) -> Array:
    """Monthly totals in USD (float64) before the invoice rounds them; inputs broadcast against ``stored_bytes``."""
    lines, _ = _lines(
        table,
        storage_class,
        stored_bytes=stored_bytes,
        egress_bytes=egress_bytes,
        object_count=object_count,
        requests=requests,
        retrieval_bytes=retrieval_bytes,
        inter_region_bytes=inter_region_bytes,
        upload_bytes=upload_bytes,
        replica_regions=replica_regions,
    )
    return np.maximum(sum(lines.amounts, np.zeros(lines.size)), _minimum_usd(table))


def monthly_bills(
    table: PriceTable,
    storage_class: str,
    *,
    stored_bytes: npt.ArrayLike,
    egress_bytes: npt.ArrayLike = 0.0,
    object_count: npt.ArrayLike | None = None,
    requests: Mapping[str, npt.ArrayLike] | None = None,
    retrieval_bytes: npt.ArrayLike = 0.0,
    retrieval_requests: npt.ArrayLike = 0.0,
    inter_region_bytes: npt.ArrayLike = 0.0,
    deletions: Deletions | None = None,
    buckets: int = 1,
    discount: Decimal = Decimal(0),
    upload_bytes: npt.ArrayLike = 0.0,
    replica_regions: int = 0,
) -> tuple[Array, npt.NDArray[np.bool_]]:
    """Each point's monthly bill as the invoice totals it (every line discounted, then rounded as the
    table says, then summed) in USD, and whether it breaks the provider's free-egress policy."""
    lines, egress_units = _lines(
        table,
        storage_class,
        stored_bytes=stored_bytes,
        egress_bytes=egress_bytes,
        object_count=object_count,
        requests=requests,
        retrieval_bytes=retrieval_bytes,
        retrieval_requests=retrieval_requests,
        inter_region_bytes=inter_region_bytes,
        deletions=deletions,
        buckets=buckets,
        upload_bytes=upload_bytes,
        replica_regions=replica_regions,
    )
    rule = table.billing.line_rounding
    keep = 1.0 - float(discount)
    total = np.zeros(lines.size)
    for amount in lines.amounts:
        total += rules.round_amount(amount * keep if discount else amount, rule)
    places = rule.places if rule is not None else 2
    # each rounded line is a whole number of the last place: the sum, rounded there, is exact
    total = np.round(total * 10.0**places) / 10.0**places
    total = np.maximum(total, _minimum_usd(table))
    multiple = table.egress_for(storage_class).fair_use_multiple_of_storage
    if multiple is None:
        breaks = np.zeros(lines.size, dtype=bool)
    else:
        stored_units = _as_array(stored_bytes, lines.size) / float(table.egress_for(storage_class).internet.unit_bytes)
        breaks = np.asarray(rules.exceeds_multiple(egress_units, multiple, stored_units), dtype=bool)
    return total, breaks
