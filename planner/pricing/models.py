"""The price table: one provider's versioned prices in a region (``PriceTable``) and what it states
beside its storage classes: billing units and rounding, fees and minimums, exchange rate, limits
(object sizes, request rates, restores), buckets and the regions the prices hold in.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from planner.pricing.primitives import MAX_QUANTITY, OPERATIONS, PRICE, Money, Price, Quote, Status, StrictModel
from planner.pricing.storage_classes import EgressRules, StorageClass

SCHEMA_VERSION = 1


class BucketFee(StrictModel):
    included: int = Field(ge=0, le=10**9, description="buckets included per account")
    price: Price = Field(ge=0, description="USD per bucket-month beyond the included count")
    status: Status | None = None
    quote: Quote | None = Field(None, description="the words the price was read from")


class Multipart(StrictModel):
    min_part_bytes: int = Field(gt=0, le=MAX_QUANTITY)
    max_part_bytes: int = Field(gt=0, le=MAX_QUANTITY)
    max_parts: int = Field(gt=0, le=10**9)


class RequestRate(StrictModel):
    """A documented request rate past which the provider answers with an error (not billed).

    S3: 3,500 PUT/COPY/POST/DELETE and 5,500 GET/HEAD a second per partitioned prefix (503 SlowDown);
    R2: one write a second to the same key (429). The simulator and migrate read these.
    """

    operations: list[str] = Field(min_length=1, description="the operations counted together")
    scope: Literal["key", "prefix", "bucket"]
    per_s: float = Field(gt=0, le=10**9, description="requests a second per scope")
    error: str = Field(min_length=1, description="what the provider answers past it")
    note: str | None = None

    @model_validator(mode="after")
    def _known(self) -> RequestRate:
        for op in self.operations:
            if op not in OPERATIONS:
                raise ValueError(f"unknown operation {op!r} (known: {', '.join(OPERATIONS)})")
        return self


class RestoredCopy(StrictModel):
    """The temporary copy a restore makes of an archived object, billed at another class's storage price
    for the days it is kept (S3: Standard, or Reduced Redundancy where that is cheaper in the region)."""

    storage_class: str = Field(description="the class whose storage price (and tiers) the copy pays")
    status: Status
    source: str = Field(min_length=1)
    note: str | None = None


class Limits(StrictModel):
    max_object_bytes: int | None = Field(None, gt=0, le=MAX_QUANTITY)
    max_single_put_bytes: int | None = Field(None, gt=0, le=MAX_QUANTITY)
    multipart: Multipart | None = None
    request_rates: list[RequestRate] = Field(default_factory=list)
    restore_required: list[str] = Field(
        default_factory=list,
        description="storage classes whose objects must be restored before a read (S3 Glacier Flexible Retrieval"
        " and Deep Archive), in the time the class's retrieval options state (classes.<id>.retrieval.options"
        ".<tier>.time): no read of them meets a TTFB or throughput target",
    )
    restored_copy: RestoredCopy | None = Field(
        None, description="how the temporary copy a restore makes is billed (none: not priced, and the bill says so)"
    )
    status: Status | None = None
    note: str | None = None


class BillingUnits(StrictModel):
    """What the provider's "GB" and "TB" are in bytes, as its own billing examples or pages show."""

    gb_bytes: int = Field(description="bytes in the provider's billed GB (10**9 or 2**30)")
    tb_bytes: int = Field(description="bytes in the provider's billed TB (10**12 or 2**40)")
    status: Status
    sources: list[str] = Field(min_length=1, description="where the definition was read")
    note: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> BillingUnits:
        if self.gb_bytes not in (10**9, 2**30):
            raise ValueError(f"gb_bytes {self.gb_bytes} is neither 10**9 nor 2**30")
        if self.tb_bytes not in (10**12, 2**40):
            raise ValueError(f"tb_bytes {self.tb_bytes} is neither 10**12 nor 2**40")
        return self


RoundingMode = Literal["half-up", "half-even", "up", "down"]


class LineRounding(StrictModel):
    """How the provider's invoice rounds each line item's amount (AWS: to the cent)."""

    places: int = Field(2, ge=0, le=10, description="decimal places of a line item's amount on the invoice")
    mode: RoundingMode = "half-up"
    minimum_charge: Annotated[Money, Field(ge=0, le=1), PRICE] | None = Field(
        None, description="a line above zero but below this amount is billed as this amount (AWS: $0.01)"
    )
    status: Status
    source: str = Field(min_length=1)
    quote: Quote | None = Field(None, description="the words the minimum was read from")
    note: str | None = None


class MonthlyFee(StrictModel):
    """A fee each month the account holds storage (Hetzner's base price, DigitalOcean Spaces' and Akamai's
    subscription; the allowances it includes are the storage and egress prices' free units), or a minimum
    the month's charges are raised to (Storj: "$5 minimum monthly fee")."""

    price: Price = Field(ge=0, description="in the table's currency per month")
    status: Status
    source: str = Field(min_length=1)
    quote: Quote | None = Field(None, description="the words the price was read from")
    note: str | None = None


