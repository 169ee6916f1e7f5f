"""Loose ends of issue 28: formats listed only where printed, --verified-only on cost and report,
billing options on recommend, restore times from the tables, and a profile's provider on simulate.
Each test asserts the exact text or figure the user sees."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.decide.recommendation import judge
from planner.evidence import weakest_price
from planner.measure.reference import load_reference
from planner.pricing import catalog
from planner.pricing.models import Limits
from tests.planner.conftest import EXAMPLES, Result

AS_OF = "2026-12-01"
WEB = str(EXAMPLES / "web-assets.yaml")
Run = Callable[..., Result]


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (["pricing", "show", "aws-s3", "-f", "csv"], "pricing show"),
        (["ingest", "inventory", "manifest.json", "--out", "w", "-f", "csv"], "ingest inventory"),
        (["ingest", "access-log", "log.txt", "--out", "w", "-f", "csv"], "ingest access-log"),
    ],
)
def test_show_and_ingest_neither_list_nor_take_csv(run_cli: Run, args: list[str], command: str) -> None:
    """They listed csv in --help and then refused it as "not a table of rows"; now they list only
    what they print, as migrate and diff do."""
    result = run_cli(*args)
    assert result.code == 2
    # click names the program after how it was started ("python -m pytest" when pytest runs in-process)
    assert result.err.startswith("planner: ") and result.err.count("\n") == 1
    assert result.err.endswith(
        f" {command}: Invalid value for '--format' / '-f': Value error, 'csv' is not one of"
        " 'table', 'json', 'markdown'.\n"
    )
    help_text = run_cli(*command.split(), "--help").out
    assert "table, json or markdown" in help_text and "csv (where" not in help_text


BACKUP = str(EXAMPLES / "backup-archive.yaml")
IDRIVE_UNVERIFIED = (
    "planner: --verified-only: idrive-e2 standard: rests on unverified prices: IDrive e2 storage,"
    " put requests: free, get requests: free, list requests: free, delete requests: free\n"
)


def test_cost_verified_only_refuses_a_bill_on_an_unverified_price(run_cli: Run) -> None:
    """IDrive e2's $5 a TB-month is inferred (idrive-e2@2025-01-01): the bill is refused naming the
    lines priced with an unverified figure; its egress, verified from its own pages, is not named."""
    result = run_cli("cost", BACKUP, "-p", "idrive-e2", "--as-of", AS_OF, "--verified-only")
    assert (result.code, result.out, result.err) == (2, "", IDRIVE_UNVERIFIED)


def test_cost_verified_only_refuses_a_projection_before_its_plot(run_cli: Run, tmp_path: Path) -> None:
    """S3 eu-central-1's egress and tier-1 requests are unverified (aws-s3/eu-central-1@2026-09-01)."""
    plot = tmp_path / "p.svg"
    args = ("cost", BACKUP, "-p", "aws-s3", "--region", "eu-central-1", "--months", "2", "--as-of", AS_OF)
    result = run_cli(*args, "--plot", str(plot), "--verified-only")
    assert result.code == 2
    assert result.err.startswith(
        "planner: --verified-only: aws-s3 standard: rests on unverified prices: delete requests: free,"
        " tier-1 requests (put, list), internet egress: free allowance (100 GB a month)"
    )
    assert result.err.endswith(", internet egress, first 10,240 GB\n") and result.err.count("\n") == 1
    assert not plot.exists()


def test_cost_verified_only_prints_a_bill_verified_from_a_secondary_source(run_cli: Run) -> None:
    """B2's prices are verified from a secondary source (°): not unverified, so the bill is printed."""
    result = run_cli("cost", BACKUP, "-p", "backblaze-b2", "--as-of", AS_OF, "--verified-only")
    assert result.code == 0, result.err
    assert result.out.splitlines()[0] == "backblaze-b2 standard: $3,474.93° a month"


def test_recommend_bills_calendar_months_and_restore_days_as_cost_does(run_cli: Run) -> None:
    """backup-archive's 36 months at S3 Deep Archive: $26,732.48 in 30-day months with restored copies
    kept a day; $26,954.18 in calendar months with each restore test's 1 TB copy kept 7 days at S3
    Standard, the figure ``cost --months 36 --calendar --restore-days 7`` gives."""
    args = ("recommend", BACKUP, "--no-simulate", "--as-of", AS_OF)
    plain = run_cli("--wide", *args).out.splitlines()
    assert plain[4].split()[:5] == ["1", "aws-s3", "deep-archive", "$576.90°", "$26,732.48°"]
    assert not any(line.startswith("Billed:") for line in plain)
    result = run_cli("--wide", *args, "--calendar", "--restore-days", "7")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[2] == (
        "Billed: calendar months, each its own days (the workload's 30-day monthly flows scaled to them);"
        " restored copies kept 7 days"
    )
    assert lines[5].split()[:5] == ["1", "aws-s3", "deep-archive", "$585.27°", "$26,954.18°"]
    cost = run_cli(
        "--wide",
        "cost", BACKUP, "-p", "aws-s3", "--class", "deep-archive", "--months", "36", "--as-of", AS_OF,
        "--calendar", "--restore-days", "7",
    )  # fmt: skip
    assert cost.out.splitlines()[0] == "aws-s3 deep-archive: $26,954.18° over 36 months"
    refused = run_cli("--wide", *args, "--restore-days", "-1")
    assert (refused.code, refused.err) == (
        2,
        "planner: --restore-days: '-1' is not a number of days from 0 to 36,500 (use e.g. 1 or 7)\n",
    )


