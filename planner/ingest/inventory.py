"""Storage from an S3 Inventory report: object count, sizes, bytes per class and ages.

An inventory lists every object (and, if asked, every version): its size, storage class, last
modified date and, for Intelligent-Tiering, its access tier. ``read_inventory`` streams the data
files (CSV, gzipped CSV, Parquet or ORC: the manifest names the format and the CSV schema) into
fixed-size summaries, so a report of a billion objects takes the memory of a few hundred bins.
``storage_block`` writes the workload's ``storage:`` section from it, every figure with its source.

Formats: https://docs.aws.amazon.com/AmazonS3/latest/userguide/storage-inventory-location.html
(manifest.json: ``fileFormat``, ``fileSchema``, ``files``; CSV data files have no header row and
URL-encoded keys; Parquet and ORC columns are the schema's names in snake case).
"""

from __future__ import annotations

import csv
import datetime as dt
import math
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.errors import InputError
from planner.files import check_input_file, load_json, open_stream, text_lines
from planner.ingest.ages import age_lines, age_shares, plausible
from planner.ingest.escape import comment_text
from planner.ingest.rows import snake
from planner.units import format_bytes
from planner.workload import storage_class_ids

# S3 Inventory's storage class names to planner's class ids.
CLASSES = {
    "STANDARD": "standard",
    "STANDARD_IA": "standard-ia",
    "ONEZONE_IA": "onezone-ia",
    "INTELLIGENT_TIERING": "intelligent-tiering",
    "GLACIER_IR": "glacier-ir",
    "GLACIER": "glacier-flexible",
    "DEEP_ARCHIVE": "deep-archive",
    "REDUCED_REDUNDANCY": "reduced-redundancy",
    "EXPRESS_ONEZONE": "express-onezone",
}
# Intelligent-Tiering access tiers and the days without access that put an object there.
_UNREAD_DAYS = {"INFREQUENT": 30, "ARCHIVE_INSTANT_ACCESS": 90, "ARCHIVE": 90, "DEEP_ARCHIVE": 180}
_MANIFEST_LIMIT = 16 * 2**20


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


class SizeBin(_Model):
    """Objects of ``low`` to under twice ``low`` bytes: how many, and their bytes."""

    low: int
    objects: int
    bytes: int


class ClassShare(_Model):
    objects: int
    bytes: int


class Inventory(_Model):
    """What an inventory says about a bucket's storage."""

    bucket: str | None
    files: list[str]
    taken: dt.datetime | None = Field(description="when the inventory was taken (the manifest's creationTimestamp)")
    objects: int = Field(description="current objects (noncurrent versions and delete markers apart)")
    bytes: int
    noncurrent_versions: int = 0
    noncurrent_bytes: int = 0
    noncurrent_classes: dict[str, int] = Field(default_factory=dict, description="noncurrent bytes by storage class")
    delete_markers: int = 0
    size_bins: list[SizeBin]
    classes: dict[str, ClassShare]
    unread: dict[int, float] = Field(
        default_factory=dict,
        description="share of Intelligent-Tiering bytes in a tier reached after N days unread, by N",
    )
    age_days: dict[str, float] = Field(
        default_factory=dict, description="object age percentiles (p50, p90, p99, max) in days, from last modified"
    )
    bad_rows: int = 0
    first_bad: list[str] = Field(default_factory=list)
    age_shares: dict[str, float] = Field(
        default_factory=dict, description="share of the current bytes by age bin, from last modified (storage.age)"
    )


