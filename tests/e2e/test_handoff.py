"""Hand-off to the person (issue 10, item 8), in the managed browser with the real extension: the agent
meets a login page, hands the tab to the person, who signs in and presses Resume in the extension's popup;
the agent's command_result then carries a fresh look at the signed-in page. A closed tab ends it."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tabpilot.app import App
from tabpilot.engine.page.handoffs import handoff_book
from tabpilot.resources import extension_id
from tests.e2e.conftest import E2E
from tests.gui.xserver import SCREENSHOTS
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


async def result_of(mcp: StdioMcp, cid: str) -> dict[str, Any]:
    return await mcp.ok("observe", {"what": "command_result", "correlation_id": cid})


async def test_the_person_signs_in_during_a_handoff_and_resume_gives_the_agent_the_page(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    went = await mcp.ok("interact", {"action": "navigate", "url": site.url(f"/account?who={uuid.uuid4().hex[:6]}")})
    assert went["title"] == "Sign in"  # the site wants a person to sign in
    tab_id = (await e2e_app.link.request("tabs.resolve", {}, timeout_s=5))["tab_id"]

    # The person is looking at something else: the extension's popup, in a tab of its own.
    context = e2e_app.managed.context  # type: ignore[union-attr]
    popup = await context.new_page()
    await popup.goto(f"chrome-extension://{extension_id()}/popup/popup.html")
    await popup.bring_to_front()
    assert await popup.locator("#handoffs").is_hidden()

    answer = await mcp.ok("interact", {"action": "handoff", "tab_id": tab_id, "reason": "Please sign in, then Resume"})
    cid = answer["correlation_id"]
    assert answer == {
        "status": "awaiting_user",
        "correlation_id": cid,
        "reason": "Please sign in, then Resume",
        "tab_id": tab_id,
    }
    tabs = (await mcp.ok("observe", {"what": "tabs"}))["tabs"]
    [handed] = [t for t in tabs if t["tab_id"] == tab_id]
    assert handed["active"] is True  # brought to the front
    assert (await result_of(mcp, cid))["status"] == "awaiting_user"

    # The popup tells the person why, with a Resume button.
    await until(popup.locator("#handoffs").is_visible, timeout=5, what="the popup to show the hand-off")
    assert await popup.locator("#handofflist .reason").inner_text() == "Please sign in, then Resume"
    assert await popup.locator("#handofflist .where").inner_text() == "Sign in"
    # What the person sees, kept for a look (artifacts/screenshots/).
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    width, height = await popup.evaluate("[document.body.scrollWidth, document.body.scrollHeight]")
    area = {"x": 0, "y": 0, "width": min(width + 16, 400), "height": height + 16}
    await popup.screenshot(path=str(SCREENSHOTS / "popup-handoff.png"), clip=area)

    # A scripted person signs in, in the tab (the agent never sees the password).
    await tab.fill("#user", "alice")
    await tab.fill("#password", "correct horse battery staple")
    await tab.click("#go")
    await tab.wait_for_url("**/account")
    assert (await result_of(mcp, cid))["status"] == "awaiting_user"  # still the person's turn

    await popup.locator("#handofflist button.resume").click()  # what the person's click on Resume does

    async def resumed() -> dict[str, Any] | None:
        result = await result_of(mcp, cid)
        return result if result.get("status") == "resumed" else None

    final = await until(resumed, timeout=10, what="the hand-off to end with the page")
    assert final["resumed_by"] == "popup" and final["tab_id"] == tab_id and final["reason"] == answer["reason"]
    # A fresh snapshot of the signed-in page (the accessibility tree with refs), not some other look.
    assert "page" not in final and "look_error" not in final, final
    look = final["snapshot"]
    assert look["url"] == site.url("/account") and look["title"] == "Account", look
    assert 'heading "Welcome, alice"' in look["snapshot"], look
    assert "correct horse" not in str(final)
    # The agent carries on where the person left off: its commands work signed in.
    orders = await mcp.ok(
        "interact", {"action": "scrape", "operation": "extract", "selector": "tr.order", "schema": {"id": ".id | text"}}
    )
    assert orders["data"] == [{"id": "A-101"}, {"id": "A-102"}]
    members = await mcp.ok("interact", {"action": "navigate", "url": site.url("/protected")})
    assert members["title"] == "Protected" and await tab.text_content("h1") == "Members only"  # not sent to sign in
    await until(popup.locator("#handoffs").is_hidden, timeout=5, what="the popup to drop the hand-off")
    assert handoff_book(e2e_app.engine).pending() == []
    await popup.close()
    await context.clear_cookies(name="session")  # signed out again: other tests meet the sign-in page


async def test_closing_the_tab_ends_the_handoff_with_tab_closed(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    context = e2e_app.managed.context  # type: ignore[union-attr]
    other = await context.new_page()
    await other.goto(site.url("/login"))
    tab_id = next(
        t["tab_id"] for t in (await mcp.ok("observe", {"what": "tabs"}))["tabs"] if t["url"] == site.url("/login")
    )
    answer = await mcp.ok("interact", {"action": "handoff", "tab_id": tab_id, "reason": "Solve the CAPTCHA"})
    await until(lambda: len(handoff_book(e2e_app.engine).pending()) == 1, timeout=5, what="the hand-off")
    await other.close()
    err = await until(
        lambda: _error_of(mcp, answer["correlation_id"]), timeout=10, what="the closed tab to end the hand-off"
    )
    assert err["error"] == "tab_closed"
    assert handoff_book(e2e_app.engine).pending() == []


async def _error_of(mcp: StdioMcp, cid: str) -> dict[str, Any] | None:
    result = await mcp.call("observe", {"what": "command_result", "correlation_id": cid})
    return result.structured_content if result.is_error else None
