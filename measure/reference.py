"""Load profiles: the shipped reference profiles (published figures) and profile files.

Reference profiles live in ``measure/profiles/<provider-id>.json`` and are read with
``importlib.resources`` so they work from a wheel as well as from a checkout.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from measure.profile import Profile
from planner.errors import InputError


def _profile_dir() -> resources.abc.Traversable:
    return resources.files("measure").joinpath("profiles")


def reference_providers() -> list[str]:
    """Ids of the shipped reference profiles, sorted (e.g. ``aws-s3``, ``cloudflare-r2``)."""
    return sorted(
        entry.name.removesuffix(".json") for entry in _profile_dir().iterdir() if entry.name.endswith(".json")
    )


def _validation_message(error: ValidationError) -> tuple[str, str | None]:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    message = str(first["msg"]).removeprefix("Value error, ")
    return message, field


def parse_profile(text: str, *, source: str) -> Profile:
    """Parse profile JSON text; every problem becomes one ``InputError`` line naming the source."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise InputError(f"not valid JSON ({where}: {error.msg})", source=source) from None
    if not isinstance(data, dict):
        raise InputError("not a profile (expected a JSON object)", source=source)
    if "schema_version" not in data:
        raise InputError("not a planner profile (no schema_version)", source=source)
    try:
        return Profile.model_validate(data)
    except ValidationError as error:
        message, field = _validation_message(error)
        raise InputError(message, source=source, field=field) from None


def load_profile(path: str | Path) -> Profile:
    """Read a profile file written by ``planner measure`` (or a merged one)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such profile file", source=str(file)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a profile file", source=str(file)) from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read profile ({type(error).__name__})", source=str(file)) from None
    return parse_profile(text, source=str(file))


def load_reference(provider_id: str) -> Profile:
    """The shipped reference profile of a provider, built from published benchmarks."""
    known = reference_providers()
    if provider_id not in known:
        raise InputError(f"no reference profile for {provider_id!r} (known: {', '.join(known)})", source="--provider")
    entry = _profile_dir().joinpath(f"{provider_id}.json")
    return parse_profile(entry.read_text(encoding="utf-8"), source=f"measure/profiles/{provider_id}.json")
