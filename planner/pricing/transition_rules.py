"""A provider's lifecycle rules as data: which transitions a rule may make, from what age, and which
objects are too small to move (``pricing/lifecycle_rules/<provider>.yaml``, versions by date).

A provider without a file moves nothing between classes by lifecycle: only expiry is allowed there.
"""

from __future__ import annotations

import datetime as dt
import functools
from decimal import Decimal
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from planner.errors import InputError, PricingError, validation_problem
from planner.files import load_yaml
from planner.pricing import quotes as quoting
from planner.pricing.primitives import Quote, Status


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ArchiveTier(_Model):
    """An opt-in archive access tier of a self-tiering class (S3 Intelligent-Tiering's Archive Access and Deep
    Archive Access): objects unread for the configured days move there, and a read needs a restore first."""

    storage_class: str
    option: str = Field(description="the workload's field under storage.intelligent_tiering, e.g. archive_access")
    tier: str = Field(description="the class's access tier in the price table, e.g. archive")
    name: str = Field(description="the tier as the provider names it, e.g. Archive Access")
    min_days: int = Field(gt=0, le=36500)
    max_days: int = Field(gt=0, le=36500)
    restore: dict[str, str] = Field(description='stated restore time by retrieval option, e.g. {standard: "3-5 hours"}')
    priced_restore: str = Field(description="the retrieval option a read's restore uses (its fee is the tier's)")
    restore_fee: str = Field(description="what the priced restore costs, in words with its source")
    source: str

    @model_validator(mode="after")
    def _priced_option(self) -> ArchiveTier:
        if self.priced_restore not in self.restore:
            raise ValueError(f"priced_restore {self.priced_restore!r} is not among {sorted(self.restore)}")
        if self.max_days < self.min_days:
            raise ValueError(f"max_days {self.max_days} is under min_days {self.min_days}")
        return self


class LifecycleRules(_Model):
    """One version of a provider's lifecycle rules, in force from ``effective_from``."""

    effective_from: dt.date
    status: Status
    sources: list[str] = Field(min_length=1)
    classes_by_warmth: list[str] = Field(description="the provider's classes from the most to the least read")
    transitions: dict[str, list[str]] = Field(description="the classes a rule may move objects to, by source class")
    min_age_days: dict[str, int] = Field(description="the least age (days since creation) a rule may move to a class")
    min_days_in_source: dict[str, int] = Field(
        description="days an object must spend in a class before a rule may move it on (S3 Standard-IA: 30)"
    )
    default_min_object_bytes: int = Field(ge=0, description="objects under this size do not move unless a rule says")
    min_object_bytes: dict[str, int] = Field(
        default_factory=dict, description="objects under this size never move into the class, whatever a rule says"
    )
    transition_priced_in: Literal["destination"] = Field(
        description="whose lifecycle-transition request price a transition pays"
    )
    early_deletion_on_move: bool = Field(
        default=True,
        description="whether an object a rule moves out of a class before the class's minimum duration pays the"
        " rest of it, as a deletion would (GCS: no)",
    )
    archive_tiers: list[ArchiveTier] = Field(
        default_factory=list, description="opt-in archive access tiers of a self-tiering class, colder last"
    )
    quotes: dict[str, Quote] = Field(
        default_factory=dict,
        description="the words each figure was read from, by its field (min_age_days.standard-ia,"
        " default_min_object_bytes, archive_tiers.0.min_days, ...)",
    )
    note: str | None = None

    def figures(self) -> dict[str, Decimal]:
        """Every figure of the rules by dotted field: the ages, days and sizes a quote must give."""
        found: dict[str, Decimal] = {"default_min_object_bytes": Decimal(self.default_min_object_bytes)}
        for name in ("min_age_days", "min_days_in_source", "min_object_bytes"):
            for key, value in getattr(self, name).items():
                found[f"{name}.{key}"] = Decimal(value)
        for index, tier in enumerate(self.archive_tiers):
            found[f"archive_tiers.{index}.min_days"] = Decimal(tier.min_days)
            found[f"archive_tiers.{index}.max_days"] = Decimal(tier.max_days)
        return found

    @model_validator(mode="after")
    def _known_classes(self) -> LifecycleRules:
        known = set(self.classes_by_warmth)
        named = set(self.transitions) | {c for targets in self.transitions.values() for c in targets}
        named |= set(self.min_age_days) | set(self.min_days_in_source) | set(self.min_object_bytes)
        named |= {tier.storage_class for tier in self.archive_tiers}
        unknown = sorted(named - known)
        if unknown:
            raise ValueError(f"{unknown[0]!r} is not in classes_by_warmth")
        return self

    def warmer(self, first: str, second: str) -> bool:
        """Whether ``first`` is a warmer (more read, dearer to store) class than ``second``."""
        order = self.classes_by_warmth
        return first in order and second in order and order.index(first) < order.index(second)


class ProviderLifecycle(_Model):
    provider: str
    versions: list[LifecycleRules] = Field(min_length=1)


NO_TRANSITIONS = LifecycleRules(
    effective_from=dt.date(1970, 1, 1),
    status=Status.unverified,
    sources=["no lifecycle rules file: transitions between classes are not modelled for this provider"],
    classes_by_warmth=[],
    transitions={},
    min_age_days={},
    min_days_in_source={},
    default_min_object_bytes=0,
    transition_priced_in="destination",
)


@functools.cache
def _provider_rules(provider: str) -> ProviderLifecycle | None:
    folder = resources.files("planner.pricing") / "lifecycle_rules"
    path = folder / f"{provider}.yaml"
    if not path.is_file():
        return None
    raw = load_yaml(path.read_text(encoding="utf-8"), f"lifecycle_rules/{provider}.yaml", shipped=True)
    try:
        rules = ProviderLifecycle.model_validate(raw)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise PricingError(f"lifecycle_rules/{provider}.yaml: {field}: {message}") from None
    for index, version in enumerate(rules.versions):
        try:
            source = f"lifecycle_rules/{provider}.yaml"
            quoting.check_figures(version.figures(), version.quotes, source, f"versions.{index}.")
        except InputError as error:
            raise PricingError(str(error)) from None
    return rules


def lifecycle_rules(provider: str, day: dt.date) -> LifecycleRules:
    """The lifecycle rules in force for ``provider`` on ``day`` (none: a provider that moves nothing)."""
    found = _provider_rules(provider)
    if found is None:
        return NO_TRANSITIONS
    in_force = [v for v in found.versions if v.effective_from <= day]
    if not in_force:
        return NO_TRANSITIONS
    return max(in_force, key=lambda v: v.effective_from)
