"""Workload files from a bill's usage groups: one per region (or bucket), each figure with the rows
it came from as a comment, and every assumption marked ASSUMED."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

from planner.ingest.cloudfront_rows import cdn_delivery_lines, cdn_egress_lines
from planner.ingest.decode import GIB
from planner.ingest.escape import comment_text, yaml_string
from planner.ingest.models import Bill, IngestedWorkload, UsageGroup
from planner.pricing import catalog
from planner.units import counted, format_bytes

_WRITE_OPS = ("put", "copy", "post", "complete-multipart")
_ARCHIVE_OBJECT_OVERHEAD = 32768  # Glacier / Deep Archive index bytes per object, billed at the class rate
_ARCHIVE_CLASSES = ("glacier-flexible", "deep-archive")
PROVIDER = "aws-s3"  # a CUR or FOCUS export of AWS bills Amazon S3


def gb_to_bytes(gb: Decimal) -> int:
    """A bill's GB (2^30 bytes) as whole bytes."""
    return int((gb * GIB).to_integral_value())


def _where(groups: list[UsageGroup]) -> str:
    rows = sum(g.rows for g in groups)
    names = sorted({comment_text(f"{g.usage_type} ({g.operation})" if g.operation else g.usage_type) for g in groups})
    shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return f"{counted(rows, 'row')} of {shown}"


def workloads(bill: Bill) -> list[IngestedWorkload]:
    """One workload file per region (or bucket), each figure with its provenance as a comment."""
    months = max(len(bill.periods), 1)
    scopes: dict[str, list[UsageGroup]] = {}
    for group in bill.groups:
        scopes.setdefault(group.scope, []).append(group)
    names = file_names(list(scopes))
    return [
        _workload_from_groups(scope, groups, bill, months, names[scope]) for scope, groups in sorted(scopes.items())
    ]


def file_names(scopes: list[str]) -> dict[str, str]:
    """A file name of its own for each scope (region or bucket): its name where that is a plain file
    name no other scope shares (case aside, for case-insensitive file systems), else the name's safe
    part and a digest of the scope, so two scopes never write one file."""
    plain = {scope: file_stem(scope) for scope in scopes}
    counts = Counter(stem.lower() for stem in plain.values())
    names = {}
    for scope, stem in plain.items():
        if stem != scope or counts[stem.lower()] > 1:
            digest = hashlib.sha256(scope.encode("utf-8", "surrogateescape")).hexdigest()[:8]
            stem = f"{stem[:100]}-{digest}"
        names[scope] = f"{stem}.yaml"
    return names


def _workload_from_groups(
    scope: str, groups: list[UsageGroup], bill: Bill, months: int, file_name: str
) -> IngestedWorkload:
    """The workload file of one scope: a header saying where it came from, then its storage (a
    month's average bytes per class), its traffic (a month's requests and transfer) and constraints."""
    region = next((g.region for g in groups if g.kind == "storage"), groups[0].region)
    per_month = Decimal(months)
    storage = [g for g in groups if g.kind == "storage"]
    gb_months: dict[str, Decimal] = {}
    for g in storage:
        assert g.storage_class is not None
        gb_months[g.storage_class] = gb_months.get(g.storage_class, Decimal(0)) + g.quantity / per_month
    by_class = {cls: gb_to_bytes(gb) for cls, gb in gb_months.items()}
    stored = gb_to_bytes(sum(gb_months.values(), Decimal(0)))
    lines = _header_lines(scope, region, bill, months)
    lines += _storage_lines(storage, by_class, stored)
    lines += _object_size_lines(groups, by_class, stored, per_month)
    lines += _traffic_lines(groups, by_class, per_month)
    lines += [
        "constraints:",
        "  # compare every provider, as recommend does by default; the current placement is above",
        *_region_lines(region, groups),
        "  months: 12",
    ]
    text = "\n".join(lines) + "\n"
    return IngestedWorkload(name=file_name, scope=scope, region=region, text=text)


