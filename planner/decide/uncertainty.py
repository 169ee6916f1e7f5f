"""Answers under uncertainty: inputs given as ranges, sampled, and every option priced per sample.

The ranges are part of the workload (``planner.workload.uncertain``: ``Uncertain``, ``Correlation``,
``find``, ``draw``; ``at`` sets fields of a workload; all still importable from here).

Every other command reads such a field at its central value (the likely one, the midpoint, the
median) and says so; ``sample`` draws ``n`` seeded outcomes and prices every allowed option in each
(as arrays, ``planner.costing.outcomes``: to the cent what the line-item engine bills): for each option
the probability of being the cheapest that breaks no policy, of breaking none, its monthly bill's
p10 / p50 / p90, and the expected regret of choosing it (what it costs above the cheapest,
averaged over the outcomes).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from planner.cluster import run_chunks
from planner.costing.bills import add_months, price_table
from planner.costing.cdn_bills import delivered_bill
from planner.errors import InputError
from planner.evidence import weakest_price
from planner.pricing.models import PriceTable

# The file format of ranges moved to the workload layer; these names stay importable from here.
from planner.workload import Correlation as Correlation
from planner.workload import Uncertain as Uncertain
from planner.workload import Workload, format_field_value
from planner.workload import at as at
from planner.workload import draw as draw
from planner.workload import find as find

if TYPE_CHECKING:  # numpy (and the array pricing) only when outcomes are drawn: the renderers stay light
    import numpy as np

    from planner.costing.outcomes import PricedOutcomes

MAX_SAMPLE_BILLS = 2_000_000
"""Outcomes x options one run may price as arrays, a month at a time (about a second a month)."""
MAX_ENGINE_BILLS = 200_000
"""Outcomes x options x months one run may price with the line-item engine (about a minute)."""
CHUNK_SAMPLES = 2_000
"""Outcomes priced together in one chunk of work on a Dask worker."""
LOCAL_CHUNK_SAMPLES = 20_000
"""Outcomes priced together here (arrays pay numpy's per-call cost once a chunk)."""
ENGINE_CHUNK_SAMPLES = 100
"""Outcomes a chunk holds when some option is priced by the engine (progress moves a chunk at a time)."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class OptionOutcome(_Model):
    option: str
    p_cheapest: float = Field(description="share of outcomes where it is the cheapest option that breaks no policy")
    p_feasible: float = Field(description="share of outcomes where its bill breaks no provider policy")
    p10_usd: float
    p50_usd: float
    p90_usd: float
    horizon_p10_usd: float = Field(description="its bill over the horizon (constraints.months), 10th percentile")
    horizon_p50_usd: float
    horizon_p90_usd: float
    expected_regret_usd: float = Field(
        description="mean of (its bill - the cheapest bill that breaks no policy) a month, over the outcomes where"
        " it breaks none (infinite when it always does)"
    )
    price_status: str = Field(
        "verified-primary",
        description="the weakest sourcing of the prices its bills rest on (verified-primary, verified-secondary,"
        " unverified), from its bills with every input at its low end, centre and high end in the first and last month",
    )


class Swing(_Model):
    """One input's effect on the favourite's bill over the horizon: that bill at the input's p10 and
    p90, the others central (a growth rate moves no first month, but every later one)."""

    field: str
    at_p10_usd: float = Field(description="the favourite's bill over the horizon with this input at its p10")
    at_p90_usd: float = Field(description="the favourite's bill over the horizon with this input at its p90")
    first_order_index: float | None = Field(
        None,
        description="the share of the variance of the favourite's horizon bill this input explains alone,"
        " Var(E[bill | input]) / Var(bill), estimated from the outcomes by binning them on the input (about"
        " +-1/sqrt(samples)); None when the bill does not vary",
    )


class UncertainAnswer(_Model):
    samples: int
    seed: int
    as_of: dt.date
    months: int = Field(description="the horizon the horizon percentiles sum, month by month with the tables then")
    inputs: list[Uncertain]
    correlations: list[Correlation] = Field(default_factory=list, description="inputs drawn together")
    options: list[OptionOutcome] = Field(description="by probability of being the cheapest, highest first")
    statement: str = Field(description="how robust the favourite is, in words")
    tornado: list[Swing] = Field(
        description="the inputs by how far they move the favourite's bill over the horizon, widest first"
    )
    central_usd: float | None = Field(
        None,
        description="the favourite's bill over the horizon (months) with every input at its central value"
        " (the tornado's axis)",
    )
    by_engine: dict[str, str] = Field(
        default_factory=dict,
        description="options priced outcome by outcome with the line-item engine, not as arrays, and why",
    )
    rejected: dict[str, str] = Field(
        default_factory=dict,
        description="options the ranking rejects on grounds no bill decides (a performance target, a restore"
        " time), with why: priced in every outcome, never counted the cheapest",
    )


def sample(
    workload: Workload,
    inputs: list[Uncertain],
    n: int,
    *,
    seed: int = 0,
    as_of: dt.date | None = None,
    progress: Callable[[float], None] | None = None,
    engine_only: bool = False,
    scheduler: str | None = None,
    chunk_samples: int | None = None,
    correlations: list[Correlation] | None = None,
    rejected: dict[str, str] | None = None,
) -> UncertainAnswer:
    """Price every allowed option in ``n`` seeded outcomes of the uncertain inputs (a month each).

    The outcomes are priced together as arrays (``planner.costing.outcomes``); an option the arrays cannot
    price is priced outcome by outcome with the line-item engine, as every option is with
    ``engine_only``, and ``by_engine`` says which and why. The amounts are the same either way.
    Every outcome is drawn here from ``seed`` first; chunks of ``chunk_samples`` (by default as the
    backend suits) are then priced in this process or, given a Dask ``scheduler`` address, on its
    workers: the answer is the same. ``rejected`` (option label: why) names options the ranking rejects
    on grounds the bills do not decide (``recommend`` passes its own): they are priced but never the
    cheapest, as an option breaking a provider's policy in an outcome is not there."""
    import numpy as np

    if not inputs:
        raise InputError("the workload has no uncertain input: give a field as {low, likely, high}", field="--samples")
    plan = _plan(workload, inputs, n, as_of or dt.date.today(), engine_only=engine_only)
    draws = draw(inputs, n, np.random.default_rng(seed), correlations)
    costs, feasible, horizon = _price_outcomes(plan, draws, n, scheduler, chunk_samples, progress)
    rejected = {label: why for label, why in (rejected or {}).items() if label in plan.labels}
    eligible = np.array([label not in rejected for label in plan.labels])
    outcomes, winners = _option_outcomes(plan.labels, costs, feasible, horizon, eligible)
    statuses = _price_statuses(plan, inputs)
    outcomes = [o.model_copy(update={"price_status": statuses[o.option]}) for o in outcomes]
    favourite = plan.labels.index(outcomes[0].option)
    statement = _statement(outcomes, plan.labels, favourite, winners, draws, inputs)
    central_usd, tornado = _tornado(plan, inputs, draws, horizon[:, favourite], favourite)
    return UncertainAnswer(
        samples=n,
        seed=seed,
        as_of=plan.day,
        months=plan.months,
        inputs=inputs,
        correlations=correlations or [],
        options=outcomes,
        statement=statement,
        tornado=tornado,
        central_usd=central_usd,
        by_engine=plan.by_engine,
        rejected=rejected,
    )


@dataclass
class _Plan:
    """What a sample prices: the options, their tables month by month, and which the engine prices."""

    workload: Workload
    day: dt.date
    months: int
    days: list[dt.date]
    monthly_tables: list[dict[str, PriceTable]]
    options: list[tuple[str, str]]
    labels: list[str]
    by_engine: dict[str, str]
    engine_only: bool


def _plan(workload: Workload, inputs: list[Uncertain], n: int, day: dt.date, *, engine_only: bool) -> _Plan:
    """The options and tables to price, refused when the bills would be too many."""
    from planner.costing.outcomes import engine_reasons

    months = workload.constraints.months
    days = [add_months(day, month) for month in range(months)]
    monthly_tables = [{p: price_table(p, d, None) for p in workload.constraints.providers} for d in days]
    tables = monthly_tables[0]
    allowed = workload.constraints.storage_classes
    constraints = workload.constraints
    options = [
        (p, c)
        for p, t in tables.items()
        for c in t.classes
        if (not allowed or c in allowed)
        # as the ranking: a class compared only when named (aws-s3:express-one-zone) is left out unless named
        and (t.classes[c].compared_by_default or c in (allowed or []) or constraints.asks_for(p, c))
    ]
    if n * len(options) > MAX_SAMPLE_BILLS:  # a month at a time: the horizon adds time, not memory
        raise InputError(
            f"{n:,} samples x {len(options)} options is more than {MAX_SAMPLE_BILLS:,} bills: give fewer samples",
            source="--samples",
        )
    by_engine = engine_reasons(workload, [u.field for u in inputs], options, tables, engine_only=engine_only)
    if n * len(by_engine) * months > MAX_ENGINE_BILLS:
        raise InputError(
            f"{n:,} samples x {len(by_engine)} options the line-item engine prices ({next(iter(by_engine.values()))})"
            f" x {months} months is more than {MAX_ENGINE_BILLS:,} bills: give fewer samples",
            source="--samples",
        )
    labels = [f"{p}:{c}" for p, c in options]
    return _Plan(workload, day, months, days, monthly_tables, options, labels, by_engine, engine_only)


def _price_outcomes(
    plan: _Plan,
    draws: dict[str, np.ndarray[Any, np.dtype[np.float64]]],
    n: int,
    scheduler: str | None,
    chunk_samples: int | None,
    progress: Callable[[float], None] | None,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Each outcome's month-one bill, whether it breaks no policy, and its horizon bill, per option;
    priced in chunks here or on a Dask ``scheduler``'s workers (the same figures either way)."""
    import numpy as np

    if chunk_samples is None:
        chunk_samples = CHUNK_SAMPLES if scheduler else ENGINE_CHUNK_SAMPLES if plan.by_engine else LOCAL_CHUNK_SAMPLES
    size = chunk_samples
    chunks = [
        (
            plan.workload,
            {f: v[a : a + size] for f, v in draws.items()},
            plan.options,
            plan.monthly_tables,
            plan.days,
            plan.engine_only,
        )
        for a in range(0, n, size)
    ]
    moved = None if progress is None else (lambda k: progress(min(n, k * size)))
    parts = run_chunks(_price_chunk, chunks, scheduler=scheduler, progress=moved)
    costs = np.concatenate([p[0].costs_usd for p in parts])
    feasible = np.concatenate([p[0].feasible for p in parts])
    horizon = np.concatenate([p[1] for p in parts])
    return costs, feasible, horizon


def _option_outcomes(
    labels: list[str],
    costs: np.ndarray[Any, Any],
    feasible: np.ndarray[Any, Any],
    horizon: np.ndarray[Any, Any],
    eligible: np.ndarray[Any, Any],
) -> tuple[list[OptionOutcome], np.ndarray[Any, Any]]:
    """Each option's chance of being the cheapest and of breaking no policy, its bill's spread and its
    expected regret, most often cheapest first; and each outcome's cheapest option (-1: none). An option
    not ``eligible`` (rejected whatever its bill) is never the cheapest and has no regret."""
    import numpy as np

    feasible_allowed = feasible & eligible[np.newaxis, :]
    masked = np.where(feasible_allowed, costs, np.inf)
    best = masked.min(axis=1)
    winners = np.where(np.isfinite(best), masked.argmin(axis=1), -1)
    outcomes = []
    for j, label in enumerate(labels):
        # regret where choosing it is allowed: in an outcome where it breaks a policy its bill has no
        # price for the breach, so it is not compared there (p_feasible says how often that is)
        usable = feasible_allowed[:, j] & np.isfinite(best)
        regret = float(np.mean(costs[usable, j] - best[usable])) if usable.any() else math.inf
        p10, p50, p90 = np.percentile(costs[:, j], [10, 50, 90])
        h10, h50, h90 = np.percentile(horizon[:, j], [10, 50, 90])
        outcomes.append(
            OptionOutcome(
                option=label,
                p_cheapest=float(np.mean(winners == j)),
                p_feasible=float(np.mean(feasible[:, j])),
                p10_usd=float(p10),
                p50_usd=float(p50),
                p90_usd=float(p90),
                horizon_p10_usd=float(h10),
                horizon_p50_usd=float(h50),
                horizon_p90_usd=float(h90),
                expected_regret_usd=regret,
            )
        )
    outcomes.sort(key=lambda o: (-o.p_cheapest, o.expected_regret_usd))
    return outcomes, winners


def _price_statuses(plan: _Plan, inputs: list[Uncertain]) -> dict[str, str]:
    """Each option's weakest price sourcing, from the line-item engine's bills with every input at its
    low end, its centre and its high end, in the first and the last month of the horizon (the arrays
    carry no line items; a range's ends reach the tiers its outcomes do)."""
    points = [{u.field: getattr(u, end) for u in inputs} for end in ("low", "central", "high")]
    months = sorted({0, plan.months - 1})
    statuses = {}
    for (provider, storage_class), label in zip(plan.options, plan.labels, strict=True):
        found: list[str] = []
        for month in months:
            table = plan.monthly_tables[month][provider]
            for point in points:
                priced = delivered_bill(at(plan.workload, point), table, storage_class, plan.days[month], month)
                found += [item.price_status.value for item in priced.line_items]
        statuses[label] = weakest_price(found)
    return statuses


def _tornado(
    plan: _Plan,
    inputs: list[Uncertain],
    draws: dict[str, np.ndarray[Any, np.dtype[np.float64]]],
    favourite_horizon: np.ndarray[Any, Any],
    favourite: int,
) -> tuple[float, list[Swing]]:
    """The favourite's bill over the horizon with every input central, and at each input's p10 and p90
    (the others central) with the share of its variance the input explains alone, widest swing first.

    Each point is priced month by month as the outcomes' horizon bills are (``_price_chunk``), so the
    bars and the horizon's p10-p90 measure the same bill: an input that moves only later months (a
    growth rate) moves its bar too."""
    import numpy as np

    option = [plan.options[favourite]]
    centre = {u.field: u.central for u in inputs}
    points = [centre]
    lows_highs = []
    for u in inputs:
        lo, hi = np.percentile(draws[u.field], [10, 90])
        lows_highs.append((u, float(lo), float(hi)))
        points += [{**centre, u.field: float(lo)}, {**centre, u.field: float(hi)}]
    columns = {u.field: np.array([point[u.field] for point in points], dtype=np.float64) for u in inputs}
    _, horizon = _price_chunk(plan.workload, columns, option, plan.monthly_tables, plan.days, plan.engine_only)
    priced = [float(v) for v in horizon[:, 0]]
    tornado = []
    for k, (u, _, _) in enumerate(lows_highs):
        index = first_order_index(favourite_horizon, draws[u.field])
        tornado.append(
            Swing(field=u.field, at_p10_usd=priced[1 + 2 * k], at_p90_usd=priced[2 + 2 * k], first_order_index=index)
        )
    tornado.sort(key=lambda s: -abs(s.at_p90_usd - s.at_p10_usd))
    return priced[0], tornado


def _price_chunk(
    workload: Workload,
    draws: dict[str, np.ndarray[Any, np.dtype[np.float64]]],
    options: list[tuple[str, str]],
    monthly_tables: list[dict[str, PriceTable]],
    days: list[dt.date],
    engine_only: bool,
) -> tuple[PricedOutcomes, np.ndarray[Any, np.dtype[np.float64]]]:
    """The first month's bills of a chunk of outcomes, and their sums over the horizon (each month
    priced with the tables in force that month, as ``planner cost --months`` prices it)."""
    from planner.costing.outcomes import price_outcomes

    first = price_outcomes(workload, draws, options, monthly_tables[0], as_of=days[0], engine_only=engine_only)
    horizon = first.costs_usd.copy()
    for month in range(1, len(days)):
        later = price_outcomes(
            workload, draws, options, monthly_tables[month], as_of=days[month], month=month, engine_only=engine_only
        )
        horizon += later.costs_usd
    return first, horizon


def first_order_index(
    output: np.ndarray[Any, np.dtype[np.float64]], values: np.ndarray[Any, np.dtype[np.float64]]
) -> float | None:
    """Var(E[output | value]) / Var(output): the outcomes sorted by the input, cut into about
    sqrt(n) bins of equal count, and the variance of the bins' means over the output's variance
    (a first-order variance-based index, from the samples already priced: no more bills)."""
    import numpy as np

    total = float(np.var(output))
    # A bill no input moves still varies by float rounding (the same dollars summed in another order):
    # below a part in 10^12 of its size that spread is noise, and no input explains a share of it.
    if len(output) < 4 or total <= (1e-12 * float(np.mean(np.abs(output)))) ** 2:
        return None
    bins = np.array_split(output[np.argsort(values, kind="stable")], round(math.sqrt(len(output))))
    means = np.array([b.mean() for b in bins])
    sizes = np.array([len(b) for b in bins])
    between = float(np.sum(sizes * (means - output.mean()) ** 2) / len(output))
    return min(1.0, between / total)


def _statement(
    outcomes: list[OptionOutcome],
    labels: list[str],
    favourite: int,
    winners: np.ndarray[Any, Any],
    draws: dict[str, np.ndarray[Any, Any]],
    inputs: list[Uncertain],
) -> str:
    """ "cheapest in 87 % of outcomes; loses to R2 when traffic.egress is above 210 TB" (the input whose
    one threshold best separates the favourite's wins from its losses, when one does)."""
    import numpy as np

    top = outcomes[0]
    text = f"{top.option} is the cheapest in {100 * top.p_cheapest:.0f} % of outcomes"
    lost = winners != favourite
    if not lost.any() or lost.all():
        return text
    rivals = winners[lost & (winners >= 0)]
    rival = labels[int(np.bincount(rivals).argmax())] if len(rivals) else "no feasible option"
    best: tuple[float, str, float, bool] | None = None
    for u in inputs:
        values = draws[u.field]
        order = np.argsort(values)
        lost_sorted = lost[order]
        # a threshold t: "loses above t" is right for the losses above and the wins below
        above = np.cumsum(lost_sorted[::-1])[::-1]
        wins_below = np.concatenate([[0], np.cumsum(~lost_sorted)[:-1]])
        right_above = (above + wins_below) / len(values)
        below = np.concatenate([[0], np.cumsum(lost_sorted)[:-1]]) + np.cumsum((~lost_sorted)[::-1])[::-1]
        right_below = below / len(values)
        for rightness, is_above in ((right_above, True), (right_below, False)):
            k = int(rightness.argmax())
            if best is None or rightness[k] > best[0]:
                best = (float(rightness[k]), u.field, float(values[order][k]), is_above)
    if best is not None and best[0] >= 0.9:
        _, field, threshold, is_above = best
        unit = next(u for u in inputs if u.field == field)
        shown = format_field_value(field, threshold, whole=unit.whole)
        text += f"; loses to {rival} when {field} is {'above' if is_above else 'below'} about {shown}"
    else:
        text += f"; otherwise mostly {rival}"
    return text
