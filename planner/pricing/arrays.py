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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Required, TypedDict, Unpack

import numpy as np
import numpy.typing as npt

from planner.errors import InputError, PricingError
from planner.pricing import rules
from planner.pricing.bill_lines import reading, tier_field
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Quote, TieredPrice

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


@dataclass
class _Sweep:
    """The points' usage as arrays, for one storage class of a table, and the lines written so far; what one
    rule's lines leave for a later rule's (the padding the minimum object size adds, the units on the
    Standard-rate class's tiers, the egress in its price's units)."""

    table: PriceTable
    class_id: str
    lines: _Lines
    stored: Array
    egress: Array
    retrieval: Array
    retrieval_requests: Array
    inter: Array
    written: Array
    count: Array | None
    requests: Mapping[str, npt.ArrayLike]
    deletions: Deletions | None
    buckets: int
    replica_regions: int
    padding: Array
    standard_units: Array
    egress_units: Array

    @property
    def round_up(self) -> bool:
        return self.table.billing.round_up

    @property
    def scale(self) -> int:
        """The storage price's month: its hours where it is hourly, else 1."""
        return rules.hourly_scale(self.table.classes[self.class_id].storage.per_hour, self.table.billing.month_days)

    @property
    def mean(self) -> Array:
        """Each point's object size, the engine's one bin of the mean size (needs ``count``)."""
        assert self.count is not None
        return np.floor(self.stored / np.where(self.count > 0, self.count, 1.0))


def _standard_tier_lines(sweep: _Sweep, class_id: str, units: Array) -> None:
    """Units billed on a Standard-rate class's tiers above those already there, a line per tier."""
    price = sweep.table.classes[class_id].storage
    for tier, _, amount in rules.ladder_slices(sweep.standard_units, units, price.tiers):
        billed = rules.round_units(amount, sweep.round_up)
        at = tier_field(f"classes.{class_id}.storage", price, tier)
        sweep.lines.add(billed * float(tier.price), at, tier.quote, billed)
    sweep.standard_units = sweep.standard_units + units


def _first_tier(sweep: _Sweep, units: Array) -> None:
    """A line of ``units`` at the class's first storage tier (minimums and overheads bill there)."""
    price = sweep.table.classes[sweep.class_id].storage
    at = f"classes.{sweep.class_id}.storage.tiers.0.price"
    sweep.lines.add(units * float(price.tiers[0].price), at, price.tiers[0].quote, units)


def _stored_bytes(sweep: _Sweep) -> None:
    price = sweep.table.classes[sweep.class_id].storage
    hourly_free = np.full(sweep.lines.size, float((price.free_per_hour or 0) * sweep.scale))
    quantity = sweep.stored / float(price.unit_bytes) * sweep.scale
    sweep.lines.tiered(quantity, price, hourly_free, sweep.round_up, f"classes.{sweep.class_id}.storage")


def _minimum_object_size(sweep: _Sweep) -> None:
    sc = sweep.table.classes[sweep.class_id]
    if sweep.count is not None and sc.min_object_bytes:
        sweep.padding = rules.padding_bytes(sweep.mean, sweep.count, sc.min_object_bytes)
        _first_tier(sweep, rules.units_of(sweep.padding * sweep.scale, sc.storage.unit_bytes, sweep.round_up))


def _object_overhead(sweep: _Sweep) -> None:
    sc = sweep.table.classes[sweep.class_id]
    overhead = sc.object_overhead
    if sweep.count is None or overhead is None:
        return
    count = sweep.count
    _first_tier(
        sweep, rules.units_of(count * overhead.class_rate_bytes * sweep.scale, sc.storage.unit_bytes, sweep.round_up)
    )
    standard = sweep.table.classes[overhead.standard_rate_class].storage
    _standard_tier_lines(
        sweep, overhead.standard_rate_class, count * overhead.standard_rate_bytes / float(standard.unit_bytes)
    )


def _monitoring(sweep: _Sweep) -> None:
    monitoring = sweep.table.classes[sweep.class_id].monitoring
    if sweep.count is None or monitoring is None:
        return
    monitored = rules.monitored_objects(sweep.mean, sweep.count, monitoring.min_object_bytes)
    units = rules.units_of(monitored, monitoring.per, sweep.round_up)
    at = f"classes.{sweep.class_id}.monitoring.price"
    sweep.lines.add(units * float(monitoring.price), at, monitoring.quote, units)


