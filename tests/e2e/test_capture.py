"""Capture end to end: a page logs, throws, rejects, fetches, uses XHR and a WebSocket; everything comes back
through `observe` over MCP with the right fields, limits, filters and cursors. Bodies only once the user
enables them; sensitive headers never; the page's own behaviour unchanged. Real Chromium, real extension."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import resource
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from tabpilot.app import App
from tabpilot.engine.errors import TabpilotError
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import STRICT_CSP, FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

SECRETS = ("SECRET-AUTH-123", "SECRET-KEY-456", "SECRET-SESSION-789")
SENSITIVE_NAMES = {"authorization", "x-api-key", "x-session-token", "cookie", "set-cookie"}
ALL_KINDS = ("logs", "errors", "network", "network_bodies", "websocket_events")


async def observe(mcp: StdioMcp, what: str, **args: Any) -> dict[str, Any]:
    return await mcp.ok("observe", {"what": what, **args})


async def entries(mcp: StdioMcp, what: str, **args: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = (await observe(mcp, what, limit=1000, **args))["entries"]
    return found


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:16]


@pytest_asyncio.fixture(loop_scope="session")
async def capture_page(tab: Any, site: FixtureSite) -> AsyncIterator[Any]:
    """The capture fixture page in the test's tab, once it has done everything it does on load."""
    await tab.goto(site.url("/capture.html"))
    await until(lambda: tab.evaluate("window.results.done === true"), timeout=15, what="the capture page's run")
    yield tab


@pytest_asyncio.fixture(loop_scope="session")
async def bodies_on(e2e_app: App) -> AsyncIterator[None]:
    """The human switches on capturing network bodies (the tray toggle); off again afterwards."""
    e2e_app.engine.pilot.set_capability("capture_network_bodies", True)
    yield
    e2e_app.engine.pilot.set_capability("capture_network_bodies", False)


async def page_follows(app: App, tab_id: int, bodies: bool) -> bool:
    """The tab's page side confirmed it applies the toggle (it reports what it follows)."""
    for tab in app.capture_status()["tabs"]:
        if tab["tab_id"] == tab_id and tab["page_settings"] == {"websockets": True, "bodies": bodies}:
            return True
    return False


async def test_console_lines_come_back_with_level_text_args_source_and_stack(
    mcp: StdioMcp, capture_page: Any, site: FixtureSite
) -> None:
    page_url = site.url("/capture.html")

    async def lines() -> list[dict[str, Any]]:
        return [e for e in await entries(mcp, "logs") if e.get("page") == page_url]

    logs = await until(lambda: _at_least(lines(), 8), what="the page's 8 console lines")
    assert [(e["level"], e["text"]) for e in logs][::-1][:6] == [
        ("log", 'plain log 42 {"a":1,"nested":{"b":[1,2,3]}}'),
        ("info", "info line"),
        ("warn", "warn line"),
        ("error", logs[4]["text"]),
        ("debug", "debug line"),
        ("log", "cart has 3 items"),
    ]
    plain = logs[-1]
    assert plain["args"] == ["plain log", 42, {"a": 1, "nested": {"b": [1, 2, 3]}}]
    assert plain["source"].startswith(page_url + ":") and "stack" not in plain
    assert plain["ts"].endswith("Z") and plain["tab_id"] == (await observe(mcp, "logs"))["tab_id"]
    error = logs[4]
    assert error["text"].startswith("error line ") and error["args"][1]["message"] == "logged error"
    assert "runLogs" in error["stack"] and "chrome-extension://" not in error["stack"]
    cyclic, guarded = logs[1], logs[0]
    assert cyclic["args"][1] == {"name": "loop", "self": "[Circular]"}
    assert guarded["args"][1] == {"secret": "[Getter]"}
    assert await capture_page.evaluate("window.results.getterCalled") is None, "capture never calls page getters"

    warnings = await observe(mcp, "logs", level="warn")
    assert [e["level"] for e in warnings["entries"] if e.get("page") == page_url] == ["error", "warn"]
    newest = await observe(mcp, "logs", limit=2)
    assert newest["count"] == 2 and newest["more"] is True and newest["entries"] == logs[:2]


