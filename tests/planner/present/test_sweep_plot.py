"""``planner sweep --plot``: the heat map of a two-field sweep and the curves of a one-field one."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from planner.evidence import PRICE_MARKERS
from planner.present.plots import usd_label

from .conftest import ROOT, check_picture

Run = Callable[..., Any]
WEB = str(ROOT / "examples" / "web-assets.yaml")
GRID = ("--vary", "traffic.egress=0..300TB:4", "--vary", "storage.stored=1..100TB:3", "--as-of", "2026-12-01")


def _texts(path: Path) -> list[str]:
    """Every text of an SVG (the house style keeps text as text)."""
    return ["".join(node.itertext()) for node in ET.parse(path).getroot().iter() if node.tag.endswith("text")]


def test_a_two_field_sweep_draws_the_winner_and_its_bill_in_every_cell(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "grid.svg"
    result = run_cli("sweep", WEB, *GRID, "--plot", str(out), "-f", "json")
    assert result.code == 0, result.err
    check_picture(out)
    texts = _texts(out)
    shown = " ".join(texts)
    assert "traffic.egress" in shown and "storage.stored" in shown
    cells = json.loads(result.out)["cells"]
    assert len(cells) == 12
    for cell in cells:
        winner = cell["winner"]
        assert winner in shown  # in the legend
        # the cell's own bill, as the table prints it, with the mark of its weakest price
        mark = PRICE_MARKERS[cell["price_status"][winner]]
        assert usd_label(Decimal(cell["costs_usd"][winner])) + mark in texts
    # the axes' ticks are the grid's values in the fields' units
    assert "300 TB" in texts and "100 TB" in texts


def test_a_one_field_sweep_draws_every_option(run_cli: Run, tmp_path: Path) -> None:
    out = tmp_path / "line.png"
    result = run_cli("sweep", WEB, "--vary", "traffic.egress=0..300TB:7", "--plot", str(out))
    assert result.code == 0, result.err
    check_picture(out)


def test_a_plot_that_is_not_a_picture_is_one_line_exit_2(run_cli: Run, tmp_path: Path) -> None:
    result = run_cli("sweep", WEB, *GRID, "--plot", str(tmp_path / "grid.txt"))
    assert result.code == 2
    assert result.err.count("\n") == 1 and "--plot" in result.err and ".svg" in result.err


def test_the_tornado_plot_draws_each_uncertain_input_about_the_central_bill(run_cli: Run, tmp_path: Path) -> None:
    workload = tmp_path / "w.yaml"
    workload.write_text(
        "name: ranged\n"
        "storage: {stored: {low: 20 TB, likely: 50 TB, high: 90 TB}, object_size: 4 MiB}\n"
        "traffic: {egress: {low: 5 TB, high: 200 TB}, reads: 2M}\n"
        "constraints: {providers: [backblaze-b2, cloudflare-r2, wasabi]}\n"
    )
    out = tmp_path / "tornado.svg"
    args = ("recommend", str(workload), "--no-simulate", "--samples", "300", "--seed", "2", "--as-of", "2026-12-01")
    result = run_cli(*args, "--tornado-plot", str(out), "-f", "json")
    assert result.code in (0, 1), result.err
    check_picture(out)
    answer = json.loads(result.out)["uncertainty"]
    texts = _texts(out)
    shown = " ".join(texts)
    assert "traffic.egress" in shown and "storage.stored" in shown
    favourite = answer["options"][0]["option"]
    assert favourite in shown and usd_label(answer["central_usd"]) in shown
    mark = PRICE_MARKERS[answer["options"][0]["price_status"]]  # the favourite's weakest price
    for swing in answer["tornado"]:
        # each bar's ends as the table gives them, with the favourite's price mark
        assert f"{usd_label(swing['at_p10_usd'])}{mark} .. {usd_label(swing['at_p90_usd'])}{mark}" in shown
    refused = run_cli("recommend", str(workload), "--no-simulate", "--tornado-plot", str(out))
    assert refused.code == 2 and "--samples" in refused.err and refused.err.count("\n") == 1
