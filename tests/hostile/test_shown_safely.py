"""Issue 41, item 8: text from an input reaches the terminal shown, not obeyed, and a spreadsheet as
text, not a formula; of concurrent runs writing one --out without --force, one succeeds."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .harness import AS_OF, EXAMPLES, run_in_process

RAW = ("\x1b", "\x9b", "\u202e", "\u2028", "\x07")
WORKLOAD = (
    'name: "=HYPERLINK(1)"\n'
    'description: "evil\\e]0;title\\a\\u202e\\u2028x\\u009b31m"\n'
    "storage: {stored: 10 TB, object_size: 1 MB}\ntraffic: {egress: 1 TB}\n"
    "constraints: {providers: [aws-s3, wasabi]}\n"
)


def _workload(tmp_path: Path) -> str:
    path = tmp_path / "w.yaml"
    path.write_text(WORKLOAD, encoding="utf-8")
    return str(path)


def test_control_and_direction_characters_are_shown_escaped(tmp_path: Path) -> None:
    """The report repeats the workload's description: its escape sequences are written as escapes (Markdown
    escapes the bracket)."""
    report = tmp_path / "r.md"
    args = ["report", _workload(tmp_path), "--no-simulate", "--as-of", AS_OF, "--out", str(report)]
    done = run_in_process(args, {}, 60)
    assert done.code == 0, done.err
    text = report.read_text(encoding="utf-8")
    assert not [c for c in RAW if c in text + done.out]
    assert "evil\\u001b\\]0;title\\u0007\\u202e\\u2028x\\u009b31m" in text


def test_json_keeps_the_text_itself(tmp_path: Path) -> None:
    """The escapes are JSON's own: the description reads back exactly, and no raw character is printed."""
    done = run_in_process(["recommend", _workload(tmp_path), "--no-simulate", "--as-of", AS_OF, "-f", "json"], {}, 30)
    assert not [c for c in RAW if c in done.out]
    assert json.loads(done.out)["workload"]["description"] == "evil\x1b]0;title\x07\u202e\u2028x\x9b31m"


def test_a_name_a_spreadsheet_would_run_is_written_as_text(tmp_path: Path) -> None:
    done = run_in_process(["cost", _workload(tmp_path), "-p", "aws-s3", "--as-of", AS_OF, "-f", "focus"], {}, 30)
    assert done.code == 0, done.err
    assert ",'=HYPERLINK(1)," in done.out and ",=HYPERLINK(1)," not in done.out


def test_an_error_line_shows_the_escape_sequence_it_names() -> None:
    done = run_in_process(["cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3", "--region", "\x1b[31m"], {}, 30)
    assert done.code == 2
    assert "\x1b" not in done.err and len(done.err.splitlines()) == 1


def test_four_runs_writing_one_out_give_one_file_and_three_refusals(tmp_path: Path) -> None:
    target = tmp_path / "f.csv"
    args = [sys.executable, "-m", "planner", "cost", str(EXAMPLES / "web-assets.yaml"), "-p", "aws-s3"]
    args += ["--as-of", AS_OF, "-f", "focus", "--out", str(target)]

    def run(_: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)

    with ThreadPoolExecutor(4) as pool:
        done = list(pool.map(run, range(4)))
    codes = sorted(d.returncode for d in done)
    assert codes[0] == 0 and codes.count(0) == 1 and set(codes[1:]) == {2}, [d.stderr for d in done]
    assert all("exists" in d.stderr and len(d.stderr.splitlines()) == 1 for d in done if d.returncode == 2)
    assert target.read_text(encoding="utf-8").startswith("BilledCost,")
