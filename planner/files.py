"""Reading a user's input file, bounded: a regular file of at most a stated size, UTF-8 text,
and YAML parsed safely with exact numbers.

Every loader (workload, price override, profile, measurement journal) reads through
``read_input_text`` so a symlink to ``/dev/zero``, a FIFO, a folder or a binary file is one
line naming the file, never a hang, a MemoryError or a traceback; the workload and price-table
loaders parse the text with ``load_yaml``. This module imports only ``planner.errors`` of the
project, so every package can use it.
"""

from __future__ import annotations

import os
import re
import stat
from decimal import Decimal
from pathlib import Path
from typing import Any

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
    shipped price tables, which every command reads. Only for files that ship with planner: its
    syntax errors are worded differently, and a user's file gets the messages the tests hold."""


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
    ``shipped``: a file that ships with planner, read with libyaml's parser where there is one."""
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
