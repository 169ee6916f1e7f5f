"""Writing output files the one safe way: a file that exists is replaced only when the user said so
(``--force``), a file is written whole or not at all (a temporary file in the same folder, then
``os.replace``), and a name taken from input data is checked before it becomes part of a path.

Base layer: imports only ``planner.errors``, so every layer above (the CLI, the plots and reports,
ingest, pricing import, measure) writes through it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Literal, overload

from planner.errors import InputError

_UNSAFE_ON_A_TERMINAL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)"
)
"""What text from an input must not write to a terminal as it is: C0 controls but the tab and the line
break (ESC begins CSI and OSC sequences), DEL, C1 controls (0x9b is a CSI on its own), a carriage return
that ends no line, the line and paragraph separators, and the characters that reorder text (U+202E)."""


def terminal_safe(text: str) -> str:
    """``text`` with each character a terminal would act on written as its ``\\uXXXX`` escape: shown, not
    obeyed. The escape is JSON's own, so JSON printed through this still reads back as the same text."""
    return _UNSAFE_ON_A_TERMINAL.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


def spreadsheet_cell(value: object) -> object:
    """A CSV cell a spreadsheet will not run: text that begins with ``=``, ``+``, ``-``, ``@``, a tab or a
    carriage return (a formula to Excel, LibreOffice and Google Sheets) is given a leading ``'``, which
    they show as text; a number (``-12.50``) and anything not text are returned as they are."""
    if isinstance(value, str) and len(value) > 1 and value.startswith(_FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


NAME_LIMIT_BYTES = 255
"""A file or folder name's longest form on the usual file systems (ext4, APFS, NTFS)."""

_ODD = re.compile(r"[\x00-\x1f\x7f/\\]")


_MUST_BE_NEW: set[str] = set()
"""The files checked by ``refuse_existing`` without ``--force``, by absolute path: each is written by
creating it (a hard link from its temporary file, which fails if the file exists), never by replacing
it, so of two runs writing one file without ``--force`` the second is refused, not raced."""


def _key(path: Path) -> str:
    return os.path.abspath(path)


def check_name(path: Path, option: str = "--out") -> None:
    """A path to write whose every part fits the file system's names (255 bytes each), refused in one line."""
    for part in path.parts:
        if len(part.encode("utf-8", "surrogateescape")) > NAME_LIMIT_BYTES:
            shown = part[:40] + "..."
            raise InputError(f"the name {shown!r} is longer than {NAME_LIMIT_BYTES} bytes", source=option)


def refuse_existing(paths: Iterable[Path], force: bool, option: str = "--out") -> None:
    """Refuse before any work when a file the command would write exists and ``force`` is not set:
    the first one is named. A folder in a file's place is refused even with ``force``. Without
    ``force`` each file is also claimed as new: written later only if it still does not exist."""
    for path in paths:
        check_name(path, option)
        try:
            is_dir, exists = path.is_dir(), path.exists() or path.is_symlink()
        except OSError as error:
            raise InputError(f"cannot write {path} ({error.strerror or error})", source=option) from None
        if is_dir:
            raise InputError(f"{path} is a folder, not a file to write", source=option)
        if not force and exists:
            raise InputError(f"{path} exists (use --force to replace it)", source=option)
        if force:
            _MUST_BE_NEW.discard(_key(path))
        else:
            _MUST_BE_NEW.add(_key(path))


def _commit(temp: Path, path: Path, claimed: bool, source: str | None) -> None:
    """Put the written temporary file in ``path``'s place: replacing it, or, for a file claimed as new,
    creating it, refused when another run wrote it meanwhile."""
    if not claimed:
        os.replace(temp, path)
        return
    try:
        os.link(temp, path)  # atomic, and fails if the file exists
    except FileExistsError:
        raise InputError(
            f"{path} exists: another run wrote it meanwhile (use --force to replace it)", source=source
        ) from None
    except OSError:  # a file system without hard links: create the name exclusively, then fill it
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            raise InputError(
                f"{path} exists: another run wrote it meanwhile (use --force to replace it)", source=source
            ) from None
        os.replace(temp, path)
        return
    finally:
        _MUST_BE_NEW.discard(_key(path))
    temp.unlink(missing_ok=True)


def check_folder(folder: Path, option: str = "--out") -> None:
    """An output folder: one that exists, or none yet (it is made when the files are written); never
    a file."""
    check_name(folder, option)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} is a file, not a folder to write in", source=option)


