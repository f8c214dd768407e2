"""Dialogs never hang a tab (issue 10, item 4), in the managed browser: Playwright's own dialog handling is
off there (the managed browser leaves every dialog to the extension), so what answers each alert, confirm,
prompt and beforeunload below is the extension — the agent's handle_dialog, an armed answer, or the
person's policy. The dialogs are raised by trusted clicks (the fixture ignores script clicks) and what
they answered is read back from the page."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

FAST_S = 1.5
"""A call on a tab that shows a dialog answers within this (it used to hang until its timeout)."""


async def open_dialogs_page(app: App, tab: Any, site: FixtureSite) -> str:
    url = site.url("/dialogs.html")
    await tab.goto(url)

    async def targeted() -> bool:
        return (await app.link.request("tabs.resolve", {}, timeout_s=5))["url"] == url

    await until(targeted, timeout=5, what="commands to go to the dialogs page")
    return url


async def shows(tab: Any, selector: str, text: str) -> bool:
    return bool(await tab.text_content(selector) == text)


async def test_a_confirm_raised_by_a_click_is_reported_blocks_nothing_and_is_answered(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    url = await open_dialogs_page(e2e_app, tab, site)
    started = time.monotonic()
    clicked = await mcp.ok("interact", {"action": "click", "selector": "#confirm"})
    assert time.monotonic() - started < 5
    assert clicked["clicked"] is True
    dialog = clicked["dialog"]
    assert (dialog["type"], dialog["message"], dialog["url"], dialog["open"]) == (
        "confirm",
        "Delete item 7?",
        url,
        True,
    )

    # While it is open, any call on the tab says so at once, instead of timing out.
    for tool, args in (
        ("observe", {"what": "page"}),
        ("observe", {"what": "dom", "selector": "h1"}),
        ("interact", {"action": "click", "selector": "#alert"}),
        ("interact", {"action": "execute_js", "script": "1 + 1"}),
    ):
        started = time.monotonic()
        err = await mcp.error(tool, args)
        assert time.monotonic() - started < FAST_S, (tool, args)
        assert err["error"] == "dialog_open", err
        assert (err["type"], err["dialog_message"], err["url"]) == ("confirm", "Delete item 7?", url)
        assert "handle_dialog" in err["message"]

    listed = await mcp.ok("observe", {"what": "dialogs"})
    [open_one] = [d for d in listed["open"] if d["url"] == url]
    assert (open_one["type"], open_one["message"]) == ("confirm", "Delete item 7?")
    assert listed["policy"] == {"unanswered": "leave"}

    answered = await mcp.ok("interact", {"action": "handle_dialog", "accept": True})
    assert answered["handled"] is True
    assert (answered["dialog"]["type"], answered["dialog"]["accepted"]) == ("confirm", True)
    await until(lambda: shows(tab, "#confirmed", "deleted"), timeout=5, what="the page to see OK")
    page = await mcp.ok("observe", {"what": "page"})  # the tab is not left frozen
    assert page["title"] == "Dialogs"
    listed = await mcp.ok("observe", {"what": "dialogs"})
    assert not [d for d in listed["open"] if d["url"] == url]
    assert listed["recent"][0]["by"] == "agent" and listed["recent"][0]["accepted"] is True


async def test_an_alert_and_a_prompt_are_answered_with_the_agents_text(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_dialogs_page(e2e_app, tab, site)
    alerted = await mcp.ok("interact", {"action": "click", "selector": "#alert"})
    assert (alerted["dialog"]["type"], alerted["dialog"]["message"]) == ("alert", "Saved item 7.")
    assert alerted["changed"] == "an alert dialog opened"
    await mcp.ok("interact", {"action": "handle_dialog", "accept": True})
    await until(lambda: shows(tab, "#alerted", "closed"), timeout=5, what="the alert to return")

    prompted = await mcp.ok("interact", {"action": "click", "selector": "#prompt"})
    dialog = prompted["dialog"]
    assert (dialog["type"], dialog["message"], dialog["default_prompt"]) == ("prompt", "New name for item 7?", "item 7")
    answered = await mcp.ok("interact", {"action": "handle_dialog", "accept": True, "prompt_text": "Winter coat"})
    assert "Winter coat" not in str(answered)  # typed text is never echoed
    await until(lambda: shows(tab, "#prompted", "Winter coat"), timeout=5, what="the page to get the prompt's text")

    await mcp.ok("interact", {"action": "click", "selector": "#prompt"})
    await mcp.ok("interact", {"action": "handle_dialog", "accept": False, "prompt_text": "ignored"})
    await until(lambda: shows(tab, "#prompted", "(cancelled)"), timeout=5, what="the prompt to be cancelled")
    listed = await mcp.ok("observe", {"what": "dialogs"})
    assert "Winter coat" not in str(listed) and "ignored" not in str(listed)
    assert await tab.text_content("#untrusted") == "0"


async def test_an_armed_answer_takes_the_next_dialog_at_once(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_dialogs_page(e2e_app, tab, site)
    armed = await mcp.ok("interact", {"action": "handle_dialog", "accept": False})
    assert (armed["handled"], armed["armed"], armed["accept"]) == (False, True, False)
    assert "next" in armed["note"]
    listed = await mcp.ok("observe", {"what": "dialogs"})
    assert [a["accept"] for a in listed["armed"] if a["tab_id"] == armed["tab_id"]] == [False]

    clicked = await mcp.ok("interact", {"action": "click", "selector": "#confirm"})
    assert clicked["clicked"] is True
    assert clicked["dialog"] == {
        "tab_id": armed["tab_id"],
        "type": "confirm",
        "message": "Delete item 7?",
        "url": site.url("/dialogs.html"),
        "accepted": False,
        "by": "armed",
    }
    assert await tab.text_content("#confirmed") == "kept"  # answered before the click's answer came back
    listed = await mcp.ok("observe", {"what": "dialogs"})
    assert not [a for a in listed["armed"] if a["tab_id"] == armed["tab_id"]]  # used once

    # Armed with text, for a prompt raised by a script: the script goes on with the answer.
    await mcp.ok("interact", {"action": "handle_dialog", "accept": True, "prompt_text": "from the agent"})
    ran = await mcp.ok("interact", {"action": "execute_js", "script": "prompt('Your name?')"})
    assert ran["success"] is True and ran["result"] == "from the agent"


async def test_a_script_that_opens_a_confirm_is_reported_and_goes_on_once_answered(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_dialogs_page(e2e_app, tab, site)
    ran = await mcp.ok(
        "interact",
        {"action": "execute_js", "script": "document.title = confirm('Really?') ? 'yes' : 'no'", "timeout_ms": 8000},
    )
    assert ran["success"] is False and ran["dialog"]["type"] == "confirm", ran
    assert "handle_dialog" in ran["error"]
    await mcp.ok("interact", {"action": "handle_dialog", "accept": True})
    await until(lambda: _title_is(tab, "yes"), timeout=5, what="the script to go on")


async def _title_is(tab: Any, title: str) -> bool:
    return bool(await tab.title() == title)


async def test_leaving_a_page_with_a_beforeunload_guard(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_dialogs_page(e2e_app, tab, site)
    await mcp.ok("interact", {"action": "click", "selector": "#guard"})  # a trusted click: the guard may ask
    assert await tab.text_content("#guarded") == "on"
    target = site.url("/second.html")
    went = await mcp.ok("interact", {"action": "navigate", "url": target, "timeout_ms": 8000})
    assert went["status"] == "dialog_open" and went["dialog"]["type"] == "beforeunload", went
    await mcp.ok("interact", {"action": "handle_dialog", "accept": False})  # stay
    page = await mcp.ok("observe", {"what": "page"})
    assert page["url"] == site.url("/dialogs.html")

    went = await mcp.ok("interact", {"action": "navigate", "url": target, "timeout_ms": 8000})
    assert went["dialog"]["type"] == "beforeunload"
    await mcp.ok("interact", {"action": "handle_dialog", "accept": True})  # leave
    await until(lambda: tab.url == target, timeout=10, what="the tab to leave the page")


async def test_the_dismiss_after_policy_answers_what_nobody_did(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    settings = e2e_app.settings
    before = (settings.dialog_policy, settings.dialog_dismiss_after_s)
    new = e2e_app.facade.settings()
    new.dialog_policy, new.dialog_dismiss_after_s = "dismiss", 1
    e2e_app.apply_settings(new)
    try:
        await open_dialogs_page(e2e_app, tab, site)

        async def policy_arrived() -> bool:
            listed = await mcp.ok("observe", {"what": "dialogs"})
            return bool(listed["policy"] == {"unanswered": "dismiss", "after_ms": 1000})

        await until(policy_arrived, timeout=5, what="the extension to get the policy")
        clicked = await mcp.ok("interact", {"action": "click", "selector": "#confirm"})
        assert clicked["dialog"]["open"] is True
        started = time.monotonic()
        await until(lambda: shows(tab, "#confirmed", "kept"), timeout=5, what="the policy to dismiss the confirm")
        assert time.monotonic() - started < 3
        listed = await mcp.ok("observe", {"what": "dialogs"})
        assert listed["recent"][0]["by"] == "policy" and listed["recent"][0]["accepted"] is False
    finally:
        restore = e2e_app.facade.settings()
        restore.dialog_policy, restore.dialog_dismiss_after_s = before
        e2e_app.apply_settings(restore)
