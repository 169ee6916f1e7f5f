"""Issue 28 item 22 and the one-liners of items 17 and 18 that are the command line's own: each test
asserts the exact text the user sees."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from planner.cli.app import _quiet_first, app
from planner.decide.migration.plan import _why
from planner.units import counted
from tests.hostile.inputs import ACCESS_LOG
from tests.planner.conftest import EXAMPLES, Result

AS_OF = "2026-12-01"
ROOT = EXAMPLES.parent
Run = Callable[..., Result]


def test_version_is_the_installed_distributions(run_cli: Run) -> None:
    result = run_cli("--version")
    assert result.code == 0
    assert result.out == f"planner {importlib.metadata.version('objstore-planner')}\n"


def test_quiet_after_the_command(run_cli: Run) -> None:
    """``-q`` after the subcommand was "No such option: -q" (exit 2)."""
    result = run_cli("pricing", "show", "aws-s3", "--as-of", AS_OF, "-q")
    assert (result.code, result.err) == (0, "")
    assert result.out.startswith("Amazon S3 prices, version aws-s3@2025-12-01\n")
    assert run_cli("cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "--quiet").code == 0


@pytest.mark.parametrize(
    ("args", "moved"),
    [
        (["recommend", "w.yaml", "-q"], ["--quiet", "recommend", "w.yaml"]),
        (["--wide", "pricing", "show", "aws-s3", "--quiet"], ["--quiet", "--wide", "pricing", "show", "aws-s3"]),
        (["-q", "cost", "w.yaml"], ["-q", "cost", "w.yaml"]),  # already before the command
        (["cost", "w.yaml", "-p", "-q"], ["cost", "w.yaml", "-p", "-q"]),  # the value of -p, left for -p to refuse
        (["cost", "w.yaml", "--", "-q"], ["cost", "w.yaml", "--", "-q"]),  # after --: an argument
        (["measure", "--quiet"], ["measure", "--quiet"]),  # measure's own --quiet
    ],
)
def test_quiet_is_moved_before_the_command_only_where_it_is_the_flag(args: list[str], moved: list[str]) -> None:
    import typer.main

    group = typer.main.get_command(app)
    context = group.make_context("planner", ["pricing", "list"])
    assert _quiet_first(group, context, list(args)) == moved  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("args", "command", "choices"),
    [
        (
            ["migrate", str(EXAMPLES / "web-assets.yaml"), "--from", "aws-s3", "--to", "wasabi", "-f", "csv"],
            "migrate",
            "'table', 'json', 'markdown', 'focus'",  # focus: the move's charges as FOCUS rows (test_focus.py)
        ),
        (
            ["diff", str(EXAMPLES / "web-assets.yaml"), str(EXAMPLES / "web-assets.yaml"), "-f", "csv"],
            "diff",
            "'table', 'json', 'markdown'",
        ),
    ],
)
def test_migrate_and_diff_neither_list_nor_take_csv(run_cli: Run, args: list[str], command: str, choices: str) -> None:
    """They listed csv in --help and then refused it; now they list only what they print."""
    result = run_cli(*args)
    assert result.code == 2
    assert result.err == (
        f"planner: {command}: Invalid value for '--format' / '-f': Value error, 'csv' is not one of {choices}.\n"
    )
    help_text = run_cli(command, "--help").out
    assert "markdown" in help_text and "csv" not in help_text


def test_the_documented_samples_maximum_is_accepted(run_cli: Run, tmp_path: Path) -> None:
    """100,000 samples of 2 options over 12 months: refused as 2,400,000 bills when the limit
    multiplied by the months; the README's limit is outcomes x options."""
    path = tmp_path / "two.yaml"
    path.write_text(
        "name: two\nstorage: {stored: 10 TB, object_size: 64 MiB}\ntraffic:\n  egress: {low: 20 TB, high: 60 TB}\n"
        "constraints: {providers: [backblaze-b2, cloudflare-r2], storage_classes: [standard]}\n"
    )
    result = run_cli("recommend", str(path), "--samples", "100000", "--as-of", AS_OF)
    assert result.code == 0, result.err
    assert "Under uncertainty: 100,000 outcomes (seed 0)" in result.out
    limits = (ROOT / "docs" / "reference" / "limits.md").read_text(encoding="utf-8")
    assert "100,000 samples and 2,000,000 bills (outcomes x options) priced as arrays" in limits


def test_a_hybrid_that_is_age_out_names_the_retention_and_the_cutoff(run_cli: Run, tmp_path: Path) -> None:
    """A 180-day retention read "all the data expires within 347.666 days" (the cutoff, as if a retention)."""
    path = tmp_path / "v.yaml"
    text = (EXAMPLES / "video-streaming.yaml").read_text(encoding="utf-8")
    path.write_text(text.replace("retention: 365d", "retention: 180d"), encoding="utf-8")
    result = run_cli("migrate", str(path), "--from", "aws-s3", "--to", "cloudflare-r2", "--start", AS_OF, "-f", "json")
    assert result.code == 0, result.err
    reasons = {c["strategy"]: c["reason"] for c in json.loads(result.out)["compared"]}
    assert reasons["hybrid"] == (
        "all the data expires within 180 days, under the 345-day age-out cutoff: the hybrid is age-out"
    )


def test_a_tie_is_not_zero_dollars_less() -> None:
    totals = {"bulk": Decimal("100.001"), "copy-on-read": Decimal("100.004"), "age-out": Decimal("200")}
    assert _why("bulk", totals, 12).startswith(  # type: ignore[arg-type]
        "bulk costs $100.00 over the 12 months, as much as copy-on-read (preferred on a tie): "
    )
    totals["copy-on-read"] = Decimal("110")
    assert _why("bulk", totals, 12).startswith(  # type: ignore[arg-type]
        "bulk costs $100.00 over the 12 months, $10.00 less than copy-on-read: "
    )


