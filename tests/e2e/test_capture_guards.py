"""Capture stays out of the page's way: serializing a console argument runs none of the page's code
(getters, planted setters and toJSON, replaced built-ins), sizes are what went over the wire, beacons
are posts, and a binary download is never read ahead of the page. Real Chromium, real extension."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.e2e.test_capture import bodies_on, entries, observe, page_follows
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]
__all__ = ["bodies_on"]  # the fixture, shared with test_capture

# A call counts when capture's scripts made it. Chrome's own console also reads an error's message when a
# DevTools client listens (Playwright drives the browser through one): calls that come through the
# browser's console.log, which capture hands the arguments on to unchanged, are the browser's.
TRICKY_PAGE = """async () => {
    const calls = [];
    const spy = { push: (what) => {
        for (const frame of new Error().stack.split("\\n").slice(3)) {
            if (/at console\\.\\w+ \\(<anonymous>\\)/.test(frame)) return;
            if (frame.includes("chrome-extension://")) return void calls.push(what);
        }
    } };
    const error = new Error("real");
    Object.defineProperty(error, "message", { get() { spy.push("message getter"); return "x"; } });
    const bytes = new Uint8Array(3);
    Object.defineProperty(bytes, "constructor", { get() { spy.push("constructor getter"); return Uint8Array; } });
    const el = document.createElement("div");
    el.id = "real-id";
    Object.defineProperty(el, "id", { get() { spy.push("id getter"); return "fake"; } });
    Object.defineProperty(Object.prototype, "planted", { set(v) { spy.push("setter"); }, configurable: true });
    Object.defineProperty(Object.prototype, "toJSON", {
        get() { spy.push("toJSON"); return undefined; }, configurable: true,
    });
    const hasInstance = () => { spy.push("hasInstance"); return false; };
    Object.defineProperty(Date, Symbol.hasInstance, { value: hasInstance, configurable: true });
    try {
        console.log("tricky", error, bytes, el, { planted: 1 }, new Date(0));
    } finally {
        delete Object.prototype.planted;
        delete Object.prototype.toJSON;
        delete Date[Symbol.hasInstance];
    }
    return calls;
}"""


async def test_serializing_console_arguments_runs_none_of_the_pages_code(
    mcp: StdioMcp, tab: Any, site: FixtureSite
) -> None:
    await tab.goto(site.url("/index.html"))
    assert await tab.evaluate(TRICKY_PAGE) == [], "capture called the page's getters, setters or hooks"

    async def tricky() -> list[dict[str, Any]]:
        return [e for e in await entries(mcp, "logs") if e["text"].startswith("tricky")]

    [line] = await until(tricky, what="the tricky console line")
    _, error, bytes_, element, planted, date = line["args"]
    assert error["name"] == "Error" and error["message"] == "[Getter]" and "Error: real" in error["stack"]
    assert bytes_ == "[Uint8Array(3)]"
    assert element == "<div#real-id>"
    assert planted == {"planted": 1}
    assert date == "1970-01-01T00:00:00.000Z"


async def test_sizes_are_bytes_on_the_wire_and_beacons_are_posts(mcp: StdioMcp, tab: Any, site: FixtureSite) -> None:
    await tab.goto(site.url("/index.html"))
    text = "h\u00e9llo \u20ac\U0001f600"  # 1 + 2 + 1 + 1 + 1 + 1 + 3 + 4 bytes in UTF-8
    await tab.evaluate(
        """async (text) => {
            navigator.sendBeacon("/api/echo-body?tag=beacon", "ping");
            const ws = new WebSocket(`ws://${location.host}/ws/echo?tag=utf8`);
            await new Promise((r) => (ws.onopen = r));
            const echoed = new Promise((r) => (ws.onmessage = (e) => r(e.data)));
            ws.send(text);
            await echoed;
            ws.close();
        }""",
        text,
    )

    async def echoed() -> list[dict[str, Any]]:
        events = await entries(mcp, "websocket_events", url_filter="tag=utf8")
        return [e for e in events if e["event"] == "message"] if len(events) >= 4 else []

    messages = await until(echoed, what="the UTF-8 message and its echo")
    assert sorted(e["direction"] for e in messages) == ["incoming", "outgoing"]
    for message in messages:
        assert message["data"] == text
        assert message["size"] == len(text.encode()) == 14

    beacons = await until(lambda: entries(mcp, "network", url_filter="tag=beacon"), what="the beacon")
    assert [(e["source"], e["initiator"], e["method"]) for e in beacons] == [("resource", "beacon", "POST")]


async def test_a_binary_download_without_a_length_is_not_read_ahead_of_the_page(
    mcp: StdioMcp, tab: Any, site: FixtureSite, e2e_app: App, bodies_on: None
) -> None:
    await tab.goto(site.url("/index.html"))
    tab_id = (await observe(mcp, "logs"))["tab_id"]
    await until(lambda: page_follows(e2e_app, tab_id, bodies=True), what="the page to follow the bodies toggle")
    received = await tab.evaluate("fetch('/api/stream-binary').then((r) => r.arrayBuffer()).then((b) => b.byteLength)")
    assert received == 1024 * 1024, "the page still gets every byte"

    [body] = await until(lambda: entries(mcp, "network_bodies", url_filter="stream-binary"), what="the body entry")
    assert body["responseBody"] == "[Binary: unknown size, application/octet-stream]"
    assert "truncated" not in body
