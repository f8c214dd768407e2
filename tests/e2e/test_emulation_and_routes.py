"""Device emulation, user agent, extra headers and mocked or blocked routes, through the real MCP client,
bridge and extension in Chromium: what the page itself reports (innerWidth, navigator.userAgent,
matchMedia), what the fixture server received, and what observe network says of each request."""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

PAGE_STATE = """() => ({
  width: innerWidth,
  ratio: devicePixelRatio,
  agent: navigator.userAgent,
  coarse: matchMedia('(pointer: coarse)').matches,
})"""


async def configure(mcp: StdioMcp, action: str, **args: Any) -> dict[str, Any]:
    return await mcp.ok("configure", {"action": action, **args})


async def page_state(tab: Any) -> dict[str, Any]:
    state: dict[str, Any] = await tab.evaluate(PAGE_STATE)
    return state


def digest(value: str) -> str:
    """How /api/echo-headers shows a header's value (never the value itself)."""
    return hashlib.sha256(value.encode()).hexdigest()[:16]


async def headers_seen(tab: Any) -> dict[str, str]:
    """The headers the fixture server received for a request the page makes, as digests."""
    answer: dict[str, Any] = await tab.evaluate("() => fetch('/api/echo-headers').then((r) => r.json())")
    return dict(answer["headers"])


async def open_app(e2e_app: App, tab: Any, site: FixtureSite, path: str = "/mockapp.html") -> None:
    await open_url(e2e_app, tab, site.url(path))


async def open_url(e2e_app: App, tab: Any, url: str) -> None:
    """Load `url` in the test's tab and wait until the extension's commands go to that tab."""
    await tab.goto(url)

    async def targeted() -> bool:
        return (await e2e_app.link.request("tabs.resolve", {}, timeout_s=5))["url"] == url

    await until(targeted, timeout=5, what=f"commands to go to the tab showing {url}")


async def app_status(tab: Any) -> str:
    """Once mockapp.html has rendered (or failed): its status line."""
    await until(lambda: _settled(tab), timeout=10, what="the app to load its items")
    return str(await tab.text_content("#status"))


async def _settled(tab: Any) -> bool:
    return (await tab.text_content("#status")) != "loading"


async def items(tab: Any) -> list[str]:
    return [str(t) for t in await tab.eval_on_selector_all("#items li", "(els) => els.map((e) => e.textContent)")]


async def network(mcp: StdioMcp, url_filter: str) -> list[dict[str, Any]]:
    listed = await mcp.ok("observe", {"what": "network", "url_filter": url_filter})
    return list(listed["entries"])


# -- devices --------------------------------------------------------------------------------------


