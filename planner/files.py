"""Reading a user's input file, bounded: a regular file of at most a stated size, UTF-8 text,
and YAML and JSON parsed safely with exact numbers.

Every loader (workload, price override, price-table folder, profile, measurement journal,
manifest, offer file) reads through ``read_input_text`` so a symlink to ``/dev/zero``, a FIFO, a
folder, a symlink loop or a binary file is one line naming the file, never a hang, a MemoryError
or a traceback; the workload and price-table loaders parse the text with ``load_yaml``, offers and
manifests with ``load_json``. Inputs read as streams (billing exports, access logs, inventories,
traces) open through ``open_stream`` and read with ``text_lines``: gzip, bzip2 or zstd data is
decompressed as it is read with a running cap on its size (a compression bomb is refused, not
unpacked), and a line longer than a stated bound is refused rather than held. This module imports
only ``planner.errors`` of the project, so every package can use it.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import importlib
import io
import json
import math
import os
import re
import stat
import zlib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, Protocol

import yaml

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
        with _open_regular(path, what) as handle:
            raw = handle.read(limit_bytes + 1)
    except OSError as error:
        raise _unreadable(error, source) from None
    if len(raw) > limit_bytes:  # it grew between the stat and the read
        raise InputError(_too_large(what, limit_bytes), source=source)
    if b"\x00" in raw:
        raise InputError("not a text file (it contains NUL bytes)", source=source)
    try:
        return raw.decode("utf-8-sig")  # a byte-order mark (a spreadsheet's or Notepad's) is not text
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text (byte {error.start} cannot be decoded)", source=source) from None


def check_input_file(path: Path | str, *, what: str) -> os.stat_result:
    """Refuse (``InputError``) a missing file, a symlink loop, a folder, a device, FIFO or socket;
    inputs that are read as a stream (billing exports of many GB) have no size cap, but must be
    regular files. Nothing is opened: a FIFO is refused before anything could block on it."""
    source = str(path)
    try:
        info = os.stat(path)
    except OSError as error:
        raise _unreadable(error, source) from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"is a directory, not {_a(what)}", source=source)
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"not a regular file (a device, FIFO or socket), so not {_a(what)}", source=source)
    return info


def _a(what: str) -> str:
    """``what`` with its article: "a trace", "an access log"."""
    return f"{'an' if what[:1].lower() in 'aeiou' else 'a'} {what}"


def _unreadable(error: OSError, source: str) -> InputError:
    """An OSError met stating or opening an input, as the one line the user sees."""
    if error.errno == errno.ELOOP:
        return InputError("symlink loop (a symbolic link that leads back to itself)", source=source)
    if error.errno == errno.ENOENT:
        if os.path.islink(source):
            return InputError("a symbolic link to a file that does not exist", source=source)
        return InputError("file not found", source=source)
    if error.errno == errno.EISDIR:
        return InputError("is a directory, not a file", source=source)
    return InputError(f"cannot read the file ({error.strerror or type(error).__name__})", source=source)


def _open_regular(path: Path | str, what: str) -> IO[bytes]:
    """``path`` opened for reading if it is still a regular file once open. O_NONBLOCK keeps a FIFO
    swapped in after ``check_input_file`` from blocking the open; the check is made again on the
    open file, so what is read is what was checked."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    descriptor = os.open(path, flags)
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"is a directory, not {_a(what)}", source=str(path))
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"not a regular file (a device, FIFO or socket), so not {_a(what)}", source=str(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


MAX_LINE_BYTES = 1 * MIB
"""A line of a log, a trace or a billing export: real ones are at most a few KiB."""

MAX_BLANK_RUN = 100_000
"""Empty lines in a row: a real log or export has a few at most; a file of nothing but line ends (a gzip of
gigabytes of newlines) is refused when it reaches this many, in a fraction of a second, instead of being read
line by line for minutes."""

DECOMPRESSED_FLOOR_BYTES = 256 * MIB
MAX_COMPRESSION_RATIO = 100
"""Compressed input may unpack to ``DECOMPRESSED_FLOOR_BYTES`` or to this many times its size,
whichever is more: gzipped logs and billing exports unpack 5 to 30 times, a compression bomb a
thousand times and more."""

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_COMPRESSED_NAMES = {".gz": "gzip", ".gzip": "gzip", ".bz2": "bzip2", ".zst": "zstd", ".zstd": "zstd"}
try:  # zstd is optional: the zstandard package where it is installed
    _zstandard: Any = importlib.import_module("zstandard")
except ImportError:
    _zstandard = None


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


class _Capped(io.RawIOBase):
    """A decompressing stream that refuses to give more than ``limit_bytes``: the cap holds as it is
    read, so a compression bomb costs the time of the cap, never its memory."""

    def __init__(self, inner: _Readable, file: IO[bytes], limit_bytes: int, source: str, compressed_bytes: int) -> None:
        super().__init__()
        self._inner = inner
        self._file = file
        self._limit = limit_bytes
        self._source = source
        self._compressed = compressed_bytes
        self._given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._inner.read(min(len(view), 1 * MIB))
        self._given += len(data)
        if self._given > self._limit:
            raise InputError(
                f"decompresses to more than {self._limit // MIB:,} MiB ({MAX_COMPRESSION_RATIO} times its"
                " size or more: a compression bomb?); if it is real, decompress it first",
                source=self._source,
            )
        view[: len(data)] = data
        return len(data)

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._file.close()  # a decompressor given a file object leaves it open
            super().close()


def open_stream(path: Path | str, *, what: str) -> IO[bytes]:
    """A regular file opened for streaming, decompressed as it is read when it is gzip, bzip2 or
    zstd (known by its first bytes, whatever its name), with the decompressed size capped (see
    ``MAX_COMPRESSION_RATIO``). Errors are one-line ``InputError``s naming the file."""
    source = str(path)
    info = check_input_file(path, what=what)
    try:
        handle = _open_regular(path, what)
    except OSError as error:
        raise _unreadable(error, source) from None
    try:
        magic = handle.read(4)
        handle.seek(0)
    except OSError as error:
        handle.close()
        raise _unreadable(error, source) from None
    named = _COMPRESSED_NAMES.get(Path(source).suffix.lower())
    kind = (
        "gzip"
        if magic[:2] == b"\x1f\x8b"
        else "bzip2"
        if magic[:3] == b"BZh"
        else "zstd"
        if magic == _ZSTD_MAGIC
        else None
    )
    if named is not None and kind != named:
        handle.close()
        raise InputError(f"not {_a(what)} (its name says {named}, but it is not {named} data)", source=source)
    inner: _Readable
    if magic[:2] == b"\x1f\x8b":
        inner = gzip.GzipFile(fileobj=handle, mode="rb")
    elif magic[:3] == b"BZh":
        inner = bz2.BZ2File(handle, mode="rb")
    elif magic == _ZSTD_MAGIC:
        if _zstandard is None:
            handle.close()
            raise InputError("zstd-compressed: decompress it first (zstd -d), or pip install zstandard", source=source)
        inner = _zstandard.ZstdDecompressor().stream_reader(handle, closefd=True)
    else:
        return handle
    limit = max(DECOMPRESSED_FLOOR_BYTES, MAX_COMPRESSION_RATIO * info.st_size)
    return io.BufferedReader(_Capped(inner, handle, limit, source, info.st_size), buffer_size=1 * MIB)


def text_lines(stream: IO[bytes], *, source: str, what: str, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[str]:
    """The UTF-8 lines of a binary stream, each with its line end, a byte-order mark before the first
    dropped; a line longer than ``max_line_bytes`` (or a binary file's endless one) is refused with
    its number, and so is text that is not UTF-8 ("not a CSV export: line 3 is not UTF-8 text", with
    ``what`` the kind of file). Decompression and read errors are one line too."""
    number = blank = 0
    while True:
        try:
            raw = stream.readline(max_line_bytes + 1)
        except InputError:
            raise
        except (OSError, EOFError, ValueError, MemoryError, zlib.error) as error:  # gzip, bz2 and zstd's, for bad data
            reason = " ".join(str(error).split())[:100] or type(error).__name__
            raise InputError(f"not {_a(what)} ({reason}, after line {number:,})", source=source) from None
        if not raw:
            return
        number += 1
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            raise InputError(
                f"line {number:,} is longer than {max_line_bytes:,} bytes (is it {_a(what)}?)", source=source
            )
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        blank = blank + 1 if raw in (b"\n", b"\r\n", b"\r") else 0
        if blank > MAX_BLANK_RUN:
            raise InputError(
                f"line {number:,} ends a run of more than {MAX_BLANK_RUN:,} empty lines (is it {_a(what)}?)",
                source=source,
            )
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(
                f"not {_a(what)}: line {number:,} is not UTF-8 text (byte {error.start} cannot be decoded)",
                source=source,
            ) from None


MAX_JSON_DEPTH = 64
"""An offer file nests five deep, a manifest three, a log record four."""


def _json_number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _json_integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {len(text.lstrip('-')):,} digits (at most {MAX_NUMBER_DIGITS})")
    return int(text)


def _json_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a JSON number")


def parse_json(text: str) -> Any:
    """JSON text parsed with its numbers bounded: NaN and Infinity, a float past 1e308 and an integer
    of over ``MAX_NUMBER_DIGITS`` digits are refused, and so is nesting deeper than
    ``MAX_JSON_DEPTH``. Raises ValueError (a JSONDecodeError for malformed text) with the reason."""
    try:
        value = json.loads(text, parse_float=_json_number, parse_int=_json_integer, parse_constant=_json_constant)
    except RecursionError:
        raise ValueError(f"nested more than {MAX_JSON_DEPTH} deep") from None
    if _nested_deeper(value, MAX_JSON_DEPTH):
        raise ValueError(f"nested more than {MAX_JSON_DEPTH} deep")
    return value


def _nested_deeper(value: Any, limit: int) -> bool:
    """Whether ``value`` holds lists or mappings more than ``limit`` deep (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def load_json(path: Path | str, *, what: str, limit_bytes: int) -> Any:
    """A JSON input file read with ``read_input_text`` and parsed with ``parse_json``; every problem
    is one line naming the file."""
    source = str(path)
    text = read_input_text(path, what=what, limit_bytes=limit_bytes)
    try:
        return parse_json(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON: {error.msg} at line {error.lineno}", source=source) from None
    except ValueError as error:
        raise InputError(f"not {_a(what)}: {error}", source=source) from None


def _too_large(what: str, limit_bytes: int) -> str:
    return f"larger than the {limit_bytes // MIB} MiB a {what} may be (is it the right file?)"


# Aliases let a few lines of YAML stand for millions of values ("billion laughs"); no price
# table or workload comes near this many once its aliases are expanded.
MAX_YAML_NODES = 100_000


class _UniqueKeys(yaml.constructor.SafeConstructor):
    """A key given twice is an error: the second ``stored:`` silently winning is a wrong answer."""

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:
                    continue  # an unhashable key: the base constructor reports it
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark, f"duplicate key {key!r}", key_node.start_mark
                    )
        return super().construct_mapping(node, deep=deep)  # type: ignore[arg-type]


MAX_NUMBER_DIGITS = 100
"""No workload or price needs a number longer than this; Python refuses to read an int of over
4,300 digits with a ValueError, which would otherwise escape as a traceback."""

_PLAIN_INTEGER = re.compile(r"[-+]?(0|[1-9][0-9_]*)")


def _number_text(node: yaml.ScalarNode, text: str) -> str:
    digits = sum(c.isdigit() for c in text)
    if digits > MAX_NUMBER_DIGITS:
        raise yaml.constructor.ConstructorError(
            None, None, f"a number of {digits:,} digits (at most {MAX_NUMBER_DIGITS})", node.start_mark
        )
    if ":" in text:  # YAML 1.1 reads 1:30:00 as 5400 (base 60): nobody writing a count means that
        raise yaml.constructor.ConstructorError(
            None, None, f"{text!r} is a base-60 number in YAML 1.1; write plain digits, or quote it", node.start_mark
        )
    return text.replace("_", "")


def _decimal(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Decimal:
    text = _number_text(node, str(loader.construct_scalar(node))).lower()
    special = {".nan": "NaN", ".inf": "Infinity", "+.inf": "Infinity", "-.inf": "-Infinity"}
    return Decimal(special.get(text, text))


def _integer(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    """Plain decimal integers only: YAML 1.1 reads 0777 as 511 (octal) and 0x10 as 16."""
    raw = str(loader.construct_scalar(node))
    text = _number_text(node, raw)
    if not _PLAIN_INTEGER.fullmatch(raw):
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"{raw!r} is octal, hexadecimal or binary in YAML 1.1; write plain decimal digits, or quote it",
            node.start_mark,
        )
    return int(text)


class _DecimalLoader(_UniqueKeys, yaml.SafeLoader):
    """Safe YAML with floats read as Decimal from their text: 0.09 stays exactly 0.09, each key once."""


class _ShippedLoader(_UniqueKeys, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The same reading with libyaml's parser where PyYAML has it: about five times faster on the
    shipped price tables, which every command reads. Only for text planner ships or writes itself
    (tables, a workload it generated): its syntax errors are worded differently, and a user's file
    gets the messages the tests hold."""


for _loader in (_DecimalLoader, _ShippedLoader):
    _loader.add_constructor("tag:yaml.org,2002:float", _decimal)
    _loader.add_constructor("tag:yaml.org,2002:int", _integer)


def _expanded_size(value: Any, sizes: dict[int, int], active: set[int]) -> int:
    """Values in ``value`` with every alias expanded; raises ValueError on a value that contains itself."""
    if not isinstance(value, dict | list):
        return 1
    ident = id(value)
    if ident in active:
        raise ValueError("an alias refers to the value that contains it")
    if ident not in sizes:
        active.add(ident)
        children = list(value.values()) if isinstance(value, dict) else value
        sizes[ident] = 1 + sum(_expanded_size(child, sizes, active) for child in children)
        active.discard(ident)
    return sizes[ident]


def load_yaml(text: str, source: str, *, shipped: bool = False) -> Any:
    """Parse YAML safely (no object construction), numbers exact; errors name the file and line.
    ``shipped``: text planner ships or writes itself, read with libyaml's parser where there is one."""
    loader = _ShippedLoader if shipped else _DecimalLoader  # SafeLoader subclasses: no object construction
    try:
        data = yaml.load(text, Loader=loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "YAML"
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise InputError(f"malformed YAML: {problem}", source=source, field=where) from None
    except RecursionError:
        raise InputError("malformed YAML: nested too deeply", source=source) from None
    try:
        size = _expanded_size(data, {}, set())
    except ValueError as error:
        raise InputError(f"malformed YAML: {error}", source=source) from None
    except RecursionError:
        raise InputError("malformed YAML: nested too deeply", source=source) from None
    if size > MAX_YAML_NODES:
        raise InputError(
            f"too large: {size:,} values once its aliases are expanded (at most {MAX_YAML_NODES:,})", source=source
        )
    return data
