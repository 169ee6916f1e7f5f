"""Every plot for every example and reference profile, as PNG and SVG, and the plot errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner.costing.bills import project_costs
from planner.decide.migration import Endpoint, MigrationOptions, estimate_migration
from planner.errors import InputError
from planner.measure.reference import load_reference, reference_providers
from planner.present import plots
from planner.sim.front.workload_sim import simulate

from .conftest import AS_OF, REFERENCE_IDS, check_picture, example

FORMATS = ["png", "svg"]


def _chosen(stem: str) -> tuple[str, str]:
    _, result = example(stem)
    option = next((o for o in result.ranking if o.chosen), result.ranking[0])
    return option.provider, option.storage_class


def _inputs(stem: str) -> dict[str, Any]:
    """One of each result model for an example: what the CLI would plot for it."""
    workload, result = example(stem)
    provider, storage_class = _chosen(stem)
    source = "cloudflare-r2" if provider == "aws-s3" else "aws-s3"
    plan = estimate_migration(
        workload,
        MigrationOptions(
            source=Endpoint(provider=source),
            destination=Endpoint(provider=provider, storage_class=storage_class),
            start=AS_OF,
        ),
    )
    return {
        "recommendation": (plots.save_recommendation_plot, result),
        "projection": (
            plots.save_projection_plot,
            project_costs(workload, provider, storage_class, months=workload.constraints.months, as_of=AS_OF),
        ),
        "migration": (plots.save_migration_plot, plan),
        "simulation": (
            plots.save_simulation_plot,
            simulate(workload, provider, duration_s=5.0, replications=2, as_of=AS_OF).peak,
        ),
    }


def test_shipped_reference_ids_are_the_five() -> None:
    assert reference_providers() == REFERENCE_IDS


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_plot_of_every_example(example_id: str, fmt: str, tmp_path: Path) -> None:
    for name, (save, model) in _inputs(example_id).items():
        path = tmp_path / f"{example_id}-{name}.{fmt}"
        save(model, path)
        check_picture(path)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("provider", REFERENCE_IDS)
def test_profile_heat_map(provider: str, fmt: str, tmp_path: Path) -> None:
    path = tmp_path / f"{provider}.{fmt}"
    plots.save_profile_plot(load_reference(provider), path)
    check_picture(path)


def test_missing_profile_cells_are_marked_not_zero(tmp_path: Path) -> None:
    # Seed 002 gives IDrive e2 figures for 6 of the 12 PUT cells and 3 of the 12 GET cells: the other
    # 15 must read "missing" (the SVG keeps its text as text), and no cell may read 0.
    profile = load_reference("idrive-e2")
    empty = [c for c in profile.cells if c.op in ("put", "get") and c.throughput_mib_per_s is None]
    assert len(empty) == 15
    path = tmp_path / "idrive.svg"
    plots.save_profile_plot(profile, path)
    text = path.read_text(encoding="utf-8")
    assert text.count(">missing</text>") == 15
    assert ">0 MiB/s</text>" not in text and ">9.37 MiB/s</text>" in text


def test_svg_is_reproducible(tmp_path: Path) -> None:
    save, model = _inputs("pipeline-scratch")["projection"]
    first, second = tmp_path / "a.svg", tmp_path / "b.svg"
    save(model, first)
    save(model, second)
    assert first.read_bytes() == second.read_bytes()


def _every_plot(stem: str) -> list[tuple[Callable[[Any, Path], None], Any]]:
    items = list(_inputs(stem).values())
    return [*items, (plots.save_profile_plot, load_reference("idrive-e2"))]


@pytest.mark.parametrize("name", ["plot.pdf", "plot", "plot.png.txt", "plot.jpeg"])
def test_bad_suffix_is_refused_before_drawing(name: str, tmp_path: Path) -> None:
    for save, model in _every_plot("pipeline-scratch"):
        with pytest.raises(InputError, match=r"use \.png or \.svg") as caught:
            save(model, tmp_path / name)
        assert str(caught.value).startswith("--plot: ")
    assert list(tmp_path.iterdir()) == []


def test_upper_case_suffix_is_a_png(tmp_path: Path) -> None:
    save, model = _inputs("pipeline-scratch")["projection"]
    path = tmp_path / "PLOT.PNG"
    save(model, path)
    check_picture(path)


def test_missing_matplotlib_says_how_to_install(tmp_path: Path, no_matplotlib: None) -> None:
    assert not plots.matplotlib_available()
    for save, model in _every_plot("pipeline-scratch"):
        with pytest.raises(InputError) as caught:
            save(model, tmp_path / "plot.png")
        assert str(caught.value) == "--plot: plots need matplotlib: pip install 'objstore-planner[plot]'"


def test_unwritable_plot_path_is_an_input_error(tmp_path: Path) -> None:
    save, model = _inputs("pipeline-scratch")["projection"]
    with pytest.raises(InputError, match="cannot write the plot"):
        save(model, tmp_path / "no-such-folder" / "plot.png")


@pytest.mark.parametrize(
    ("ticks", "labels"),
    [
        ([0, 2500, 5000, 7500], ["$0", "$2,500", "$5,000", "$7,500"]),  # never "$12k" for 12,500
        ([0, 5000, 10000, 15000], ["$0", "$5k", "$10k", "$15k"]),
        ([500, 1000, 2000, 5000], ["$500", "$1,000", "$2,000", "$5,000"]),
        ([0, 0.5e6, 1e6, 1.5e6], ["$0", "$0.5M", "$1.0M", "$1.5M"]),
        ([0, 2.5, 5, 7.5], ["$0", "$2.50", "$5.00", "$7.50"]),
        ([-100, 0, 100], ["-$100", "$0", "$100"]),
    ],
)
def test_dollar_ticks_share_one_style(ticks: list[float], labels: list[str]) -> None:
    assert plots.usd_ticks(ticks) == labels


def test_recommendation_plot_draws_what_the_result_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the curves and caps come from the Recommendation: drawing prices nothing and loads no table
    import planner.costing.bills
    import planner.pricing.billing

    def no_pricing(*args: object, **kwargs: object) -> None:
        raise AssertionError("the plot priced again")

    _, result = example("web-assets")
    for name in ("costs_at_egress", "estimate_cost", "price_table", "egress_cap_bytes"):
        monkeypatch.setattr(planner.costing.bills, name, no_pricing)
    monkeypatch.setattr(planner.pricing.billing, "bill", no_pricing)
    path = tmp_path / "held.svg"
    plots.save_recommendation_plot(result, path)
    check_picture(path)