def test_one_row_is_one_row(run_cli: Run, tmp_path: Path) -> None:
    assert [counted(n, "row") for n in (0, 1, 2, 1234)] == ["0 rows", "1 row", "2 rows", "1,234 rows"]
    fixture = ROOT / "tests" / "fixtures" / "focus-1.0-sample-s3.csv"
    result = run_cli("ingest", "cur", str(fixture), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    assert result.out.startswith(
        "read 12 S3 usage groups from 1 file (FOCUS, periods 2024-09-01); 0 rows of other services,"
    )
    written = (tmp_path / "out" / "us-west-2.yaml").read_text(encoding="utf-8")
    assert "  # 1 row of TimedStorage-ByteHrs: UsageAmount is GB-months" in written
    assert "1 rows" not in written


def test_a_profile_without_a_provider_says_so(run_cli: Run, tmp_path: Path) -> None:
    profile = json.loads((ROOT / "planner" / "measure" / "profiles" / "aws-s3.json").read_text(encoding="utf-8"))
    profile["provider"] = None
    path = tmp_path / "local.json"
    path.write_text(json.dumps(profile), encoding="utf-8")
    result = run_cli("--wide", "profiles", "show", str(path))
    assert result.code == 0, result.err
    first = result.out.splitlines()[0]
    assert first.startswith(f"{path}: provider not named (a measured endpoint without --provider), source ")
    assert "None" not in first


def test_the_readme_promises_break_even_volumes_only_where_its_example_shows_them(run_cli: Run) -> None:
    """The first paragraph promised "the egress volumes at which the answer would change" for an
    example that answers provisionally (exit 1) and so shows none."""
    result = run_cli("recommend", str(EXAMPLES / "video-streaming.yaml"), "--as-of", AS_OF, "--strict")
    assert result.code == 1
    assert "Cheapest with its targets unverified: idrive-e2 standard" in result.out
    assert "What would change the answer" not in result.out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    after = next(p for p in readme.split("\n\n") if p.startswith("No published source gives a p99 TTFB"))
    assert "the target stays unverified and the answer is provisional" in " ".join(after.split())
    assert "change" not in after


def test_a_sweep_count_of_5000_digits_is_one_line(run_cli: Run) -> None:
    """Item 17: a 5,000-digit --vary count was a traceback (Python reads at most 4,300 digits)."""
    result = run_cli("sweep", str(EXAMPLES / "web-assets.yaml"), "--vary", "traffic.egress=0..10TB:" + "9" * 5000)
    assert result.code == 2
    assert result.err == "planner: --vary: traffic.egress: a 5,000-digit number points; give 2 to 201\n"


def test_measure_counts_of_5000_digits_are_one_line(run_cli: Run, tmp_path: Path) -> None:
    result = run_cli(
        "measure", "--endpoint", "http://127.0.0.1:9", "--bucket", "b", "--out", str(tmp_path / "m.json"),
        "--dry-run", "--concurrency", "9" * 5000,
    )  # fmt: skip
    assert result.code == 2
    assert result.err == f"planner: --concurrency: {'9' * 40!r}...: more than 999,999,999\n"


def test_a_tornado_plot_name_is_checked_as_its_own_option_before_any_work(run_cli: Run, tmp_path: Path) -> None:
    """Item 18: ``--tornado-plot t.pdf`` blamed --plot, after the outcomes were priced."""
    path = tmp_path / "u.yaml"
    path.write_text(
        "name: u\nstorage: {stored: 10 TB, object_size: 64 MiB}\ntraffic:\n  egress: {low: 20 TB, high: 60 TB}\n"
        "constraints: {providers: [backblaze-b2], storage_classes: [standard]}\n"
    )
    target = tmp_path / "t.pdf"
    result = run_cli("recommend", str(path), "--samples", "100", "--tornado-plot", str(target))
    assert result.code == 2
    assert result.err == f"planner: --tornado-plot: {str(target)!r} is not a picture file name: use .png or .svg\n"
    assert result.out == ""


def test_a_migration_past_the_calendar_blames_start(run_cli: Run) -> None:
    """Item 18: ``migrate --start 9999-12-01`` blamed --as-of, which migrate does not have."""
    result = run_cli("migrate", str(EXAMPLES / "web-assets.yaml"), "--from", "aws-s3", "--to", "wasabi", "--start",
                     "9999-12-01")  # fmt: skip
    assert result.code == 2
    assert result.err == "planner: --start: a 12-month horizon from 9999-12-01 runs past the year 9999\n"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "--class", ""],
         "planner: --class: give a storage class, e.g. standard\n"),
        (["migrate", str(EXAMPLES / "web-assets.yaml"), "--from", "aws-s3:", "--to", "wasabi"],
         "planner: --from: 'aws-s3:': use PROVIDER[:CLASS], e.g. aws-s3:standard\n"),
    ],
    ids=["cost-class-empty", "migrate-class-empty"],
)  # fmt: skip
def test_an_empty_class_is_refused_not_read_as_the_default(run_cli: Run, args: list[str], expected: str) -> None:
    result = run_cli(*args)
    assert (result.code, result.err) == (2, expected)


def test_one_unreadable_log_line_is_one_line(run_cli: Run, tmp_path: Path) -> None:
    """Item 22's "1 rows" had a twin in access-log ingest: "1 lines could not be read"."""
    log = tmp_path / "access.log"
    log.write_text(ACCESS_LOG + "garbage line\n")
    result = run_cli("ingest", "access-log", str(log), "--out", str(tmp_path / "out"))
    assert result.code == 0, result.err
    assert "1 line could not be read; the first:" in result.out.splitlines()
