"""The default comparison stays the five; --providers all, constraints.providers and PROVIDER:CLASS bring
in the 2026 field, and `pricing list` shows every provider with its sourcing."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path

from planner.pricing import catalog
from tests.planner.conftest import Result

Run = Callable[..., Result]
EXAMPLE = str(Path(__file__).parents[3] / "examples" / "web-assets.yaml")
FIVE = {"aws-s3", "cloudflare-r2", "backblaze-b2", "wasabi", "idrive-e2"}
DAY = "2026-12-01"


def ranked(result: Result) -> dict[tuple[str, str], dict[str, object]]:
    assert result.code in (0, 1), result.err
    return {(o["provider"], o["storage_class"]): o for o in json.loads(result.out)["ranking"]}


def test_the_default_comparison_stays_the_five(run_cli: Run) -> None:
    options = ranked(run_cli("recommend", EXAMPLE, "--no-simulate", "--as-of", DAY, "-f", "json"))
    assert {provider for provider, _ in options} == FIVE
    assert ("aws-s3", "express-one-zone") not in options


def test_providers_all_ranks_every_provider_and_class_and_marks_unverified_prices(run_cli: Run) -> None:
    options = ranked(
        run_cli("--wide", "recommend", EXAMPLE, "--providers", "all", "--no-simulate", "--as-of", DAY, "-f", "json")
    )
    every = {(p, c) for p in catalog.providers() for c in catalog.table_for(p, dt.date(2026, 12, 1)).classes}
    assert set(options) == every
    # GCS carries its first egress tier's price beyond 10 TiB, unverified: its options say so
    assert options[("gcs", "standard")]["price_status"] == "unverified"
    assert options[("storj", "standard")]["price_status"] == "verified-primary"
    text = run_cli("--wide", "recommend", EXAMPLE, "--providers", "all", "--no-simulate", "--as-of", DAY)
    gcs_rows = [line for line in text.out.splitlines() if re.match(r"\d+ +gcs ", line)]  # the ranking rows
    assert gcs_rows and all("*" in line for line in gcs_rows)  # "* = rests on an unverified price"


def test_provider_colon_class_brings_in_one_class(run_cli: Run, tmp_path: Path) -> None:
    options = ranked(
        run_cli(
            "recommend",
            EXAMPLE,
            "--providers",
            "aws-s3:express-one-zone,storj",
            "--no-simulate",
            "--as-of",
            DAY,
            "-f",
            "json",
        )
    )
    assert ("aws-s3", "express-one-zone") in options and ("aws-s3", "standard") in options
    assert {provider for provider, _ in options} == {"aws-s3", "storj"}
    # the same from the workload's constraints.providers
    workload = tmp_path / "w.yaml"
    workload.write_text(
        "name: x\nstorage: {stored: 1 TB, object_size: 1 MB}\nconstraints: {providers: ['aws-s3:express-one-zone']}\n",
        encoding="utf-8",
    )
    assert ("aws-s3", "express-one-zone") in ranked(run_cli("recommend", str(workload), "--no-simulate", "-f", "json"))


def test_an_unknown_provider_or_class_names_the_known_ones(run_cli: Run) -> None:
    result = run_cli("recommend", EXAMPLE, "--providers", "nope", "--no-simulate")
    assert result.code == 2
    assert "--providers: unknown provider 'nope' (known: akamai, aws-s3, azure-blob," in result.err
    result = run_cli("recommend", EXAMPLE, "--providers", "aws-s3:nope", "--no-simulate")
    assert result.code == 2 and "unknown storage class 'nope' (known: " in result.err


def test_pricing_list_shows_every_provider_with_its_sourcing(run_cli: Run) -> None:
    result = run_cli("pricing", "list", "-f", "json")
    rows = {row["provider"]: row for row in json.loads(result.out)["providers"]}
    assert {p for p, row in rows.items() if row["compared_by_default"]} == FIVE
    assert rows["storj"]["status"] == "verified-primary" and rows["hetzner"]["currency"] == "EUR"
    assert len(rows) == 14
    table = run_cli("pricing", "list").out
    assert "verified-secondary, prices in EUR  when named" in table


def test_pricing_show_states_a_eur_tables_prices_fee_and_rate(run_cli: Run) -> None:
    out = run_cli("--wide", "pricing", "show", "hetzner").out
    assert "Monthly base fee: €6.49 (verified-secondary: " in out
    assert "Billed in USD at 1.1133 USD per EUR of 2026-10-28 (verified-secondary: " in out
    assert "per TB-hour [1,000,000,000,000 bytes]: all: €0.0087" in out and "$" not in out.split("Sources:")[0]
    assert "Minimum monthly charge: $5.00 (verified-primary: " in run_cli("--wide", "pricing", "show", "storj").out