async def test_uncaught_errors_and_rejections_with_message_stack_and_location(
    mcp: StdioMcp, capture_page: Any, site: FixtureSite
) -> None:
    errors = await until(lambda: _at_least(entries(mcp, "errors"), 2), what="the thrown error and the rejection")
    by_type = {e["type"]: e for e in errors}
    thrown, rejected = by_type["error"], by_type["unhandledrejection"]
    assert thrown["message"] == "Uncaught Error: thrown on purpose"
    assert (thrown["url"], thrown["line"]) == (site.url("/capture.html"), 39) and thrown["column"] > 0
    assert "Error: thrown on purpose" in thrown["stack"]
    assert rejected["message"] == "Error: rejected on purpose"
    assert "runErrors" in rejected["stack"] and rejected["url"] == site.url("/capture.html")
    assert all(e["page"] == site.url("/capture.html") for e in errors)


async def test_fetch_xhr_and_resources_with_status_timing_sizes_and_filters(mcp: StdioMcp, capture_page: Any) -> None:
    async def first_requests() -> list[dict[str, Any]]:
        return await entries(mcp, "network", url_filter="tag=first")

    requests = await until(lambda: _at_least(first_requests(), 10), what="the page's ten requests")
    assert len(requests) == 10
    by_url = {e["url"].split("/api/")[1]: e for e in requests}
    json_call = by_url["json?tag=first"]
    assert (json_call["source"], json_call["method"], json_call["status"], json_call["ok"]) == (
        "fetch",
        "GET",
        200,
        True,
    )
    assert json_call["content_type"].startswith("application/json") and json_call["duration_ms"] >= 0
    assert by_url["binary?tag=first"]["response_size"] == 2048
    assert by_url["big?tag=first"]["response_size"] == 20_000
    posted = by_url["echo-body?tag=first"]
    assert (posted["method"], posted["request_size"]) == ("POST", len('{"name":"Alice","pad":""}') + 9000)
    assert by_url["fail?tag=first"]["status"] == 500 and by_url["fail?tag=first"]["ok"] is False
    assert by_url["fail?tag=first&via=xhr"]["source"] == "xhr"

    failures = await entries(mcp, "network", url_filter="tag=first", status_min=500)
    assert sorted(e["source"] for e in failures) == ["fetch", "xhr"]
    ok = await entries(mcp, "network", url_filter="tag=first", status_min=200, status_max=299)
    assert len(ok) == 8
    posts = await entries(mcp, "network", url_filter="tag=first", method="post")
    assert [e["url"].rsplit("/", 1)[1] for e in posts] == ["echo-body?tag=first"]
    xhrs = await entries(mcp, "network", url_filter="via=xhr")
    assert len(xhrs) == 3 and all(e["source"] == "xhr" for e in xhrs)

    pixel = [e for e in await entries(mcp, "network", url_filter="pixel.png") if e["source"] == "resource"]
    assert pixel and pixel[0]["initiator"] == "img" and pixel[0]["status"] == 200


async def test_websocket_lifecycle_messages_binary_and_truncation(mcp: StdioMcp, capture_page: Any) -> None:
    async def closed() -> list[dict[str, Any]]:
        events = await entries(mcp, "websocket_events", url_filter="/ws/echo")
        return events if any(e["event"] == "close" for e in events) else []

    events = await until(closed, what="the WebSocket's whole life")
    connection = events[0]["connection_id"]
    assert all(e["connection_id"] == e["id"] == connection for e in events)
    assert [e["event"] for e in events if "direction" not in e][::-1] == ["connecting", "open", "close"]
    close = events[0]
    assert (close["code"], close["was_clean"]) == (1000, True) and close["reason"] == ""  # the server's close frame

    outgoing = await entries(mcp, "websocket_events", connection_id=connection, direction="outgoing")
    incoming = await entries(mcp, "websocket_events", connection_id=connection, direction="incoming")
    for sent in (outgoing[::-1], incoming[::-1]):
        hello, binary, big, ping = sent
        assert (hello["data"], hello["size"]) == ("hello", 5) and "truncated" not in hello
        assert (binary["data"], binary["size"], binary["binary"]) == ("[Binary: 5 bytes]", 5, True)
        assert big["data"] == "z" * 4096 and big["size"] == 5000 and big["truncated"] is True
        assert ping["data"] == '{"type":"ping"}'
    assert await entries(mcp, "websocket_events", connection_id="nope") == []

    results = await capture_page.evaluate("window.results")
    assert results["instanceofOk"] is True and results["constantsOk"] is True
    assert results["onmessage"] == 4 and results["listener"] == 4, "the page's own handlers all fired"
    assert results["received"] == ["text:5", "binary:5", "text:5000", "text:15"]


