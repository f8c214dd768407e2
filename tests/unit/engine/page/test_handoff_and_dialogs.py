"""interact handoff (waits for the person: awaiting_user, then Resume gives a fresh look at the page) and
the dialog commands (observe dialogs, interact handle_dialog), with the engine's fakes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.page.handoffs import handoff_book
from tests.support.waiting import until
from tests.unit.fakes import FakeApprovals, FakeBrowser

pytestmark = pytest.mark.asyncio

PAGE = {"url": "https://shop.test/login", "title": "Log in"}


def browser_with_a_tab(browser: FakeBrowser) -> None:
    browser.replies["handoff.start"] = {"tab_id": 12, "url": PAGE["url"], "title": PAGE["title"], "focused": True}
    browser.replies["page.info"] = {**PAGE, "forms": []}
    snapshot = '- heading "Log in"\n- textbox "Email" @e1\n- button "Sign in" @e2'
    browser.replies["dom.snapshot"] = {**PAGE, "tab_id": 12, "document": "d1", "text": snapshot, "refs": 2}
    browser.replies["handoff.end"] = {"ended": True}


async def test_a_handoff_answers_awaiting_user_at_once_and_resume_gives_the_page(
    engine: Engine, browser: FakeBrowser
) -> None:
    browser_with_a_tab(browser)
    seen: list[int] = []
    handoff_book(engine).changed.subscribe(lambda: seen.append(len(handoff_book(engine).pending())))
    answer = await asyncio.wait_for(engine.call("interact", {"action": "handoff", "reason": "Please  log in"}), 2)
    cid = answer["correlation_id"]
    assert answer == {"status": "awaiting_user", "correlation_id": cid, "reason": "Please log in", "tab_id": 12}
    [start] = [c for c in browser.calls if c.op == "handoff.start"]
    assert start.params == {"reason": "Please log in", "correlation_id": cid}
    [waiting] = handoff_book(engine).pending()
    assert (waiting.tab_id, waiting.reason, waiting.url) == (12, "Please log in", PAGE["url"])
    assert seen == [1]

    polled = await engine.call("observe", {"what": "command_result", "correlation_id": cid})
    assert polled == answer

    assert handoff_book(engine).resume(cid, "tray")
    assert not handoff_book(engine).resume(cid, "tray")  # once
    final = await until(lambda: _final(engine, cid), timeout=2, what="the hand-off to end")
    assert final["status"] == "resumed" and final["resumed_by"] == "tray"
    # A fresh look at the page as the person left it: its snapshot, refs and all.
    assert final["snapshot"]["url"] == PAGE["url"]
    assert "@e2" in final["snapshot"]["snapshot"]
    assert handoff_book(engine).pending() == []
    assert seen[-1] == 0
    [end] = [c for c in browser.calls if c.op == "handoff.end"]
    assert end.params == {"correlation_id": cid}  # the tray's Resume clears the popup and the badge
    [look] = [c for c in browser.calls if c.op == "dom.snapshot"]
    assert look.params["tab_id"] == 12


async def _final(engine: Engine, cid: str) -> dict[str, Any] | None:
    result = await engine.call("observe", {"what": "command_result", "correlation_id": cid})
    return result if result.get("status") == "resumed" else None


async def test_resume_from_the_popup_and_a_closed_tab_come_as_events(engine: Engine, browser: FakeBrowser) -> None:
    browser_with_a_tab(browser)
    first = await engine.call("interact", {"action": "handoff", "reason": "solve the CAPTCHA"})
    handoff_book(engine).on_link_event("handoff", {"correlation_id": first["correlation_id"], "action": "resume"})
    final = await until(lambda: _final(engine, first["correlation_id"]), timeout=2, what="resume")
    assert final["resumed_by"] == "popup"
    assert not [c for c in browser.calls if c.op == "handoff.end"]  # the popup ended it there already

    second = await engine.call("interact", {"action": "handoff", "reason": "2FA code"})
    handoff_book(engine).on_link_event("page", {"correlation_id": second["correlation_id"]})  # not ours
    handoff_book(engine).on_link_event("handoff", {"correlation_id": second["correlation_id"], "action": "tab_closed"})
    job = engine.jobs.get(second["correlation_id"])
    assert job is not None
    await until(lambda: job.done, timeout=2, what="the cancelled hand-off to end")
    with pytest.raises(TabpilotError) as err:
        await engine.call("observe", {"what": "command_result", "correlation_id": second["correlation_id"]})
    assert err.value.code == "tab_closed"
    assert handoff_book(engine).pending() == []


async def test_a_handoff_needs_the_pilot_and_a_reason(make_engine: Any, browser: FakeBrowser) -> None:
    browser_with_a_tab(browser)
    off = make_engine(pilot_on=False)
    with pytest.raises(TabpilotError) as err:
        await off.call("interact", {"action": "handoff", "reason": "log in"})
    assert err.value.code == "ai_web_pilot_disabled"
    on = make_engine()
    with pytest.raises(TabpilotError) as err:
        await on.call("interact", {"action": "handoff"})
    assert err.value.code == "invalid_params" and "reason" in err.value.message
    assert not [c for c in browser.calls if c.op == "handoff.start"]


async def test_handle_dialog_is_a_page_change_that_is_approved_and_never_logs_the_prompt_text(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    browser.replies["dialog.handle"] = {"handled": False, "armed": True, "accept": True, "tab_id": 1, "note": "armed"}
    approvals.script = ["allow"]
    events: list[Any] = []
    engine.activity.subscribe(events.append)
    result = await engine.call("interact", {"action": "handle_dialog", "accept": True, "prompt_text": "Winter coat"})
    assert result["armed"] is True
    [asked] = approvals.requests
    assert asked.mode == "handle_dialog"
    [sent] = [c for c in browser.calls if c.op == "dialog.handle"]
    assert sent.params["prompt_text"] == "Winter coat" and sent.params["accept"] is True
    assert all("Winter coat" not in str(e.params) for e in events)


async def test_observe_dialogs_is_a_read(make_engine: Any, browser: FakeBrowser) -> None:
    browser.replies["dialogs.list"] = {"open": [], "armed": [], "recent": [], "policy": {"unanswered": "leave"}}
    off = make_engine(pilot_on=False)  # reads work with the pilot off
    assert (await off.call("observe", {"what": "dialogs"}))["policy"] == {"unanswered": "leave"}
    await off.call("observe", {"what": "dialogs", "tab_id": 4})
    assert [c.params for c in browser.calls if c.op == "dialogs.list"] == [{}, {"tab_id": 4}]
