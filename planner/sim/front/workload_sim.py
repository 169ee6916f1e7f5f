"""``simulate``: a ``Workload`` at one provider, its peak and mean windows, and the month they bill.

It builds the provider model (profile -> ``ProviderModel``) and runs ``simulate_workload``
(``planner.sim.front.run``) over both windows; ``billed_usage`` turns the result into a
``pricing.usage.Usage`` so ``pricing.billing.bill`` prices the month's requests as simulated,
retries included, error answers as the price table bills them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING

from planner.errors import MAX_SEED, InputError, a_day, of_type, optional_callable, positive_number, whole_number
from planner.evidence import TargetVerdict
from planner.pricing.models import Limits
from planner.pricing.usage import Usage
from planner.sim.front.run import SIMULATED_PEAK, WorkloadRun, simulate_workload
from planner.sim.front.workload_adapter import WINDOWS
from planner.sim.model import BILLED_OPERATIONS, provider_model_from_profile
from planner.sim.result import Estimate, SimulationResult, WorkloadSimulation
from planner.sim.spec import TraceArrivals
from planner.units import format_duration, format_rate
from planner.workload import MONTH_S, Workload, restore_verdicts
from planner.workload.targets import restore_times

if TYPE_CHECKING:
    from planner.measure.profile import Profile
    from planner.sim.model import ProviderModel

MAX_REPLICATIONS = 1_000
"""the most replications ``simulate`` runs of each window (``--replications`` takes 100)"""


def simulate(
    workload: Workload,
    provider: str | None,
    *,
    storage_class: str = "standard",
    profile: Profile | None = None,
    duration_s: float = 600.0,
    seed: int = 0,
    replications: int = 3,
    as_of: dt.date | None = None,
    trace: TraceArrivals | None = None,
    progress: Callable[[], None] | None = None,
) -> WorkloadSimulation:
    """Simulate ``duration_s`` of the workload's peak and of its mean, ``replications`` times each.

    ``profile`` defaults to the provider's shipped reference profile; the price table in force on
    ``as_of`` (default today) gives the part limits that shape multipart uploads. ``provider``
    None simulates the profile's own endpoint (a self-hosted or unpriced server): no price
    table, so no documented request rates or part limits beyond the profile's own. ``trace``
    replaces the peak window's arrivals with a trace's (``planner.sim.front.trace``), replayed over its
    own span; the mean window stays the workload's, for the month's bill.
    """
    of_type(workload, Workload, "workload", "a planner.Workload (planner.load_workload(path))")
    positive_number(duration_s, "duration_s")
    whole_number(replications, "replications", low=1, high=MAX_REPLICATIONS)
    whole_number(seed, "seed", low=0, high=MAX_SEED)
    optional_callable(progress, "progress")
    if profile is not None:
        from planner.measure.profile import Profile

        of_type(profile, Profile, "profile", "a planner.measure.profile.Profile, or None")
    as_of = a_day(as_of, "as_of")
    if provider is None:
        return _simulate_endpoint(workload, profile, duration_s, seed, replications, trace, progress)
    from planner.pricing import catalog

    table = catalog.table_for(provider, as_of)
    if storage_class not in table.classes:
        raise InputError(
            f"{table.version} has no storage class {storage_class!r} (classes: {', '.join(table.classes)})",
            source="--class",
        )
    if profile is None:
        from planner.measure.reference import load_reference

        profile = load_reference(provider)
        profile_source = f"shipped reference profile measure/profiles/{provider}.json ({profile.source.kind})"
    else:
        profile_source = _profile_source(profile, provider)
    model, assumptions = provider_model_from_profile(profile, table.limits)
    model = model.model_copy(update={"error_responses": table.billing.error_responses})
    if profile.provider and profile.provider != provider:
        assumptions.insert(
            0,
            f"the profile measured {profile.provider}, not {provider}: its latency and throughput are simulated under"
            f" {provider}'s documented limits and part rules, which {profile.provider} may not share",
        )
    run, verdicts = _both_windows(
        workload, model, profile, table.limits, assumptions, duration_s, seed, replications, trace, progress
    )
    restore_first = table.restore_required(storage_class)
    if restore_first:
        # the simulation replays immediate reads, which an archive class does not serve
        times = restore_times(table, storage_class)
        restored = restore_verdicts(workload, storage_class, times)
        verdicts = restored + [v for v in verdicts if v.target not in {r.target for r in restored}]
        assumptions.append(
            f"{storage_class} objects are read only after a restore ({times.phrase()}): the simulated GET "
            "figures describe reads of a restored copy, not of this class"
        )
    mean = run.windows["mean"]
    scaling = (
        f"month's billed requests = the mean window's ({mean.window_s:g} s at the month's average rate, "
        f"mean of {mean.replications} replication(s), retries included) x {mean.scale_to_month:.6g} "
        f"(a {MONTH_S / 86400:g}-day month over the window's expected arrivals); the peak window is not "
        f"scaled, it would overstate the month's retries; {mean.error_billing}"
    )
    return WorkloadSimulation(
        workload=workload.name,
        provider=provider,
        storage_class=storage_class,
        prices=table.version,
        profile=profile_source,
        peak=run.peak,
        mean=mean,
        month_billed_requests=dict(mean.scaled_billed_requests),
        month_billed_requests_ci95=month_intervals(mean),
        month_scaling=scaling,
        slo=verdicts,
        restore_first=restore_first,
        evidence=run.evidence,
        assumptions=assumptions,
    )


def _both_windows(
    workload: Workload,
    model: ProviderModel,
    profile: Profile,
    limits: Limits | None,
    assumptions: list[str],
    duration_s: float,
    seed: int,
    replications: int,
    trace: TraceArrivals | None,
    progress: Callable[[], None] | None,
) -> tuple[WorkloadRun, list[TargetVerdict]]:
    """The peak and mean windows through ``simulate_workload``; their notes join ``assumptions``, and a
    target the peak could not judge is unverified, not left out."""
    run = simulate_workload(
        workload,
        model,
        summary=profile.summary(),
        limits=limits,
        windows=WINDOWS,
        duration_s=duration_s,
        seed=seed,
        replications=replications,
        trace=trace,
        progress=progress,
    )
    assumptions += [note for note in run.notes if note not in assumptions]
    return run, run.verdicts + _not_judged(workload, run.verdicts, assumptions)


def _profile_source(profile: Profile, provider: str | None = None) -> str:
    """Which profile the provider model is built from; one naming no provider is said to be taken as
    ``provider``'s, the caller having named it."""
    if profile.provider is None and provider is not None:
        where = f"measured at {profile.endpoint}" if profile.endpoint else "its endpoint unnamed"
        whose = f"naming no provider ({where}), taken as a profile of {provider} (the provider given)"
    else:
        whose = f"of {profile.provider or 'unknown'}"
    return f"{profile.source.kind} profile {whose}" + (f", {profile.date}" if profile.date else "")


