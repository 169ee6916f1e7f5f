"""`planner sweep`: every cell is the bill `planner cost` prints for the workload at that point."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import pytest

from planner.decide.sweep import parse_axis
from planner.errors import InputError
from planner.workload import load_workload
from tests.planner.conftest import EXAMPLES, Result

WEB = EXAMPLES / "web-assets.yaml"
AS_OF = "2026-12-01"


def test_axes_read_their_field_s_units() -> None:
    workload = load_workload(WEB)
    assert parse_axis(workload, "traffic.egress=0..500TB:6").values == [i * 100e12 for i in range(6)]
    assert parse_axis(workload, "traffic.reads=1M..3M:3").values == [1e6, 2e6, 3e6]
    for bad, message in [
        ("traffic.egress=0..500:3", "give the size's unit"),
        ("traffic.egress=5TB..1TB:3", "must rise"),
        ("traffic.egress=0..5TB:1", "give 2 to"),
        ("traffic.nothing=0..5TB:3", "no such field"),
        ("name=a..b:3", "is not FIELD=LOW..HIGH:N"),
    ]:
        with pytest.raises(InputError, match=message):
            parse_axis(workload, bad)


def test_cells_equal_single_cost_runs(run_cli: Callable[..., Result], tmp_path: Path) -> None:
    out = run_cli("sweep", str(WEB), "--vary", "traffic.egress=1TB..201TB:3", "--as-of", AS_OF, "-f", "json")
    assert out.code == 0, out.err
    result = json.loads(out.out)
    text = WEB.read_text()
    for cell in result["cells"]:
        egress = int(cell["point"]["traffic.egress"])
        variant = tmp_path / f"w{egress}.yaml"
        variant.write_text(text.replace("egress: 50 TB", f'egress: "{egress} B"', 1))
        assert f'egress: "{egress} B"' in variant.read_text()
        for option in ("aws-s3:standard", "cloudflare-r2:standard", "backblaze-b2:standard"):
            provider, storage_class = option.split(":")
            bill = json.loads(run_cli("cost", str(variant), "-p", provider, "--class", storage_class,
                                      "--as-of", AS_OF, "-f", "json").out)  # fmt: skip
            assert Decimal(cell["costs_usd"][option]) == Decimal(bill["total_usd"])
        # the winner is the cheapest of those that break no policy
        allowed = {o: Decimal(c) for o, c in cell["costs_usd"].items() if o not in cell["breaches"]}
        assert cell["winner"] == min(allowed, key=lambda o: allowed[o])


def test_two_fields_as_csv(run_cli: Callable[..., Result]) -> None:
    out = run_cli("sweep", str(WEB), "--vary", "traffic.egress=0..50TB:3", "--vary", "storage.stored=1..20TB:2",
                  "--as-of", AS_OF, "-f", "csv")  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(out.out)))
    points = {(r["traffic.egress"], r["storage.stored"]) for r in rows}
    assert len(points) == 6 and sum(r["winner"] == "yes" for r in rows) == 6
