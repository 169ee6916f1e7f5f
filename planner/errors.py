"""The one exception hierarchy of planner, pricing and measure.

The CLI maps every ``PlannerError`` to exit code 2 and one line; anything else is a bug.
This module imports nothing from the rest of the project so every package can use it.
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
import operator
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pydantic import ValidationError


class PlannerError(Exception):
    """Root of every error the project raises on purpose."""


class InputError(PlannerError):
    """Bad input: a workload, a unit, an option, a price or profile file.

    ``source`` is the file (or option) and ``field`` the dotted path inside it; both are
    folded into the one-line message so the user knows where to look.
    """

    def __init__(self, message: str, source: str | None = None, field: str | None = None) -> None:
        self.problem = message
        self.source = source
        self.field = field
        # ``args`` holds all three, so that a copy made from them keeps the field: SimPy re-raises a
        # process's error as ``type(error)(*error.args)``, and pickling (Dask's workers) rebuilds it so
        super().__init__(message, source, field)

    def __str__(self) -> str:
        parts = [p for p in (self.source, self.field) if p]
        return _one_line(": ".join([*parts, self.problem]))


def positive_number(value: float, argument: str) -> float:
    """``value`` if it is a finite number above 0; otherwise an InputError naming ``argument`` (the library's
    keyword, as a caller wrote it)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise InputError(f"{value!r} is not a finite number above 0", field=argument)
    return value


MAX_SEED = 2**63 - 1
"""the largest seed the library and ``--seed`` take"""


def a_day(value: dt.date | None, argument: str) -> dt.date | None:
    """``value`` as a day: None as it is, a datetime as its date; otherwise an InputError naming ``argument``."""
    if isinstance(value, dt.datetime):
        return value.date()
    if value is None or isinstance(value, dt.date):
        return value
    raise InputError(f"{value!r} is not a date (give a datetime.date, e.g. datetime.date(2026, 12, 1))", field=argument)


def whole_number(value: int, argument: str, *, low: int, high: int) -> int:
    """``value`` if it is a whole number (an int or a numpy integer, not a bool) from ``low`` to ``high``;
    otherwise an InputError naming ``argument``."""
    try:
        number = operator.index(value) if not isinstance(value, bool) else None
    except TypeError:
        number = None
    if number is None:
        raise InputError(f"{value!r} is not a whole number (give an int from {low:,} to {high:,})", field=argument)
    if not low <= number <= high:
        raise InputError(f"{number:,} is outside {low:,} to {high:,}", field=argument)
    return number


def real_number(value: float, argument: str, *, low: float, high: float, what: str) -> float:
    """``value`` as a float if it is a real number (an int, a float or a numpy scalar, not a bool) from ``low``
    to ``high``; otherwise an InputError naming ``argument`` and saying it should be ``what``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not low <= value <= high:  # NaN too
        raise InputError(f"{_short(value)} is not {what} from {_figure(low)} to {_figure(high)}", field=argument)
    return float(value)


Kind = TypeVar("Kind")


def of_type(value: Any, kind: type[Kind], argument: str, what: str) -> Kind:
    """``value`` if it is a ``kind``; otherwise an InputError naming ``argument`` and saying what to give."""
    if not isinstance(value, kind):
        raise InputError(f"{type(value).__name__} {_short(value)}: give {what}", field=argument)
    return value


def optional_callable(value: Any, argument: str) -> None:
    """Refuse a ``value`` that is neither None nor callable, naming ``argument``."""
    if value is not None and not callable(value):
        raise InputError(f"{_short(value)} is not callable (give a function, or None)", field=argument)


def _figure(number: float) -> str:
    return f"{number:,.0f}" if number == int(number) and abs(number) < 1e16 else f"{number:g}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _one_line(text: str) -> str:
    """Line breaks and control characters (in a key, a file name or a value) escaped: the error stays one line."""
    return "".join(c.encode("unicode_escape").decode("ascii") if _breaks(c) else c for c in text)


def _breaks(char: str) -> bool:
    code = ord(char)
    return code < 32 or 127 <= code <= 159 or char in "\u2028\u2029"


_BOUNDS = ("less_than", "less_than_equal", "greater_than", "greater_than_equal")


def _without_union_tags(errors: list[Any]) -> tuple[Any, tuple[Any, ...]]:
    """The error to report and its path: where the first error's path passes through a union (a segment that
    names a member, "literal['internet']" or "CloudLocation", where other errors name another), the deepest of
    the members' errors (the member the input was meant for says most) with the member's name taken out."""
    first = errors[0]
    loc = tuple(first["loc"])
    for i, segment in enumerate(loc):
        if not isinstance(segment, str) or not ("[" in segment or segment[:1].isupper()):
            continue
        members = [e for e in errors if tuple(e["loc"][:i]) == loc[:i] and len(e["loc"]) > i]
        if len({e["loc"][i] for e in members}) < 2:
            continue
        best = max(members, key=lambda e: len(e["loc"]))  # the first of the deepest
        return best, tuple(best["loc"][:i]) + tuple(best["loc"][i + 1 :])
    return first, loc


def validation_problem(error: ValidationError, *, name_types: bool = False) -> tuple[str | None, str]:
    """The first problem of a pydantic error as (dotted field path, None at the top level; message).

    Every loader (price table, workload, profile) reports through it, so the same mistake reads
    the same in each file. ``name_types`` says "'x' is not a number" and "expected a mapping"
    where pydantic would name its own types (for files people write by hand).
    """
    first, loc = _without_union_tags(error.errors())
    field = ".".join(str(part) for part in loc) or None
    message = str(first["msg"]).removeprefix("Value error, ")
    kind = first["type"]
    value = first.get("input")
    if kind in _BOUNDS and isinstance(value, float) and math.isnan(value):  # "less than or equal to 1" misleads
        message = "nan is not a number"
    elif kind == "extra_forbidden":
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
