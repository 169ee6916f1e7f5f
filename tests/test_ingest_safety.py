"""What ``planner ingest`` writes is safe and complete (issue 28, items 4, 8, 11 and 13): every value
from a bill is escaped, every scope gets its own file (the same bucket named two ways is one),
the bill's region is in the workload, and rows no workload could hold are refused where they
are read, naming their line and column."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from planner.errors import InputError
from planner.ingest import read_bill, workloads
from planner.ingest.escape import comment_text, yaml_string
from planner.workload import load_workload
from planner.workload.load import parse_workload
from tests.reliability.conftest import invoke

HEADER = (
    "identity/LineItemId,bill/BillingPeriodStartDate,lineItem/LineItemType,lineItem/ProductCode,"
    "lineItem/ResourceId,lineItem/UsageType,lineItem/Operation,lineItem/UsageAmount,lineItem/UnblendedRate,"
    "lineItem/UnblendedCost,pricing/unit,product/regionCode"
)
PERIOD = "2026-11-01T00:00:00Z"
MANIFEST = {"sourceBucket": "b", "fileFormat": "CSV", "fileSchema": "Bucket, Key, Size"}


def _row(number: int, resource: str, usage_type: str, operation: str, amount: str, unit: str = "GB-Mo") -> str:
    quoted = '"' + resource.replace('"', '""') + '"'
    return f"{number},{PERIOD},Usage,AmazonS3,{quoted},{usage_type},{operation},{amount},0.023,1.0,{unit},us-west-2"


def _cur(tmp_path: Path, *rows: str, header: str = HEADER) -> Path:
    path = tmp_path / "cur.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8", newline="")
    return path


# ------------------------------------------------------------------ item 11: one file per scope


def test_the_same_bucket_named_by_arn_and_by_name_is_one_workload(tmp_path: Path) -> None:
    cur = _cur(
        tmp_path,
        _row(1, "arn:aws:s3:::media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1024"),
        _row(2, "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1024"),
    )
    result = invoke("ingest", "cur", str(cur), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["media.yaml"]
    # 1,024 + 1,024 GB-months: both rows are in the one file, none lost
    assert load_workload(tmp_path / "out" / "media.yaml").storage.stored == 2048 * 2**30
    # --bucket finds both forms
    only = read_bill([cur], bucket="arn:aws:s3:::media")
    assert {g.scope for g in only.groups} == {"media"} and sum(g.rows for g in only.groups) == 2


def test_scopes_whose_names_would_meet_get_files_of_their_own(tmp_path: Path) -> None:
    cur = _cur(
        tmp_path,
        _row(1, "arn:aws:s3:::a/media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1"),
        _row(2, "arn:aws:s3:::b/media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "2"),
        _row(3, "Media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "3"),
        _row(4, "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "4"),
    )
    produced = workloads(read_bill([cur]))
    names = [w.name for w in produced]
    assert len(set(names)) == len({n.lower() for n in names}) == 4  # four scopes, four files
    assert "media.yaml" not in names and all(n.endswith(".yaml") and "/" not in n for n in names)
    result = invoke("ingest", "cur", str(cur), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    stored = sorted(load_workload(p).storage.stored // 2**30 for p in (tmp_path / "out").iterdir())
    assert stored == [1, 2, 3, 4]


# ------------------------------------------------------------------ item 8: escaped, refused where read


def test_a_resource_id_with_a_newline_cannot_become_a_key(tmp_path: Path) -> None:
    hostile = "logs\nclient: {link: 1 Mbps}\n#"
    cur = _cur(tmp_path, _row(1, hostile, "USW2-TimedStorage-ByteHrs", "StandardStorage", "10"))
    result = invoke("ingest", "cur", str(cur), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    (written,) = (tmp_path / "out").iterdir()
    data = yaml.safe_load(written.read_text())
    assert set(data) == {"name", "description", "storage", "traffic", "constraints"}  # no client: key
    assert data["name"] == "logs\\nclient: {link: 1 Mbps}\\n#"  # the id, escaped, on one line
    assert load_workload(written).client.link == 10e9  # the default 10 Gbps, not 1 Mbps
    assert "# Workload of logs\\nclient: {link: 1 Mbps}\\n# (us-west-2)" in written.read_text()


@pytest.mark.parametrize("text", ["plain", 'a"b\\c', "x\ny: 1", "\x00\x85\u2028", "media\U0001f600", "é" * 3])
def test_values_from_an_input_round_trip_as_one_yaml_line(text: str) -> None:
    line = yaml_string(text)
    assert "\n" not in line and yaml.safe_load(f"key: {line}") == {"key": text}
    assert "\n" not in comment_text(text) and "\u2028" not in comment_text(text)


def test_a_duplicated_usage_amount_column_is_refused(tmp_path: Path) -> None:
    header = HEADER + ",lineItem/UsageAmount"
    row = _row(1, "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1024") + ","
    result = invoke("ingest", "cur", str(_cur(tmp_path, row, header=header)), "--out", str(tmp_path / "out"))
    assert result.code == 2 and result.out == ""
    assert result.err == (
        f"planner: {tmp_path / 'cur.csv'}: column lineItem/UsageAmount appears twice (also as lineItem/UsageAmount,"
        " before column 13): which one holds the figures is unknown\n"
    )
    assert not (tmp_path / "out").exists()


def test_a_duplicated_column_nobody_reads_is_no_reason_to_refuse(tmp_path: Path) -> None:
    header = HEADER + ",resourceTags/user:Team,resourceTags/user:team"
    row = _row(1, "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1024") + ",a,b"
    assert invoke("ingest", "cur", str(_cur(tmp_path, row, header=header)), "--out", str(tmp_path / "o")).code == 0


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (
            _row(1, "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "-5"),
            "line 2, column lineItem/UsageAmount: -5 is negative: usage is 0 or more",
        ),
        (  # 100 EB is 9.3e10 GiB: 1e11 GB-months is past every workload limit
            _row(1, "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "100000000000"),
            "line 2, column lineItem/UsageAmount: 100000000000 GB-Mo is beyond any real workload (more than 100 EB)",
        ),
        (
            _row(1, "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1e309"),
            "line 2, column lineItem/UsageAmount: '1e309' is not a finite number below 10^18",
        ),
        (
            _row(1, "media", "USW2-Requests-Tier2", "GetObject", "2000000000000000", "Requests"),
            "line 2, column lineItem/UsageAmount: 2000000000000000 requests is beyond any real workload"
            " (more than 10^15)",
        ),
        (
            _row(1, "me\x00dia", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1"),
            "line 2, column lineItem/ResourceId: holds a NUL byte (a damaged or binary file)",
        ),
    ],
)
def test_usage_no_workload_could_hold_is_refused_where_it_is_read(tmp_path: Path, row: str, problem: str) -> None:
    cur = _cur(tmp_path, _row(0, "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1"), row)
    problem = problem.replace("line 2", "line 3")
    result = invoke("ingest", "cur", str(cur), "--out", str(tmp_path / "out"))
    assert (result.code, result.out) == (2, "")
    assert result.err == f"planner: {cur}: {problem}\n"
    assert not (tmp_path / "out").exists()
    with pytest.raises(InputError, match="line 3, column"):
        read_bill([cur])


def test_sums_past_the_limits_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    # each row is under the limit; their sum (2 x 6e10 GiB, over 100 EB) is not a workload
    rows = [_row(n, "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "60000000000") for n in (1, 2)]
    rows.append(_row(3, "other", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1"))
    result = invoke("ingest", "cur", str(_cur(tmp_path, *rows)), "--out", str(tmp_path / "out"))
    assert result.code == 2 and result.err.count("\n") == 1
    media = tmp_path / "out" / "media.yaml"
    assert result.err.startswith(f"planner: {media}: the workload of media cannot be written:")
    assert "storage.stored" in result.err and "more than 100 EB" in result.err
    assert not (tmp_path / "out").exists()  # not even other.yaml


# ------------------------------------------------------------------ item 4: the region is in the workload


def test_ingest_cur_records_the_region_and_cost_prices_it(tmp_path: Path) -> None:
    cur = Path(__file__).resolve().parent / "fixtures" / "aws-cur-sample-anonymous.csv"
    mine = tmp_path / "mine"
    assert invoke("ingest", "cur", str(cur), "--out", str(mine)).code == 0
    workload = load_workload(mine / "us-west-2.yaml")
    assert workload.constraints.regions == {"aws-s3": ["us-west-2"]}
    # us-east-1's rows hold traffic but no storage: a draft to fill in, which parse_workload checks
    east = parse_workload(yaml.safe_load((mine / "us-east-1.yaml").read_text()), "us-east-1.yaml")
    assert east.constraints.regions == {"aws-s3": ["us-east-1"]}
    priced = invoke("cost", str(mine / "us-west-2.yaml"), "-p", "aws-s3", "--as-of", "2026-12-01", "-f", "json")
    assert priced.code == 0, priced.err
    bill = json.loads(priced.out)
    assert bill["region"] == "us-west-2" and bill["table_version"] == "aws-s3/us-west-2@2026-09-01"
    # a region planner has no table for is said, not written as a constraint every command refuses
    canada = (mine / "ca-central-1.yaml").read_text()
    assert "# the bill's region ca-central-1 has no aws-s3 price table here" in canada
    assert load_workload(mine / "ca-central-1.yaml").constraints.regions == {}


def test_cost_refuses_to_guess_between_regions_the_workload_names(tmp_path: Path) -> None:
    cur = Path(__file__).resolve().parent / "fixtures" / "aws-cur-sample-anonymous.csv"
    assert invoke("ingest", "cur", str(cur), "--out", str(tmp_path)).code == 0
    path = tmp_path / "us-west-2.yaml"
    path.write_text(path.read_text().replace('aws-s3: ["us-west-2"]', "aws-s3: [us-west-2, eu-central-1]"))
    result = invoke("cost", str(path), "-p", "aws-s3", "--as-of", "2026-12-01")
    assert result.err == (
        f"planner: {path}: constraints.regions.aws-s3: names 2 regions for aws-s3 (us-west-2, eu-central-1):"
        " give --region\n"
    )


# ------------------------------------------------------------------ item 13: manifests stay in their inventory


@pytest.mark.parametrize("key", ["/etc/passwd", "../x.csv", "data/../../x.csv"])
def test_a_manifest_naming_a_file_outside_its_folder_is_refused(tmp_path: Path, key: str) -> None:
    folder = tmp_path / "inventory"
    folder.mkdir()
    (tmp_path / "x.csv").write_text('"b","k","1"\n')
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({**MANIFEST, "files": [{"key": key}]}))
    result = invoke("ingest", "inventory", str(manifest), "--out", str(tmp_path / "out"))
    assert result.code == 2
    assert result.err == (
        f"planner: {manifest}: data file {key!r} is outside the manifest's folder (a manifest names its data files"
        " by key, inside its inventory)\n"
    )


def test_a_symbolic_link_beside_the_manifest_does_not_lead_out(tmp_path: Path) -> None:
    folder = tmp_path / "inventory"
    folder.mkdir()
    (tmp_path / "secret.csv").write_text('"b","k","1"\n')
    (folder / "data.csv").symlink_to(tmp_path / "secret.csv")
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({**MANIFEST, "files": [{"key": "data.csv"}]}))
    result = invoke("ingest", "inventory", str(manifest), "--out", str(tmp_path / "out"))
    assert result.err == f"planner: {manifest}: data file 'data.csv' not found beside the manifest\n"


def test_a_nul_byte_in_a_parquet_export_names_its_row_and_column(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    columns = [c.strip() for c in HEADER.split(",")]
    rows = [
        ["1", PERIOD, "Usage", "AmazonS3", "media", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1"],
        ["2", PERIOD, "Usage", "AmazonS3", "me\x00dia", "USW2-TimedStorage-ByteHrs", "StandardStorage", "1"],
    ]
    rows = [[*row, "0.023", "1.0", "GB-Mo", "us-west-2"] for row in rows]
    path = tmp_path / "cur.parquet"
    parquet.write_table(pa.table({c: [row[i] for row in rows] for i, c in enumerate(columns)}), path)
    with pytest.raises(InputError) as caught:
        read_bill([path])
    assert str(caught.value) == (
        f"{path}: row 2, column lineItem/ResourceId: holds a NUL byte (a damaged or binary file)"
    )


def _focus(tmp_path: Path, change: dict[int, dict[str, str]]) -> Path:
    """The FOCUS sample with its us-west-2 rows given alternately an ARN and a bare bucket id."""
    source = Path(__file__).resolve().parent / "fixtures" / "focus-1.0-sample-s3.csv"
    with source.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for number, row in enumerate(rows):
        if row["RegionId"] == "us-west-2":
            row["ResourceId"] = "arn:aws:s3:::media" if number % 2 else "media"
        row.update(change.get(number, {}))
    path = tmp_path / "focus.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_focus_resource_arns_and_bare_ids_are_one_bucket_in_its_region(tmp_path: Path) -> None:
    result = invoke("ingest", "cur", str(_focus(tmp_path, {})), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["media.yaml", "us-east-1.yaml"]
    assert load_workload(tmp_path / "out" / "media.yaml").constraints.regions == {"aws-s3": ["us-west-2"]}


def test_a_negative_focus_quantity_names_the_consumed_quantity_column(tmp_path: Path) -> None:
    focus = _focus(tmp_path, {3: {"ConsumedQuantity": "-1.5"}})
    result = invoke("ingest", "cur", str(focus), "--out", str(tmp_path / "out"))
    assert result.err == f"planner: {focus}: line 5, column ConsumedQuantity: -1.5 is negative: usage is 0 or more\n"
