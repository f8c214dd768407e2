"""A handler's return type is its command's declared result (`Command.returns`).

mypy --strict checks what a handler builds against its return annotation; this test holds that annotation
to the declaration the docs, the help mode and the suites' run-time check (engine/contract/results.py) read, so a
new command cannot answer `dict[str, Any]` (which mypy would not check) or another command's shape.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.commands import Command


def declared_return(handler: Any) -> Any:
    """The handler's return annotation, evaluated in its module (every module postpones annotations)."""
    hint = inspect.get_annotations(handler).get("return")
    if isinstance(hint, str):
        # Only the return annotation: a parameter's may name a type imported under TYPE_CHECKING.
        hint = eval(hint, handler.__globals__)
    return hint


def mismatch(command: Command[Any]) -> str | None:
    """What is wrong with the handler's return annotation, or None."""
    hint = declared_return(command.handler)
    if hint is None:
        return f"{command.name}: its handler {command.handler.__qualname__} has no return annotation"
    if hint is not command.returns:
        wanted = getattr(command.returns, "__name__", command.returns)
        return f"{command.name}: its handler {command.handler.__qualname__} returns {hint!r}, declared {wanted}"
    return None


@pytest.mark.parametrize("command", build_registry().all(), ids=lambda c: c.name)
def test_every_handler_returns_its_declared_result(command: Command[Any]) -> None:
    assert mismatch(command) is None, mismatch(command)


def test_a_handler_typed_as_a_plain_dict_is_named() -> None:
    """The check itself: a handler annotated `dict[str, Any]`, or with another command's result, fails."""
    registry = build_registry()
    page = registry.get("observe.page")
    text = registry.get("observe.text")
    assert page is not None and text is not None

    async def loose(ctx: Any, a: Any) -> dict[str, Any]:
        return {}

    assert mismatch(Command("observe", "page", "read", "x", loose, returns=page.returns)) == (
        "observe.page: its handler test_a_handler_typed_as_a_plain_dict_is_named.<locals>.loose returns "
        "dict[str, typing.Any], declared Page"
    )
    swapped = Command("observe", "text", "read", "x", page.handler, returns=text.returns)
    assert "returns <class 'tabpilot.engine.page.observe.Page'>, declared Text" in str(mismatch(swapped))
