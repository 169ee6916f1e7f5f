"""Every file-writing option refuses an existing file without --force, before any work; writes
whole or not at all; writes only the files it names; and never lets a name from an input lead
out of its folder (issue 28, items 10 and 12; planner.writing)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from planner.errors import InputError
from planner.writing import atomic_output, refuse_existing, safe_name, write_all_atomically, write_atomically
from tests.reliability.conftest import Result, invoke

ROOT = Path(__file__).resolve().parents[1]
WEB = str(ROOT / "examples" / "web-assets.yaml")
SCRATCH = str(ROOT / "examples" / "pipeline-scratch.yaml")
OFFERS = ROOT / "tests" / "pricing" / "fixtures"
TRANSFER = ["--transfer", str(OFFERS / "aws-offer-datatransfer.json")]
OLD = b"the old file\n"
PNG = b"\x89PNG\r\n\x1a\n"


def _old(path: Path) -> Path:
    path.write_bytes(OLD)
    return path


def _refused(result: Result, option: str, path: Path) -> None:
    assert (result.code, result.out) == (2, ""), result
    assert result.err == f"planner: {option}: {path} exists (use --force to replace it)\n"
    assert path.read_bytes() == OLD


def _no_temp_files(folder: Path) -> None:
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == []


# ------------------------------------------------------------------ planner.writing


def test_refuse_existing_names_the_first_file_that_exists(tmp_path: Path) -> None:
    _old(tmp_path / "b.png")
    refuse_existing([tmp_path / "a.png", tmp_path / "b.png"], force=True)
    with pytest.raises(InputError) as caught:
        refuse_existing([tmp_path / "a.png", tmp_path / "b.png"], force=False, option="--plot")
    assert str(caught.value) == f"--plot: {tmp_path / 'b.png'} exists (use --force to replace it)"
    with pytest.raises(InputError) as folder:
        refuse_existing([tmp_path], force=True)
    assert str(folder.value) == f"--out: {tmp_path} is a folder, not a file to write"


def test_a_write_that_fails_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = _old(tmp_path / "trace.csv")
    with pytest.raises(RuntimeError), atomic_output(target, source="--trace") as handle:
        handle.write("half of a new trace\n")
        raise RuntimeError("the command failed half-way")
    assert target.read_bytes() == OLD
    _no_temp_files(tmp_path)
    write_atomically(target, "new\n", source="--trace")
    assert target.read_text() == "new\n" and (target.stat().st_mode & 0o777) == (0o666 & ~_umask())
    _no_temp_files(tmp_path)


def test_several_files_are_written_all_or_none(tmp_path: Path) -> None:
    first = _old(tmp_path / "us-west-2.yaml")
    second = tmp_path / "gone" / "media.yaml"
    with pytest.raises(InputError) as caught:
        write_all_atomically([(first, "new\n"), (second, b"new\n")], source="--out")
    assert str(caught.value) == f"--out: cannot write {second} (No such file or directory)"
    assert first.read_bytes() == OLD  # not replaced: the second could not be written
    _no_temp_files(tmp_path)
    write_all_atomically([(first, "new\n"), (tmp_path / "media.yaml", b"new\n")], source="--out")
    assert first.read_text() == (tmp_path / "media.yaml").read_text() == "new\n"
    _no_temp_files(tmp_path)


@pytest.mark.parametrize(("files", "has_sync"), [(100, True), (100, False), (64, True)])
def test_many_files_are_on_disk_before_any_replaces_its_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: int, has_sync: bool
) -> None:
    """Once all are written and before the first rename, every file is synced: an ``fsync`` each, or past
    64 files one ``sync`` where there is one (a million buckets' workloads took 2 ms a file synced one by one)."""
    events: list[str] = []
    renamed = os.replace

    def replace(source: Any, target: Any) -> None:
        events.append("rename")
        renamed(source, target)

    monkeypatch.setattr(os, "replace", replace)
    if has_sync:
        monkeypatch.setattr(os, "sync", lambda: events.append("sync"))
    else:
        monkeypatch.delattr(os, "sync", raising=False)
    synced = os.fsync

    def fsync(fd: int) -> None:
        events.append("fsync")
        synced(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    targets = [tmp_path / f"bucket-{n}.yaml" for n in range(files)]
    write_all_atomically([(t, f"{t.name}\n") for t in targets], source="--out")
    assert all(t.read_text() == f"{t.name}\n" for t in targets)
    _no_temp_files(tmp_path)
    synced_all = ["sync"] if files > 64 and has_sync else ["fsync"] * files
    assert events == synced_all + ["rename"] * files


def test_a_folder_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        write_atomically(tmp_path / "nowhere" / "p.json", "{}", source="--out")
    assert str(caught.value) == f"--out: cannot write {tmp_path / 'nowhere' / 'p.json'} (No such file or directory)"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("../../../escaped", "holds a slash, backslash or control character"),
        ("a/b", "holds a slash, backslash or control character"),
        ("a\\b", "holds a slash, backslash or control character"),
        ("x\ny", "holds a slash, backslash or control character"),
        ("..", "is not a name"),
        ("", "is not a name"),
        (".hidden", "starts with '-' or '.'"),
        ("x" * 256, "is longer than 255 bytes"),
    ],
)
def test_a_name_from_an_input_is_one_plain_name(text: str, problem: str) -> None:
    with pytest.raises(InputError) as caught:
        safe_name(text, "regionCode", "offer.json")
    shown = text if len(text) <= 80 else text[:77] + "..."
    assert str(caught.value) == f"offer.json: regionCode {shown!r} {problem}: it cannot name a file"


