"""What the report says: every section built from one recommendation, before any rendering."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from planner.present.report.blocks import Block, Bullets, Heading, Paragraph, Plot, Section, Table
from planner.present.text import (
    legends,
    line_item_row,
    marked_usd,
    price_status,
    ranking_headers,
    ranking_rows,
)
from planner.present.text.ranking import horizon_price_status
from planner.present.text.tables import price_freshness
from planner.units import format_bytes, format_duration, format_rate

if TYPE_CHECKING:
    from planner.costing.bills import BillingOptions, CostProjection
    from planner.decide.recommendation import Choice, RankedOption, Recommendation
    from planner.measure.profile import Citation, Profile
    from planner.pricing.models import PriceTable
    from planner.workload import Workload


def _shown_option(result: Recommendation) -> RankedOption | None:
    """The chosen option, or the cheapest one when nothing meets the targets."""
    return next((o for o in result.ranking if o.chosen), result.ranking[0] if result.ranking else None)


def _workload_section(workload: Workload, result: Recommendation) -> Section:
    storage, traffic, targets = workload.storage, workload.traffic, workload.performance
    rows = [
        ("stored", format_bytes(storage.stored)),
        *(
            [("stored today in", ", ".join(f"{cls} {format_bytes(b)}" for cls, b in storage.placement.items()))]
            if storage.placement
            else []
        ),
        ("mean object size", format_bytes(storage.mean_object_bytes)),
        ("objects", f"{workload.object_count():,}"),
        ("growth a month", format_bytes(storage.growth_per_month)),
        ("retention", "-" if storage.retention is None else format_duration(storage.retention)),
        ("internet egress a month", format_bytes(traffic.egress)),
        ("GET requests a month", f"{workload.reads_per_month():,}"),
        ("objects written a month", f"{workload.writes_per_month():,}"),
        ("p99 TTFB target", "-" if targets.p99_ttfb is None else format_duration(targets.p99_ttfb)),
        ("read throughput target", "-" if targets.read_throughput is None else format_rate(targets.read_throughput)),
        ("write throughput target", "-" if targets.write_throughput is None else format_rate(targets.write_throughput)),
        ("client link", format_rate(workload.client.link)),
        ("providers considered", ", ".join(workload.constraints.providers)),
        ("horizon", f"{result.months} months from {result.as_of}"),
    ]
    blocks: list[Block] = []
    if workload.description:
        blocks.append(Paragraph(workload.description))
    blocks.append(Table(["", "value"], rows))
    return Section("workload", "The workload", blocks)


def _recommendation_section(result: Recommendation) -> Section:
    section = Section("recommendation", "Recommendation")
    if result.recommendation is None:
        section.blocks.append(
            Paragraph(
                "No option meets every target with evidence (recommend exits 1). Not met on evidence anywhere: "
                + ", ".join(result.failed_targets)
            )
        )
        provisional = result.provisional
        if provisional is not None:
            option = next(
                o
                for o in result.ranking
                if o.provider == provisional.provider
                and o.storage_class == provisional.storage_class
                and o.cdn == provisional.cdn
            )
            section.blocks += [
                Heading(f"Cheapest with its targets unverified: {_named(provisional)} {provisional.storage_class}"),
                Bullets(provisional.reasons + [f"unverified: {reason}" for reason in option.unverified]),
            ]
        return section
    choice = result.recommendation
    chosen = next(o for o in result.ranking if o.chosen)
    section.blocks += [
        Paragraph(
            f"Use {_named(choice)} {choice.storage_class}: {marked_usd(chosen.monthly_cost_usd, chosen.price_status)}"
            f" this month, {marked_usd(chosen.horizon_cost_usd, horizon_price_status(chosen))} over {result.months}"
            f" months (prices in force on {result.as_of})."
        ),
        Bullets(choice.reasons),
    ]
    if chosen.warnings:
        section.blocks += [Heading("Caveats"), Bullets(chosen.warnings)]
    return section


def _named(choice: Choice) -> str:
    """The provider, and the CDN in front when recommend compares CDNs."""
    return choice.label if choice.cdn else choice.provider


def _ranking_section(result: Recommendation) -> Section:
    rows = [(*row, option.cost.table_version) for row, option in zip(ranking_rows(result), result.ranking, strict=True)]
    headers = ranking_headers(result)
    sources = sorted({o.performance.source for o in result.ranking if o.performance.source != "none"})
    return Section(
        "ranking",
        "Ranking",
        [
            Paragraph(
                "Every allowed provider and storage class: options that meet every target on evidence first, "
                "then those whose targets are unverified, then rejected ones, each by cost over the horizon. "
                "Performance figures rest on: " + ("; ".join(sources) or "no profile") + "."
            ),
            Table([*headers, "prices"], rows),
            *[Paragraph(line) for line in legends()],
            *[Paragraph(f"Left out (--verified-only): {text}") for text in result.left_out],
            *([Paragraph(f"Billed: {result.billing}")] if result.billing else []),
        ],
    )


def _line_items_section(option: RankedOption | None) -> Section:
    section = Section("line-items", "Line items")
    if option is None:
        section.blocks.append(Paragraph("No option could be priced."))
        return section
    bill = option.cost
    rows: list[tuple[str, ...]] = [
        (*line_item_row(item, version=True), item.price_status.value) for item in bill.line_items
    ]
    rows.append(("total", "", "", "", "", marked_usd(bill.total_usd, price_status(bill.line_items)), "", ""))
    when = f", in force on {bill.as_of}" if bill.as_of else ""
    section.blocks += [
        Paragraph(
            f"This month's bill for {bill.provider} {bill.storage_class}: quantity x unit price = amount on every "
            f"line; prices from {bill.table_version}{when}."
        ),
        Table(["category", "item", "quantity", "unit", "unit price", "amount", "prices", "price status"], rows),
        *(Paragraph(line) for line in price_freshness(bill.line_items)),
    ]
    if bill.warnings:
        section.blocks += [Heading("Warnings"), Bullets(bill.warnings)]
    return section


def _projection_section(projection: CostProjection | None) -> Section:
    section = Section("projection", "Month by month")
    if projection is None:
        section.blocks.append(Paragraph("No projection: no option could be priced."))
        return section
    rows = [
        (
            str(m.month),
            m.as_of.isoformat(),
            format_bytes(m.stored_bytes),
            marked_usd(m.cost.total_usd, price_status(m.cost.line_items)),
            m.cost.table_version,
        )
        for m in projection.months
    ]
    every_item = [item for m in projection.months for item in m.cost.line_items]
    rows.append(("total", "", "", marked_usd(projection.total_usd, price_status(every_item)), ""))
    section.blocks += [
        Paragraph(
            f"{projection.provider} {projection.storage_class}, each month priced with the table in force that month."
        ),
        Table(["month", "priced on", "stored", "cost", "prices"], rows),
    ]
    return section


def _break_even_section(result: Recommendation) -> Section:
    section = Section("break-even", "Break-even points")
    if not result.break_even:
        section.blocks.append(Paragraph("No break-even points: there is no feasible alternative to compare with."))
        return section
    rows = []
    for point in result.break_even:
        if point.dimension == "egress":
            at = format_bytes(point.at) + " a month" if point.at != float("inf") else "never"
        else:
            at = f"{point.at:,.0f} GETs a month" if point.at != float("inf") else "never"
        ratio = "-" if point.ratio_to_stored is None else f"{point.ratio_to_stored:.2f}x"
        rows.append((point.other, point.dimension, at, ratio, point.statement))
    section.blocks += [
        Paragraph(f"Where {result.break_even[0].option} stops being the cheaper choice, solved exactly."),
        Table(["versus", "dimension", "at", "x stored", "what it means"], rows),
    ]
    return section


def _plot(name: str, caption: str, save: Callable[[Any, Path], None], model: BaseModel) -> Plot:
    """A plot of ``model`` drawn by ``save(model, path)``; the model's JSON tells equal pictures apart."""
    return Plot(name, caption, functools.partial(save, model), model.model_dump_json())


