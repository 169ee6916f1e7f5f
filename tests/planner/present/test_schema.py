"""The workload schema: generated from the model, shipped, pointed at by every example, and honest."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from planner.errors import InputError
from planner.pricing.catalog import load_yaml
from planner.units import parse_duration, parse_rate, parse_size
from planner.workload import load_workload
from planner.workload.schema import SCHEMA_FILES, schema_for, schema_text

from .conftest import EXAMPLES

SHIPPED = SCHEMA_FILES["workload"]
FIRST_LINE = "# yaml-language-server: $schema=../planner/workload/workload.schema.json"


def test_shipped_schema_is_the_models() -> None:
    assert json.loads(SHIPPED.read_text(encoding="utf-8")) == schema_for("workload"), (
        f"{SHIPPED} is stale: regenerate it with `python -m planner.workload.schema --write`"
    )
    assert SHIPPED.read_text(encoding="utf-8") == schema_text("workload")


def test_schema_header() -> None:
    schema = schema_for("workload")
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["title"] == "planner workload"
    assert schema["additionalProperties"] is False
    assert {"name", "storage", "traffic", "performance", "client", "constraints"} <= set(schema["properties"])


def test_unknown_schema_lists_the_choices() -> None:
    with pytest.raises(InputError, match=r"no schema for 'profile' \(choices: workload\)"):
        schema_for("profile")


def _walk(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found += _walk(value)
    elif isinstance(node, list):
        for value in node:
            found += _walk(value)
    return found


def test_no_pydantic_only_keywords_are_left() -> None:
    for node in _walk(schema_for("workload")):
        assert not {"gt", "ge", "lt", "le"} & set(node), node


def _human_pattern(schema: dict[str, Any], definition: str, field: str) -> str:
    node = schema["$defs"][definition]["properties"][field]
    strings = [n for n in _walk(node) if n.get("type") == "string"]
    assert strings, f"{definition}.{field} takes no string"
    assert any(n.get("type") in ("integer", "number") for n in _walk(node)), f"{definition}.{field} takes no number"
    return str(strings[0]["pattern"])


@pytest.mark.parametrize(
    ("definition", "field", "parse", "good"),
    [
        ("Storage", "stored", parse_size, ["10 TB", "256 KiB", "1.5TB", "0", " 8 GB "]),
        ("Storage", "retention", parse_duration, ["30d", "7 days", "12h"]),
        ("Performance", "p99_ttfb", parse_duration, ["200 ms", "1s"]),
        ("Client", "link", parse_rate, ["10 Gbps", "500 MiB/s"]),
    ],
)
def test_human_strings_are_accepted(definition: str, field: str, parse: Any, good: list[str]) -> None:
    pattern = re.compile(_human_pattern(schema_for("workload"), definition, field))
    for text in good:
        parse(text)  # the parser takes it ...
        assert pattern.search(text), f"{text!r}"  # ... so the schema must too
    for text in ["ten TB", "1,5 GB", "10 T B"]:
        assert not pattern.search(text), f"{text!r} is not the shape of a size, duration or rate"


def test_every_example_points_at_the_shipped_schema() -> None:
    for path in EXAMPLES:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == FIRST_LINE, path.name
        target = (path.parent / first.split("$schema=", 1)[1]).resolve()
        assert target == SHIPPED.resolve()


def _resolve(schema: dict[str, Any], node: dict[str, Any], value: Any) -> dict[str, Any] | None:
    """The branch of ``node`` an object value takes (through $ref and anyOf), or None for a leaf."""
    if "$ref" in node:
        return _resolve(schema, schema["$defs"][node["$ref"].rsplit("/", 1)[1]], value)
    if "anyOf" in node:
        for branch in node["anyOf"]:
            found = _resolve(schema, branch, value)
            if found is not None:
                return found
        return None
    return node if node.get("type") in ("object", "array") else None


def _check(schema: dict[str, Any], node: dict[str, Any], value: Any, where: str) -> None:
    """Keys, nesting and human strings of a loaded example against the schema, without jsonschema."""
    if isinstance(value, str):
        patterns = [n["pattern"] for n in _walk(node) if "pattern" in n]
        if patterns:
            assert any(re.search(p, value) for p in patterns), f"{where}: {value!r}"
        return
    shape = _resolve(schema, node, value)
    if shape is None:
        return
    if isinstance(value, dict):
        properties = shape.get("properties", {})
        assert set(value) <= set(properties), f"{where}: {sorted(set(value) - set(properties))} not in the schema"
        for key, item in value.items():
            _check(schema, properties[key], item, f"{where}.{key}")
    elif isinstance(value, list) and "items" in shape:
        for index, item in enumerate(value):
            _check(schema, shape["items"], item, f"{where}[{index}]")


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_fits_the_schema(path: Path) -> None:
    load_workload(path)  # the model accepts it
    schema = schema_for("workload")
    data = load_yaml(path.read_text(encoding="utf-8"), str(path))
    assert set(schema.get("required", [])) <= set(data)
    _check(schema, schema, data, path.stem)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_validates_with_jsonschema(path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    data = load_yaml(path.read_text(encoding="utf-8"), str(path))
    jsonschema.validate(json.loads(json.dumps(data, default=float)), schema_for("workload"))
