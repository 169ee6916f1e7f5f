"""Every bill says when the prices it rests on were read, which readings are older than 12 months, and
which lines rest on a price with no quote: on each line, in the bill's text, JSON, CSV and FOCUS rows, and
in every command that prints a bill.

The table is Acme's, written here: storage at $0.006 per GB-month quoted a month ago, egress at $0.01 per
GB quoted in March 2024 (stale), PUTs at $0.005 per 1,000 with no quote.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.cli import main
from planner.costing.focus import COLUMNS, bill_rows
from planner.present import text as render
from planner.pricing import arrays, billing, catalog
from planner.pricing.breakdown import CostBreakdown, Freshness, stale_before
from planner.pricing.primitives import OPERATIONS
from planner.pricing.usage import Usage

TODAY = dt.date.today()
FRESH = TODAY - dt.timedelta(days=30)  # a month ago: fresh whenever the tests run
OLD = dt.date(2024, 3, 1)
VERSION = "acme@2026-01-01"
STORAGE = "classes.standard.storage.tiers.0.price"
EGRESS = "egress.internet.tiers.0.price"
PUTS = "classes.standard.requests.0.price"


def acme_table() -> dict[str, Any]:
    def quote(text: str, read: dt.date) -> dict[str, str]:
        return {"text": text, "url": "https://acme.example/pricing", "read": read.isoformat()}

    return {
        "schema_version": 1,
        "provider": "acme",
        "provider_name": "Acme",
        "region": "global",
        "currency": "USD",
        "status": "verified-primary",
        "sources": ["https://acme.example/pricing"],
        "egress": {
            "internet": {
                "unit": "GB",
                "unit_bytes": 10**9,
                "tiers": [{"price": "0.01", "quote": quote("Egress: $0.01 per GB", OLD)}],
            }
        },
        "classes": {
            "standard": {
                "name": "Acme Standard",
                "storage": {
                    "unit": "GB-month",
                    "unit_bytes": 10**9,
                    "tiers": [{"price": "0.006", "quote": quote("Storage: $0.006 per GB-month", FRESH)}],
                },
                "requests": [{"id": "class-a", "operations": ["put"], "price": "0.005", "per": 1000}],
                "free_operations": [op for op in OPERATIONS if op != "put"],
            }
        },
    }


@pytest.fixture
def acme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "tables" / "acme"
    folder.mkdir(parents=True)
    (folder / "2026-01-01.yaml").write_text(yaml.safe_dump(acme_table()))
    monkeypatch.setenv(catalog.TABLES_ENV, str(tmp_path / "tables"))
    catalog._load_all.cache_clear()
    yield folder
    catalog._load_all.cache_clear()


# 1,000 GB stored, 100 GB out, 10,000 PUTs
USAGE = Usage(stored_bytes=1000 * 10**9, egress_bytes=100 * 10**9, requests={"put": 10_000})


def acme_bill() -> CostBreakdown:
    return billing.estimate("acme", "standard", USAGE, as_of=dt.date(2026, 6, 1))


FRESHNESS_LINE = (
    f"prices read 2024-03-01 to {FRESH}; 1 reading older than 12 months: {VERSION}: {EGRESS} (read 2024-03-01)"
)
UNQUOTED_LINE = f"1 line rests on a price with no quote: {VERSION}: {PUTS}"


def test_each_line_names_its_price_and_the_day_its_quote_was_read(acme: Path) -> None:
    bill = acme_bill()
    # "Storage: $0.006 per GB-month": 1,000 x $0.006 = $6.00; "Egress: $0.01 per GB": 100 x $0.01 = $1.00;
    # PUTs (no quote): 10 x $0.005 = $0.05
    lines = {(i.price_field, i.price_read_on, i.amount_usd) for i in bill.line_items}
    assert lines == {
        (STORAGE, FRESH, Decimal("6.00")),
        (EGRESS, OLD, Decimal("1.00")),
        (PUTS, None, Decimal("0.05")),
    }
    assert [i.unquoted for i in bill.line_items if i.price_field == PUTS] == [True]


def test_a_bill_names_its_oldest_reading_the_stale_ones_and_the_unquoted_prices(acme: Path) -> None:
    fresh = acme_bill().freshness
    assert (fresh.read_from, fresh.read_to, fresh.unquoted_lines) == (OLD, FRESH, 1)
    assert [(r.table_version, r.field, r.read_on) for r in fresh.stale] == [(VERSION, EGRESS, OLD)]
    assert [(r.table_version, r.field) for r in fresh.unquoted] == [(VERSION, PUTS)]


def test_staleness_is_judged_on_the_day_the_bill_is_made() -> None:
    # 12 months before 2025-03-01 is 2024-03-01: a reading of that day is not yet older than 12 months
    assert stale_before(dt.date(2025, 3, 1)) == OLD
    assert stale_before(dt.date(2028, 2, 29)) == dt.date(2027, 2, 28)


def test_the_text_of_a_bill_says_when_its_prices_were_read(acme: Path) -> None:
    shown = render.breakdown(acme_bill(), "table").splitlines()
    assert shown[-2:] == [FRESHNESS_LINE, UNQUOTED_LINE]


def test_the_json_of_a_bill_carries_the_readings(acme: Path) -> None:
    data = json.loads(render.breakdown_json(acme_bill()))
    assert data["freshness"] == {
        "judged_on": TODAY.isoformat(),
        "read_from": "2024-03-01",
        "read_to": FRESH.isoformat(),
        "stale": [{"table_version": VERSION, "field": EGRESS, "read_on": "2024-03-01"}],
        "unquoted_lines": 1,
        "unquoted": [{"table_version": VERSION, "field": PUTS, "read_on": None}],
    }
    storage = next(i for i in data["line_items"] if i["price_field"] == STORAGE)
    assert storage["price_read_on"] == FRESH.isoformat()


def test_the_csv_of_a_bill_has_a_reading_per_line(acme: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(render.breakdown(acme_bill(), "csv"))))
    cells = {r["price_field"]: (r["price_read_on"], r["price_quoted"], r["price_stale"]) for r in rows}
    assert cells == {
        STORAGE: (FRESH.isoformat(), "true", "false"),
        EGRESS: ("2024-03-01", "true", "true"),
        PUTS: ("", "false", ""),
    }


def test_focus_rows_carry_the_readings_in_x_columns(acme: Path) -> None:
    assert COLUMNS[-4:] == ("x_PriceField", "x_PriceReadOn", "x_PriceQuoted", "x_PriceStale")
    rows = bill_rows(acme_bill(), start=dt.date(2026, 6, 1), account_name="acme")
    cells = {r["x_PriceField"]: (r["x_PriceReadOn"], r["x_PriceQuoted"], r["x_PriceStale"]) for r in rows}
    assert cells == {
        STORAGE: (FRESH.isoformat(), "true", "false"),
        EGRESS: ("2024-03-01", "true", "true"),
        PUTS: (None, "false", None),
    }
    written = list(csv.DictReader(io.StringIO(render_focus(rows))))
    assert {r["x_PriceField"]: r["x_PriceStale"] for r in written} == {STORAGE: "false", EGRESS: "true", PUTS: ""}


def render_focus(rows: list[dict[str, Any]]) -> str:
    from planner.present.text.focus import focus_csv

    return focus_csv(rows)


def test_a_line_at_no_price_of_a_table_is_neither_quoted_nor_unquoted(acme: Path) -> None:
    bill = billing.estimate("acme", "standard", Usage(stored_bytes=10**9, requests={"get": 5}))
    free = next(i for i in bill.line_items if i.description == "get requests: free")
    assert (free.price_field, free.price_read_on, free.unquoted) == (None, None, False)
    assert Freshness.of([free], TODAY).model_dump() == {
        "judged_on": TODAY,
        "read_from": None,
        "read_to": None,
        "stale": [],
        "unquoted_lines": 0,
        "unquoted": [],
    }


def test_the_vectorised_path_names_the_prices_the_engine_does(acme: Path) -> None:
    table = catalog.table_for("acme", dt.date(2026, 6, 1))
    found = arrays.monthly_readings(
        table, "standard", stored_bytes=[0.0, 1e12], egress_bytes=[0.0, 1e11], requests={"put": [0.0, 10_000.0]}
    )
    engine = {i.price_field: i.price_read_on for i in acme_bill().line_items}
    assert found == engine == {STORAGE: FRESH, EGRESS: OLD, PUTS: None}


@pytest.mark.parametrize("provider", ["aws-s3", "backblaze-b2", "hetzner", "storj"])
def test_the_vectorised_path_agrees_on_shipped_tables(provider: str) -> None:
    table = catalog.table_for(provider, dt.date(2026, 12, 1))
    usage = Usage(stored_bytes=60 * 10**12, object_count=10**6, egress_bytes=200 * 10**12, requests={"put": 10**6})
    for class_id in table.classes:
        bill = billing.bill(table, class_id, usage)
        found = arrays.monthly_readings(
            table,
            class_id,
            stored_bytes=usage.stored_bytes,
            object_count=usage.object_count,
            egress_bytes=usage.egress_bytes,
            requests=usage.requests,
        )
        assert found == {i.price_field: i.price_read_on for i in bill.line_items if i.price_field}, class_id


def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["planner", *args])
    code = 0
    try:
        main()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


WORKLOAD = {
    "name": "acme-test",
    "storage": {"stored": "1000 GB", "object_size": "1 MB"},
    "traffic": {"egress": "100 GB", "writes": 10_000, "reads": 0},
}


def test_planner_cost_prints_the_freshness_lines(
    acme: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(WORKLOAD))
    code, out, err = run(monkeypatch, capsys, "--wide", "cost", str(path), "-p", "acme", "--as-of", "2026-06-01")
    assert code == 0, err
    lines = out.splitlines()  # the bill's warnings follow them (its egress has no GET: it is said)
    assert lines[lines.index(FRESHNESS_LINE) + 1] == UNQUOTED_LINE


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _says_when_prices_were_read(text: str) -> bool:
    """Whether ``text`` has one of the lines a bill resting on a table's prices prints (whatever they are)."""
    return any("prices read " in line or " with no quote: " in line for line in text.splitlines())


