"""The generated reference pages are what the code says today, and the site's navigation lists every page.

The site itself is built by CI (``mkdocs build --strict`` in ``.ci/run``, after the tests): a build takes
seconds but needs the docs dependencies, which the fast tier does not assume.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _generator() -> object:
    spec = importlib.util.spec_from_file_location("generate_reference", DOCS / "generate_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_generated_page_is_current() -> None:
    pages: dict[str, str] = _generator().pages()  # type: ignore[attr-defined]
    stale = [name for name, text in pages.items() if (DOCS / name).read_text(encoding="utf-8") != text]
    assert not stale, f"run python docs/generate_reference.py: {stale} differ from the code"


def test_the_command_reference_names_every_command() -> None:
    from planner.cli import app

    text = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    for command in app.registered_commands:
        name = command.name or (command.callback.__name__ if command.callback else "")
        assert f"## `planner {name}`" in text, name


def test_the_navigation_lists_every_page_and_every_runnable_example() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    listed = set(re.findall(r":\s*(\S+\.md)\s*$", nav, re.MULTILINE))
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert pages == listed
    examples = {f"examples/{p.stem}.md" for p in (ROOT / "examples").glob("*.py") if not p.name.startswith("_")}
    assert examples <= listed, "add each examples/*.py page (python docs/generate_reference.py writes it) to nav"
