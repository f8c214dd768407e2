"""The service worker's tab look-up (extension/background/tabs.js: the tab as the browser's events last
described it) and the settle in the managed browser, which runs a page's tasks after an input without
waiting for the next frame: an op right after the tab changed under it sees the tab as it now is, and a
click's answer tells what its handler changed in the next task or the next frame."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tabpilot.app import App
from tabpilot.engine.errors import TabpilotError
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


async def call(app: App, op: str, params: dict[str, Any]) -> dict[str, Any]:
    return await app.link.request(op, params, timeout_s=5)


async def failure(app: App, op: str, params: dict[str, Any]) -> TabpilotError:
    with pytest.raises(TabpilotError) as caught:
        await app.link.request(op, params, timeout_s=5)
    return caught.value


async def _tab_id(app: App, page: Any) -> int:
    url = page.url
    await until(lambda: _resolves_to(app, url), timeout=10, what="the extension to see the tab in front")
    return int((await call(app, "tabs.resolve", {}))["tab_id"])


async def _resolves_to(app: App, url: str) -> bool:
    return bool((await call(app, "tabs.resolve", {}))["url"] == url)


async def test_a_page_that_navigates_itself_is_seen_there_by_the_next_op(
    e2e_app: App, mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    tab_id = await _tab_id(e2e_app, tab)
    for round_ in range(5):
        start, there = site.url(f"/index.html?r={round_}"), site.url(f"/second.html?r={round_}")
        await mcp.ok("interact", {"action": "navigate", "url": start, "tab_id": tab_id})
        assert (await call(e2e_app, "tabs.resolve", {"tab_id": tab_id}))["url"] == start  # cached now
        await mcp.ok(
            "interact", {"action": "execute_js", "script": f"setTimeout(() => location.assign({there!r}), 30); 1"}
        )
        await until(lambda there=there: tab.url == there, timeout=5, what="the page to go there itself")
        await tab.wait_for_load_state("load")
        resolved = await call(e2e_app, "tabs.resolve", {"tab_id": tab_id})
        assert resolved == {"tab_id": tab_id, "url": there, "title": "Second Page"}
        page = await mcp.ok("observe", {"what": "page"})
        assert page["url"] == there
        titled = await mcp.ok("interact", {"action": "execute_js", "script": "document.title"})
        assert titled["result"] == "Second Page"


async def test_pushstate_and_a_title_set_later_reach_a_cached_tab(e2e_app: App, tab: Any, site: FixtureSite) -> None:
    # tabs.onUpdated reaches the worker a moment after the change: what is shown by address
    # (tabs.resolve, for approval prompts) is asked of the browser, not taken from the events.
    tab_id = await _tab_id(e2e_app, tab)
    for i in range(40):
        await call(e2e_app, "tabs.resolve", {"tab_id": tab_id})  # in the cache
        await tab.evaluate(f"history.pushState(null, '', '/pushed-{i}'); document.title = 'Pushed {i}'")
        resolved = await call(e2e_app, "tabs.resolve", {"tab_id": tab_id})
        assert resolved == {"tab_id": tab_id, "url": site.url(f"/pushed-{i}"), "title": f"Pushed {i}"}


async def test_a_restricted_page_the_person_went_to_stays_not_supported_and_back_again(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    tab_id = await _tab_id(e2e_app, tab)
    for i in range(10):
        await call(e2e_app, "tabs.resolve", {"tab_id": tab_id})  # in the cache, on a web page
        await tab.goto("chrome://version")
        refused = await failure(e2e_app, "js.execute", {"tab_id": tab_id, "script": "1+1"})
        assert refused.code == "not_supported", (i, refused.code, refused.message)
        back = site.url(f"/second.html?i={i}")
        await tab.goto(back)
        ran = await call(e2e_app, "js.execute", {"tab_id": tab_id, "script": "location.href"})
        assert ran["result"] == back, i


async def test_a_tab_the_person_closed_is_tab_closed_at_once(e2e_app: App, site: FixtureSite, pilot_on: None) -> None:
    assert e2e_app.managed is not None
    for i in range(6):
        page = await e2e_app.managed.context.new_page()
        await page.goto(site.url(f"/index.html?closing={i}"))
        await page.bring_to_front()
        tab_id = await _tab_id(e2e_app, page)
        await call(e2e_app, "js.execute", {"tab_id": tab_id, "script": "1"})  # in the cache
        await page.close()
        for op, params in (("js.execute", {"script": "1"}), ("page.info", {}), ("tabs.resolve", {})):
            gone = await failure(e2e_app, op, {"tab_id": tab_id, **params})
            assert gone.code == "tab_closed", (i, op, gone.code, gone.message)


async def test_a_tracked_tab_closed_by_the_person_hands_over_to_the_tab_in_front(
    e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    assert e2e_app.managed is not None
    other = await e2e_app.managed.context.new_page()
    await other.goto(site.url("/second.html?tracked=1"))
    await other.bring_to_front()
    tracked_id = await _tab_id(e2e_app, other)
    try:
        await call(e2e_app, "tabs.track", {"tab_id": tracked_id})
        await tab.bring_to_front()
        assert (await call(e2e_app, "tabs.resolve", {}))["tab_id"] == tracked_id  # tracked wins, cached
        await other.goto("chrome://version")
        refused = await failure(e2e_app, "js.execute", {"script": "1"})
        assert refused.code == "not_supported"
        await other.close()
        resolved = await call(e2e_app, "tabs.resolve", {})
        assert resolved["url"] == tab.url
    finally:
        await call(e2e_app, "tabs.track", {"clear": True})


async def test_new_switch_close_tab_then_ops(mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite) -> None:
    opened = await mcp.ok("interact", {"action": "new_tab", "url": site.url("/second.html?own=1")})
    own = opened["tab_id"]
    assert (await mcp.ok("observe", {"what": "page"}))["url"].endswith("own=1")
    await mcp.ok("interact", {"action": "navigate", "url": site.url("/index.html?own=2")})
    titled = await mcp.ok("interact", {"action": "execute_js", "script": "document.title"})
    assert titled["result"] == "Tabpilot Fixture"
    await mcp.ok("interact", {"action": "switch_tab", "tab_id": own})
    await mcp.ok("interact", {"action": "close_tab", "tab_id": own})
    gone = await mcp.error("interact", {"action": "execute_js", "script": "1", "tab_id": own})
    assert gone["error"] in ("tab_closed", "tab_not_owned"), gone


async def test_a_click_that_draws_its_change_in_the_next_frame_reports_it(
    mcp: StdioMcp, tab: Any, pilot_on: None
) -> None:
    # Elm, Mithril and hand-made UIs render what a click changed in requestAnimationFrame: the settle
    # waits for the frame the page asked for (capture/frames.js), or a click would say "no visible
    # change" and the next one report its element.
    await mcp.ok(
        "interact",
        {
            "action": "execute_js",
            "script": """window.__drawn = 0;
              document.querySelector('h1').addEventListener('click', (e) => {
                if (!e.isTrusted) return;
                requestAnimationFrame(() => {
                  const p = document.createElement('p'); p.textContent = 'Drawn ' + (++window.__drawn);
                  document.body.appendChild(p);
                });
              }); 1""",
        },
    )
    seen = [(await mcp.ok("interact", {"action": "click", "selector": "h1"}))["changed"] for _ in range(10)]

    async def drawn() -> bool:
        return (await mcp.ok("interact", {"action": "execute_js", "script": "window.__drawn"}))["result"] == 10

    await until(drawn, timeout=5, what="every click's frame to have drawn")
    missed = [c for c in seen if "+1 element" not in c]
    assert not missed, seen


async def test_a_look_up_racing_a_pushstate_never_keeps_the_old_address(
    e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    # The cache is filled by a tabs.get whose answer may cross the onUpdated of a change made meanwhile:
    # the entry must not keep the address from before (a pushState brings no later event to repair it).
    assert e2e_app.managed is not None
    tab_id = await _tab_id(e2e_app, tab)
    other = await e2e_app.managed.context.new_page()
    lagging, stuck = 0, []
    try:
        for i in range(60):
            await other.bring_to_front()
            await tab.bring_to_front()  # onActivated: every entry dropped
            url = site.url(f"/raced-{i}")
            await asyncio.gather(
                tab.evaluate(f"setTimeout(() => history.pushState(null, '', '/raced-{i}'), {i % 4})"),
                call(e2e_app, "tabs.resolve", {"tab_id": tab_id}),
            )
            await until(lambda url=url: tab.url == url, timeout=5, what="the pushState")
            if (await call(e2e_app, "tabs.resolve", {"tab_id": tab_id}))["url"] != url:
                lagging += 1

                async def fresh(url: str = url) -> bool:
                    return bool((await call(e2e_app, "tabs.resolve", {"tab_id": tab_id}))["url"] == url)

                try:
                    await until(fresh, timeout=1, what="the entry to catch up")
                except AssertionError:
                    stuck.append(i)
    finally:
        await other.close()
    assert not stuck, (lagging, stuck)


async def test_a_click_whose_handler_changes_the_page_in_the_next_task_reports_it(
    mcp: StdioMcp, tab: Any, pilot_on: None
) -> None:
    # The managed browser's counterpart of test_dialogs_own_browser's check (deferral off here).
    await mcp.ok(
        "interact",
        {
            "action": "execute_js",
            "script": """window.__queued = 0;
              document.querySelector('h1').addEventListener('click', (e) => {
                if (!e.isTrusted) return;
                setTimeout(() => {
                  const p = document.createElement('p'); p.textContent = 'Queued ' + (++window.__queued);
                  document.body.appendChild(p);
                }, 0);
              }); 1""",
        },
    )
    seen = [(await mcp.ok("interact", {"action": "click", "selector": "h1"}))["changed"] for _ in range(10)]
    assert seen == [f"+1 element, text 'Queued {i}' appeared" for i in range(1, 11)], seen