class _Tally:
    def __init__(self, modified: dict[str, dt.datetime] | None = None) -> None:
        self.modified = modified  # each current key's last modified, when asked (ingest access-log --inventory)
        self.objects = self.bytes = 0
        self.noncurrent = self.noncurrent_bytes = self.markers = 0
        self.bins: dict[int, list[int]] = {}
        self.classes: dict[str, list[int]] = {}
        self.noncurrent_classes: dict[str, int] = {}
        self.int_bytes = 0
        self.tier_bytes: dict[int, int] = {}
        self.age_bins: dict[int, int] = {}  # ages in days, binned by whole day
        self.age_bytes: dict[int, int] = {}  # bytes by whole day of age
        self.max_age = 0.0
        self.bad = 0
        self.first_bad: list[str] = []

    def add(self, row: dict[str, str], taken: dt.datetime, where: str) -> None:
        if row.get("is_delete_marker", "").lower() == "true":
            self.markers += 1
            return
        try:
            size = int(row["size"])
            if size < 0:
                raise ValueError
        except (KeyError, ValueError):
            self._bad(where, f"size {row.get('size', '')!r} is not a byte count")
            return
        name = row.get("storage_class", "") or "STANDARD"
        cls = CLASSES.get(name, name.lower().replace("_", "-"))
        if row.get("is_latest", "true").lower() == "false":
            self.noncurrent += 1
            self.noncurrent_bytes += size
            self.noncurrent_classes[cls] = self.noncurrent_classes.get(cls, 0) + size
            return
        self.objects += 1
        self.bytes += size
        low = 0 if size == 0 else 1 << (size.bit_length() - 1)
        entry = self.bins.setdefault(low, [0, 0])
        entry[0] += 1
        entry[1] += size
        share = self.classes.setdefault(cls, [0, 0])
        share[0] += 1
        share[1] += size
        if cls == "intelligent-tiering":
            self.int_bytes += size
            days = _UNREAD_DAYS.get(row.get("intelligent_tiering_access_tier", "").upper())
            if days:
                self.tier_bytes[days] = self.tier_bytes.get(days, 0) + size
        modified = row.get("last_modified_date", "")
        if modified:
            try:
                age = (taken - _timestamp(modified)).total_seconds() / 86400
            except ValueError:
                self._bad(where, f"last modified date {modified[:40]!r} is not a timestamp")
                return
            age = max(age, 0.0)
            if self.modified is not None and row.get("key"):
                self.modified[row["key"]] = _timestamp(modified)
            self.max_age = max(self.max_age, age)
            day = int(age)
            self.age_bins[day] = self.age_bins.get(day, 0) + 1
            self.age_bytes[day] = self.age_bytes.get(day, 0) + size

    def _bad(self, where: str, reason: str) -> None:
        self.bad += 1
        if len(self.first_bad) < 5:
            self.first_bad.append(f"{where}: {reason}")

    def ages(self) -> dict[str, float]:
        total = sum(self.age_bins.values())
        if not total:
            return {}
        out: dict[str, float] = {}
        for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
            seen = 0
            for day in sorted(self.age_bins):
                seen += self.age_bins[day]
                if seen >= q * total:
                    out[name] = float(day + 1)  # the upper edge of the day bin
                    break
        out["max"] = round(self.max_age, 2)
        return out


