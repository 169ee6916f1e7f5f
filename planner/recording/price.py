"""The bill of a recorded mix of requests at every provider: its requests alone, and the whole month.

Each provider bills the mix with its own request classes, free operations and allowances, minimum object
sizes and the error responses it does not bill (``billing.error_responses``: a table that states none bills
every attempt, and the answer says so). The operations that dominate a provider's request cost are found by
pricing each operation alone and sharing the request cost out in those proportions; the sentence naming
them is made from the figures it states.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

from pydantic import BaseModel, ConfigDict, Field

from planner.errors import InputError
from planner.pricing import catalog
from planner.pricing.billing import bill
from planner.pricing.breakdown import CostBreakdown
from planner.pricing.models import PriceTable
from planner.pricing.usage import SizeBin, Usage
from planner.recording.session import Recording
from planner.units import format_bytes
from planner.workload.catalog import shipped_catalog

CENT = Decimal("0.01")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class OperationShare(_Model):
    """One billed operation's part of a provider's request cost."""

    operation: str
    s3_operations: dict[str, int] = Field(description="the S3 operations it counts, with their requests a month")
    requests: int = Field(description="requests a month the provider bills")
    amount_usd: Decimal = Field(description="its share of the month's request cost")
    share: Decimal = Field(description="amount_usd / the request cost, 0 to 1")


class ProviderMix(_Model):
    """The recorded mix billed at one provider."""

    provider: str
    storage_class: str
    table_version: str
    requests_usd: Decimal = Field(description="the month's request lines alone")
    total_usd: Decimal = Field(description="the month's whole bill: requests, storage of what the run left, egress")
    requests_bill: CostBreakdown
    bill: CostBreakdown
    unbilled_errors: int = Field(description="attempts a month answered with an error the provider does not bill")
    error_rule_stated: bool = Field(description="whether the table states which error responses it bills")
    operations: list[OperationShare] = Field(description="billed operations, dearest first")
    sentence: str = Field(description="the operations that dominate the request cost, from the figures above")


class PricedMix(_Model):
    """A recording's month at every provider, ranked by the requests alone and by the whole bill."""

    runs_per_month: Decimal
    requests_per_month: int
    stored_bytes: int
    egress_bytes: int
    by_requests: list[ProviderMix]
    by_total: list[str] = Field(description="provider ids, cheapest whole bill first")
    notes: list[str] = Field(default_factory=list)


def dominant_sentence(provider: str, requests_usd: Decimal, top: OperationShare | None) -> str:
    """'78 % of the request cost at aws-s3 ($1.10 of $1.41 a month) is 1,400,000 HEAD requests (HeadObject)'."""
    if top is None or requests_usd <= 0:
        return f"requests cost nothing at {provider} this month"
    percent = (top.share * 100).quantize(Decimal(1), ROUND_HALF_UP)
    names = ", ".join(f"{name} {count:,}" for name, count in sorted(top.s3_operations.items(), key=lambda i: -i[1]))
    return (
        f"{percent} % of the request cost at {provider} (${top.amount_usd:,.2f} of ${requests_usd:,.2f} a month)"
        f" is {top.requests:,} {top.operation} requests ({names})"
    )


def _class_for(table: PriceTable) -> str:
    return "standard" if "standard" in table.classes else next(iter(table.classes))


def _scaled(count: int, runs: Decimal) -> int:
    return int((Decimal(count) * runs).to_integral_value(ROUND_HALF_UP))


def _histogram(sizes: Sequence[int]) -> list[SizeBin]:
    return [SizeBin(bytes=size, count=n) for size, n in sorted(Counter(sizes).items())]


