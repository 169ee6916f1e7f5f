"""The region a workload names for a provider (``constraints.regions``) is the one ``cost`` and ``lifecycle``
price, and one the provider has no table for is refused naming the field, by both alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

WORKLOAD = {
    "name": "regional",
    "storage": {"stored": "10 TB", "object_size": "1 MB"},
    "traffic": {"egress": "1 TB", "reads": 100000},
}


def _file(tmp_path: Path, regions: list[str]) -> str:
    path = tmp_path / "w.json"
    constraints = {"constraints": {"regions": {"aws-s3": regions}}} if regions else {}
    path.write_text(json.dumps({**WORKLOAD, **constraints}))
    return str(path)


@pytest.mark.parametrize("command", ["cost", "lifecycle"])
def test_a_region_without_a_table_is_refused_by_its_field(tmp_path: Path, run_cli: Any, command: str) -> None:
    # cost had said "no aws-s3 price table for region 'mars-1'" with no file or field; lifecycle had priced
    # the default region
    result = run_cli(command, _file(tmp_path, ["mars-1"]), "-p", "aws-s3", "--as-of", "2026-12-01")
    assert result.code == 2
    assert "w.json: constraints.regions.aws-s3: no aws-s3 price table for region 'mars-1'" in result.err


def test_lifecycle_prices_the_region_the_workload_names(tmp_path: Path, run_cli: Any) -> None:
    args = ("-p", "aws-s3", "--as-of", "2026-12-01", "--price-only", "-f", "json")
    named = run_cli("lifecycle", _file(tmp_path, ["eu-west-1"]), *args)
    given = run_cli("lifecycle", _file(tmp_path, []), *args, "--region", "eu-west-1")
    default = run_cli("lifecycle", _file(tmp_path, []), *args)
    assert named.code == given.code == default.code == 0
    assert json.loads(named.out) == json.loads(given.out) != json.loads(default.out)
