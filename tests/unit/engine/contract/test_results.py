"""Declared results: the docs' shape comes from the declaration, and an answer outside it is named."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

import pytest

from tabpilot.engine.contract.args import NoArgs
from tabpilot.engine.contract.commands import Command
from tabpilot.engine.contract.results import problems, shape
from tabpilot.engine.errors import TabpilotError


class Box(TypedDict):
    width: int
    height: int


class Row(TypedDict):
    name: str
    note: NotRequired[str]


class Page(TypedDict):
    url: str
    box: Box | None
    rows: list[Row]
    more: NotRequired[bool]


def test_the_shape_is_the_declaration() -> None:
    assert shape(Page) == "{url, box:{width, height} | null, rows:[{name, note?}], more?}"


def test_an_answer_outside_its_declaration_is_named() -> None:
    good = {"url": "u", "box": None, "rows": [{"name": "a"}, {"name": "b", "note": "n"}], "_attachments": []}
    assert problems(good, Page) == []
    bad = {"url": "u", "box": {"width": 1}, "rows": [{"name": "a", "extra": 1}], "surprise": True}
    assert problems(bad, Page) == [
        "result has 'surprise', which its declaration does not",
        "result.box lacks 'height'",
        "result.rows[0] has 'extra', which its declaration does not",
    ]
    assert problems([], Page) == ["result is list, not an object"]


async def _answers(ctx: Any, a: NoArgs) -> dict[str, Any]:
    return {"url": "u", "rows": []}


async def test_a_command_answering_outside_its_declaration_fails_under_test(monkeypatch: pytest.MonkeyPatch) -> None:
    command: Command[NoArgs] = Command("observe", "page_x", "read", "x", _answers, returns=Page)
    assert command.result == shape(Page)
    monkeypatch.setenv("TABPILOT_CHECK_RESULTS", "1")
    with pytest.raises(TabpilotError) as wrong:
        await command.run(None, {})  # type: ignore[arg-type]
    assert wrong.value.code == "internal"
    assert "lacks 'box'" in wrong.value.message
    monkeypatch.setenv("TABPILOT_CHECK_RESULTS", "0")
    assert await command.run(None, {}) == {"url": "u", "rows": []}  # type: ignore[arg-type]
