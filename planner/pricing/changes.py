"""Field-by-field differences between two price tables."""

from __future__ import annotations

from typing import Any

from planner.pricing.models import PriceTable

_IGNORED = {"effective_from", "effective_from_status"}


def _flatten(node: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(node, dict):
        flat: dict[str, Any] = {}
        for key, value in node.items():
            flat.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
        return flat
    if isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
        flat = {}
        for index, value in enumerate(node):
            key = value.get("id", index)  # request classes are named: compare them by name, not position
            flat.update(_flatten(value, f"{prefix}[{key}]"))
        return flat
    return {prefix: node}


def diff_tables(old: PriceTable, new: PriceTable) -> list[dict[str, str]]:
    """Every field whose value differs, as {"field", "before", "after"} ("-" where absent)."""
    before = _flatten(old.model_dump(mode="json", exclude=_IGNORED))
    after = _flatten(new.model_dump(mode="json", exclude=_IGNORED))
    changes = []
    for field in sorted(set(before) | set(after)):
        a, b = before.get(field, "-"), after.get(field, "-")
        if a != b:
            changes.append({"field": field, "before": _text(a), "after": _text(b)})
    return changes


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return "-" if value is None else str(value)
