"""A hot loop run with the small methods it calls written into it: one definition, no call cost.

``inline(loop, callees)`` returns a copy of the function ``loop`` in which every statement that
calls one of ``callees`` by a local name (``f(a, b)`` or ``x = f(a, b)``) is replaced by the
callee's own body. The callee stays the one definition of what it does (tests and other callers
use it as written); the copy is built from its source at import, so the two cannot drift apart.
A CPython call costs a frame, argument binding and a return, several times a short method's own
work: ``planner.sim._engine`` uses this for the four steps its event loop takes per request.

The loop must bind each local name to the method once, as ``name = receiver.method`` (a tuple
assignment will do), with ``receiver`` a plain local name; the inlined body then reads
``receiver`` where the method read ``self``. A callee may only return as its last statement,
takes positional arguments, and defines nothing inside itself; a call in any other place than a
statement of its own is refused. Anything the inliner cannot copy faithfully raises
``InlineError`` at import, so a change that breaks these rules fails every test, not one run.

In the copy, a callee's locals are renamed ``_<method>_<name>`` so they cannot meet the loop's;
an argument that is a plain name is read directly when the callee never assigns that parameter,
any other is evaluated once into the renamed parameter; the globals a callee reads from its own
module are passed to the copy as closure cells. Module constants (upper-case names bound to a
number, ``_P_KEY`` or ``_INF``) are written into the copy as literals: a literal loads faster than
a global, and such names are never rebound. The generated source is kept in ``linecache``
under the copy's file name, so tracebacks and debuggers show the lines that ran, and the function
as written is the copy's ``__wrapped__``.
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect
import linecache
import re
import sys
import textwrap
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class InlineError(Exception):
    """A function or call the inliner cannot copy faithfully."""


def _function_def(func: Callable[..., Any]) -> ast.FunctionDef:
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise InlineError(f"{func.__qualname__} is not a plain function")
    return node


def _stored_names(nodes: Iterable[ast.AST]) -> set[str]:
    return {
        node.id
        for root in nodes
        for node in ast.walk(root)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del)
    }


class _Callee:
    """A method ready to be written into a loop: its checked body and what it reads."""

    def __init__(self, func: Callable[..., Any], name_in_loop: str) -> None:
        self.name = func.__name__
        self.name_in_loop = name_in_loop
        node = _function_def(func)
        where = func.__qualname__
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
            raise InlineError(f"{where}: only plain positional parameters can be inlined")
        body = list(node.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        self.returns: ast.expr | None = None
        if body and isinstance(body[-1], ast.Return):
            last = body.pop()
            assert isinstance(last, ast.Return)
            self.returns = last.value
        checked = [*body, *([self.returns] if self.returns is not None else [])]
        for child in (n for stmt in checked for n in ast.walk(stmt)):
            if isinstance(child, ast.Return):
                raise InlineError(f"{where}: a return before the last statement cannot be inlined")
            if isinstance(
                child,
                ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef | ast.Yield | ast.YieldFrom,
            ):
                raise InlineError(f"{where}: a nested definition or yield cannot be inlined")
            if isinstance(child, ast.Global | ast.Nonlocal | ast.Await):
                raise InlineError(f"{where}: global, nonlocal and await cannot be inlined")
            if isinstance(child, ast.comprehension | ast.NamedExpr):
                raise InlineError(f"{where}: comprehensions and := cannot be inlined (their scope differs)")
        self.body = body
        self.params = [a.arg for a in args.args]
        if not self.params or self.params[0] != "self":
            raise InlineError(f"{where}: only methods (first parameter self) can be inlined")
        statements: list[ast.AST] = list(body)
        if self.returns is not None:
            statements.append(self.returns)
        self.assigned = _stored_names(statements)
        if "self" in self.assigned:
            raise InlineError(f"{where} assigns self")
        self.locals = self.assigned | set(self.params)
        read = {n.id for s in statements for n in ast.walk(s) if isinstance(n, ast.Name)}
        module = sys.modules[func.__module__].__dict__
        self.globals = {name: module[name] for name in read - self.locals if name in module}
        self.constants = _constants(module, self.globals)
        missing = read - self.locals - set(self.globals) - set(vars(builtins))
        if missing:
            raise InlineError(f"{where} reads names it cannot see: {sorted(missing)}")


_CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")


def _constants(module: dict[str, Any], names: Iterable[str]) -> dict[str, int | float]:
    """The module constants among ``names``: upper-case names bound to a number (not a bool)."""
    return {
        name: value
        for name in names
        if _CONSTANT.fullmatch(name)
        and isinstance(value := module.get(name), int | float)
        and not isinstance(value, bool)
        and value == value  # not NaN, which has no literal
    }


class _Rename(ast.NodeTransformer):
    """Renames names (``str``) or puts a number's literal in place of a name that is read."""

    def __init__(self, names: dict[str, str | int | float]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        new = self.names.get(node.id)
        if new is None:
            return node
        if isinstance(new, str):
            return ast.copy_location(ast.Name(id=new, ctx=node.ctx), node)
        if not isinstance(node.ctx, ast.Load):
            raise InlineError(f"line {node.lineno}: the constant {node.id} is assigned")
        return ast.copy_location(ast.Constant(value=new), node)


class _Inliner(ast.NodeTransformer):
    """Replaces statement-level calls of the bound names with the callees' bodies."""

    def __init__(self, bound: dict[str, tuple[str, _Callee]], caller_globals: dict[str, Any]) -> None:
        self.bound = bound
        self.caller_globals = caller_globals
        self.cells: dict[str, Any] = {}  # closure cells: a callee's global not the caller's own
        self.count = dict.fromkeys(bound, 0)

    def _call(self, value: ast.expr | None) -> tuple[str, _Callee, ast.Call] | None:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in self.bound:
            receiver, callee = self.bound[value.func.id]
            return receiver, callee, value
        return None

    def visit_Expr(self, node: ast.Expr) -> Any:
        found = self._call(node.value)
        return self.generic_visit(node) if found is None else self._expand(*found, target=None)

    def visit_Assign(self, node: ast.Assign) -> Any:
        found = self._call(node.value)
        if found is None:
            return self.generic_visit(node)
        if len(node.targets) != 1:
            raise InlineError(f"line {node.lineno}: a chained assignment from an inlined call")
        return self._expand(*found, target=node.targets[0])

    def visit_Call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Name) and node.func.id in self.bound:
            raise InlineError(
                f"line {node.lineno}: {node.func.id}() is inlined only as a statement of its own (f(...) or x = f(...))"
            )
        return self.generic_visit(node)

    def _expand(self, receiver: str, callee: _Callee, call: ast.Call, target: ast.expr | None) -> list[ast.stmt]:
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            raise InlineError(f"line {call.lineno}: {callee.name}() inlined with keyword or starred arguments")
        if len(call.args) != len(callee.params) - 1:
            raise InlineError(f"line {call.lineno}: {callee.name}() takes {len(callee.params) - 1} arguments")
        prefix = f"_{callee.name.strip('_')}_"
        names: dict[str, str | int | float] = {name: prefix + name for name in callee.locals}
        names["self"] = receiver
        names.update(callee.constants)
        for name, value in callee.globals.items():
            if name not in callee.constants and self.caller_globals.get(name, _MISSING) is not value:
                names[name] = cell = f"_g{prefix}{name}"
                self.cells[cell] = value
        statements: list[ast.stmt] = []
        for param, arg in zip(callee.params[1:], call.args, strict=True):
            arg = self.visit(arg)
            if isinstance(arg, ast.Name) and param not in callee.assigned:
                names[param] = arg.id  # read the caller's name itself
            else:
                statements.append(ast.Assign(targets=[ast.Name(id=prefix + param, ctx=ast.Store())], value=arg))
        rename = _Rename(names)
        statements += [rename.visit(s) for s in _copies(callee.body)]
        if callee.returns is not None:
            value = rename.visit(_copies([callee.returns])[0])
            if target is not None:
                statements.append(ast.Assign(targets=[target], value=value))
            elif not isinstance(value, ast.Name | ast.Constant):
                statements.append(ast.Expr(value=value))
        elif target is not None:
            statements.append(ast.Assign(targets=[target], value=ast.Constant(value=None)))
        self.count[callee.name_in_loop] += 1
        return statements or [ast.Pass()]