def _minimum_storage(sweep: _Sweep) -> None:
    sc = sweep.table.classes[sweep.class_id]
    if sc.minimum_billable_bytes:
        shortfall = rules.shortfall_bytes(sweep.stored + sweep.padding, sc.minimum_billable_bytes)
        _first_tier(sweep, rules.units_of(shortfall * sweep.scale, sc.storage.unit_bytes, sweep.round_up))


def _early_deletion(sweep: _Sweep) -> None:
    """Objects deleted before the class's minimum duration pay for the remaining days."""
    sc = sweep.table.classes[sweep.class_id]
    deletions, lines = sweep.deletions, sweep.lines
    if deletions is None or not sc.min_duration_days:
        return
    round_up, days = sweep.round_up, sweep.table.billing.month_days
    price = sc.storage
    first = float(price.tiers[0].price) * rules.hourly_scale(price.per_hour, days)
    remaining = np.full(lines.size, float(sc.min_duration_days) - deletions.age_days)
    if remaining[0] > 0:
        deleted = _as_array(deletions.deleted_bytes, lines.size)
        at, quote = f"classes.{sweep.class_id}.storage.tiers.0.price", price.tiers[0].quote
        units = rules.early_deletion_units(deleted, price.unit_bytes, remaining, days, round_up)
        lines.add(units * first, at, quote, units)
        if sc.min_object_bytes:
            padded = _as_array(deletions.objects, lines.size) * sc.min_object_bytes
            short = np.where(padded > deleted, padded - deleted, 0.0)
            units = rules.early_deletion_units(short, price.unit_bytes, remaining, days, round_up)
            lines.add(units * first, at, quote, units)


def _requests(sweep: _Sweep) -> None:
    """Each request class's line, its operations' counts added together; free operations bill nothing."""
    table, storage_class, lines = sweep.table, sweep.class_id, sweep.lines
    sc = table.classes[storage_class]
    owner = {op: rc for rc in sc.requests for op in rc.operations}
    counts: dict[str, Array] = {}
    for op, values in sweep.requests.items():
        if op in sc.free_operations:
            continue
        if op not in owner:
            raise PricingError(f"{table.version} {storage_class}: operation {op!r} is not priced and not free")
        counts[owner[op].id] = counts.get(owner[op].id, np.zeros(lines.size)) + _as_array(values, lines.size)
    for index, rc in enumerate(sc.requests):
        if rc.id in counts:
            units = rules.request_units(counts[rc.id], rc, table.billing.month_days, table.billing.round_up)
            lines.add(units * float(rc.price), f"classes.{storage_class}.requests.{index}.price", rc.quote, units)


def _retrieval(sweep: _Sweep) -> None:
    """The default retrieval option's fee per GB read and per 1,000 restore requests."""
    sc = sweep.table.classes[sweep.class_id]
    if sc.retrieval is None:
        return
    option = sc.retrieval.options[sc.retrieval.default]
    at = f"classes.{sweep.class_id}.retrieval.options.{sc.retrieval.default}"
    units = rules.units_of(sweep.retrieval, sc.retrieval.unit_bytes, sweep.round_up)
    sweep.lines.add(units * float(option.per_gb), f"{at}.per_gb", option.quote, units)
    if option.per_1000_requests:
        amount = rules.units_of(sweep.retrieval_requests, 1000, sweep.round_up) * float(option.per_1000_requests)
        sweep.lines.add(amount, f"{at}.per_1000_requests", option.quote)


def _restored_copies(sweep: _Sweep) -> None:
    """Each restore's copy kept the engine's default day, on the Standard tiers above the overhead."""
    table = sweep.table
    copy = table.limits.restored_copy
    if copy is not None and table.restore_required(sweep.class_id):
        copy_price = table.classes[copy.storage_class].storage
        _standard_tier_lines(
            sweep, copy.storage_class, sweep.retrieval / float(copy_price.unit_bytes) / table.billing.month_days
        )