def test_a_plain_name_is_returned_unchanged() -> None:
    assert safe_name("us-west-2", "regionCode") == "us-west-2"


def _umask() -> int:
    import os

    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ------------------------------------------------------------------ every picture option


PICTURE_COMMANDS = [
    ("--plot", ["cost", WEB, "-p", "wasabi", "--months", "2", "--as-of", "2026-12-01"]),
    ("--plot", ["sweep", WEB, "--vary", "traffic.egress=0..10TB:2", "--as-of", "2026-12-01"]),
    ("--plot", ["recommend", WEB, "--no-simulate", "--as-of", "2026-12-01"]),
    ("--tornado-plot", ["recommend", WEB, "--no-simulate", "--samples", "10", "--as-of", "2026-12-01"]),
    ("--plot", ["migrate", WEB, "--from", "aws-s3", "--to", "wasabi", "--start", "2026-12-01"]),
    ("--plot", ["simulate", WEB, "--duration", "1s", "--replications", "1"]),
    ("--plot", ["profiles", "show", "aws-s3"]),
]


@pytest.mark.parametrize(("option", "args"), PICTURE_COMMANDS, ids=lambda v: v if isinstance(v, str) else v[0])
def test_every_picture_option_refuses_an_existing_file(tmp_path: Path, option: str, args: list[str]) -> None:
    picture = _old(tmp_path / "picture.png")
    _refused(invoke(*args, option, str(picture)), option, picture)


@pytest.mark.parametrize(
    "command",
    [
        ["cost", "-p", "wasabi", "--months", "2"],
        ["sweep", "--vary", "traffic.egress=0..10TB:2"],
        ["recommend"],
        ["migrate", "--from", "aws-s3", "--to", "wasabi"],
        ["simulate"],
    ],
    ids=lambda command: command[0],
)
def test_the_picture_is_refused_before_the_workload_is_read(tmp_path: Path, command: list[str]) -> None:
    picture = _old(tmp_path / "picture.svg")
    result = invoke(command[0], str(tmp_path / "no-such-workload.yaml"), *command[1:], "--plot", str(picture))
    assert result.err.startswith("planner: --plot: ") and "exists (use --force to replace it)" in result.err
    assert picture.read_bytes() == OLD


def test_a_picture_in_a_folder_that_does_not_exist_is_refused_before_any_work(tmp_path: Path) -> None:
    picture = tmp_path / "nowhere" / "p.svg"
    result = invoke("recommend", str(tmp_path / "no-such-workload.yaml"), "--plot", str(picture))
    assert result.err == f"planner: --plot: no such folder '{tmp_path / 'nowhere'}' to write p.svg in\n"


def test_trace_refuses_an_existing_file_before_reading_the_workload(tmp_path: Path) -> None:
    trace = _old(tmp_path / "t.csv")
    _refused(invoke("trace", str(tmp_path / "no-such-workload.yaml"), "--out", str(trace)), "--out", trace)