def price_mix(
    recording: Recording, providers: Sequence[str] | None = None, *, as_of: dt.date | None = None
) -> PricedMix:
    """Bill ``recording``'s month (its requests times ``runs_per_month``) at each of ``providers`` (default: the
    providers compared by default), with what the run left stored and the bytes its GETs read."""
    day = as_of or dt.date.today()
    chosen = list(providers) if providers else list(shipped_catalog().compared_by_default)
    known = catalog.providers()
    for provider in chosen:
        if provider not in known:
            raise InputError(f"unknown provider {provider!r} (known: {', '.join(known)})", field="--providers")
    runs = recording.runs_per_month
    sizes = recording.stored_object_sizes
    notes = []
    if sizes is None:
        written = sum(c.bytes_in for c in recording.counts if c.operation in ("put", "upload-part") and c.status < 300)
        stored = _scaled(written, runs)
        notes.append(
            f"stored bytes are the {format_bytes(written)} the run wrote ({format_bytes(stored)} a month), not"
            " measured: the endpoint's bucket is not listed"
        )
        histogram = None
    else:
        stored = sum(sizes)
        histogram = _histogram(sizes)
        notes.append(f"stored: the {len(sizes):,} objects ({format_bytes(stored)}) the run left in the bucket")
    egress = _scaled(sum(c.bytes_out for c in recording.counts if c.operation == "get"), runs)
    results = [_at(provider, recording, stored, histogram, egress, day) for provider in chosen]
    by_requests = sorted(results, key=lambda m: (m.requests_usd, m.total_usd, m.provider))
    by_total = [m.provider for m in sorted(results, key=lambda m: (m.total_usd, m.requests_usd, m.provider))]
    return PricedMix(
        runs_per_month=runs,
        requests_per_month=sum(_scaled(c.count, runs) for c in recording.counts),
        stored_bytes=stored,
        egress_bytes=egress,
        by_requests=by_requests,
        by_total=by_total,
        notes=notes,
    )


def _at(
    provider: str, recording: Recording, stored: int, histogram: list[SizeBin] | None, egress: int, day: dt.date
) -> ProviderMix:
    table = catalog.table_for(provider, day)
    storage_class = _class_for(table)
    rule = table.billing.error_responses
    runs = recording.runs_per_month
    billed: Counter[str] = Counter()
    by_s3: dict[str, Counter[str]] = {}
    unbilled = 0
    for row in recording.counts:
        if row.operation is None:
            continue
        if rule is not None and not rule.bills(row.status):
            unbilled += _scaled(row.count, runs)
            continue
        billed[row.operation] += row.count
        by_s3.setdefault(row.operation, Counter())[row.s3_operation] += row.count
    requests = {op: _scaled(n, runs) for op, n in billed.items()}
    # the runs make their requests on these days: a daily free allowance counts only them
    days = min(31, max(1, math.ceil(runs)))
    requests_bill = bill(table, storage_class, Usage(requests=requests, request_days=days), as_of=day)
    requests_usd = sum((li.amount_usd for li in requests_bill.line_items if li.category == "requests"), Decimal(0))
    whole = bill(
        table,
        storage_class,
        Usage(stored_bytes=stored, object_sizes=histogram, requests=requests, egress_bytes=egress, request_days=days),
        as_of=day,
    )
    alone = {
        op: sum(
            (
                li.amount_unrounded_usd or li.amount_usd
                for li in bill(table, storage_class, Usage(requests={op: n}, request_days=days), as_of=day).line_items
                if li.category == "requests"
            ),
            Decimal(0),
        )
        for op, n in requests.items()
    }
    weight = sum(alone.values(), Decimal(0))
    shares = []
    for op, n in requests.items():
        share = alone[op] / weight if weight else Decimal(0)
        shares.append(
            OperationShare(
                operation=op,
                s3_operations={name: _scaled(count, runs) for name, count in by_s3[op].items()},
                requests=n,
                amount_usd=(requests_usd * share).quantize(CENT, ROUND_HALF_UP),
                share=share.quantize(Decimal("0.0001"), ROUND_HALF_UP),
            )
        )
    shares.sort(key=lambda s: (-s.share, -s.requests, s.operation))
    return ProviderMix(
        provider=provider,
        storage_class=storage_class,
        table_version=table.version,
        requests_usd=requests_usd,
        total_usd=whole.total_usd,
        requests_bill=requests_bill,
        bill=whole,
        unbilled_errors=unbilled,
        error_rule_stated=rule is not None,
        operations=shares,
        sentence=dominant_sentence(provider, requests_usd, shares[0] if shares and weight else None),
    )
