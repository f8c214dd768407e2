"""What the built-in commands send to the browser and give back, through the engine."""

from __future__ import annotations

import base64

import pytest

from tabpilot.engine.artifacts.generate import ATTACHMENTS
from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tests.unit.fakes import FakeBrowser


async def test_tab_id_travels_with_the_request_only_when_given(engine: Engine, browser: FakeBrowser) -> None:
    await engine.call("observe", {"what": "page", "tab_id": 12})
    await engine.call("observe", {"what": "page"})
    assert [c.params for c in browser.calls] == [{"tab_id": 12}, {}]


async def test_dom_sends_the_capped_depth(engine: Engine, browser: FakeBrowser) -> None:
    await engine.call("observe", {"what": "dom", "selector": "ul", "max_depth": 9, "include_children": True})
    assert browser.calls[0].params == {
        "selector": "ul",
        "include_styles": False,
        "include_children": True,
        "max_depth": 5,
        "redact": ["input[type=password]", "[data-sensitive]", "[data-private]", ".sensitive"],
    }


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "file:///etc/passwd", "example.com", "chrome://settings", "http://"]
)
async def test_navigate_only_goes_to_web_urls(engine: Engine, browser: FakeBrowser, url: str) -> None:
    with pytest.raises(TabpilotError) as info:
        await engine.call("interact", {"action": "navigate", "url": url})
    assert info.value.code == "invalid_params"
    assert "absolute http(s) URL" in info.value.message
    assert browser.calls == []


async def test_navigate_passes_its_options(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["tab.navigate"] = {"status": "complete", "url": "https://a.test/", "title": "A"}
    result = await engine.call(
        "interact", {"action": "navigate", "url": "  https://a.test/ ", "wait_until": "domcontentloaded"}
    )
    assert result == {"status": "complete", "url": "https://a.test/", "title": "A"}
    assert browser.calls[0].params == {
        "url": "https://a.test/",
        "wait_until": "domcontentloaded",
        "timeout_ms": 30_000,
    }
    await engine.call("interact", {"action": "navigate", "url": "about:blank"})
    assert browser.calls[1].params["url"] == "about:blank"


async def test_screenshot_attaches_the_image(engine: Engine, browser: FakeBrowser) -> None:
    png = b"\x89PNG fake image"
    browser.replies["tab.screenshot"] = {"data": base64.b64encode(png).decode(), "width": 800, "height": 600}
    result = await engine.call("generate", {"type": "screenshot"})
    assert result["format"] == "png" and result["width"] == 800
    assert result["size_bytes"] == len(png)
    assert result[ATTACHMENTS] == [{"mime_type": "image/png", "data": base64.b64encode(png).decode()}]
    assert "data" not in result


async def test_track_tab_refuses_both_a_tab_and_clear(engine: Engine, browser: FakeBrowser) -> None:
    with pytest.raises(TabpilotError) as info:
        await engine.call("configure", {"action": "track_tab", "tab_id": 3, "clear": True})
    assert info.value.code == "invalid_params"
    assert browser.calls == []
    browser.replies["tabs.track"] = {"tracked": None}
    await engine.call("configure", {"action": "track_tab", "clear": True})
    assert browser.calls[0].params == {"clear": True}
