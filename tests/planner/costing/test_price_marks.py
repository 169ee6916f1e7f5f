"""The sourcing mark of the weakest price follows every amount (issue 28 item 5): IDrive e2's
inferred $5 a TB-month and its free requests are unverified (idrive-e2@2025-01-01), its egress is
verified from its own pages; S3 eu-central-1's storage is verified from a secondary source and its
egress and tier-1 requests are unverified (aws-s3/eu-central-1@2026-09-01)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from tests.planner.conftest import Result

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
BACKUP = str(EXAMPLES / "backup-archive.yaml")
LEGEND = (
    "prices: no mark = verified from the provider's own pages, ° = verified from a secondary source, "
    "* = rests on an unverified price"
)
Run = Callable[..., Result]


def test_cost_marks_each_amount_and_the_total(run_cli: Run) -> None:
    result = run_cli("--wide", "cost", BACKUP, "-p", "idrive-e2", "--as-of", "2026-12-01")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "idrive-e2 standard: $2,500.00* a month"
    assert "storage     IDrive e2 storage      500         TB-month  $5            $2,500.00*" in lines
    assert "egress      internet egress        1,000       GB        $0            $0.00" in lines
    assert "total                                                                  $2,500.00*" in lines
    assert LEGEND in lines  # then the lines saying when the prices were read


def test_cost_markdown_marks_each_amount(run_cli: Run) -> None:
    result = run_cli("cost", BACKUP, "-p", "idrive-e2", "--as-of", "2026-12-01", "-f", "markdown")
    assert result.out.startswith("## idrive-e2 standard: $2,500.00* a month\n")
    assert "| storage    | IDrive e2 storage     | 500        | TB-month | $5           | $2,500.00* |" in result.out


def test_cost_json_gives_the_totals_sourcing(run_cli: Run) -> None:
    bill = json.loads(run_cli("cost", BACKUP, "-p", "idrive-e2", "--as-of", "2026-12-01", "-f", "json").out)
    assert bill["price_status"] == "unverified"
    assert [i["price_status"] for i in bill["line_items"]] == ["unverified"] * 5 + ["verified-primary"]


def test_a_verified_bill_has_no_mark_and_no_legend(run_cli: Run) -> None:
    result = run_cli("cost", BACKUP, "-p", "cloudflare-r2", "--as-of", "2026-12-01")
    assert result.out.splitlines()[0] == "cloudflare-r2 standard: $7,499.85 a month"
    assert LEGEND not in result.out
    secondary = run_cli("cost", BACKUP, "-p", "backblaze-b2", "--as-of", "2026-12-01").out.splitlines()
    assert secondary[0] == "backblaze-b2 standard: $3,474.93° a month"


def test_cost_months_marks_each_category_and_month(run_cli: Run) -> None:
    args = ("cost", BACKUP, "-p", "aws-s3", "--region", "eu-central-1", "--months", "2", "--as-of", "2026-12-01")
    lines = run_cli("--wide", *args).out.splitlines()
    assert lines[0] == "aws-s3 standard: $22,361.03* over 2 months"
    assert lines[2] == "Months: 30 days each (--calendar bills each calendar month's days)"
    assert lines[5].split() == [
        "1",
        "2026-12-01",
        "500",
        "TB",
        "$10,994.24°",
        "$74.82*",
        "$2.01*",
        "$0.00*",
        "$11,071.07*",
        "aws-s3/eu-central-1@2026-09-01",
    ]
    assert lines[7].split() == ["total", "$22,361.03*"]
    assert lines[8] == LEGEND
    rows = run_cli("--wide", *args, "-f", "csv").out.splitlines()
    assert rows[0] == "month,priced_on,stored_bytes,category,amount_usd,table_version,price_status"
    assert rows[1] == "1,2026-12-01,500000000000000,storage,10994.24,aws-s3/eu-central-1@2026-09-01,verified-secondary"
    assert rows[4] == "1,2026-12-01,500000000000000,egress,74.82,aws-s3/eu-central-1@2026-09-01,unverified"
    projected = json.loads(run_cli("--wide", *args, "-f", "json").out)
    assert projected["price_status"] == "unverified"
    assert projected["months"][0]["cost"]["price_status_by_category"] == {
        "storage": "verified-secondary",
        "requests": "unverified",
        "free_allowance": "unverified",
        "egress": "unverified",
    }


SWEEP = ("sweep", BACKUP, "--vary", "traffic.egress=0..500TB:3", "--as-of", "2026-12-01")


def test_sweep_marks_the_cheapest_and_the_next(run_cli: Run) -> None:
    lines = run_cli("--wide", *SWEEP).out.splitlines()
    assert "250 TB            idrive-e2:standard   $2,500.00*  backblaze-b2:standard $3,474.93°    -" in lines
    assert "0 B               aws-s3:deep-archive  $482.74°    aws-s3:glacier-flexible $1,690.54°  -" in lines
    assert lines[-1] == LEGEND
    rows = run_cli("--wide", *SWEEP, "-f", "csv").out.splitlines()
    assert rows[0] == "traffic.egress,option,month_usd,price_status,policy_breach,winner"
    assert "250000000000000.0,idrive-e2:standard,2500.00,unverified,,yes" in rows
    cells = json.loads(run_cli("--wide", *SWEEP, "-f", "json").out)["cells"]
    assert cells[1]["price_status"]["idrive-e2:standard"] == "unverified"


def test_sweep_verified_only_leaves_out_unverified_options_and_says_so(run_cli: Run) -> None:
    result = run_cli("--wide", *SWEEP, "--verified-only")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert "250 TB            backblaze-b2:standard  $3,474.93°  wasabi:standard $3,633.43°          -" in lines
    assert lines[-1] == (
        "Left out (rests on unverified prices): idrive-e2:standard: IDrive e2 storage, put requests: free,"
        " get requests: free, list requests: free, delete requests: free"
    )
    payload = json.loads(run_cli("--wide", *SWEEP, "--verified-only", "-f", "json").out)
    assert "idrive-e2:standard" not in payload["options"] and list(payload["left_out"]) == ["idrive-e2:standard"]


def test_sweep_verified_only_with_nothing_left_is_one_line_exit_2(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "idrive.yaml"
    path.write_text(
        "name: only idrive\nstorage: {stored: 10 TB, object_size: 64 MiB}\nconstraints: {providers: [idrive-e2]}\n"
    )
    result = run_cli("sweep", str(path), "--vary", "traffic.egress=0..5TB:2", "--verified-only")
    assert result.code == 2
    assert result.err == (
        "planner: --verified-only: every allowed option rests on an unverified price in the grid"
        " (idrive-e2:standard): nothing is left\n"
    )


def test_the_sweep_plot_marks_each_option(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "line.svg"
    assert run_cli(*SWEEP, "--plot", str(out)).code == 0
    texts = ["".join(node.itertext()) for node in ET.parse(out).getroot().iter() if node.tag.endswith("text")]
    assert "idrive-e2:standard*" in texts and "backblaze-b2:standard°" in texts and "cloudflare-r2:standard" in texts
    assert "°: a price verified from a secondary source; *: rests on an unverified price" in texts


TWO = """name: idrive or r2
storage: {stored: 10 TB, object_size: 64 MiB}
traffic: {egress: 1 TB}
constraints: {providers: [idrive-e2, cloudflare-r2], months: 2}
"""


def test_recommend_verified_only_leaves_out_idrive_and_says_why(run_cli: Run, tmp_path: Path) -> None:
    """IDrive e2 at $5 a TB-month ($50.00 for 10 TB) is the cheapest, on an inferred price; with
    --verified-only R2 Infrequent Access ($110.90) is chosen and IDrive named as left out."""
    path = tmp_path / "two.yaml"
    path.write_text(TWO)
    args = ("recommend", str(path), "--no-simulate", "--as-of", "2026-12-01")
    plain = run_cli("--wide", *args).out.splitlines()
    assert plain[4].split()[:5] == ["1", "idrive-e2", "standard", "$50.00*", "$100.00*"]
    result = run_cli("--wide", *args, "--verified-only")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[4].split()[:5] == ["1", "cloudflare-r2", "infrequent-access", "$110.90", "$221.80"]
    assert not any("idrive-e2" in line for line in lines[:8])
    statement = "idrive-e2 standard: rests on unverified prices: IDrive e2 storage, get requests: free"
    assert f"Left out (--verified-only): {statement}" in lines
    assert "Use cloudflare-r2 infrequent-access" in lines
    payload = json.loads(run_cli("--wide", *args, "--verified-only", "-f", "json").out)
    assert payload["left_out"] == [statement]
    assert [o["provider"] for o in payload["ranking"]] == ["cloudflare-r2", "cloudflare-r2"]


def test_recommend_verified_only_with_nothing_left_is_one_line_exit_2(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "idrive.yaml"
    path.write_text(TWO.replace("idrive-e2, cloudflare-r2", "idrive-e2"))
    result = run_cli("recommend", str(path), "--no-simulate", "--verified-only")
    assert result.code == 2
    assert result.err == (
        "planner: --verified-only: every allowed option rests on an unverified price (idrive-e2 standard: rests on"
        " unverified prices: IDrive e2 storage, get requests: free): nothing is left\n"
    )


def test_the_markdown_report_marks_the_choice_its_bill_and_its_months(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(TWO)
    out = tmp_path / "report.md"
    assert run_cli("report", str(path), "--no-simulate", "--as-of", "2026-12-01", "-o", str(out)).code == 0
    lines = out.read_text().splitlines()
    assert (
        "Use idrive-e2 standard: $50.00\\* this month, $100.00\\* over 2 months (prices in force on 2026-12-01)."
        in (lines)
    )
    assert "| total |   |   |   |   | $50.00\\* |   |   |" in lines
    assert "| 2 | 2027-01-01 | 10 TB | $50.00\\* | idrive-e2@2025-01-01 |" in lines
    assert "| total |   |   | $100.00\\* |   |" in lines


def test_migrate_marks_the_one_time_items_and_their_total(run_cli: Run) -> None:
    """S3 us-east-1's request and egress prices (aws-s3@2025-12-01) are verified from a secondary source."""
    web = str(EXAMPLES / "web-assets.yaml")
    result = run_cli("--wide", "migrate", web, "--from", "aws-s3", "--to", "idrive-e2", "--start", "2026-12-01")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[4].startswith("One-time cost: $417.72°. Duration: 1,207.0 hours (50.3 days)")
    total = next(line for line in lines if line.startswith("total "))
    assert total.split() == ["total", "$417.72°"]
    assert "1,000 requests  $0.0004       $7.63°    aws-s3@2025-12-01" in result.out
    assert lines[lines.index(total) + 1] == LEGEND