def _egress(sweep: _Sweep) -> None:
    """Internet egress after any free allowance; the egress in its price's units stays for the policy's limit."""
    egress_rules = sweep.table.egress_for(sweep.class_id)
    egress_unit = float(egress_rules.internet.unit_bytes)
    sweep.egress_units = sweep.egress / egress_unit
    zero = np.zeros(sweep.lines.size)
    extra = rules.egress_extra_free(egress_rules, sweep.stored / egress_unit, sweep.table.billing.month_days, zero)
    own = sweep.table.classes[sweep.class_id].egress is not None
    path = f"classes.{sweep.class_id}.egress.internet" if own else "egress.internet"
    sweep.lines.tiered(sweep.egress_units, egress_rules.internet, extra, sweep.round_up, path)


def _transfer(sweep: _Sweep) -> None:
    price = sweep.table.egress.inter_region
    if price is not None:
        zero = np.zeros(sweep.lines.size)
        sweep.lines.tiered(sweep.inter / float(price.unit_bytes), price, zero, sweep.round_up, "egress.inter_region")


def _buckets(sweep: _Sweep) -> None:
    fee, size = sweep.table.buckets, sweep.lines.size
    if fee is not None and sweep.buckets > fee.included:
        amount = np.full(size, float((sweep.buckets - fee.included) * fee.price))
        sweep.lines.add(amount, "buckets.price", fee.quote, np.ones(size))


def _request_payload(sweep: _Sweep) -> None:
    """Charges per unit of request payload (S3 Express One Zone)."""
    payload = sweep.table.classes[sweep.class_id].request_payload
    if payload is not None:
        at = f"classes.{sweep.class_id}.request_payload"
        units = rules.units_of(sweep.written, payload.unit_bytes, sweep.round_up)
        sweep.lines.add(units * float(payload.upload), f"{at}.upload", payload.quote, units)
        units = rules.units_of(sweep.retrieval, payload.unit_bytes, sweep.round_up)
        sweep.lines.add(units * float(payload.retrieval), f"{at}.retrieval", payload.quote, units)


def _replication(sweep: _Sweep) -> None:
    """Storage billed again in each extra region."""
    replication, regions = sweep.table.classes[sweep.class_id].replication, sweep.replica_regions
    if replication is not None and regions:
        stored_units = sweep.stored / float(replication.unit_bytes)
        units = rules.round_units(rules.replicated_units(stored_units, regions), sweep.round_up)
        at = f"classes.{sweep.class_id}.replication.price"
        sweep.lines.add(units * float(replication.price), at, replication.quote, units)


def _base_fee(sweep: _Sweep) -> None:
    base, size = sweep.table.billing.base_fee, sweep.lines.size
    if base is not None:
        sweep.lines.add(np.full(size, float(base.price)), "billing.base_fee.price", base.quote, np.ones(size))


def _minimum_charge(sweep: _Sweep) -> None:
    """No line: ``monthly_totals`` and ``monthly_bills`` raise each point's total to the minimum."""


ON_ARRAYS: Mapping[str, Callable[[_Sweep], None] | str] = {
    "stored_bytes": _stored_bytes,
    "minimum_object_size": _minimum_object_size,
    "object_overhead": _object_overhead,
    "access_tier_overhead": "the exact engine: a class with access tiers, where the workload gives unread shares "
    "(costing.outcomes.engine_reasons); the arrays bill every byte as frequent access",
    "monitoring": _monitoring,
    "minimum_storage": _minimum_storage,
    "early_deletion": _early_deletion,
    "requests": _requests,
    "retrieval": _retrieval,
    "restored_copies": _restored_copies,
    "egress": _egress,
    "transfer": _transfer,
    "buckets": _buckets,
    "request_payload": _request_payload,
    "replication": _replication,
    "base_fee": _base_fee,
    "minimum_charge": _minimum_charge,
}
"""Each billing rule (``planner.pricing.bill_rules.BILL_RULES``, in its order) and how the arrays bill it over
many points: its array form, which ``_lines`` runs in this order (the per-object rules on objects of the one
mean size, the default retrieval option, the table's month); or which points the exact line-item engine
prices instead, and why. A workload the arrays cannot derive at all (a size histogram, a CDN in front)
goes to the exact engine whole (``costing.outcomes.engine_reasons`` gives the reason)."""