def test_force_replaces_the_picture(tmp_path: Path) -> None:
    picture = _old(tmp_path / "picture.png")
    args = ["cost", WEB, "-p", "wasabi", "--months", "2", "--as-of", "2026-12-01", "--plot", str(picture), "--force"]
    result = invoke(*args)
    assert result.code == 0, result.err
    assert picture.read_bytes().startswith(PNG)
    _no_temp_files(tmp_path)


def test_recommend_refuses_samples_with_prices_before_simulating_or_drawing(tmp_path: Path) -> None:
    picture = tmp_path / "p.png"
    args = ["recommend", WEB, "--samples", "10", "--prices", "aws-s3=x.yaml", "--plot", str(picture)]
    result = invoke(*args)
    assert result.err == "planner: --samples: --samples prices the shipped tables only; leave out --prices\n"
    assert not picture.exists()


def test_two_pictures_of_recommend_cannot_share_a_file(tmp_path: Path) -> None:
    picture = str(tmp_path / "p.png")
    result = invoke("recommend", WEB, "--samples", "10", "--plot", picture, "--tornado-plot", picture)
    assert result.err == "planner: --tornado-plot: names the same file as --plot: give each picture its own file\n"


def test_a_tornado_picture_of_the_wrong_kind_names_its_own_option(tmp_path: Path) -> None:
    result = invoke("recommend", WEB, "--samples", "10", "--tornado-plot", str(tmp_path / "t.pdf"))
    assert (
        result.err == f"planner: --tornado-plot: '{tmp_path / 't.pdf'}' is not a picture file name: use .png or .svg\n"
    )


# ------------------------------------------------------------------ report


def test_report_refuses_an_existing_report(tmp_path: Path) -> None:
    report = _old(tmp_path / "r.html")
    _refused(invoke("report", SCRATCH, "--out", str(report), "--no-simulate"), "--out", report)


def test_a_markdown_report_refuses_to_replace_pictures_nobody_named(tmp_path: Path) -> None:
    picture = _old(tmp_path / "r-projection.png")
    result = invoke("report", SCRATCH, "--out", str(tmp_path / "r.md"), "--no-simulate", "--as-of", "2026-12-01")
    _refused(result, "--out", picture)
    assert not (tmp_path / "r.md").exists()
    forced = invoke(
        "report", SCRATCH, "--out", str(tmp_path / "r.md"), "--no-simulate", "--as-of", "2026-12-01", "--force"
    )
    assert forced.code == 0, forced.err
    written = [tmp_path / f"r{suffix}" for suffix in (".md", "-recommendation.png", "-projection.png")]
    assert forced.out.splitlines()[:3] == [f"wrote {path}" for path in written]
    assert picture.read_bytes().startswith(PNG)
    _no_temp_files(tmp_path)


# ------------------------------------------------------------------ measure


def test_measure_refuses_an_existing_profile_before_it_contacts_the_endpoint(tmp_path: Path) -> None:
    profile = _old(tmp_path / "p.json")
    result = invoke("measure", "--bucket", "b", "--out", str(profile), "--endpoint", "http://127.0.0.1:9")
    _refused(result, "--out", profile)
    dry = invoke("measure", "--bucket", "b", "--out", str(profile), "--endpoint", "http://127.0.0.1:9", "--dry-run")
    assert dry.code == 0 and profile.read_bytes() == OLD  # a dry run writes nothing, so it refuses nothing


def test_measure_on_a_cluster_refuses_the_host_profiles_it_would_write_beside_out(tmp_path: Path) -> None:
    host_profile = _old(tmp_path / "p.worker-1.json")
    args = ["measure", "--bucket", "b", "--out", str(tmp_path / "p.json"), "--endpoint", "http://127.0.0.1:9"]
    _refused(invoke(*args, "--dask", "tcp://127.0.0.1:9"), "--out", host_profile)


def test_measure_merge_refuses_an_existing_profile_before_reading_its_inputs(tmp_path: Path) -> None:
    profile = _old(tmp_path / "merged.json")
    _refused(invoke("measure", "merge", str(tmp_path / "missing.json"), "--out", str(profile)), "--out", profile)


# ------------------------------------------------------------------ ingest