class ExchangeRate(StrictModel):
    """US dollars per unit of the table's currency, dated and cited: a non-USD table's prices are billed in
    USD at this rate (an override file gives another), each line showing both."""

    usd_per_unit: Annotated[Decimal, Field(gt=0, le=1000), PRICE]
    as_of: dt.date
    status: Status
    source: str = Field(min_length=1)
    quote: Quote | None = Field(None, description="the words the rate was read from")


class ErrorResponses(StrictModel):
    """Which error responses the provider bills as requests (AWS: "no charge for 5xx errors", and since
    August 2024 none for a 403 to a request from outside the account). A code is a status (``503``), a
    class (``5xx``) or a status with a condition (``403-outside-account``); the most specific match decides,
    and a code matched by neither list is billed like the request it answers."""

    billed: list[str] = Field(default_factory=list, description="codes billed as the request they answer")
    not_billed: list[str] = Field(default_factory=list, description="codes the provider does not bill")
    status: Status
    quote: Quote = Field(description="the words the rule was read from")
    note: str | None = None

    @field_validator("billed", "not_billed")
    @classmethod
    def _codes(cls, codes: list[str]) -> list[str]:
        for code in codes:
            if not _ERROR_CODE.match(code):
                raise ValueError(f"{code!r} is not a status code, a class like 5xx, or a code with a condition")
        return codes

    @model_validator(mode="after")
    def _once(self) -> ErrorResponses:
        both = sorted(set(self.billed) & set(self.not_billed))
        if both:
            raise ValueError(f"{both[0]} is both billed and not billed")
        return self

    def bills(self, status: int, *, outside_account: bool = False) -> bool:
        """Whether an attempt answered with ``status`` is billed (a success always is; a redirect or 304 is
        unless the provider says otherwise, as Tigris does for 301, 304 and 307)."""
        if status < 300:
            return True
        keys = [f"{status}-outside-account"] if outside_account else []
        keys += [str(status), f"{status // 100}xx"]
        for key in keys:
            if key in self.not_billed:
                return False
            if key in self.billed:
                return True
        return True


_ERROR_CODE = re.compile(r"^[345](?:[0-9]{2}|xx)(?:-[a-z][a-z-]*)?$")


class Billing(StrictModel):
    units: BillingUnits | None = Field(None, description="the provider's GB and TB in bytes, cited")
    line_rounding: LineRounding | None = Field(
        None, description="how the invoice rounds each line's amount (none stated: to the cent, half-up)"
    )
    month_days: int = Field(
        30, ge=28, le=31, description="days in a billing month for prorating and per-day allowances"
    )
    round_up: bool = Field(False, description="every metered quantity is rounded up to a whole billing unit")
    storage_period_days: int | None = Field(
        None,
        ge=1,
        le=31,
        description="the storage price is for this many days, billed by the hour or day (B2 'per TB per 30 days',"
        " Wasabi's daily rate x 30), so a calendar month of other length bills its days' share; none: per"
        " calendar month (AWS: byte-hours / hours in the month)",
    )
    base_fee: MonthlyFee | None = Field(None, description="a fixed charge each month (a subscription, a base price)")
    minimum_charge: MonthlyFee | None = Field(
        None, description="the month's charges are raised to at least this (Storj's $5 minimum)"
    )
    error_responses: ErrorResponses | None = Field(
        None, description="which error responses are billed (none stated: every attempt is billed, and bills say so)"
    )
    status: Status | None = None
    note: str | None = None


class PriceRegions(StrictModel):
    """Whether the provider charges the same in every region, cited: a table that says so prices any of them."""

    same_price_everywhere: bool
    names: list[str] = Field(
        default_factory=list, description="the regions the provider names (none listed: any name is taken)"
    )
    status: Status
    source: str = Field(min_length=1)
    note: str | None = None


class FocusNames(StrictModel):
    """The provider's names in a FOCUS export: ProviderName (who offers the service, as its own FOCUS export
    or bill names it) and ServiceName."""

    provider: str = Field(min_length=1)
    service: str = Field(min_length=1)


class MigrationService(StrictModel):
    """A destination's own service for copying data in from another provider."""

    name: str = Field(min_length=1)
    source: str = Field(min_length=1)


class Display(StrictModel):
    """How planner names and draws the provider beside its prices (none given: the table's ``provider_name``
    in FOCUS rows, a spare colour in plots)."""

    focus: FocusNames | None = None
    colour: str | None = Field(None, pattern=r"^#[0-9A-F]{6}$", description="the provider's colour in plots, #RRGGBB")
    migration_service: MigrationService | None = None