def _not_judged(workload: Workload, judged: list[TargetVerdict], notes: list[str]) -> list[TargetVerdict]:
    """A target the peak window could not judge (it offers less than the target asks) is unverified, not
    left out: the adapter's note says why."""
    performance = workload.performance
    wanted = {
        "p99 TTFB": (performance.p99_ttfb, format_duration),
        "read throughput": (performance.read_throughput, format_rate),
        "write throughput": (performance.write_throughput, format_rate),
    }
    missing = []
    for target, (value, text) in wanted.items():
        if value is None or any(v.target == target for v in judged):
            continue
        direction = target.split()[0]
        why = next(
            (n for n in notes if n.startswith(f"{direction}_throughput target")),
            f"{target}: the simulation did not judge it",
        )
        missing.append(
            TargetVerdict(
                target=target,
                wanted=text(value),
                evidence="assumed",
                verdict="unverified",
                judged_on=SIMULATED_PEAK,
                reason=why,
            )
        )
    return missing


def _simulate_endpoint(
    workload: Workload,
    profile: Profile | None,
    duration_s: float,
    seed: int,
    replications: int,
    trace: TraceArrivals | None = None,
    progress: Callable[[], None] | None = None,
) -> WorkloadSimulation:
    if profile is None:
        raise InputError("give a provider, or a measured profile of the endpoint to simulate", source="--profile")
    model, assumptions = provider_model_from_profile(profile)
    assumptions.append(
        "no provider given: the profile's own endpoint, with no price table, no documented request rates "
        "and S3's part rules alone"
    )
    run, verdicts = _both_windows(
        workload, model, profile, None, assumptions, duration_s, seed, replications, trace, progress
    )
    mean = run.windows["mean"]
    return WorkloadSimulation(
        workload=workload.name,
        provider=profile.provider or "endpoint",
        storage_class="-",
        prices="no price table (the profile's own endpoint)",
        profile=_profile_source(profile),
        peak=run.peak,
        mean=mean,
        month_billed_requests=dict(mean.scaled_billed_requests),
        month_billed_requests_ci95=month_intervals(mean),
        month_scaling=f"month's billed requests = the mean window's x {mean.scale_to_month:.6g} (unpriced)",
        slo=verdicts,
        evidence=run.evidence,
        assumptions=assumptions,
    )


def billed_usage(
    result: WorkloadSimulation | SimulationResult, workload: Workload, storage_class: str, limits: Limits
) -> Usage:
    """The workload's month (``Workload.usage_for``) with its requests replaced by the simulated ones.

    Every request the simulator issues (GET, PUT, HEAD, LIST and the three multipart calls,
    retries included, error answers as the price table bills them) comes from the simulation scaled
    to the month; storage, egress, deletions and
    retrieval stay as the workload states them.
    """
    base = workload.usage_for(storage_class, limits)
    counts = result.month_billed_requests if isinstance(result, WorkloadSimulation) else result.scaled_billed_requests
    requests = {op: n for op, n in base.requests.items() if op not in BILLED_OPERATIONS}
    requests.update({op: n for op, n in counts.items() if n})
    return Usage.model_validate({**base.model_dump(), "requests": requests})


def month_intervals(mean: SimulationResult) -> dict[str, Estimate]:
    """Each billed operation's month as the mean window's replications spread it: the window's mean and
    95 % interval, scaled to the month as ``scaled_billed_requests`` is."""
    scale = mean.scale_to_month
    return {
        op: Estimate(
            mean=window.mean * scale,
            ci95_half_width=None if window.ci95_half_width is None else window.ci95_half_width * scale,
        )
        for op, window in mean.billed_requests.items()
    }
