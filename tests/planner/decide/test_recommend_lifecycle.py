"""``recommend`` on a workload with ``storage.lifecycle``: its bills price each class holding all the data, so
the answer says the policy is not in them (text and JSON), and ``--samples`` is refused naming the command
that prices the policy's outcomes, which runs as printed."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

from tests.planner.conftest import Result

WORKLOAD = """\
name: aged
storage:
  stored: {low: 50 TB, likely: 100 TB, high: 150 TB}
  objects: 1M
  lifecycle:
    - {after: 30d, to: standard-ia}
traffic:
  writes: 1000
  reads: 1000
constraints:
  providers: [aws-s3]
  months: 2
"""


def _file(tmp_path: Path, text: str = WORKLOAD) -> Path:
    path = tmp_path / "aged.yaml"
    path.write_text(text)
    return path


def test_the_answer_says_the_policy_is_not_in_its_bills(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    path = _file(tmp_path)
    text = run_cli("recommend", str(path), "--no-simulate")
    assert text.code == 0, text.err
    flat = " ".join(text.out.split())
    assert "Warning: storage.lifecycle (after 30d to standard-ia) is not in these bills" in flat
    answer = json.loads(run_cli("recommend", str(path), "--no-simulate", "-f", "json").out)
    kinds = [w["kind"] for w in answer["warnings"]]
    assert kinds == ["lifecycle-unpriced"]
    assert answer["warnings"][0]["numbers"] == {"rules": 1}


def test_a_workload_without_a_policy_has_no_such_warning(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    path = _file(tmp_path, WORKLOAD.replace("  lifecycle:\n    - {after: 30d, to: standard-ia}\n", ""))
    answer = json.loads(run_cli("recommend", str(path), "--no-simulate", "-f", "json").out)
    assert not any(w["kind"] == "lifecycle-unpriced" for w in answer["warnings"])


def test_samples_are_refused_naming_a_command_that_runs_as_printed(
    tmp_path: Path, run_cli: Callable[..., Result]
) -> None:
    path = _file(tmp_path)
    refused = run_cli("recommend", str(path), "--no-simulate", "--samples", "20")
    assert refused.code == 2
    assert refused.err.count("\n") == 1 and "Traceback" not in refused.err
    assert refused.err.startswith("planner: --samples: prices each class holding all the data, not storage.lifecycle")
    printed = refused.err.split(" are ", 1)[1].rstrip().removesuffix("'s")
    args = shlex.split(printed)
    assert args[:2] == ["planner", "lifecycle"]
    ran = run_cli(*args[1:])
    assert ran.code == 0, ran.err
    assert "20 outcomes" in ran.out