async def test_twenty_connections_are_followed_and_a_21st_evicts_the_oldest(mcp: StdioMcp, tab: Any) -> None:
    await tab.evaluate(
        """async () => {
            const open = (i) => new Promise((r) => {
                const ws = new WebSocket(`ws://${location.host}/ws/echo?n=${i}`);
                ws.onopen = () => r(ws);
            });
            window.sockets = [];
            for (let i = 0; i < 21; i++) window.sockets.push(await open(i));
            window.sockets[0].send("sent after eviction");
            window.sockets[20].send("sent by the newest");
        }"""
    )

    async def newest_echoed() -> list[dict[str, Any]]:
        events = await entries(mcp, "websocket_events", url_filter="/ws/echo?n=")
        return (
            events
            if any(e.get("data") == "sent by the newest" and e["direction"] == "incoming" for e in events)
            else []
        )

    events = await until(newest_echoed, what="the 21st connection's echo")
    evicted = [e for e in events if e["event"] == "evicted"]
    assert len(evicted) == 1 and evicted[0]["url"].endswith("/ws/echo?n=0")
    assert not any(e.get("data") == "sent after eviction" for e in events), "an evicted connection is not followed"
    assert len({e["connection_id"] for e in events}) == 21
    await tab.evaluate("window.sockets.forEach((ws) => ws.close())")


async def test_since_cursor_returns_exactly_what_came_after(mcp: StdioMcp, tab: Any) -> None:
    start = (await observe(mcp, "logs"))["cursor"]
    await tab.evaluate("for (let i = 0; i < 7; i++) console.log('step', i)")

    async def read_all() -> list[str]:
        seen, cursor = [], start
        while True:
            answer = await observe(mcp, "logs", since_cursor=cursor, limit=3)
            seen.extend(e["text"] for e in reversed(answer["entries"]))
            cursor = answer["cursor"]
            if not answer["more"]:
                return seen

    await until(lambda: _count_is(read_all(), 7), what="seven new lines")
    assert await read_all() == [f"step {i}" for i in range(7)]
    end = (await observe(mcp, "logs"))["cursor"]
    await tab.evaluate("console.info('one more')")
    later = await until(lambda: _entries_after(mcp, end), what="the line after the last cursor")
    assert [e["text"] for e in later] == ["one more"]


