"""Every file in ``corpus/`` is a bad input; each must give its one-line error and exit code 2.

The folders hold workloads, price overrides, profiles and bad command lines; each folder's
``cases.yaml`` maps a file (or a case name) to the substring its error must contain.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import AS_OF, CORPUS, EXAMPLES, ROOT, assert_one_line_error, invoke


def _cases(folder: str) -> list[Any]:
    index = yaml.safe_load((CORPUS / folder / "cases.yaml").read_text(encoding="utf-8"))
    return [pytest.param(name, case, id=name) for name, case in index.items()]


def _expect(line: str, case: dict[str, Any]) -> None:
    assert case["expect"] in line, (case["expect"], line)
    if "field" in case:
        assert f": {case['field']}: " in line, (case["field"], line)


def test_corpus_is_complete() -> None:
    """Every file is indexed, every index entry has its file, and there are at least 100 cases."""
    total = 0
    for folder in ("workload", "override", "profile"):
        index = yaml.safe_load((CORPUS / folder / "cases.yaml").read_text(encoding="utf-8"))
        files = {p.name for p in (CORPUS / folder).iterdir() if p.name != "cases.yaml"}
        assert files == set(index), files ^ set(index)
        total += len(index)
    total += len(yaml.safe_load((CORPUS / "cli" / "cases.yaml").read_text(encoding="utf-8")))
    assert total >= 100


@pytest.mark.parametrize(("name", "case"), _cases("workload"))
def test_bad_workload(name: str, case: dict[str, Any]) -> None:
    path = str(CORPUS / "workload" / name)
    line = assert_one_line_error(invoke("cost", path, "-p", "aws-s3", "--as-of", AS_OF), source=path)
    _expect(line, case)


@pytest.mark.parametrize(
    "name",
    [
        "size-bits-Gb.yaml",
        "duplicate-key.yaml",
        "binary-png.yaml",
        "alias-bomb.yaml",
        "size-1e400-GB.yaml",
        "providers-mapping-entry.yaml",
        "target-p99-zero.yaml",  # the simulator's own check of a zero target ended in a traceback
        "target-read-zero.yaml",
    ],
)
def test_bad_workload_in_recommend(name: str) -> None:
    path = str(CORPUS / "workload" / name)
    assert_one_line_error(invoke("recommend", path, "--as-of", AS_OF), source=path)


@pytest.mark.parametrize(("name", "case"), _cases("override"))
def test_bad_price_override(name: str, case: dict[str, Any]) -> None:
    path = str(CORPUS / "override" / name)
    line = assert_one_line_error(invoke("pricing", "show", "aws-s3", "--prices", path, "--as-of", AS_OF), source=path)
    _expect(line, case)


@pytest.mark.parametrize("name", ["price-1e400.yaml", "unit-bytes-true.yaml", "unit-TB-metered-in-GB.yaml"])
def test_bad_price_override_in_cost_and_recommend(name: str) -> None:
    path = str(CORPUS / "override" / name)
    workload = str(EXAMPLES / "pipeline-scratch.yaml")
    assert_one_line_error(invoke("cost", workload, "-p", "aws-s3", "--prices", path, "--as-of", AS_OF), source=path)
    assert_one_line_error(invoke("recommend", workload, "--prices", f"aws-s3={path}", "--as-of", AS_OF), source=path)


@pytest.mark.parametrize(("name", "case"), _cases("profile"))
def test_bad_profile(name: str, case: dict[str, Any], tmp_path: Path) -> None:
    """A broken ``aws-s3.json`` in a --profiles folder stops recommend with one line."""
    shutil.copyfile(CORPUS / "profile" / name, tmp_path / "aws-s3.json")
    source = str(tmp_path / "aws-s3.json")
    result = invoke("recommend", str(EXAMPLES / "web-assets.yaml"), "--as-of", AS_OF, "--profiles", str(tmp_path))
    _expect(assert_one_line_error(result, source=source), case)


def _cli_args(args: list[str], tmp: Path | None = None) -> list[str]:
    return [
        a.replace("{examples}", str(EXAMPLES)).replace("{corpus}", str(CORPUS)).replace("{tmp}", str(tmp)) for a in args
    ]


@pytest.mark.parametrize(("name", "case"), _cases("cli"))
def test_bad_option(name: str, case: dict[str, Any], tmp_path: Path) -> None:
    line = assert_one_line_error(invoke(*_cli_args(case["args"], tmp_path)))
    _expect(line, case)


@pytest.mark.parametrize(
    "args",
    [
        ["cost", str(CORPUS / "workload" / "size-bits-Gb.yaml"), "-p", "aws-s3", "--as-of", AS_OF],
        ["cost", str(CORPUS / "workload" / "binary-random.yaml"), "-p", "aws-s3"],
        ["pricing", "show", "aws-s3", "--prices", str(CORPUS / "override" / "price-huge-exponent.yaml")],
        ["cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "--as-of", "1900-01-01"],
        ["recommend", str(CORPUS / "workload" / "deep-nesting.yaml")],
    ],
    ids=["bits", "binary", "huge-price", "before-tables", "deep-nesting"],
)
def test_real_process_gives_one_line(args: list[str]) -> None:
    """The installed entry point, in a process of its own: one line, exit code 2, no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "planner", *args], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("planner: "), done.stderr
