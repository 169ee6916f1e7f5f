"""The cost engine: a month of usage and a price table in, billed line items out.

One set of rules serves every provider; the tables carry the parameters. Arithmetic is
``Decimal`` at 60 digits, so a quantity such as bytes / 2**40 is exact and nothing is rounded
until a provider's own rule rounds it (R2 rounds every metered unit up to a whole unit).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal, localcontext

from planner.errors import PricingError
from planner.pricing import catalog, rules
from planner.pricing.models import (
    CostBreakdown,
    LineItem,
    PolicyBreach,
    PriceTable,
    SizeBin,
    Status,
    StorageClass,
    Tier,
    TieredPrice,
    Usage,
)
from planner.units import format_bytes

ZERO = Decimal(0)


def _number(value: Decimal) -> str:
    """A quantity for people: thousands separators, no float noise, trailing zeros dropped."""
    text = f"{value:,.6f}".rstrip("0").rstrip(".")
    return text or "0"


def _tier_range(price: TieredPrice, tier: Tier, lower: Decimal) -> str:
    """Which slice of a tier ladder a line bills, for its description: ", first 51,200 GB-month"."""
    if tier.up_to is None:
        return f", over {_number(lower)} {price.unit}"
    if lower == 0:
        return f", first {_number(tier.up_to)} {price.unit}"
    return f", {_number(lower)} to {_number(tier.up_to)} {price.unit}"


_STRENGTH = {Status.verified_primary: 2, Status.verified_secondary: 1, Status.unverified: 0}


def _worst(a: Status, b: Status) -> Status:
    """The weaker of two sourcings: a price converted at an unverified rate is unverified."""
    return a if _STRENGTH[a] <= _STRENGTH[b] else b


_DEFAULT_ROUNDING = "to the cent, half-up (the provider states no rule; assumed)"


def round_line(amount: Decimal, table: PriceTable) -> Decimal:
    """A line's amount as the provider's invoice rounds it (to the cent, half-up, when the table states no rule)."""
    return rules.round_amount(amount, table.billing.line_rounding)


def rounding_statement(table: PriceTable) -> str:
    rule = table.billing.line_rounding
    if rule is None:
        return _DEFAULT_ROUNDING
    floor = f"; a line under ${rule.minimum_charge} is billed as ${rule.minimum_charge}" if rule.minimum_charge else ""
    return f"each line to {rule.places} decimal places, {rule.mode}{floor} ({rule.status}: {rule.source})"


@dataclass
class _Bill:
    table: PriceTable
    storage_class_id: str
    storage_class: StorageClass
    usage: Usage
    items: list[LineItem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    breaches: list[PolicyBreach] = field(default_factory=list)
    standard_rate_units: dict[str, Decimal] = field(default_factory=dict)
    """Units on a Standard-rate class's tiers this month, by class (what the usage says is elsewhere, then
    what this bill adds there)."""
    standard_rate_added_bytes: Decimal = ZERO
    allowance_taken: dict[str, int] = field(default_factory=dict)
    """Free requests this bill took from allowances the account's classes share, by request class id."""

    # ------------------------------------------------------------------ helpers

    def status(self, *candidates: Status | None) -> Status:
        for candidate in (*candidates, self.storage_class.status, self.table.status):
            if candidate is not None:
                return candidate
        return Status.unverified

    def round(self, quantity: Decimal) -> Decimal:
        return rules.round_units(quantity, self.table.billing.round_up)

    @property
    def usd_per_unit(self) -> Decimal | None:
        """US dollars per unit of the table's currency (None: the table is in USD)."""
        rate = self.table.exchange_rate
        return None if rate is None else rate.usd_per_unit

    @property
    def hours(self) -> int:
        """Hours the month bills on an hourly price (744 in a 31-day calendar month, 720 in a 30-day one)."""
        return rules.hours_in_month(self.month_days)

    @property
    def storage_scale(self) -> Decimal:
        """Storage priced per a number of days (B2, Wasabi: 30) billed over a calendar month of other
        length: the month's days over the price's; 1 for a price per calendar month (AWS) or a 30-day month."""
        period = self.table.billing.storage_period_days
        hourly = rules.hourly_scale(self.storage_class.storage.per_hour, self.month_days)
        if self.usage.month_days is None or period is None:
            return Decimal(hourly)
        return Decimal(self.usage.month_days) / Decimal(period) * hourly

    @property
    def period_note(self) -> str:
        """What the storage line says when a calendar month bills more or fewer days than the price's."""
        period = self.table.billing.storage_period_days
        if self.storage_class.storage.per_hour:
            return f" ({self.hours} hours of a {self.month_days}-day month)"
        if self.storage_scale == 1 or period is None:
            return ""
        return f" ({self.usage.month_days} days of a price per {period} days)"

    @property
    def month_days(self) -> int:
        """Days in the month billed: the calendar month's when the usage gives them, else the table's."""
        return self.usage.month_days or self.table.billing.month_days

    def add(
        self,
        category: str,
        description: str,
        quantity: Decimal,
        unit: str,
        unit_price: Decimal,
        status: Status,
    ) -> None:
        """A line at ``unit_price`` in the table's currency, billed in USD (at the table's rate, both shown)."""
        rate = self.table.exchange_rate
        if rate is not None and unit_price:
            description = (
                f"{description} ({self.table.currency} {_number(unit_price)} per {unit} at "
                f"{_number(rate.usd_per_unit)} USD per {self.table.currency}, {rate.as_of})"
            )
            unit_price = rules.in_usd(unit_price, rate.usd_per_unit)
            status = _worst(status, rate.status)
        exact = quantity * unit_price if unit_price and quantity else ZERO
        discount = self.usage.discounts.get(self.table.provider, ZERO) if exact > 0 else ZERO
        if discount:
            exact = exact * (1 - discount)
            description = f"{description} (less the {_number(discount * 100)}% discount)"
        self.items.append(
            LineItem(
                category=category,
                description=description,
                quantity=quantity,
                unit=unit,
                unit_price_usd=unit_price,
                amount_usd=round_line(exact, self.table),
                amount_unrounded_usd=exact,
                discount=discount or None,
                table_version=self.table.version,
                price_status=status,
            )
        )

    def tiered(
        self,
        category: str,
        label: str,
        price: TieredPrice,
        quantity: Decimal,
        *,
        extra_free: Decimal = ZERO,
        free_label: str = "free allowance",
    ) -> None:
        """Bill a quantity on a tiered price, after its free allowance (and any extra free units).

        Where the free units sit follows the table: before the tiers (the tier bounds count only the
        units beyond the allowance) or inside the first tier (the bounds count every unit).
        """
        status = self.status(price.status)
        round_up = self.table.billing.round_up
        free = rules.free_units(quantity, price, extra_free)
        slices = [(units, tier, lower) for tier, lower, units in rules.billed_tiers(quantity, price, free, round_up)]
        slices = [(units, tier, lower) for units, tier, lower in slices if units > 0]
        if free > 0:
            scope = f" ({price.free_scope})" if price.free_scope else ""
            without = rules.ladder_cost(self.round(quantity), price.tiers)
            worth = rules.in_usd(without - sum((a * t.price for a, t, _ in slices), ZERO), self.usd_per_unit)
            where = "out of the first tier" if price.free_position == "first-tier" else "before the tiers"
            self.add(
                "free_allowance",
                f"{label}: {free_label}{scope}, {where}; worth ${_number(worth)} off this bill",
                free,
                price.unit,
                ZERO,
                status,
            )
        single = len(price.tiers) == 1
        for amount, tier, lower in slices:
            where = "" if single else _tier_range(price, tier, lower)
            self.add(
                category, f"{label}{where}", amount, price.unit, tier.price, self.status(tier.status, price.status)
            )

    def on_standard_tiers(self, category: str, label: str, class_id: str, units: Decimal, status: Status) -> None:
        """Bill ``units`` of another class's storage (S3 Standard) on its tiers above what the account already
        stores there this month, a line per tier they fall in, and keep them there for the next usage.

        AWS bills the 8 KB per object of S3 Glacier Flexible Retrieval and Deep Archive "at S3 Standard
        rates" and a restored copy "at the S3 Standard storage rate" (aws.amazon.com/s3/pricing); the
        Pricing Calculator puts both on Standard's tiers ("Tiered price for: 80.00 GB") with the
        account's Standard storage, so past 50 TB of Standard they pay $0.022, not the first tier's $0.023.
        """
        price = self.table.classes[class_id].storage
        elsewhere = Decimal(self.usage.standard_rate_bytes_elsewhere) / Decimal(price.unit_bytes)
        start = self.standard_rate_units.get(class_id, elsewhere)
        self.standard_rate_units[class_id] = start + units
        self.standard_rate_added_bytes += units * price.unit_bytes
        slices = [(t, lower, u) for t, lower, u in rules.ladder_slices(start, units, price.tiers) if u > 0]
        name = self.table.classes[class_id].name
        above = f" (above the {_number(start)} {price.unit} of {name} billed before it)" if start > 0 else ""
        for tier, lower, amount in slices:
            alone = len(price.tiers) == 1 or (len(slices) == 1 and start == 0 and lower == 0)
            where = "" if alone else _tier_range(price, tier, lower)
            self.add(
                category,
                f"{label} at {name} rate{where}{above}",
                self.round(amount),
                price.unit,
                tier.price,
                self.status(status, tier.status),
            )

    # ------------------------------------------------------------------ parts of the bill

    def object_bins(self) -> list[SizeBin] | None:
        """The stored objects as a size histogram, or None when the usage gives no count."""
        usage = self.usage
        if usage.object_sizes is not None:
            return list(usage.object_sizes)
        if usage.object_count:
            mean = usage.stored_bytes // usage.object_count
            return [SizeBin(bytes=mean, count=usage.object_count)]
        return None

    def access_shares(self) -> dict[str, Decimal]:
        """Shares of the monitored bytes in each extra access tier: as given, or placed from how long data goes unread.

        An object moves into a tier after ``access_tier_after_days`` without a read, so a tier holds the
        data unread for at least its days but not for the next tier's. The unread share for N days is
        the workload's figure for the shortest period of at least N days it gives (0 when none): a lower
        bound on the data that has moved, never an overstatement of the saving.
        """
        usage, sc = self.usage, self.storage_class
        if usage.access_tier_shares or not usage.unread_shares or not sc.access_tier_after_days:
            return dict(usage.access_tier_shares)

        def unread(days: int) -> Decimal:
            longer = [d for d in usage.unread_shares if d >= days]
            return usage.unread_shares[min(longer)] if longer else ZERO

        ordered = sorted(sc.access_tier_after_days.items(), key=lambda item: item[1])
        shares: dict[str, Decimal] = {}
        for index, (tier_id, days) in enumerate(ordered):
            colder = unread(ordered[index + 1][1]) if index + 1 < len(ordered) else ZERO
            share = unread(days) - colder
            if share > 0:
                shares[tier_id] = share
        return shares

    def storage(self) -> None:
        """Storage and what is billed with it, line by line in this order: the stored bytes (by access
        tier where the class has tiers), the minimum billable object size, per-object overhead,
        monitoring and the minimum billable storage."""
        sc, usage = self.storage_class, self.usage
        bins = self.object_bins()
        needs_objects = sc.min_object_bytes or sc.object_overhead or sc.monitoring
        if needs_objects and bins is None and usage.stored_bytes:
            self.warnings.append(
                f"{sc.name}: no object count given, so per-object charges (minimum object size, "
                "overhead, monitoring) are left out"
            )
        self._stored_bytes(bins)
        padding = ZERO
        if bins is not None:
            padding = self._minimum_object_size(bins)
            self._object_overhead(bins)
            self._monitoring(bins)
        self._minimum_storage(Decimal(usage.stored_bytes) + padding)

    def _stored_bytes(self, bins: list[SizeBin] | None) -> None:
        """The stored bytes; in a class with extra access tiers (Intelligent-Tiering), each tier's share
        of the monitored objects' bytes at its price and the rest as frequent access."""
        sc, usage = self.storage_class, self.usage
        price = sc.storage
        unit_bytes = Decimal(price.unit_bytes)
        stored = Decimal(usage.stored_bytes)
        tier_bytes: dict[str, Decimal] = {}
        if sc.access_tiers:
            eligible = stored
            if sc.monitoring and bins is not None:
                eligible = Decimal(sum(b.bytes * b.count for b in bins if b.bytes >= sc.monitoring.min_object_bytes))
            for tier_id, share in self.access_shares().items():
                if tier_id not in sc.access_tiers:
                    raise PricingError(
                        f"{self.table.version} {self.storage_class_id}: no access tier {tier_id!r} "
                        f"(tiers: {', '.join(sc.access_tiers)})"
                    )
                tier_bytes[tier_id] = eligible * share
        elif usage.access_tier_shares:
            raise PricingError(f"{self.table.version} {self.storage_class_id} has no access tiers")
        frequent = stored - sum(tier_bytes.values(), ZERO)
        label = f"{sc.name} storage" + (" (frequent access)" if sc.access_tiers else "")
        hourly_free = (price.free_per_hour or ZERO) * self.hours
        self.tiered(
            "storage",
            label + self.period_note,
            price,
            frequent / unit_bytes * self.storage_scale,
            extra_free=hourly_free,
        )
        for tier_id, tier_b in tier_bytes.items():
            if tier_b > 0:
                self.add(
                    "storage",
                    f"{sc.name} storage ({tier_id} access)",
                    self.round(tier_b / unit_bytes * self.storage_scale),
                    price.unit,
                    sc.access_tiers[tier_id],
                    self.status(price.status),
                )

    def _minimum_object_size(self, bins: list[SizeBin]) -> Decimal:
        """Objects under the class's minimum billable size billed as that size; the bytes it adds."""
        sc = self.storage_class
        price = sc.storage
        if not sc.min_object_bytes:
            return ZERO
        small = [b for b in bins if b.bytes < sc.min_object_bytes and b.count]
        padding = sum(
            (rules.padding_bytes(Decimal(b.bytes), Decimal(b.count), sc.min_object_bytes) for b in bins), ZERO
        )
        if padding > 0:
            count = sum(b.count for b in small)
            self.add(
                "minimum",
                f"minimum billable object size: {count:,} objects under {sc.min_object_bytes:,} bytes "
                "billed as that size",
                rules.units_of(padding * self.storage_scale, price.unit_bytes, self.table.billing.round_up),
                price.unit,
                price.tiers[0].price,
                self.status(price.status),
            )
        return padding

    def _object_overhead(self, bins: list[SizeBin]) -> None:
        """Glacier's per-object overhead: bytes at the class's own rate and bytes at a standard rate."""
        sc = self.storage_class
        overhead = sc.object_overhead
        objects = sum(b.count for b in bins)
        if overhead is None or not objects:
            return
        price = sc.storage
        status = self.status(overhead.status)
        self.add(
            "storage",
            f"per-object overhead: {objects:,} objects x {overhead.class_rate_bytes:,} bytes at {sc.name} rate",
            self.round(Decimal(objects * overhead.class_rate_bytes) / Decimal(price.unit_bytes) * self.storage_scale),
            price.unit,
            price.tiers[0].price,
            status,
        )
        standard = self.table.classes[overhead.standard_rate_class].storage
        self.on_standard_tiers(
            "storage",
            f"per-object overhead: {objects:,} objects x {overhead.standard_rate_bytes:,} bytes",
            overhead.standard_rate_class,
            Decimal(objects * overhead.standard_rate_bytes) / Decimal(standard.unit_bytes) * self.storage_scale,
            status,
        )

    def _monitoring(self, bins: list[SizeBin]) -> None:
        """Intelligent-Tiering's monitoring and automation charge, per object large enough to monitor."""
        monitoring = self.storage_class.monitoring
        if monitoring is None:
            return
        least = monitoring.min_object_bytes
        monitored = sum((rules.monitored_objects(Decimal(b.bytes), Decimal(b.count), least) for b in bins), ZERO)
        if monitored:
            self.add(
                "storage",
                f"monitoring and automation: {monitored:,} objects of at least {least:,} bytes",
                rules.units_of(monitored, monitoring.per, self.table.billing.round_up),
                f"{monitoring.per:,} objects",
                monitoring.price,
                self.status(monitoring.status),
            )

    def _minimum_storage(self, billed_bytes: Decimal) -> None:
        """The shortfall below the class's minimum billable storage (Wasabi's and IDrive e2's 1 TB)."""
        sc = self.storage_class
        price = sc.storage
        if not sc.minimum_billable_bytes:
            return
        shortfall = rules.shortfall_bytes(billed_bytes, sc.minimum_billable_bytes)
        if shortfall > 0:
            self.add(
                "minimum",
                f"minimum billable storage of {_number(sc.minimum_billable_bytes / Decimal(price.unit_bytes))} "
                f"{price.unit}: the shortfall",
                rules.units_of(shortfall * self.storage_scale, price.unit_bytes, self.table.billing.round_up),
                price.unit,
                price.tiers[0].price,
                self.status(price.status),
            )

    def early_deletion(self) -> None:
        """Objects deleted before the class's minimum duration pay for the remaining days.

        In a class with a minimum billable object size, a smaller object's remaining days are billed
        on the padded size, as its storage is: AWS meters that part separately (usage types
        EarlyDelete-SIA-SmObjects, EarlyDelete-ZIA-SmObjects, EarlyDelete-GIR-SmObjects: "prorated
        storage usage for small objects (smaller than 128 KB) ... deleted before the minimum").
        A deletion gives bytes and an object count; the objects are taken as all of the mean size.
        """
        sc = self.storage_class
        if not sc.min_duration_days:
            return
        month_days = Decimal(self.month_days)
        price = sc.storage
        hourly = rules.hourly_scale(price.per_hour, self.month_days)  # an hourly price bills the month's hours
        for deletion in self.usage.deletions:
            age = Decimal(str(deletion.age_days))
            remaining = Decimal(sc.min_duration_days) - age
            days = self.month_days
            round_up = self.table.billing.round_up
            if remaining <= 0 or deletion.bytes == 0:
                continue
            when = (
                f"deleted at {_number(age)} days, before the {sc.min_duration_days}-day minimum; "
                f"{_number(remaining)} remaining days over a {month_days}-day month"
            )
            status = self.status(price.status)
            self.add(
                "early_deletion",
                f"{sc.name}: {when}",
                rules.early_deletion_units(Decimal(deletion.bytes), price.unit_bytes, remaining, days, round_up)
                * hourly,
                price.unit,
                price.tiers[0].price,
                status,
            )
            padded = deletion.objects * sc.min_object_bytes
            if sc.min_object_bytes and padded > deletion.bytes:
                self.add(
                    "early_deletion",
                    f"{sc.name}: small objects padded to {sc.min_object_bytes:,} bytes, {when} "
                    f"({deletion.objects:,} objects averaging {_number(Decimal(deletion.bytes) / deletion.objects)} "
                    "bytes)",
                    rules.early_deletion_units(
                        Decimal(padded - deletion.bytes), price.unit_bytes, remaining, days, round_up
                    )
                    * hourly,
                    price.unit,
                    price.tiers[0].price,
                    status,
                )

    def requests(self) -> None:
        sc = self.storage_class
        by_class: dict[str, int] = {}
        free_ops: dict[str, int] = {}
        owner = {op: rc.id for rc in sc.requests for op in rc.operations}
        for op, count in self.usage.requests.items():
            if count == 0:
                continue
            if op in sc.free_operations:
                free_ops[op] = free_ops.get(op, 0) + count
            elif op in owner:
                by_class[owner[op]] = by_class.get(owner[op], 0) + count
            else:
                raise PricingError(
                    f"{self.table.version} {self.storage_class_id}: operation {op!r} is not priced and not free"
                )
        for op, count in free_ops.items():
            self.add("requests", f"{op} requests: free", Decimal(count), "requests", ZERO, self.status())
        month_days = self.month_days
        for rc in sc.requests:
            count = by_class.get(rc.id, 0)
            if not count:
                continue
            status = self.status(rc.status)
            unit = f"{rc.per:,} requests"
            used = self.usage.request_allowance_used.get(rc.id, 0) if rc.free_shared else 0
            free = min(count, rules.request_allowance(rc, month_days, used))
            if rc.free_shared and free:
                self.allowance_taken[rc.id] = free
            if free:
                how = f"{rc.free_per_day:,} a day" if rc.free_per_day else f"{rc.free_per_month:,} a month"
                if used:
                    how += f", {used:,} of them taken by the account's other classes"
                self.add(
                    "free_allowance",
                    f"{rc.id} requests: free allowance ({how})",
                    Decimal(free) / rc.per,
                    unit,
                    ZERO,
                    status,
                )
            billable = rules.request_units(Decimal(count), rc, month_days, self.table.billing.round_up, used)
            if billable > 0:
                ops = ", ".join(op for op in rc.operations if self.usage.requests.get(op))
                self.add("requests", f"{rc.id} requests ({ops})", billable, unit, rc.price, status)

    def retrieval(self) -> None:
        sc, usage = self.storage_class, self.usage
        if sc.retrieval is None or not (usage.retrieval_bytes or usage.retrieval_requests):
            return
        name = usage.retrieval_option or sc.retrieval.default
        if name not in sc.retrieval.options:
            raise PricingError(
                f"{self.table.version} {self.storage_class_id}: no retrieval option {name!r} "
                f"(options: {', '.join(sc.retrieval.options)})"
            )
        option = sc.retrieval.options[name]
        status = self.status(option.status)
        if usage.retrieval_bytes:
            quantity = rules.units_of(
                Decimal(usage.retrieval_bytes), sc.retrieval.unit_bytes, self.table.billing.round_up
            )
            self.add(
                "retrieval", f"{sc.name} data retrieval ({name})", quantity, sc.retrieval.unit, option.per_gb, status
            )
        if usage.retrieval_requests and option.per_1000_requests:
            self.add(
                "retrieval",
                f"{sc.name} retrieval requests ({name})",
                rules.units_of(Decimal(usage.retrieval_requests), 1000, self.table.billing.round_up),
                "1,000 requests",
                option.per_1000_requests,
                status,
            )

    def restored_copies(self) -> None:
        """The temporary copy each restore of an archived object makes, billed at the table's restored-copy
        class's storage price (S3 Standard) for the days it is kept, over the month: the bytes restored are
        the bytes read from the class (``retrieval_bytes``), each copy kept ``restored_copy_days``."""
        usage, table = self.usage, self.table
        if not table.restore_required(self.storage_class_id) or not usage.retrieval_bytes:
            return
        rule = table.limits.restored_copy
        if rule is None:
            self.warnings.append(
                f"{self.storage_class.name}: the temporary copy each restore makes is not priced ({table.version}"
                " states no price for it)"
            )
            return
        days = usage.restored_copy_days
        if not days:
            return
        price = table.classes[rule.storage_class].storage
        units = Decimal(usage.retrieval_bytes) / Decimal(price.unit_bytes) * days / Decimal(self.month_days)
        self.on_standard_tiers(
            "storage",
            f"restored copies: {format_bytes(usage.retrieval_bytes)} kept {_number(days)} day"
            f"{'' if days == 1 else 's'} of a {self.month_days}-day month",
            rule.storage_class,
            units,
            rule.status,
        )

    def egress(self) -> None:
        egress_rules, usage = self.table.egress_for(self.storage_class_id), self.usage
        price = egress_rules.internet
        unit_bytes = Decimal(price.unit_bytes)
        quantity = Decimal(usage.egress_bytes) / unit_bytes
        stored_units = Decimal(usage.stored_bytes) / unit_bytes
        multiple = egress_rules.fair_use_multiple_of_storage
        if multiple is not None and rules.exceeds_multiple(quantity, multiple, stored_units):
            statement = (
                f"{self.table.provider_name}: egress of {format_bytes(usage.egress_bytes)} exceeds "
                f"{_number(multiple)}x the stored {format_bytes(usage.stored_bytes)}; "
                "the free-egress policy allows no more, and sustained excess may be limited or suspended"
            )
            self.breaches.append(
                PolicyBreach(
                    policy="free-egress",
                    used_bytes=usage.egress_bytes,
                    limit_bytes=int(multiple * usage.stored_bytes),
                    limit_multiple_of_storage=multiple,
                    stored_bytes=usage.stored_bytes,
                    statement=statement,
                )
            )
            self.warnings.append(statement)
        if quantity == 0:
            return
        used_elsewhere = min(Decimal(usage.egress_allowance_used_bytes) / unit_bytes, price.free_per_month)
        extra = rules.egress_extra_free(egress_rules, stored_units, self.month_days, used_elsewhere)
        labels = []
        if egress_rules.free_multiple_of_storage:
            labels.append(f"{_number(egress_rules.free_multiple_of_storage)}x average stored")
        if egress_rules.free_per_day:
            labels.append(f"{_number(egress_rules.free_per_day)} {price.unit} a day")
        if price.free_per_month:
            labels.append(f"{_number(price.free_per_month)} {price.unit} a month")
        self.tiered(
            "egress",
            "internet egress",
            price,
            quantity,
            extra_free=extra,
            free_label="free allowance" + (f" ({', '.join(labels)})" if labels else ""),
        )

    def transfer(self) -> None:
        usage, egress_rules = self.usage, self.table.egress
        if not usage.inter_region_bytes:
            return
        if egress_rules.inter_region is None:
            self.warnings.append(f"{self.table.provider_name} publishes no inter-region transfer price; none charged")
            return
        price = egress_rules.inter_region
        self.tiered(
            "transfer", "inter-region transfer", price, Decimal(usage.inter_region_bytes) / Decimal(price.unit_bytes)
        )

    def request_payload(self) -> None:
        """Charges per unit of the bytes requests carry (S3 Express One Zone's upload and retrieval per GB)."""
        payload, usage = self.storage_class.request_payload, self.usage
        if payload is None:
            return
        status = self.status(payload.status)
        round_up = self.table.billing.round_up
        for what, count, price in (
            ("upload", usage.upload_bytes, payload.upload),
            ("retrieval", usage.retrieval_bytes, payload.retrieval),
        ):
            if count:
                units = rules.units_of(Decimal(count), payload.unit_bytes, round_up)
                self.add(
                    "requests",
                    f"{self.storage_class.name} {what} per {payload.unit} of request payload",
                    units,
                    payload.unit,
                    price,
                    status,
                )

    def replication(self) -> None:
        """The class's storage billed again in each region it is replicated to beyond the first."""
        replication, usage = self.storage_class.replication, self.usage
        if replication is None or not usage.replica_regions or not usage.stored_bytes:
            return
        stored_units = Decimal(usage.stored_bytes) / Decimal(replication.unit_bytes)
        self.add(
            "storage",
            f"{self.storage_class.name} replication to {usage.replica_regions} more region"
            f"{'' if usage.replica_regions == 1 else 's'}",
            self.round(rules.replicated_units(stored_units, usage.replica_regions)),
            replication.unit,
            replication.price,
            self.status(replication.status),
        )

    def base_fee(self) -> None:
        """A fixed charge each month (a subscription or base price; what it includes is the prices' free units)."""
        fee = self.table.billing.base_fee
        if fee is not None:
            self.add("other", "monthly base fee", Decimal(1), "month", fee.price, self.status(fee.status))

    def minimum_charge(self) -> None:
        """Raise the month's charges to the table's minimum (Storj: "$5 minimum monthly fee")."""
        least = self.table.billing.minimum_charge
        if least is not None:
            self.items[:] = with_minimum_charge(self.table, self.items, self.status(least.status))

    def buckets(self) -> None:
        fee = self.table.buckets
        if fee is None or self.usage.buckets <= fee.included:
            return
        self.add(
            "other",
            f"buckets beyond the {fee.included:,} included",
            Decimal(self.usage.buckets - fee.included),
            "bucket-month",
            fee.price,
            self.status(fee.status),
        )


