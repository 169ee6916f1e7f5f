"""A bill read: the S3 rows of billing exports summed into usage groups, each with the rows it came from."""

from __future__ import annotations

import contextlib
import datetime as dt
import pickle
import re
import tempfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import IO, Literal

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
    (from ``sku_usage_types``) decodes FOCUS rows without ``x_UsageType`` by their ``SkuId``. The
    whole bill in memory: more than ``MAX_GROUPS`` usage groups is refused (``bill_parts`` reads any)."""
    with bill_parts(paths, bucket=bucket, region=region, progress=progress, skus=skus, whole=True) as parts:
        return next(parts)


PARTS = 64
"""A bill of more than ``MAX_GROUPS`` usage groups is read in this many parts, each a share of its
buckets and regions (about 47,000 groups each for a million buckets of three usage types)."""


@contextlib.contextmanager
def bill_parts(
    paths: Iterable[Path],
    *,
    bucket: str | None = None,
    region: str | None = None,
    progress: Callable[[int], None] | None = None,
    skus: dict[str, tuple[str, str]] | None = None,
    whole: bool = False,
    spill_dir: Path | None = None,
) -> Iterator[Iterator[Bill]]:
    """The bill as ``Bill``s of a share of its scopes (buckets or regions) each: one, the whole bill,
    when it has at most ``MAX_GROUPS`` usage groups; else up to ``PARTS``, the groups summed so far
    written to temporary files (``spill_dir``) whenever ``MAX_GROUPS`` are held, by a hash of their
    scope's file name (scopes that may share a file name are in one part), and summed again part by
    part, so memory holds ``MAX_GROUPS`` groups at most. Every part carries the whole bill's files,
    periods, bad and other rows and notes. ``whole``: refuse a bill of more groups, as before."""
    files = [Path(p) for p in paths]
    if not files:
        raise InputError("give at least one export file")
    seen: dict[Path, Path] = {}
    for path in files:
        first = seen.setdefault(path.resolve(), path)
        if first is not path:  # its rows would count twice
            also = "" if str(first) == str(path) else f" (also as {first})"
            raise InputError(f"given twice{also}: each export file once", source=str(path))
    with contextlib.ExitStack() as stack:
        spills: list[IO[bytes]] = []

        def spill(groups: dict[_Key, _Accumulator], path: Path) -> None:
            if whole:
                raise InputError(
                    f"more than {MAX_GROUPS:,} usage groups (a bucket or region's usage types), the most a"
                    " bill is read into at once within 2 GB of memory: read part of it with --bucket or"
                    " --region (ingest cur without --reconcile or --format json reads any number, in parts)",
                    source=str(path),
                )
            if not spills:
                for _ in range(PARTS):
                    handle: IO[bytes] = tempfile.TemporaryFile(prefix="planner-bill-", dir=spill_dir)  # noqa: SIM115
                    spills.append(stack.enter_context(handle))
            shares: list[list[tuple[_Key, _Accumulator]]] = [[] for _ in range(PARTS)]
            for key, accumulator in groups.items():
                shares[_part(key[0])].append((key, accumulator))
            for handle, share in zip(spills, shares, strict=True):
                if share:
                    pickle.dump(share, handle, protocol=pickle.HIGHEST_PROTOCOL)
            groups.clear()

        reading = _Reading(bucket, region, skus or {}, progress)
        groups = reading.read(files, spill)
        if not spills:
            yield iter([reading.bill(files, groups.values())])
            return
        spill(groups, files[-1])
        yield (reading.bill(files, _merged(handle).values()) for handle in spills)


_Key = tuple[str, str, str, str]


def _part(scope: str) -> int:
    """The part a scope is read in: by its file name (case aside), so scopes that may share one meet."""
    from planner.ingest.workloads import file_stem

    return zlib.crc32(file_stem(scope).lower().encode("utf-8", "surrogateescape")) % PARTS


def _merged(handle: IO[bytes]) -> dict[_Key, _Accumulator]:
    """One part's groups, summed across the times they were written out (in the order read)."""
    handle.seek(0)
    groups: dict[_Key, _Accumulator] = {}
    while True:
        try:
            share: list[tuple[_Key, _Accumulator]] = pickle.load(handle)
        except EOFError:
            break
        for key, accumulator in share:
            if key in groups:
                groups[key].merge(accumulator)
            else:
                groups[key] = accumulator
    return groups


