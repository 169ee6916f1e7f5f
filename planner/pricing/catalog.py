"""Loading the shipped price tables, choosing the version in force, and layering overrides.

Tables live in ``pricing/tables/<provider>/<effective-from>.yaml``. A version may name the
version it is ``based_on`` and state only what changed; the loader merges it over that
version and validates the whole result, so every version is a complete table once loaded.
"""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
from decimal import Decimal
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from planner.errors import InputError, PricingError, validation_problem
from planner.files import WORKLOAD_LIMIT_BYTES, read_input_text
from planner.pricing.models import SCHEMA_VERSION, PriceTable

# Aliases let a few lines of YAML stand for millions of values ("billion laughs"); no price
# table or workload comes near this many once its aliases are expanded.
MAX_YAML_NODES = 100_000


class _DecimalLoader(yaml.SafeLoader):
    """Safe YAML with floats read as Decimal from their text: 0.09 stays exactly 0.09.

    A key given twice is an error: the second ``stored:`` silently winning is a wrong answer.
    """

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


_DecimalLoader.add_constructor("tag:yaml.org,2002:float", _decimal)
_DecimalLoader.add_constructor("tag:yaml.org,2002:int", _integer)


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


def load_yaml(text: str, source: str) -> Any:
    """Parse YAML safely (no object construction), numbers exact; errors name the file and line."""
    try:
        data = yaml.load(text, Loader=_DecimalLoader)  # a SafeLoader subclass: no object construction
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


def merge(base: Any, change: Any) -> Any:
    """Deep-merge mappings; anything else (lists included) is replaced by the change."""
    if isinstance(base, dict) and isinstance(change, dict):
        merged = dict(base)
        for key, value in change.items():
            merged[key] = merge(base[key], value) if key in base else value
        return merged
    return change


# The only yes/no fields of a table; anywhere else pydantic would read true as 1 (a unit of 1 byte).
_BOOLEAN_KEYS = frozenset({"round_up", "same_price_everywhere"})


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
        return PriceTable.model_validate(raw)
    except ValidationError as error:
        field, message = validation_problem(error)
        raise InputError(message, source=source, field=field or "(top level)") from None


Versions = list[tuple[dt.date, dict[str, Any], str]]


def _read_versions(folder: Traversable, source_prefix: str) -> Versions:
    """The dated YAML files of one folder, parsed, oldest first."""
    found: Versions = []
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".yaml"):
            continue
        source = f"{source_prefix}/{entry.name}"
        raw = load_yaml(entry.read_text(encoding="utf-8"), source)
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
    root: Traversable,
) -> tuple[dict[str, tuple[PriceTable, ...]], dict[tuple[str, str], tuple[PriceTable, ...]]]:
    """Every table under ``root``: each provider's default versions (``<provider>/<date>.yaml``) and each
    region's (``<provider>/<region>/<date>.yaml``), oldest first, each a complete table."""
    default: dict[str, tuple[PriceTable, ...]] = {}
    regional: dict[tuple[str, str], tuple[PriceTable, ...]] = {}
    for provider_dir in sorted(root.iterdir(), key=lambda p: p.name):
        if not provider_dir.is_dir():
            continue
        provider = provider_dir.name
        prefix = f"{root.name}/{provider}"
        default[provider] = _build(provider, _read_versions(provider_dir, prefix), None)
        for region_dir in sorted(provider_dir.iterdir(), key=lambda p: p.name):
            if region_dir.is_dir() and not region_dir.name.startswith(("_", ".")):
                versions = _read_versions(region_dir, f"{prefix}/{region_dir.name}")
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
    default, regional = load_tables(resources.files("planner.pricing") / "tables")
    default, regional = dict(default), dict(regional)
    for folder in (f for f in extra.split(os.pathsep) if f):
        path = Path(folder)
        if not path.is_dir():
            raise InputError("not a folder of price tables", source=f"{TABLES_ENV}={folder}")
        more, more_regional = load_tables(path)
        for provider in more:
            if provider in default:
                raise InputError(
                    f"provider {provider!r} is already defined by another tables folder", source=f"{folder}/{provider}"
                )
        default.update(more)
        regional.update(more_regional)
    return default, regional


def shipped_tables() -> dict[str, tuple[PriceTable, ...]]:
    """Every shipped version of every provider's default region, oldest first, each a complete table."""
    return _shipped()[0]


def regional_tables() -> dict[tuple[str, str], tuple[PriceTable, ...]]:
    """Every shipped version of every (provider, region) priced on its own, oldest first."""
    return _shipped()[1]


def providers() -> list[str]:
    return sorted(shipped_tables())


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
    if not in_force:
        where = f" in {region}" if region is not None else ""
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
    for forbidden in ("effective_from", "schema_version", "regional_folder"):
        if forbidden in raw:
            raise InputError(
                "an override cannot change this; it applies to the version in force", source=source, field=forbidden
            )
    try:
        base = table_for(provider, as_of, region)
    except PricingError as error:
        raise InputError(str(error), source=source, field="provider") from None
    merged = merge(base.model_dump(mode="python", exclude={"label"}), raw)
    return _validate(merged, source)