def _region_lines(region: str, groups: list[UsageGroup]) -> list[str]:
    """``constraints.regions`` with the bill's region, so cost and recommend price Amazon S3 where the
    data is; a region planner has no table for is said in a comment."""
    others = sorted({g.region for g in groups} - {region})
    also = f" (its transfer rows also name {comment_text(', '.join(others))})" if others else ""
    if region not in catalog.regions(PROVIDER):
        return [
            f"  # the bill's region {comment_text(region)}{also} has no {PROVIDER} price table here:"
            f" {PROVIDER} is priced in its default region (ASSUMED)"
        ]
    return [
        f"  # the bill's region{also}: {PROVIDER} is priced there",
        "  regions:",
        f"    {PROVIDER}: [{yaml_string(region)}]",
    ]


def _header_lines(scope: str, region: str, bill: Bill, months: int) -> list[str]:
    """The file's opening comments (the exports and billing periods read), name and description."""
    period = ", ".join(p.strftime("%Y-%m") for p in bill.periods) or "unknown"
    return [
        f"# Workload of {comment_text(scope)} ({comment_text(region)}),"
        f" read from {comment_text(', '.join(Path(f).name for f in bill.files))}",
        f"# ({'FOCUS export' if bill.format == 'focus' else 'Cost and Usage Report'}, billing period {period}"
        + (f", averaged over {months} months" if months > 1 else "")
        + ").",
        "# Each figure says which rows it came from; review every ASSUMED one before trusting an answer.",
        f"name: {yaml_string(comment_text(scope))}",
        f"description: {yaml_string(f'Amazon S3 usage of {comment_text(scope)} from its bill ({period})')}",
    ]


def _storage_lines(storage: list[UsageGroup], by_class: dict[str, int], stored: int) -> list[str]:
    """``storage:`` with the current placement (bytes per class) and the bytes stored."""
    lines = ["storage:"]
    if storage:
        lines.append(f"  # {_where(storage)}: UsageAmount is GB-months (2^30 bytes) = the month's average stored")
        shares = ", ".join(
            f"{cls} {format_bytes(b, binary=True)} ({100 * b / stored:.1f} %)" if stored else f"{cls} 0 B"
            for cls, b in sorted(by_class.items(), key=lambda kv: -kv[1])
        )
        lines.append(f"  # current placement: {shares}; cost prices each class on its own bytes")
        held = sorted(((cls, b) for cls, b in by_class.items() if b > 0), key=lambda kv: -kv[1])
        if held:
            lines.append("  placement:")
            lines += [f'    {cls}: "{class_bytes} B"' for cls, class_bytes in held]
    else:
        lines.append("  # no storage rows for this scope in the bill: nothing stored (ASSUMED)")
    lines.append(f'  stored: "{stored} B"')
    return lines


