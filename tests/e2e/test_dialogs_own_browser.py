"""Dialogs in the person's own browser (issue 10, item 4): Chromium started as a plain program with the
unpacked extension, paired through the popup with a code, and no Playwright anywhere near its pages
(tests/support/plain_chromium.py) — so nothing but the browser and the extension meets a page's dialog,
as in the person's Chrome. An alert used to freeze such a tab until a person clicked OK (every call then
timed out); here a trusted click raises each kind, it is reported at once, answered by the agent (or by
an armed answer), and the tab goes on working."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tabpilot.app import App
from tabpilot.engine.errors import TabpilotError
from tests.conftest import AppFactory
from tests.support.plain_chromium import PlainChromium, Popup
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e]


async def says(popup: Popup, selector: str, text: str) -> bool:
    return await popup.text(selector) == text


async def pair(app: App, popup: Popup) -> None:
    """What the person does: the app's port into the popup, then the code the app shows."""
    assert app.bridge is not None
    await popup.submit("#portform", "#port", str(app.bridge.port))
    await until(lambda: says(popup, "#link", "not paired"), timeout=15, what="the popup to say not paired")
    [pending] = await until(app.pairings.pending, timeout=15, what="the pairing code")
    await popup.submit("#pairform", "#code", pending.code)
    await until(lambda: app.link.connected, timeout=15, what="the person's browser to pair and connect")
    assert app.link.info()["managed"] is False


async def tab_showing(app: App, url: str) -> int | None:
    tabs = (await app.engine.call("observe", {"what": "tabs"}))["tabs"]
    return next((t["tab_id"] for t in tabs if t["url"] == url), None)


async def text_of(app: App, tab_id: int, selector: str) -> str:
    found = await app.engine.call("observe", {"what": "dom", "selector": selector, "tab_id": tab_id})
    return str(found["matches"][0]["text"])


async def test_in_your_own_browser_a_dialog_is_reported_answered_and_never_freezes_the_tab(
    make_app: AppFactory, tmp_path: Path
) -> None:
    site = FixtureSite()
    await site.start()
    app = await make_app(browser="none", pilot=True)
    chrome = PlainChromium(tmp_path / "my-chrome")
    try:
        await chrome.start()
        await pair(app, await chrome.popup())
        url = site.url("/dialogs.html")
        await chrome.open_tab(url)
        tab_id = await until(lambda: tab_showing(app, url), timeout=10, what="the person's tab")

        async def act(**args: Any) -> dict[str, Any]:
            return await app.engine.call("interact", {**args, "tab_id": tab_id})

        # A confirm raised by a trusted click: reported in the click's answer, not a timeout.
        started = time.monotonic()
        clicked = await act(action="click", selector="#confirm")
        assert time.monotonic() - started < 5
        assert clicked["clicked"] is True
        assert (clicked["dialog"]["type"], clicked["dialog"]["message"]) == ("confirm", "Delete item 7?")

        # While it is open, every call on the tab answers dialog_open at once.
        started = time.monotonic()
        with pytest.raises(TabpilotError) as err:
            await app.engine.call("observe", {"what": "page", "tab_id": tab_id})
        assert time.monotonic() - started < 1.5
        assert err.value.code == "dialog_open"
        assert (err.value.details["type"], err.value.details["dialog_message"]) == ("confirm", "Delete item 7?")
        listed = await app.engine.call("observe", {"what": "dialogs"})
        assert [d["message"] for d in listed["open"]] == ["Delete item 7?"]

        await act(action="handle_dialog", accept=False)
        assert await text_of(app, tab_id, "#confirmed") == "kept"

        # An armed answer: the next confirm is accepted at once.
        await act(action="handle_dialog", accept=True)
        clicked = await act(action="click", selector="#confirm")
        assert (clicked["dialog"]["by"], clicked["dialog"]["accepted"]) == ("armed", True)
        assert await text_of(app, tab_id, "#confirmed") == "deleted"

        # An alert and a prompt (with the agent's text).
        clicked = await act(action="click", selector="#alert")
        assert clicked["dialog"]["type"] == "alert"
        await act(action="handle_dialog", accept=True)
        assert await text_of(app, tab_id, "#alerted") == "closed"
        clicked = await act(action="click", selector="#prompt")
        assert clicked["dialog"]["default_prompt"] == "item 7"
        await act(action="handle_dialog", accept=True, prompt_text="Winter coat")
        assert await text_of(app, tab_id, "#prompted") == "Winter coat"

        # A beforeunload guard holds a navigation until it is answered.
        await act(action="click", selector="#guard")
        went = await act(action="navigate", url=site.url("/second.html"), timeout_ms=8000)
        assert went["dialog"]["type"] == "beforeunload", went
        await act(action="handle_dialog", accept=True)
        await until(lambda: tab_showing(app, site.url("/second.html")), timeout=10, what="the tab to leave")

        page = await app.engine.call("observe", {"what": "page", "tab_id": tab_id})  # never left frozen
        assert page["url"] == site.url("/second.html")
        recent = (await app.engine.call("observe", {"what": "dialogs"}))["recent"]
        assert [d["by"] for d in recent][:5] == ["agent", "agent", "agent", "armed", "agent"]

        # Chrome holds a page's tasks back after an input until its next frame (the managed browser turns
        # that off); a click's answer here still tells what its handler queued for the next task.
        await act(
            action="execute_js",
            script="""document.querySelector('h1').addEventListener('click', (e) => {
              if (!e.isTrusted) return;
              setTimeout(() => {
                const p = document.createElement('p'); p.textContent = 'Done in the next task';
                document.body.appendChild(p);
              }, 0);
            }); 1""",
        )
        clicked = await act(action="click", selector="h1")
        assert clicked["changed"] == "+1 element, text 'Done in the next task' appeared"
    finally:
        await chrome.close()
        await site.stop()
