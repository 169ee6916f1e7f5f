"""A provider is data: a price table in a tables folder adds it to every command, no code changed."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from planner.present.plots import matplotlib_available
from planner.pricing import catalog
from tests.planner.conftest import Result

Run = Callable[..., Result]

# A sixth, made-up provider: $2 per TB-month, free egress, and a class read only after a restore
# (limits.restore_required; $0.50 per 1,000 restore requests, $0.01 per GB restored).
TABLE = """\
schema_version: 1
provider: acme-s3
provider_name: Acme Object Storage
region: test-1
currency: USD
status: unverified
sources: ["made up for a test"]
billing:
  units: {gb_bytes: 1000000000, tb_bytes: 1000000000000, status: unverified, sources: ["made up"]}
egress:
  internet:
    unit: GB
    unit_bytes: 1000000000
    tiers: [{price: "0"}]
limits:
  restore_required: [cold]
classes:
  standard:
    name: Acme Standard
    storage:
      unit: TB-month
      unit_bytes: 1000000000000
      tiers: [{price: "2.00"}]
    requests:
      - {id: writes, operations: [put, create-multipart, upload-part, complete-multipart], price: "0", per: 1000}
      - {id: reads, operations: [get, head, list], price: "0", per: 1000}
    free_operations: [delete]
  cold:
    name: Acme Cold
    min_duration_days: 60
    storage:
      unit: TB-month
      unit_bytes: 1000000000000
      tiers: [{price: "1.00"}]
    requests:
      - {id: writes, operations: [put, create-multipart, upload-part, complete-multipart], price: "0", per: 1000}
      - {id: reads, operations: [get, head, list], price: "0", per: 1000}
    free_operations: [delete, restore]
    retrieval:
      unit: GB
      unit_bytes: 1000000000
      default: standard
      options:
        standard: {per_gb: "0.01", per_1000_requests: "0.50"}
"""

WORKLOAD = """\
name: archive of scans
storage: {stored: 10 TB, object_size: 100 MB}
traffic: {egress: 1 TB}
performance: {p99_ttfb: 500 ms}
constraints: {providers: [acme-s3, wasabi]}
"""


@pytest.fixture
def sixth_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    tables = tmp_path / "tables" / "acme-s3"
    tables.mkdir(parents=True)
    (tables / "2026-01-01.yaml").write_text(TABLE, encoding="utf-8")
    monkeypatch.setenv(catalog.TABLES_ENV, str(tmp_path / "tables"))
    workload = tmp_path / "scans.yaml"
    workload.write_text(WORKLOAD, encoding="utf-8")
    yield workload


def test_a_sixth_provider_is_listed_with_its_classes(run_cli: Run, sixth_provider: Path) -> None:
    result = run_cli("pricing", "list", "--format", "json")
    assert result.code == 0, result.err
    rows = {row["provider"]: row for row in json.loads(result.out)["providers"]}
    assert rows["acme-s3"]["classes"] == ["standard", "cold"]
    assert rows["acme-s3"]["in_force"] == "acme-s3@2026-01-01"
    assert {"aws-s3", "cloudflare-r2", "backblaze-b2", "wasabi", "idrive-e2"} < set(rows)


def test_a_sixth_provider_is_priced_and_its_restore_property_comes_from_the_table(
    run_cli: Run, sixth_provider: Path
) -> None:
    day = "2026-06-01"
    result = run_cli("cost", str(sixth_provider), "-p", "acme-s3", "--class", "cold", "--as-of", day, "-f", "json")
    assert result.code == 0, result.err
    lines = {item["description"]: item for item in json.loads(result.out)["line_items"]}
    # 10 TB x $1.00; 1 TB read back = 1,000 GB x $0.01; 10,000 reads of 100 MB are 10,000 restore
    # requests, 10 x $0.50 (the class prices a restore request).
    assert Decimal(lines["Acme Cold storage"]["amount_usd"]) == Decimal("10.00")
    assert Decimal(lines["Acme Cold data retrieval (standard)"]["amount_usd"]) == Decimal("10.00")
    assert Decimal(lines["Acme Cold retrieval requests (standard)"]["amount_usd"]) == Decimal("5.00")


def test_a_sixth_provider_is_ranked_by_recommend(run_cli: Run, sixth_provider: Path) -> None:
    result = run_cli("recommend", str(sixth_provider), "--no-simulate", "--as-of", "2026-06-01", "-f", "json")
    options = {(o["provider"], o["storage_class"]): o for o in json.loads(result.out)["ranking"]}
    assert set(options) >= {("acme-s3", "standard"), ("acme-s3", "cold"), ("wasabi", "standard")}
    assert Decimal(options[("acme-s3", "standard")]["monthly_cost_usd"]) == Decimal("20.00")  # 10 TB x $2.00
    # the cold class needs a restore before any read (a property in the table): its TTFB target is missed
    cold = options[("acme-s3", "cold")]
    assert cold["status"] == "rejected" and any("must be restored" in v for v in cold["violations"])
    assert options[("acme-s3", "standard")]["status"] != "rejected"


def test_a_workload_may_name_only_a_provider_the_tables_define(run_cli: Run, tmp_path: Path) -> None:
    workload = tmp_path / "w.yaml"
    workload.write_text(WORKLOAD, encoding="utf-8")
    result = run_cli("recommend", str(workload), "--no-simulate")
    assert result.code == 2 and "unknown provider 'acme-s3'" in result.err


@pytest.mark.skipif(not matplotlib_available(), reason="needs planner[plot]")
def test_a_sixth_provider_is_drawn(run_cli: Run, sixth_provider: Path, tmp_path: Path) -> None:
    plot = tmp_path / "ranking.svg"
    result = run_cli("recommend", str(sixth_provider), "--no-simulate", "--as-of", "2026-06-01", "--plot", str(plot))
    assert plot.is_file(), result.err
    assert "acme-s3" in plot.read_text(encoding="utf-8")  # SVG text stays text
