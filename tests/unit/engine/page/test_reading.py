"""The reading helpers' engine side: one bridge operation, the redaction rules sent along, and
across_tabs reading every web page tab with per-tab errors."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine.core import DEFAULT_REDACT
from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeBrowser


async def test_a_read_sends_page_read_with_the_redaction_rules(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine(pilot_on=False)
    browser.replies["page.read"] = {"url": "https://a.test/", "title": "A", "text": "hello"}
    assert (await engine.call("observe", {"what": "text", "selector": "main"}))["text"] == "hello"
    [call] = browser.calls
    assert call.params == {"what": "text", "selector": "main", "max_bytes": 50_000, "redact": list(DEFAULT_REDACT)}


async def test_styles_needs_a_selector(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine(pilot_on=False)
    with pytest.raises(TabpilotError) as caught:
        await engine.call("observe", {"what": "styles"})
    assert caught.value.code == "invalid_params" and "selector" in caught.value.message
    assert browser.calls == []


async def test_across_tabs_reads_each_web_tab_and_keeps_going_past_a_failure(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine(pilot_on=False)
    browser.replies["tabs.list"] = {
        "tabs": [
            {"tab_id": 1, "url": "https://a.test/", "title": "A"},
            {"tab_id": 2, "url": "chrome://settings/", "title": "Settings"},
            {"tab_id": 3, "url": "https://b.test/", "title": "B"},
        ]
    }

    async def read(params: dict[str, Any]) -> dict[str, Any]:
        if params["tab_id"] == 3:
            raise TabpilotError("element_not_found", "No element matches 'h1'.")
        return {"url": "https://a.test/", "title": "A", "text": "from A"}

    browser.replies["page.read"] = read
    answer = await engine.call("observe", {"what": "across_tabs", "read": "text", "selector": "h1"})
    assert answer["count"] == 2 and answer["skipped"] == 1
    first, third = answer["tabs"]
    assert first["tab_id"] == 1 and first["text"] == "from A"
    assert third == {
        "tab_id": 3,
        "url": "https://b.test/",
        "title": "B",
        "error": "element_not_found",
        "message": "No element matches 'h1'.",
    }
    assert sorted(c.params["tab_id"] for c in browser.calls if c.op == "page.read") == [1, 3]
