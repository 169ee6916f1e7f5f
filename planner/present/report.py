"""One self-contained report of a recommendation, in HTML or Markdown, that a reviewer can check.

The report holds the choice and its reasons, the ranking, the chosen option's line items, the
month-by-month bill, the break-even points, the plots, every price table version used (with its
effective date, how well that date and the figures are sourced, and the sources) and every
profile's citations, rejected claims and missing figures. The document is built once as a list
of blocks and written out by one of two small renderers, so HTML and Markdown say the same.

HTML embeds its plots as base64 PNG and escapes every piece of text; Markdown writes its PNGs
next to the ``.md`` file (``<stem>-<plot>.png``) and links them by relative name.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import html
import tempfile
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from planner.errors import InputError, PlannerError
from planner.present.text import legends, ranking_headers, ranking_rows
from planner.units import format_bytes, format_duration, format_rate

if TYPE_CHECKING:
    from planner.costing.bills import CostProjection
    from planner.decide.recommendation import RankedOption, Recommendation
    from planner.measure.profile import Profile
    from planner.pricing.models import PriceTable
    from planner.workload import Workload

SUFFIXES = (".html", ".md")


# ----------------------------------------------------------------------------- blocks


@dataclass(frozen=True)
class _Paragraph:
    text: str


@dataclass(frozen=True)
class _Bullets:
    items: Sequence[str]


@dataclass(frozen=True)
class _Table:
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]


@dataclass(frozen=True)
class _Heading:
    text: str


@dataclass(frozen=True)
class _Plot:
    name: str
    caption: str
    draw: Callable[[Path], None]
    key: str = field(repr=False, default="")  # the plotted model's JSON: equal keys draw equal pictures


_Block = _Paragraph | _Bullets | _Table | _Heading | _Plot


@dataclass
class _Section:
    anchor: str
    title: str
    blocks: list[_Block] = field(default_factory=list)


# ----------------------------------------------------------------------------- content


def _usd(amount: Decimal) -> str:
    from planner.present.text import usd

    return usd(amount)


def _unit_price(amount: Decimal) -> str:
    from planner.present.text import unit_price

    return unit_price(amount)


def _quantity(amount: Decimal) -> str:
    from planner.present.text import quantity

    return quantity(amount)


def _shown_option(result: Recommendation) -> RankedOption | None:
    """The chosen option, or the cheapest one when nothing meets the targets."""
    return next((o for o in result.ranking if o.chosen), result.ranking[0] if result.ranking else None)


def _workload_section(workload: Workload, result: Recommendation) -> _Section:
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
    blocks: list[_Block] = []
    if workload.description:
        blocks.append(_Paragraph(workload.description))
    blocks.append(_Table(["", "value"], rows))
    return _Section("workload", "The workload", blocks)


def _recommendation_section(result: Recommendation) -> _Section:
    section = _Section("recommendation", "Recommendation")
    if result.recommendation is None:
        section.blocks.append(
            _Paragraph(
                "No option meets every target with evidence (recommend exits 1). Not met on evidence anywhere: "
                + ", ".join(result.failed_targets)
            )
        )
        provisional = result.provisional
        if provisional is not None:
            option = next(
                o
                for o in result.ranking
                if o.provider == provisional.provider and o.storage_class == provisional.storage_class
            )
            section.blocks += [
                _Heading(f"Cheapest with its targets unverified: {provisional.provider} {provisional.storage_class}"),
                _Bullets(provisional.reasons + [f"unverified: {reason}" for reason in option.unverified]),
            ]
        return section
    choice = result.recommendation
    chosen = next(o for o in result.ranking if o.chosen)
    section.blocks += [
        _Paragraph(
            f"Use {choice.provider} {choice.storage_class}: {_usd(chosen.monthly_cost_usd)} this month, "
            f"{_usd(chosen.horizon_cost_usd)} over {result.months} months (prices in force on {result.as_of})."
        ),
        _Bullets(choice.reasons),
    ]
    if chosen.warnings:
        section.blocks += [_Heading("Caveats"), _Bullets(chosen.warnings)]
    return section


def _ranking_section(result: Recommendation) -> _Section:
    rows = [(*row, option.cost.table_version) for row, option in zip(ranking_rows(result), result.ranking, strict=True)]
    headers = ranking_headers(result)
    sources = sorted({o.performance.source for o in result.ranking if o.performance.source != "none"})
    return _Section(
        "ranking",
        "Ranking",
        [
            _Paragraph(
                "Every allowed provider and storage class: options that meet every target on evidence first, "
                "then those whose targets are unverified, then rejected ones, each by cost over the horizon. "
                "Performance figures rest on: " + ("; ".join(sources) or "no profile") + "."
            ),
            _Table([*headers, "prices"], rows),
            *[_Paragraph(line) for line in legends()],
        ],
    )


def _line_items_section(option: RankedOption | None) -> _Section:
    section = _Section("line-items", "Line items")
    if option is None:
        section.blocks.append(_Paragraph("No option could be priced."))
        return section
    bill = option.cost
    rows: list[tuple[str, ...]] = [
        (
            item.category,
            item.description,
            _quantity(item.quantity),
            item.unit,
            _unit_price(item.unit_price_usd),
            _usd(item.amount_usd),
            item.table_version,
            item.price_status.value,
        )
        for item in bill.line_items
    ]
    rows.append(("total", "", "", "", "", _usd(bill.total_usd), "", ""))
    when = f", in force on {bill.as_of}" if bill.as_of else ""
    section.blocks += [
        _Paragraph(
            f"This month's bill for {bill.provider} {bill.storage_class}: quantity x unit price = amount on every "
            f"line; prices from {bill.table_version}{when}."
        ),
        _Table(["category", "item", "quantity", "unit", "unit price", "amount", "prices", "price status"], rows),
    ]
    if bill.warnings:
        section.blocks += [_Heading("Warnings"), _Bullets(bill.warnings)]
    return section


def _projection_section(projection: CostProjection | None) -> _Section:
    section = _Section("projection", "Month by month")
    if projection is None:
        section.blocks.append(_Paragraph("No projection: no option could be priced."))
        return section
    rows = [
        (
            str(m.month),
            m.as_of.isoformat(),
            format_bytes(m.stored_bytes),
            _usd(m.cost.total_usd),
            m.cost.table_version,
        )
        for m in projection.months
    ]
    rows.append(("total", "", "", _usd(projection.total_usd), ""))
    section.blocks += [
        _Paragraph(
            f"{projection.provider} {projection.storage_class}, each month priced with the table in force that month."
        ),
        _Table(["month", "priced on", "stored", "cost", "prices"], rows),
    ]
    return section


def _break_even_section(result: Recommendation) -> _Section:
    section = _Section("break-even", "Break-even points")
    if not result.break_even:
        section.blocks.append(_Paragraph("No break-even points: there is no feasible alternative to compare with."))
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
        _Paragraph(f"Where {result.break_even[0].option} stops being the cheaper choice, solved exactly."),
        _Table(["versus", "dimension", "at", "x stored", "what it means"], rows),
    ]
    return section


def _plot(name: str, caption: str, save: Callable[[Any, Path], None], model: BaseModel) -> _Plot:
    """A plot of ``model`` drawn by ``save(model, path)``; the model's JSON tells equal pictures apart."""
    return _Plot(name, caption, functools.partial(save, model), model.model_dump_json())