def _timestamp(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    return plausible(value if value.tzinfo else value.replace(tzinfo=dt.UTC), "last-modified date")


def _manifest(path: Path) -> tuple[str, list[str], list[Path], str | None, dt.datetime | None]:
    """(format, CSV columns, data files, bucket, taken) from a manifest.json."""
    source = str(path)
    manifest = load_json(path, what="inventory manifest", limit_bytes=_MANIFEST_LIMIT)
    if not isinstance(manifest, dict) or "files" not in manifest or "fileFormat" not in manifest:
        raise InputError("not an S3 Inventory manifest (no fileFormat or files)", source=source)
    if not isinstance(manifest["files"], list):
        kind = type(manifest["files"]).__name__
        raise InputError(f"files must be a list of data files, not {kind}", source=source, field="files")
    fmt = str(manifest["fileFormat"]).upper()
    if fmt not in ("CSV", "PARQUET", "ORC"):
        raise InputError(f"fileFormat {fmt!r} is not CSV, Parquet or ORC", source=source)
    schema = str(manifest.get("fileSchema", ""))
    columns = [snake(c.strip()) for c in schema.split(",")] if fmt == "CSV" else []
    if fmt == "CSV" and "size" not in columns:
        raise InputError("fileSchema has no Size column: the inventory cannot give sizes", source=source)
    files = []
    for entry in manifest["files"]:
        key = str(entry.get("key", "")) if isinstance(entry, dict) else ""
        if key and (Path(key).is_absolute() or ".." in Path(key).parts or "\x00" in key):
            raise InputError(
                f"data file {key!r} is outside the manifest's folder (a manifest names its data files by key,"
                " inside its inventory)",
                source=source,
            )
        found = _data_file(path, key) if key else None
        if found is None:
            raise InputError(f"data file {key!r} not found beside the manifest", source=source)
        files.append(found)
    taken = None
    stamp = manifest.get("creationTimestamp")
    if stamp is not None:
        try:
            taken = dt.datetime.fromtimestamp(int(stamp) / 1000, tz=dt.UTC)
        except (TypeError, ValueError, OverflowError, OSError):
            raise InputError(f"creationTimestamp {stamp!r} is not milliseconds since 1970", source=source) from None
        try:
            plausible(taken, "creationTimestamp")
        except ValueError as error:
            raise InputError(str(error), source=source) from None
    bucket = manifest.get("sourceBucket")
    return fmt, columns, files, str(bucket) if bucket else None, taken


def _data_file(manifest: Path, key: str) -> Path | None:
    """A data file named in a manifest, in a local copy of the inventory: the key from the copy's root
    (any folder above the manifest), or the file name beside the manifest or in the report's data/
    folder (``<config>/<date>/manifest.json`` beside ``<config>/data/``)."""
    name = Path(key).name
    folders = [manifest.parent, *list(manifest.parent.parents)[:6]]
    candidates = [(f, f / key) for f in folders]
    candidates += [(manifest.parent, manifest.parent / name), (manifest.parent, manifest.parent / "data" / name)]
    candidates.append((manifest.parent.parent, manifest.parent.parent / "data" / name))
    # a symbolic link does not lead out of the folder the key was looked up in
    return next((c for base, c in candidates if c.is_file() and c.resolve().is_relative_to(base.resolve())), None)


def _csv_rows(path: Path, columns: list[str]) -> Iterator[tuple[str, dict[str, str]]]:
    try:
        with open_stream(path, what="readable inventory CSV") as raw:
            reader = csv.reader(text_lines(raw, source=str(path), what="readable inventory CSV"))
            for row in reader:
                yield f"{path.name}:{reader.line_num}", dict(zip(columns, row, strict=False))
    except csv.Error as error:
        message = " ".join(str(error).split())[:100]
        raise InputError(f"not a readable inventory CSV ({message})", source=str(path)) from None


def _columnar_rows(path: Path, fmt: Literal["PARQUET", "ORC"]) -> Iterator[tuple[str, dict[str, str]]]:
    check_input_file(path, what=f"{fmt.title()} file")  # a FIFO would block pyarrow's open
    try:
        if fmt == "PARQUET":
            import pyarrow.parquet as pq

            batches: Iterable[object] = pq.ParquetFile(path).iter_batches(batch_size=65_536)
        else:
            import pyarrow.orc as orc

            orc_file = orc.ORCFile(path)
            batches = (orc_file.read_stripe(i) for i in range(orc_file.nstripes))
    except ImportError:
        raise InputError(
            f"reading {fmt.title()} needs pyarrow: pip install 'objstore-planner[ingest]'", source=str(path)
        ) from None
    except Exception as error:  # pyarrow's own error types for a file that is not what it says
        message = " ".join(str(error).split())[:100]
        raise InputError(f"not a {fmt.title()} file ({message})", source=str(path)) from None
    number = 0
    for batch in batches:
        names = [snake(n) for n in batch.schema.names]  # type: ignore[attr-defined]
        for values in zip(*(c.to_pylist() for c in batch.columns), strict=True):  # type: ignore[attr-defined]
            number += 1
            row = {n: "" if v is None else _text(v) for n, v in zip(names, values, strict=True)}
            yield f"{path.name}:row {number}", row


def _text(value: object) -> str:
    if isinstance(value, dt.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=dt.UTC)).isoformat()
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def read_inventory(
    paths: Iterable[Path],
    *,
    schema: str | None = None,
    taken: dt.datetime | None = None,
    progress: Callable[[float], None] | None = None,
    modified: dict[str, dt.datetime] | None = None,
) -> Inventory:
    """Summarise an inventory: a manifest.json (which names its data files and schema), or data files
    themselves (Parquet/ORC name their columns; CSV needs ``schema``, the manifest's fileSchema). ``modified``
    is filled with each current key's last-modified time."""
    tally = _Tally(modified)
    files: list[str] = []
    bucket: str | None = None
    moment = taken
    sources: list[tuple[Path, str, list[str]]] = []
    for path in paths:
        name = path.name.lower()
        if name.endswith(".json"):
            fmt, columns, data, bucket, stamp = _manifest(path)
            moment = moment or stamp
            sources += [(d, fmt, columns) for d in data]
        elif name.endswith(".parquet"):
            sources.append((path, "PARQUET", []))
        elif name.endswith(".orc"):
            sources.append((path, "ORC", []))
        else:
            if not schema:
                raise InputError(
                    "a CSV inventory has no header: give its manifest.json, or --schema with the manifest's"
                    ' fileSchema (e.g. "Bucket, Key, Size, LastModifiedDate, StorageClass")',
                    source=str(path),
                )
            sources.append((path, "CSV", [snake(c.strip()) for c in schema.split(",")]))
    if not sources:
        raise InputError("give a manifest.json or inventory data files")
    moment = moment or dt.datetime.now(dt.UTC)
    seen = 0
    for path, fmt, columns in sources:
        files.append(str(path))
        rows = _csv_rows(path, columns) if fmt == "CSV" else _columnar_rows(path, fmt)  # type: ignore[arg-type]
        for where, row in rows:
            seen += 1
            if progress is not None and seen % 100_000 == 0:
                progress(seen)
            if bucket is None and row.get("bucket"):
                bucket = row["bucket"]
            tally.add(row, moment, where)
    if not tally.objects and not tally.noncurrent:
        raise InputError(
            "the inventory lists no objects"
            + (f" ({tally.bad:,} unreadable rows; the first, {tally.first_bad[0]})" if tally.first_bad else "")
        )
    unread = {}
    if tally.int_bytes:
        for days in sorted(tally.tier_bytes):
            # bytes that reached a tier of N days, or a later one, went N days unread
            later = sum(b for d, b in tally.tier_bytes.items() if d >= days)
            unread[days] = later / tally.int_bytes
    return Inventory(
        bucket=bucket,
        files=files,
        taken=moment,
        objects=tally.objects,
        bytes=tally.bytes,
        noncurrent_versions=tally.noncurrent,
        noncurrent_bytes=tally.noncurrent_bytes,
        noncurrent_classes=dict(sorted(tally.noncurrent_classes.items())),
        delete_markers=tally.markers,
        size_bins=[SizeBin(low=low, objects=n, bytes=b) for low, (n, b) in sorted(tally.bins.items())],
        classes={c: ClassShare(objects=n, bytes=b) for c, (n, b) in sorted(tally.classes.items())},
        unread=unread,
        age_days=tally.ages(),
        bad_rows=tally.bad,
        first_bad=tally.first_bad,
        age_shares=age_shares(tally.age_bytes),
    )