def test_a_failed_access_log_ingest_keeps_the_old_trace_even_with_force(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text(
        "owner media [01/Dec/2026:10:00:00 +0000] 192.0.2.9 arn:aws:iam::1:user/app REQ1 REST.GET.OBJECT k"
        ' "GET /media/k HTTP/1.1" 200 - 1000 1000 20 18 "-" "curl" - HOSTID SigV4 TLS_AES_128_GCM_SHA256'
        " AuthHeader media.s3.amazonaws.com TLSv1.3 - -\n"
    )
    trace = _old(tmp_path / "trace.csv")
    missing = tmp_path / "missing.yaml"
    result = invoke("ingest", "access-log", str(log), "--into", str(missing), "--trace", str(trace), "--force")
    assert result.code == 2 and str(missing) in result.err
    assert trace.read_bytes() == OLD
    _no_temp_files(tmp_path)


def test_ingest_cur_out_naming_a_file_is_refused_before_reading(tmp_path: Path) -> None:
    out = _old(tmp_path / "out")
    result = invoke("ingest", "cur", str(tmp_path / "missing.csv"), "--out", str(out))
    assert result.err == f"planner: --out: {out} is a file, not a folder to write in\n"


# ------------------------------------------------------------------ pricing import: item 10


def _escaping_offer(tmp_path: Path) -> Path:
    offer = json.loads((OFFERS / "aws-offer-s3.json").read_text())
    for product in offer["products"].values():
        if product["attributes"].get("regionCode") == "eu-central-1":
            product["attributes"]["regionCode"] = "../../../escaped"
    path = tmp_path / "offer.json"
    path.write_text(json.dumps(offer))
    return path


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_region_code_cannot_lead_out_of_the_tables_folder(tmp_path: Path, force: list[str]) -> None:
    offer = _escaping_offer(tmp_path)
    out = tmp_path / "a" / "b" / "c" / "tables"
    result = invoke("pricing", "import", "aws", str(offer), "--out", str(out), *TRANSFER, *force)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"planner: {offer}: regionCode '../../../escaped' is not a region name (lower-case letters, digits and '-',"
        " e.g. us-west-2): it would name the tables' folder\n"
    )
    assert not out.exists() and not (tmp_path / "a" / "escaped").exists()
    # the other regions of the same offer still import when the odd one is left out
    kept = invoke("pricing", "import", "aws", str(offer), "--out", str(out), *TRANSFER, "--region", "us-east-1")
    assert kept.code == 0, kept.err
    assert [p.relative_to(out).as_posix() for p in out.rglob("*.yaml")] == ["aws-s3/2026-09-01.yaml"]


def test_pricing_import_refuses_an_existing_table_and_out_naming_a_file(tmp_path: Path) -> None:
    offer, transfer = str(OFFERS / "aws-offer-s3.json"), TRANSFER[1]
    out = tmp_path / "tables"
    assert invoke("pricing", "import", "aws", offer, "--transfer", transfer, "--out", str(out)).code == 0
    table = out / "aws-s3" / "eu-central-1" / "2026-09-01.yaml"  # the first table it writes
    table.write_bytes(OLD)
    _refused(invoke("pricing", "import", "aws", offer, "--transfer", transfer, "--out", str(out)), "--out", table)
    assert invoke("pricing", "import", "aws", offer, "--transfer", transfer, "--out", str(out), "--force").code == 0
    assert table.read_bytes() != OLD
    _no_temp_files(table.parent)
    a_file = _old(tmp_path / "file")
    result = invoke("pricing", "import", "aws", offer, "--out", str(a_file))
    assert result.err == f"planner: --out: {a_file} is a file, not a folder to write in\n"


def test_a_device_given_as_out_is_written_in_place_never_replaced(tmp_path: Path) -> None:
    """Renaming a finished temporary file over /dev/full would turn the device into a regular file
    (as root, it did): a device or FIFO is written as it is, and its error is one line."""
    before = os.stat("/dev/full")
    with pytest.raises(InputError, match=r"^--out: cannot write /dev/full \(No space left on device\)$"):
        write_atomically(Path("/dev/full"), "x" * 10_000, source="--out")
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    write_atomically(Path("/dev/null"), "kept as a device\n", source="--out")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not [p for p in Path("/dev").iterdir() if p.name.endswith(".tmp")]


def test_a_symbolic_link_given_as_out_stays_a_link_to_the_new_content(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("old\n")
    (tmp_path / "link.txt").symlink_to("real.txt")
    write_atomically(tmp_path / "link.txt", "new\n", source="--out")
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "real.txt").read_text() == "new\n"
