"""``simulate``: a ``Workload`` at one provider, its peak and mean windows, and the month they bill.

It composes the two adapters (profile -> ``ProviderModel``, workload -> ``SimSpec``) with
``simulate_spec``; ``billed_usage`` turns the result into a ``pricing.models.Usage`` so
``pricing.engine.bill`` prices the month's requests as simulated, retries included.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from planner.errors import InputError
from planner.sim.core import simulate_spec
from planner.sim.profile_adapter import provider_model_from_profile
from planner.sim.provider import BILLED_OPERATIONS
from planner.sim.result import SimulationResult, WorkloadSimulation
from planner.sim.workload_adapter import WINDOWS, adapt_workload
from planner.workload import MONTH_S, Workload
from pricing.models import Limits, Usage

if TYPE_CHECKING:
    from measure.profile import Profile


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
) -> WorkloadSimulation:
    """Simulate ``duration_s`` of the workload's peak and of its mean, ``replications`` times each.

    ``profile`` defaults to the provider's shipped reference profile; the price table in force on
    ``as_of`` (default today) gives the part limits that shape multipart uploads. ``provider``
    None simulates the profile's own endpoint (a self-hosted or unpriced server): no price
    table, so no documented request rates or part limits beyond the profile's own.
    """
    if provider is None:
        return _simulate_endpoint(workload, profile, duration_s, seed, replications)
    from pricing import catalog

    table = catalog.table_for(provider, as_of)
    if storage_class not in table.classes:
        raise InputError(
            f"{table.version} has no storage class {storage_class!r} (classes: {', '.join(table.classes)})",
            source="--class",
        )
    if profile is None:
        from measure.reference import load_reference

        profile = load_reference(provider)
        profile_source = f"shipped reference profile measure/profiles/{provider}.json ({profile.source.kind})"
    else:
        profile_source = f"{profile.source.kind} profile of {profile.provider or 'unknown'}" + (
            f", {profile.date}" if profile.date else ""
        )
    model, assumptions = provider_model_from_profile(profile, table.limits)
    results: dict[str, SimulationResult] = {}
    for window in WINDOWS:
        adapted = adapt_workload(workload, window=window, limits=table.limits)
        assumptions += [note for note in adapted.assumptions if note not in assumptions]
        results[window] = simulate_spec(adapted.spec, model, duration_s, seed, replications)
    mean = results["mean"]
    scaling = (
        f"month's billed requests = the mean window's ({mean.window_s:g} s at the month's average rate, "
        f"mean of {mean.replications} replication(s), retries included) x {mean.scale_to_month:.6g} "
        f"(a {MONTH_S / 86400:g}-day month over the window's expected arrivals); the peak window is not "
        "scaled, it would overstate the month's retries"
    )
    return WorkloadSimulation(
        workload=workload.name,
        provider=provider,
        storage_class=storage_class,
        prices=table.version,
        profile=profile_source,
        peak=results["peak"],
        mean=mean,
        month_billed_requests=dict(mean.scaled_billed_requests),
        month_scaling=scaling,
        slo=results["peak"].slo,
        assumptions=assumptions,
    )


def _simulate_endpoint(
    workload: Workload, profile: Profile | None, duration_s: float, seed: int, replications: int
) -> WorkloadSimulation:
    if profile is None:
        raise InputError("give a provider, or a measured profile of the endpoint to simulate", source="--profile")
    model, assumptions = provider_model_from_profile(profile)
    assumptions.append(
        "no provider given: the profile's own endpoint, with no price table, no documented request rates "
        "and S3's part rules alone"
    )
    results: dict[str, SimulationResult] = {}
    for window in WINDOWS:
        adapted = adapt_workload(workload, window=window)
        assumptions += [note for note in adapted.assumptions if note not in assumptions]
        results[window] = simulate_spec(adapted.spec, model, duration_s, seed, replications)
    mean = results["mean"]
    return WorkloadSimulation(
        workload=workload.name,
        provider=profile.provider or "endpoint",
        storage_class="-",
        prices="no price table (the profile's own endpoint)",
        profile=f"{profile.source.kind} profile of {profile.provider or 'unknown'}"
        + (f", {profile.date}" if profile.date else ""),
        peak=results["peak"],
        mean=mean,
        month_billed_requests=dict(mean.scaled_billed_requests),
        month_scaling=f"month's billed requests = the mean window's x {mean.scale_to_month:.6g} (unpriced)",
        slo=results["peak"].slo,
        assumptions=assumptions,
    )


def billed_usage(
    result: WorkloadSimulation | SimulationResult, workload: Workload, storage_class: str, limits: Limits
) -> Usage:
    """The workload's month (``Workload.usage_for``) with its requests replaced by the simulated ones.

    Every request the simulator issues (GET, PUT, HEAD, LIST and the three multipart calls,
    retries included) comes from the simulation scaled to the month; storage, egress, deletions
    and retrieval stay as the workload states them.
    """
    base = workload.usage_for(storage_class, limits)
    counts = result.month_billed_requests if isinstance(result, WorkloadSimulation) else result.scaled_billed_requests
    requests = {op: n for op, n in base.requests.items() if op not in BILLED_OPERATIONS}
    requests.update({op: n for op, n in counts.items() if n})
    return Usage.model_validate({**base.model_dump(), "requests": requests})