def _plots_section(
    result: Recommendation, projection: CostProjection | None, profiles: dict[str, tuple[Profile, str]]
) -> Section:
    from planner.present import plots

    section = Section("plots", "Plots")
    if not plots.matplotlib_available():
        section.blocks.append(
            Paragraph(
                "Plots left out: matplotlib is not installed here (pip install 'objstore-planner[plot]'). "
                "Every figure they would show is in the tables of this report."
            )
        )
        return section

    section.blocks.append(
        _plot(
            "recommendation",
            "This month's bill per option by category, and monthly cost against egress with the break-even points.",
            plots.save_recommendation_plot,
            result,
        )
    )
    if projection is not None:
        caption = f"{projection.provider} {projection.storage_class} month by month."
        section.blocks.append(_plot("projection", caption, plots.save_projection_plot, projection))
    option = _shown_option(result)
    if option is not None and option.provider in profiles:
        profile, label = profiles[option.provider]
        caption = f"Throughput of {option.provider} by object size and concurrency ({label})."
        section.blocks.append(_plot("profile", caption, plots.save_profile_plot, profile))
    return section


def _versions_in_horizon(provider: str, as_of: dt.date, months: int) -> list[PriceTable]:
    """The table in force on ``as_of`` and every later version that begins inside the horizon."""
    from planner.costing.bills import add_months
    from planner.pricing import catalog

    end = add_months(as_of, months)
    first = catalog.table_for(provider, as_of)
    later = [t for t in catalog.versions(provider) if as_of < t.effective_from < end]
    return [first, *later]


