"""Semantic checks before an answer (issue 28, items 1, 2, 3 and 9): a workload that reads is not
answered with an archive class it cannot wait for, a profile is evidence only of the provider it
names, nothing stored cannot be read, and inputs past what a command can do are refused where read.
Each example is run as a user runs it, and the exact message or figure is asserted."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import sys
from pathlib import Path

import pytest

from planner.cli import main
from planner.decide.recommendation import recommend
from planner.measure.profile import Cell, Percentiles, Profile, Source
from planner.workload import load_workload
from planner.workload.targets import parse_stated_time

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
AS_OF = "2026-12-01"
DAY = dt.date(2026, 12, 1)

# Item 1: reads 1 M objects a month at 15/s, with no performance section.
READS = """\
name: reads-monthly
storage:
  stored: 500 TB
  object_size: 500 MB
traffic:
  reads: 1M
  peak_rate: 15/s
"""

DEEP_ARCHIVE_WITHOUT_MAX_RESTORE = (
    "deep-archive objects must be restored before a read, and restores take 12-48 hours (table aws-s3@2025-12-01:"
    " standard within 12 hours, bulk within 48 hours): the workload reads (1,000,000 GETs a month) and gives no"
    " performance.max_restore (set e.g. max_restore: 12h if its reads can wait that long for a restore)"
)


def _run(*args: str) -> tuple[int, str, str]:
    """``planner ARGS`` in this process: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    argv = sys.argv
    sys.argv = ["planner", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()


def _one_line_error(args: list[str]) -> str:
    code, _, err = _run(*args)
    assert "Traceback" not in err, err
    assert code == 2, (code, err)
    assert len(err.splitlines()) == 1, err
    return err.strip()


def _file(tmp_path: Path, text: str, name: str = "w.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _with_max_restore(value: str) -> str:
    return READS + f"performance:\n  max_restore: {value}\n"


# --------------------------------------------------------------------------- item 1: restore times


def test_a_workload_that_reads_gets_no_archive_class_without_max_restore(tmp_path: Path) -> None:
    result = recommend(load_workload(_file(tmp_path, READS)), as_of=DAY, simulate=False)
    assert result.recommendation is not None
    assert (result.recommendation.provider, result.recommendation.storage_class) == ("aws-s3", "glacier-ir")
    deep = next(o for o in result.ranking if o.storage_class == "deep-archive")
    assert deep.status == "rejected" and not deep.chosen
    assert deep.violations == [DEEP_ARCHIVE_WITHOUT_MAX_RESTORE]
    flexible = next(o for o in result.ranking if o.storage_class == "glacier-flexible")
    assert flexible.violations == [
        "glacier-flexible objects must be restored before a read, and restores take 1 minute to 12 hours (table"
        " aws-s3@2025-12-01: expedited 1-5 minutes, standard 3-5 hours, bulk 5-12 hours): the workload reads"
        " (1,000,000 GETs a month) and gives no performance.max_restore (set e.g. max_restore: 5h if its reads can"
        " wait that long for a restore)"
    ]


def test_the_cli_says_the_tables_restore_times_never_minutes_to_hours(tmp_path: Path) -> None:
    code, out, err = _run("--wide", "recommend", str(_file(tmp_path, READS)), "--as-of", AS_OF, "--no-simulate")
    assert code == 0, err
    chosen = next(line for line in out.splitlines() if "CHOSEN" in line)
    assert "glacier-ir" in chosen and "deep-archive" not in chosen
    assert DEEP_ARCHIVE_WITHOUT_MAX_RESTORE in out
    assert "minutes to hours" not in out


def test_max_restore_long_enough_for_the_priced_restore_lets_deep_archive_win(tmp_path: Path) -> None:
    result = recommend(load_workload(_file(tmp_path, _with_max_restore("12h"))), as_of=DAY, simulate=False)
    assert result.recommendation is not None and result.recommendation.storage_class == "deep-archive"
    deep = next(o for o in result.ranking if o.storage_class == "deep-archive")
    verdict = next(v for v in deep.verdicts if v.target == "restore time")
    assert (verdict.verdict, verdict.wanted, verdict.achieved) == ("met", "12 h", "within 12 hours")
    assert verdict.reason == (
        "deep-archive standard restores (the ones priced) take within 12 hours, within performance.max_restore 12 h"
        " (table aws-s3@2025-12-01: standard within 12 hours, bulk within 48 hours)"
    )


def test_max_restore_shorter_than_the_priced_restore_rejects_and_names_a_faster_option(tmp_path: Path) -> None:
    result = recommend(load_workload(_file(tmp_path, _with_max_restore("1h"))), as_of=DAY, simulate=False)
    assert result.recommendation is not None and result.recommendation.storage_class == "glacier-ir"
    flexible = next(o for o in result.ranking if o.storage_class == "glacier-flexible")
    assert flexible.violations == [
        "glacier-flexible objects must be restored before a read, and restores take 1 minute to 12 hours (table"
        " aws-s3@2025-12-01: expedited 1-5 minutes, standard 3-5 hours, bulk 5-12 hours): the standard restores the"
        " bill prices take 3-5 hours, longer than performance.max_restore 1 h; expedited (1-5 minutes) would be in"
        " time, at a price this bill does not include"
    ]


def test_the_restore_time_of_archive_classes_is_no_target_the_other_classes_fail() -> None:
    # web-assets reads and gives no max_restore: only the archive classes miss the restore time
    result = recommend(load_workload(EXAMPLES / "web-assets.yaml"), as_of=DAY, simulate=False)
    assert result.failed_targets == ["p99 TTFB (no option meets it on evidence)"]


def test_a_workload_that_never_reads_keeps_archive_classes_without_max_restore(tmp_path: Path) -> None:
    text = "name: cold\nstorage: {stored: 500 TB, object_size: 500 MB}\ntraffic: {writes: 1000}\n"
    result = recommend(load_workload(_file(tmp_path, text)), as_of=DAY, simulate=False)
    assert result.recommendation is not None and result.recommendation.storage_class == "deep-archive"


def test_the_backup_example_states_the_restore_it_can_wait_for() -> None:
    # examples/backup-archive.yaml reads (a restore test a month): it now says it can wait 48 h
    workload = load_workload(EXAMPLES / "backup-archive.yaml")
    assert workload.performance.max_restore == 48 * 3600
    result = recommend(workload, as_of=DAY, simulate=False)
    assert result.recommendation is not None and result.recommendation.storage_class == "deep-archive"


def test_max_restore_is_a_duration_field(tmp_path: Path) -> None:
    line = _one_line_error(["cost", str(_file(tmp_path, _with_max_restore("soon"))), "-p", "aws-s3"])
    assert line.startswith(f"planner: {tmp_path / 'w.yaml'}: performance.max_restore: ")


@pytest.mark.parametrize(
    ("stated", "low_s", "high_s"),
    [("1-5 minutes", 60.0, 300.0), ("3-5 hours", 10_800.0, 18_000.0), ("within 48 hours", None, 172_800.0)],
)
def test_stated_restore_times_read_as_bounds(stated: str, low_s: float | None, high_s: float) -> None:
    parsed = parse_stated_time("standard", stated)
    assert parsed is not None and (parsed.low_s, parsed.high_s) == (low_s, high_s)


def test_simulate_of_an_archive_class_states_the_tables_restore_times(tmp_path: Path) -> None:
    code, out, err = _run(
        "--wide", "simulate", str(_file(tmp_path, READS)), "-p", "aws-s3", "--class", "deep-archive",
        "--duration", "2s", "--replications", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "deep-archive objects are read only after a restore (restores take 12-48 hours (table aws-s3@" in out
    assert "minutes to hours" not in out


# --------------------------------------------------------------------------- item 2: a profile's provider


def _measured_profile(provider: str | None) -> Profile:
    cells = [
        Cell(
            op="get",
            object_size_bytes=64 * 1024,
            concurrency=concurrency,
            samples=2000,
            throughput_mib_per_s=rate,
            ops_per_s=rate * 16,
            ttfb_s=Percentiles(p50=0.02, p99=0.06),
        )
        for concurrency, rate in ((1, 3.0), (16, 40.0))
    ]
    return Profile(provider=provider, endpoint="http://127.0.0.1:8333", source=Source(kind="measured"), cells=cells)


def test_a_profile_naming_no_provider_is_no_providers_evidence(tmp_path: Path) -> None:
    measured = tmp_path / "measured"
    measured.mkdir()
    path = measured / "backblaze-b2.json"
    path.write_text(_measured_profile(None).model_dump_json(), encoding="utf-8")
    line = _one_line_error(
        ["recommend", str(EXAMPLES / "web-assets.yaml"), "--as-of", AS_OF, "--profiles", str(measured)]
    )
    assert line == (
        f"planner: {path}: provider: the profile names no provider (measured at http://127.0.0.1:8333), so it is no"
        " evidence of backblaze-b2: re-run planner measure --provider backblaze-b2, or set"
        ' "provider": "backblaze-b2" in the file if it was measured there'
    )


def test_a_profile_naming_its_provider_is_that_providers_measured_evidence(tmp_path: Path) -> None:
    measured = tmp_path / "measured"
    measured.mkdir()
    (measured / "backblaze-b2.json").write_text(_measured_profile("backblaze-b2").model_dump_json(), encoding="utf-8")
    result = recommend(load_workload(EXAMPLES / "web-assets.yaml"), as_of=DAY, profiles_dir=measured, simulate=False)
    judged = next(p for p in result.profiles if p.provider == "backblaze-b2")
    assert (judged.kind, judged.label) == ("measured", f"measured profile {measured / 'backblaze-b2.json'}")


# --------------------------------------------------------------------------- item 3: nothing stored


# what `planner ingest access-log --out` writes: the logs say nothing of what is stored
INGESTED = """\
# Workload of media from its access logs, which say nothing of what is stored:
# give storage.stored (ingest the bill or an inventory and use --into).
name: "media"
storage:
  stored: "0 B"  # ASSUMED
  object_size: "10485760 B"
traffic:
  reads: 1481143
  writes: 0
  heads: 0
  lists: 0
  egress: "8540000000000 B"
  peak_rate: "2/s"
"""


@pytest.mark.parametrize("command", [["recommend"], ["cost", "-p", "cloudflare-r2"], ["simulate", "-p", "aws-s3"]])
def test_zero_stored_with_reads_is_refused_with_what_to_fill_in(tmp_path: Path, command: list[str]) -> None:
    path = _file(tmp_path, INGESTED, "media.yaml")
    line = _one_line_error([command[0], str(path), *command[1:]])
    assert line == (
        f"planner: {path}: storage.stored: 0 B stored, but the traffic reads 1,481,143 GETs and 8.54 TB of egress a"
        ' month: fill in the bytes stored (e.g. "10 TB"; access logs, or a bill without storage rows, cannot give'
        " it: ingest the bill or an inventory with --into)"
    )


def test_zero_stored_without_reads_is_a_bucket_being_filled(tmp_path: Path) -> None:
    text = "name: new\nstorage: {stored: 0 B, object_size: 1 MB, growth_per_month: 1 TB}\ntraffic: {writes: 1M}\n"
    assert load_workload(_file(tmp_path, text)).storage.stored == 0


# --------------------------------------------------------------------------- item 9: inputs past the limits


def test_a_samples_range_past_the_workload_limits_is_refused_where_read(tmp_path: Path) -> None:
    text = (
        "name: big-range\nstorage:\n  stored: {low: 1 TB, high: 90 EB}\n  object_size: 100 MB\n"
        "  growth_rate: {low: 0%, high: 10%}\nconstraints:\n  providers: [cloudflare-r2, backblaze-b2]\n"
    )
    path = _file(tmp_path, text)
    line = _one_line_error(["recommend", str(path), "--as-of", AS_OF, "--no-simulate", "--samples", "20"])
    assert line == (
        f"planner: {path}: storage.stored: at the range's highest (storage.stored 90 EB) the workload is not valid:"
        " storage growth over constraints.months 12 reaches 153.93 EB stored, beyond any real workload (more than"
        " 100 EB) (--samples would draw such outcomes: narrow the range)"
    )


def test_ranges_valid_alone_but_not_together_are_refused_naming_both(tmp_path: Path) -> None:
    text = (
        "name: big-range\nstorage:\n  stored: {low: 1 TB, high: 60 EB}\n  object_size: 100 MB\n"
        "  growth_rate: {low: 0%, high: 5%}\n"
    )
    path = _file(tmp_path, text)
    assert _one_line_error(["cost", str(path), "-p", "aws-s3"]) == (
        f"planner: {path}: storage.stored, storage.growth_rate: at every range's highest together (storage.stored"
        " 60 EB, storage.growth_rate 5 %) the workload is not valid: storage growth over constraints.months 12"
        " reaches 102.62 EB stored, beyond any real workload (more than 100 EB) (--samples would draw such outcomes:"
        " narrow the range)"
    )


def test_a_lognormal_range_is_checked_out_in_its_tail(tmp_path: Path) -> None:
    text = "name: tail\nstorage:\n  stored: {p10: 1 TB, p90: 90 EB}\n  object_size: 100 MB\n"
    line = _one_line_error(["cost", str(_file(tmp_path, text)), "-p", "aws-s3"])
    assert "storage.stored: at the range's highest (a lognormal's: one draw in a billion)" in line
    assert "is beyond any real workload (more than 100 EB)" in line


def test_measure_concurrency_is_bounded(tmp_path: Path) -> None:
    line = _one_line_error(
        ["measure", "--endpoint", "http://127.0.0.1:1", "--bucket", "b", "--out", str(tmp_path / "p.json"),
         "--concurrency", "1,100000", "--dry-run"]
    )  # fmt: skip
    assert line == (
        "planner: --concurrency: 100000: at most 1,024 requests in flight from one host (each is a thread; measure"
        " from several hosts with --dask for more)"
    )
    assert not (tmp_path / "p.json").exists()


def test_a_cell_of_zero_requests_is_missing_not_measured() -> None:
    from planner.cli.measure import cell_line
    from planner.measure.run.cells import figures_to_cell
    from planner.measure.stats import load_figures

    figures = load_figures([], window_start=0.0, window_end=10.0, cpu_count=1, link_bits_per_s=None, concurrency=4)
    cell = figures_to_cell("get", 1024, 4, figures, 1.0)
    assert (cell.status, cell.samples) == ("missing", 0)
    assert cell.note == "no request completed in the window: nothing was measured"
    assert cell_line(cell).endswith("MISSING: no request completed in the window: nothing was measured")


def test_migrate_retrieval_from_a_source_without_retrieval_is_an_error() -> None:
    web = str(EXAMPLES / "web-assets.yaml")
    line = _one_line_error(
        ["migrate", web, "--from", "aws-s3", "--to", "cloudflare-r2", "--retrieval", "instant-ish", "--start", AS_OF]
    )
    assert line == (
        "planner: --retrieval: 'instant-ish': aws-s3:standard has no retrieval options (aws-s3@2025-12-01 bills no"
        " retrieval for it); --retrieval applies to a source class that charges reads, e.g. aws-s3:glacier-flexible"
    )
    backup = str(EXAMPLES / "backup-archive.yaml")
    line = _one_line_error(
        ["migrate", backup, "--from", "aws-s3:glacier-flexible", "--to", "cloudflare-r2", "--retrieval", "instant-ish",
         "--start", AS_OF]
    )  # fmt: skip
    assert line == (
        "planner: --retrieval: 'instant-ish' is not a retrieval option of aws-s3:glacier-flexible in"
        " aws-s3@2025-12-01 (options: expedited, standard, bulk)"
    )


def test_migrate_retrieval_of_the_source_is_still_priced() -> None:
    code, out, err = _run(
        "--wide", "migrate", str(EXAMPLES / "backup-archive.yaml"), "--from", "aws-s3:glacier-flexible", "--to",
        "cloudflare-r2", "--retrieval", "expedited", "--start", AS_OF, "--strategy", "bulk",
    )  # fmt: skip
    assert code == 0, err
    assert "S3 Glacier (Flexible Retrieval) data retrieval (expedited)" in out


def test_simulate_refuses_a_window_too_short_for_one_request() -> None:
    line = _one_line_error(
        ["simulate", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "--duration", "1ms", "--replications", "1"]
    )
    assert line == (
        "planner: --duration: '1ms' is too short to issue one request: web-assets averages 379.1 requests a second"
        " in its peak window, so the window must be at least 2.64 ms (e.g. --duration 1s)"
    )


def test_trace_refuses_a_window_too_short_for_one_request(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    line = _one_line_error(
        ["trace", str(EXAMPLES / "web-assets.yaml"), "--out", str(out), "--duration", "1ms", "--window", "mean"]
    )
    assert line == (
        "planner: --duration: '1ms' is too short to issue one request: web-assets averages 75.82 requests a second"
        " in its mean window, so the window must be at least 13.2 ms (e.g. --duration 1s)"
    )
    assert not out.exists()
