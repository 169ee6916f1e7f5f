"""``planner.sim`` drives SimPy through its public API only: no attribute of SimPy's with a leading underscore
(``env._queue``, ``env._eid``, ``env._now``, an event's ``_ok`` or ``_value``) is read or written, and no event
is made without its constructor, so the store runs on any SimPy release that keeps its public API."""

from __future__ import annotations

import ast
from pathlib import Path

import planner.sim

SIMPY_PRIVATE = {"_queue", "_eid", "_now", "_ok", "_value", "_defused", "_delay", "_target", "_generator"}
SIM = Path(planner.sim.__file__).parent


def _private_uses(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and (node.attr in SIMPY_PRIVATE or node.attr == "__new__"):
            found.append(f"line {node.lineno}: .{node.attr}")
        if isinstance(node, ast.ClassDef):  # an object posing as a SimPy event
            for item in node.body:
                names = [t.id for t in getattr(item, "targets", []) if isinstance(t, ast.Name)]
                names += [
                    e.value for e in getattr(getattr(item, "value", None), "elts", []) if isinstance(e, ast.Constant)
                ]
                found += [f"line {item.lineno}: class {node.name} sets {n}" for n in names if n in SIMPY_PRIVATE]
    return found


def test_the_simulator_uses_no_private_simpy_attribute() -> None:
    found = {path.name: uses for path in sorted(SIM.rglob("*.py")) if (uses := _private_uses(path.read_text()))}
    assert found == {}


def test_the_check_finds_what_it_looks_for() -> None:
    bad = (
        "class E:\n    __slots__ = ('_ok', 'callbacks')\n\ndef f(env):\n    env._queue.append(1)\n    return env._now\n"
    )
    assert sorted(_private_uses(bad)) == ["line 2: class E sets _ok", "line 5: ._queue", "line 6: ._now"]
