"""The second stage of ``recommend``: every allowed provider, region and storage class, priced over the
horizon (its whole ``CostProjection``), or the reason it cannot be."""

from __future__ import annotations

from dataclasses import dataclass

from planner.costing.bills import CostProjection, project_costs
from planner.costing.cdn_bills import behind
from planner.decide.recommendation.inputs import Inputs
from planner.errors import PlannerError
from planner.pricing.models import PriceTable


@dataclass(frozen=True)
class PricedOption:
    """One provider (and region) and storage class with its projection, or why it has none."""

    provider: str
    region: str | None
    storage_class: str
    table: PriceTable  # the table of its region, for its limits and policies
    projection: CostProjection | None
    unpriceable: str | None = None  # why no bill could be made
    cdn: str | None = None  # the CDN in front when recommend compares CDNs; None: the workload's own


def price_options(inputs: Inputs) -> list[PricedOption]:
    """Each allowed class of each (provider, region) table, in table order, priced month by month; behind
    each compared CDN in turn when recommend compares CDNs."""
    allowed = inputs.workload.constraints.storage_classes
    options = []
    for (provider, region), table in inputs.regional.items():
        for storage_class in table.classes:
            if allowed not in (None, []) and storage_class not in (allowed or []):
                continue
            named = storage_class in (allowed or []) or inputs.workload.constraints.asks_for(provider, storage_class)
            if not table.classes[storage_class].compared_by_default and not named:
                continue  # ranked only when asked for by name (aws-s3:express-one-zone) or with "all"
            for cdn in inputs.cdns or (None,):
                try:
                    projection = project_costs(
                        behind(inputs.workload, cdn),
                        provider,
                        storage_class,
                        months=inputs.months,
                        as_of=inputs.day,
                        prices=inputs.prices.get(provider),
                        region=region,
                        options=inputs.billing,
                    )
                except PlannerError as error:  # a class that cannot hold this workload (e.g. vanished in a version)
                    options.append(PricedOption(provider, region, storage_class, table, None, str(error), cdn))
                    continue
                options.append(PricedOption(provider, region, storage_class, table, projection, cdn=cdn))
    return options