@pytest.mark.parametrize(
    "args",
    [
        ["cost", "web-assets.yaml", "-p", "backblaze-b2"],
        ["cost", "web-assets.yaml", "-p", "backblaze-b2", "--months", "2"],
        ["recommend", "web-assets.yaml", "--no-simulate"],
        ["migrate", "web-assets.yaml", "--from", "aws-s3", "--to", "backblaze-b2"],
        ["lifecycle", "web-assets.yaml", "-p", "aws-s3"],
    ],
)
def test_every_command_that_prints_a_bill_says_when_its_prices_were_read(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(EXAMPLES / a) if a.endswith(".yaml") else a for a in args]
    code, out, err = run(monkeypatch, capsys, *argv)
    assert code in (0, 1), err
    assert _says_when_prices_were_read(out), out


def test_the_report_says_when_its_prices_were_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.md"
    code, _, err = run(monkeypatch, capsys, "report", str(EXAMPLES / "web-assets.yaml"), "--out", str(out))
    assert code in (0, 1), err
    assert _says_when_prices_were_read(out.read_text())


def test_a_projection_names_the_readings_of_all_its_months(
    acme: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(WORKLOAD))
    args = ["--wide", "cost", str(path), "-p", "acme", "--as-of", "2026-06-01", "--months", "3"]
    code, out, err = run(monkeypatch, capsys, *args, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["freshness"]["read_from"], data["freshness"]["unquoted_lines"]) == (
        "2024-03-01",
        3,
    )  # a PUT line a month
    assert all(m["cost"]["freshness"]["unquoted_lines"] == 1 for m in data["months"])
    code, out, err = run(monkeypatch, capsys, *args)
    assert out.splitlines()[-2:] == [FRESHNESS_LINE, f"3 lines rest on a price with no quote: {VERSION}: {PUTS}"]
