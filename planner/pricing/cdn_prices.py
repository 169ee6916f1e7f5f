"""CDN price tables, the routes between an origin bucket and a CDN, and the CDN's own bill.

A CDN in front of a bucket serves the reads; the bucket sees only the misses. What the misses cost
depends on the pair: S3 to CloudFront is free, B2 to Cloudflare, bunny.net or Fastly is free by
partnership, GCS to Cloud CDN pays cache fill, anything else leaves the bucket as internet egress.
Both the CDN's prices (``pricing/cdn/<cdn>/<effective-from>.yaml``) and the routes
(``pricing/routes/<effective-from>.yaml``) are data with sources and dates: a new partnership is a
table edit, not an ``if``.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from decimal import Decimal, localcontext
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, model_validator

from planner.errors import InputError, PricingError, validation_problem
from planner.files import load_yaml
from planner.pricing import quotes
from planner.pricing.bill_lines import ZERO, LineWriter, number
from planner.pricing.breakdown import LineItem
from planner.pricing.catalog import find_boolean
from planner.pricing.primitives import Price, Quote, Status, StrictModel, TieredPrice
from planner.units import format_bytes


class CdnRequests(StrictModel):
    """The CDN's price for the requests viewers send it (every request, hit or miss)."""

    price: Annotated[Price, Field(ge=0)] = Field(description="USD per `per` requests")
    per: int = Field(gt=0, le=10**9)
    free_per_month: int = Field(0, ge=0, le=10**15)
    status: Status
    source: str = Field(min_length=1)
    quote: Quote | None = Field(None, description="the words the price was read from")
    note: str | None = None


class Fee(StrictModel):
    """A fixed monthly charge: a plan's fee, or a minimum a month's usage is raised to."""

    name: str = Field(min_length=1)
    price: Annotated[Price, Field(ge=0)] = Field(description="USD a month")
    status: Status
    source: str = Field(min_length=1)
    quote: Quote | None = Field(None, description="the words the price was read from")


class CdnTable(StrictModel):
    """One CDN's prices for one delivery region, in force from ``effective_from``."""

    schema_version: Literal[1]
    cdn: str
    name: str
    effective_from: dt.date
    delivery_region: str = Field(description="where the viewers are whose traffic these prices bill")
    status: Status
    sources: list[str] = Field(min_length=1)
    notes: list[str] = Field(default_factory=list)
    data_out: TieredPrice = Field(description="bytes the CDN serves to viewers")
    requests: CdnRequests | None = Field(None, description="none: requests are not billed")
    plan: Fee | None = Field(None, description="the monthly plan fee the prices assume, if any")
    monthly_minimum: Fee | None = Field(None, description="a month's usage charges are raised to this")

    @property
    def version(self) -> str:
        return f"{self.cdn}@{self.effective_from.isoformat()}"


RouteKind = Literal["free", "cache-fill", "internet"]


class Route(StrictModel):
    """What the bytes a CDN fetches from an origin provider cost, and who bills them."""

    origin: str = Field(description="the storage provider id (aws-s3, backblaze-b2, ...)")
    cdn: str
    kind: RouteKind = Field(
        description="free: neither bills the fetch; cache-fill: the CDN bills it at `fill` and the bucket bills no"
        " egress; internet: the bucket bills it as internet egress (its allowances and caps count it)"
    )
    fill: TieredPrice | None = Field(None, description="the cache-fill price (cache-fill routes only)")
    status: Status
    source: str = Field(min_length=1)
    quote: Quote | None = Field(None, description="the words the route's kind was read from")
    note: str | None = None

    @model_validator(mode="after")
    def _fill_priced(self) -> Route:
        if (self.kind == "cache-fill") != (self.fill is not None):
            raise ValueError("a cache-fill route gives its fill price, and only a cache-fill route does")
        return self


class NoRegions(StrictModel):
    """A provider whose buckets are in no region of its own: nothing is read in the same region."""

    provider: str
    status: Status
    source: str = Field(min_length=1)


