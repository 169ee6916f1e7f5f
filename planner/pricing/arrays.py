"""The vectorised path: many usage points priced at once with numpy, for sweeps and plots.

It evaluates the engine's own rules (``pricing.bill_rules``, on the shared arithmetic of
``pricing.rules``) on arrays of float64, so it agrees with the exact path to float precision (a test
holds it to that) and a rule changed there changes here; ``ON_ARRAYS`` says, rule by rule, which it
evaluates and which it leaves to the exact engine. It covers the dimensions a sweep varies (``Points``):
stored bytes, object count, egress, requests by operation, retrieval bytes and requests, inter-region
bytes, early deletions of one object size, bucket fees and discounts. Access-tier and unread shares and
size histograms stay with the exact engine. ``monthly_totals`` gives the lines before the invoice rounds them
(``CostBreakdown.unrounded_total_usd``); ``monthly_bills`` rounds each line as the invoice does,
so its totals are the engine's ``total_usd`` (a test holds it to the cent), and says where a
free-egress policy is broken. Use it to explore; quote the exact engine's line items.
``monthly_readings`` names the prices those lines rest on (field and quote's reading day), as the
engine's lines name them; recording them costs each line a reference, nothing per point.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Required, TypedDict, Unpack

import numpy as np
import numpy.typing as npt

from planner.errors import PricingError
from planner.pricing import rules
from planner.pricing.bill_lines import reading, tier_field
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Quote, TieredPrice

Array = npt.NDArray[np.float64]

ON_ARRAYS: Mapping[str, str | None] = {
    "stored_bytes": None,
    "minimum_object_size": None,
    "object_overhead": None,
    "access_tier_overhead": "the exact engine: a class with access tiers, where the workload gives unread shares "
    "(costing.outcomes.engine_reasons); the arrays bill every byte as frequent access",
    "monitoring": None,
    "minimum_storage": None,
    "early_deletion": None,
    "requests": None,
    "retrieval": None,
    "restored_copies": None,
    "egress": None,
    "transfer": None,
    "buckets": None,
    "request_payload": None,
    "replication": None,
    "base_fee": None,
    "minimum_charge": None,
}
"""Each billing rule (``planner.pricing.bill_rules.BILL_RULES``, in its order) and who evaluates it over many
points: None, this module (the per-object rules on objects of the one mean size, the default retrieval
option, the table's month); else which points the exact line-item engine prices instead, and why. A
workload the arrays cannot derive at all (a size histogram, a CDN in front) goes to the exact engine whole
(``costing.outcomes.engine_reasons`` gives the reason)."""


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
    rate_quote: Quote | None = None
    amounts: list[Array] = field(default_factory=list)
    readings: list[tuple[Array, str | None, dt.date | None]] = field(default_factory=list)
    """Each line's units (or amount), the price's field and its quote's reading day, as the engine names them."""

    def add(self, amount: Array, field: str, quote: Quote | None, units: Array | None = None) -> None:
        """A line's amounts at the price in ``field`` (read from ``quote``); ``units`` where a zero price
        still makes a line (a free tier), else the line is written where its amount is not zero."""
        self.amounts.append(rules.in_usd(amount, self.usd_per_unit))
        price_field, read = reading(field, quote, self.rate_quote, self.usd_per_unit is not None)
        self.readings.append((amount if units is None else units, price_field, read))

    def tiered(self, quantity: Array, price: TieredPrice, extra_free: Array, round_up: bool, path: str) -> None:
        free = rules.free_units(quantity, price, extra_free)
        for tier, _, units in rules.billed_tiers(quantity, price, free, round_up):
            self.add(units * float(tier.price), tier_field(path, price, tier), tier.quote, units)


class Points(TypedDict, total=False):
    """A sweep's usage at many points, each field a number or an array over the points (they broadcast
    against each other): the keywords of ``monthly_totals``, ``monthly_bills`` and ``monthly_readings``."""

    stored_bytes: Required[npt.ArrayLike]
    egress_bytes: npt.ArrayLike
    object_count: npt.ArrayLike | None
    requests: Mapping[str, npt.ArrayLike] | None
    retrieval_bytes: npt.ArrayLike
    retrieval_requests: npt.ArrayLike
    inter_region_bytes: npt.ArrayLike
    deletions: Deletions | None
    buckets: int
    upload_bytes: npt.ArrayLike
    replica_regions: int


def _lines(table: PriceTable, storage_class: str, points: Points) -> tuple[_Lines, Array]:
    """Every line's amount before rounding and discount, and the egress quantity in the price's units."""
    if storage_class not in table.classes:
        raise PricingError(f"{table.version} has no storage class {storage_class!r}")
    sc = table.classes[storage_class]
    stored_bytes, object_count = points["stored_bytes"], points.get("object_count")
    egress_bytes = points.get("egress_bytes", 0.0)
    retrieval_bytes = points.get("retrieval_bytes", 0.0)
    retrieval_requests = points.get("retrieval_requests", 0.0)
    inter_region_bytes = points.get("inter_region_bytes", 0.0)
    upload_bytes = points.get("upload_bytes", 0.0)
    requests, deletions = points.get("requests"), points.get("deletions")
    buckets, replica_regions = points.get("buckets", 1), points.get("replica_regions", 0)
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
    rate = table.exchange_rate
    lines = _Lines(size, None if rate is None else rate.usd_per_unit, None if rate is None else rate.quote)
    standard_units = _storage_lines(lines, table, storage_class, stored, object_count)
    if deletions is not None and sc.min_duration_days:
        _early_deletion_lines(lines, table, storage_class, deletions)
    _request_lines(lines, table, storage_class, requests or {})
    if sc.retrieval is not None:
        option = sc.retrieval.options[sc.retrieval.default]
        at = f"classes.{storage_class}.retrieval.options.{sc.retrieval.default}"
        round_up = table.billing.round_up
        units = rules.units_of(retrieval, sc.retrieval.unit_bytes, round_up)
        lines.add(units * float(option.per_gb), f"{at}.per_gb", option.quote, units)
        if option.per_1000_requests:
            restores = _as_array(retrieval_requests, size)
            amount = rules.units_of(restores, 1000, round_up) * float(option.per_1000_requests)
            lines.add(amount, f"{at}.per_1000_requests", option.quote)
    copy = table.limits.restored_copy
    if copy is not None and table.restore_required(storage_class):
        # each restore's copy kept the engine's default day, on the Standard tiers above the overhead
        copy_price = table.classes[copy.storage_class].storage
        copy_units = retrieval / float(copy_price.unit_bytes) / table.billing.month_days
        _standard_tier_lines(lines, table, copy.storage_class, standard_units, copy_units)
    egress_units = _transfer_lines(lines, table, storage_class, stored, egress, inter)
    fee = table.buckets
    if fee is not None and buckets > fee.included:
        lines.add(np.full(size, float((buckets - fee.included) * fee.price)), "buckets.price", fee.quote, np.ones(size))
    written = _as_array(upload_bytes, size)
    _payload_and_replication_lines(lines, table, storage_class, stored, retrieval, written, replica_regions)
    base = table.billing.base_fee
    if base is not None:
        lines.add(np.full(size, float(base.price)), "billing.base_fee.price", base.quote, np.ones(size))
    return lines, egress_units


def _payload_and_replication_lines(
    lines: _Lines, table: PriceTable, class_id: str, stored: Array, read: Array, written: Array, regions: int
) -> None:
    """Charges per unit of request payload (S3 Express One Zone) and storage billed again in each extra region."""
    round_up = table.billing.round_up
    sc = table.classes[class_id]
    payload = sc.request_payload
    if payload is not None:
        at = f"classes.{class_id}.request_payload"
        units = rules.units_of(written, payload.unit_bytes, round_up)
        lines.add(units * float(payload.upload), f"{at}.upload", payload.quote, units)
        units = rules.units_of(read, payload.unit_bytes, round_up)
        lines.add(units * float(payload.retrieval), f"{at}.retrieval", payload.quote, units)
    replication = sc.replication
    if replication is not None and regions:
        units = rules.round_units(rules.replicated_units(stored / float(replication.unit_bytes), regions), round_up)
        lines.add(units * float(replication.price), f"classes.{class_id}.replication.price", replication.quote, units)


def _minimum_usd(table: PriceTable) -> float:
    """The month's minimum charge in USD (0 when the table has none)."""
    least = table.billing.minimum_charge
    if least is None:
        return 0.0
    rate = None if table.exchange_rate is None else table.exchange_rate.usd_per_unit
    return float(rules.in_usd(least.price, rate))


def _standard_tier_lines(lines: _Lines, table: PriceTable, class_id: str, start: Array, units: Array) -> Array:
    """Units billed on a Standard-rate class's tiers above ``start`` units already there, a line per tier."""
    price = table.classes[class_id].storage
    for tier, _, amount in rules.ladder_slices(start, units, price.tiers):
        billed = rules.round_units(amount, table.billing.round_up)
        lines.add(
            billed * float(tier.price), tier_field(f"classes.{class_id}.storage", price, tier), tier.quote, billed
        )
    return start + units


def _storage_lines(
    lines: _Lines, table: PriceTable, class_id: str, stored: Array, object_count: npt.ArrayLike | None
) -> Array:
    """Storage and what is billed with it, as the engine writes them; the units it put on the
    Standard-rate class's tiers (S3 Glacier's 8 KB per object)."""
    round_up = table.billing.round_up
    sc = table.classes[class_id]
    price = sc.storage
    at, quote = f"classes.{class_id}.storage.tiers.0.price", price.tiers[0].quote
    scale = rules.hourly_scale(price.per_hour, table.billing.month_days)
    first = float(price.tiers[0].price)
    zero = np.zeros(lines.size)
    hourly_free = np.full(lines.size, float((price.free_per_hour or 0) * scale))
    lines.tiered(stored / float(price.unit_bytes) * scale, price, hourly_free, round_up, f"classes.{class_id}.storage")
    padding = zero
    standard_units = zero
    if object_count is not None:
        count = _as_array(object_count, lines.size)
        mean = np.floor(stored / np.where(count > 0, count, 1.0))  # the engine's one bin of the mean size
        if sc.min_object_bytes:
            padding = rules.padding_bytes(mean, count, sc.min_object_bytes)
            units = rules.units_of(padding * scale, price.unit_bytes, round_up)
            lines.add(units * first, at, quote, units)
        if sc.object_overhead:
            overhead = sc.object_overhead
            standard = table.classes[overhead.standard_rate_class].storage
            units = rules.units_of(count * overhead.class_rate_bytes * scale, price.unit_bytes, round_up)
            lines.add(units * first, at, quote, units)
            units = count * overhead.standard_rate_bytes / float(standard.unit_bytes)
            standard_units = _standard_tier_lines(lines, table, overhead.standard_rate_class, standard_units, units)
        if sc.monitoring:
            monitored = rules.monitored_objects(mean, count, sc.monitoring.min_object_bytes)
            units = rules.units_of(monitored, sc.monitoring.per, round_up)
            field_at = f"classes.{class_id}.monitoring.price"
            lines.add(units * float(sc.monitoring.price), field_at, sc.monitoring.quote, units)
    if sc.minimum_billable_bytes:
        shortfall = rules.shortfall_bytes(stored + padding, sc.minimum_billable_bytes)
        units = rules.units_of(shortfall * scale, price.unit_bytes, round_up)
        lines.add(units * first, at, quote, units)
    return standard_units


def _early_deletion_lines(lines: _Lines, table: PriceTable, class_id: str, deletions: Deletions) -> None:
    """Objects deleted before the class's minimum duration pay for the remaining days."""
    sc = table.classes[class_id]
    assert sc.min_duration_days
    round_up, days = table.billing.round_up, table.billing.month_days
    price = sc.storage
    first = float(price.tiers[0].price) * rules.hourly_scale(price.per_hour, days)
    remaining = np.full(lines.size, float(sc.min_duration_days) - deletions.age_days)
    if remaining[0] > 0:
        deleted = _as_array(deletions.deleted_bytes, lines.size)
        at, quote = f"classes.{class_id}.storage.tiers.0.price", price.tiers[0].quote
        units = rules.early_deletion_units(deleted, price.unit_bytes, remaining, days, round_up)
        lines.add(units * first, at, quote, units)
        if sc.min_object_bytes:
            padded = _as_array(deletions.objects, lines.size) * sc.min_object_bytes
            short = np.where(padded > deleted, padded - deleted, 0.0)
            units = rules.early_deletion_units(short, price.unit_bytes, remaining, days, round_up)
            lines.add(units * first, at, quote, units)


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
    for index, rc in enumerate(sc.requests):
        if rc.id in counts:
            units = rules.request_units(counts[rc.id], rc, table.billing.month_days, table.billing.round_up)
            lines.add(units * float(rc.price), f"classes.{storage_class}.requests.{index}.price", rc.quote, units)


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
    own = table.classes[storage_class].egress is not None
    path = f"classes.{storage_class}.egress.internet" if own else "egress.internet"
    lines.tiered(egress_units, egress_rules.internet, extra, round_up, path)
    if table.egress.inter_region is not None:
        inter_units = inter / float(table.egress.inter_region.unit_bytes)
        lines.tiered(inter_units, table.egress.inter_region, zero, round_up, "egress.inter_region")
    return egress_units


def monthly_totals(
    table: PriceTable,
    storage_class: str,
    **points: Unpack[Points],
) -> Array:
    """Monthly totals in USD (float64) before the invoice rounds them; inputs broadcast against ``stored_bytes``."""
    lines, _ = _lines(table, storage_class, points)
    return np.maximum(sum(lines.amounts, np.zeros(lines.size)), _minimum_usd(table))


def monthly_bills(
    table: PriceTable,
    storage_class: str,
    *,
    discount: Decimal = Decimal(0),
    **points: Unpack[Points],
) -> tuple[Array, npt.NDArray[np.bool_]]:
    """Each point's monthly bill as the invoice totals it (every line discounted, then rounded as the
    table says, then summed) in USD, and whether it breaks the provider's free-egress policy."""
    lines, egress_units = _lines(table, storage_class, points)
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
        stored_units = _as_array(points["stored_bytes"], lines.size) / float(
            table.egress_for(storage_class).internet.unit_bytes
        )
        breaks = np.asarray(rules.exceeds_multiple(egress_units, multiple, stored_units), dtype=bool)
    return total, breaks


def monthly_readings(
    table: PriceTable,
    storage_class: str,
    **points: Unpack[Points],
) -> dict[str, dt.date | None]:
    """The prices the bills of these points rest on, by field (in ``table``), with their quotes' reading days
    (None: no quote): every price a line is written at in some point's bill, as the engine's line items
    name them (``LineItem.price_field``, ``price_read_on``), the minimum monthly charge where it raises one."""
    lines, _ = _lines(table, storage_class, points)
    found = {name: read for units, name, read in lines.readings if name is not None and np.any(units > 0)}
    least = table.billing.minimum_charge
    if least is not None and np.any(sum(lines.amounts, np.zeros(lines.size)) < _minimum_usd(table)):
        rate = table.exchange_rate
        rated = rate is not None
        name, read = reading("billing.minimum_charge.price", least.quote, rate.quote if rate else None, rated)
        found[str(name)] = read
    return found
