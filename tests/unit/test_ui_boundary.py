"""The tray's windows reach the app only through AppFacade (issue 9): no module under ui/ imports the App
or one of the live objects the App and the Engine hold (the link, the engine, the pairing book, the
workflow store, the activity stream, the job table, ...), nor reads a private attribute of another
object (`facade._app.engine`). Values and pure helpers (an ActivityEvent, a Rule, parse_workflow) are
fine: they hold no part of the running app.

The live objects are read from app.py's and engine/core.py's `__init__` (what they assign to `self`),
not listed here, so a part added there is covered at once.

import-linter (pyproject's ui-through-facade contract) says the module-level half: ui/ imports neither the App
nor the engine's core, the agent, the bridge's link or server. It cannot say this test's other half — a value
from a module (ActivityEvent) but not the live object beside it (ActivityStream), nor a private attribute read
— so this test stays.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "desktop" / "tabpilot"
UI = PACKAGE / "ui"
ENTRY_POINT = UI / "main.py"
"""The tray's start: it builds the App and hands `app.facade` to the windows (the one place that may)."""
HOLDERS = {"tabpilot.app": "App", "tabpilot.engine.core": "Engine"}
"""The classes whose `__init__` wires the running app's parts, by module."""
ALLOWED = {"tabpilot.app_facade", "tabpilot.observers"}


def module_file(module: str) -> Path:
    path = PACKAGE.parent / Path(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def imported_names(tree: ast.Module, module: str) -> dict[str, str]:
    """name → the module it comes from, for every `from tabpilot... import name` (TYPE_CHECKING too), and
    the module's own classes and functions."""
    names = {
        node.name: module
        for node in tree.body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tabpilot"):
            names.update({alias.asname or alias.name: node.module for alias in node.names})
    return names


def on_self(target: ast.expr) -> bool:
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


def called(value: ast.expr | None) -> set[str]:
    """The names called anywhere in an expression (what builds the attribute's object)."""
    if value is None:
        return set()
    return {n.func.id for n in ast.walk(value) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def live_parts(module: str, holder: str) -> set[tuple[str, str]]:
    """(module, name) of what `holder.__init__` builds and keeps on `self`: the classes (or factories)
    called in `self.x = ...` (`pilot or PilotState()` too) and the names in `self.x: Annotation`."""
    tree = ast.parse(module_file(module).read_text(encoding="utf-8"))
    origin = imported_names(tree, module)
    [cls] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == holder]
    [init] = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    names: set[str] = {holder}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and any(on_self(t) for t in node.targets):
            names |= called(node.value)
        elif isinstance(node, ast.AnnAssign) and on_self(node.target):
            names |= {n.id for n in ast.walk(node.annotation) if isinstance(n, ast.Name)}
            names |= called(node.value)
    return {(origin[n], n) for n in names if n in origin and origin[n] not in ALLOWED}


def forbidden() -> set[tuple[str, str]]:
    return set().union(*(live_parts(module, holder) for module, holder in HOLDERS.items()))


def problems(tree: ast.Module, parts: set[tuple[str, str]]) -> Iterator[str]:
    part_modules = {module for module, _ in parts}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if node.module == "tabpilot.app" or (node.module, alias.name) in parts:
                    yield f"line {node.lineno}: imports {alias.name} from {node.module}"
                elif f"{node.module}.{alias.name}" in part_modules | {"tabpilot.app"}:
                    yield f"line {node.lineno}: imports the module {node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in part_modules | {"tabpilot.app"}:
                    yield f"line {node.lineno}: imports the module {alias.name}"
        elif isinstance(node, ast.Attribute):
            private = node.attr.startswith("_") and not node.attr.endswith("__")
            if private and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                yield f"line {node.lineno}: reads {node.attr} of another object"


UI_MODULES = sorted(p for p in UI.glob("*.py") if p != ENTRY_POINT)


def test_the_live_parts_are_found() -> None:
    parts = forbidden()
    # A sample, so a change to how app.py wires its parts cannot empty the list unnoticed.
    for part in [
        ("tabpilot.app", "App"),
        ("tabpilot.engine.core", "Engine"),
        ("tabpilot.bridge.link", "ExtensionLink"),
        ("tabpilot.bridge.pairing", "PairingBook"),
        ("tabpilot.engine.events", "ActivityStream"),
        ("tabpilot.engine.safety.pilot", "PilotState"),
    ]:
        assert part in parts


@pytest.mark.parametrize("path", UI_MODULES, ids=lambda p: p.name)
def test_a_window_reaches_the_app_only_through_the_facade(path: Path) -> None:
    found = list(problems(ast.parse(path.read_text(encoding="utf-8")), forbidden()))
    assert not found, f"ui/{path.name} goes around AppFacade: " + "; ".join(found)


def test_going_around_the_facade_is_found() -> None:
    window = """
from tabpilot.app import App
from tabpilot.engine.events import ActivityEvent, ActivityStream
from tabpilot.bridge import link
import tabpilot.engine.core
def show(facade):
    facade._app.engine.pilot
"""
    found = list(problems(ast.parse(window), forbidden()))
    assert [f.split(":")[0] for f in found] == ["line 2", "line 3", "line 4", "line 5", "line 7"], found