class _Reading:
    """The rows of the exports, read once: what every part of the bill shares, and the groups."""

    def __init__(
        self,
        bucket: str | None,
        region: str | None,
        skus: dict[str, tuple[str, str]],
        progress: Callable[[int], None] | None,
    ) -> None:
        self.wanted_bucket = bucket_name(bucket) if bucket is not None else None
        self.region, self.skus, self.progress = region, skus, progress
        self.periods: set[dt.date] = set()
        self.bad: list[BadRow] = []
        self.bad_count = self.other = 0
        self.kinds: set[str] = set()
        self.decoded: Counter[str] = Counter()

    def read(
        self, files: list[Path], spill: Callable[[dict[_Key, _Accumulator], Path], None]
    ) -> dict[_Key, _Accumulator]:
        groups: dict[_Key, _Accumulator] = {}
        seen = 0
        for path in files:
            fmt: Literal["cur", "focus"] | None = None
            header: dict[str, str] = {}
            for number, row in read_rows(path):
                if number == 0:
                    fmt = detect_format(row, path)
                    self.kinds.add(fmt)
                    header = row
                    continue
                assert fmt is not None
                seen += 1
                if self.progress is not None and seen % 100_000 == 0:
                    self.progress(seen)
                parsed = self._parsed(row, fmt, header, path, number)
                if parsed is None:
                    continue
                named = bucket_name(parsed.bucket) if parsed.bucket else None
                if self.wanted_bucket is not None and named != self.wanted_bucket:
                    continue
                if self.region is not None and parsed.region != self.region:
                    continue
                if parsed.period is not None:
                    self.periods.add(parsed.period)
                self.decoded[parsed.decoded_by] += 1
                scope = named or parsed.region
                key = (scope, parsed.usage_type, parsed.operation, parsed.unit)
                if key not in groups:
                    if len(groups) >= MAX_GROUPS:
                        spill(groups, path)
                    groups[key] = _Accumulator(scope, parsed)
                groups[key].add(parsed, f"{path.name}:{number}")
        if len(self.kinds) > 1:
            raise InputError("the files mix CUR and FOCUS exports: ingest each kind on its own")
        return groups

    def _parsed(
        self, row: dict[str, str], fmt: Literal["cur", "focus"], header: dict[str, str], path: Path, number: int
    ) -> Row | None:
        """A row decoded (None: unreadable, counted, or not S3's), its quantity checked."""
        try:
            parsed = parse_row(row, fmt, self.skus)
        except OutOfRange as error:
            where = f"{'row' if path.name.lower().endswith('.parquet') else 'line'} {number}, column {error.column}"
            raise InputError(f"{where}: {error}", source=str(path)) from None
        except (InvalidOperation, ValueError) as error:
            self.bad_count += 1
            if len(self.bad) < 5:
                self.bad.append(BadRow(where=f"{path}:{number}", reason=brief(error) or "unreadable number"))
            return None
        if parsed is None:
            self.other += 1
            return None
        _check_quantity(parsed, fmt, header, path, number)
        return parsed

    def bill(self, files: list[Path], groups: Iterable[_Accumulator]) -> Bill:
        fmt_all: Literal["cur", "focus"] = "focus" if self.kinds == {"focus"} else "cur"
        notes = _focus_notes(self.decoded) if fmt_all == "focus" else []
        out = [g.group() for g in groups]
        out.sort(key=lambda g: (g.scope, g.kind, g.usage_type, g.operation))
        return Bill(
            format=fmt_all,
            files=[str(p) for p in files],
            periods=sorted(self.periods),
            groups=out,
            bad_rows=self.bad_count,
            first_bad=self.bad,
            other_rows=self.other,
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

    def merge(self, other: _Accumulator) -> None:
        """Add a later stretch of the same group's rows, summed apart."""
        self.quantity += other.quantity
        self.cost += other.cost
        if other.listed is not None:
            self.listed = (self.listed or Decimal(0)) + other.listed
        self.rates |= other.rates
        self.rows += other.rows
        self.lines = (self.lines + other.lines)[:3]

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
