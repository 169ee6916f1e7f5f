"""``planner pricing audit`` lists every price in force with its quote, address, day read, sourcing and age;
``--older-than`` keeps the old readings (and the prices with no quote, whose age is unknown); bad input is one
line, exit 2. ``pricing show`` gives each price's quote under the tables.

Acme's table (written here): storage $0.006 per GB-month quoted a month ago in a long passage, egress $0.01
per GB quoted in March 2024, PUTs $0.005 per 1,000 with no quote.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from planner.cli import main
from planner.errors import InputError
from planner.pricing import audit, catalog, cdn_prices
from tests.pricing.test_freshness import EGRESS, FRESH, OLD, PUTS, STORAGE, TODAY, VERSION, acme_table

LONG = "Storage: $0.006 per GB-month, billed on the average bytes stored over the month and metered hourly"


@pytest.fixture
def acme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    raw = acme_table()
    raw["classes"]["standard"]["storage"]["tiers"][0]["quote"]["text"] = LONG
    folder = tmp_path / "tables" / "acme"
    folder.mkdir(parents=True)
    (folder / "2026-01-01.yaml").write_text(yaml.safe_dump(raw))
    monkeypatch.setenv(catalog.TABLES_ENV, str(tmp_path / "tables"))
    catalog._load_all.cache_clear()
    yield folder
    catalog._load_all.cache_clear()


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["planner", *args])
    code = 0
    try:
        main()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


OLD_AGE = (TODAY - OLD).days


def test_the_audit_lists_each_price_with_its_reading(acme: Path) -> None:
    rows = {r.field: r for r in audit.audit("acme")}
    assert {f: (r.source, r.figure, r.unit, r.status, r.read, r.age_days, r.stale) for f, r in rows.items()} == {
        STORAGE: (VERSION, "0.006", "GB-month", "verified-primary", FRESH, 30, False),
        EGRESS: (VERSION, "0.01", "GB", "verified-primary", OLD, OLD_AGE, True),
        PUTS: (VERSION, "0.005", "1,000 requests", "verified-primary", None, None, False),
    }
    quote = rows[STORAGE].quote
    assert quote is not None and (quote.text, quote.url) == (LONG, "https://acme.example/pricing")
    assert (rows[PUTS].quote, rows[PUTS].quoted) == (None, False)


@pytest.mark.parametrize(
    ("days", "fields"),
    [(None, {STORAGE, EGRESS, PUTS}), (29, {STORAGE, EGRESS, PUTS}), (30, {EGRESS, PUTS}), (OLD_AGE, {PUTS})],
)
def test_older_than_keeps_older_readings_and_the_unquoted(acme: Path, days: int | None, fields: set[str]) -> None:
    assert {r.field for r in audit.audit("acme", days)} == fields


@pytest.mark.parametrize(("text", "days"), [("30d", 30), ("6m", 183), ("12m", 365), ("1y", 365), ("2 Y", 730)])
def test_an_age_is_days_months_or_years_back_from_today(text: str, days: int) -> None:
    assert audit.age_days(text, dt.date(2026, 12, 6)) == days


@pytest.mark.parametrize("text", ["6x", "-1m", "m", "six months", ""])
def test_a_bad_age_is_refused_naming_the_option(text: str) -> None:
    with pytest.raises(InputError) as caught:
        audit.age_days(text)
    assert str(caught.value) == f"--older-than: {text!r}: an age is a number of days, months or years (30d, 6m, 1y)"


SUMMARY = (
    f"3 prices: 2 quoted, 1 with no quote; 1 reading older than 12 months; oldest reading 2024-03-01"
    f" ({VERSION} {EGRESS}, {OLD_AGE} days)"
)


def test_the_text_audit_cuts_each_quote_short_and_ends_with_a_summary(
    acme: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(monkeypatch, capsys, "--wide", "pricing", "audit", "acme")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[-1] == SUMMARY
    storage = next(line for line in lines if STORAGE in line)
    assert f'"{LONG[:57].rstrip()}..."' in storage and "https://acme.example/pricing" in storage
    assert str(FRESH) in storage and " 30 " in storage
    egress = next(line for line in lines if EGRESS in line)
    assert "stale" in egress and f"{OLD_AGE:,}" in egress
    assert "no quote" in next(line for line in lines if PUTS in line)


def test_the_json_audit_gives_each_quote_whole(
    acme: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(monkeypatch, capsys, "pricing", "audit", "acme", "--format", "json")
    assert code == 0
    data = json.loads(out)
    storage = next(p for p in data["prices"] if p["field"] == STORAGE)
    assert storage == {
        "provider": "acme",
        "table": VERSION,
        "field": STORAGE,
        "figure": "0.006",
        "unit": "GB-month",
        "currency": "USD",
        "status": "verified-primary",
        "quoted": True,
        "quote": {"text": LONG, "url": "https://acme.example/pricing", "read": FRESH.isoformat()},
        "read": FRESH.isoformat(),
        "age_days": 30,
        "stale": False,
    }
    puts = next(p for p in data["prices"] if p["field"] == PUTS)
    assert (puts["quoted"], puts["quote"], puts["read"], puts["age_days"]) == (False, None, None, None)
    assert data["summary"] == {
        "prices": 3,
        "quoted": 2,
        "unquoted": 1,
        "stale": 1,
        "oldest_reading": {"read": "2024-03-01", "table": VERSION, "field": EGRESS},
        "line": SUMMARY,
    }


def test_the_csv_audit_has_a_row_per_price(
    acme: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(monkeypatch, capsys, "pricing", "audit", "acme", "--older-than", "6m", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["field"], r["read"], r["age_days"], r["stale"], r["quote"], r["address"]) for r in rows] == [
        (EGRESS, "2024-03-01", str(OLD_AGE), "true", "Egress: $0.01 per GB", "https://acme.example/pricing"),
        (PUTS, "", "", "", "", ""),
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere"], "planner: PROVIDER: unknown provider 'nowhere' (known: "),
        (["--older-than", "6x"], "planner: --older-than: '6x': an age is a number of days, months or years"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(monkeypatch, capsys, "pricing", "audit", *args)
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1


@pytest.mark.parametrize("name", [*catalog.providers(), *cdn_prices.cdn_ids(), audit.ROUTES])
def test_the_audit_runs_on_every_shipped_table(name: str) -> None:
    rows = audit.audit(name)
    assert rows and all(r.provider == name for r in rows)
    assert all(r.figure and r.status for r in rows)
    assert all((r.age_days is None) == (r.quote is None) for r in rows)


def test_pricing_show_gives_each_price_its_quote(
    acme: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(monkeypatch, capsys, "--wide", "pricing", "show", "acme")
    assert code == 0
    lines = out.splitlines()
    assert f'- {STORAGE} = 0.006: "{LONG}" (https://acme.example/pricing, read {FRESH})' in lines
    assert f"- {PUTS} = 0.005: no quote" in lines


def test_the_readme_commands_for_quotes_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "explanation" / "bills.md").read_text(encoding="utf-8")
    section = page[page.index("## How to read a quote") :]
    commands = [line[len("$ planner ") :].split() for line in section.splitlines() if line.startswith("$ planner ")]
    assert len(commands) == 2
    for args in commands:
        code, out, err = run(monkeypatch, capsys, "--wide", *args)
        assert (code, err) == (0, ""), args
        assert out.splitlines()[0].startswith("table")  # the audit's header row (text and CSV alike)
