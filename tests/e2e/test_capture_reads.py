"""Reads of captured data right after the page acted, through the real MCP client, bridge and extension in
Chromium: `observe network`/`logs` and `generate har` have what the page did a moment ago (the tab hands
over its buffered capture first: capture.flush), the HAR is the tab's current page only, mocked and blocked
requests say so in it, and reads that need the page's script on a page closed to extensions answer
`not_supported`."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.support.har_schema import validate_har
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

FETCH = "(url) => fetch(url).then((r) => r.text())"


async def show(app: App, tab: Any, site: FixtureSite, path: str) -> None:
    """Load `path` in the test's tab and wait until the extension's commands go to that tab."""
    url = site.url(path)
    await tab.goto(url)

    async def targeted() -> bool:
        return bool((await app.link.request("tabs.resolve", {}, timeout_s=5))["url"] == url)

    await until(targeted, timeout=10, what=f"commands to go to the tab showing {path}")


async def har_of(mcp: StdioMcp, **args: Any) -> dict[str, Any]:
    answer = await mcp.ok("generate", {"type": "har", **args})
    har: dict[str, Any] = json.loads(Path(answer["path"]).read_text(encoding="utf-8"))
    validate_har(har)
    assert answer["entries"] == len(har["log"]["entries"])
    return har


def urls(har: dict[str, Any]) -> list[str]:
    return [e["request"]["url"] for e in har["log"]["entries"]]


async def test_a_request_and_a_console_line_are_in_the_read_asked_right_after_them(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/index.html")
    for _ in range(3):  # each time: the page's capture waits up to ~150 ms before it sends on its own
        tag = f"now-{secrets.token_hex(4)}"
        await tab.evaluate(FETCH, f"/api/json?tag={tag}")
        found = await mcp.ok("observe", {"what": "network", "url_filter": f"tag={tag}"})
        assert [(e["method"], e["status"]) for e in found["entries"]] == [("GET", 200)], found
        await tab.evaluate("(text) => console.log(text)", tag)
        logs = await mcp.ok("observe", {"what": "logs"})
        assert tag in [e["text"] for e in logs["entries"]], logs


async def test_execute_js_fetch_then_observe_network_at_once_lists_the_request(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await show(e2e_app, tab, site, "/index.html")
    # The script's answer comes by the debugger, the page's note that it holds the request by messaging.
    for _ in range(10):
        tag = f"js-{secrets.token_hex(4)}"
        script = f"const r = await fetch('/api/json?tag={tag}'); return r.status"
        assert (await mcp.ok("interact", {"action": "execute_js", "script": script}))["result"] == 200
        found = await mcp.ok("observe", {"what": "network", "url_filter": f"tag={tag}"})
        assert [e["status"] for e in found["entries"]] == [200], found


async def test_the_har_is_the_current_page_with_the_request_it_just_made(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/evidence.html")
    await until(lambda: tab.evaluate("window.done"), timeout=10, what="the evidence page's API calls")

    async def earlier_page_captured() -> bool:
        found = await mcp.ok("observe", {"what": "network", "url_filter": "evidence"})
        return len(found["entries"]) >= 4

    await until(earlier_page_captured, what="the earlier page's requests in the capture")

    await show(e2e_app, tab, site, "/second.html")
    tag = f"har-{secrets.token_hex(4)}"
    await tab.evaluate(FETCH, f"/api/json?tag={tag}")
    har = await har_of(mcp)
    listed = urls(har)
    assert listed[0] == site.url("/second.html"), "the current page's document first"
    assert site.url(f"/api/json?tag={tag}") in listed, "the request made just before the call"
    assert not [u for u in listed if "evidence" in u], "nothing of the page the tab showed before"
    started = har["log"]["pages"][0]["startedDateTime"]
    assert all(e["startedDateTime"] >= started for e in har["log"]["entries"])
    # observe network keeps the tab's earlier pages (each entry has its URL; since_cursor reads what is new).
    kept = await mcp.ok("observe", {"what": "network", "url_filter": "evidence"})
    assert kept["entries"]


async def test_a_page_too_busy_to_hand_over_its_capture_does_not_stall_a_read(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await show(e2e_app, tab, site, "/index.html")
    # The page logs all the time, so its capture always holds something the worker knows of ...
    await tab.evaluate("() => { window.ticker = setInterval(() => console.log('tick'), 5); }")

    async def ticking() -> bool:
        return "tick" in [e["text"] for e in (await mcp.ok("observe", {"what": "logs", "limit": 5}))["entries"]]

    await until(ticking, what="the page's ticks in the capture")
    # ... then its main thread is busy for 4 s: the capture cannot hand anything over meanwhile.
    await tab.evaluate(
        "() => setTimeout(() => { window.busyFrom = Date.now(); const end = window.busyFrom + 4000;"
        " while (Date.now() < end); window.busyTo = Date.now(); clearInterval(window.ticker); }, 0)"
    )
    asked = time.time() * 1000
    await mcp.ok("observe", {"what": "logs", "limit": 5})
    answered = time.time() * 1000
    busy_from, busy_to = await tab.evaluate("[window.busyFrom, window.busyTo]")
    assert busy_from <= asked and answered < busy_to, "the read was answered while the page was busy"
    assert answered - asked < 1500, "the page gets 0.5 s at most"


async def test_mocked_and_blocked_requests_say_so_in_the_har(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    try:
        await mcp.ok("configure", {"action": "mock_route", "url": "**/api/items*", "body": '{"items": ["fake"]}'})
        await show(e2e_app, tab, site, "/mockapp.html?visit=har-mock")
        await until(lambda: tab.evaluate("document.getElementById('status').textContent !== 'loading'"))
        (mocked,) = [e for e in (await har_of(mcp, url_filter="/api/items"))["log"]["entries"]]
        assert mocked["_mocked"] is True and mocked["_route"] == "**/api/items*" and "_blocked" not in mocked

        await mcp.ok("configure", {"action": "clear_routes"})
        await mcp.ok("configure", {"action": "block_urls", "patterns": ["**/api/items*"]})
        await show(e2e_app, tab, site, "/mockapp.html?visit=har-block")
        await until(lambda: tab.evaluate("document.getElementById('status').textContent.startsWith('failed')"))
        (blocked,) = [e for e in (await har_of(mcp, url_filter="/api/items"))["log"]["entries"]]
        assert blocked["_blocked"] is True and blocked["_route"] == "**/api/items*"
        assert blocked["response"]["status"] == 0 and blocked["_error"]
    finally:
        await mcp.ok("configure", {"action": "clear_routes"})


async def test_performance_on_a_blank_new_tab_is_not_supported_and_its_injection_check_is_clean(
    mcp: StdioMcp, tab: Any
) -> None:
    blank = await tab.context.new_page()  # about:blank: Chrome keeps extensions' scripts out of it
    try:
        await blank.bring_to_front()
        blank_id = await until(lambda: _active_blank(mcp), timeout=10, what="the blank tab in front")
        refused = await mcp.error("observe", {"what": "performance", "tab_id": blank_id})
        assert refused["error"] == "not_supported", refused
        assert "about:blank" in refused["message"] and "Navigate the tab to a web page" in refused["message"]
        # Nothing on it, so nothing planted on it either.
        scan = await mcp.ok("observe", {"what": "injection_check", "tab_id": blank_id})
        assert scan["url"] == "about:blank" and scan["verdict"] == "clean" and scan["findings"] == []
    finally:
        await blank.close()


async def _active_blank(mcp: StdioMcp) -> int | None:
    tabs = (await mcp.ok("observe", {"what": "tabs"}))["tabs"]
    return next((t["tab_id"] for t in tabs if t["active"] and t["url"] == "about:blank"), None)
