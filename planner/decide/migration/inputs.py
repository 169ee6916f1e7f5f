"""The first stage of a migration plan: everything the timelines need, loaded and checked once.

The price tables in force each month, the workload's own month at each side, the bounds on a copy
and the reads that move data under copy-on-read are the same for every strategy; they are read
here, once, into one record the later stages only read.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from planner.costing.bills import add_months, price_table
from planner.costing.cdn_bills import origin_workload
from planner.decide.migration.bounds import CopyBounds, copy_bounds
from planner.decide.migration.charges import (
    BillingContext,
    MonthPrices,
    merge,
    price_status,
    side_bill,
    total,
    upload_requests,
)
from planner.decide.migration.models import LIST_PAGE_KEYS, MigrationOptions, destination_services, usd_text
from planner.decide.migration.schedules import Coverage, read_coverage
from planner.errors import InputError
from planner.pricing.billing import bill
from planner.pricing.models import PriceTable
from planner.pricing.usage import Usage
from planner.workload import DAY_S, MONTH_S, Workload


@dataclass(frozen=True)
class AgeOutCutoff:
    """Hybrid: data with fewer days left than ``days`` ages out; the rest is copied. ``note`` says why."""

    days: float
    note: str


@dataclass(frozen=True)
class MigrationInputs:
    """What every strategy's timeline is built from."""

    workload: Workload
    options: MigrationOptions
    start: dt.date
    months: int
    month_starts: list[dt.date]
    """The first day of each month of the horizon, and the day after its end."""
    prices: list[MonthPrices]
    """Each month's tables (in force on its first day) and the workload's month at each side."""
    stored: int
    objects: int
    horizon_days: float
    copy: CopyBounds
    billing: BillingContext
    coverage: Coverage
    lives: tuple[float, float]
    """Remaining lives at the start, in days: uniform over [lo, hi], one value, or unbounded (inf)."""
    cutoff: AgeOutCutoff

    @property
    def source_table(self) -> PriceTable:
        return self.prices[0].source_table

    @property
    def destination_table(self) -> PriceTable:
        return self.prices[0].destination_table


def _checked_tables(options: MigrationOptions, start: dt.date) -> tuple[PriceTable, PriceTable]:
    """The tables in force at the start, once the endpoints and the copy host are known to make sense."""
    source_table = price_table(options.source.provider, start, options.source_prices)
    dest_table = price_table(options.destination.provider, start, options.destination_prices)
    for endpoint, table in ((options.source, source_table), (options.destination, dest_table)):
        if endpoint.storage_class not in table.classes:
            raise InputError(
                f"{table.version} has no storage class {endpoint.storage_class!r} "
                f"(classes: {', '.join(table.classes)})",
                source="--from" if endpoint is options.source else "--to",
            )
    if options.source == options.destination:
        raise InputError("source and destination are the same", source="--to")
    if options.copy_host == "destination-service" and options.destination.provider not in destination_services():
        raise InputError(
            f"{options.destination.provider} has no migration service planner knows of "
            f"(known: {', '.join(f'{p}: {s}' for p, s in destination_services().items())})",
            source="--copy-from",
        )
    return source_table, dest_table


def _month_prices(workload: Workload, options: MigrationOptions, month_starts: list[dt.date]) -> list[MonthPrices]:
    src, dst = options.source, options.destination
    prices = []
    for index, as_of in enumerate(month_starts[:-1]):
        source_table = price_table(src.provider, as_of, options.source_prices)
        destination_table = price_table(dst.provider, as_of, options.destination_prices)
        # behind a CDN both sides bill only its misses; the CDN's own bill is the same staying or moving
        stay_usage = origin_workload(workload, src.provider, as_of).usage_for(
            src.storage_class, source_table.limits, index
        )
        stay = bill(source_table, src.storage_class, stay_usage)
        prices.append(
            MonthPrices(
                as_of=as_of,
                source_table=source_table,
                destination_table=destination_table,
                stay_usage=stay_usage,
                destination_usage=origin_workload(workload, dst.provider, as_of).usage_for(
                    dst.storage_class, destination_table.limits, index
                ),
                stay_usd=stay.total_usd,
                stay_price_status=price_status(stay),
            )
        )
    return prices


def _remaining_lives(workload: Workload, options: MigrationOptions) -> tuple[float, float]:
    retention = workload.storage.retention / DAY_S if workload.storage.retention is not None else None
    if retention is None:
        return math.inf, math.inf
    if options.data_age_days is not None:
        remaining = max(0.0, retention - options.data_age_days)
        return remaining, remaining
    return 0.0, retention


