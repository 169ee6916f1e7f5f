"""Loading the shipped price tables, choosing the version in force, and layering overrides.

Tables live in ``pricing/tables/<provider>/<effective-from>.yaml``. A version may name the
version it is ``based_on`` and state only what changed; the loader merges it over that
version and validates the whole result, so every version is a complete table once loaded.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from planner.errors import InputError, PricingError, validation_problem
from planner.files import WORKLOAD_LIMIT_BYTES, read_input_text
from planner.files import load_yaml as load_yaml  # the loader lived here; callers may still import it from here
from planner.pricing import quotes
from planner.pricing.models import SCHEMA_VERSION, Display, PriceTable


def merge(base: Any, change: Any) -> Any:
    """Deep-merge mappings; anything else (lists included) is replaced by the change."""
    if isinstance(base, dict) and isinstance(change, dict):
        merged = dict(base)
        for key, value in change.items():
            merged[key] = merge(base[key], value) if key in base else value
        return merged
    return change


# The only yes/no fields of a table; anywhere else pydantic would read true as 1 (a unit of 1 byte).
_BOOLEAN_KEYS = frozenset({"round_up", "same_price_everywhere", "per_hour", "compared_by_default", "free_shared"})


def find_boolean(
    value: Any, path: tuple[Any, ...] = (), allowed: frozenset[str] = frozenset()
) -> tuple[Any, ...] | None:
    """The path of the first true/false in parsed data outside the ``allowed`` yes/no keys.

    YAML reads yes/no/true/false as booleans and Python takes True for 1, so a boolean where a
    number belongs would bill silently as 1: loaders refuse it instead.
    """
    if isinstance(value, bool):
        return None if path and path[-1] in allowed else path
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        found = find_boolean(child, (*path, key), allowed)
        if found is not None:
            return found
    return None


def _validate(raw: Any, source: str) -> PriceTable:
    if not isinstance(raw, dict):
        raise InputError("a price table must be a mapping of keys", source=source)
    boolean = find_boolean(raw, allowed=_BOOLEAN_KEYS)
    if boolean is not None:
        raise InputError(
            "true/false is not a valid value here (YAML reads yes/no/on/off as booleans)",
            source=source,
            field=".".join(str(p) for p in boolean),
        )
    version = raw.get("schema_version")
    if version != SCHEMA_VERSION:
        raise InputError(
            f"unsupported schema_version {version!r} (this planner reads version {SCHEMA_VERSION})",
            source=source,
            field="schema_version",
        )
    try:
        table = PriceTable.model_validate(raw)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(message, source=source, field=field or "(top level)") from None
    quotes.check(table, source)
    return table


Versions = list[tuple[dt.date, dict[str, Any], str]]


def _read_versions(folder: Traversable, source_prefix: str, shipped: bool) -> Versions:
    """The dated YAML files of one folder, parsed, oldest first."""
    found: Versions = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".yaml"):
            continue
        source = f"{source_prefix}/{entry.name}"
        if shipped:
            text = entry.read_text(encoding="utf-8")
        else:  # a user's folder: a FIFO, device, folder, binary or huge file there is one line
            text = read_input_text(str(entry), what="price table", limit_bytes=WORKLOAD_LIMIT_BYTES)
        raw = load_yaml(text, source, shipped=shipped)
        if not isinstance(raw, dict):
            raise InputError("a price table must be a mapping of keys", source=source)
        try:
            date = dt.date.fromisoformat(entry.name.removesuffix(".yaml"))
        except ValueError:
            raise InputError("file name must be the effective date, YYYY-MM-DD.yaml", source=source) from None
        found.append((date, raw, source))
    return found


def _build(provider: str, versions: Versions, regional_folder: str | None) -> tuple[PriceTable, ...]:
    """Each version merged over the one it is ``based_on`` (in the same folder) and validated."""
    loaded: dict[dt.date, dict[str, Any]] = {}
    result: list[PriceTable] = []
    for date, raw, source in versions:
        raw = dict(raw)
        if raw.get("effective_from", date) != date:
            raise InputError("effective_from differs from the file name", source=source, field="effective_from")
        if "regional_folder" in raw:
            raise InputError("set by the loader from the folder a table is in", source=source, field="regional_folder")
        based_on = raw.pop("based_on", None)
        if based_on is not None:
            base_date = based_on if isinstance(based_on, dt.date) else None
            if base_date is None or base_date not in loaded:
                raise InputError(f"based_on {based_on!r} is not an earlier version in its folder", source=source)
            raw = merge(loaded[base_date], raw)
        raw["effective_from"] = date
        if regional_folder is not None:
            raw["regional_folder"] = regional_folder
        table = _validate(raw, source)
        if table.provider != provider:
            raise InputError(f"provider {table.provider!r} in the folder of {provider!r}", source=source)
        if regional_folder is not None and table.region != regional_folder:
            raise InputError(f"region {table.region!r} in the folder of {regional_folder!r}", source=source)
        loaded[date] = {k: v for k, v in raw.items() if k != "regional_folder"}
        result.append(table)
    return tuple(result)


def load_tables(
    root: Traversable, *, shipped: bool = False
) -> tuple[dict[str, tuple[PriceTable, ...]], dict[tuple[str, str], tuple[PriceTable, ...]]]:
    """Every table under ``root``: each provider's default versions (``<provider>/<date>.yaml``) and each
    region's (``<provider>/<region>/<date>.yaml``), oldest first, each a complete table. ``shipped``:
    planner's own tables (read with libyaml's parser, see ``planner.files.load_yaml``)."""
    default: dict[str, tuple[PriceTable, ...]] = {}
    regional: dict[tuple[str, str], tuple[PriceTable, ...]] = {}
    for provider_dir in sorted(root.iterdir(), key=lambda p: p.name):
        if not provider_dir.is_dir():
            continue
        provider = provider_dir.name
        prefix = f"{root.name}/{provider}"
        default[provider] = _build(provider, _read_versions(provider_dir, prefix, shipped), None)
        for region_dir in sorted(provider_dir.iterdir(), key=lambda p: p.name):
            if region_dir.is_dir() and not region_dir.name.startswith(("_", ".")):
                versions = _read_versions(region_dir, f"{prefix}/{region_dir.name}", shipped)
                if versions:
                    regional[(provider, region_dir.name)] = _build(provider, versions, region_dir.name)
    return default, regional


TABLES_ENV = "PLANNER_PRICE_TABLES"
"""Extra folders of price tables (``os.pathsep``-separated), laid out as ``pricing/tables``: one
folder per provider, one ``<effective-from>.yaml`` per version (and ``<region>/`` folders). A
provider is data: a folder here adds it to every command (its prices, classes and their properties)."""


def _shipped() -> tuple[dict[str, tuple[PriceTable, ...]], dict[tuple[str, str], tuple[PriceTable, ...]]]:
    return _load_all(os.environ.get(TABLES_ENV, ""))


@functools.cache
def _load_all(extra: str) -> tuple[dict[str, tuple[PriceTable, ...]], dict[tuple[str, str], tuple[PriceTable, ...]]]:
    """The shipped tables, then those of each extra folder; a provider defined twice is refused."""
    default, regional = load_tables(resources.files("planner.pricing") / "tables", shipped=True)
    default, regional = dict(default), dict(regional)
    for folder in (f for f in extra.split(os.pathsep) if f):
        path = Path(folder)
        if not path.is_dir():
            raise InputError("not a folder of price tables", source=f"{TABLES_ENV}={folder}")
        more, more_regional = load_tables(path)
        for provider, found in more.items():
            if not found:  # every lookup begins at the default region's latest version
                raise InputError(
                    "holds no price table of its own (<YYYY-MM-DD>.yaml, beside any region's folder)",
                    source=f"{TABLES_ENV}={folder}/{provider}",
                )
            if provider in default:
                raise InputError(
                    f"provider {provider!r} is already defined by another tables folder", source=f"{folder}/{provider}"
                )
        default.update(more)
        regional.update(more_regional)
    _check_colours(default)
    return default, regional


def _check_colours(tables: dict[str, tuple[PriceTable, ...]]) -> None:
    """Refuse two providers drawn in the same colour (each provider's newest default table says its own)."""
    drawn: dict[str, str] = {}
    for provider, found in sorted(tables.items()):
        shown = found[-1].display if found else None
        colour = shown.colour if shown is not None else None
        if colour is None:
            continue
        if colour in drawn:
            raise InputError(
                f"colour {colour} is already {drawn[colour]}'s; each provider is drawn in its own",
                source=f"{provider} {found[-1].version}",
                field="display.colour",
            )
        drawn[colour] = provider


def shipped_tables() -> dict[str, tuple[PriceTable, ...]]:
    """Every shipped version of every provider's default region, oldest first, each a complete table."""
    return _shipped()[0]


def regional_tables() -> dict[tuple[str, str], tuple[PriceTable, ...]]:
    """Every shipped version of every (provider, region) priced on its own, oldest first."""
    return _shipped()[1]


def providers() -> list[str]:
    return sorted(shipped_tables())


def display(provider: str) -> Display | None:
    """How planner names and draws ``provider`` (FOCUS names, plot colour, a migration service): the
    ``display`` block of its newest default table, which holds for all its versions and regions; None for a
    provider that gives none or that no table defines."""
    found = shipped_tables().get(provider)
    return found[-1].display if found else None


def regions(provider: str) -> list[str]:
    """The regions with prices of their own, the default one first."""
    default = versions(provider)[-1].region
    return [default, *sorted(r for p, r in regional_tables() if p == provider and r != default)]


def versions(provider: str, region: str | None = None) -> tuple[PriceTable, ...]:
    """The versions of a provider's default prices, or of one region's (see ``region_versions``)."""
    tables = shipped_tables()
    if provider not in tables:
        raise PricingError(f"unknown provider {provider!r} (known: {', '.join(sorted(tables))})")
    if region is None:
        return tables[provider]
    return region_versions(provider, region)[0]


def region_versions(provider: str, region: str) -> tuple[tuple[PriceTable, ...], str | None]:
    """The versions that price ``region``, and a note when they are the provider's prices everywhere.

    A region with a folder of its own is priced by it; the default region by the default tables; any other
    region only by a table that says its prices are the same everywhere (and, where it names the
    provider's regions, names this one). Else a one-line PricingError.
    """
    default = versions(provider)
    regional = regional_tables().get((provider, region))
    if regional is not None:
        return regional, None
    latest = default[-1]
    if region == latest.region:
        return default, None
    scope = latest.regions
    if scope is not None and scope.same_price_everywhere:
        if scope.names and region not in scope.names:
            raise PricingError(
                f"{latest.provider_name} has no region {region!r} (its regions: {', '.join(scope.names)})"
            )
        return default, (
            f"{latest.provider_name} charges the same in every region ({scope.status.value}); {region} is priced"
            " by its one table"
        )
    raise PricingError(f"no {provider} price table for region {region!r} (tables: {', '.join(regions(provider))})")


def table_for(provider: str, as_of: dt.date | None = None, region: str | None = None) -> PriceTable:
    """The version in force on ``as_of`` (today when omitted): the latest that began on or before it.

    ``region`` picks that region's prices (default: the provider's default region, us-east-1 for S3).
    """
    day = as_of or dt.date.today()
    tables = versions(provider, region)
    in_force = [t for t in tables if t.effective_from <= day]
    where = f" in {region}" if region is not None else ""
    if not tables:
        raise PricingError(f"no {provider} price table{where} (its folder holds none)")
    if not in_force:
        raise PricingError(
            f"no {provider} price table{where} in force on {day} (the earliest begins {tables[0].effective_from})"
        )
    return in_force[-1]


def storage_classes(provider: str, as_of: dt.date | None = None) -> list[str]:
    return list(table_for(provider, as_of).classes)


def load_override(path: Path | str, as_of: dt.date | None = None, region: str | None = None) -> PriceTable:
    """A user's price file layered over the shipped version in force (a negotiated discount...).

    The file holds ``provider``, a ``label`` naming the contract, and any part of a table to
    replace: ``{provider: aws-s3, label: edp-2026, egress: {internet: {tiers: [...]}}}``.
    """
    source = str(path)
    text = read_input_text(path, what="price file", limit_bytes=WORKLOAD_LIMIT_BYTES)
    raw = load_yaml(text, source)
    if not isinstance(raw, dict):
        raise InputError(
            "an override file must be a mapping with provider, label and the prices to replace", source=source
        )
    provider = raw.get("provider")
    if not isinstance(provider, str):
        raise InputError("required: the provider id this override applies to", source=source, field="provider")
    label = raw.get("label")
    if not isinstance(label, str) or not label.strip():
        raise InputError("required: a label naming the contract or discount", source=source, field="label")
    if any(ord(c) < 32 or ord(c) == 127 for c in label):
        raise InputError(f"{label!r}: a label is one line without control characters", source=source, field="label")
    for forbidden in ("effective_from", "schema_version", "regional_folder", "currency"):
        if forbidden in raw:
            raise InputError(
                "an override cannot change this; it applies to the version in force", source=source, field=forbidden
            )
    try:
        base = table_for(provider, as_of, region)
    except PricingError as error:
        raise InputError(str(error), source=source, field="provider") from None
    merged = merge(base.model_dump(mode="python", exclude={"label"}), raw)
    _drop_replaced_quotes(merged, raw)
    return _validate(merged, source)


# The keys that hold a price: where an override replaces one, the shipped quote no longer speaks for it.
_PRICE_KEYS = frozenset(
    {"price", "per_gb", "per_1000_requests", "upload", "retrieval", "usd_per_unit", "minimum_charge"}
)


def _drop_replaced_quotes(merged: Any, change: Any) -> None:
    """An override's own prices come from its contract, not the provider's page: the quotes of what it
    replaces go (a price it states with its own quote keeps that one)."""
    if not isinstance(merged, dict) or not isinstance(change, dict):
        return
    if _PRICE_KEYS & set(change) and "quote" not in change and "quote" in merged:
        merged["quote"] = None
    if "access_tiers" in change and isinstance(merged.get("quotes"), dict) and "quotes" not in change:
        replaced = change["access_tiers"]
        merged["quotes"] = {k: v for k, v in merged["quotes"].items() if k.split(".", 1)[-1] not in replaced}
    for key, value in change.items():
        if isinstance(value, dict):
            _drop_replaced_quotes(merged.get(key), value)
