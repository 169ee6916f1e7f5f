"""Every example the README and the docs show runs, and prints what they show.

The pages are README.md and every ``docs/**/*.md``. Their fenced blocks are read in order:

- ``console``: commands (``$ `` lines) with the output shown after each. Each runs in ``bash`` in a folder
  holding copies of the repository's ``examples/`` and ``tests/fixtures/`` and every file the page's earlier
  blocks wrote, and must exit 0 (or the code an ``# exit N`` comment at the end of its line gives). Where
  output is shown, the command's stdout and stderr together must equal it line by line (trailing spaces
  aside), a line ``...`` standing for any lines, none included.
- ``python``: runs as a script in that folder (exit 0; a line ``--8<-- "examples/NAME.py"`` is that file of the
  repository, as the site's snippets extension includes it), and every Python block of the page type-checks under
  ``mypy --strict`` with no configuration (``--config-file /dev/null``: no pydantic plugin), as a user's
  script would. mypy finds ``planner`` through ``MYPYPATH`` set to the repository, because a setuptools
  editable install (a path finder) is invisible to mypy, and with ``--follow-imports silent`` reports
  errors in the example alone, as it does for a package installed in site-packages.
- a ``yaml``, ``text``, ``json`` or ``csv`` block whose first line is ``# file: NAME``: the lines after it are
  written to NAME before the later blocks run.
- ``text``, ``json`` and other ``yaml`` blocks are shown, not run. A ``sh``, ``bash``, ``shell`` or unlabelled
  block is refused: a command is shown as ``console`` and runs.

An HTML comment on the line before a fence marks the block: ``<!-- example: slow -->`` runs it in the slow
tier (``-m slow``), ``<!-- example: server -->`` in the server tier (``-m server``; an S3 server on loopback,
its endpoint in ``$ENDPOINT``, a fresh bucket in ``$BUCKET`` and its credentials in the environment), and
``<!-- example: illustrative: REASON -->`` shows a block that is not run, for the reason given (installing
the package, a cloud account's endpoint). ``<!-- example: mypy-fails: REASON -->`` on a Python block runs it
and requires ``mypy --strict`` to fail on it still, for a type error of the library's that the reason names:
when the library is fixed the test says to remove the marker. Nothing else is skipped.

Output is compared after these normalisations, and no others, each for something that differs from run to
run while the command does not:

- today's date (ISO, as ``prices in force on 2026-12-06`` prints when no ``--as-of`` is given) is read as
  ``SHOWN_TODAY``, the day the shown outputs were made;
- the temporary folder the commands run in is read as ``.``;
- ``$ENDPOINT`` and ``$BUCKET``'s values (server tier) are read as ``$ENDPOINT`` and ``$BUCKET``.

Two things a command prints differ from run to run and are compared as any value (an update writes what the
run printed): a recorded run's wall-clock time (``recorded 3 requests in 15.8 s``) and a measurement's run id
(``planner-measure/20261206T030528Z-bb4aa5/``: its start time and a random suffix).

``PLANNER_DOCS_UPDATE=1 python -m pytest tests/docs`` (add ``-m slow`` or ``-m server`` for those tiers)
rewrites each shown output that no longer matches with what the command printed, keeping a shown
output's ``...`` lines where they were (the same number of lines before the first and after the last), so
after a change to what the commands print the pages are regenerated with one command and reviewed as a diff.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHOWN_TODAY = "2026-12-06"
UPDATE = os.environ.get("PLANNER_DOCS_UPDATE") == "1"

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_MARK = re.compile(r"<!--\s*example:\s*(server|slow|illustrative|mypy-fails)\s*(?::\s*(.*?))?\s*-->\s*$")
_SNIPPET = re.compile(r'^--8<-- "([^"]+)"\n?', re.MULTILINE)  # a file of the repository, as the site includes it
_EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")
_SHELL = {"", "sh", "bash", "shell", "zsh"}
_VARYING = [
    re.compile(r"(?<=requests in )\d+(?:\.\d+)? s"),  # a recorded run's wall-clock time
    re.compile(r"\b\d{8}T\d{6}Z-[0-9a-f]{6}\b"),  # a measurement's run id: its start time and a random suffix
]
_SHOWN_ONLY = {"text", "json", "yaml", "toml", "csv", "ini"}


@dataclass
class Block:
    page: Path
    line: int
    language: str
    text: str
    start: int  # offsets of the text in the page
    end: int
    tier: str = "fast"
    reason: str = ""

    @property
    def id(self) -> str:
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page
        return f"{page}:{self.line}"


@dataclass
class Step:
    command: str
    shown: list[str]
    code: int
    printed: list[str] | None = None


@dataclass
class Console:
    block: Block
    steps: list[Step] = field(default_factory=list)
    prefix: dict[int, list[str]] = field(default_factory=dict)  # lines before each step's command (comments)


def page_blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = _MARK.search(before)
        tier, reason = ("fast", "") if mark is None else (mark.group(1), mark.group(2) or "")
        line = text.count("\n", 0, match.start()) + 1
        found.append(
            Block(path, line, match.group(1).lower(), match.group(2), match.start(2), match.end(2), tier, reason)
        )
    return found


def matches(shown: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` lines are the ``shown`` ones, a ``...`` line standing for any lines (none included)."""
    if not shown:
        return not actual
    if shown[0] == "...":
        return any(matches(shown[1:], actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and shown[0] == actual[0] and matches(shown[1:], actual[1:])


def regenerated(shown: list[str], actual: list[str]) -> list[str]:
    """The lines to show for ``actual``: as many before the first ``...`` and after the last as ``shown`` had."""
    if "..." not in shown:
        return actual
    head = shown.index("...")
    tail = len(shown) - 1 - max(i for i, line in enumerate(shown) if line == "...")
    if head + tail >= len(actual):
        return actual
    return [*actual[:head], "...", *(actual[len(actual) - tail :] if tail else [])]


def parse_console(block: Block) -> Console:
    console = Console(block)
    pending: list[str] = []
    continued = False
    for raw in block.text.splitlines():
        if continued:  # a command's line ending in a backslash goes on on the next
            console.steps[-1].command += "\n" + raw
            continued = raw.endswith("\\")
        elif raw.startswith("$ "):
            command, code = raw[2:], 0
            exit_mark = _EXIT.search(command)
            if exit_mark:
                code = int(exit_mark.group(1))
            console.prefix[len(console.steps)] = pending
            pending = []
            console.steps.append(Step(raw[2:], [], code))
            continued = raw.endswith("\\")
        elif console.steps:
            console.steps[-1].shown.append(raw.rstrip())
        else:
            pending.append(raw)
    return console


def render_console(console: Console) -> str:
    lines: list[str] = []
    for index, step in enumerate(console.steps):
        lines += console.prefix.get(index, [])
        lines.append(f"$ {step.command}")
        lines += step.shown
    return "\n".join(lines) + "\n"


def _normalise(text: str, work: Path, extra: dict[str, str]) -> list[str]:
    text = text.replace(str(work) + os.sep, "").replace(str(work), ".")
    text = text.replace(dt.date.today().isoformat(), SHOWN_TODAY)
    for value, name in extra.items():
        text = text.replace(value, name)
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


def _untimed(lines: list[str]) -> list[str]:
    for varying in _VARYING:
        lines = [varying.sub("<varies>", line) for line in lines]
    return lines


def workspace(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tests" / "fixtures", work / "tests" / "fixtures")
    return work


def environment(server: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "100"
    env["MYPYPATH"] = str(ROOT)
    for name in ("PLANNER_PRICE_TABLES", "PLANNER_DOCS_UPDATE", "PYTEST_XDIST_WORKER", "PYTEST_CURRENT_TEST"):
        env.pop(name, None)
    env.update(server or {})
    return env


def run_page(page: Path, work: Path, tier: str, server: dict[str, str] | None = None) -> None:
    """Run ``page``'s blocks in order in ``work``: those of ``tier`` are checked, the others only write files."""
    env = environment(server)
    extra = {server["ENDPOINT"]: "$ENDPOINT", server["BUCKET"]: "$BUCKET"} if server else {}
    failures: list[str] = []
    rewrites: list[tuple[Block, str]] = []
    scripts: list[tuple[Block, Path]] = []
    for block in page_blocks(page):
        if block.language in _SHELL and block.tier != "illustrative":
            failures.append(f"{block.id}: a ```{block.language or '(no language)'} block: show commands as ```console")
            continue
        if block.tier == "illustrative":
            if not block.reason:
                failures.append(f"{block.id}: an illustrative block gives no reason")
            continue
        if block.language in _SHOWN_ONLY and block.text.startswith("# file: "):
            first, _, rest = block.text.partition("\n")
            name = first.removeprefix("# file: ").strip()
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_text(rest, encoding="utf-8")
            continue
        known_failure = block.tier == "mypy-fails"
        if (block.tier if not known_failure else "fast") != tier or block.language in _SHOWN_ONLY:
            continue
        if block.language == "console":
            console = parse_console(block)
            changed = False
            for step in console.steps:
                done = subprocess.run(
                    ["bash", "-c", step.command], cwd=work, env=env, capture_output=True, text=True, timeout=900
                )
                where = f"{block.id}: $ {step.command}"
                if done.returncode != step.code:
                    failures.append(f"{where}\nexit {done.returncode}, not {step.code}\n{done.stderr[-3000:]}")
                    continue
                actual = _normalise(done.stdout + done.stderr, work, extra)
                if step.shown and not matches(_untimed(step.shown), _untimed(actual)):
                    if UPDATE:
                        step.shown = regenerated(step.shown, actual)
                        changed = True
                    else:
                        failures.append(
                            f"{where}\nshown:\n" + "\n".join(step.shown) + "\nprinted:\n" + "\n".join(actual)
                        )
            if changed:
                rewrites.append((block, render_console(console)))
        elif block.language == "python":
            script = work / f"example_{page.stem.replace('-', '_')}_{block.line}.py"
            script.write_text(_SNIPPET.sub(lambda m: (ROOT / m.group(1)).read_text(encoding="utf-8"), block.text))
            if known_failure:
                failures += _known_type_failure(block, script, work, env)
            else:
                scripts.append((block, script))
            done = subprocess.run(
                [sys.executable, str(script)], cwd=work, env=env, capture_output=True, text=True, timeout=900
            )
            if done.returncode != 0:
                failures.append(f"{block.id}: python exited {done.returncode}\n{done.stderr[-3000:]}")
        else:
            failures.append(f"{block.id}: a ```{block.language} block is neither run nor marked illustrative")
    if scripts:
        checked = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--config-file", os.devnull, "--follow-imports", "silent"]
            + ["--cache-dir", str(work / ".mypy")]
            + [str(script) for _, script in scripts],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if checked.returncode != 0:
            failures.append(f"{page.name}: mypy --strict on its Python blocks\n{checked.stdout}")
    if rewrites:
        text = page.read_text(encoding="utf-8")
        for block, new in sorted(rewrites, key=lambda pair: pair[0].start, reverse=True):
            text = text[: block.start] + new + text[block.end :]
        page.write_text(text, encoding="utf-8")
    assert not failures, "\n\n".join(failures)


def _known_type_failure(block: Block, script: Path, work: Path, env: dict[str, str]) -> list[str]:
    """A block marked ``mypy-fails: REASON`` runs, and must still fail ``mypy --strict``: once it passes, the
    marker goes, so a fixed type error cannot stay marked as one."""
    if not block.reason:
        return [f"{block.id}: a mypy-fails block gives no reason"]
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            os.devnull,
            "--follow-imports",
            "silent",
            "--cache-dir",
            str(work / ".mypy"),
            str(script),
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if checked.returncode == 0:
        return [f"{block.id}: passes mypy --strict now: remove its mypy-fails marker"]
    return []


def _ids(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_every_example_on_the_page_runs(page: Path, tmp_path: Path) -> None:
    run_page(page, workspace(tmp_path), "fast")


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if any(b.tier == "slow" for b in page_blocks(p))], ids=_ids)
def test_every_slow_example_on_the_page_runs(page: Path, tmp_path: Path) -> None:
    run_page(page, workspace(tmp_path), "slow")


@pytest.fixture
def server_env(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    server = request.getfixturevalue("s3_server")
    yield {**server.env, "ENDPOINT": server.endpoint, "BUCKET": server.new_bucket()}


@pytest.mark.server
@pytest.mark.parametrize("page", [p for p in PAGES if any(b.tier == "server" for b in page_blocks(p))], ids=_ids)
def test_every_server_example_on_the_page_runs(page: Path, tmp_path: Path, server_env: dict[str, str]) -> None:
    run_page(page, workspace(tmp_path), "server", server_env)


def test_a_shown_output_is_matched_line_by_line_with_ellipses() -> None:
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["a", "..."], ["a"])
    assert not matches(["a", "b"], ["a", "c"])
    assert not matches(["a"], ["a", "b"])
    assert not matches(["a", "...", "z"], ["a", "b"])


def test_an_update_keeps_the_shown_ellipses_where_they_were() -> None:
    assert regenerated(["a", "...", "z"], ["A", "b", "c", "Z"]) == ["A", "...", "Z"]
    assert regenerated(["a", "..."], ["A", "b"]) == ["A", "..."]
    assert regenerated(["a", "b"], ["A"]) == ["A"]
    assert regenerated(["a", "...", "z"], ["A"]) == ["A"]


def test_a_console_block_is_written_back_as_it_was_read() -> None:
    text = "# a comment\n$ planner cost x.yaml \\\n    -p aws-s3\nline one\n...\n$ planner pricing list  # exit 0\n"
    block = Block(ROOT / "README.md", 1, "console", text, 0, len(text))
    console = parse_console(block)
    assert [(s.command, s.code) for s in console.steps] == [
        ("planner cost x.yaml \\\n    -p aws-s3", 0),
        ("planner pricing list  # exit 0", 0),
    ]
    assert render_console(console) == text


def test_a_shell_block_is_refused_and_an_illustrative_one_needs_a_reason(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```sh\nplanner pricing list\n```\n\n<!-- example: illustrative -->\n```sh\nls\n```\n")
    with pytest.raises(AssertionError) as caught:
        run_page(page.resolve(), tmp_path, "fast")
    assert "show commands as ```console" in str(caught.value)
    assert "gives no reason" in str(caught.value)
