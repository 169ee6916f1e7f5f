"""The line-item writer, and the state of a bill being written.

``LineWriter`` turns a quantity at a price into a ``LineItem``: the table's currency at its exchange rate,
a negotiated discount, the invoice's rounding of each line, and the price the line rests on (its field in
the table and its quote's reading day, ``LineItem.price_field`` and ``price_read_on``); ``tiered`` writes a
quantity on a tier ladder after its free allowance, a line a tier. Both the provider's bill
(``planner.pricing.billing``) and the CDN's (``planner.pricing.cdn_prices.cdn_bill``) write their lines with it.

``BillContext`` is one month's bill for one storage class while the rules (``planner.pricing.bill_rules``)
write it: the inputs, the lines so far and what the bill reports beside them (warnings, policy breaches,
the units put on a Standard-rate class's tiers, the shared request allowance taken).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from planner.pricing import rules
from planner.pricing.breakdown import LineItem, PolicyBreach
from planner.pricing.models import ExchangeRate, LineRounding, PriceTable
from planner.pricing.primitives import Quote, Status, Tier, TieredPrice
from planner.pricing.storage_classes import StorageClass
from planner.pricing.usage import Usage

ZERO = Decimal(0)


def number(value: Decimal) -> str:
    """A quantity for people: thousands separators, no float noise, trailing zeros dropped."""
    text = f"{value:,.6f}".rstrip("0").rstrip(".")
    return text or "0"


def tier_range(price: TieredPrice, tier: Tier, lower: Decimal, first: bool = True) -> str:
    """Which slice of a tier ladder a line bills, for its description: ", first 51,200 GB-month" (or ", 0 to
    51,200 GB-month" where ``first`` is false)."""
    if tier.up_to is None:
        return f", over {number(lower)} {price.unit}"
    if lower == 0 and first:
        return f", first {number(tier.up_to)} {price.unit}"
    return f", {number(lower)} to {number(tier.up_to)} {price.unit}"


_STRENGTH = {Status.verified_primary: 2, Status.verified_secondary: 1, Status.unverified: 0}


def worst(a: Status, b: Status) -> Status:
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
class LineWriter:
    """Writes the line items of one price table's bill: ``line`` one line, ``tiered`` a quantity on a ladder.

    ``fallback`` are the statuses a line takes when its price states none (the class's, then the table's);
    ``rate`` converts a price in ``currency`` to US dollars; ``discount`` comes off every line with an
    amount; ``rounding`` is the invoice's rule for a line (none: to the cent, half-up); ``round_up``
    bills a metered quantity in whole units (R2); ``first_tier`` names a ladder's first slice "first N"
    (else "0 to N", as the CDN bills do)."""

    version: str
    fallback: tuple[Status | None, ...] = ()
    rounding: LineRounding | None = None
    round_up: bool = False
    rate: ExchangeRate | None = None
    currency: str = "USD"
    discount: Decimal = ZERO
    first_tier: bool = True

    def status(self, *candidates: Status | None) -> Status:
        """The first status given, else the fallback's first, else unverified."""
        for candidate in (*candidates, *self.fallback):
            if candidate is not None:
                return candidate
        return Status.unverified

    def line(
        self,
        category: str,
        description: str,
        quantity: Decimal,
        unit: str,
        unit_price: Decimal,
        status: Status | None,
        *,
        field: str | None = None,
        quote: Quote | None = None,
    ) -> LineItem:
        """A line at ``unit_price`` in the table's currency, billed in USD (at the table's rate, both shown);
        ``field`` is the price's field in the table (none: no price of the table, a free allowance) and
        ``quote`` the words it was read from."""
        status = self.status(status)
        rate = self.rate
        rated = rate is not None and bool(unit_price)
        price_field, read_on = reading(field, quote, rate.quote if rate is not None else None, rated)
        if rate is not None and unit_price:
            description = (
                f"{description} ({self.currency} {number(unit_price)} per {unit} at "
                f"{number(rate.usd_per_unit)} USD per {self.currency}, {rate.as_of})"
            )
            unit_price = rules.in_usd(unit_price, rate.usd_per_unit)
            status = worst(status, rate.status)
        exact = quantity * unit_price if unit_price and quantity else ZERO
        discount = self.discount if exact > 0 else ZERO
        if discount:
            exact = exact * (1 - discount)
            description = f"{description} (less the {number(discount * 100)}% discount)"
        return LineItem(
            category=category,
            description=description,
            quantity=quantity,
            unit=unit,
            unit_price_usd=unit_price,
            amount_usd=rules.round_amount(exact, self.rounding),
            amount_unrounded_usd=exact,
            discount=discount or None,
            table_version=self.version,
            price_status=status,
            price_field=price_field,
            price_read_on=read_on,
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
    ) -> list[LineItem]:
        """A quantity on a tiered price (at ``path`` in the table) after its free allowance (and any extra free
        units): a free-allowance line saying what it is worth (``free_label`` names it), then a line a tier."""
        round_up = self.round_up
        free = rules.free_units(quantity, price, extra_free)
        slices = [(units, tier, lower) for tier, lower, units in rules.billed_tiers(quantity, price, free, round_up)]
        slices = [(units, tier, lower) for units, tier, lower in slices if units > 0]
        items = []
        if free > 0:
            without = rules.ladder_cost(rules.round_units(quantity, round_up), price.tiers)
            usd_per_unit = None if self.rate is None else self.rate.usd_per_unit
            worth = rules.in_usd(without - sum((a * t.price for a, t, _ in slices), ZERO), usd_per_unit)
            items.append(
                self.line(
                    "free_allowance",
                    f"{label}: {free_label}; worth ${number(worth)} off this bill",
                    free,
                    price.unit,
                    ZERO,
                    price.status,
                )
            )
        single = len(price.tiers) == 1
        for amount, tier, lower in slices:
            where = "" if single else tier_range(price, tier, lower, self.first_tier)
            items.append(
                self.line(
                    category,
                    f"{label}{where}",
                    amount,
                    price.unit,
                    tier.price,
                    self.status(tier.status, price.status),
                    field=tier_field(path, price, tier),
                    quote=tier.quote,
                )
            )
        return items


def free_where(price: TieredPrice) -> str:
    """Where a provider's tiered price takes its free units, for the allowance line: the scope it covers,
    then before the tiers or out of the first."""
    scope = f" ({price.free_scope})" if price.free_scope else ""
    where = "out of the first tier" if price.free_position == "first-tier" else "before the tiers"
    return f"{scope}, {where}"


@dataclass
class BillContext:
    """A month's bill for one storage class as the rules write it: the inputs, the line writer, the lines so
    far and what the bill reports beside them."""

    table: PriceTable
    storage_class_id: str
    storage_class: StorageClass
    usage: Usage
    writer: LineWriter
    items: list[LineItem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    breaches: list[PolicyBreach] = field(default_factory=list)
    standard_rate_units: dict[str, Decimal] = field(default_factory=dict)
    """Units on a Standard-rate class's tiers this month, by class (what the usage says is elsewhere, then
    what this bill adds there)."""
    standard_rate_added_bytes: Decimal = ZERO
    allowance_taken: dict[str, int] = field(default_factory=dict)
    """Free requests this bill took from allowances the account's classes share, by request class id."""

    @classmethod
    def start(cls, table: PriceTable, storage_class_id: str, usage: Usage) -> BillContext:
        """An empty bill for ``usage`` in ``storage_class_id``, its lines written in ``table``'s currency and
        rounding, less the usage's discount at the provider."""
        storage_class = table.classes[storage_class_id]
        rate = table.exchange_rate
        writer = LineWriter(
            version=table.version,
            fallback=(storage_class.status, table.status),
            rounding=table.billing.line_rounding,
            round_up=table.billing.round_up,
            rate=rate,
            currency=table.currency,
            discount=usage.discounts.get(table.provider, ZERO),
        )
        return cls(table, storage_class_id, storage_class, usage, writer)

    def status(self, *candidates: Status | None) -> Status:
        return self.writer.status(*candidates)

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

    def on_standard_tiers(
        self, category: str, label: str, class_id: str, units: Decimal, status: Status
    ) -> list[LineItem]:
        """Lines of ``units`` of another class's storage (S3 Standard) on its tiers above what the account
        already stores there this month, a line per tier they fall in; the units stay there for the next usage.

        AWS bills the 8 KB per object of S3 Glacier Flexible Retrieval and Deep Archive "at S3 Standard
        rates" and a restored copy "at the S3 Standard storage rate" (aws.amazon.com/s3/pricing); the
        Pricing Calculator puts both on Standard's tiers ("Tiered price for: 80.00 GB") with the
        account's Standard storage, so past 50 TB of Standard they pay $0.022, not the first tier's $0.023.
        """
        price = self.table.classes[class_id].storage
        # a line rests on the rule that puts the units there (``status``) and on the other class's price
        rate_status = self.table.classes[class_id].status or self.table.status
        elsewhere = Decimal(self.usage.standard_rate_bytes_elsewhere) / Decimal(price.unit_bytes)
        start = self.standard_rate_units.get(class_id, elsewhere)
        self.standard_rate_units[class_id] = start + units
        self.standard_rate_added_bytes += units * price.unit_bytes
        slices = [(t, lower, u) for t, lower, u in rules.ladder_slices(start, units, price.tiers) if u > 0]
        name = self.table.classes[class_id].name
        above = f" (above the {number(start)} {price.unit} of {name} billed before it)" if start > 0 else ""
        items = []
        for tier, lower, amount in slices:
            alone = len(price.tiers) == 1 or (len(slices) == 1 and start == 0 and lower == 0)
            where = "" if alone else tier_range(price, tier, lower)
            items.append(
                self.writer.line(
                    category,
                    f"{label} at {name} rate{where}{above}",
                    self.round(amount),
                    price.unit,
                    tier.price,
                    worst(status, tier.status or price.status or rate_status),
                    field=tier_field(f"classes.{class_id}.storage", price, tier),
                    quote=tier.quote,
                )
            )
        return items
