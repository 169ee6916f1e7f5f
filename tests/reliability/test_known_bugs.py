"""Bad input that still ends in a traceback or a silently wrong answer, in code outside this suite's reach.

Each test states what must happen and is marked ``xfail(strict=True)``: when the bug is fixed
the test passes, strict xfail turns that into a failure, and the marker must come off.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import AS_OF, EXAMPLES, assert_one_line_error, invoke

WEB = str(EXAMPLES / "web-assets.yaml")


@pytest.mark.xfail(strict=True, reason="planner/costing.py add_months: date(10000, ...) raises ValueError past 9999-12")
def test_far_future_projection_uses_the_latest_table() -> None:
    result = invoke("cost", WEB, "-p", "aws-s3", "--as-of", "9999-12-31", "--months", "3")
    assert "Traceback" not in result.err and result.code in (0, 2), result.err


@pytest.mark.xfail(strict=True, reason="planner/costing.py add_months via recommend: year 10000 is out of range")
def test_far_future_recommend() -> None:
    result = invoke("recommend", WEB, "--as-of", "9999-12-31")
    assert "Traceback" not in result.err and result.code in (0, 1, 2), result.err


def _override(tmp_path: Path, provider: str) -> str:
    path = tmp_path / "prices.yaml"
    path.write_text(f"provider: {provider}\nlabel: edp\n", encoding="utf-8")
    return str(path)


@pytest.mark.xfail(
    strict=True, reason="planner/costing.py price_table: an override of another provider prices aws-s3 silently"
)
def test_recommend_refuses_an_override_of_another_provider(tmp_path: Path) -> None:
    path = _override(tmp_path, "wasabi")
    assert_one_line_error(invoke("recommend", WEB, "--prices", f"aws-s3={path}", "--as-of", AS_OF), source=path)


@pytest.mark.xfail(strict=True, reason="planner/costing.py price_table: cost -p aws-s3 prints wasabi's bill")
def test_cost_refuses_an_override_of_another_provider(tmp_path: Path) -> None:
    path = _override(tmp_path, "wasabi")
    assert_one_line_error(invoke("cost", WEB, "-p", "aws-s3", "--prices", path, "--as-of", AS_OF), source=path)


@pytest.mark.xfail(strict=True, reason="planner/cli.py pricing_show: PROVIDER is ignored when --prices is given")
def test_pricing_show_refuses_an_override_of_another_provider(tmp_path: Path) -> None:
    path = _override(tmp_path, "wasabi")
    assert_one_line_error(invoke("pricing", "show", "aws-s3", "--prices", path, "--as-of", AS_OF), source=path)


@pytest.mark.xfail(
    strict=True, reason="planner/cli.py parse_prices / recommendation: --prices for an unknown provider is ignored"
)
def test_recommend_refuses_prices_for_an_unknown_provider(tmp_path: Path) -> None:
    path = _override(tmp_path, "aws-s3")
    assert_one_line_error(invoke("recommend", WEB, "--prices", f"s4={path}", "--as-of", AS_OF))


@pytest.mark.xfail(
    strict=True,
    reason="planner/recommendation.py reference_summaries: aws-s3.json of another provider is used as aws-s3",
)
def test_recommend_refuses_a_profile_of_another_provider(tmp_path: Path) -> None:
    profile = json.loads((EXAMPLES.parent / "measure" / "profiles" / "wasabi.json").read_text(encoding="utf-8"))
    (tmp_path / "aws-s3.json").write_text(json.dumps(profile), encoding="utf-8")
    result = invoke("recommend", WEB, "--as-of", AS_OF, "--profiles", str(tmp_path))
    assert_one_line_error(result, source=str(tmp_path / "aws-s3.json"))
