"""The first stage of ``recommend``: everything it decides from, loaded and checked once.

Price overrides, price tables (each provider's and each region's the workload names), the
profiles each provider is judged on and the provider models built from them: a bad override
file, an unpriced region or an unknown storage class fails here, before any simulation runs.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from planner.costing.bills import DEFAULT_BILLING, BillingOptions, check_horizon, price_table
from planner.costing.cdn_bills import behind
from planner.decide.recommendation.models import JudgedProfile
from planner.decide.recommendation.performance import load_profiles
from planner.errors import InputError, PlannerError, PricingError
from planner.measure.profile import ProfileSummary
from planner.measure.reference import load_reference
from planner.pricing import cdn_prices
from planner.pricing.models import PriceTable
from planner.sim.model.profile_adapter import provider_model_from_profile
from planner.sim.model.provider import ProviderModel
from planner.workload import Workload


@dataclass(frozen=True)
class Inputs:
    """What a recommendation is made from: the workload, the day, the tables, profiles and models."""

    workload: Workload
    day: dt.date
    prices: dict[str, Path]  # PROVIDER -> override file
    tables: dict[str, PriceTable]  # each provider's table in its default region
    regional: dict[tuple[str, str | None], PriceTable]  # (provider, region or None) -> the table priced
    profiles: dict[str, JudgedProfile]  # a provider with no profile is absent
    summaries: dict[str, ProfileSummary]
    models: dict[str, ProviderModel]  # a provider with no model is absent: its figures are judged as assumed
    unmodelled: dict[str, str]  # provider -> why no model could be built
    billing: BillingOptions = DEFAULT_BILLING  # restored copies' days, calendar months
    cdns: tuple[str, ...] = ()  # the CDNs each option is priced behind (--cdn); none: the workload's own

    @property
    def providers(self) -> list[str]:
        return self.workload.constraints.providers

    @property
    def months(self) -> int:
        return self.workload.constraints.months


def load_inputs(
    workload: Workload,
    *,
    as_of: dt.date,
    profiles_dir: Path | None,
    prices: dict[str, Path],
    billing: BillingOptions = DEFAULT_BILLING,
    cdns: list[str] | None = None,
) -> Inputs:
    """Check the overrides, load every table, profile and provider model; refuse what cannot be priced.
    ``billing`` is how every option's months are billed (``cost --calendar``, ``--restore-days``);
    ``cdns`` the CDNs each option is priced behind, at the workload's hit ratio (one: in its CDN's place)."""
    check_horizon(as_of, workload.constraints.months)
    compared = _check_cdns(workload, cdns or [])
    if len(compared) == 1:
        workload, compared = behind(workload, compared[0]), ()
    providers = workload.constraints.providers
    for provider in prices:
        if provider not in providers:
            raise InputError(
                f"{provider!r} is not among the providers this workload considers ({', '.join(providers)})",
                source="--prices",
            )
    tables = {provider: price_table(provider, as_of, prices.get(provider)) for provider in providers}
    regional: dict[tuple[str, str | None], PriceTable] = {}
    for provider in providers:
        for region in workload.constraints.regions_for(provider):
            try:
                regional[(provider, region)] = price_table(provider, as_of, prices.get(provider), region)
            except PricingError as error:
                raise InputError(str(error), field=f"constraints.regions.{provider}") from None
    _check_classes(workload, [*tables.values(), *regional.values()])
    profiles = {
        provider: JudgedProfile(
            provider=provider,
            label=f"measured profile {path}" if path else f"reference profile {provider} (published benchmarks)",
            path=None if path is None else str(path),
            kind=profile.source.kind,
            profile=profile,
        )
        for provider, (profile, path) in load_profiles(providers, profiles_dir).items()
    }
    summaries = {provider: judged.profile.summary() for provider, judged in profiles.items() if judged.profile}
    models: dict[str, ProviderModel] = {}
    unmodelled: dict[str, str] = {}
    for provider in providers:
        try:
            judged = profiles.get(provider)
            profile = judged.profile if judged is not None and judged.profile else load_reference(provider)
            models[provider] = provider_model_from_profile(profile, tables[provider].limits)[0]
        except PlannerError as error:
            unmodelled[provider] = str(error)
    return Inputs(
        workload=workload,
        day=as_of,
        prices=prices,
        tables=tables,
        regional=regional,
        profiles=profiles,
        summaries=summaries,
        models=models,
        unmodelled=unmodelled,
        billing=billing,
        cdns=compared,
    )


def _check_cdns(workload: Workload, cdns: list[str]) -> tuple[str, ...]:
    """The CDNs to compare, each once; refused when unknown, or when the workload names no CDN (its
    delivery section gives the hit ratio and the destinations every path is priced with)."""
    known = cdn_prices.cdn_ids()
    for cdn in cdns:
        if cdn not in known:
            raise InputError(f"unknown CDN {cdn!r} (known: {', '.join(known)})", source="--cdn")
    if cdns and workload.delivery is None:
        raise InputError(
            "the workload names no CDN: give delivery.cdn with its hit ratio, e.g. delivery: {cdn: {provider:"
            " cloudfront, hit_ratio: 0.9}}",
            source="--cdn",
        )
    return tuple(dict.fromkeys(cdns))


def _check_classes(workload: Workload, tables: list[PriceTable]) -> None:
    """Every storage class the workload allows is a class of some allowed provider."""
    known = {c for table in tables for c in table.classes}
    unknown = [c for c in workload.constraints.storage_classes or [] if c not in known]
    if unknown:
        raise InputError(
            f"{unknown[0]!r} is not a storage class of any allowed provider (classes: {', '.join(sorted(known))})",
            field="constraints.storage_classes",
        )
