"""The one exception hierarchy of planner, pricing and measure.

The CLI maps every ``PlannerError`` to exit code 2 and one line; anything else is a bug.
This module imports nothing from the rest of the project so every package can use it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class PlannerError(Exception):
    """Root of every error the project raises on purpose."""


class InputError(PlannerError):
    """Bad input: a workload, a unit, an option, a price or profile file.

    ``source`` is the file (or option) and ``field`` the dotted path inside it; both are
    folded into the one-line message so the user knows where to look.
    """

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None) -> None:
        self.problem = message
        self.source = source
        self.field = field
        parts = [p for p in (source, field) if p]
        super().__init__(_one_line(": ".join([*parts, message])))


def positive_number(value: float, argument: str) -> float:
    """``value`` if it is a finite number above 0; otherwise an InputError naming ``argument`` (the library's
    keyword, as a caller wrote it)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise InputError(f"{value!r} is not a finite number above 0", field=argument)
    return value


def _one_line(text: str) -> str:
    """Line breaks and control characters (in a key, a file name or a value) escaped: the error stays one line."""
    return "".join(c.encode("unicode_escape").decode("ascii") if _breaks(c) else c for c in text)


def _breaks(char: str) -> bool:
    code = ord(char)
    return code < 32 or 127 <= code <= 159 or char in "\u2028\u2029"


def validation_problem(error: ValidationError, *, name_types: bool = False) -> tuple[str | None, str]:
    """The first problem of a pydantic error as (dotted field path, None at the top level; message).

    Every loader (price table, workload, profile) reports through it, so the same mistake reads
    the same in each file. ``name_types`` says "'x' is not a number" and "expected a mapping"
    where pydantic would name its own types (for files people write by hand).
    """
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    message = str(first["msg"]).removeprefix("Value error, ")
    kind = first["type"]
    if kind == "extra_forbidden":
        message = "unknown key"
    elif kind == "missing":
        message = "required but missing"
    elif not name_types:
        pass
    elif kind in ("int_parsing", "int_type", "float_parsing", "float_type"):
        message = f"{first.get('input')!r} is not a number"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        message = f"expected a mapping of keys, got {type(first.get('input')).__name__}"
    elif kind == "list_type":
        message = f"expected a list, got {type(first.get('input')).__name__}"
    return field, message


class PricingError(PlannerError):
    """No price table for a provider, class or date, or a table the engine cannot apply."""


class MeasureError(PlannerError):
    """The endpoint cannot be measured: unreachable, no permission, unsafe bucket state."""
