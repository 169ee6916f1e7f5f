"""Imports go one way: pricing/ and measure/ use only planner's base layer, never the layers above,
and hold no command-line code (every command lives in planner/cli/).

Every import statement of every module is read from its syntax tree (those inside functions and
``if TYPE_CHECKING:`` blocks included), so a lazy import cannot hide an upward dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE_LAYER = {
    "planner.errors",
    "planner.units",
    "planner.files",
    "planner.cluster",
    "planner.pricing",
    "planner.measure",
}
"""What pricing/ and measure/ may import of planner: its base layer and each other (installed as
planner.pricing and planner.measure)."""
LOWER_PACKAGES = ("pricing", "measure")
MODULES = sorted(path for package in LOWER_PACKAGES for path in (ROOT / "planner" / package).rglob("*.py"))


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted module) for every import; ``from planner import x`` counts as ``planner.x``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            if node.module == "planner":
                found += [(node.lineno, f"planner.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def upward(tree: ast.AST) -> list[str]:
    return [
        f"line {line}: {module}"
        for line, module in imported_modules(tree)
        if (module == "planner" or module.startswith("planner."))
        and not any(module == base or module.startswith(base + ".") for base in BASE_LAYER)
    ]


def test_the_walk_finds_every_kind_of_import() -> None:
    """The checker itself: an upward import at top level, in a function or under TYPE_CHECKING is found."""
    source = """\
from typing import TYPE_CHECKING
from planner.errors import InputError
import planner.units
if TYPE_CHECKING:
    from planner.workload import Workload
def draw():
    from planner.reports.plots import save_profile_plot
    from planner import recommendation
    import planner.sim.core as core
"""
    assert upward(ast.parse(source)) == [
        "line 5: planner.workload",
        "line 7: planner.reports.plots",
        "line 8: planner.recommendation",
        "line 9: planner.sim.core",
    ]


def test_there_are_modules_to_check() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in MODULES}
    assert {
        "planner/pricing/engine.py",
        "planner/pricing/catalog.py",
        "planner/measure/run/measurement.py",
        "planner/measure/profile.py",
    } <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_lower_packages_import_only_the_base_layer(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    assert upward(tree) == [], (
        f"{path.relative_to(ROOT)} imports above the base layer ({', '.join(sorted(BASE_LAYER))})"
    )


CLI_FRAMEWORKS = ("typer", "click")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_lower_packages_hold_no_command_line_code(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    frameworks = [
        f"line {line}: {module}" for line, module in imported_modules(tree) if module.split(".")[0] in CLI_FRAMEWORKS
    ]
    assert frameworks == [], f"{path.relative_to(ROOT)} is command-line code: it belongs in planner/cli/"


EVERY_MODULE = sorted(path for folder in ("planner", "tests", "benchmarks") for path in (ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("path", EVERY_MODULE, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_imports_the_top_level_names(path: Path) -> None:
    """Every import says planner.pricing / planner.measure: one name per module, so a class is
    never loaded twice under two names (two pydantic classes that do not match each other)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top_level = [
        f"line {line}: {module}"
        for line, module in imported_modules(tree)
        if module.split(".")[0] in ("pricing", "measure")
    ]
    assert top_level == [], f"{path.relative_to(ROOT)} imports {top_level}"