class RouteTable(StrictModel):
    """Every route known on a date; a pair not listed leaves the bucket as internet egress."""

    schema_version: Literal[1]
    effective_from: dt.date
    status: Status
    default_note: str = Field(min_length=1, description="why an unlisted pair is priced as internet egress")
    routes: list[Route] = Field(default_factory=list)
    no_regions: list[NoRegions] = Field(default_factory=list)

    @property
    def version(self) -> str:
        return f"routes@{self.effective_from.isoformat()}"

    @model_validator(mode="after")
    def _once(self) -> RouteTable:
        seen = set()
        for index, route in enumerate(self.routes):
            if (route.origin, route.cdn) in seen:
                raise ValueError(f"routes.{index}: {route.origin} -> {route.cdn} is given twice")
            seen.add((route.origin, route.cdn))
        return self

    def route(self, origin: str, cdn: str) -> Route | None:
        return next((r for r in self.routes if r.origin == origin and r.cdn == cdn), None)

    def without_regions(self, provider: str) -> NoRegions | None:
        return next((n for n in self.no_regions if n.provider == provider), None)


# --------------------------------------------------------------------------- loading


def _dated(folder: Traversable, prefix: str) -> list[tuple[dt.date, dict[str, Any], str]]:
    found = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".yaml"):
            continue
        source = f"{prefix}/{entry.name}"
        raw = load_yaml(entry.read_text(encoding="utf-8"), source, shipped=True)
        if not isinstance(raw, dict):
            raise InputError("a table must be a mapping of keys", source=source)
        boolean = find_boolean(raw)
        if boolean is not None:
            raise InputError("true/false is not a valid value here", source=source, field=".".join(map(str, boolean)))
        try:
            date = dt.date.fromisoformat(entry.name.removesuffix(".yaml"))
        except ValueError:
            raise InputError("file name must be the effective date, YYYY-MM-DD.yaml", source=source) from None
        if raw.get("effective_from", date) != date:
            raise InputError("effective_from differs from the file name", source=source, field="effective_from")
        found.append((date, {**raw, "effective_from": date}, source))
    return found


def _validated(model: type[CdnTable] | type[RouteTable], raw: dict[str, Any], source: str) -> Any:
    try:
        table = model.model_validate(raw)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(message, source=source, field=field or "(top level)") from None
    quotes.check(table, source)
    return table


@functools.cache
def cdn_tables() -> dict[str, tuple[CdnTable, ...]]:
    """Every shipped CDN table by CDN id, oldest first."""
    root = resources.files("planner.pricing") / "cdn"
    tables: dict[str, tuple[CdnTable, ...]] = {}
    for folder in sorted(root.iterdir(), key=lambda p: p.name):
        if not folder.is_dir():
            continue
        versions = []
        for _, raw, source in _dated(folder, f"cdn/{folder.name}"):
            table = _validated(CdnTable, raw, source)
            if table.cdn != folder.name:
                raise InputError(f"cdn {table.cdn!r} in the folder of {folder.name!r}", source=source, field="cdn")
            versions.append(table)
        tables[folder.name] = tuple(versions)
    return tables


@functools.cache
def route_tables() -> tuple[RouteTable, ...]:
    """Every shipped version of the routes, oldest first; each names only CDNs that have tables."""
    known = cdn_tables()
    found = []
    for _, raw, source in _dated(resources.files("planner.pricing") / "routes", "routes"):
        table = _validated(RouteTable, raw, source)
        for index, route in enumerate(table.routes):
            if route.cdn not in known:
                raise InputError(f"unknown CDN {route.cdn!r}", source=source, field=f"routes.{index}.cdn")
        found.append(table)
    return tuple(found)


def cdn_ids() -> list[str]:
    return sorted(cdn_tables())


def _in_force(versions: tuple[Any, ...], day: dt.date, what: str) -> Any:
    in_force = [t for t in versions if t.effective_from <= day]
    if not in_force:
        first = versions[0].effective_from if versions else None
        raise PricingError(f"no {what} in force on {day}" + (f" (the earliest begins {first})" if first else ""))
    return in_force[-1]


def cdn_table_for(cdn: str, as_of: dt.date | None = None) -> CdnTable:
    """The CDN's table in force on ``as_of`` (today when omitted)."""
    tables = cdn_tables()
    if cdn not in tables:
        raise PricingError(f"unknown CDN {cdn!r} (known: {', '.join(sorted(tables))})")
    table: CdnTable = _in_force(tables[cdn], as_of or dt.date.today(), f"{cdn} price table")
    return table


def routes_for(as_of: dt.date | None = None) -> RouteTable:
    table: RouteTable = _in_force(route_tables(), as_of or dt.date.today(), "route table")
    return table


def route_between(origin: str, cdn: str, as_of: dt.date | None = None) -> tuple[Route, str]:
    """The route from ``origin`` to ``cdn`` and the version of the table that states it; a pair not
    listed is the origin's internet egress, cited as the table's default."""
    table = routes_for(as_of)
    listed = table.route(origin, cdn)
    if listed is not None:
        return listed, table.version
    return Route(origin=origin, cdn=cdn, kind="internet", status=table.status, source=table.default_note), table.version


