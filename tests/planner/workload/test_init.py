"""``planner init`` writes a workload file every command takes: from a preset, or from scripted answers."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

from planner.errors import InputError
from planner.workload import load_workload
from planner.workload.init import PRESETS, Answers, set_value, workload_text


@pytest.mark.parametrize("preset", PRESETS)
def test_every_preset_is_a_workload_recommend_answers(preset: str, tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / f"{preset}.yaml"
    written = run_cli("init", str(out), "--preset", preset)
    assert (written.code, written.out) == (0, f"wrote {out}; next:\n  planner recommend {out}\n")
    answer = run_cli("recommend", str(out), "--no-simulate", "-f", "json")
    assert answer.code == 0, answer.err
    assert '"chosen"' in answer.out


def test_the_questions_answered_from_a_script_write_the_answers(
    tmp_path: Path, run_cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = ["backup", "my-backups", "20 TB", "", "1 TB", "300 GB", "", "", "none"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(answers) + "\n"))
    out = tmp_path / "w.yaml"
    result = run_cli("init", str(out))
    assert result.code == 0, result.err
    text = out.read_text()
    assert "  stored: 20 TB             # what the bucket holds on average this month" in text
    assert "  growth_per_month: 1 TB    # new backups each month, net of what retention deletes" in text
    assert "  egress: 300 GB            # one restore test a month" in text
    assert "`planner init`" in text and "--preset" not in text
    workload = load_workload(out)
    assert (workload.name, workload.storage.stored, workload.traffic.egress) == ("my-backups", 20 * 10**12, 300 * 10**9)
    # piped answers are not echoed by a terminal: each is written after its question, one question a line
    asked = result.out.splitlines()[: len(answers)]
    assert asked[0].endswith("[web-assets]: backup") and asked[1] == "A name for the workload: my-backups"
    assert asked[3].endswith(": (blank)") and asked[8].endswith(": none")


def test_an_existing_file_is_kept_without_force(tmp_path: Path, run_cli: Any) -> None:
    out = tmp_path / "w.yaml"
    out.write_text("mine\n")
    refused = run_cli("init", str(out), "--preset", "logs")
    assert (refused.code, refused.err) == (2, f"planner: OUT: {out} exists (use --force to replace it)\n")
    assert out.read_text() == "mine\n"
    assert run_cli("init", str(out), "--preset", "logs", "--force").code == 0


def test_a_bad_answer_is_one_line_naming_the_field() -> None:
    with pytest.raises(InputError) as caught:
        workload_text(Answers(kind="backup", stored="lots"))
    assert str(caught.value).startswith("the answers: storage.stored:")
    with pytest.raises(InputError, match="'tape' is not a preset"):
        workload_text(Answers(kind="tape"))


def test_a_value_is_set_added_or_removed_keeping_its_comment() -> None:
    text = "performance:\n  p99_ttfb: 200 ms   # reads\nclient:\n  link: 1 Gbps\n"
    assert set_value(text, "performance", "p99_ttfb", "50 ms") == (
        "performance:\n  p99_ttfb: 50 ms   # reads\nclient:\n  link: 1 Gbps\n"
    )
    assert set_value(text, "performance", "p99_ttfb", None) == "performance:\nclient:\n  link: 1 Gbps\n"
    assert set_value(text, "client", "concurrency", "8") == (
        "performance:\n  p99_ttfb: 200 ms   # reads\nclient:\n  concurrency: 8\n  link: 1 Gbps\n"
    )