async def test_bodies_stay_absent_until_the_user_enables_them_and_never_hold_secrets(
    mcp: StdioMcp, capture_page: Any, e2e_app: App, bodies_on: None
) -> None:
    # The fixture switched bodies on after the page's first requests: none of those has a body.
    tab_id = (await observe(mcp, "logs"))["tab_id"]
    await until(lambda: page_follows(e2e_app, tab_id, bodies=True), what="the page to follow the new toggle")
    assert await entries(mcp, "network_bodies", url_filter="tag=first") == []
    results = await capture_page.evaluate("runRequests('second')")

    bodies = await until(
        lambda: _at_least(entries(mcp, "network_bodies", url_filter="tag=second"), 10), what="ten bodies"
    )
    by_url = {e["url"].split("/api/")[1]: e for e in bodies}
    assert json.loads(by_url["json?tag=second"]["responseBody"]) == {
        "user": "alice",
        "items": [1, 2, 3],
        "tag": "second",
    }
    assert by_url["json?tag=second"]["contentType"].startswith("application/json")
    assert by_url["text?tag=second"]["responseBody"] == "plain text answer"
    assert by_url["binary?tag=second"]["responseBody"] == "[Binary: 2048 bytes, application/octet-stream]"
    assert json.loads(by_url["fail?tag=second"]["responseBody"]) == {"error": "server exploded"}
    big = by_url["big?tag=second"]
    assert big["responseBody"] == "b" * 16 * 1024 and big["responseTruncated"] is True and big["truncated"] is True
    posted = by_url["echo-body?tag=second"]
    assert len(posted["requestBody"]) == 8 * 1024 and posted["requestTruncated"] is True
    assert posted["requestBody"].startswith('{"name":"Alice"') and posted["requestHeaders"] == {
        "content-type": "application/json"
    }
    for url in ("echo-headers?tag=second", "echo-headers?tag=second&via=xhr"):
        assert by_url[url]["requestHeaders"] == {"x-trace": "visible-trace"}
        assert by_url[url]["responseHeaders"]["content-type"].startswith("application/json")
    assert json.loads(by_url["json?tag=second&via=xhr"]["responseBody"])["tag"] == "second"
    failures = await entries(mcp, "network_bodies", url_filter="tag=second", status_min=500)
    assert len(failures) == 2

    # The page's requests themselves were untouched: the secret headers did reach the server.
    for echoed in (results["headers"], results["xhrHeaders"]):
        assert echoed["authorization"] == digest("Bearer SECRET-AUTH-123")
        assert echoed["x-api-key"] == digest("SECRET-KEY-456")
        assert echoed["x-session-token"] == digest("SECRET-SESSION-789")
    assert results["json"]["tag"] == "second" and results["binary"] == 2048 and results["post"] == 9025

    everything = {kind: await observe(mcp, kind, limit=1000) for kind in ALL_KINDS}
    everything["all tabs"] = await mcp.ok("observe", {"what": "network_bodies", "limit": 1000, "tab_id": tab_id})
    text = json.dumps(everything)
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked into observe output"
    for answer in everything.values():
        for entry in answer["entries"]:
            for headers in (entry.get("requestHeaders"), entry.get("responseHeaders")):
                assert not SENSITIVE_NAMES & set(headers or {})

    e2e_app.engine.pilot.set_capability("capture_network_bodies", False)
    off = await observe(mcp, "network_bodies")
    assert off["entries"] == [] and off["capture_enabled"] is False and "Network bodies" in off["note"]


async def test_a_flood_keeps_the_buffers_at_their_sizes_and_the_app_memory_flat(
    mcp: StdioMcp, tab: Any, e2e_app: App
) -> None:
    tab_id = (await observe(mcp, "logs"))["tab_id"]
    rings = None

    async def flood(round_: int) -> None:
        nonlocal rings
        await tab.evaluate(
            """async (round) => {
                for (let i = 0; i < 10000; i++) console.log(`flood ${round} ${i}`);
                const ws = new WebSocket(`ws://${location.host}/ws/sink`);
                await new Promise((r) => (ws.onopen = r));
                for (let i = 0; i < 5000; i++) ws.send(`msg ${round} ${i}`);
                while (ws.bufferedAmount > 0) await new Promise((r) => setTimeout(r, 5));
                ws.close();
            }""",
            round_,
        )
        tab_capture = e2e_app.capture.tabs[tab_id]
        rings = tab_capture.rings

        def arrived() -> bool:
            last_log = tab_capture.rings["logs"].items[-1]["text"]
            ws = [e for e in tab_capture.rings["websocket_events"].items if e.get("direction") == "outgoing"]
            return last_log == f"flood {round_} 9999" and bool(ws) and ws[-1]["data"] == f"msg {round_} 4999"

        await until(arrived, timeout=60, what=f"flood {round_} to arrive")

    await flood(1)
    assert rings is not None
    gc.collect()
    before = _rss_kb()
    logs_received = rings["logs"].received
    for round_ in (2, 3):
        await flood(round_)
    gc.collect()
    grown_mb = (_rss_kb() - before) / 1024
    assert rings["logs"].received - logs_received == 20_000, "no console line was lost on the way"
    assert len(rings["logs"].items) == 1000 and len(rings["websocket_events"].items) == 200
    logs = await entries(mcp, "logs")
    assert [e["text"] for e in logs] == [f"flood 3 {i}" for i in range(9999, 8999, -1)]
    cursors = [e["cursor"] for e in logs]
    assert cursors == list(range(cursors[0], cursors[0] - 1000, -1)), "the newest 1000, none missing"
    messages = await entries(mcp, "websocket_events", direction="outgoing")
    assert [e["data"] for e in messages][:3] == ["msg 3 4999", "msg 3 4998", "msg 3 4997"]
    assert grown_mb < 40, f"the app grew by {grown_mb:.0f} MB over two more floods"