class PriceTable(StrictModel):
    """One provider's prices in force from ``effective_from`` until the next version begins.

    ``region`` is where the prices hold. A provider with prices by region has one folder of versions per
    region besides its default one (``pricing/tables/aws-s3/eu-central-1/``); the loader sets
    ``regional_folder`` on those, and their versions name the region.
    """

    schema_version: Literal[1]
    provider: str
    provider_name: str
    region: str
    effective_from: dt.date
    effective_from_status: Status | None = Field(None, description="how well the start date itself is sourced")
    currency: Literal["USD", "EUR"]
    exchange_rate: ExchangeRate | None = Field(None, description="required for a currency other than USD")
    compared_by_default: bool = Field(
        True,
        description="ranked when a workload names no providers (false: only when named, or with --providers all)",
    )
    status: Status
    sources: list[str] = Field(min_length=1)
    notes: list[str] = Field(default_factory=list)
    billing: Billing = Field(default_factory=Billing)
    egress: EgressRules
    buckets: BucketFee | None = None
    limits: Limits = Field(default_factory=Limits)
    classes: dict[str, StorageClass] = Field(min_length=1)
    regions: PriceRegions | None = Field(
        None, description="whether these prices hold in every region of the provider (none: only in `region`)"
    )
    regional_folder: str | None = Field(
        None, description="set by the loader on a table read from a region's folder: its versions name the region"
    )
    label: str | None = Field(None, description="set by an override file layered over a shipped version")
    display: Display | None = Field(
        None,
        exclude=True,
        description="how planner names and draws the provider (FOCUS names, colour): no price, so left out of the"
        " table's dump (a comparison of versions, the fields a bill reads, an override's merge)",
    )

    def egress_for(self, storage_class: str) -> EgressRules:
        """The egress rules a class bills on: its own where it has them, else the table's."""
        return self.classes[storage_class].egress or self.egress

    def restore_required(self, storage_class: str) -> bool:
        """Whether ``storage_class``'s objects must be restored before they can be read."""
        return storage_class in self.limits.restore_required

    @property
    def version(self) -> str:
        name = f"{self.provider}/{self.regional_folder}" if self.regional_folder else self.provider
        base = f"{name}@{self.effective_from.isoformat()}"
        return f"{base}+{self.label}" if self.label else base

    @model_validator(mode="after")
    def _cross_references(self) -> PriceTable:
        self._units_agree()
        if self.currency != "USD" and self.exchange_rate is None:
            raise ValueError(f"exchange_rate: required for prices in {self.currency} (USD per {self.currency}, dated)")
        if self.currency == "USD" and self.exchange_rate is not None:
            raise ValueError("exchange_rate: only for a table whose currency is not USD")
        hourly = [("egress.internet", self.egress.internet), ("egress.inter_region", self.egress.inter_region)]
        hourly += [(f"classes.{c}.egress.internet", sc.egress.internet) for c, sc in self.classes.items() if sc.egress]
        for where, price in hourly:
            if price is not None and price.per_hour:
                raise ValueError(f"{where}.per_hour: only storage is priced by the hour")
        for class_id, storage_class in self.classes.items():
            overhead = storage_class.object_overhead
            if overhead and overhead.standard_rate_class not in self.classes:
                raise ValueError(f"classes.{class_id}.object_overhead: unknown class {overhead.standard_rate_class!r}")
            for tier_id, tier_overhead in storage_class.access_tier_overhead.items():
                if tier_overhead.standard_rate_class not in self.classes:
                    where = f"classes.{class_id}.access_tier_overhead.{tier_id}"
                    raise ValueError(f"{where}: unknown class {tier_overhead.standard_rate_class!r}")
        unknown = [c for c in self.limits.restore_required if c not in self.classes]
        if unknown:
            raise ValueError(f"limits.restore_required: unknown class {unknown[0]!r}")
        copy = self.limits.restored_copy
        if copy is not None and copy.storage_class not in self.classes:
            raise ValueError(f"limits.restored_copy: unknown class {copy.storage_class!r}")
        return self

    def _units_agree(self) -> None:
        """Every GB- or TB-priced figure uses the bytes the table states for its provider's GB and TB."""
        units = self.billing.units
        if units is None:
            return
        internet = self.egress.internet
        priced: list[tuple[str, str, int]] = [("egress.internet", internet.unit, internet.unit_bytes)]
        if self.egress.inter_region is not None:
            priced.append(("egress.inter_region", self.egress.inter_region.unit, self.egress.inter_region.unit_bytes))
        for class_id, storage_class in self.classes.items():
            priced.append((f"classes.{class_id}.storage", storage_class.storage.unit, storage_class.storage.unit_bytes))
            if storage_class.egress is not None:
                own = storage_class.egress.internet
                priced.append((f"classes.{class_id}.egress.internet", own.unit, own.unit_bytes))
            if storage_class.retrieval is not None:
                retrieval = storage_class.retrieval
                priced.append((f"classes.{class_id}.retrieval", retrieval.unit, retrieval.unit_bytes))
        expected = {"GB": units.gb_bytes, "TB": units.tb_bytes}
        for where, unit, unit_bytes in priced:
            name = unit.split("-")[0].strip()
            if name in expected and unit_bytes != expected[name]:
                raise ValueError(
                    f"{where}: unit {unit!r} is {unit_bytes:,} bytes, but billing.units says a {name} is "
                    f"{expected[name]:,} bytes"
                )