_MISSING = object()


def _copies(nodes: list[Any]) -> list[Any]:
    return [copy.deepcopy(node) for node in nodes]


def _bindings(node: ast.FunctionDef, names: Iterable[str]) -> dict[str, tuple[str, str]]:
    """Each name's ``receiver.attribute`` binding in the loop (exactly one assignment, required)."""
    found: dict[str, list[tuple[str, str] | None]] = {name: [] for name in names}
    for stmt in ast.walk(node):
        if not isinstance(stmt, ast.Assign):
            continue
        for target in stmt.targets:
            pairs: list[tuple[ast.expr, ast.expr | None]]
            if isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple):
                pairs = list(zip(target.elts, stmt.value.elts, strict=True))
            elif isinstance(target, ast.Tuple):
                pairs = [(elt, None) for elt in target.elts]
            else:
                pairs = [(target, stmt.value)]
            for name_node, value in pairs:
                if isinstance(name_node, ast.Name) and name_node.id in found:
                    binding = None
                    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
                        binding = (value.value.id, value.attr)
                    found[name_node.id].append(binding)
    result: dict[str, tuple[str, str]] = {}
    for name, bindings in found.items():
        if len(bindings) != 1 or bindings[0] is None:
            raise InlineError(f"{name} must be bound once in the loop, as {name} = receiver.method")
        result[name] = bindings[0]
    stored = _stored_names(node.body) | {a.arg for a in node.args.args}
    for name, (receiver, _attribute) in result.items():
        if receiver not in stored:
            raise InlineError(f"{name}'s receiver {receiver} is not a local of the loop")
    return result