def _check_points(points: Points) -> None:
    """Refuse, naming the keyword, an unknown one, a missing ``stored_bytes``, and a quantity that is not a
    finite number of 0 or more at every point."""
    unknown = sorted(set(points) - set(Points.__annotations__))
    if unknown:
        raise InputError(f"unknown keyword (the keywords: {', '.join(Points.__annotations__)})", field=unknown[0])
    if "stored_bytes" not in points:
        raise InputError("required: the bytes stored at each point", field="stored_bytes")
    quantities: list[tuple[str, Any]] = [
        (name, points[name])  # a name of ``Points``
        for name in ("stored_bytes", "egress_bytes", "object_count", "retrieval_bytes", "retrieval_requests",
                     "inter_region_bytes", "upload_bytes")
        if points.get(name) is not None
    ]  # fmt: skip
    quantities += [(f"requests.{op}", n) for op, n in (points.get("requests") or {}).items()]
    deletions = points.get("deletions")
    if deletions is not None:
        quantities += [("deletions.deleted_bytes", deletions.deleted_bytes), ("deletions.objects", deletions.objects)]
    for name, value in quantities:
        try:
            numbers = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"{value!r} is not a number or an array of numbers", field=name) from None
        if not np.all(np.isfinite(numbers) & (numbers >= 0)):
            raise InputError("every point must be a finite number of 0 or more", field=name)


def _lines(table: PriceTable, storage_class: str, points: Points) -> tuple[_Lines, Array]:
    """Every line's amount before rounding and discount, and the egress quantity in the price's units: the
    array form of each rule of ``ON_ARRAYS``, in billing order."""
    if storage_class not in table.classes:
        raise PricingError(f"{table.version} has no storage class {storage_class!r}")
    _check_points(points)
    requests = points.get("requests") or {}
    deletions, object_count = points.get("deletions"), points.get("object_count")
    egress, retrieval = points.get("egress_bytes", 0.0), points.get("retrieval_bytes", 0.0)
    restores, inter = points.get("retrieval_requests", 0.0), points.get("inter_region_bytes", 0.0)
    written = points.get("upload_bytes", 0.0)
    inputs = [points["stored_bytes"], egress, retrieval, restores, inter, written, *requests.values()]
    if object_count is not None:
        inputs.append(object_count)
    if deletions is not None:
        inputs += [deletions.deleted_bytes, deletions.objects]
    size = int(np.broadcast(*[np.asarray(i, dtype=np.float64).reshape(-1) for i in inputs]).size)
    rate = table.exchange_rate
    lines = _Lines(size, None if rate is None else rate.usd_per_unit, None if rate is None else rate.quote)
    zero = np.zeros(size)
    sweep = _Sweep(
        table,
        storage_class,
        lines,
        stored=_as_array(points["stored_bytes"], size),
        egress=_as_array(egress, size),
        retrieval=_as_array(retrieval, size),
        retrieval_requests=_as_array(restores, size),
        inter=_as_array(inter, size),
        written=_as_array(written, size),
        count=None if object_count is None else _as_array(object_count, size),
        requests=requests,
        deletions=deletions,
        buckets=points.get("buckets", 1),
        replica_regions=points.get("replica_regions", 0),
        padding=zero,
        standard_units=zero,
        egress_units=zero,
    )
    for form in ON_ARRAYS.values():
        if not isinstance(form, str):
            form(sweep)
    return lines, sweep.egress_units


def _minimum_usd(table: PriceTable) -> float:
    """The month's minimum charge in USD (0 when the table has none)."""
    least = table.billing.minimum_charge
    if least is None:
        return 0.0
    rate = None if table.exchange_rate is None else table.exchange_rate.usd_per_unit
    return float(rules.in_usd(least.price, rate))


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
    if not isinstance(discount, Decimal) or discount.is_nan() or not Decimal(0) <= discount < 1:
        raise InputError(f"{discount!r} is not a Decimal share of 0 or more and below 1", field="discount")
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
