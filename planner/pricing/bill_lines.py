"""A bill being written: its state, and the helpers that turn a quantity at a price into line items.

``_BillLines`` holds one month's bill for one storage class while the parts of the bill (storage,
requests, retrieval and egress, account charges: ``bill_storage``, ``bill_requests``,
``bill_retrieval``, ``bill_account``) add their lines through ``add``, ``tiered`` and
``on_standard_tiers``: the table's currency at its exchange rate, negotiated discounts, tier
ladders, free allowances and the invoice's rounding of each line. Each line names the price it rests on
(its field in the table and the quote's reading day, ``LineItem.price_field`` and ``price_read_on``): a
part passes ``field`` and ``quote`` to ``add``, and ``tiered`` finds each tier's from the ladder's ``path``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from planner.pricing import rules
from planner.pricing.breakdown import LineItem, PolicyBreach
from planner.pricing.models import PriceTable
from planner.pricing.primitives import Quote, Status, Tier, TieredPrice
from planner.pricing.storage_classes import StorageClass
from planner.pricing.usage import Usage

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


def tier_field(path: str, price: TieredPrice, tier: Tier) -> str:
    """The field of ``tier``'s price in a ladder at ``path``: ``classes.standard.storage.tiers.0.price``."""
    index = next(i for i, t in enumerate(price.tiers) if t is tier)
    return f"{path}.tiers.{index}.price"


def reading(
    field: str | None, quote: Quote | None, rate_quote: Quote | None = None, rated: bool = False
) -> tuple[str | None, dt.date | None]:
    """A line's price field and reading day; a price converted at the table's exchange rate rests on both
    figures: the field names both, the day is the older reading (none when either has no quote)."""
    if field is None:
        return None, None
    read = quote.read if quote is not None else None
    if not rated:
        return field, read
    both = None if read is None or rate_quote is None else min(read, rate_quote.read)
    return f"{field} + exchange_rate.usd_per_unit", both


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
class _BillLines:
    """A month's bill for one storage class as it is written: the inputs, the lines so far and what the
    bill reports beside them."""

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

    @property
    def class_path(self) -> str:
        """Where the class's prices are in the table: ``classes.<id>``."""
        return f"classes.{self.storage_class_id}"

    @property
    def first_tier_field(self) -> str:
        """The field of the class's first storage tier, the price minimums and overheads bill at."""
        return f"{self.class_path}.storage.tiers.0.price"

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
        *,
        field: str | None = None,
        quote: Quote | None = None,
    ) -> None:
        """A line at ``unit_price`` in the table's currency, billed in USD (at the table's rate, both shown);
        ``field`` is the price's field in the table (none: no price of the table, a free allowance) and
        ``quote`` the words it was read from."""
        rate = self.table.exchange_rate
        rated = rate is not None and bool(unit_price)
        price_field, read_on = reading(field, quote, rate.quote if rate is not None else None, rated)
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
                price_field=price_field,
                price_read_on=read_on,
            )
        )

    def tiered(
        self,
        category: str,
        label: str,
        price: TieredPrice,
        quantity: Decimal,
        *,
        path: str,
        extra_free: Decimal = ZERO,
        free_label: str = "free allowance",
    ) -> None:
        """Bill a quantity on a tiered price (at ``path`` in the table), after its free allowance (and any
        extra free units).

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
                category,
                f"{label}{where}",
                amount,
                price.unit,
                tier.price,
                self.status(tier.status, price.status),
                field=tier_field(path, price, tier),
                quote=tier.quote,
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
                field=tier_field(f"classes.{class_id}.storage", price, tier),
                quote=tier.quote,
            )