def test_migrate_marks_each_month_of_the_timeline_and_the_plot(run_cli: Run, tmp_path: Path) -> None:
    """Staying at S3 rests on secondary-verified prices; moving adds IDrive e2's unverified $5 a TB."""
    web = str(EXAMPLES / "web-assets.yaml")
    args = ("migrate", web, "--from", "aws-s3", "--to", "idrive-e2", "--start", "2026-12-01")
    lines = run_cli("--wide", *args).out.splitlines()
    assert lines[5].startswith("Month 1: $4,190.21° to stay; month 12: $4,237.34° to stay, $36.00* moving.")
    bulk = next(line for line in lines if line.startswith("bulk "))
    assert bulk.split()[1:3] == ["$808.01*", "$442.01°"]  # moving rests on IDrive's price, the copy on S3's
    month_one = next(line for line in lines if line.startswith("1        2026-12-01"))
    assert month_one.split()[8:] == [
        "$4,190.21°",
        "$428.03°",
        "$22.59*",
        "$417.71°",
        "$4,190.21°",
        "$450.62*",
        "100%",
    ]
    assert lines[lines.index(next(line for line in lines if line.startswith("12       2027-11-01"))) + 1] == LEGEND
    month = json.loads(run_cli("--wide", *args, "-f", "json").out)["timeline"][0]
    assert (month["stay_price_status"], month["source_price_status"], month["destination_price_status"]) == (
        "verified-secondary",
        "verified-secondary",
        "unverified",
    )
    out = tmp_path / "move.svg"
    assert run_cli("--wide", *args, "--plot", str(out)).code == 0
    texts = ["".join(node.itertext()) for node in ET.parse(out).getroot().iter() if node.tag.endswith("text")]
    assert "stay at aws-s3:standard°" in texts and "move to idrive-e2:standard*" in texts
    assert "one-time cost of the move: $417.72°" in texts