def _prices_section(result: Recommendation) -> Section:
    from planner.errors import PricingError

    section = Section("prices", "Prices and sources")
    section.blocks.append(
        Paragraph(
            "The shipped price table versions behind every figure above: the one in force on "
            f"{result.as_of} and any that take effect within the {result.months}-month horizon. "
            "Figures are marked verified-primary (the provider's own page), verified-secondary or unverified."
        )
    )
    rows = []
    details: list[Block] = []
    for provider in result.workload.constraints.providers:
        try:
            tables = _versions_in_horizon(provider, result.as_of, result.months)
        except PricingError as error:
            rows.append((provider, "-", "-", "-", "-", str(error)))
            continue
        for priced in tables:
            date_status = priced.effective_from_status.value if priced.effective_from_status else "not stated"
            rows.append(
                (
                    provider,
                    priced.version,
                    priced.effective_from.isoformat(),
                    date_status,
                    priced.status.value,
                    priced.region,
                )
            )
            details += [Heading(f"{priced.version} ({priced.provider_name}): sources"), Bullets(priced.sources)]
            if priced.notes:
                details.append(Bullets([f"note: {note}" for note in priced.notes]))
    overridden = sorted({o.cost.table_version for o in result.ranking if "+" in o.cost.table_version})
    if overridden:
        section.blocks.append(
            Paragraph("Price overrides layered over the shipped versions: " + ", ".join(overridden) + ".")
        )
    section.blocks.append(Table(["provider", "version", "effective from", "date status", "figures", "region"], rows))
    section.blocks += details
    return section


def _judged_profiles(result: Recommendation) -> dict[str, tuple[Profile, str]]:
    """The profile each provider was judged on (the recommender's own choice: the user's, else the shipped
    one), labelled by its file."""
    return {
        judged.provider: (
            judged.profile,
            f"measured profile {judged.path}"
            if judged.path
            else f"reference profile measure/profiles/{judged.provider}.json",
        )
        for judged in result.profiles
        if judged.profile is not None
    }


def _profiles_section(providers: Sequence[str], profiles: dict[str, tuple[Profile, str]]) -> Section:
    section = Section("profiles", "Profile sources")
    section.blocks.append(
        Paragraph(
            "The performance profiles behind every TTFB, throughput and limit figure: where each figure comes from, "
            "the published claims that were rejected or flagged (and why), and what no source covers."
        )
    )
    for provider in providers:
        if provider not in profiles:
            section.blocks += [Heading(provider), Paragraph("No profile: performance was not judged from data.")]
            continue
        profile, label = profiles[provider]
        when = f", {profile.date}" if profile.date else ""
        section.blocks += [Heading(f"{provider}: {label}"), Paragraph(f"{profile.source.kind} profile{when}.")]
        citations = [
            f"{c.ref}, {c.section}" + (f': "{c.quote}"' if c.quote else "") + _checkable(c)
            for c in profile.source.citations
        ]
        if citations:
            section.blocks.append(Bullets(citations))
        used = profile.summary().citations
        if used:
            rows = [
                (figure, c.ref + _checkable(c), c.section, c.quote or "")
                for figure, cites in sorted(used.items())
                for c in cites
            ]
            section.blocks.append(Table(["figure used", "source", "section", "quote"], rows))
        if profile.source.claims:
            section.blocks.append(
                Table(
                    ["claim", "action", "reason", "source"],
                    [
                        (claim.claim, claim.action, claim.reason, f"{claim.citation.ref}, {claim.citation.section}")
                        for claim in profile.source.claims
                    ],
                )
            )
        if profile.missing:
            section.blocks.append(Bullets([f"not covered: {item}" for item in profile.missing]))
    return section


def _checkable(citation: Citation) -> str:
    """Where a reader checks a published citation, how far it is trusted and what it was measured under."""
    if citation.kind != "published":
        return ""
    stated = [part for part in (citation.grade, citation.date) if part]
    if citation.conditions is not None and citation.conditions.text():
        stated.append(citation.conditions.text())
    return f" <{citation.address}>" + (f" ({'; '.join(stated)})" if stated else "")


def build_sections(
    workload: Workload,
    *,
    as_of: dt.date | None,
    profiles_dir: Path | None,
    simulate: bool = True,
    progress: Callable[[float], None] | None = None,
    verified_only: bool = False,
    billing: BillingOptions | None = None,
) -> tuple[str, str, list[Section]]:
    """The report's title, subtitle and sections: every figure computed here, before any rendering.
    ``verified_only`` and ``billing`` are passed to the recommender (``planner recommend``'s options)."""
    from planner.decide.recommendation import recommend

    result = recommend(
        workload,
        as_of=as_of,
        profiles_dir=profiles_dir,
        simulate=simulate,
        progress=progress,
        verified_only=verified_only,
        billing=billing,
    )
    option = _shown_option(result)
    projection = option.projection if option is not None else None
    profiles = _judged_profiles(result)
    sections = [
        _recommendation_section(result),
        _workload_section(workload, result),
        _ranking_section(result),
        _line_items_section(option),
        _projection_section(projection),
        _break_even_section(result),
        _plots_section(result, projection, profiles),
        _prices_section(result),
        _profiles_section(workload.constraints.providers, profiles),
    ]
    import planner

    subtitle = (
        f"Written by planner {planner.__version__} on {dt.date.today()}, with the prices in force on {result.as_of} "
        f"and a {result.months}-month horizon."
    )
    return f"Object storage for {workload.name}", subtitle, sections