def placement(inventory: Inventory) -> dict[str, int]:
    """Bytes by storage class, noncurrent versions included (they are billed in their class too)."""
    held: dict[str, int] = {}
    for cls, share in inventory.classes.items():
        held[cls] = held.get(cls, 0) + share.bytes
    for cls, size in inventory.noncurrent_classes.items():
        held[cls] = held.get(cls, 0) + size
    return {cls: size for cls, size in sorted(held.items(), key=lambda kv: -kv[1]) if size > 0}


def placement_lines(inventory: Inventory) -> list[str]:
    """The workload's ``placement:`` lines, or a comment saying why there are none."""
    held = placement(inventory)
    if not held:
        return []
    unknown = sorted(set(held) - storage_class_ids())
    if unknown:
        return [f"  # no placement: {', '.join(unknown)} is in no price table; cost prices one --class"]
    return ["  # bytes by class (noncurrent versions in theirs): cost prices each class on its own", "  placement:"] + [
        f'    {cls}: "{size} B"' for cls, size in held.items()
    ]


def size_distribution(inventory: Inventory, *, max_bins: int = 24) -> list[tuple[int, float]]:
    """(size, share of objects) per power-of-two bin, the size being the bin's mean so that the
    distribution's mean times the count gives the inventory's bytes; adjacent bins merge beyond
    ``max_bins``. Zero-byte objects count as 1 byte (a workload object holds at least one)."""
    bins = [(b.objects, b.bytes) for b in inventory.size_bins]
    while len(bins) > max_bins:  # merge the adjacent pair with the fewest objects
        i = min(range(len(bins) - 1), key=lambda k: bins[k][0] + bins[k + 1][0])
        bins[i : i + 2] = [(bins[i][0] + bins[i + 1][0], bins[i][1] + bins[i + 1][1])]
    total = sum(n for n, _ in bins)
    return [(max(round(b / n), 1), n / total) for n, b in bins if n]


