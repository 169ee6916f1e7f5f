"""The package's shape: no private name imported across modules, and module names that say which."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import planner

ROOT = Path(planner.__file__).parent

MIRRORS = ("planner/cli/", "planner/present/")
"""A command's module in ``cli`` (parse) and ``present`` (render) takes the name of what it parses or
renders, the same as the module below that decides or measures it: one name, one subject, three layers."""

SHARED_NAMES = {
    "models.py": "the pydantic models of its own package (decide.recommendation, decide.migration, ingest, pricing)",
    "inputs.py": "the first stage of each decision pipeline (decide.recommendation, decide.migration)",
    "catalog.py": "pricing's is the shipped tables; workload's the names they define, given to validation",
    "options.py": "the options of recommend's second stage and of a measurement run",
    "plan.py": "a migration plan, a measurement's plan, and cli's cost/sweep/recommend commands",
    "stats.py": "the simulator's and the measurement's own statistics, which share nothing",
}
"""Module names held in more than one folder for another reason than the mirror, each with its reason."""


def _modules() -> list[Path]:
    return [p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts]


def _dotted(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_private_name_is_imported_across_modules() -> None:
    crossings = []
    for path in _modules():
        here = _dotted(path)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("planner"):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                if private and node.module != here:
                    crossings.append(f"{here}: from {node.module} import {', '.join(private)}")
    assert crossings == []


def test_a_module_name_in_two_folders_says_why() -> None:
    holders: dict[str, list[str]] = defaultdict(list)
    for path in _modules():
        if path.name != "__init__.py":
            holders[path.name].append(path.relative_to(ROOT.parent).as_posix())
    shared = {name: paths for name, paths in holders.items() if len(paths) > 1}
    unexplained = {
        name: paths
        for name, paths in shared.items()
        if name not in SHARED_NAMES and sum(not p.startswith(MIRRORS) for p in paths) > 1
    }
    assert unexplained == {}, "name these modules by what they hold, or give the reason in SHARED_NAMES"
    assert sorted(set(SHARED_NAMES) - set(shared)) == [], "a reason for a name no longer shared"
