"""FOCUS 1.2 rules that ``focus-validator`` 2.0.1 found planner's ``--format focus`` output breaking, pinned
here so that a run without the validator (``test_focus_validator.py`` skips then) still holds them.

- InvoiceId (a recommended column, FOCUS 1.2 ``specification/columns/invoiceid.md``) was missing. A
  forecast line belongs to no issued or provisional invoice, and the column says it must then be null:
  present, typed as text, null on every row.
- SkuPriceDetails (``skupricedetails.md``) was missing. It must be present where a provider publishes
  unit prices in a price list (every table planner prices from), hold a JSON object whose keys are
  unique and whose values are scalars (the Key-Value Format attribute), be null only where SkuPriceId
  is, and prefix a provider-defined key with ``x_``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.planner.conftest import EXAMPLES, Result

Run = Callable[..., Result]

WEB_ASSETS = str(EXAMPLES / "web-assets.yaml")


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [key for key, _ in pairs]
    assert len(keys) == len(set(keys)), f"a key twice in {pairs}"
    return dict(pairs)


def test_invoice_id_is_present_and_null_on_every_forecast_row(run_cli: Run) -> None:
    result = run_cli("cost", WEB_ASSETS, "-p", "aws-s3", "--as-of", "2026-12-05", "-f", "focus")
    assert result.code == 0, result.err
    assert "InvoiceId" in result.out.splitlines()[0].split(",")
    rows = _rows(result.out)
    assert len(rows) == 6
    assert {row["InvoiceId"] for row in rows} == {""}


def test_sku_price_details_name_the_lines_storage_class_in_an_x_key(run_cli: Run) -> None:
    result = run_cli(
        "cost", WEB_ASSETS, "-p", "aws-s3", "--class", "standard-ia", "--as-of", "2026-12-05", "-f", "focus"
    )
    assert result.code == 0, result.err
    rows = _rows(result.out)
    assert rows
    for row in rows:
        assert row["SkuPriceId"] != ""
        details = json.loads(row["SkuPriceDetails"], object_pairs_hook=_unique_keys)
        assert details == {"x_StorageClass": "standard-ia"}
    assert rows[0]["SkuPriceDetails"] == '{"x_StorageClass": "standard-ia"}'


def test_sku_price_details_keep_the_key_value_format_on_every_example(run_cli: Run) -> None:
    """Across every example's recommendation (every provider's lines): a JSON object, unique keys,
    scalar values, custom keys x_-prefixed, never null beside a SkuPriceId."""
    for workload in sorted(EXAMPLES.glob("*.yaml")):
        result = run_cli("recommend", str(workload), "--no-simulate", "--as-of", "2026-12-05", "-f", "focus")
        rows = _rows(result.out)
        assert rows, (workload.name, result.err)
        for row in rows:
            assert (row["SkuPriceDetails"] == "") == (row["SkuPriceId"] == ""), workload.name
            details = json.loads(row["SkuPriceDetails"], object_pairs_hook=_unique_keys)
            assert isinstance(details, dict) and details, workload.name
            for key, value in details.items():
                assert key.startswith("x_"), (workload.name, key)
                assert isinstance(value, str | int | float | bool) or value is None, (workload.name, key)


def test_parquet_types_invoice_id_and_sku_price_details_as_text(run_cli: Run, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "forecast.parquet"
    result = run_cli("cost", WEB_ASSETS, "-p", "aws-s3", "--as-of", "2026-12-05", "-f", "focus", "--out", str(out))
    assert result.code == 0, result.err
    table = pq.read_table(out)
    assert str(table.schema.field("InvoiceId").type) == "string"
    assert str(table.schema.field("SkuPriceDetails").type) == "string"
    assert table.column("InvoiceId").null_count == table.num_rows == 6
    assert set(table.column("SkuPriceDetails").to_pylist()) == {'{"x_StorageClass": "standard"}'}
