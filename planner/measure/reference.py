"""Load profiles: the shipped reference profiles (published figures) and profile files.

Reference profiles live in ``measure/profiles/<provider-id>.json`` and are read with
``importlib.resources`` so they work from a wheel as well as from a checkout.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from planner.errors import InputError, validation_problem
from planner.files import PROFILE_LIMIT_BYTES, read_input_text
from planner.measure.profile import Profile


def _profile_dir() -> resources.abc.Traversable:
    return resources.files("planner.measure").joinpath("profiles")


def reference_providers() -> list[str]:
    """Ids of the shipped reference profiles, sorted (e.g. ``aws-s3``, ``cloudflare-r2``)."""
    return sorted(
        entry.name.removesuffix(".json") for entry in _profile_dir().iterdir() if entry.name.endswith(".json")
    )


# Every figure of a profile is a count, a size, a time or a rate: finite, never negative, and
# below 10**18 (a rate of an exabyte a second). These are at least 1 whenever they are given.
_MAX_FIGURE = 1e18
_AT_LEAST_ONE = frozenset(
    {"concurrency", "streams", "part_size_bytes", "queue_depth", "object_size_bytes", "range_bytes", "cpu_count"}
)
_BOOLEAN_KEYS = frozenset({"client_saturated", "complete", "overlapped"})


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            raise ValueError(f"duplicate key {key!r}")
    return dict(pairs)


def _bad_figure(value: Any, path: tuple[str, ...]) -> tuple[str, str] | None:
    """(field, problem) for the first number a measurement cannot have produced, else None."""
    if path[:2] == ("run", "options"):
        return None  # the options the run was given, recorded as they were
    key = path[-1] if path else ""
    if isinstance(value, bool):
        if key in _BOOLEAN_KEYS:
            return None
        return ".".join(path), f"{value!r} is not a valid value here (true/false)"
    if isinstance(value, int | float):
        if not math.isfinite(value):
            return ".".join(path), f"{value!r} is not a finite number"
        if value < 0:
            return ".".join(path), f"{value!r} is negative; a measured figure is 0 or more"
        if value > _MAX_FIGURE:
            return ".".join(path), f"{value!r} is beyond any real measurement"
        if key in _AT_LEAST_ONE and value < 1:
            return ".".join(path), f"{value!r} must be at least 1"
        return None
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for child_key, child in children:
        found = _bad_figure(child, (*path, str(child_key)))
        if found is not None:
            return found
    return None


def parse_profile(text: str, *, source: str) -> Profile:
    """Parse profile JSON text; every problem becomes one ``InputError`` line naming the source."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise InputError(f"not valid JSON ({where}: {error.msg})", source=source) from None
    except ValueError as error:
        raise InputError(f"not valid JSON ({error})", source=source) from None
    except RecursionError:
        raise InputError("not valid JSON (nested too deeply)", source=source) from None
    if not isinstance(data, dict):
        raise InputError("not a profile (expected a JSON object)", source=source)
    if "schema_version" not in data:
        raise InputError("not a planner profile (no schema_version)", source=source)
    try:
        bad = _bad_figure(data, ())
    except RecursionError:
        raise InputError("not valid JSON (nested too deeply)", source=source) from None
    if bad is not None and bad[0] != "schema_version":
        raise InputError(bad[1], source=source, field=bad[0])
    try:
        return Profile.model_validate(data)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(message, source=source, field=field) from None


def load_profile(path: str | Path) -> Profile:
    """Read a profile file written by ``planner measure`` (or a merged one)."""
    text = read_input_text(path, what="profile file", limit_bytes=PROFILE_LIMIT_BYTES)
    return parse_profile(text, source=str(path))


def load_reference(provider_id: str) -> Profile:
    """The shipped reference profile of a provider, built from published benchmarks."""
    known = reference_providers()
    if provider_id not in known:
        raise InputError(f"no reference profile for {provider_id!r} (known: {', '.join(known)})", source="--provider")
    entry = _profile_dir().joinpath(f"{provider_id}.json")
    source = f"measure/profiles/{provider_id}.json"
    profile = parse_profile(entry.read_text(encoding="utf-8"), source=source)
    if profile.provider != provider_id:
        message = f"the profile is of {profile.provider!r}, not {provider_id!r}"
        raise InputError(message, source=source, field="provider")
    return profile