async def test_a11y_audit_finds_exactly_the_known_violations(mcp: StdioMcp, tab: Any, site: FixtureSite) -> None:
    await tab.goto(site.url("/a11y.html"))
    audit = await observe(mcp, "a11y_audit", force_refresh=True)
    assert {v["id"] for v in audit["violations"]} == {"image-alt", "color-contrast", "label"}
    assert audit["url"] == site.url("/a11y.html") and audit["cached"] is False
    assert audit["summary"]["violations"] == 3 and audit["summary"]["passes"] > 0
    by_id = {v["id"]: v for v in audit["violations"]}
    image = by_id["image-alt"]
    assert image["impact"] == "critical" and image["helpUrl"].startswith("https://dequeuniversity.com/rules/axe/")
    assert "wcag2a" in image["wcag"] and "1.1.1" in image["wcag"]
    assert image["nodes"] == [
        {"selector": "#hero", "html": image["nodes"][0]["html"], "failureSummary": image["nodes"][0]["failureSummary"]}
    ]
    assert image["nodes"][0]["html"].startswith('<img id="hero"') and image["nodeCount"] == 1
    assert "alt" in image["nodes"][0]["failureSummary"]
    assert by_id["color-contrast"]["nodes"][0]["selector"] == ".faint" and "1.4.3" in by_id["color-contrast"]["wcag"]
    assert by_id["label"]["nodes"][0]["selector"] == "#email"
    assert all(len(n["html"]) <= 200 for v in audit["violations"] for n in v["nodes"])
    assert "passes" not in audit

    again = await observe(mcp, "a11y_audit")
    assert again["cached"] is True and again["violations"] == audit["violations"]
    scoped = await observe(mcp, "a11y_audit", scope="form", tags=["wcag2a"], include_passes=True)
    assert [v["id"] for v in scoped["violations"]] == ["label"] and scoped["passes"]
    level_a = await observe(mcp, "a11y_audit", tags=["wcag2a"])
    assert {v["id"] for v in level_a["violations"]} == {"image-alt", "label"}
    missing = await mcp.error("observe", {"what": "a11y_audit", "scope": "#nowhere"})
    assert missing["error"] == "element_not_found"


async def test_a11y_audit_works_under_a_strict_csp(mcp: StdioMcp, tab: Any, site: FixtureSite) -> None:
    response = await tab.goto(site.url("/csp-a11y.html"))
    assert response.headers["content-security-policy"] == STRICT_CSP
    audit = await observe(mcp, "a11y_audit")
    assert {v["id"] for v in audit["violations"]} == {"image-alt", "color-contrast", "label"}
    assert all(v["nodes"] and v["nodeCount"] >= 1 for v in audit["violations"])


async def test_a11y_audit_without_axe_says_to_run_bootstrap(
    mcp: StdioMcp, tab: Any, e2e_app: App, site: FixtureSite
) -> None:
    axe = Path(e2e_app.paths.managed_extension) / "lib" / "axe.min.js"
    assert axe.is_file(), "the managed browser's copy of the extension carries lib/"
    await tab.goto(site.url("/a11y.html"))
    hidden = axe.with_name("axe.min.js.hidden")
    axe.rename(hidden)
    try:
        error = await mcp.error("observe", {"what": "a11y_audit", "force_refresh": True})
    finally:
        hidden.rename(axe)
    assert error["error"] == "not_supported" and "scripts/bootstrap" in error["message"]


