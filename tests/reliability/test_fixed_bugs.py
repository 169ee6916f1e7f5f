"""Bad input that once ended in a traceback or a silently wrong answer: each must now be refused."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import AS_OF, EXAMPLES, assert_one_line_error, invoke

WEB = str(EXAMPLES / "web-assets.yaml")


def test_far_future_projection_uses_the_latest_table() -> None:
    result = invoke("cost", WEB, "-p", "aws-s3", "--as-of", "9999-12-31", "--months", "3")
    assert "Traceback" not in result.err and result.code in (0, 2), result.err


def test_far_future_recommend() -> None:
    """web-assets.yaml plans 12 months: from 9999-12-31 they run past the calendar, and that is the
    reason given (not that no option could be priced)."""
    result = invoke("recommend", WEB, "--as-of", "9999-12-31")
    line = assert_one_line_error(result, source="--as-of")
    assert "a 12-month horizon from 9999-12-31 runs past the year 9999" in line, line


def _override(tmp_path: Path, provider: str) -> str:
    path = tmp_path / "prices.yaml"
    path.write_text(f"provider: {provider}\nlabel: edp\n", encoding="utf-8")
    return str(path)


def test_recommend_refuses_an_override_of_another_provider(tmp_path: Path) -> None:
    path = _override(tmp_path, "wasabi")
    assert_one_line_error(invoke("recommend", WEB, "--prices", f"aws-s3={path}", "--as-of", AS_OF), source=path)


def test_cost_refuses_an_override_of_another_provider(tmp_path: Path) -> None:
    path = _override(tmp_path, "wasabi")
    assert_one_line_error(invoke("cost", WEB, "-p", "aws-s3", "--prices", path, "--as-of", AS_OF), source=path)


def test_pricing_show_refuses_an_override_of_another_provider(tmp_path: Path) -> None:
    path = _override(tmp_path, "wasabi")
    assert_one_line_error(invoke("pricing", "show", "aws-s3", "--prices", path, "--as-of", AS_OF), source=path)


def test_recommend_refuses_prices_for_an_unknown_provider(tmp_path: Path) -> None:
    path = _override(tmp_path, "aws-s3")
    assert_one_line_error(invoke("recommend", WEB, "--prices", f"s4={path}", "--as-of", AS_OF))


def test_recommend_refuses_a_profile_of_another_provider(tmp_path: Path) -> None:
    shipped = EXAMPLES.parent / "planner" / "measure" / "profiles" / "wasabi.json"
    profile = json.loads(shipped.read_text(encoding="utf-8"))
    (tmp_path / "aws-s3.json").write_text(json.dumps(profile), encoding="utf-8")
    result = invoke("recommend", WEB, "--as-of", AS_OF, "--profiles", str(tmp_path))
    assert_one_line_error(result, source=str(tmp_path / "aws-s3.json"))
