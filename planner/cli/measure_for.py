"""``planner measure --for WORKLOAD``: the cells that decide the workload's unverified targets on one
provider, in words and as the ``--ops``/``--sizes``/``--concurrency`` of the run that measures them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from shlex import quote

from planner.decide.measure_for import MeasurementFor, in_contention, plan_measurement
from planner.decide.recommendation import Recommendation, recommend
from planner.errors import InputError, PlannerError
from planner.measure.plan import PlanEstimate
from planner.measure.plan import estimate as plan_estimate
from planner.measure.run.options import MeasureOptions, cell_label
from planner.pricing.billing import estimate as price
from planner.pricing.catalog import providers
from planner.pricing.usage import Deletion, Usage
from planner.units import format_wall_time
from planner.workload import Workload, load_workload


@dataclass(frozen=True)
class ForWorkload:
    """The plan and the measurement options that carry it out (no probes, no open-loop cells)."""

    plan: MeasurementFor
    ops: str
    sizes: str
    concurrency: str
    cells: list[str]


def measurement_for(path: Path, provider: str | None, profiles_dir: Path | None = None) -> ForWorkload:
    """Judge the workload on the profiles at hand (the shipped references, or ``profiles_dir``'s) and plan
    the cells of ``provider`` that decide what is left unverified."""
    if provider is not None and provider not in providers():
        raise InputError(f"unknown provider {provider!r} (known: {', '.join(providers())})", source="--provider")
    workload = load_workload(path)
    result = recommend(workload, as_of=dt.date.today(), profiles_dir=profiles_dir)
    if provider is None:
        contending = sorted({o.provider for o in in_contention(result)[0]})
        shown = ", ".join(contending) or "none: every target is decided on evidence"
        raise InputError(f"is required with --for: the provider whose endpoint is measured (in contention: {shown})",
                         source="--provider")  # fmt: skip
    plan = plan_measurement(workload, result, provider)
    return ForWorkload(
        plan=plan,
        ops=",".join(plan.ops),
        sizes=",".join(f"{size}B" for size in plan.sizes),
        concurrency=",".join(str(c) for c in plan.concurrency),
        cells=[cell_label(c.op, c.size_bytes, c.concurrency) for c in plan.cells],
    )


def _cost_usd(provider: str, estimate: PlanEstimate) -> Decimal | None:
    """The provider's bill for the measurement's requests and bytes (its minimums left out), or None."""
    usage = Usage(
        requests=estimate.requests,
        egress_bytes=estimate.downloaded_bytes,
        deletions=[Deletion(bytes=estimate.uploaded_bytes, objects=estimate.requests.get("put", 0), age_days=0)],
    )
    try:
        bill = price(provider, "standard", usage)
    except PlannerError:
        return None
    return sum((i.amount_usd for i in bill.line_items if i.category != "minimum"), Decimal(0))


def settle_lines(path: Path, workload: Workload, result: Recommendation) -> list[str]:
    """When nothing is recommended on evidence: the exact ``planner measure --for`` command that would
    decide each contending provider's unverified targets, with its estimated time and cost, then the
    ``recommend`` to run on what it writes."""
    contending, _ = in_contention(result)
    providers = list(dict.fromkeys(o.provider for o in sorted(contending, key=lambda o: o.horizon_cost_usd)))
    lines: list[str] = []
    for provider in providers:
        plan = plan_measurement(workload, result, provider)
        if not plan.cells:
            continue
        options = MeasureOptions(
            endpoint=None, bucket="BUCKET", out=Path(f"measured/{provider}.json"), provider=provider,
            sizes=plan.sizes, concurrency=plan.concurrency, ops=plan.ops,  # type: ignore[arg-type]
            probes=[], open_rates_per_s=[], open_peak_fractions=[],
            only_cells=[cell_label(c.op, c.size_bytes, c.concurrency) for c in plan.cells],
        )  # fmt: skip
        from planner.cli.measure import for_latency  # the open-loop cells a latency target adds

        options, _ = for_latency(options, plan)
        estimate = plan_estimate(options)
        ran = [step for step in estimate.steps if not step.label.startswith(("probe ", "preparing "))]
        cost = _cost_usd(provider, estimate)
        costed = f"${cost.quantize(Decimal('0.01'))}" if cost is not None else "cost unknown"
        open_targets = (
            v.target for o in contending if o.provider == provider for v in o.verdicts if v.verdict == "unverified"
        )
        targets = ", ".join(dict.fromkeys(open_targets))
        command = f"planner measure --for {quote(str(path))} --provider {provider}"
        lines += [
            f"to settle {targets} on {provider} ({len(ran)} cell(s), ~{format_wall_time(estimate.seconds)},"
            f" about {costed} in requests and egress by its price table): the plan, the cells and why (nothing"
            " is sent):",
            f"  {command} --dry-run",
            "  then the run, URL and BUCKET replaced by the endpoint and a scratch bucket there it may write to"
            " (credentials as the AWS CLI finds them):",
            f"  {command} --endpoint URL --bucket BUCKET --out measured/{provider}.json",
        ]
    if lines:
        lines += ["then judge on what it measured:", f"  planner recommend {quote(str(path))} --profiles measured"]
    return lines