def storage_block(inventory: Inventory) -> str:
    """The workload's ``storage:`` section from an inventory, with each figure's source."""
    taken = inventory.taken.date().isoformat() if inventory.taken else "unknown"
    where = comment_text(f"S3 Inventory of {inventory.bucket or 'the bucket'} taken {taken}")
    lines = ["storage:", f"  # {where}: {inventory.objects:,} current objects, {inventory.bytes:,} bytes"]
    if inventory.noncurrent_versions:
        lines.append(
            f"  # plus {inventory.noncurrent_versions:,} noncurrent versions"
            f" ({format_bytes(inventory.noncurrent_bytes)}), billed too: they are included in stored"
        )
    stored = inventory.bytes + inventory.noncurrent_bytes
    lines.append(f'  stored: "{stored} B"')
    shares = ", ".join(
        f"{cls} {format_bytes(s.bytes)} ({100 * s.bytes / inventory.bytes:.1f} %)" if inventory.bytes else cls
        for cls, s in sorted(inventory.classes.items(), key=lambda kv: -kv[1].bytes)
    )
    lines.append(f"  # current objects by class: {shares}")
    lines += placement_lines(inventory)
    lines.append(
        "  # sizes: power-of-two bins of the listed objects, each at its mean size (bytes kept to a byte an object)"
    )
    lines.append("  size_distribution:")
    distribution = size_distribution(inventory)
    for size, share in distribution:
        lines.append(f'    - {{size: "{size} B", share: {share:.12g}}}')
    ages = inventory.age_days
    if ages:
        lines.append(
            f"  # object age from last modified: p50 {ages.get('p50', 0):g} d, p90 {ages.get('p90', 0):g} d,"
            f" max {ages['max']:g} d"
            + (
                f"; if a lifecycle rule expires objects, retention is about {math.ceil(ages['max'])}d (not set:"
                " an inventory cannot tell expiry from a young bucket)"
                if ages["max"] > 0
                else ""
            )
        )
    lines += age_lines(inventory.age_shares)
    tiered = inventory.classes.get("intelligent-tiering")
    if inventory.unread and tiered is not None and tiered.bytes < 0.99 * inventory.bytes:
        shown = ", ".join(f"{d}d {100 * s:.3g} %" for d, s in sorted(inventory.unread.items()))
        lines.append(
            f"  # Intelligent-Tiering bytes unread for at least: {shown}; not set as unread, which speaks of all"
            " the stored bytes, and the inventory cannot tell when the other classes' objects were read"
        )
    elif inventory.unread:
        lines.append("  # Intelligent-Tiering access tiers: bytes in a tier reached after N days without access")
        lines.append("  unread:")
        for days, share in sorted(inventory.unread.items()):
            lines.append(f'    "{days}d": "{100 * share:.4g}%"')
    return "\n".join(lines) + "\n"


def replace_storage(text: str, block: str) -> str:
    """``text`` (a workload file) with its top-level ``storage:`` section replaced by ``block``."""
    return replace_section(text, "storage", block)


def replace_section(text: str, key: str, block: str, *, missing_ok: bool = False) -> str:
    """``text`` (a YAML workload in block style) with its top-level ``key:`` section replaced by
    ``block``; a missing section is an error, or with ``missing_ok`` appended."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith(f"{key}:")), None)
    if start is None:
        if missing_ok:
            return text + ("" if text.endswith("\n") or not text else "\n") + block
        raise InputError(f"the workload has no top-level {key}: section to replace")
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i][:1] not in (" ", "\t", "\n", "#", "")),
        len(lines),
    )
    # comments just above the next key belong to it
    while end > start + 1 and lines[end - 1].startswith("#"):
        end -= 1
    return "".join(lines[:start]) + block + "".join(lines[end:])