def inline(loop: F, callees: dict[str, Callable[..., Any]]) -> F:
    """``loop`` with each statement calling a name of ``callees`` replaced by that method's body.

    ``callees`` maps the loop's local name of each method to the method as defined (for example
    ``{"add": FluidNetwork.add}`` for a loop that binds ``add = network.add``); the loop's binding
    must name the same method. Every call of each name must be inlined, and each must occur.
    """
    node = _function_def(loop)
    node.decorator_list = []
    node.returns = None
    for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
        arg.annotation = None
    bindings = _bindings(node, callees)
    bound: dict[str, tuple[str, _Callee]] = {}
    for name, func in callees.items():
        receiver, attribute = bindings[name]
        if attribute != func.__name__:
            raise InlineError(f"{name} is bound to {receiver}.{attribute}, not to {func.__qualname__}")
        bound[name] = (receiver, _Callee(func, name))
    caller_globals = sys.modules[loop.__module__].__dict__
    inliner = _Inliner(bound, caller_globals)
    node.body = [inliner.visit(stmt) for stmt in node.body]
    node.body = [s for stmt in node.body for s in (stmt if isinstance(stmt, list) else [stmt])]
    loop_locals = _stored_names(node.body) | {a.arg for a in node.args.args}
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    node = _Rename(dict(_constants(caller_globals, read - loop_locals))).visit(node)
    unused = [name for name, count in inliner.count.items() if not count]
    if unused:
        raise InlineError(f"{loop.__qualname__} never calls {unused} as a statement")
    cells = sorted(inliner.cells)
    module = ast.parse(f"def _factory({', '.join(cells)}):\n    return {node.name}\n")
    factory = module.body[0]
    assert isinstance(factory, ast.FunctionDef)
    factory.body.insert(0, node)
    ast.fix_missing_locations(module)
    source = ast.unparse(module) + "\n"
    filename = f"<{loop.__module__}.{loop.__qualname__} with {', '.join(callees)} inlined>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace: dict[str, Any] = {}
    exec(compile(source, filename, "exec"), caller_globals, namespace)  # our own source, rewritten
    made = namespace["_factory"](*(inliner.cells[c] for c in cells))
    made.__module__ = loop.__module__
    made.__qualname__ = loop.__qualname__
    made.__doc__ = loop.__doc__
    made.__wrapped__ = loop
    made.__inlined_source__ = source
    return made  # type: ignore[no-any-return]