async def test_emulating_iphone_15_is_what_the_page_sees_until_reset(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_app(e2e_app, tab, site, "/device.html")
    before = await page_state(tab)
    assert before["coarse"] is False
    assert "iPhone" not in before["agent"]

    applied = await configure(mcp, "emulate_device", device="iphone15")  # fuzzy: iPhone 15
    assert applied["device"] == "iPhone 15"
    assert applied["viewport"] == {"width": 393, "height": 659}
    assert applied["is_mobile"] is True and applied["has_touch"] is True
    now = await page_state(tab)
    assert now["width"] == 393
    assert now["ratio"] == 3
    assert now["agent"] == applied["user_agent"] and "iPhone" in now["agent"]
    assert now["coarse"] is True
    assert applied["page"]["width"] == 393 and applied["page"]["coarse_pointer"] is True

    # It is the tab's, not the page's: a navigation keeps it, and the server sees the phone's user agent.
    await open_app(e2e_app, tab, site, "/device.html?again=1")
    assert await page_state(tab) == now
    assert (await headers_seen(tab))["user-agent"] == digest(applied["user_agent"])
    # Another site (localhost, not 127.0.0.1): a new renderer process, the same tab's emulation.
    await open_url(e2e_app, tab, site.url("/device.html").replace("127.0.0.1", "localhost"))
    assert await page_state(tab) == now

    reset = await configure(mcp, "emulate_device", reset=True)
    assert reset["reset"] is True and reset["was"] == "iPhone 15"
    assert await page_state(tab) == before


async def test_a_responsive_screenshot_leaves_the_standing_emulation_as_it_was(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_app(e2e_app, tab, site, "/device.html")
    await configure(mcp, "emulate_device", device="iPhone 15")
    emulated = await page_state(tab)
    shots = await mcp.call("generate", {"type": "screenshot", "responsive": True})
    assert not shots.is_error, shots.structured_content
    assert len([c for c in shots.content if c.type == "image"]) == 3
    assert await page_state(tab) == emulated  # still the phone, not the desktop the last shot used
    await configure(mcp, "emulate_device", reset=True)


async def test_switching_the_pilot_off_gives_the_person_their_pages_back(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    """What agents set in a tab (a phone's screen, a mocked backend) does not outlast AI Web Pilot."""
    await open_app(e2e_app, tab, site, "/device.html")
    own = await page_state(tab)
    await configure(mcp, "emulate_device", device="iPhone 15")
    await configure(mcp, "mock_route", url="**/api/items*", body='{"items": ["fake"]}')
    assert (await page_state(tab))["width"] == 393
    e2e_app.set_pilot(False, remember=False)

    async def given_back() -> bool:
        return await page_state(tab) == own

    await until(given_back, timeout=10, what="the tab's own screen and user agent back")
    assert (await mcp.ok("configure", {"action": "list_routes"}))["routes"] == []
    await open_app(e2e_app, tab, site)
    assert await app_status(tab) != "loading" and "fake" not in await items(tab)


async def test_after_the_debugger_was_detached_the_next_command_sends_emulation_and_routes_again(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_app(e2e_app, tab, site, "/device.html")
    own = await page_state(tab)
    await configure(mcp, "emulate_device", device="iPhone 15")
    await configure(mcp, "mock_route", url="**/api/items*", body='{"items": ["again"]}')
    emulated = await page_state(tab)
    assert emulated["width"] == 393

    # The debugger session ends without the extension's say (as when the browser detaches it): CDP
    # forgets the emulation and the routes with it.
    assert e2e_app.managed is not None
    [worker] = [w for w in e2e_app.managed.context.service_workers if "service_worker.js" in w.url]
    await worker.evaluate(
        "async () => { const [t] = await chrome.tabs.query({active: true, lastFocusedWindow: true});"
        " await chrome.debugger.detach({tabId: t.id}); }"
    )
    await until(lambda: _width_is(tab, own["width"]), what="the emulation to end with the debugger session")

    # The next command that needs the debugger attaches again, and the tab's overrides come back first.
    await mcp.ok("generate", {"type": "screenshot"})
    assert await page_state(tab) == emulated
    await open_app(e2e_app, tab, site, "/mockapp.html")
    assert await app_status(tab) == "loaded 200"
    assert await items(tab) == ["again"]


async def _width_is(tab: Any, width: int) -> bool:
    return bool(await tab.evaluate("() => innerWidth") == width)


async def test_an_unknown_device_gets_the_nearest_names(mcp: StdioMcp, tab: Any, pilot_on: None) -> None:
    err = await mcp.error("configure", {"action": "emulate_device", "device": "iPhnoe 15"})
    assert err["error"] == "invalid_params"
    assert "iPhone 15" in err["suggestions"]
    assert "iPhone 15" in err["message"]
    both = await mcp.error("configure", {"action": "emulate_device", "device": "iPhone 15", "reset": True})
    assert both["error"] == "invalid_params"


async def test_set_viewport_sizes_the_page_and_reset_gives_it_back(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_app(e2e_app, tab, site, "/index.html")
    before = await page_state(tab)
    applied = await configure(mcp, "set_viewport", width=800, height=600, device_scale_factor=2)
    assert applied["viewport"] == {"width": 800, "height": 600}
    assert await tab.evaluate("() => [innerWidth, innerHeight, devicePixelRatio]") == [800, 600, 2]
    await configure(mcp, "set_viewport", reset=True)
    assert await page_state(tab) == before


async def test_set_user_agent_reaches_the_page_and_the_server(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_app(e2e_app, tab, site, "/index.html")
    own = (await page_state(tab))["agent"]
    agent = "TabpilotTest/1.0 (fixture)"
    answer = await configure(mcp, "set_user_agent", user_agent=agent)
    assert answer["user_agent"] == agent
    assert (await page_state(tab))["agent"] == agent
    assert (await headers_seen(tab))["user-agent"] == digest(agent)

    # A device set afterwards wins; undoing the device gives set_user_agent's back.
    await configure(mcp, "emulate_device", device="Pixel 7")
    assert "Pixel 7" in (await page_state(tab))["agent"]
    await configure(mcp, "emulate_device", reset=True)
    assert (await page_state(tab))["agent"] == agent

    await configure(mcp, "set_user_agent", user_agent="")
    assert (await page_state(tab))["agent"] == own
    assert (await headers_seen(tab))["user-agent"] == digest(own)


# -- routes ---------------------------------------------------------------------------------------


async def test_a_mocked_api_is_what_the_app_renders_across_navigations_until_cleared(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_app(e2e_app, tab, site)
    assert await app_status(tab) == "loaded 200"
    assert await items(tab) == ["real apple", "real pear"]

    added = await configure(
        mcp,
        "mock_route",
        url="**/api/items*",
        status=201,
        body='{"items": ["mocked kiwi", "mocked plum", "mocked fig"]}',
        headers={"X-Mocked": "yes"},
    )
    assert added["added"][0]["action"] == "mock" and added["added"][0]["header_names"] == ["X-Mocked"]
    served = len([r for r in site.requests if r.startswith("GET /api/items")])

    await open_app(e2e_app, tab, site, "/mockapp.html?visit=2")  # a navigation: the route stands
    assert await app_status(tab) == "loaded 201"
    assert await items(tab) == ["mocked kiwi", "mocked plum", "mocked fig"]
    await open_url(e2e_app, tab, site.url("/mockapp.html?visit=other-site").replace("127.0.0.1", "localhost"))
    assert await app_status(tab) == "loaded 201"  # another site, another renderer: the tab's route stands
    await open_app(e2e_app, tab, site, "/mockapp.html?visit=back")
    assert await app_status(tab) == "loaded 201"
    assert len([r for r in site.requests if r.startswith("GET /api/items")]) == served  # never reached it

    # observe network tells the mocked answer from the real one.
    entries = await until(lambda: network(mcp, "/api/items"), what="the app's requests in observe network")
    mocked = await until(lambda: _marked(mcp, "mocked"), what="the mocked request marked mocked in observe network")
    assert mocked["status"] == 201 and mocked["route"] == "**/api/items*"
    assert any(e.get("status") == 200 and not e.get("mocked") for e in entries)  # the first, real one

    listed = await configure(mcp, "list_routes")
    assert [(r["url"], r["action"], r["hits"]) for r in listed["routes"]] == [("**/api/items*", "mock", 3)]

    assert (await configure(mcp, "clear_routes"))["cleared"] == 1
    await open_app(e2e_app, tab, site, "/mockapp.html?visit=3")
    assert await app_status(tab) == "loaded 200"
    assert await items(tab) == ["real apple", "real pear"]
    assert (await configure(mcp, "list_routes"))["routes"] == []


async def _marked(mcp: StdioMcp, flag: str) -> dict[str, Any] | None:
    return next((e for e in await network(mcp, "/api/items") if e.get(flag)), None)


async def test_a_regex_route_and_a_delay(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await configure(mcp, "mock_route", url=r"/\/api\/items\?from=app$/", body='{"items": ["slow"]}', delay_ms=400)
    await open_app(e2e_app, tab, site, "/mockapp.html?visit=regex")
    assert await app_status(tab) == "loaded 200"
    assert await items(tab) == ["slow"]
    took = await tab.evaluate(
        "() => performance.getEntriesByType('resource').find((e) => e.name.includes('/api/items')).duration"
    )
    assert took >= 350


async def test_a_mocked_api_on_another_origin_passes_the_pages_cors(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_app(e2e_app, tab, site, "/index.html")
    other = f"http://localhost:{site.port}/api/items"  # another origin: the real server sends no CORS headers
    fetch_json = """async ([url, init]) => {
      try { return await (await fetch(url, init)).json(); } catch (e) { return 'failed: ' + e.message; }
    }"""
    assert str(await tab.evaluate(fetch_json, [other, {}])).startswith("failed")
    await configure(mcp, "mock_route", url="**/api/items*", body='{"items": ["from afar"]}')
    assert await tab.evaluate(fetch_json, [other, {}]) == {"items": ["from afar"]}
    # A JSON POST with a custom header: the browser asks first (a preflight), and the mock says yes.
    post = {"method": "POST", "headers": {"Content-Type": "application/json", "X-Client": "e2e"}, "body": "{}"}
    assert await tab.evaluate(fetch_json, [other, post]) == {"items": ["from afar"]}


async def test_a_blocked_url_fails_as_blocked_and_never_reaches_the_server(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await open_app(e2e_app, tab, site, "/index.html")
    added = await configure(mcp, "block_urls", patterns=["/api/items*", "**/*.woff2"])
    assert [r["action"] for r in added["routes"]] == ["block", "block"]
    served = len([r for r in site.requests if r.startswith("GET /api/items")])
    await open_app(e2e_app, tab, site, "/mockapp.html?visit=blocked")
    assert (await app_status(tab)).startswith("failed")
    assert len([r for r in site.requests if r.startswith("GET /api/items")]) == served
    blocked = await until(lambda: _marked(mcp, "blocked"), what="the blocked request marked blocked")
    assert blocked["ok"] is False and blocked["status"] == 0

    await configure(mcp, "clear_routes")
    await open_app(e2e_app, tab, site, "/mockapp.html?visit=unblocked")
    assert await app_status(tab) == "loaded 200"


async def test_bad_patterns_are_refused_clearly(mcp: StdioMcp, tab: Any, pilot_on: None) -> None:
    bad_regex = await mcp.error("configure", {"action": "mock_route", "url": "/items[/"})
    assert bad_regex["error"] == "invalid_params"
    bad_glob = await mcp.error("configure", {"action": "block_urls", "patterns": ["**/{a,{b}}"]})
    assert bad_glob["error"] == "invalid_params"
    bad_header = await mcp.error("configure", {"action": "mock_route", "url": "**/x", "headers": {"a b": "1"}})
    assert bad_header["error"] == "invalid_params"


async def test_routes_need_the_pilot(mcp: StdioMcp, tab: Any) -> None:
    err = await mcp.error("configure", {"action": "block_urls", "patterns": ["**/x"]})
    assert err["error"] == "ai_web_pilot_disabled"


# -- headers --------------------------------------------------------------------------------------


async def test_extra_headers_reach_the_server_and_their_values_are_never_kept(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, e2e_home: Path, pilot_on: None
) -> None:
    await open_app(e2e_app, tab, site, "/index.html")
    token = "tok-" + secrets.token_hex(12)
    answer = await configure(mcp, "set_headers", headers={"X-Test-Token": token, "X-Run": "42"})
    assert answer == {"headers": ["X-Test-Token", "X-Run"]}
    seen = await headers_seen(tab)
    assert seen["x-test-token"] == digest(token) and seen["x-run"] == digest("42")

    await open_app(e2e_app, tab, site, "/second.html")  # lasts across navigations
    assert (await headers_seen(tab))["x-test-token"] == digest(token)
    listed = await configure(mcp, "list_routes")
    assert listed["headers"] == ["X-Test-Token", "X-Run"]
    assert token not in str(listed)

    assert (await configure(mcp, "set_headers", headers={}))["headers"] == []
    assert "x-test-token" not in await headers_seen(tab)

    # Nothing Tabpilot keeps — logs, activity, anything in its home — holds the value.
    holders = [p for p in e2e_home.rglob("*") if p.is_file() and token.encode() in p.read_bytes()]
    assert holders == []


async def test_a_mock_approved_as_network_cannot_run_as_a_script(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    """A mock without a Content-Type is approved as network traffic: the extension serves it with nosniff, so a
    <script src> the page loads from it does not run (the attack mocked a script URL with JavaScript as text).
    One that says it is JavaScript runs — it was approved as running JavaScript (here: auto-approved)."""
    await open_app(e2e_app, tab, site, "/index.html")
    load = """(path) => new Promise((done) => {
      window.__mockRan = false;
      const s = document.createElement('script');
      s.src = path + '?' + Math.random();
      s.onload = () => done(window.__mockRan === true ? 'ran' : 'loaded, not run');
      s.onerror = () => done(window.__mockRan === true ? 'ran' : 'refused');
      document.head.append(s);
    })"""
    body = "window.__mockRan = true;"
    await configure(mcp, "mock_route", url="**/as-text.js*", body=body)
    await configure(mcp, "mock_route", url="**/as-script.js*", body=body, headers={"Content-Type": "text/javascript"})
    assert await tab.evaluate(load, "/as-script.js") == "ran"
    assert await tab.evaluate(load, "/as-text.js") == "refused"
    await configure(mcp, "clear_routes")
