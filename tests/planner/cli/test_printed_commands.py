"""Printed commands run as printed: each ``planner ...`` command the tool suggests is taken from its real
output (a command broken over lines with backslashes joined again) and run; a real measurement's is run
in its ``--dry-run`` form, which the tool prints first."""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

import planner.measure
from tests.planner.conftest import EXAMPLES, Result

PLACEHOLDERS = ("URL", "BUCKET")  # what the user must put in, named in the line before the command
_SUGGESTED = re.compile(r"(?:^\s*|: |next:\s*)(planner \S.*)$")


def _joined(out: str) -> list[str]:
    """The output's lines, a command continued with a trailing backslash joined into one line."""
    lines: list[str] = []
    carry = ""
    for line in out.splitlines():
        if line.endswith(" \\"):
            carry += line[:-2].strip() + " " if carry else line[:-2] + " "
            continue
        lines.append(carry + line.strip() if carry else line)
        carry = ""
    return lines


def suggested(out: str) -> list[str]:
    """Every ``planner ...`` command in the output, as printed (its words after ``planner``)."""
    found = [m.group(1) for line in _joined(out) if (m := _SUGGESTED.search(line))]
    return [command.removesuffix(".").strip() for command in found]


@pytest.fixture
def run(run_cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch) -> Callable[..., tuple[int, str]]:
    """The real entry point (its error handling too) at ``columns``: exit code and everything printed."""

    def invoke(args: list[str], columns: int = 100) -> tuple[int, str]:
        monkeypatch.setenv("COLUMNS", str(columns))
        done = run_cli(*args)
        return done.code, done.out + done.err

    return invoke


def _words(command: str) -> list[str]:
    words = shlex.split(command)
    assert words[0] == "planner"
    return words[1:]


@pytest.mark.parametrize("columns", [80])  # the narrowest: long commands break over lines
def test_the_measure_commands_recommend_prints_run_as_printed(
    columns: int, run: Callable[..., tuple[int, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)  # a dry run needs no credentials
    workload = tmp_path / "video-streaming.yaml"
    shutil.copy(EXAMPLES / "video-streaming.yaml", workload)
    code, out = run(["recommend", "video-streaming.yaml", "--as-of", "2026-12-05"], columns)
    assert code == 0, out
    commands = suggested(out)
    measure = [c for c in commands if c.startswith("planner measure ")]
    assert measure and len(measure) % 2 == 0
    for dry, real in zip(measure[::2], measure[1::2], strict=True):
        # the dry run first, as printed; then the real run, the same but for the placeholders it names
        assert dry.endswith(" --dry-run") and not any(p in shlex.split(dry) for p in PLACEHOLDERS)
        assert real.startswith(dry.removesuffix(" --dry-run") + " ")
        assert all(p in shlex.split(real) for p in PLACEHOLDERS)
        code, shown = run(_words(dry))
        assert code == 0, shown
        assert "nothing was sent to the endpoint" in shown
        out_path = shlex.split(real)[shlex.split(real).index("--out") + 1]
        assert f"output {out_path}" in shown  # the dry run plans the profile the real run writes
    assert not (tmp_path / "measured").exists()  # a dry run writes nothing
    # the last: recommend on what the runs wrote (here the reference profile a run of idrive-e2 stands for)
    last = commands[-1]
    assert last == "planner recommend video-streaming.yaml --profiles measured"
    (tmp_path / "measured").mkdir()
    shipped = Path(planner.measure.__file__).parent / "profiles" / "idrive-e2.json"
    shutil.copy(shipped, tmp_path / "measured" / "idrive-e2.json")
    code, shown = run(_words(last))
    assert code == 0, shown


def test_a_dry_run_needs_no_bucket_nor_output_and_says_what_the_run_needs(
    run: Callable[..., tuple[int, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = run(["measure", "--provider", "wasabi", "--dry-run", "--probes", "none"], 300)
    assert code == 0, out
    assert "bucket (none given: the run needs --bucket, a scratch bucket it may write to)" in out
    assert "output measured/wasabi.json (its folder measured is made when the run starts)" in out
    assert not (tmp_path / "measured").exists()
    # a real run still needs its bucket, and refuses before anything is made
    code, _ = run(["measure", "--provider", "wasabi", "--out", "measured/wasabi.json"])
    assert code == 2 and not (tmp_path / "measured").exists()


def test_init_and_force_run_as_printed(
    run: Callable[..., tuple[int, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = run(["init", "--preset", "backup", "my backup.yaml"])
    assert code == 0, out
    [command] = suggested(out)
    assert command == "planner recommend 'my backup.yaml'"
    code, shown = run(_words(command))
    assert code == 0, shown
    code, again = run(["init", "--preset", "backup", "my backup.yaml"])
    assert code == 2 and "use --force to replace it" in again
    code, _ = run(["init", "--preset", "backup", "my backup.yaml", "--force"])
    assert code == 0


def test_recommend_lifecycle_names_the_lifecycle_command_where_it_proposes_none(
    run: Callable[..., tuple[int, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "placed.yaml").write_text(
        "name: ingested bucket\nstorage:\n  placement: {standard: 500 GiB, standard-ia: 500 GiB}\n"
        "  object_size: 1 MiB\n  age: {30d+: 100%}\ntraffic:\n  writes: 0\n  reads: 0\n",
        encoding="utf-8",
    )
    code, out = run(["recommend", "placed.yaml", "--lifecycle", "--no-simulate", "--as-of", "2026-12-05"])
    assert code == 0, out
    lifecycle = [c for c in suggested(out) if c.startswith("planner lifecycle ")]
    providers = [shlex.split(c)[shlex.split(c).index("-p") + 1] for c in lifecycle]
    assert providers == ["backblaze-b2", "cloudflare-r2", "idrive-e2", "wasabi"]  # no standard-ia there
    for command in lifecycle:
        code, shown = run(_words(command))
        assert code == 0, shown
        assert "Lifecycle for ingested bucket at" in shown