# --------------------------------------------------------------------------- the CDN's bill


@dataclass(frozen=True)
class CdnUsage:
    """A month through the CDN: what it serves, the requests viewers send, what it fetches from the origin."""

    served_bytes: int
    requests: int
    fill_bytes: int


def cdn_bill(table: CdnTable, route: Route, route_version: str, usage: CdnUsage, origin_name: str) -> list[LineItem]:
    """The CDN's own lines for a month: data out on its tiers after its allowance, requests, the origin
    fetches by the route's rule, the plan fee, and the shortfall below a monthly minimum."""
    with localcontext() as context:
        context.prec = 60
        lines = LineWriter(table.version, fallback=(table.status,), first_tier=False)
        items: list[LineItem] = []
        price = table.data_out
        served = Decimal(usage.served_bytes) / Decimal(price.unit_bytes)
        allowance = f"free allowance ({number(price.free_per_month)} {price.unit} a month)"
        if served:
            label = f"{table.name} data out ({table.delivery_region})"
            items += lines.tiered("egress", label, price, served, path="data_out", free_label=allowance)
        requests = table.requests
        if requests is not None and usage.requests:
            count = Decimal(usage.requests)
            free = min(count, Decimal(requests.free_per_month))
            unit = f"{requests.per:,} requests"
            if free:
                items.append(
                    lines.line(
                        "free_allowance",
                        f"{table.name} requests: free allowance ({requests.free_per_month:,} a month)",
                        free / requests.per,
                        unit,
                        ZERO,
                        requests.status,
                    )
                )
            if count > free:
                items.append(
                    lines.line(
                        "requests",
                        f"{table.name} requests",
                        (count - free) / requests.per,
                        unit,
                        requests.price,
                        requests.status,
                        field="requests.price",
                        quote=requests.quote,
                    )
                )
        usage_total = sum((i.amount_usd for i in items), ZERO)
        items.extend(_origin_fetch(route, route_version, usage, origin_name, table.name))
        if table.plan is not None:
            plan = table.plan
            items.append(
                lines.line(
                    "other",
                    f"{table.name} {plan.name}",
                    Decimal(1),
                    "month",
                    plan.price,
                    plan.status,
                    field="plan.price",
                    quote=plan.quote,
                )
            )
        minimum = table.monthly_minimum
        if minimum is not None and usage_total < minimum.price:
            items.append(
                lines.line(
                    "minimum",
                    f"{table.name} {minimum.name} of ${number(minimum.price)}: the shortfall",
                    Decimal(1),
                    "month",
                    minimum.price - usage_total,
                    minimum.status,
                    field="monthly_minimum.price",
                    quote=minimum.quote,
                )
            )
        return items


def _origin_fetch(route: Route, version: str, usage: CdnUsage, origin_name: str, cdn_name: str) -> list[LineItem]:
    """The misses' way from the bucket to the CDN: a free line, a cache-fill charge, or nothing here (an
    internet route is the bucket's egress, on the bucket's own lines)."""
    if not usage.fill_bytes or route.kind == "internet":
        return []
    lines = LineWriter(version, fallback=(route.status,), first_tier=False)
    items: list[LineItem] = []
    label = f"origin fetches {origin_name} -> {cdn_name}"
    path = _route_field(route, version)
    if route.kind == "free":
        items.append(
            lines.line(
                "transfer",
                f"{label}: {format_bytes(usage.fill_bytes)}, free ({route.status.value}, {version})",
                Decimal(usage.fill_bytes) / Decimal(10**9),
                "GB",
                ZERO,
                route.status,
                field=path,
                quote=route.quote,
            )
        )
    else:
        assert route.fill is not None
        fill = route.fill
        items += lines.tiered(
            "transfer",
            f"{cdn_name} cache fill from {origin_name}",
            fill,
            Decimal(usage.fill_bytes) / Decimal(fill.unit_bytes),
            path=f"{path}.fill",
        )
    return items


def _route_field(route: Route, version: str) -> str:
    """Where ``route`` is in the route table ``version``: ``routes.3``; a route of no shipped table is named
    by its pair."""
    for table in route_tables():
        if table.version == version:
            for index, listed in enumerate(table.routes):
                if listed is route or listed == route:
                    return f"routes.{index}"
    return f"routes[{route.origin} -> {route.cdn}]"
