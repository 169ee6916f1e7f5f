"""Values read from a bill, an inventory or a log, made safe to write into a workload file: as a
YAML string, or inside a comment. Nothing from an input can end its line and become a key."""

from __future__ import annotations

import yaml


def yaml_string(text: str) -> str:
    """``text`` as a YAML double-quoted scalar on one line: line breaks, control and non-ASCII
    characters escaped (``"a\\nb"``, ``"\\U0001F600"``), loaded back as exactly ``text``."""
    return yaml.safe_dump(text, default_style='"', allow_unicode=False, width=2**31).splitlines()[0]


def comment_text(text: str) -> str:
    """``text`` inside a ``#`` comment: line breaks and control characters escaped as Python writes
    them (``\\n``, ``\\x00``, ``\\u2028``), so it cannot end the comment."""
    return "".join(c.encode("unicode_escape").decode("ascii") if _breaks_line(c) else c for c in text)


def _breaks_line(char: str) -> bool:
    code = ord(char)
    return code < 32 or 127 <= code <= 159 or char in "\u2028\u2029"
