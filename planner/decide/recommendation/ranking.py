"""``recommend``: a short pipeline of stages, each a function from one explicit record to the next.

``load_inputs`` (tables, profiles, provider models, once; bad inputs fail here, before any
simulation) -> ``price_options`` (each option's whole projection) -> ``simulate_providers`` and
``judge_options`` (one simulation per provider, one judgement per option) -> ``rank`` ->
``explain`` (reasons, rivals, break-even points, egress curves). The ``Recommendation`` carries
what text, JSON, plots and reports show, so none of them prices, simulates or loads again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from planner.costing.bills import DEFAULT_BILLING, BillingOptions
from planner.decide.recommendation.explain import explain
from planner.decide.recommendation.inputs import load_inputs
from planner.decide.recommendation.judge import judge_options, simulate_providers
from planner.decide.recommendation.models import Recommendation
from planner.decide.recommendation.options import price_options
from planner.decide.recommendation.rank import rank
from planner.decide.recommendation.verified import leave_out_unverified
from planner.errors import MAX_SEED, InputError, a_day, of_type, optional_callable, positive_number, whole_number
from planner.workload import Workload


def recommend(
    workload: Workload,
    *,
    as_of: dt.date | None = None,
    profiles_dir: Path | None = None,
    prices: dict[str, Path] | None = None,
    simulate: bool = True,
    sim_duration_s: float = 60.0,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
    curves: bool = True,
    verified_only: bool = False,
    billing: BillingOptions | None = None,
    cdns: list[str] | None = None,
) -> Recommendation:
    """Every allowed provider and storage class, ranked: options meeting every target on evidence first,
    then those whose targets are unverified, then rejected ones, each group by horizon cost.

    With ``simulate`` (the default) each provider's peak is also simulated against its profile; a
    target is met or missed only on backed figures (``planner.evidence``), else it is unverified.
    ``progress`` hears how many providers have been simulated. ``curves`` False leaves out the
    egress curves a plot draws (``egress_curves`` None), for a caller that shows no plot.
    ``verified_only`` leaves out options whose bill rests on an unverified price (``left_out`` says which).
    ``billing`` bills every option's months as ``cost`` would with the same options (calendar months,
    the days restored copies are kept); the break-even points and egress curves stay on 30-day months.
    ``cdns`` compares delivery paths: every option is priced behind each of these CDNs in turn, at the
    workload's hit ratio (the workload names a CDN), and ranked together; one takes its CDN's place.
    """
    billing = billing or DEFAULT_BILLING
    of_type(workload, Workload, "workload", "a planner.Workload (planner.load_workload(path))")
    of_type(billing, BillingOptions, "billing", "a BillingOptions, or None")
    if simulate:
        positive_number(sim_duration_s, "sim_duration_s")
        whole_number(seed, "seed", low=0, high=MAX_SEED)
        optional_callable(progress, "progress")
    if profiles_dir is not None:
        if not isinstance(profiles_dir, str | Path) or not Path(profiles_dir).is_dir():
            raise InputError(f"{profiles_dir} is not a folder of profiles", field="profiles_dir")
        profiles_dir = Path(profiles_dir)
    for name, value in (("prices", prices), ("cdns", cdns)):
        if isinstance(value, str | Path):
            raise InputError(f"{value!r}: give a {'mapping of provider to file' if name == 'prices' else 'list'}",
                             field=name)  # fmt: skip
    inputs = load_inputs(
        workload,
        as_of=a_day(as_of, "as_of") or dt.date.today(),
        profiles_dir=profiles_dir,
        prices=prices or {},
        billing=billing,
        cdns=cdns,
    )
    priced = price_options(inputs)
    simulated = simulate_providers(inputs, duration_s=sim_duration_s, seed=seed, progress=progress) if simulate else {}
    judged = judge_options(inputs, priced, simulated)
    left_out: list[str] = []
    if verified_only:
        judged, left_out = leave_out_unverified(judged)
    return explain(inputs, rank(judged), curves=curves).model_copy(
        update={"left_out": left_out, "billing": _billing_statement(billing)}
    )


def _billing_statement(billing: BillingOptions) -> str | None:
    """The billing options that differ from the default, in words (None when none does)."""
    said = [
        *(
            ["calendar months, each its own days (the workload's 30-day monthly flows scaled to them)"]
            if billing.calendar
            else []
        ),
        *([f"restored copies kept {billing.restored_copy_days} days"] if billing.restored_copy_days != 1 else []),
    ]
    return "; ".join(said) or None