_MINIMUM_CHARGE = "minimum monthly charge of"


def is_minimum_charge(item: LineItem) -> bool:
    """Whether ``item`` is the shortfall line of a minimum monthly charge (not a minimum object size's)."""
    return item.category == "minimum" and item.description.startswith(_MINIMUM_CHARGE)


def with_minimum_charge(table: PriceTable, items: list[LineItem], status: Status) -> list[LineItem]:
    """``items`` with a line of the shortfall that raises them to ``table``'s minimum monthly charge, on the
    rounded lines as the invoice adds them (and on the unrounded ones for the sweep); ``items`` unchanged when
    they reach it. A bill of several classes (a placement) calls it once on all their lines: the minimum is
    the account's, not each class's (Storj: "applies to all active storage accounts")."""
    least = table.billing.minimum_charge
    if least is None:
        return items
    rate = table.exchange_rate
    minimum_usd = rules.in_usd(least.price, None if rate is None else rate.usd_per_unit)
    charged = sum((item.amount_usd for item in items), ZERO)
    shortfall = rules.minimum_shortfall(charged, minimum_usd)
    if shortfall <= 0:
        return items
    unrounded = sum(
        (i.amount_unrounded_usd if i.amount_unrounded_usd is not None else i.amount_usd for i in items), ZERO
    )
    if rate is not None:
        status = _worst(status, rate.status)
    return [
        *items,
        LineItem(
            category="minimum",
            description=f"{_MINIMUM_CHARGE} ${_number(minimum_usd)}: the shortfall",
            quantity=Decimal(1),
            unit="month",
            unit_price_usd=shortfall,
            amount_usd=round_line(shortfall, table),
            amount_unrounded_usd=rules.minimum_shortfall(unrounded, minimum_usd),
            table_version=table.version,
            price_status=status,
        ),
    ]