def _svg_texts(path: Path) -> list[str]:
    return ["".join(node.itertext()) for node in ET.parse(path).getroot().iter() if node.tag.endswith("text")]


def test_the_recommendation_and_projection_plots_mark_amounts(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(TWO)
    note = "°: a price verified from a secondary source; *: rests on an unverified price"
    chart = tmp_path / "rec.svg"
    assert run_cli("recommend", str(path), "--no-simulate", "--as-of", "2026-12-01", "--plot", str(chart)).code == 0
    texts = _svg_texts(chart)
    assert "$50.00*  CHOSEN" in texts and "idrive-e2 standard* (chosen)" in texts and note in texts
    months = tmp_path / "months.svg"
    args = ("cost", str(path), "-p", "idrive-e2", "--months", "2", "--as-of", "2026-12-01", "--plot", str(months))
    assert run_cli(*args).code == 0
    title = "idrive-e2 standard: $100.00* over 2 months (prices from idrive-e2@2025-01-01, unchanged)"
    assert title in _svg_texts(months)


GROWING = """name: growing
storage: {stored: 100 TB, object_size: 64 MiB, growth_per_month: {low: 5 TB, high: 15 TB}}
traffic: {egress: 2 TB}
constraints: {providers: [backblaze-b2, idrive-e2], storage_classes: [standard], months: 12}
"""


def test_the_outcomes_of_samples_mark_each_options_amounts(run_cli: Run, tmp_path: Path) -> None:
    """100 TB at IDrive e2's inferred $5 a TB is $500.00* in month one whatever the growth."""
    path = tmp_path / "growing.yaml"
    path.write_text(GROWING)
    args = ("recommend", str(path), "--no-simulate", "--samples", "200", "--as-of", "2026-01-01")
    lines = run_cli("--wide", *args).out.splitlines()
    idrive = next(line for line in lines if line.startswith("idrive-e2:standard "))
    assert idrive.split()[5:8] == ["$500.00*", "$500.00*", "$500.00*"]
    b2 = next(line for line in lines if line.startswith("backblaze-b2:standard "))
    assert b2.split()[5:8] == ["$599.94°", "$599.94°", "$599.94°"]
    swing = next(line for line in lines if line.startswith("storage.growth_per_month "))
    assert all(cell.endswith("*") for cell in swing.split()[1:3])
    assert lines[-1] == LEGEND
    answer = json.loads(run_cli("--wide", *args, "-f", "json").out)["uncertainty"]
    assert {o["option"]: o["price_status"] for o in answer["options"]} == {
        "idrive-e2:standard": "unverified",
        "backblaze-b2:standard": "verified-secondary",
    }


def test_the_html_report_marks_the_choice(run_cli: Run, tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(TWO)
    out = tmp_path / "report.html"
    assert run_cli("report", str(path), "--no-simulate", "--as-of", "2026-12-01", "-o", str(out)).code == 0
    html = out.read_text()
    assert "Use idrive-e2 standard: $50.00* this month, $100.00* over 2 months (prices in force on 2026-12-01)." in html
