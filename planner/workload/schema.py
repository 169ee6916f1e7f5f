"""JSON Schemas of the files planner reads, for editors (yaml-language-server) and validators.

The schema is generated from the pydantic model, never written by hand, so it cannot disagree
with what ``load_workload`` accepts about keys and types. Sizes, durations and rates take a
number or a string such as "10 TB", "30d" or "10 Gbps"; the unit itself is checked on loading
(a file's bare number other than 0 is refused there, with a hint).

``planner/workload/workload.schema.json`` is this module's output for "workload", shipped so the
examples can point at it; regenerate it with ``python -m planner.workload.schema --write``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planner.errors import InputError

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_FILES = {"workload": Path(__file__).with_name("workload.schema.json")}

# Constraints pydantic leaves on a union it cannot push them into, and their JSON Schema names.
# Numeric keywords apply only to numbers, so a string branch of the union is unaffected.
_CONSTRAINT_KEYWORDS = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum"}


def _workload_schema() -> dict[str, Any]:
    from planner.workload import Workload

    schema = Workload.model_json_schema()
    return {
        "$schema": DRAFT,
        "title": "planner workload",
        **{key: value for key, value in schema.items() if key != "title"},
        "description": (
            "A storage workload for planner (planner recommend W.yaml). Sizes, durations and rates need units: "
            '"200 TB", "256 KiB", "30d", "200 ms", "10 Gbps" (TB is 10^12 bytes, TiB 2^40). Unknown keys are errors.'
        ),
    }


SCHEMAS: dict[str, Callable[[], dict[str, Any]]] = {"workload": _workload_schema}


def _standard(node: Any) -> Any:
    """The schema with pydantic's leftover constraint names (``gt`` on a union) in JSON Schema terms."""
    if isinstance(node, list):
        return [_standard(item) for item in node]
    if not isinstance(node, dict):
        return node
    fixed = {}
    for key, value in node.items():
        name = _CONSTRAINT_KEYWORDS.get(key, key) if "anyOf" in node else key
        fixed[name] = value if key in ("default", "examples", "const", "enum") else _standard(value)
    return fixed


def schema_for(what: str) -> dict[str, Any]:
    """The JSON Schema of one file format (``planner schema --help`` lists them)."""
    build = SCHEMAS.get(what)
    if build is None:
        raise InputError(f"no schema for {what!r} (choices: {', '.join(sorted(SCHEMAS))})")
    result: dict[str, Any] = _standard(build())
    return result


def schema_text(what: str) -> str:
    """The schema as the shipped file holds it: indented JSON with a final newline."""
    return json.dumps(schema_for(what), indent=2, ensure_ascii=False) + "\n"


def _main(argv: list[str]) -> int:
    """``python -m planner.workload.schema [--write]``: print the schemas, or rewrite the shipped files."""
    if argv == ["--write"]:
        for what, path in SCHEMA_FILES.items():
            path.write_text(schema_text(what), encoding="utf-8")
            print(f"wrote {path}")
        return 0
    if argv:
        print("usage: python -m planner.workload.schema [--write]", file=sys.stderr)
        return 2
    sys.stdout.write(schema_text("workload"))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
