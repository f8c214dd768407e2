"""With the pilot on: navigate and execute_js exactly as the contract says."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


async def test_navigate_returns_the_new_title(mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite) -> None:
    result = await mcp.ok("interact", {"action": "navigate", "url": site.url("/second.html")})
    assert result == {"status": "complete", "url": site.url("/second.html"), "title": "Second Page"}
    # Playwright hears of the tab's navigation through its own driver, which may come after our answer.
    await until(lambda: tab.url == site.url("/second.html"), timeout=5, what="Playwright to see the tab there")


async def test_navigate_refuses_non_web_urls(mcp: StdioMcp, tab: Any, pilot_on: None) -> None:
    for url in ("javascript:alert(1)", "file:///etc/passwd", "chrome://settings", "/relative"):
        err = await mcp.error("interact", {"action": "navigate", "url": url})
        assert err["error"] == "invalid_params", url


async def test_a_navigation_after_one_that_timed_out_is_not_blamed_for_it(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    slow = site.url("/slow?s=3")
    err = await mcp.error("interact", {"action": "navigate", "url": slow, "timeout_ms": 500})
    assert err["error"] == "timeout"
    result = await mcp.ok("interact", {"action": "navigate", "url": site.url("/second.html")})
    assert result == {"status": "complete", "url": site.url("/second.html"), "title": "Second Page"}


async def test_navigating_again_to_an_address_still_loading_waits_for_it(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    slow = site.url("/slow?s=2")
    err = await mcp.error("interact", {"action": "navigate", "url": slow, "timeout_ms": 500})
    assert err["error"] == "timeout"
    result = await mcp.ok("interact", {"action": "navigate", "url": slow, "timeout_ms": 8000})
    assert result == {"status": "complete", "url": slow, "title": "Slow"}


async def test_execute_js_expression_body_and_await(mcp: StdioMcp, tab: Any, pilot_on: None) -> None:
    assert await mcp.ok("interact", {"action": "execute_js", "script": "1 + 1"}) == {
        "success": True,
        "result": 2,
    }
    body = await mcp.ok("interact", {"action": "execute_js", "script": "const a = 20; return a + 1;"})
    assert body == {"success": True, "result": 21}
    fetched = await mcp.ok(
        "interact",
        {
            "action": "execute_js",
            "script": "const r = await fetch('/api/data'); return (await r.json()).items",
        },
    )
    assert fetched == {"success": True, "result": [1, 2, 3]}
    expr = await mcp.ok("interact", {"action": "execute_js", "script": "await Promise.resolve(document.title)"})
    assert expr == {"success": True, "result": "Tabpilot Fixture"}


async def test_a_title_evaluate_answers_in_a_few_compact_bytes(mcp: StdioMcp, tab: Any, pilot_on: None) -> None:
    result = await mcp.call("interact", {"action": "execute_js", "script": "document.title"})
    wire = result.model_dump(by_alias=True, exclude_unset=True, mode="json")
    # What an agent's context pays for: the answer's text, compact JSON with no padding.
    text = "".join(part["text"] for part in wire["content"])
    assert text == '{"success":true,"result":"Tabpilot Fixture"}'
    assert len(text.encode()) <= 150
    # On the wire the contract carries the answer twice (text and structuredContent) in MCP's frame, and
    # nothing more (170 bytes for this title).
    assert set(wire) <= {"content", "structuredContent", "isError"}, wire
    assert len(json.dumps(wire, separators=(",", ":"))) <= 2 * len(text) + 90


async def test_after_the_page_moves_by_itself_the_next_approval_sees_where_it_is(
    mcp: StdioMcp, tab: Any, pilot_on: None, e2e_app: Any, site: FixtureSite
) -> None:
    """Approvals keep the tab's address between calls; the page leaving for another site on its own (a
    timer, no command of ours) is told by the browser, so the next action is approved for where it is now."""
    await mcp.ok("interact", {"action": "execute_js", "script": "1"})
    assert _last_site(e2e_app) == site.url("/").rstrip("/")
    elsewhere = site.url("/index.html?moved=1").replace("127.0.0.1", "localhost")
    await mcp.ok(
        "interact", {"action": "execute_js", "script": f"setTimeout(() => location.assign({elsewhere!r}), 50); 1"}
    )
    await until(lambda: _at(mcp, elsewhere), timeout=10, what="the page to move by itself")
    await mcp.ok("interact", {"action": "execute_js", "script": "2"})
    assert _last_site(e2e_app) == elsewhere.split("/index.html")[0]


def _last_site(app: Any) -> str:
    finished = [e for e in app.engine.activity.recent() if e.phase == "finished" and e.mode == "execute_js"]
    return str(finished[-1].site)


async def _at(mcp: StdioMcp, url: str) -> bool:
    return bool((await mcp.ok("observe", {"what": "page"}))["url"] == url)


async def test_execute_js_errors_come_back_with_a_stack(mcp: StdioMcp, tab: Any, pilot_on: None) -> None:
    thrown = await mcp.ok("interact", {"action": "execute_js", "script": "throw new Error('test')"})
    assert thrown["success"] is False
    assert thrown["error"] == "test"
    assert "Error: test" in thrown["stack"]
    syntax = await mcp.ok("interact", {"action": "execute_js", "script": "let = = 3"})
    assert syntax["success"] is False
    assert "SyntaxError" in syntax["error"]


async def test_a_runaway_script_is_stopped_and_the_page_stays_usable(mcp: StdioMcp, tab: Any, pilot_on: None) -> None:
    for script in ("while(true){}", "await 1; while(true){}"):
        err = await mcp.error("interact", {"action": "execute_js", "script": script, "timeout_ms": 1000})
        assert err["error"] == "timeout", script
        after = await mcp.ok("interact", {"action": "execute_js", "script": "document.title"})
        assert after == {"success": True, "result": "Tabpilot Fixture"}
    assert await tab.evaluate("1 + 2") == 3


async def test_a_syntax_error_is_reported_against_the_agents_own_script(
    mcp: StdioMcp, tab: Any, pilot_on: None
) -> None:
    """Never a token of Tabpilot's wrapper (`1+` used to say "Unexpected token '}'"): the agent's line."""
    cases = {
        "1+": ("line 1", "Unexpected end of input"),
        "function(": ("line 1", ""),
        "const a = 1;\nconst b = 2;\nconst = 3;\nreturn a + b;": ("line 3", ""),
        "const ok = 1;\nif (ok) {\n  return ok;": ("", "Unexpected end of input"),
    }
    for script, (where, what) in cases.items():
        answer = await mcp.ok("interact", {"action": "execute_js", "script": script})
        assert answer["success"] is False, script
        assert answer["error"].startswith("SyntaxError in your script"), answer
        assert where in answer["error"] and what in answer["error"], answer
        assert "'}'" not in answer["error"] and "')'" not in answer["error"], answer
    # Scripts that are fine still run: an expression, a body with return, await at the top.
    assert (await mcp.ok("interact", {"action": "execute_js", "script": "2 * 21"}))["result"] == 42
    body = "const xs = [1, 2];\nreturn xs.length;"
    assert (await mcp.ok("interact", {"action": "execute_js", "script": body}))["result"] == 2
    awaited = "const v = await Promise.resolve(5);\nreturn v + 1;"
    assert (await mcp.ok("interact", {"action": "execute_js", "script": awaited}))["result"] == 6


async def test_execute_js_works_under_a_strict_csp(mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite) -> None:
    response = await tab.goto(site.url("/csp.html"))
    assert "script-src 'self'" in (await response.all_headers())["content-security-policy"]
    assert await tab.title() == "Strict CSP", "the page's own inline script must have been blocked by its CSP"
    result = await mcp.ok("interact", {"action": "execute_js", "script": "document.getElementById('msg').textContent"})
    assert result == {"success": True, "result": "This page forbids eval and inline scripts."}


async def test_non_json_values_come_back_as_readable_strings(mcp: StdioMcp, tab: Any, pilot_on: None) -> None:
    node = await mcp.ok("interact", {"action": "execute_js", "script": "document.querySelector('h1')"})
    assert node == {"success": True, "result": "<h1>Welcome to the fixture</h1>"}
    mixed = await mcp.ok(
        "interact",
        {
            "action": "execute_js",
            "script": "const o = {f() {}, n: NaN, big: 10n, u: undefined, d: new Date(0), "
            "m: new Map([[1, 2]])}; o.self = o; "
            "return [o, window, document.querySelectorAll('#users li').length]",
        },
    )
    value = mixed["result"]
    assert value[0] == {
        "f": "[Function: f]",
        "n": "NaN",
        "big": "10n",
        "d": "1970-01-01T00:00:00.000Z",
        "m": [[1, 2]],
        "self": "[Circular]",
    }
    assert value[1].startswith("[Window")
    assert value[2] == 3


async def test_background_commands_are_followed_with_command_result(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    queued = await mcp.ok("interact", {"action": "navigate", "url": site.url("/slow?s=0.5"), "background": True})
    assert queued["status"] == "queued"
    cid = queued["correlation_id"]

    async def finished() -> dict[str, Any] | None:
        result = await mcp.ok("observe", {"what": "command_result", "correlation_id": cid})
        return result if result.get("status") == "complete" else None

    final = await until(finished, timeout=15, what="the background navigation to finish")
    assert final == {"status": "complete", "url": site.url("/slow?s=0.5"), "title": "Slow"}


async def test_navigating_to_a_fragment_of_the_same_page_completes(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    result = await mcp.ok("interact", {"action": "navigate", "url": site.url("/index.html#links"), "timeout_ms": 5000})
    assert result == {"status": "complete", "url": site.url("/index.html#links"), "title": "Tabpilot Fixture"}