def _plots_section(
    result: Recommendation, projection: CostProjection | None, profiles: dict[str, tuple[Profile, str]]
) -> _Section:
    from planner.present import plots

    section = _Section("plots", "Plots")
    if not plots.matplotlib_available():
        section.blocks.append(
            _Paragraph(
                "Plots left out: matplotlib is not installed here (pip install 'planner[plot]'). "
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


def _prices_section(result: Recommendation) -> _Section:
    from planner.errors import PricingError

    section = _Section("prices", "Prices and sources")
    section.blocks.append(
        _Paragraph(
            "The shipped price table versions behind every figure above: the one in force on "
            f"{result.as_of} and any that take effect within the {result.months}-month horizon. "
            "Figures are marked verified-primary (the provider's own page), verified-secondary or unverified."
        )
    )
    rows = []
    details: list[_Block] = []
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
            details += [_Heading(f"{priced.version} ({priced.provider_name}): sources"), _Bullets(priced.sources)]
            if priced.notes:
                details.append(_Bullets([f"note: {note}" for note in priced.notes]))
    overridden = sorted({o.cost.table_version for o in result.ranking if "+" in o.cost.table_version})
    if overridden:
        section.blocks.append(
            _Paragraph("Price overrides layered over the shipped versions: " + ", ".join(overridden) + ".")
        )
    section.blocks.append(_Table(["provider", "version", "effective from", "date status", "figures", "region"], rows))
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


def _profiles_section(providers: Sequence[str], profiles: dict[str, tuple[Profile, str]]) -> _Section:
    section = _Section("profiles", "Profile sources")
    section.blocks.append(
        _Paragraph(
            "The performance profiles behind every TTFB, throughput and limit figure: where each figure comes from, "
            "the published claims that were rejected or flagged (and why), and what no source covers."
        )
    )
    for provider in providers:
        if provider not in profiles:
            section.blocks += [_Heading(provider), _Paragraph("No profile: performance was not judged from data.")]
            continue
        profile, label = profiles[provider]
        when = f", {profile.date}" if profile.date else ""
        section.blocks += [_Heading(f"{provider}: {label}"), _Paragraph(f"{profile.source.kind} profile{when}.")]
        citations = [f"{c.ref}, {c.section}" + (f': "{c.quote}"' if c.quote else "") for c in profile.source.citations]
        if citations:
            section.blocks.append(_Bullets(citations))
        used = profile.summary().citations
        if used:
            rows = [(figure, c.ref, c.section, c.quote or "") for figure, cites in sorted(used.items()) for c in cites]
            section.blocks.append(_Table(["figure used", "source", "section", "quote"], rows))
        if profile.source.claims:
            section.blocks.append(
                _Table(
                    ["claim", "action", "reason", "source"],
                    [
                        (claim.claim, claim.action, claim.reason, f"{claim.citation.ref}, {claim.citation.section}")
                        for claim in profile.source.claims
                    ],
                )
            )
        if profile.missing:
            section.blocks.append(_Bullets([f"not covered: {item}" for item in profile.missing]))
    return section


def build_sections(
    workload: Workload,
    *,
    as_of: dt.date | None,
    profiles_dir: Path | None,
    simulate: bool = True,
    progress: Callable[[float], None] | None = None,
) -> tuple[str, str, list[_Section]]:
    """The report's title, subtitle and sections: every figure computed here, before any rendering."""
    from planner.decide.recommendation import recommend

    result = recommend(workload, as_of=as_of, profiles_dir=profiles_dir, simulate=simulate, progress=progress)
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


# ----------------------------------------------------------------------------- pictures

# The last few pictures drawn, by plot and model: an HTML and a Markdown report of the same result
# (or a report written twice) draw each plot once. Drawing dominates the time a report takes.
_DRAWN: OrderedDict[tuple[str, str], bytes] = OrderedDict()
_DRAWN_KEEP = 12


def _png(block: _Plot) -> bytes:
    """The plot as PNG bytes (PlannerError if it cannot be drawn)."""
    key = (block.name, block.key)
    if block.key and key in _DRAWN:
        _DRAWN.move_to_end(key)
        return _DRAWN[key]
    with tempfile.TemporaryDirectory(prefix="planner-report-") as folder:
        picture = Path(folder) / f"{block.name}.png"
        block.draw(picture)
        data = picture.read_bytes()
    if block.key:
        _DRAWN[key] = data
        while len(_DRAWN) > _DRAWN_KEEP:
            _DRAWN.popitem(last=False)
    return data


# ----------------------------------------------------------------------------- HTML

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 75rem;
       padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ddd; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin-top: 1.4rem; }
table { border-collapse: collapse; margin: 0.6rem 0 1rem; font-size: 0.85rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } tr:nth-child(even) td { background: #fafafa; }
figure { margin: 1rem 0 2rem; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85rem; color: #555; } nav a { margin-right: 0.8rem; }
"""


def _html_block(block: _Block) -> str:
    e = html.escape
    if isinstance(block, _Paragraph):
        return f"<p>{e(block.text)}</p>"
    if isinstance(block, _Heading):
        return f"<h3>{e(block.text)}</h3>"
    if isinstance(block, _Bullets):
        return "<ul>" + "".join(f"<li>{e(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, _Table):
        head = "".join(f"<th>{e(h)}</th>" for h in block.headers)
        body = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in block.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    try:
        data = base64.b64encode(_png(block)).decode("ascii")
    except PlannerError as error:
        return f"<p>Plot {e(block.name)} left out: {e(str(error))}</p>"
    return (
        f'<figure id="plot-{e(block.name)}"><img src="data:image/png;base64,{data}" alt="{e(block.caption)}">'
        f"<figcaption>{e(block.caption)}</figcaption></figure>"
    )


def _html(title: str, sections: list[_Section], generated: str) -> str:
    e = html.escape
    nav = "".join(f'<a href="#{e(s.anchor)}">{e(s.title)}</a>' for s in sections)
    body = "".join(
        f'<section id="{e(s.anchor)}"><h2>{e(s.title)}</h2>' + "".join(_html_block(b) for b in s.blocks) + "</section>"
        for s in sections
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
        f"<h1>{e(title)}</h1>\n<p>{e(generated)}</p>\n<nav>{nav}</nav>\n{body}\n</main>\n</body>\n</html>\n"
    )


# ----------------------------------------------------------------------------- Markdown

_MARKDOWN_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\`*<>[]"})


def _md_text(text: str) -> str:
    return text.translate(_MARKDOWN_SPECIAL)


def _md_cell(text: str) -> str:
    return _md_text(text).replace("|", "\\|").replace("\n", " ") or " "


def _markdown_block(block: _Block, out: Path) -> str:
    if isinstance(block, _Paragraph):
        return _md_text(block.text)
    if isinstance(block, _Heading):
        return f"### {_md_text(block.text)}"
    if isinstance(block, _Bullets):
        return "\n".join(f"- {_md_text(item)}" for item in block.items)
    if isinstance(block, _Table):
        lines = [
            "| " + " | ".join(_md_cell(h) for h in block.headers) + " |",
            "|" + "|".join(" --- " for _ in block.headers) + "|",
        ]
        lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
        return "\n".join(lines)
    picture = out.with_name(f"{out.stem}-{block.name}.png")
    try:
        data = _png(block)
    except PlannerError as error:
        return f"Plot {block.name} left out: {_md_text(str(error))}"
    try:
        picture.write_bytes(data)
    except OSError as error:
        raise InputError(f"cannot write {picture.name} ({error.strerror or error})", source="--out") from None
    return f"![{_md_cell(block.caption)}]({urllib.parse.quote(picture.name)})\n\n{_md_text(block.caption)}"


def _markdown(title: str, sections: list[_Section], generated: str, out: Path) -> str:
    parts = [f"# {_md_text(title)}", _md_text(generated)]
    for section in sections:
        parts.append(f'<a id="{section.anchor}"></a>\n\n## {_md_text(section.title)}')
        parts += [_markdown_block(block, out) for block in section.blocks]
    return "\n\n".join(parts) + "\n"


# ----------------------------------------------------------------------------- entry point


def write_report(
    workload: Workload,
    out: Path,
    *,
    as_of: dt.date | None,
    profiles_dir: Path | None,
    simulate: bool = True,
    progress: Callable[[float], None] | None = None,
) -> Path:
    """Write the report to ``out`` (``.html`` or ``.md``, by the suffix) and return the path written.

    ``simulate`` is passed to the recommender (as ``planner recommend --no-simulate`` would).
    """
    target = Path(out)
    suffix = target.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(f"{str(target)!r} is not a report file name: use .html or .md", source="--out")
    if not target.parent.is_dir():
        raise InputError(f"no such folder {str(target.parent)!r} to write the report in", source="--out")
    title, generated, sections = build_sections(
        workload, as_of=as_of, profiles_dir=profiles_dir, simulate=simulate, progress=progress
    )
    text = _html(title, sections, generated) if suffix == ".html" else _markdown(title, sections, generated, target)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write the report ({error.strerror or error})", source="--out") from None
    return target


__all__ = ["SUFFIXES", "build_sections", "write_report"]
