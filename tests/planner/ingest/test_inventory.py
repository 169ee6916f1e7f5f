"""`planner ingest inventory`: a generated population written as S3 Inventory reports (CSV with its
manifest, Parquet, ORC) reads back to the counts, sizes, classes and ages it was generated with."""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import json
import random
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest

from planner.errors import InputError
from planner.ingest.inventory import read_inventory, replace_storage, size_distribution, storage_block
from planner.workload import load_workload
from tests.planner.conftest import Result

SCHEMA = (
    "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate, StorageClass,"
    " IntelligentTieringAccessTier"
)
TAKEN = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def _population(seed: int = 7) -> list[dict[str, object]]:
    """2,000 current objects over 1 B .. 64 MiB in four classes, ages 0-89 days, 50 noncurrent
    versions and 10 delete markers."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    classes = ["STANDARD"] * 5 + ["STANDARD_IA", "GLACIER", "INTELLIGENT_TIERING"]
    for i in range(2000):
        size = int(2 ** rng.uniform(0, 26))
        cls = rng.choice(classes)
        tier = rng.choice(["FREQUENT", "INFREQUENT", "ARCHIVE_INSTANT_ACCESS"]) if cls == "INTELLIGENT_TIERING" else ""
        rows.append(
            {
                "bucket": "media",
                "key": f"photos/{i} a+b.jpg",
                "version_id": "",
                "is_latest": True,
                "is_delete_marker": False,
                "size": size,
                "last_modified_date": TAKEN - dt.timedelta(days=rng.uniform(0, 89.5)),
                "storage_class": cls,
                "intelligent_tiering_access_tier": tier,
            }
        )
    for i in range(50):
        rows.append({**rows[i], "version_id": f"v{i}", "is_latest": False, "size": 1000})
    for i in range(10):
        rows.append({**rows[i], "version_id": f"d{i}", "is_delete_marker": True, "size": None})
    return rows


def _expected(rows: list[dict[str, object]]) -> dict[str, object]:
    current = [r for r in rows if r["is_latest"] and not r["is_delete_marker"]]
    return {
        "objects": len(current),
        "bytes": sum(int(r["size"]) for r in current),  # type: ignore[call-overload]
        "glacier": sum(int(r["size"]) for r in current if r["storage_class"] == "GLACIER"),  # type: ignore[call-overload]
        "oldest": max((TAKEN - r["last_modified_date"]).total_seconds() / 86400 for r in current),  # type: ignore[operator]
    }


def _write_csv_report(folder: Path, rows: list[dict[str, object]]) -> Path:
    # the layout of a synced inventory: <config>/data/<file> and <config>/<date>/manifest.json
    data = folder / "data" / "part-0.csv.gz"
    data.parent.mkdir(parents=True)
    with gzip.open(data, "wt", newline="") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
        for r in rows:
            writer.writerow(
                [
                    r["bucket"],
                    quote(str(r["key"])),
                    r["version_id"],
                    str(r["is_latest"]).lower(),
                    str(r["is_delete_marker"]).lower(),
                    "" if r["size"] is None else r["size"],
                    r["last_modified_date"].strftime("%Y-%m-%dT%H:%M:%S.000Z"),  # type: ignore[attr-defined]
                    r["storage_class"],
                    r["intelligent_tiering_access_tier"],
                ]
            )
    manifest = folder / "2026-11-01T00-00Z" / "manifest.json"
    manifest.parent.mkdir()
    manifest.write_text(
        json.dumps(
            {
                "sourceBucket": "media",
                "destinationBucket": "arn:aws:s3:::inventory",
                "version": "2016-11-30",
                "creationTimestamp": str(int(TAKEN.timestamp() * 1000)),
                "fileFormat": "CSV",
                "fileSchema": SCHEMA,
                "files": [{"key": "media/inv/data/part-0.csv.gz", "size": 1, "MD5checksum": "x"}],
            }
        )
    )
    return manifest


def _check(summary: object, rows: list[dict[str, object]]) -> None:
    expected = _expected(rows)
    assert summary.objects == expected["objects"] == 2000  # type: ignore[attr-defined]
    assert summary.bytes == expected["bytes"]  # type: ignore[attr-defined]
    assert summary.noncurrent_versions == 50 and summary.noncurrent_bytes == 50_000  # type: ignore[attr-defined]
    assert summary.delete_markers == 10  # type: ignore[attr-defined]
    assert summary.classes["glacier-flexible"].bytes == expected["glacier"]  # type: ignore[attr-defined]
    assert sum(c.objects for c in summary.classes.values()) == 2000  # type: ignore[attr-defined]
    assert abs(summary.age_days["max"] - expected["oldest"]) < 0.01  # type: ignore[attr-defined]
    # each power-of-two bin holds exactly the objects of that size range
    for b in summary.size_bins:  # type: ignore[attr-defined]
        inside = [r for r in rows[:2000] if b.low <= int(r["size"]) < max(2 * b.low, 1)]  # type: ignore[call-overload]
        assert b.objects == len(inside) and b.bytes == sum(int(r["size"]) for r in inside)  # type: ignore[call-overload]


def test_a_csv_report_with_its_manifest_reads_back(tmp_path: Path) -> None:
    rows = _population()
    summary = read_inventory([_write_csv_report(tmp_path, rows)])
    assert summary.bucket == "media" and summary.taken == TAKEN
    _check(summary, rows)
    # Intelligent-Tiering: the bytes in INFREQUENT or later went 30 days unread, ARCHIVE_INSTANT 90
    tiered = [r for r in rows[:2000] if r["storage_class"] == "INTELLIGENT_TIERING"]
    total = sum(int(r["size"]) for r in tiered)  # type: ignore[call-overload]
    archive = sum(int(r["size"]) for r in tiered if r["intelligent_tiering_access_tier"] == "ARCHIVE_INSTANT_ACCESS")  # type: ignore[call-overload]
    infrequent = sum(int(r["size"]) for r in tiered if r["intelligent_tiering_access_tier"] == "INFREQUENT")  # type: ignore[call-overload]
    assert summary.unread[90] == pytest.approx(archive / total)
    assert summary.unread[30] == pytest.approx((archive + infrequent) / total)


@pytest.mark.parametrize("fmt", ["parquet", "orc"])
def test_parquet_and_orc_reports_read_back_alike(tmp_path: Path, fmt: str) -> None:
    pa = pytest.importorskip("pyarrow")
    rows = _population()
    table = pa.Table.from_pylist(rows)
    path = tmp_path / f"part-0.{fmt}"
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, path)
    else:
        import pyarrow.orc as orc

        orc.write_table(table, path)
    _check(read_inventory([path], taken=TAKEN), rows)


def test_the_size_distribution_keeps_the_bytes_and_the_workload_loads(tmp_path: Path) -> None:
    summary = read_inventory([_write_csv_report(tmp_path, _population())])
    distribution = size_distribution(summary)
    assert sum(share for _, share in distribution) == pytest.approx(1.0)
    mean = sum(size * share for size, share in distribution)
    # each bin at its mean size: the count times the mean is the bytes, to within a byte an object
    assert abs(mean * summary.objects - summary.bytes) <= summary.objects
    merged = size_distribution(summary, max_bins=5)
    assert len(merged) == 5 and abs(sum(s * p for s, p in merged) * summary.objects - summary.bytes) <= summary.objects
    (tmp_path / "w.yaml").write_text("name: media\n" + storage_block(summary))
    workload = load_workload(tmp_path / "w.yaml")
    assert workload.storage.stored == summary.bytes + summary.noncurrent_bytes
    assert workload.storage.unread is None  # 1/8 of the data is Intelligent-Tiering: not the whole bucket's


def test_the_workload_states_its_placement_noncurrent_versions_in_their_class(tmp_path: Path) -> None:
    rows = _population()
    summary = read_inventory([_write_csv_report(tmp_path, rows)])
    (tmp_path / "w.yaml").write_text("name: media\n" + storage_block(summary))
    placement = load_workload(tmp_path / "w.yaml").storage.placement
    assert placement is not None
    expected: dict[str, int] = {}
    names = {"STANDARD": "standard", "STANDARD_IA": "standard-ia", "GLACIER": "glacier-flexible"}
    names["INTELLIGENT_TIERING"] = "intelligent-tiering"
    for row in rows:
        if not row["is_delete_marker"]:  # the 50 noncurrent versions of 1,000 B stay in their object's class
            cls = names[str(row["storage_class"])]
            expected[cls] = expected.get(cls, 0) + int(row["size"])  # type: ignore[call-overload]
    assert placement == expected
    assert placement["glacier-flexible"] >= _expected(rows)["glacier"]  # type: ignore[operator]
    assert sum(placement.values()) == summary.bytes + summary.noncurrent_bytes


def test_into_replaces_only_the_storage_section() -> None:
    text = (
        '# head\nname: x\nstorage:\n  stored: "1 TB"\n  object_size: "1 MiB"\n# traffic from the bill\n'
        "traffic:\n  reads: 5\n"
    )
    out = replace_storage(text, 'storage:\n  stored: "2 TB"\n  objects: 7\n')
    assert (
        out
        == '# head\nname: x\nstorage:\n  stored: "2 TB"\n  objects: 7\n# traffic from the bill\ntraffic:\n  reads: 5\n'
    )
    with pytest.raises(InputError, match="no top-level storage"):
        replace_storage("name: x\n", "storage:\n")


def test_a_headerless_csv_needs_its_schema(tmp_path: Path) -> None:
    path = tmp_path / "part.csv"
    path.write_text('"media","k","10"\n"media","k2","30"\n')
    with pytest.raises(InputError, match="no header"):
        read_inventory([path])
    summary = read_inventory([path], schema="Bucket, Key, Size")
    assert (summary.objects, summary.bytes, summary.bucket) == (2, 40, "media")


def test_cli_writes_a_workload_and_fills_one_from_the_bill(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    manifest = _write_csv_report(tmp_path / "inv", _population())
    result = run_cli("ingest", "inventory", str(manifest), "--out", str(tmp_path / "w"))
    assert result.code == 0, result.err
    assert "2,000 current objects" in result.out and (tmp_path / "w" / "media.yaml").is_file()
    cur = Path(__file__).resolve().parents[2] / "fixtures" / "aws-cur-sample-anonymous.csv"
    assert run_cli("ingest", "cur", str(cur), "--out", str(tmp_path / "bill")).code == 0
    west = tmp_path / "bill" / "us-west-2.yaml"
    assert run_cli("ingest", "inventory", str(manifest), "--into", str(west)).code == 0
    workload = load_workload(west)
    assert workload.storage.size_distribution is not None and workload.storage.object_size is None
    assert workload.traffic.writes == 45_849  # the bill's traffic is kept
    both = run_cli("ingest", "inventory", str(manifest))
    assert both.code == 2 and "either --out" in both.err


def test_an_inventory_of_nothing_readable_names_its_first_bad_row(tmp_path: Path) -> None:
    # "the inventory lists no objects (1 unreadable rows)" had named neither the row nor what was wrong
    path = tmp_path / "inv.csv"
    path.write_text('"b","k","abc","2026-01-01T00:00:00Z","STANDARD"\n')
    with pytest.raises(InputError, match=r"no objects \(1 unreadable rows; the first, inv.csv:1: size 'abc' is not"):
        read_inventory([path], schema="Bucket, Key, Size, LastModifiedDate, StorageClass")