TWO = """name: idrive or r2
storage: {stored: 10 TB, object_size: 64 MiB}
traffic: {egress: 1 TB}
constraints: {providers: [idrive-e2, cloudflare-r2], months: 2}
"""


def test_report_passes_verified_only_and_calendar_to_the_recommendation(run_cli: Run, tmp_path: Path) -> None:
    """IDrive e2 ($50.00 for 10 TB) rests on an inferred price: left out, R2 Infrequent Access is chosen,
    priced for December's 31 days ($111.24, where a 30-day month is $110.90)."""
    path = tmp_path / "two.yaml"
    path.write_text(TWO)
    out = tmp_path / "r.md"
    args = ("report", str(path), "--no-simulate", "--as-of", AS_OF, "-o", str(out), "--verified-only", "--calendar")
    result = run_cli(*args)
    assert result.code == 0, result.err
    lines = out.read_text(encoding="utf-8").splitlines()
    assert (
        "Use cloudflare-r2 infrequent-access: $111.24 this month, $222.48 over 2 months"
        " (prices in force on 2026-12-01)." in lines
    )
    assert (
        "Left out (--verified-only): idrive-e2 standard: rests on unverified prices: IDrive e2 storage,"
        " get requests: free" in lines
    )
    assert "Billed: calendar months, each its own days (the workload's 30-day monthly flows scaled to them)" in lines


def test_restore_required_says_the_times_come_from_the_retrieval_options() -> None:
    """It said restores take "minutes to hours" while Deep Archive's table says within 12 or 48 hours."""
    described = Limits.model_fields["restore_required"].description
    assert described == (
        "storage classes whose objects must be restored before a read (S3 Glacier Flexible Retrieval and Deep"
        " Archive), in the time the class's retrieval options state (classes.<id>.retrieval.options.<tier>.time):"
        " no read of them meets a TTFB or throughput target"
    )
    table = catalog.table_for("aws-s3", dt.date(2026, 12, 1))
    assert {tier: option.time for tier, option in table.classes["deep-archive"].retrieval.options.items()} == {
        "standard": "within 12 hours",
        "bulk": "within 48 hours",
    }


def test_each_option_is_marked_with_the_one_weakest_price_rule(run_cli: Run) -> None:
    """The ranking's price status is planner.evidence.weakest_price of month one's lines (judge.py kept
    its own copy of the order): IDrive e2's inferred storage price is unverified, S3 us-east-1's and
    B2's are verified from a secondary source, R2's from its own pages."""
    assert not hasattr(judge, "_PRICE_ORDER") and not hasattr(judge, "_price_status")
    payload = json.loads(run_cli("recommend", BACKUP, "--no-simulate", "--as-of", AS_OF, "-f", "json").out)
    marks = {(o["provider"], o["storage_class"]): o["price_status"] for o in payload["ranking"]}
    assert marks[("idrive-e2", "standard")] == "unverified"
    assert marks[("aws-s3", "deep-archive")] == marks[("backblaze-b2", "standard")] == "verified-secondary"
    assert marks[("cloudflare-r2", "standard")] == "verified-primary"
    for option in payload["ranking"]:
        lines = [item["price_status"] for item in option["cost"]["line_items"]]
        assert option["price_status"] == weakest_price(lines)


def test_simulate_takes_a_profile_naming_no_provider_as_the_one_given(run_cli: Run, tmp_path: Path) -> None:
    """recommend refuses a profile naming no provider as a provider's evidence; simulate -p takes it as
    that provider's, since the user named it, and says so where it names the provider model."""
    reference = load_reference("cloudflare-r2")
    unnamed = tmp_path / "local.json"
    unnamed.write_text(
        reference.model_copy(update={"provider": None, "endpoint": "http://127.0.0.1:8333"}).model_dump_json()
    )
    args = ("simulate", WEB, "--profile", str(unnamed), "--replications", "1", "--duration", "5s")
    result = run_cli("--wide", *args, "-p", "cloudflare-r2")
    assert result.code == 0, result.err
    taken = (
        "published profile naming no provider (measured at http://127.0.0.1:8333), taken as a profile of"
        " cloudflare-r2 (the provider given), 2026"
    )
    assert result.out.splitlines()[2].startswith(f"Provider model: {taken}; part limits from cloudflare-r2@")
    assert json.loads(run_cli("--wide", *args, "-p", "cloudflare-r2", "-f", "json").out)["profile"] == taken
    # without -p it is the profile's own endpoint, as before
    assert run_cli("--wide", *args).out.splitlines()[2] == (
        "Provider model: published profile of unknown, 2026; part limits from no price table"
        " (the profile's own endpoint)"
    )
    named = tmp_path / "r2.json"
    named.write_text(reference.model_dump_json())
    assert (
        run_cli("--wide", "simulate", WEB, "--profile", str(named), "-p", "cloudflare-r2", "--duration", "5s").code == 0
    )


@pytest.mark.parametrize(
    ("option", "args"), [("--calendar", ("--calendar",)), ("--restore-days", ("--restore-days", "7"))]
)
def test_samples_with_billing_options_is_refused_not_ignored(run_cli: Run, option: str, args: tuple[str, ...]) -> None:
    """The sampled outcomes are priced as arrays in 30-day months with restored copies kept a day: the
    ranking would have taken the option and the outcomes silently left it out."""
    result = run_cli("recommend", BACKUP, "--samples", "100", "--as-of", AS_OF, *args)
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"planner: {option}: the --samples outcomes are priced in 30-day months with restored copies kept a day:"
        " leave out --samples, or this option\n"
    )
