"""The hostile corpus's harness: a case is a command line and the input files it is given, made in
the test's own folder; running it checks what every command owes any input, however hostile.

- the exit code is one the case allows (0 or 2; 1 is only ``recommend --strict``'s);
- stderr holds no traceback, and an error is one line, ``planner: ...``, naming the case's option,
  field or file;
- every file that existed before the run is unchanged after it, unless the command line says ``--force``;
- the case finishes within its timeout (in-process: SIGALRM; a subprocess: killed), and a case at
  risk of exhausting memory runs in a subprocess whose address space is capped (RLIMIT_AS).

Most cases run in this process through ``planner.cli.main`` (the real entry point, with its error
rendering), which is fast; those that may hang in C code or allocate without bound run in a
subprocess of their own.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import signal
import stat
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from planner.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures"
PRICING_FIXTURES = ROOT / "tests" / "pricing" / "fixtures"
AS_OF = "2026-12-01"

IN_PROCESS_TIMEOUT_S = 30.0
SUBPROCESS_TIMEOUT_S = 20.0
ADDRESS_SPACE_BYTES = 2 * 2**30
"""A subprocess case's address space: an input read without bound runs out of it, not out of the host's memory."""

Maker = Callable[[Path], None]
"""Makes one input at the path it is given (a file's bytes, a FIFO, a symbolic link, a folder)."""


@dataclass(frozen=True)
class Case:
    """One hostile command line. ``args`` may name ``{tmp}`` (the case's folder) and ``{examples}``;
    ``files`` are made in ``{tmp}`` first. ``names``: what the one-line error must contain (the
    option, field or file at fault; a tuple: one of them). ``codes``: the exit codes allowed. ``out``: what stdout must
    contain when the case exits 0 (an answer that is right, not only one that is given)."""

    id: str
    args: tuple[str, ...]
    files: dict[str, Maker] = field(default_factory=dict)
    codes: tuple[int, ...] = (0, 2)
    names: str | tuple[str, ...] | None = None
    out: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    subprocess: bool = False
    timeout_s: float | None = None
    xfail: str | None = None

    def param(self) -> object:
        marks = [pytest.mark.xfail(strict=True, reason=self.xfail)] if self.xfail else []
        return pytest.param(self, id=self.id, marks=marks)


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str


class Hang(BaseException):
    """The case ran past its timeout (a BaseException, so no `except Exception` in the code swallows it)."""


def expand(text: str, tmp: Path) -> str:
    return text.replace("{tmp}", str(tmp)).replace("{examples}", str(EXAMPLES)).replace("{fixtures}", str(FIXTURES))


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_in_process(args: list[str], env: dict[str, str], timeout_s: float) -> Outcome:
    """``planner ARGS`` through the real entry point in this process. An exception other than
    ``SystemExit`` is a bug: its traceback goes to the outcome's stderr, where the checks find it."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    saved_argv, saved_env = sys.argv, {k: os.environ.get(k) for k in env}
    sys.argv = ["planner", *args]
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _alarm(timeout_s):
            try:
                main()
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            except Hang:
                raise
            except BaseException:  # a bug: shown as the user would see it
                err.write(traceback.format_exc())
                code = 1
    except Hang as hang:
        pytest.fail(f"hang: planner {' '.join(args)[:300]}: {hang}")
    finally:
        sys.argv = saved_argv
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return Outcome(code, out.getvalue(), err.getvalue())


_CAPPED = f"""\
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE_BYTES}, {ADDRESS_SPACE_BYTES}))
from planner.cli import main
sys.argv = ["planner", *sys.argv[1:]]
main()
"""


def run_in_subprocess(args: list[str], env: dict[str, str], timeout_s: float, cwd: Path) -> Outcome:
    """``planner ARGS`` in a process of its own, its address space capped and its time bounded."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CAPPED, *args],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            env={**os.environ, **env},
            cwd=cwd,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"hang: planner {' '.join(args)[:300]}: no answer within {timeout_s:g} s")
    if "MemoryError" in done.stderr:
        pytest.fail(f"out of memory (address space {ADDRESS_SPACE_BYTES / 2**30:g} GiB): {done.stderr[-500:]}")
    if done.returncode < 0:
        pytest.fail(f"killed by signal {-done.returncode}: {done.stderr[-500:]}")
    return Outcome(done.returncode, done.stdout, done.stderr)


def _hashes(folder: Path) -> dict[str, str]:
    """Every regular file under ``folder`` (not through links, FIFOs or devices) and its SHA-256."""
    found: dict[str, str] = {}
    for dirpath, _dirs, files in os.walk(folder, followlinks=False):
        for name in files:
            path = Path(dirpath) / name
            try:
                mode = path.lstat().st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode):
                found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _where(err: str) -> str:
    """A traceback in one line: the exception and the deepest frame in planner's own code."""
    frames = [line.strip() for line in err.splitlines() if line.strip().startswith("File ") and "/planner/" in line]
    last = err.strip().splitlines()[-1] if err.strip() else ""
    return f"{last[:200]} at {frames[-1] if frames else '?'}"


def check(case: Case, tmp: Path) -> Outcome:
    """Make the case's files, run it, and check what every command owes every input."""
    for name, make in case.files.items():
        target = tmp / name
        target.parent.mkdir(parents=True, exist_ok=True)
        make(target)
    args = [expand(a, tmp) for a in case.args]
    env = {k: expand(v, tmp) for k, v in case.env.items()}
    before = _hashes(tmp)
    if case.subprocess:
        outcome = run_in_subprocess(args, env, case.timeout_s or SUBPROCESS_TIMEOUT_S, tmp)
    else:
        outcome = run_in_process(args, env, case.timeout_s or IN_PROCESS_TIMEOUT_S)
    assert "Traceback" not in outcome.err, f"traceback: {_where(outcome.err)}"
    assert outcome.code in case.codes, f"exit {outcome.code}, not {case.codes}: {outcome.err[-300:]!r}"
    if outcome.code == 2:
        lines = outcome.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("planner: "), f"not one line: {outcome.err[-600:]!r}"
        named = (case.names,) if isinstance(case.names, str) else case.names or ()
        if named:
            assert any(expand(n, tmp) in lines[0] for n in named), f"names none of {named}: {lines[0][:300]!r}"
    if outcome.code == 0 and case.out is not None:
        assert expand(case.out, tmp) in outcome.out, f"no {case.out!r} in {outcome.out[-600:]!r}"
    if "--force" not in args:
        after = _hashes(tmp)
        changed = sorted(name for name, digest in before.items() if after.get(name) != digest)
        assert not changed, f"replaced or removed without --force: {changed}"
    return outcome
