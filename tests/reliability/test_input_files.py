"""Every input file is read bounded: a device, a FIFO, a folder or an oversized file is one line, exit 2.

Before the bounded reader, a symlink to /dev/zero grew to gigabytes and ended in a MemoryError
traceback, and a FIFO hung forever; each command that reads a file is tried with each kind.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from planner.files import JOURNAL_LIMIT_BYTES, PROFILE_LIMIT_BYTES, WORKLOAD_LIMIT_BYTES

from .conftest import AS_OF, EXAMPLES, assert_one_line_error, invoke

WORKLOAD = str(EXAMPLES / "web-assets.yaml")


def _device(tmp_path: Path, limit: int) -> Path:
    link = tmp_path / "input.yaml"
    link.symlink_to("/dev/zero")
    return link


def _fifo(tmp_path: Path, limit: int) -> Path:
    path = tmp_path / "input.yaml"
    os.mkfifo(path)  # opening it for reading would block until a writer came
    return path


def _oversized(tmp_path: Path, limit: int) -> Path:
    path = tmp_path / "input.yaml"
    path.touch()
    os.truncate(path, limit + 1)  # sparse: its size is checked before a byte is read
    return path


def _folder(tmp_path: Path, limit: int) -> Path:
    path = tmp_path / "input.yaml"
    path.mkdir()
    return path


KINDS: dict[str, tuple[Callable[[Path, int], Path], str]] = {
    "device": (_device, "not a regular file"),
    "fifo": (_fifo, "not a regular file"),
    "oversized": (_oversized, "larger than the"),
    "folder": (_folder, "is a directory"),
}

COMMANDS: dict[str, tuple[int, Callable[[str], list[str]]]] = {
    "workload": (WORKLOAD_LIMIT_BYTES, lambda f: ["cost", f, "-p", "aws-s3", "--as-of", AS_OF]),
    "diff": (WORKLOAD_LIMIT_BYTES, lambda f: ["diff", WORKLOAD, f, "-p", "aws-s3", "--as-of", AS_OF]),
    "prices": (WORKLOAD_LIMIT_BYTES, lambda f: ["pricing", "show", "aws-s3", "--prices", f, "--as-of", AS_OF]),
    "cost-prices": (
        WORKLOAD_LIMIT_BYTES,
        lambda f: ["cost", WORKLOAD, "-p", "aws-s3", "--prices", f, "--as-of", AS_OF],
    ),
    "profiles-show": (PROFILE_LIMIT_BYTES, lambda f: ["profiles", "show", f]),
    "simulate-profile": (
        PROFILE_LIMIT_BYTES,
        lambda f: ["simulate", WORKLOAD, "-p", "aws-s3", "--profile", f, "--duration", "5s"],
    ),
    "measure-journal": (
        JOURNAL_LIMIT_BYTES,
        lambda f: ["measure", "cleanup", "--run-id", "r", "--bucket", "b", "--journal", f],
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_special_and_oversized_files_are_one_line(command: str, kind: str, tmp_path: Path) -> None:
    limit, argv = COMMANDS[command]
    make, expect = KINDS[kind]
    path = str(make(tmp_path, limit))
    assert_one_line_error(invoke(*argv(path)), source=path, expect=expect)