def check_parent(path: Path, option: str = "--out") -> None:
    """A file to write checked before any work: its name fits, the folder it goes in exists."""
    check_name(path, option)
    if not path.parent.is_dir():
        raise InputError(f"no such folder {str(path.parent)!r} to write {path.name} in", source=option)


def safe_name(text: str, what: str, source: str | None = None) -> str:
    """``text``, read from an input, checked to be one plain file or folder name: not empty, not ``.``
    or ``..``, no slash, backslash, NUL or control character, at most 255 bytes. It is returned as
    it is (never silently changed, so two different inputs cannot become one file)."""
    problem = None
    if not text or text in (".", ".."):
        problem = "is not a name"
    elif _ODD.search(text):
        problem = "holds a slash, backslash or control character"
    elif text.startswith("-") or text.startswith("."):
        problem = "starts with '-' or '.'"
    elif len(text.encode("utf-8", "surrogateescape")) > NAME_LIMIT_BYTES:
        problem = f"is longer than {NAME_LIMIT_BYTES} bytes"
    if problem is not None:
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise InputError(f"{what} {shown!r} {problem}: it cannot name a file", source=source)
    return text


def inside(folder: Path, path: Path, what: str, source: str | None = None) -> Path:
    """``path`` resolved, refused unless it lies inside ``folder`` (symbolic links followed): a name
    read from an input never leads out of the folder it was meant for."""
    resolved = path.resolve()
    if not resolved.is_relative_to(folder.resolve()):
        raise InputError(f"{what} {str(path)!r} is outside {folder}", source=source)
    return resolved


Writer = contextlib.AbstractContextManager


@overload
def atomic_output(
    path: Path, *, source: str | None, what: str | None = None, binary: Literal[False] = False
) -> Writer[IO[str]]: ...
@overload
def atomic_output(
    path: Path, *, source: str | None, what: str | None = None, binary: Literal[True]
) -> Writer[IO[bytes]]: ...
def atomic_output(
    path: Path, *, source: str | None, what: str | None = None, binary: bool = False
) -> Writer[IO[str]] | Writer[IO[bytes]]:
    """A handle to write ``path`` through: what is written goes to a temporary file beside it, which
    replaces ``path`` only when the block ends without an error; on an error the temporary file is
    deleted and ``path`` keeps its old content. A file that cannot be written is an ``InputError``
    from ``source`` (the option that named it) saying "cannot write ``what`` (why)"."""
    return _atomic(path, source, what or str(path), binary)  # type: ignore[return-value]


def _replaced(path: Path, source: str | None, what: str) -> tuple[Path, bool]:
    """The file a write to ``path`` replaces (a symbolic link's target, so the link stays a link), and
    whether it is a stream written in place: an existing device, FIFO or socket (``/dev/stdout``,
    ``/dev/full``) is never replaced by a regular file, which renaming over it would do."""
    real = Path(os.path.realpath(path))
    try:
        info = os.stat(real)
    except OSError:
        return real, False
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"cannot write {what} (it is a directory)", source=source)
    return real, not stat.S_ISREG(info.st_mode)