def _billing(
    workload: Workload, options: MigrationOptions, source: PriceTable, destination: PriceTable
) -> BillingContext:
    stored, objects = workload.stored_bytes(), workload.object_count()
    return BillingContext(
        workload=workload,
        options=options,
        mean_object=workload.storage.mean_object_bytes or (stored / objects if objects else 0.0),
        source_minimum_days=source.classes[options.source.storage_class].min_duration_days,
        destination_minimum_days=destination.classes[options.destination.storage_class].min_duration_days,
        checks="none" if options.copy_host == "destination-service" else options.check,
    )


def load_inputs(workload: Workload, options: MigrationOptions) -> MigrationInputs:
    """Check the options, load every month's tables and bound the copy: refused here, or planned below."""
    start = options.start or dt.date.today()
    months = options.months or workload.constraints.months
    try:
        add_months(start, months)
    except InputError:  # add_months names --as-of, the option of the commands that price from a date
        raise InputError(
            f"a {months}-month horizon from {start} runs past the year {dt.MAXYEAR}", source="--start"
        ) from None
    source_table, dest_table = _checked_tables(options, start)
    stored = workload.stored_bytes()
    objects = workload.object_count()
    copy = copy_bounds(workload, options, objects, stored, source_table, dest_table)
    month_starts = [start] + [add_months(start, m + 1) for m in range(months)]
    horizon_days = float((add_months(start, months) - start).days)
    return MigrationInputs(
        workload=workload,
        options=options,
        start=start,
        months=months,
        month_starts=month_starts,
        prices=_month_prices(workload, options, month_starts),
        stored=stored,
        objects=objects,
        horizon_days=horizon_days,
        copy=copy,
        billing=_billing(workload, options, source_table, dest_table),
        coverage=read_coverage(workload, options, objects),
        lives=_remaining_lives(workload, options),
        cutoff=_age_out_cutoff(workload, options, source_table, dest_table, horizon_days),
    )


def _age_out_cutoff(
    workload: Workload,
    options: MigrationOptions,
    source_table: PriceTable,
    dest_table: PriceTable,
    horizon_days: float,
) -> AgeOutCutoff:
    """Hybrid: data with fewer days left than this ages out; the rest is copied.

    Unless given, the break-even: a byte with r days left costs r x (the source's storage price less the
    destination's) to keep, and the copy's egress and requests to move; below r* = copy price /
    storage difference, keeping it is cheaper. Prices are the engine's increments for the whole data, so
    tiers and allowances count as they would. Capped at the horizon.
    """
    if options.age_out_within_days is not None:
        given = options.age_out_within_days
        return AgeOutCutoff(given, f"data with under {given:g} days left ages out (given)")
    src, dst = options.source, options.destination
    stored = workload.stored_bytes()
    objects = workload.object_count()
    if not stored:
        return AgeOutCutoff(horizon_days, "nothing stored: the hybrid is age-out")
    copy = merge(
        Usage(stored_bytes=0, object_count=0),
        egress_bytes=0 if options.egress_waiver else stored,
        requests={"get": objects, "list": math.ceil(objects / LIST_PAGE_KEYS)},
        retrieval_bytes=stored,
    )
    uploads = Usage(requests=upload_requests(workload, objects, dest_table))
    copy_usd = total(side_bill(source_table, src.storage_class, copy)) + total(
        side_bill(dest_table, dst.storage_class, uploads)
    )
    held = Usage(stored_bytes=stored, object_count=objects)
    saving_per_month = (
        bill(source_table, src.storage_class, held).total_usd - bill(dest_table, dst.storage_class, held).total_usd
    )
    if saving_per_month <= 0:
        return AgeOutCutoff(
            horizon_days,
            f"storing at {src} costs no more than at {dst}: all data expiring within the horizon ages out",
        )
    days = float(copy_usd / saving_per_month) * MONTH_S / DAY_S
    cutoff = min(days, horizon_days)
    return AgeOutCutoff(
        cutoff,
        f"data with under {cutoff:,.0f} days left ages out: copying all of it costs {usd_text(copy_usd)} "
        f"(egress and requests), storing it at {dst} saves {usd_text(saving_per_month)} a month, so data that "
        f"expires within {days:,.0f} days is cheaper left to expire",
    )