def _object_size_lines(
    groups: list[UsageGroup], by_class: dict[str, int], stored: int, per_month: Decimal
) -> list[str]:
    """``object_size``: the archived objects' mean, counted from Glacier's per-object overhead rows,
    or an ASSUMED 1 MiB where the bill has no such count."""
    overhead = [g for g in groups if g.kind == "overhead" and g.storage_class in _ARCHIVE_CLASSES]
    archived_bytes = sum(v for k, v in by_class.items() if k in _ARCHIVE_CLASSES)
    archived_objects = sum(gb_to_bytes(g.quantity / per_month) for g in overhead) // _ARCHIVE_OBJECT_OVERHEAD
    if archived_objects and archived_bytes:
        mean = max(archived_bytes // archived_objects, 1)
        return [
            f"  # {archived_objects:,} archived objects from {_where(overhead)} (32 KiB of index an object);"
            f" mean {format_bytes(mean, binary=True)}"
            + ("" if archived_bytes == stored else "; the bill counts no other objects: the same mean is ASSUMED"),
            f'  object_size: "{mean} B"',
        ]
    return [
        "  # ASSUMED: a bill has no object count; give storage.objects or size_distribution from an S3 Inventory",
        # 1 MiB, or what is stored when that is less (a workload holds at least one object)
        f'  object_size: "{min(2**20, stored) if stored else 2**20} B"',
    ]


def _traffic_lines(groups: list[UsageGroup], by_class: dict[str, int], per_month: Decimal) -> list[str]:
    """``traffic:``: a month's requests by operation (GETs by class where several classes hold data),
    the requests a workload does not model, and a month's transfer out."""
    requests = [g for g in groups if g.kind == "requests"]
    lines = ["traffic:"]
    lines += _request_count_lines(requests, ("get",), "reads", per_month)
    lines += _reads_by_class_lines(requests, by_class, per_month)
    lines += _request_count_lines(requests, _WRITE_OPS, "writes", per_month)
    lines += _request_count_lines(requests, ("head",), "heads", per_month)
    lines += _request_count_lines(requests, ("list",), "lists", per_month)
    other = [g for g in requests if g.planner_operation not in (*_WRITE_OPS, "get", "head", "list")]
    if other:
        total = int(sum((g.quantity for g in other), Decimal(0)))
        lines.append(
            f"  # not in this workload: {total:,} other requests (bucket configuration, transitions, ...)"
            f" from {_where(other)}; reconcile prices them"
        )
    fetched = [g for g in groups if g.kind == "cdn"]
    for kind, field, what in (
        ("egress", "egress", "DataTransfer-Out-Bytes, GB of 2^30 bytes"),
        ("inter-region", "inter_region", "transfer to other AWS regions"),
    ):
        chosen = [g for g in groups if g.kind == kind]
        total = gb_to_bytes(sum((g.quantity for g in chosen), Decimal(0)) / per_month)
        lines.append(f"  # {_where(chosen)} ({what})" if chosen else f"  # no {what} rows: 0")
        if kind == "egress" and fetched:
            lines += cdn_egress_lines(
                total, gb_to_bytes(sum((g.quantity for g in fetched), Decimal(0)) / per_month), _where(fetched)
            )
        else:
            lines.append(f'  {field}: "{total} B"')
    return lines + (cdn_delivery_lines() if fetched else [])


def _request_count_lines(
    requests: list[UsageGroup], operations: tuple[str, ...], field: str, per_month: Decimal
) -> list[str]:
    """A month's requests of these operations as ``field``, with the rows they came from."""
    chosen = [g for g in requests if g.planner_operation in operations]
    total = int(sum((g.quantity for g in chosen), Decimal(0)) / per_month)
    source = f"  # {_where(chosen)}" if chosen else f"  # no {'/'.join(operations)} rows: 0"
    return [source, f"  {field}: {total}"]


def _reads_by_class_lines(requests: list[UsageGroup], by_class: dict[str, int], per_month: Decimal) -> list[str]:
    """``reads_by_class`` where several classes hold data and some GETs read a class other than
    standard (the request usage type names it): each class then pays its own request price."""
    placed = {cls for cls, b in by_class.items() if b > 0}
    gets_by_class: dict[str, list[UsageGroup]] = {}
    for g in requests:
        if g.planner_operation == "get" and g.storage_class in placed:
            gets_by_class.setdefault(g.storage_class, []).append(g)
    if len(placed) <= 1 or not set(gets_by_class) - {"standard"}:
        return []
    lines = [
        "  # GETs by the class they read (the request usage type names it), so each class pays its own"
        " request price and retrieval",
        "  reads_by_class:",
    ]
    for cls, chosen in sorted(gets_by_class.items()):
        lines.append(f"    # {_where(chosen)}")
        lines.append(f"    {cls}: {int(sum((g.quantity for g in chosen), Decimal(0)) / per_month)}")
    return lines


def file_stem(scope: str) -> str:
    """A safe file name for a region or bucket (an ARN or a key-like id keeps only its last part)."""
    tail = scope.rsplit(":", 1)[-1].rsplit("/", 1)[-1]
    return re.sub(r"[^A-Za-z0-9._-]+", "-", tail).strip(".-")[:100] or "bill"