@contextlib.contextmanager
def _in_place(path: Path, source: str | None, what: str, binary: bool) -> Iterator[IO[str] | IO[bytes]]:
    """Write a device or FIFO as it is; a FIFO no one reads is refused rather than waited on."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.set_blocking(descriptor, True)
        handle: IO[str] | IO[bytes] = (
            os.fdopen(descriptor, "wb") if binary else os.fdopen(descriptor, "w", encoding="utf-8", newline="")
        )
        with handle:
            yield handle
    except OSError as error:
        raise InputError(f"cannot write {what} ({error.strerror or error})", source=source) from None


@contextlib.contextmanager
def _atomic(path: Path, source: str | None, what: str, binary: bool) -> Iterator[IO[str] | IO[bytes]]:
    check_name(path, source or "--out")
    claimed = _key(path) in _MUST_BE_NEW
    path, stream = _replaced(path, source, what)
    if stream:
        with _in_place(path, source, what, binary) as stream_handle:
            yield stream_handle
        return
    try:
        descriptor, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:200]}.", suffix=".tmp")
    except OSError as error:
        raise InputError(f"cannot write {what} ({error.strerror or error})", source=source) from None
    temp = Path(temp_name)
    try:
        handle: IO[str] | IO[bytes] = (
            os.fdopen(descriptor, "wb") if binary else os.fdopen(descriptor, "w", encoding="utf-8", newline="")
        )
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o666 & ~_umask())
        _commit(temp, path, claimed, source)
    except OSError as error:
        temp.unlink(missing_ok=True)
        raise InputError(f"cannot write {what} ({error.strerror or error})", source=source) from None
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


_FSYNC_EACH = 64
"""Files of one write synced one by one; past this many, with one ``sync`` (``_sync_all``)."""


def _sync_all(temps: list[tuple[Path, Path]]) -> None:
    """Every temporary file on disk before any replaces its target: an ``fsync`` each, or past
    ``_FSYNC_EACH`` files one ``sync`` where the system has it (a million buckets' workloads took
    2 ms a file synced one by one)."""
    if len(temps) > _FSYNC_EACH and hasattr(os, "sync"):
        os.sync()
        return
    for temp, _ in temps:
        with temp.open("r+b") as handle:  # opened to write: Windows flushes only such a handle
            os.fsync(handle.fileno())


def write_all_atomically(files: Iterable[tuple[Path, str | bytes]], *, source: str | None) -> None:
    """Write several files all or none: each goes to a temporary file beside it (closed once written,
    so a thousand files hold no thousand descriptors), and only when every one is written do they
    replace their targets; on an error every temporary file is deleted."""
    temps: list[tuple[Path, Path]] = []
    current: Path | None = None
    claimed: set[Path] = set()
    try:
        for current, data in files:
            check_name(current, source or "--out")
            was_claimed = _key(current) in _MUST_BE_NEW
            current, stream = _replaced(current, source, str(current))
            if was_claimed:
                claimed.add(current)
            if stream:
                raise InputError(f"cannot write {current} (not a regular file)", source=source)
            descriptor, temp_name = tempfile.mkstemp(
                dir=current.parent, prefix=f".{current.name[:200]}.", suffix=".tmp"
            )
            temps.append((Path(temp_name), current))
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            os.chmod(temp_name, 0o666 & ~_umask())
        _sync_all(temps)
        for temp, current in temps:
            _commit(temp, current, current in claimed, source)
    except BaseException as error:
        for temp, _ in temps:
            temp.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise InputError(f"cannot write {current} ({error.strerror or error})", source=source) from None
        raise


def write_atomically(path: Path, data: str | bytes, *, source: str | None, what: str | None = None) -> None:
    """Write ``data`` to ``path`` whole or not at all (see ``atomic_output``)."""
    if isinstance(data, bytes):
        with atomic_output(path, source=source, what=what, binary=True) as binary_handle:
            binary_handle.write(data)
    else:
        with atomic_output(path, source=source, what=what) as text_handle:
            text_handle.write(data)


@functools.cache
def _umask() -> int:
    """The process's umask (read once, by setting it and putting it back): a written file gets the
    mode a plain ``open`` would give it, not ``mkstemp``'s 0600."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