A11Y_SECRETS = ("SECRET-PW-111", "SECRET-PW-666", "SECRET-PIN-222", "SECRET-TEXT-333", "SECRET-CARD-444")


async def test_a11y_audit_snippets_and_selectors_never_carry_redacted_values_or_text(
    mcp: StdioMcp, tab: Any, e2e_app: App, site: FixtureSite
) -> None:
    await tab.goto(site.url("/a11y-sensitive.html"))
    audit = await observe(mcp, "a11y_audit", force_refresh=True)
    by_id = {v["id"]: v for v in audit["violations"]}
    assert {"label", "color-contrast"} <= set(by_id)
    text = json.dumps(audit)
    assert not [s for s in A11Y_SECRETS if s in text], "no secret anywhere in the answer"
    assert "SECRET-CUSTOM-555" in text, "only the redacted elements are scrubbed"
    labels = by_id["label"]["nodes"]
    snippets = [n["html"] for n in labels]
    assert any(h.startswith('<input type="password" value="[REDACTED]"') for h in snippets), snippets
    assert any('data-private="" value="[REDACTED]"' in h for h in snippets), snippets
    contrast = [n["html"] for n in by_id["color-contrast"]["nodes"]]
    assert '<p class="faint" data-sensitive="">[REDACTED]</p>' in contrast, contrast
    assert any('<span class="sensitive">[REDACTED]</span>' in h for h in contrast), contrast
    # axe tells the two password fields apart by their values; those selectors are replaced by positions,
    # and all selectors still point at the elements, so an agent can act on them.
    assert sum(1 for n in labels if "nth-of-type" in n["selector"]) == 2, [n["selector"] for n in labels]
    for node in labels + by_id["color-contrast"]["nodes"]:
        assert await tab.locator(node["selector"]).count() == 1, node["selector"]

    # The configured list (Settings → "Never read") reaches the page the way dom.query's does: as `redact`.
    tab_id = (await e2e_app.link.request("tabs.resolve", {}, timeout_s=5))["tab_id"]
    redact = ["[[not a selector", ".custom-secret"]  # one the browser cannot parse is skipped, as in dom.query
    custom = await e2e_app.link.request("a11y.audit", {"tab_id": tab_id, "redact": redact}, timeout_s=32)
    custom_text = json.dumps(custom)
    assert "SECRET-CUSTOM-555" not in custom_text and "SECRET-PW-111" not in custom_text, "passwords always"
    assert "SECRET-PIN-222" in custom_text, "a configured list replaces the defaults, as in dom.query"


async def test_a11y_audits_asked_at_once_share_one_axe_run_and_all_succeed(
    mcp: StdioMcp, tab: Any, e2e_app: App, site: FixtureSite
) -> None:
    await tab.goto(site.url("/a11y.html"))
    tab_id = (await e2e_app.link.request("tabs.resolve", {}, timeout_s=5))["tab_id"]

    def direct(**params: Any) -> Any:
        # Straight to the extension: the app's per-tab lock would otherwise queue them.
        return e2e_app.link.request("a11y.audit", {"tab_id": tab_id, **params}, timeout_s=32)

    first, second, level_a = await asyncio.gather(direct(), direct(), direct(tags=["wcag2a"]))
    assert {v["id"] for v in first["violations"]} == {"image-alt", "color-contrast", "label"}
    assert second["violations"] == first["violations"]
    assert {v["id"] for v in level_a["violations"]} == {"image-alt", "label"}, "a different audit waits, then runs"
    over_mcp = await asyncio.gather(*(observe(mcp, "a11y_audit", force_refresh=True) for _ in range(2)))
    assert [a["violations"] for a in over_mcp] == [first["violations"]] * 2


