"""Reading a user's input file, bounded: a regular file of at most a stated size, UTF-8 text.

Every loader (workload, price override, profile, measurement journal) reads through
``read_input_text`` so a symlink to ``/dev/zero``, a FIFO, a folder or a binary file is one
line naming the file, never a hang, a MemoryError or a traceback. This module imports only
``planner.errors``, so every package can use it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from planner.errors import InputError

MIB = 2**20

WORKLOAD_LIMIT_BYTES = 1 * MIB
"""A workload or price override file: a hand-written page of YAML is a few KiB."""

PROFILE_LIMIT_BYTES = 64 * MIB
"""A measured profile: a few hundred cells with their histograms stay under a few MiB."""

JOURNAL_LIMIT_BYTES = 1024 * MIB
"""A measurement journal: one short line per object written (a million objects is ~100 MiB)."""


def read_input_text(path: Path | str, *, what: str, limit_bytes: int) -> str:
    """The text of ``path``, refused with an ``InputError`` (source = the path) if it is missing, not
    a regular file, larger than ``limit_bytes``, binary (NUL bytes) or not UTF-8. ``what`` names
    the kind of file in the errors ("workload file", "profile file", ...)."""
    source = str(path)
    info = check_input_file(path, what=what)
    if info.st_size > limit_bytes:
        raise InputError(_too_large(what, limit_bytes), source=source)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit_bytes + 1)
    except OSError as error:
        raise InputError(f"cannot read the file ({error.strerror or type(error).__name__})", source=source) from None
    if len(raw) > limit_bytes:  # it grew between the stat and the read
        raise InputError(_too_large(what, limit_bytes), source=source)
    if b"\x00" in raw:
        raise InputError("not a text file (it contains NUL bytes)", source=source)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text (byte {error.start} cannot be decoded)", source=source) from None


def check_input_file(path: Path | str, *, what: str) -> os.stat_result:
    """Refuse (``InputError``) a missing file, a folder, a device, FIFO or socket; inputs that are read
    as a stream (billing exports of many GB) have no size cap, but must be regular files."""
    source = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError("file not found", source=source) from None
    except OSError as error:
        raise InputError(f"cannot read the file ({error.strerror or type(error).__name__})", source=source) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"is a directory, not a {what}", source=source)
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"not a regular file (a device, FIFO or socket), so not a {what}", source=source)
    return info


def _too_large(what: str, limit_bytes: int) -> str:
    return f"larger than the {limit_bytes // MIB} MiB a {what} may be (is it the right file?)"
