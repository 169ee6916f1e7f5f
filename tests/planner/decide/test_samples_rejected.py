"""``recommend --samples`` never calls an option the ranking rejects whatever its bill the cheapest, and
compares the same classes the ranking does.

The backup archive with reads that can wait only an hour for a restore: the ranking rejects Deep Archive
and Glacier Flexible Retrieval (their standard restores take 12 and 3-5 hours), so its answer is Glacier
Instant Retrieval. The samples once showed Deep Archive as the cheapest in 100 % of outcomes, and priced
S3 Express One Zone, a class the ranking compares only when named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.planner.conftest import EXAMPLES


def _workload(tmp_path: Path) -> Path:
    text = (EXAMPLES / "backup-archive.yaml").read_text()
    text = text.replace("max_restore: 48h", "max_restore: 1h")
    text = text.replace("  egress: 1 TB              # one restore test a month", "  egress: {low: 1 TB, high: 5 TB}")
    path = tmp_path / "archive.yaml"
    path.write_text(text)
    return path


def test_a_class_rejected_on_its_restore_time_is_never_the_cheapest_outcome(tmp_path: Path, run_cli: Any) -> None:
    args = ["recommend", str(_workload(tmp_path)), "--samples", "300", "--as-of", "2026-12-01", "--no-simulate"]
    done = run_cli("--wide", *args, "-f", "json")
    assert done.code == 0, done.err
    answer = json.loads(done.out)["uncertainty"]
    by_option = {o["option"]: o for o in answer["options"]}
    assert answer["options"][0]["option"] == "aws-s3:glacier-ir" and answer["options"][0]["p_cheapest"] == 1.0
    assert by_option["aws-s3:deep-archive"]["p_cheapest"] == 0.0
    assert by_option["aws-s3:deep-archive"]["p_feasible"] == 1.0  # it breaks no policy: its bill is still shown
    assert sorted(answer["rejected"]) == ["aws-s3:deep-archive", "aws-s3:glacier-flexible"]
    assert "longer than performance.max_restore 1 h" in answer["rejected"]["aws-s3:deep-archive"]
    assert "aws-s3:express-one-zone" not in by_option
    text = run_cli("--wide", *args)
    assert text.code == 0, text.err
    assert "aws-s3:glacier-ir is the cheapest in 100 % of outcomes." in text.out
    row = next(line for line in text.out.splitlines() if line.startswith("aws-s3:deep-archive "))
    assert row.split()[1] == "rejected"
    assert "Never the cheapest: aws-s3:deep-archive is rejected above whatever its bill: deep-archive" in text.out