def bill(table: PriceTable, storage_class: str, usage: Usage, *, as_of: dt.date | None = None) -> CostBreakdown:
    """Price one month of ``usage`` in ``storage_class`` with ``table``."""
    if storage_class not in table.classes:
        raise PricingError(
            f"{table.version} has no storage class {storage_class!r} (classes: {', '.join(table.classes)})"
        )
    with localcontext() as context:
        context.prec = 60
        work = _Bill(table, storage_class, table.classes[storage_class], usage)
        work.storage()
        work.early_deletion()
        work.requests()
        work.retrieval()
        work.restored_copies()
        work.egress()
        work.transfer()
        work.buckets()
        work.request_payload()
        work.replication()
        work.base_fee()
        work.minimum_charge()
        total = sum((item.amount_usd for item in work.items), round_line(ZERO, table))
    return CostBreakdown(
        provider=table.provider,
        storage_class=storage_class,
        table_version=table.version,
        as_of=as_of,
        region=table.region,
        line_items=work.items,
        total_usd=total,
        rounding=rounding_statement(table),
        warnings=work.warnings,
        policy_breaches=work.breaches,
        standard_rate_bytes=round(work.standard_rate_added_bytes),
        request_allowance_taken=work.allowance_taken,
    )


def estimate(
    provider: str,
    storage_class: str,
    usage: Usage,
    *,
    as_of: dt.date | None = None,
    table: PriceTable | None = None,
    region: str | None = None,
) -> CostBreakdown:
    """Price ``usage`` with the shipped table in force on ``as_of`` in ``region`` (default: the provider's
    default region), or with a given table (e.g. an override)."""
    day = as_of or dt.date.today()
    chosen = table if table is not None else catalog.table_for(provider, day, region)
    return bill(chosen, storage_class, usage, as_of=day)
