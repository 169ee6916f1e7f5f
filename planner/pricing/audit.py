"""Every price in force today with the words it was read from: what ``planner pricing audit`` lists.

For each provider, the table version in force today (its default region's and each region priced on
its own), each CDN's table, the routes between buckets and CDNs, and each provider's lifecycle rules:
every price (``quotes.readings``), every lifecycle figure, each route's kind, each class's redundancy
and the error responses a table bills, with its figure, unit, sourcing, quote (passage, address, day
read, derivation) and the age of that reading in days. A reading older than 12 months is stale; a
price with no quote has no age.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from pydantic import BaseModel

from planner.errors import InputError, PricingError
from planner.pricing import catalog, cdn_prices, quotes
from planner.pricing.breakdown import stale_before
from planner.pricing.models import BucketFee, ExchangeRate, LineRounding, MonthlyFee, PriceTable
from planner.pricing.primitives import Quote, Status, Tier, TieredPrice
from planner.pricing.storage_classes import Monitoring, StorageClass
from planner.pricing.transition_rules import NO_TRANSITIONS, lifecycle_rules

ROUTES = "routes"
"""The name the audit takes for the route table (beside provider and CDN ids)."""


@dataclass(frozen=True)
class AuditRow:
    """One price (or quoted fact) of a table in force, and the reading it rests on."""

    provider: str = ""
    """the provider, CDN or ``routes`` the table belongs to"""
    source: str = ""
    """the table version (``aws-s3@2025-12-01``, ``cloudfront@2025-01-01``, ``aws-s3 lifecycle rules of ...``)"""
    field: str = ""
    figure: str = ""
    """the figure as the table gives it (a price, a number of days or bytes, a route's kind)"""
    unit: str | None = None
    currency: str | None = None
    status: str = ""
    """how well the figure is sourced (verified-primary, verified-secondary, unverified)"""
    quote: Quote | None = None
    age_days: int | None = None
    stale: bool = False

    @property
    def quoted(self) -> bool:
        return self.quote is not None

    @property
    def read(self) -> dt.date | None:
        return self.quote.read if self.quote is not None else None


def _chain(root: BaseModel, field: str) -> list[object]:
    """The objects along ``field`` from ``root`` to the figure's parent."""
    found: list[object] = [root]
    current: object = root
    for part in field.split(".")[:-1]:
        if isinstance(current, BaseModel):
            current = getattr(current, part)
        elif isinstance(current, Mapping):
            current = current[part]
        elif isinstance(current, Sequence):
            current = current[int(part)]
        found.append(current)
    return found


def _unit(chain: list[object], name: str, currency: str | None) -> str | None:
    """The unit a figure at the end of ``chain`` is quoted per."""
    parent = chain[-1]
    if name == "per_1000_requests":
        return "1,000 requests"
    if isinstance(parent, Tier) and isinstance(chain[-2], TieredPrice):
        return chain[-2].unit + ("-hour" if chain[-2].per_hour and "hour" not in chain[-2].unit else "")
    if isinstance(parent, Mapping) and isinstance(chain[-2], StorageClass):  # an access tier's price
        return chain[-2].storage.unit
    per = getattr(parent, "per", None)
    if isinstance(per, int):
        return f"{per:,} {'objects' if isinstance(parent, Monitoring) else 'requests'}"
    if isinstance(parent, ExchangeRate):
        return f"USD per {currency}"
    if isinstance(parent, BucketFee):
        return "bucket-month"
    if isinstance(parent, LineRounding):
        return "line"
    if isinstance(parent, MonthlyFee | cdn_prices.Fee):
        return "month"
    for holder in reversed(chain):
        unit = getattr(holder, "unit", None)
        if isinstance(unit, str):
            return unit
    return None


def _status(chain: list[object]) -> str:
    """The sourcing of the nearest part of the table that states one."""
    for holder in reversed(chain):
        status = getattr(holder, "status", None)
        if isinstance(status, Status):
            return status.value
    return Status.unverified.value


def _row(
    provider: str,
    source: str,
    field: str,
    figure: str,
    unit: str | None,
    currency: str | None,
    status: str,
    quote: Quote | None,
    today: dt.date,
) -> AuditRow:
    age = (today - quote.read).days if quote is not None else None
    stale = quote is not None and quote.read < stale_before(today)
    return AuditRow(provider, source, field, figure, unit, currency, status, quote, age, stale)


def _number(value: Decimal) -> str:
    return format(value.normalize(), "f") if value else "0"


def _priced(provider: str, model: BaseModel, source: str, currency: str | None, today: dt.date) -> Iterator[AuditRow]:
    """Every price of ``model`` (a price, CDN or route table)."""
    for reading in quotes.readings(model):
        chain = _chain(model, reading.field)
        name = reading.field.rsplit(".", 1)[-1]
        unit = _unit(chain, name, currency)
        yield _row(
            provider,
            source,
            reading.field,
            _number(reading.figure),
            unit,
            currency,
            _status(chain),
            reading.quote,
            today,
        )


def _table_rows(table: PriceTable, today: dt.date) -> Iterator[AuditRow]:
    """A price table's prices, then its classes' redundancy and the error responses it bills."""
    yield from _priced(table.provider, table, table.version, table.currency, today)
    for class_id, storage_class in table.classes.items():
        kept = storage_class.redundancy
        if kept is not None:
            figure = f"{kept.zones} zone{'s' if kept.zones != 1 else ''}, {kept.regions} region"
            figure += "s" if kept.regions != 1 else ""
            field = f"classes.{class_id}.redundancy"
            yield _row(table.provider, table.version, field, figure, None, None, kept.status.value, kept.quote, today)
    errors = table.billing.error_responses
    if errors is not None:
        figure = "; ".join(
            f"{what}: {', '.join(codes)}"
            for what, codes in (("billed", errors.billed), ("not billed", errors.not_billed))
            if codes
        )
        field = "billing.error_responses"
        yield _row(table.provider, table.version, field, figure, None, None, errors.status.value, errors.quote, today)


def _in_force(provider: str, today: dt.date) -> list[PriceTable]:
    """The provider's table in force today, its default region's and each region's with tables of its own."""
    found = []
    for region in [None, *catalog.regions(provider)[1:]]:
        try:
            found.append(catalog.table_for(provider, today, region))
        except PricingError:
            continue  # no version of the region in force yet
    return found


def _lifecycle_rows(provider: str, today: dt.date) -> Iterator[AuditRow]:
    rules = lifecycle_rules(provider, today)
    if rules is NO_TRANSITIONS:
        return
    source = f"{provider} lifecycle rules of {rules.effective_from}"
    for field, figure in rules.figures().items():
        unit = "bytes" if "bytes" in field else "days"
        quote = rules.quotes.get(field)
        yield _row(provider, source, field, _number(figure), unit, None, rules.status.value, quote, today)


def _route_rows(today: dt.date) -> Iterator[AuditRow]:
    table = cdn_prices.routes_for(today)
    for index, route in enumerate(table.routes):
        field = f"routes.{index}.kind"
        figure = f"{route.kind} ({route.origin} -> {route.cdn})"
        yield _row(ROUTES, table.version, field, figure, None, None, route.status.value, route.quote, today)
    yield from _priced(ROUTES, table, table.version, "USD", today)


_AGE = re.compile(r"([0-9]{1,5}) ?([dmy])", re.IGNORECASE)


def _months_before(day: dt.date, months: int) -> dt.date:
    """The same day ``months`` months earlier (the month's last day where it is shorter)."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    if year < dt.MINYEAR:
        return dt.date.min
    for last in (day.day, 30, 29, 28):
        try:
            return dt.date(year, month + 1, min(day.day, last))
        except ValueError:
            continue
    raise AssertionError("every month has 28 days")


def age_days(text: str, today: dt.date | None = None) -> int:
    """An age as ``--older-than`` gives it ("30d", "6m", "12m", "1y") in days back from ``today``."""
    found = _AGE.fullmatch(text)
    if found is None:
        raise InputError(f"{text!r}: an age is a number of days, months or years (30d, 6m, 1y)", source="--older-than")
    count, unit = int(found.group(1)), found.group(2).lower()
    if unit == "d":
        return count
    day = today or dt.date.today()
    return (day - _months_before(day, count * (12 if unit == "y" else 1))).days


def known() -> list[str]:
    """What the audit takes for PROVIDER: every provider id, every CDN id, and ``routes``."""
    return [*catalog.providers(), *cdn_prices.cdn_ids(), ROUTES]


def audit(
    provider: str | None = None, older_than_days: int | None = None, today: dt.date | None = None
) -> list[AuditRow]:
    """Every price (and quoted fact) in force on ``today`` (default: today) of ``provider`` (a provider, a
    CDN or ``routes``; default: all), with its reading; with ``older_than_days``, only the readings older
    than that and the prices with no quote (their age is not known)."""
    day = today or dt.date.today()
    if older_than_days is not None and older_than_days < 0:
        raise InputError(f"{older_than_days} days: an age is 0 days or more", source="--older-than")
    names = known()
    if provider is not None and provider not in names:
        raise InputError(f"unknown provider {provider!r} (known: {', '.join(names)})", source="PROVIDER")
    rows: list[AuditRow] = []
    for name in catalog.providers():
        if provider in (None, name):
            for table in _in_force(name, day):
                rows.extend(_table_rows(table, day))
            rows.extend(_lifecycle_rows(name, day))
    for cdn in cdn_prices.cdn_ids():
        if provider in (None, cdn):
            try:
                cdn_table = cdn_prices.cdn_table_for(cdn, day)
            except PricingError:
                continue
            rows.extend(_priced(cdn, cdn_table, cdn_table.version, "USD", day))
    if provider in (None, ROUTES):
        rows.extend(_route_rows(day))
    if older_than_days is not None:
        rows = [r for r in rows if r.age_days is None or r.age_days > older_than_days]
    return rows


@dataclass(frozen=True)
class Summary:
    """What an audit's rows add up to."""

    prices: int
    quoted: int
    unquoted: int
    stale: int
    oldest: AuditRow | None


def summary(rows: Sequence[AuditRow]) -> Summary:
    quoted = [r for r in rows if r.quote is not None]
    oldest = min(quoted, key=lambda r: r.read or dt.date.max, default=None)
    return Summary(len(rows), len(quoted), len(rows) - len(quoted), sum(r.stale for r in rows), oldest)