async def test_an_a11y_audit_that_cannot_finish_in_time_answers_timeout_and_the_next_one_joins_it(
    tab: Any, e2e_app: App, site: FixtureSite
) -> None:
    await tab.goto(site.url("/a11y.html"))
    tab_id = (await e2e_app.link.request("tabs.resolve", {}, timeout_s=5))["tab_id"]
    # The page keeps its main thread busy for 5 s, so axe cannot even start before the 2.5 s bound.
    await tab.evaluate(
        "setTimeout(() => { const end = performance.now() + 5000; while (performance.now() < end); }, 0)"
    )
    with pytest.raises(TabpilotError) as slow:
        await e2e_app.link.request("a11y.audit", {"tab_id": tab_id}, timeout_s=3)
    assert slow.value.code == "timeout" and "accessibility audit did not finish" in slow.value.message
    after = await e2e_app.link.request("a11y.audit", {"tab_id": tab_id}, timeout_s=32)
    assert {v["id"] for v in after["violations"]} == {"image-alt", "color-contrast", "label"}


async def _at_least(found: Any, n: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = await found
    return items if len(items) >= n else []


async def _count_is(found: Any, n: int) -> bool:
    return len(await found) == n


async def _entries_after(mcp: StdioMcp, cursor: int) -> list[dict[str, Any]]:
    return (await observe(mcp, "logs", since_cursor=cursor))["entries"]


def _rss_kb() -> int:
    for row in Path("/proc/self/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


BODY_SECRETS = ("BODY-PW-1x", "BODY-TOK-2y", "FORM-PW-3z", "MULTI-PW-4w", "WS-TOKEN-5v")


async def test_credentials_inside_bodies_and_websocket_json_are_redacted(
    mcp: StdioMcp, capture_page: Any, e2e_app: App, bodies_on: None
) -> None:
    """A login's password and an API's session token sit in the body itself, where header stripping never
    looks: JSON, form-encoded and multipart bodies, both ways, and WebSocket JSON keep them out."""
    tab_id = (await observe(mcp, "logs"))["tab_id"]
    await until(lambda: page_follows(e2e_app, tab_id, bodies=True), what="the page to follow the new toggle")
    echoed = await capture_page.evaluate(
        """async () => {
            const json = JSON.stringify({user: "alice", password: "BODY-PW-1x", auth: {session_token: "BODY-TOK-2y"}});
            const a = await (await fetch("/api/echo-back?tag=cred-json", {method: "POST",
                headers: {"Content-Type": "application/json"}, body: json})).text();
            const b = await (await fetch("/api/echo-back?tag=cred-form", {method: "POST",
                headers: {"Content-Type": "application/x-www-form-urlencoded"},
                body: "user=alice&password=FORM-PW-3z"})).text();
            const form = new FormData(); form.append("user", "alice"); form.append("password", "MULTI-PW-4w");
            const c = await (await fetch("/api/echo-back?tag=cred-multi", {method: "POST", body: form})).text();
            await new Promise((resolve) => {
                const ws = new WebSocket(`ws://${location.host}/ws/echo?cred=1`);
                ws.onopen = () => ws.send(JSON.stringify({type: "auth", token: "WS-TOKEN-5v", user: "alice"}));
                ws.onmessage = () => { ws.close(); resolve(); };
            });
            return [a, b, c];
        }"""
    )
    # The page itself got its bodies untouched.
    assert "BODY-PW-1x" in echoed[0] and "FORM-PW-3z" in echoed[1] and "MULTI-PW-4w" in echoed[2]

    bodies = await until(
        lambda: _at_least(entries(mcp, "network_bodies", url_filter="tag=cred-"), 3), what="three bodies"
    )
    frames = await until(
        lambda: _at_least(entries(mcp, "websocket_events", url_filter="cred=1", direction="outgoing"), 1),
        what="the WebSocket message",
    )
    text = json.dumps(bodies) + json.dumps(frames)
    for secret in BODY_SECRETS:
        assert secret not in text, f"{secret} leaked from a captured body"
    assert "[REDACTED]" in text and "alice" in text, "only the credentials go; the rest of the body stays"
