"""diff_scenarios and render_diff: line items matched by category and description, totals that add up."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from planner.decide.scenarios import ScenarioDiff, diff_scenarios
from planner.errors import InputError
from planner.present.scenarios import render_diff

from .conftest import AS_OF, example


def _at_s3(first: str, second: str) -> ScenarioDiff:
    return diff_scenarios(
        example(first)[0], example(second)[0], provider="aws-s3", storage_class="standard", as_of=AS_OF
    )


def test_a_scenario_against_itself_changes_nothing() -> None:
    result = _at_s3("web-assets", "web-assets")
    assert result.monthly_change_usd == 0 and result.horizon_change_usd == 0
    assert {line.status for line in result.lines} == {"unchanged"}
    assert result.notes == []


def test_line_changes_add_up_to_the_monthly_change() -> None:
    result = _at_s3("video-streaming", "web-assets")
    assert result.mode == "provider"
    assert sum((line.change_usd for line in result.lines), Decimal(0)) == result.monthly_change_usd
    assert sum((c.change_usd for c in result.categories), Decimal(0)) == result.monthly_change_usd
    assert result.a.monthly_usd + result.monthly_change_usd == result.b.monthly_usd
    assert result.a.horizon_usd + result.horizon_change_usd == result.b.horizon_usd
    statuses = {line.status for line in result.lines}
    assert {"changed", "removed", "added"} <= statuses
    # S3's egress tiers match by description: the 10-50 TB tier is on both bills. Video fills it
    # (40,960 GB x 0.085 = $3,481.60); web assets' 50 TB is 46,566.13 GB of 2**30 bytes, 100 free and
    # 10,240 in the first tier, so 36,226.13 GB x 0.085 = $3,079.22.
    tier = next(line for line in result.lines if line.description == "internet egress, 10,240 to 51,200 GB")
    assert tier.status == "changed" and tier.change_usd == Decimal("3079.22") - Decimal("3481.60")


def test_json_money_is_decimal_strings() -> None:
    data = json.loads(json.dumps(_at_s3("video-streaming", "pipeline-scratch").model_dump(mode="json")))
    assert isinstance(data["monthly_change_usd"], str)
    assert isinstance(data["lines"][0]["amount_a_usd"], str)
    Decimal(data["horizon_change_usd"])  # parses exactly


def test_each_at_its_recommendation() -> None:
    (a, ra), (b, rb) = example("pipeline-scratch"), example("backup-archive")
    result = diff_scenarios(a, b, provider=None, storage_class="standard", as_of=AS_OF, simulate=False)
    assert result.mode == "recommendation"
    assert result.a.recommended and result.b.recommended
    assert ra.recommendation is not None and rb.recommendation is not None
    assert (result.a.provider, result.b.provider) == (ra.recommendation.provider, rb.recommendation.provider)
    assert any("different options" in note for note in result.notes)


def test_horizons_that_differ_are_noted() -> None:
    result = _at_s3("web-assets", "backup-archive")
    assert (result.a.horizon_months, result.b.horizon_months) == (12, 36)
    assert any("horizons differ" in note for note in result.notes)


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_render(fmt: str) -> None:
    text = render_diff(_at_s3("video-streaming", "web-assets"), fmt)
    assert "video-streaming -> web-assets (both at aws-s3 standard" in text
    assert "-$13,757.45" in text or "$" in text
    assert "By category" in text
    assert text.splitlines()[-1].startswith("Monthly: ")


def test_render_refuses_unknown_format() -> None:
    with pytest.raises(InputError, match="not a diff format"):
        render_diff(_at_s3("web-assets", "web-assets"), "csv")
