"""A bill read: the S3 rows of billing exports summed into usage groups, each with the rows it came from."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Iterable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Literal

from planner.errors import InputError
from planner.ingest.decode import GIB, OutOfRange, Row, detect_format, parse_row
from planner.ingest.models import BadRow, Bill, UsageGroup
from planner.ingest.rows import brief, read_rows
from planner.units import MAX_BYTES
from planner.workload.parts import MAX_COUNT

MAX_GROUPS = 200_000
"""Usage groups kept while a bill is read: about 10 KB each through to the written workloads
(20,000 buckets of 3 usage types took 264 MB, measured), so 200,000 fit in 2 GB; a bill of a
million buckets is read a bucket or a region at a time."""


def read_bill(
    paths: Iterable[Path],
    *,
    bucket: str | None = None,
    region: str | None = None,
    progress: Callable[[int], None] | None = None,
    skus: dict[str, tuple[str, str]] | None = None,
) -> Bill:
    """Sum the S3 rows of billing exports; ``bucket`` / ``region`` keep only those rows; ``skus``
    (from ``sku_usage_types``) decodes FOCUS rows without ``x_UsageType`` by their ``SkuId``."""
    files = [Path(p) for p in paths]
    if not files:
        raise InputError("give at least one export file")
    groups: dict[tuple[str, str, str, str], _Accumulator] = {}
    periods: set[dt.date] = set()
    bad: list[BadRow] = []
    bad_count = other = 0
    kinds: set[str] = set()
    decoded: Counter[str] = Counter()
    seen = 0
    wanted_bucket = bucket_name(bucket) if bucket is not None else None
    for path in files:
        fmt: Literal["cur", "focus"] | None = None
        header: dict[str, str] = {}
        for number, row in read_rows(path):
            if number == 0:
                fmt = detect_format(row, path)
                kinds.add(fmt)
                header = row
                continue
            assert fmt is not None
            seen += 1
            if progress is not None and seen % 100_000 == 0:
                progress(seen)
            try:
                parsed = parse_row(row, fmt, skus or {})
            except OutOfRange as error:
                where = f"{'row' if path.name.lower().endswith('.parquet') else 'line'} {number}, column {error.column}"
                raise InputError(f"{where}: {error}", source=str(path)) from None
            except (InvalidOperation, ValueError) as error:
                bad_count += 1
                if len(bad) < 5:
                    bad.append(BadRow(where=f"{path}:{number}", reason=brief(error) or "unreadable number"))
                continue
            if parsed is None:
                other += 1
                continue
            _check_quantity(parsed, fmt, header, path, number)
            named = bucket_name(parsed.bucket) if parsed.bucket else None
            if wanted_bucket is not None and named != wanted_bucket:
                continue
            if region is not None and parsed.region != region:
                continue
            if parsed.period is not None:
                periods.add(parsed.period)
            decoded[parsed.decoded_by] += 1
            scope = named or parsed.region
            key = (scope, parsed.usage_type, parsed.operation, parsed.unit)
            if key not in groups:
                if len(groups) >= MAX_GROUPS:
                    raise InputError(
                        f"more than {MAX_GROUPS:,} usage groups (a bucket or region's usage types), the most a"
                        " bill is read into within 2 GB of memory: read part of it with --bucket or --region",
                        source=str(path),
                    )
                groups[key] = _Accumulator(scope, parsed)
            groups[key].add(parsed, f"{path.name}:{number}")
    if len(kinds) > 1:
        raise InputError("the files mix CUR and FOCUS exports: ingest each kind on its own")
    fmt_all: Literal["cur", "focus"] = "focus" if kinds == {"focus"} else "cur"
    notes = _focus_notes(decoded) if fmt_all == "focus" else []
    out = [g.group() for g in groups.values()]
    out.sort(key=lambda g: (g.scope, g.kind, g.usage_type, g.operation))
    return Bill(
        format=fmt_all,
        files=[str(p) for p in files],
        periods=sorted(periods),
        groups=out,
        bad_rows=bad_count,
        first_bad=bad,
        other_rows=other,
        notes=notes,
    )


_S3_ARN = re.compile(r"arn:aws[a-z-]*:s3:::")
_QUANTITY_COLUMN = {"cur": "line_item_usage_amount", "focus": "consumed_quantity"}
_GB_KINDS = ("storage", "overhead", "egress", "inter-region", "ingress", "retrieval", "early-deletion")


def bucket_name(resource_id: str) -> str:
    """A bucket as a resource id names it: ``arn:aws:s3:::media`` and ``media`` are the same bucket."""
    text = resource_id.strip()
    arn = _S3_ARN.match(text)
    return text[arn.end() :] if arn else text


def _check_quantity(row: Row, fmt: str, header: dict[str, str], path: Path, number: int) -> None:
    """A usage amount no workload could hold is refused where it is read, naming its line and column:
    a negative amount, more than 100 EB (GB-months or GB), or more than 10^15 requests."""
    quantity = row.quantity
    if (
        quantity >= 0
        and not (row.kind in _GB_KINDS and quantity * GIB > MAX_BYTES)
        and not (row.kind == "requests" and quantity > MAX_COUNT)
    ):
        return
    amount = f"{quantity.normalize():f}" if abs(quantity.adjusted()) < 30 else f"{quantity:E}"
    if quantity < 0:
        problem = f"{amount} is negative: usage is 0 or more"
    elif row.kind == "requests":
        problem = f"{amount} requests is beyond any real workload (more than 10^15)"
    else:
        problem = f"{amount} {row.unit or 'GB'} is beyond any real workload (more than 100 EB)"
    column = header.get(_QUANTITY_COLUMN[fmt], _QUANTITY_COLUMN[fmt])
    where = f"{'row' if path.name.lower().endswith('.parquet') else 'line'} {number}, column {column}"
    raise InputError(f"{where}: {problem}", source=str(path))


class _Accumulator:
    """A usage group being summed."""

    def __init__(self, scope: str, first: Row) -> None:
        self.scope, self.first = scope, first
        self.quantity = self.cost = Decimal(0)
        self.listed: Decimal | None = None
        self.rates: set[Decimal] = set()
        self.rows = 0
        self.lines: list[str] = []

    def add(self, row: Row, where: str) -> None:
        self.quantity += row.quantity
        self.cost += row.cost
        if row.listed is not None:
            self.listed = (self.listed or Decimal(0)) + row.listed
        if row.rate is not None:
            self.rates.add(row.rate)
        self.rows += 1
        if len(self.lines) < 3:
            self.lines.append(where)

    def group(self) -> UsageGroup:
        row = self.first
        return UsageGroup(
            scope=self.scope,
            region=row.region,
            usage_type=row.usage_type,
            operation=row.operation,
            kind=row.kind,
            storage_class=row.storage_class,
            planner_operation=row.planner_operation,
            quantity=self.quantity,
            unit=row.unit,
            billed_usd=self.cost,
            list_usd=self.listed,
            rates=sorted(self.rates),
            rows=self.rows,
            first_lines=self.lines,
        )


_DECODED = {
    "x_UsageType": "by x_UsageType and x_Operation",
    "SkuId": "by SkuId through the offer file",
    "description": "from pricing unit and charge description",
}


def _focus_notes(decoded: Counter[str]) -> list[str]:
    """How many FOCUS rows each way decoded (by AWS's columns, by SKU, or weaker, by description)."""
    return [
        "FOCUS S3 rows decoded: "
        + ", ".join(f"{decoded[how]:,} {_DECODED[how]}" for how in _DECODED if decoded[how])
        + (
            " (weaker: give an export with AWS columns, or --offer with AWS's price list, to decode SkuId)"
            if decoded["description"]
            else ""
        )
    ]
