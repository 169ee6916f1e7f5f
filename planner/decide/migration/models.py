"""The records of a migration: what the user asks (``MigrationOptions``), what planner answers
(``MigrationPlan``, its ``TimelineMonth`` rows, one ``StrategyOutcome`` per strategy) and the names
they share."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from planner.errors import InputError
from planner.evidence import Evidence
from planner.pricing import catalog
from planner.pricing.breakdown import LineItem
from planner.pricing.primitives import Money

ZERO = Decimal(0)
MAX_COPY_HOURS = 10 * 365 * 24
"""A copy longer than ten years (the longest horizon) is not a plan: it is refused, naming its bound."""
MAX_VERIFY_DAYS = 3_650
"""the longest both copies are kept while the copy is verified: 10 years"""
Strategy = Literal["bulk", "copy-on-read", "age-out", "hybrid"]
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
PREFERENCE: tuple[Strategy, ...] = ("age-out", "hybrid", "copy-on-read", "bulk")
"""On equal cost, the strategy that copies less."""
CopyHost = Literal["on-premises", "source-region", "destination-service"]
COPY_HOSTS: tuple[CopyHost, ...] = get_args(CopyHost)
Check = Literal["list", "head", "none"]
CHECKS: tuple[Check, ...] = get_args(Check)
LIST_PAGE_KEYS = 1000
"""Keys per LIST page (ListObjectsV2 returns at most 1,000 keys a request)."""


def destination_services() -> dict[str, str]:
    """Destinations with their own migration service, by provider: as their price tables name it
    (``display.migration_service``; Cloudflare R2's Super Slurper and Sippy)."""
    found = {}
    for provider in catalog.providers():
        shown = catalog.display(provider)
        if shown is not None and shown.migration_service is not None:
            found[provider] = shown.migration_service.name
    return found


def usd_text(amount: Decimal) -> str:
    """Dollars and cents for the plan's sentences."""
    return f"${amount:,.2f}"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class Endpoint(_Model):
    provider: str
    storage_class: str = "standard"

    @classmethod
    def parse(cls, text: str, option: str) -> Endpoint:
        provider, _, storage_class = text.partition(":")
        if not provider or text.endswith(":"):
            raise InputError(f"{text!r}: use PROVIDER[:CLASS], e.g. aws-s3:standard", source=option)
        return cls(provider=provider, storage_class=storage_class or "standard")

    def __str__(self) -> str:
        return f"{self.provider}:{self.storage_class}"


class EndpointFields(TypedDict):
    """An ``Endpoint`` as its fields (``{"provider": "aws-s3", "storage_class": "glacier-ir"}``), as
    ``MigrationOptions`` takes one."""

    provider: str
    storage_class: NotRequired[str]


class MigrationOptions(_Model):
    source: Endpoint
    destination: Endpoint
    strategy: Strategy | None = Field(
        default=None, description="force one strategy; default: the cheapest within the horizon"
    )
    copy_host: CopyHost = Field(
        default="on-premises",
        description="where the copy runs: a host outside both clouds, a VM in the source's region, "
        "or the destination's own migration service",
    )
    check: Check = Field(
        default="list",
        description="how the copy tool checks the destination: one listing (1,000 keys a page), "
        "a HEAD per object, or not at all",
    )
    never_read_share: float = Field(default=0.0, ge=0, le=1, description="copy-on-read: share of objects never read")
    sweep_after_days: float | None = Field(
        default=None, ge=0, description="copy-on-read: bulk-copy what is still at the source after this many days"
    )
    age_out_within_days: float | None = Field(
        default=None, gt=0, description="hybrid: data expiring within this many days ages out (default: the horizon)"
    )
    start: dt.date | None = None
    months: int | None = Field(
        default=None, ge=1, le=120, description="horizon for the timeline (default: the workload's)"
    )
    link_bits_per_s: float | None = Field(
        default=None, gt=0, description="copy link (default: the workload's client link)"
    )
    concurrency: int | None = Field(
        default=None, ge=1, description="copy streams (default: the workload's client concurrency)"
    )
    egress_waiver: bool = Field(
        default=False, description="the source waives egress for leaving customers (AWS does on request)"
    )
    data_age_days: float | None = Field(
        default=None,
        ge=0,
        le=36_500,
        description="age of all stored data at the move (up to 100 years); default: uniform over the retention",
    )
    verify_days: float = Field(
        default=7.0,
        ge=0,
        le=MAX_VERIFY_DAYS,
        description="days both copies are kept while the copy is verified (up to 10 years)",
    )
    retrieval_option: str | None = Field(default=None, description="archive retrieval speed at the source (e.g. bulk)")
    source_prices: Path | None = None
    destination_prices: Path | None = None

    @model_validator(mode="after")
    def _used_by_the_strategy(self) -> MigrationOptions:
        """A forced strategy that leaves an option unused refuses it (it would be ignored without a word)."""
        if self.strategy is None:
            return self
        given = {
            "never_read_share": self.never_read_share != 0,
            "sweep_after_days": self.sweep_after_days is not None,
            "age_out_within_days": self.age_out_within_days is not None,
        }
        for field, on in given.items():
            used_by = _USED_BY[field]
            if on and self.strategy != used_by:
                raise ValueError(f"{field}: applies to the {used_by} strategy only, not to {self.strategy}")
        return self

    if TYPE_CHECKING:  # the constructor as a user's type checker sees it: an endpoint may be given as its fields

        def __init__(
            self,
            *,
            source: Endpoint | EndpointFields,
            destination: Endpoint | EndpointFields,
            strategy: Strategy | None = None,
            copy_host: CopyHost = "on-premises",
            check: Check = "list",
            never_read_share: float = 0.0,
            sweep_after_days: float | None = None,
            age_out_within_days: float | None = None,
            start: dt.date | None = None,
            months: int | None = None,
            link_bits_per_s: float | None = None,
            concurrency: int | None = None,
            egress_waiver: bool = False,
            data_age_days: float | None = None,
            verify_days: float = 7.0,
            retrieval_option: str | None = None,
            source_prices: Path | None = None,
            destination_prices: Path | None = None,
        ) -> None: ...


_USED_BY: dict[str, Strategy] = {
    "never_read_share": "copy-on-read",
    "sweep_after_days": "copy-on-read",
    "age_out_within_days": "hybrid",
}
"""the one strategy each of these options shapes"""


class DurationBound(_Model):
    name: str
    hours: float
    detail: str
    evidence: Evidence | None = Field(
        default=None,
        description="how the rate behind it is backed (planner.evidence); None for the link the user states",
    )


class TimelineMonth(_Model):
    month: int
    as_of: dt.date
    stay_usd: Money = Field(description="the source's bill had the workload stayed")
    source_usd: Money = Field(description="the source's bill while moving, one-time charges included")
    destination_usd: Money = Field(description="the destination's bill while moving, one-time charges included")
    move_usd: Money = Field(description="source_usd + destination_usd")
    one_time_usd: Money = Field(description="the part of move_usd the migration itself adds (its line items)")
    cumulative_stay_usd: Money
    cumulative_move_usd: Money
    source_bytes: int = Field(description="bytes billed at the source, average over the month")
    destination_bytes: int = Field(description="bytes billed at the destination, average over the month")
    copied_bytes: int = Field(description="bytes copied from the source this month")
    at_source_share: float = Field(description="share of the stored bytes whose only copy is at the source, month end")
    moved_share: float = Field(description="share of the stored bytes not (only) at the source by the end of the month")
    completed_day: float | None = Field(
        default=None, description="day from the start on which the source stopped holding the only copy of any data"
    )
    stay_price_status: str = Field(
        default="verified-primary",
        description="the sourcing of the weakest price stay_usd rests on (see the line items)",
    )
    source_price_status: str = Field(default="verified-primary", description="the same for source_usd")
    destination_price_status: str = Field(default="verified-primary", description="the same for destination_usd")


class StrategyOutcome(_Model):
    """One strategy's totals within the horizon, read from its timeline, or why it does not apply."""

    strategy: Strategy
    applicable: bool
    reason: str = ""
    total_move_usd: Money | None = None
    one_time_cost_usd: Money | None = None
    duration_days: float | None = None
    duration_evidence: Evidence | None = Field(
        default=None,
        description="the evidence of the copy bound that sets the duration; None where the workload's own "
        "figures (retention, reads) or the user's link set it",
    )
    payback_month: int | None = None
    move_price_status: str = Field(
        default="verified-primary",
        description="the weakest sourcing of the prices total_move_usd rests on (both sides' bills)",
    )
    one_time_price_status: str = Field(
        default="verified-primary", description="the weakest sourcing of the prices of its one-time line items"
    )


class MigrationPlan(_Model):
    workload: str
    source: str
    destination: str
    strategy: Strategy
    chosen_because: str
    start: dt.date
    stored_bytes: int
    objects: int
    copy_host: CopyHost
    one_time_cost_usd: Money = Field(description="sum of the timeline's one_time_usd")
    one_time: list[LineItem]
    duration_hours: float = Field(
        description="from the timeline: when the source holds no data only it has; inf if not within the horizon"
    )
    bottleneck: str
    duration_evidence: Evidence | None = Field(default=None, description="as StrategyOutcome.duration_evidence")
    bounds: list[DurationBound]
    monthly_before_usd: Money = Field(description="the timeline's first month of staying")
    monthly_after_usd: Money = Field(description="the timeline's last month of moving")
    payback_month: int | None = Field(description="first month whose cumulative cost of moving is at most staying's")
    timeline: list[TimelineMonth]
    compared: list[StrategyOutcome]
    left_behind_share: float = Field(
        default=0.0, description="share of the stored bytes still only at the source at the horizon"
    )
    assumptions: list[str] = Field(default_factory=list)
    horizon_months: int = Field(description="months the timeline covers")
    saving_usd: Money = Field(
        description="cumulative cost of staying less that of moving at the horizon; negative if moving costs more"
    )
