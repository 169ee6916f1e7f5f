"""Regions end to end: cost --region, constraints.regions ranked by recommend, and pricing import aws."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from planner.decide.recommendation import recommend
from planner.errors import InputError
from planner.pricing.catalog import load_yaml
from planner.workload import Workload, parse_workload
from tests.planner.conftest import Result

Run = Callable[..., Result]
NOW = dt.date(2026, 12, 1)
FIXTURES = Path(__file__).resolve().parents[2] / "pricing" / "fixtures"

WORKLOAD = """
name: regional
storage:
  stored: 10 TiB
  object_size: 64 MiB
traffic:
  egress: 1100 GiB
constraints:
  months: 1
  providers: [aws-s3, wasabi]
  storage_classes: [standard]
  regions:
    aws-s3: [eu-central-1, us-east-1]
    wasabi: [eu-central-2]
"""


def _workload(text: str) -> Workload:
    return parse_workload(load_yaml(text, "regional.yaml"), "regional.yaml")


def _write(tmp_path: Path, text: str = WORKLOAD) -> Path:
    path = tmp_path / "regional.yaml"
    path.write_text(text)
    return path


def test_recommend_ranks_each_region_as_an_option() -> None:
    workload = _workload(WORKLOAD)
    result = recommend(workload, as_of=NOW, simulate=False)
    options = {o.label: o for o in result.ranking}
    assert set(options) == {"aws-s3/eu-central-1", "aws-s3/us-east-1", "wasabi/eu-central-2"}
    frankfurt, virginia = options["aws-s3/eu-central-1"], options["aws-s3/us-east-1"]
    # Storage, 10,240 GB (10 TiB in AWS's binary GB): us-east-1 x $0.023 = $235.52 (aws-s3@2025-12-01);
    # eu-central-1 x $0.0245 = $250.88 (AmazonS3 offer of 2026-09-28 as quoted in a 2026 storage-cost module).
    assert frankfurt.cost.by_category()["storage"] == Decimal("250.88")
    assert virginia.cost.by_category()["storage"] == Decimal("235.52")
    # Egress, 1,100 GB: 100 free, 1,000 x $0.09 = $90.00 in both (Frankfurt's figure unverified)
    assert frankfurt.cost.by_category()["egress"] == virginia.cost.by_category()["egress"] == Decimal("90.00")
    assert frankfurt.cost.table_version == "aws-s3/eu-central-1@2026-09-01"
    # one option per region, ranked among the rest by cost
    position = [o.label for o in result.ranking]
    assert position.index("aws-s3/us-east-1") < position.index("aws-s3/eu-central-1")
    wasabi = options["wasabi/eu-central-2"]
    assert wasabi.cost.region == "eu-central-2"
    assert wasabi.cost.region_note is not None and "charges the same in every region" in wasabi.cost.region_note


def test_recommend_refuses_a_region_no_table_prices() -> None:
    text = WORKLOAD.replace("aws-s3: [eu-central-1, us-east-1]", "aws-s3: [eu-central-1, xx-north-9]")
    with pytest.raises(
        InputError, match=r"^constraints\.regions\.aws-s3: no aws-s3 price table for region 'xx-north-9'"
    ):
        recommend(_workload(text), as_of=NOW, simulate=False)


def test_regions_are_checked_in_the_workload() -> None:
    with pytest.raises(InputError, match=r"constraints\.regions.*unknown provider 'aws'"):
        _workload(WORKLOAD.replace("    wasabi:", "    aws:"))
    with pytest.raises(InputError, match=r"a list of distinct region names"):
        _workload(WORKLOAD.replace("[eu-central-2]", "[]"))


def test_recommend_names_the_region_it_chooses(run_cli: Run, tmp_path: Path) -> None:
    text = WORKLOAD.replace("providers: [aws-s3, wasabi]", "providers: [aws-s3]").replace(
        "    wasabi: [eu-central-2]\n", ""
    )
    result = run_cli("recommend", str(_write(tmp_path, text)), "--as-of", "2026-12-01", "--no-simulate")
    assert result.code in (0, 1), result.err
    assert "aws-s3/us-east-1" in result.out and "aws-s3/eu-central-1" in result.out


def test_cost_in_a_region(run_cli: Run, tmp_path: Path) -> None:
    path = _write(tmp_path)
    result = run_cli("--wide", "cost", str(path), "-p", "aws-s3", "--region", "eu-central-1", "--as-of", "2026-12-01")
    assert result.code == 0, result.err
    assert "aws-s3/eu-central-1@2026-09-01" in result.out and "region eu-central-1" in result.out
    assert "$250.88" in result.out  # 10,240 GB x $0.0245
    default = run_cli("--wide", "cost", str(path), "-p", "aws-s3", "--as-of", "2026-12-01")
    assert "aws-s3@2025-12-01" in default.out and "$235.52" in default.out


def test_cost_in_a_region_no_table_prices_is_one_line(run_cli: Run, tmp_path: Path) -> None:
    result = run_cli("cost", str(_write(tmp_path)), "-p", "aws-s3", "--region", "mars-1", "--as-of", "2026-12-01")
    assert result.code == 2
    assert result.err.count("\n") == 1 and "no aws-s3 price table for region 'mars-1'" in result.err


def test_cost_at_a_one_price_provider_says_so(run_cli: Run, tmp_path: Path) -> None:
    path = _write(tmp_path)
    result = run_cli("cost", str(path), "-p", "wasabi", "--region", "ap-northeast-1", "--as-of", "2026-12-01")
    assert result.code == 0, result.err
    assert "charges the same in every region" in result.out
    refused = run_cli("cost", str(path), "-p", "wasabi", "--region", "moon-1", "--as-of", "2026-12-01")
    assert refused.code == 2 and refused.err.count("\n") == 1 and "has no region 'moon-1'" in refused.err


def test_pricing_import_aws(run_cli: Run, tmp_path: Path) -> None:
    offer, transfer = FIXTURES / "aws-offer-s3.json", FIXTURES / "aws-offer-datatransfer.json"
    out = tmp_path / "tables"
    result = run_cli("pricing", "import", "aws", str(offer), "--transfer", str(transfer), "--out", str(out))
    assert result.code == 0, result.err
    assert (out / "aws-s3" / "eu-central-1" / "2026-09-01.yaml").is_file()
    assert (out / "aws-s3" / "2026-09-01.yaml").is_file()
    assert "wrote" in result.out and "usage types this planner does not price were skipped" in result.out
    again = run_cli("pricing", "import", "aws", str(offer), "--transfer", str(transfer), "--out", str(out))
    assert again.code == 2 and "exists (use --force to replace it)" in again.err and again.err.count("\n") == 1
    forced = run_cli("pricing", "import", "aws", str(offer), "--transfer", str(transfer), "--out", str(out), "--force")
    assert forced.code == 0, forced.err


def test_pricing_import_refusals_are_one_line(run_cli: Run, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = run_cli("pricing", "import", "aws", str(bad), "--out", str(tmp_path))
    assert result.code == 2 and result.err.count("\n") == 1 and "not JSON" in result.err
    offer = tmp_path / "offer.json"
    shutil.copy(FIXTURES / "aws-offer-s3.json", offer)
    no_egress = run_cli("pricing", "import", "aws", str(offer), "--out", str(tmp_path / "t"))
    assert no_egress.code == 2 and "--transfer" in no_egress.err and no_egress.err.count("\n") == 1
    other = run_cli("pricing", "import", "gcp", str(offer), "--out", str(tmp_path / "t"))
    assert other.code == 2 and "only AWS's price list" in other.err


def test_regions_of_a_provider_not_considered_are_refused() -> None:
    text = WORKLOAD.replace("providers: [aws-s3, wasabi]", "providers: [aws-s3]")
    with pytest.raises(InputError, match=r"regions: wasabi not among constraints.providers"):
        _workload(text)
