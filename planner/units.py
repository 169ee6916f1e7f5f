"""Human units, parsed exactly.

Sizes become ``int`` bytes, durations ``float`` seconds, rates ``float`` bits per second.
Decimal prefixes are powers of 1000 (TB = 10**12 bytes), binary prefixes powers of 1024
(TiB = 2**40). ``KB`` is decimal like every other upper-case prefix here; write ``KiB`` for
1024. A bare number is never taken as a size from a file: a missing unit is a misread waiting
to happen (is "200" bytes, GB or TB?), so it is an error.

This module imports nothing from the rest of the project.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer, StringConstraints, ValidationInfo

# Anything above this is not a storage workload but a typo: all the data ever made is
# well under 10**24 bytes, and a single workload of 100 EB is already beyond any provider.
MAX_BYTES = 10**20
MAX_SECONDS = 100 * 365 * 86400.0
MAX_BITS_PER_S = 10**15  # 1 Pbps

_SIZE_UNITS: dict[str, int] = {
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "pb": 10**15,
    "eb": 10**18,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
    "pib": 2**50,
    "eib": 2**60,
}

_DURATION_UNITS: dict[str, float] = {
    "us": 1e-6,
    "µs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "m": 60.0,
    "min": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "d": 86400.0,
    "day": 86400.0,
    "days": 86400.0,
    "w": 7 * 86400.0,
    "week": 7 * 86400.0,
    "weeks": 7 * 86400.0,
    # a billing month is 30 days here (as the workload's month is); a year 365 days
    "mo": 30 * 86400.0,
    "month": 30 * 86400.0,
    "months": 30 * 86400.0,
    "y": 365 * 86400.0,
    "yr": 365 * 86400.0,
    "year": 365 * 86400.0,
    "years": 365 * 86400.0,
}

# Rates in bits per second; byte rates are multiplied by 8.
_RATE_UNITS: dict[str, float] = {
    "bps": 1.0,
    "kbps": 1e3,
    "mbps": 1e6,
    "gbps": 1e9,
    "tbps": 1e12,
    "b/s": 8.0,
    "kb/s": 8e3,
    "mb/s": 8e6,
    "gb/s": 8e9,
    "kib/s": 8.0 * 2**10,
    "mib/s": 8.0 * 2**20,
    "gib/s": 8.0 * 2**30,
}

# A comma is refused, not dropped: "1,5 GB" is 1.5 GB to half the world and 15 GB to the other.
_NUMBER_UNIT = re.compile(r"^\s*([+-]?(?:\d[\d_]*)?(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*([A-Za-zµ/]*)\s*$")
# Beyond 10**30 of any unit nothing physical is left to describe; it also keeps Decimal from overflowing.
_MAX_EXPONENT = 30


def _split(text: str) -> tuple[Decimal, str] | None:
    match = _NUMBER_UNIT.match(text)
    if not match or not match.group(1) or match.group(1) in "+-":
        return None
    try:
        number = Decimal(match.group(1).replace("_", ""))
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    if number != 0 and number.adjusted() > _MAX_EXPONENT:
        number = Decimal(10) ** _MAX_EXPONENT  # still far beyond every limit below, so refused as such
    return number, match.group(2)


def _is_bits(unit: str) -> bool:
    """A lower-case final b is a bit ("Gb", "gb", "Kib", "b"); only "byte" and "bytes" may end that way."""
    return unit.endswith("b") and unit.lower() not in ("byte", "bytes")


def parse_size(value: object, *, allow_bare: bool = False) -> int:
    """Parse "10 TB", "5 MiB", "0" into whole bytes; raise ValueError with a hint otherwise."""
    hint = 'use e.g. "10 TB" or "5 MiB"'
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size ({hint})")
    if isinstance(value, int | float | Decimal):
        number = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
        if not number.is_finite():
            raise ValueError(f"{value!r} is not a size ({hint})")
        if number != 0 and not allow_bare:
            raise ValueError(f"{value!r} has no unit ({hint})")
        unit_bytes = 1
    elif isinstance(value, str):
        parsed = _split(value)
        if parsed is None:
            raise ValueError(f"{value!r} is not a size ({hint})")
        number, unit = parsed
        if not unit:
            if number != 0 and not allow_bare:
                raise ValueError(f"{value!r} has no unit ({hint})")
            unit_bytes = 1
        else:
            if unit.lower() not in _SIZE_UNITS or _is_bits(unit):
                raise ValueError(f"{value!r}: unknown size unit {unit!r} ({hint}; sizes are bytes, not bits)")
            unit_bytes = _SIZE_UNITS[unit.lower()]
    else:
        raise ValueError(f"{value!r} is not a size ({hint})")
    if number < 0:
        raise ValueError(f"{value!r} is negative; a size must be 0 or more")
    total = number * unit_bytes
    if 0 < total < 1:
        raise ValueError(f"{value!r} is less than one byte")
    if total > MAX_BYTES:
        raise ValueError(f"{value!r} is beyond any real workload (more than 100 EB)")
    return int(total.to_integral_value(rounding="ROUND_CEILING"))


def parse_duration(value: object) -> float:
    """Parse "30d", "200 ms", "10m" into seconds."""
    hint = 'use e.g. "30d", "10m" or "200 ms"'
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{value!r} is not a duration ({hint})")
    if isinstance(value, int | float):
        if value != 0:
            raise ValueError(f"{value!r} has no unit ({hint})")
        return 0.0
    parsed = _split(value)
    if parsed is None:
        raise ValueError(f"{value!r} is not a duration ({hint})")
    number, unit = parsed
    if not unit:
        if number != 0:
            raise ValueError(f"{value!r} has no unit ({hint})")
        return 0.0
    # Short units match exactly: "M" (a month?) or "MS" must not become minutes or milliseconds.
    key = unit if unit in _DURATION_UNITS or len(unit) <= 2 else unit.lower()
    if key not in _DURATION_UNITS:
        raise ValueError(f"{value!r}: unknown duration unit {unit!r} ({hint})")
    if number < 0:
        raise ValueError(f"{value!r} is negative; a duration must be 0 or more")
    seconds = float(number) * _DURATION_UNITS[key]
    if not math.isfinite(seconds) or seconds > MAX_SECONDS:
        raise ValueError(f"{value!r} is beyond any real workload (more than 100 years)")
    return seconds


def parse_rate(value: object) -> float:
    """Parse "10 Gbps", "500 MiB/s" into bits per second."""
    hint = 'use e.g. "10 Gbps" or "500 MiB/s"'
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{value!r} is not a rate ({hint})")
    if isinstance(value, int | float):
        if value != 0:
            raise ValueError(f"{value!r} has no unit ({hint})")
        return 0.0
    parsed = _split(value)
    if parsed is None:
        raise ValueError(f"{value!r} is not a rate ({hint})")
    number, unit = parsed
    key = unit.lower()
    # Case matters for bits vs bytes: "Gbps"/"Gb/s" are bits, "GB/s" bytes.
    if key.endswith("/s") and unit[-3:-2] == "b":
        key = key[:-3] + "bps"
    if key.endswith("bps") and "B" in unit[-3:]:
        # "GBps" reads as bytes to some and bits to others: a factor of 8 either way.
        raise ValueError(f'{value!r}: ambiguous rate unit {unit!r} (write "GB/s" for bytes or "Gbps" for bits)')
    if key not in _RATE_UNITS:
        raise ValueError(f"{value!r}: unknown rate unit {unit!r} ({hint})")
    if number < 0:
        raise ValueError(f"{value!r} is negative; a rate must be 0 or more")
    bits = float(number) * _RATE_UNITS[key]
    if not math.isfinite(bits) or bits > MAX_BITS_PER_S:
        raise ValueError(f"{value!r} is beyond any real link (more than 1 Pbps)")
    return bits


def format_bytes(n: int | float, *, binary: bool = False) -> str:
    """Render bytes with the largest prefix that keeps the number at or above 1."""
    step, names = (
        (1024, ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"])
        if binary
        else (
            1000,
            ["B", "KB", "MB", "GB", "TB", "PB", "EB"],
        )
    )
    value = float(n)
    for name in names:
        if abs(value) < step or name == names[-1]:
            text = f"{value:.2f}".rstrip("0").rstrip(".")
            return f"{text} {name}"
        value /= step
    raise AssertionError("unreachable")


def counted(count: int, noun: str) -> str:
    """``1 row``, ``2 rows``, ``1,024 files``: a count with its noun, plural when it is not one."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def significant(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant figures, never in scientific notation (1000, not 1e+03)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    places = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_rate(bits_per_s: float) -> str:
    for name, scale in (("Tbps", 1e12), ("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bits_per_s >= scale:
            return f"{significant(bits_per_s / scale)} {name}"
    return f"{significant(bits_per_s)} bps"


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{significant(seconds * 1000)} ms"
    for name, scale in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= scale:
            return f"{significant(seconds / scale)} {name}"
    return f"{significant(seconds)} s"


def format_wall_time(seconds: float) -> str:
    """A run's length as a plan states it: ``45 s``, ``12 min``, ``2 h 05 min`` (whole units)."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    hours, rest = divmod(round(seconds / 60), 60)
    return f"{hours} h {rest:02d} min"


def _strict(info: ValidationInfo) -> bool:
    """Files (YAML/JSON) validate with context {"from_file": True}: bare numbers need units."""
    return bool(info.context and info.context.get("from_file"))


def _size_validator(value: Any, info: ValidationInfo) -> int:
    return parse_size(value, allow_bare=not _strict(info))


def _duration_validator(value: Any, info: ValidationInfo) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and not _strict(info):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{value!r} is not a duration in seconds")
        return float(value)
    return parse_duration(value)


def _rate_validator(value: Any, info: ValidationInfo) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and not _strict(info):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{value!r} is not a rate in bits per second")
        return float(value)
    return parse_rate(value)


_COUNT_TEXT = re.compile(
    r"^\s*(?P<number>[0-9]{1,3}(?:,[0-9]{3})+|[0-9_]+(?:\.[0-9]+)?(?:[eE]\+?[0-9]{1,3})?)\s*(?P<suffix>[A-Za-z]*)\s*$"
)
_COUNT_SUFFIXES = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "bn": 10**9, "thousand": 10**3, "million": 10**6}
_COUNT_SUFFIXES["billion"] = 10**9


def parse_count(value: object) -> int:
    """A count of objects or requests: 2000000, "2M", "150k", "1e6", "2,000,000", "1.5 million".

    Refused: fractions of one ("1.2345k"), a lower-case "m" (milli or million?), "B" or "G" (bytes?)."""
    hint = 'use e.g. 2000000, "2M", "150k" or "1e6"'
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a count ({hint})")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise ValueError(f"{value!r} is not a whole count ({hint})")
        return int(value)
    if not isinstance(value, str) or len(value) > 40:
        raise ValueError(f"{value!r} is not a count ({hint})")
    match = _COUNT_TEXT.match(value)
    if match is None:
        raise ValueError(f"{value!r} is not a count ({hint})")
    suffix = match["suffix"]
    if suffix == "m":
        raise ValueError(f'{value!r}: "m" could be milli or million; write "M" for millions')
    if suffix not in _COUNT_SUFFIXES:
        raise ValueError(f"{value!r}: unknown count suffix {suffix!r} ({hint}; k = 1,000, M = 1,000,000)")
    number = Decimal(match["number"].replace(",", "").replace("_", "")) * _COUNT_SUFFIXES[suffix]
    if number.adjusted() > 18:
        raise ValueError(f"{value!r} is beyond any real count")
    if number != number.to_integral_value():
        raise ValueError(f"{value!r} is not a whole count ({hint})")
    return int(number)


_PERIODS_S = {"month": 30 * 86400.0, "mo": 30 * 86400.0, "day": 86400.0, "d": 86400.0, "week": 7 * 86400.0}
_PERIODS_S |= {"w": 7 * 86400.0, "year": 360 * 86400.0, "yr": 360 * 86400.0, "y": 360 * 86400.0}


def parse_monthly_size(value: object, *, allow_bare: bool) -> int:
    """Bytes a month: "120 TB", "120 TB/month", "4 TB/day" (x 30), "1.2 PB/year" (/ 12)."""
    if isinstance(value, str) and "/" in value:
        amount, _, period = value.rpartition("/")
        key = period.strip().lower()
        if key not in _PERIODS_S:
            raise ValueError(f"{value!r}: per {period.strip()!r} is not a period (use /day, /week, /month or /year)")
        size = parse_size(amount, allow_bare=False)
        return round(size * (30 * 86400.0) / _PERIODS_S[key])
    return parse_size(value, allow_bare=allow_bare)


def _monthly_size_validator(value: Any, info: ValidationInfo) -> int:
    return parse_monthly_size(value, allow_bare=not _strict(info))


# What a file may write for a size, duration or rate, as JSON Schema sees it (editors, validators):
# a number, or a string of the shape the parsers accept. The unit itself is checked on loading.
_HumanText = Annotated[str, StringConstraints(pattern=_NUMBER_UNIT.pattern)]

Bytes = Annotated[
    int,
    BeforeValidator(_size_validator, json_schema_input_type=int | _HumanText),
    PlainSerializer(int, return_type=int),
]
"""A size: "10 TB" in a file, int bytes in Python."""

Seconds = Annotated[float, BeforeValidator(_duration_validator, json_schema_input_type=float | _HumanText)]
"""A duration: "30d" in a file, float seconds in Python."""

BitsPerSecond = Annotated[float, BeforeValidator(_rate_validator, json_schema_input_type=float | _HumanText)]
"""A rate: "10 Gbps" in a file, float bits per second in Python."""

_CountText = Annotated[str, StringConstraints(pattern=_COUNT_TEXT.pattern)]
Count = Annotated[int, BeforeValidator(parse_count, json_schema_input_type=int | _CountText)]
"""A count of objects or requests: 2000000, "2M", "150k" or "1e6"."""

_MonthlyText = Annotated[str, StringConstraints(pattern=r"^.+$")]
MonthlyBytes = Annotated[
    int,
    BeforeValidator(_monthly_size_validator, json_schema_input_type=int | _MonthlyText),
    PlainSerializer(int, return_type=int),
]
"""Bytes a month: "120 TB", "120 TB/month" or "4 TB/day" in a file, int bytes in Python."""
