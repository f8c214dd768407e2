"""Each agent its own tabs, and state snapshots, through real MCP clients (`tabpilot mcp` over stdio) into
the real extension in Chromium.

Two agents side by side each open a tab: each one's calls go to its own tab, neither can act on the
other's (tab_not_owned), `observe tabs` says who owns what, and a closed tab is released. The person hands
their tab to an agent in the extension's popup. A login kept in an HttpOnly cookie, localStorage and
sessionStorage is saved, wiped, and restored by load_state — and none of its values is readable in any
file Tabpilot wrote.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tabpilot.app import App
from tabpilot.resources import extension_id
from tests.e2e.conftest import E2E
from tests.gui.xserver import SCREENSHOTS
from tests.support.mcp_stdio import StdioMcp
from tests.support.processes import env_for, tabpilot
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


async def _agent(home: Path) -> StdioMcp:
    """A fresh agent: its own `tabpilot mcp`, so its own MCP session."""
    client = StdioMcp({"TABPILOT_HOME": str(home)})
    await client.start()
    return client


async def _key_of(app: App, client: StdioMcp, known: set[str]) -> str:
    """The session key the app gave `client`: the one that appears with its first call."""
    await client.ok("observe", {"what": "pilot"})
    [key] = {s.key for s in app.engine.tab_owners.sessions()} - known
    return key


async def _status(agent: StdioMcp, tab_id: int | None = None) -> str:
    args: dict[str, Any] = {"what": "dom", "selector": "#status"}
    if tab_id is not None:
        args["tab_id"] = tab_id
    found = await agent.ok("observe", args)
    return str(found["matches"][0]["text"]) if found["matches"] else ""


def _page_of(app: App, url_start: str) -> Any:
    assert app.managed is not None
    return next(p for p in app.managed.context.pages if p.url.startswith(url_start))


async def test_two_agents_work_side_by_side_each_in_its_own_tab(
    e2e_app: App, e2e_home: Path, site: FixtureSite, pilot_on: None
) -> None:
    known = {s.key for s in e2e_app.engine.tab_owners.sessions()}
    a = await _agent(e2e_home)
    b = await _agent(e2e_home)
    try:
        key_a = await _key_of(e2e_app, a, known)
        key_b = await _key_of(e2e_app, b, known | {key_a})
        opened_a = await a.ok("interact", {"action": "new_tab", "url": site.url("/actions.html?agent=a")})
        opened_b = await b.ok("interact", {"action": "new_tab", "url": site.url("/actions.html?agent=b")})
        tab_a, tab_b = opened_a["tab_id"], opened_b["tab_id"]
        assert opened_a["title"] == "Actions"
        assert tab_a != tab_b

        # Calls that name no tab go to the caller's own tab, whichever is in front.
        assert (await a.ok("observe", {"what": "page"}))["url"].endswith("agent=a")
        assert (await b.ok("observe", {"what": "page"}))["url"].endswith("agent=b")
        clicked = await a.ok("interact", {"action": "click", "selector": "#change"})
        assert clicked["clicked"] is True
        page_a, page_b = (
            _page_of(e2e_app, site.url("/actions.html?agent=a")),
            _page_of(e2e_app, site.url("/actions.html?agent=b")),
        )
        assert (await page_a.text_content("#clicks")).startswith("clicked, trusted=true")

        # Neither can act on the other's tab; nothing happens there.
        refused = await a.error("interact", {"action": "click", "selector": "#change", "tab_id": tab_b})
        assert refused["error"] == "tab_not_owned", refused
        assert f"({key_b})" in refused["message"] and "new_tab" in refused["message"]
        assert refused["owner"].endswith(f"({key_b})")
        assert (await b.error("interact", {"action": "navigate", "url": site.url("/second.html"), "tab_id": tab_a}))[
            "error"
        ] == "tab_not_owned"
        assert (await a.error("interact", {"action": "close_tab", "tab_id": tab_b}))["error"] == "tab_not_owned"
        assert (await b.error("interact", {"action": "switch_tab", "tab_id": tab_a}))["error"] == "tab_not_owned"
        assert await page_b.text_content("#change") == "Click me"
        assert page_a.url.endswith("agent=a") and not page_a.is_closed()

        # Reading another agent's tab, named by its id, is allowed (a read changes nothing).
        assert (await a.ok("observe", {"what": "page", "tab_id": tab_b}))["url"].endswith("agent=b")

        # observe tabs shows who owns which tab.
        tabs = {t["tab_id"]: t for t in (await a.ok("observe", {"what": "tabs"}))["tabs"]}
        assert tabs[tab_a]["mine"] is True and tabs[tab_a]["owner"].endswith(f"({key_a})")
        assert tabs[tab_b]["mine"] is False and tabs[tab_b]["owner"].endswith(f"({key_b})")
        assert all(t["owner"] is None for i, t in tabs.items() if i not in (tab_a, tab_b))

        # Closing a tab releases it: by close_tab, or by the browser (the person closes it).
        assert await b.ok("interact", {"action": "close_tab", "tab_id": tab_b}) == {"closed": True, "tab_id": tab_b}
        assert e2e_app.engine.tab_owners.owner(tab_b) is None
        assert tab_b not in {t["tab_id"] for t in (await a.ok("observe", {"what": "tabs"}))["tabs"]}
        await page_a.close()
        await until(lambda: e2e_app.engine.tab_owners.owner(tab_a) is None, timeout=5, what="the closed tab released")
    finally:
        await a.close()
        await b.close()
    # An agent that goes away gives its tabs back to the person.
    await until(lambda: e2e_app.engine.tab_owners.session(key_a) is None, timeout=5, what="agent a's session to end")


async def test_the_person_hands_a_tab_to_an_agent_in_the_popup(
    e2e_app: App, e2e_home: Path, site: FixtureSite, tab: Any, pilot_on: None
) -> None:
    assert e2e_app.managed is not None
    persons = (await e2e_app.link.request("tabs.resolve", {}, timeout_s=5))["tab_id"]
    known = {s.key for s in e2e_app.engine.tab_owners.sessions()}
    a = await _agent(e2e_home)
    b = await _agent(e2e_home)
    popup = await e2e_app.managed.context.new_page()
    try:
        key_a = await _key_of(e2e_app, a, known)
        await _key_of(e2e_app, b, known | {key_a})
        # Agent b opens a tab of its own (in front now), so a's default is no longer free for a to take.
        await b.ok("interact", {"action": "new_tab", "url": site.url("/second.html")})

        await popup.goto(f"chrome-extension://{extension_id()}/popup/popup.html?tab={persons}")
        await until(popup.locator("#handform").is_visible, timeout=10, what="the popup's hand-over form")
        assert await popup.inner_text("#owner") == "Yours: no agent owns this tab."
        label = next(s.label for s in e2e_app.engine.tab_owners.sessions() if s.key == key_a)
        await popup.select_option("#handto", label=label)
        await popup.click("#hand")
        await until(
            lambda: (o := e2e_app.engine.tab_owners.owner(persons)) is not None and o.key == key_a,
            timeout=5,
            what="the tab handed to agent a",
        )
        await until(
            lambda: _text_is(popup, "#owner", f"Agent {label} works in this tab."),
            timeout=5,
            what="the popup to say so",
        )
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        await popup.screenshot(path=str(SCREENSHOTS / "popup-hand-tab.png"), clip=await _box(popup))

        # a's calls now go to the handed tab; b cannot act there.
        assert (await a.ok("observe", {"what": "page"}))["url"] == tab.url
        assert (await a.ok("interact", {"action": "click", "selector": "#users .active .name", "tab_id": persons}))[
            "clicked"
        ] is True
        refused = await b.error("interact", {"action": "click", "selector": "#users .active .name", "tab_id": persons})
        assert refused["error"] == "tab_not_owned"

        # The person takes it back.
        await popup.select_option("#handto", value="")
        await popup.click("#hand")
        await until(lambda: e2e_app.engine.tab_owners.owner(persons) is None, timeout=5, what="the tab taken back")
    finally:
        await popup.close()
        await a.close()
        await b.close()


async def _box(page: Any) -> dict[str, float]:
    """The popup's own area (a page is wider than a toolbar popup)."""
    width, height = await page.evaluate("[document.body.scrollWidth, document.body.scrollHeight]")
    return {"x": 0, "y": 0, "width": min(width + 16, 400), "height": height + 16}


async def _text_is(page: Any, selector: str, text: str) -> bool:
    return bool(await page.inner_text(selector) == text)


async def test_a_login_is_saved_wiped_and_restored_and_no_value_is_written_in_clear(
    e2e_app: App, e2e_home: Path, site: FixtureSite, pilot_on: None
) -> None:
    assert e2e_app.managed is not None
    # Cookies other tests left for the fixture's host (cookies ignore ports) would be counted too.
    await e2e_app.managed.context.clear_cookies()
    agent = await _agent(e2e_home)
    try:
        opened = await agent.ok("interact", {"action": "new_tab", "url": site.url("/state/login?user=alice")})
        assert await _status(agent) == "signed in"
        await agent.ok("interact", {"action": "navigate", "url": site.url("/state/home")})
        assert await _status(agent) == "logged in as alice"

        saved = await agent.ok("configure", {"action": "save_state", "name": "alice"})
        assert saved["saved"] is True
        assert (saved["cookies"], saved["localStorage"], saved["sessionStorage"]) == (1, 1, 1), saved
        assert saved["url"] == site.url("/state/home")

        # The person wipes it all: the browser's cookies, and the page's two storages.
        page = _page_of(e2e_app, site.url("/state/home"))
        await e2e_app.managed.context.clear_cookies()
        await page.evaluate("localStorage.clear(); sessionStorage.clear()")
        await page.reload()
        assert await _status(agent) == "not logged in: no cookie, localStorage, sessionStorage"

        loaded = await agent.ok("configure", {"action": "load_state", "name": "alice"})
        assert loaded["restored"] == {"cookies": 1, "localStorage": 1, "sessionStorage": 1}, loaded
        assert await _status(agent) == "logged in as alice"
        assert await page.text_content("#status") == "logged in as alice"
        # The HttpOnly cookie is back where only the server reads it.
        cookie = next(c for c in await e2e_app.managed.context.cookies(site.url("/")) if c["name"] == "sid")
        assert cookie["httpOnly"] is True and cookie["value"] in site.state_values

        listed = await agent.ok("configure", {"action": "list_states"})
        assert {"name": "alice", "cookies": 1, "localStorage": 1, "sessionStorage": 1}.items() <= next(
            s for s in listed["states"] if s["name"] == "alice"
        ).items()
        missing = await agent.error("configure", {"action": "load_state", "name": "bob"})
        assert missing["error"] == "invalid_params" and "alice" in missing["message"]

        # No answer carried a value, and no file Tabpilot wrote holds one in clear — not the state file,
        # not the log. (The browser's own profile keeps the site's storage, as any browser does.)
        answers = repr([saved, loaded, listed])
        assert not any(value in answers for value in site.state_values)
        state_file = e2e_app.paths.states_dir / "alice.state"
        assert state_file.stat().st_mode & 0o077 == 0
        e2e_app.vault.flush()
        searched = 0
        for path in e2e_home.rglob("*"):
            if not path.is_file() or e2e_app.paths.browser_profile in path.parents:
                continue
            data = path.read_bytes()
            searched += 1
            for value in site.state_values:
                assert value.encode() not in data, f"{value} is readable in {path}"
        assert searched > 3

        assert await agent.ok("configure", {"action": "delete_state", "name": "alice"}) == {
            "deleted": True,
            "name": "alice",
        }
        assert not state_file.exists()
        await agent.ok("interact", {"action": "close_tab", "tab_id": opened["tab_id"]})
    finally:
        await agent.close()


async def test_shells_share_one_cli_identity_unless_they_name_a_session(
    e2e_app: App, e2e_home: Path, site: FixtureSite, pilot_on: None
) -> None:
    def call(session: str | None, tool: str, args: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        env = env_for(e2e_home, **({"TABPILOT_SESSION": session} if session else {}))
        done = tabpilot(e2e_home, "call", tool, json.dumps(args), env=env)
        return done.returncode, json.loads(done.stdout)

    code, opened = await asyncio.to_thread(
        call, "one", "interact", {"action": "new_tab", "url": site.url("/actions.html?shell=one")}
    )
    assert code == 0, opened
    tab_id = opened["tab_id"]
    try:
        owner = e2e_app.engine.tab_owners.owner(tab_id)
        assert owner is not None and owner.key == "cli:one"
        # Another shell's session may read the tab but not act on it.
        code, refused = await asyncio.to_thread(
            call, "two", "interact", {"action": "click", "selector": "#change", "tab_id": tab_id}
        )
        assert code == 1 and refused["error"] == "tab_not_owned", refused
        code, read = await asyncio.to_thread(call, "two", "observe", {"what": "page", "tab_id": tab_id})
        assert code == 0 and read["url"].endswith("shell=one")
        # The same session in a later shell acts there by default.
        code, clicked = await asyncio.to_thread(call, "one", "interact", {"action": "click", "selector": "#change"})
        assert code == 0 and clicked["clicked"] is True
        assert await _page_of(e2e_app, site.url("/actions.html?shell=one")).text_content("#change") == "Clicked"
    finally:
        code, closed = await asyncio.to_thread(call, "one", "interact", {"action": "close_tab", "tab_id": tab_id})
        assert code == 0, closed


async def test_a_link_opening_a_new_tab_gives_that_tab_to_the_agent(
    e2e_app: App, e2e_home: Path, site: FixtureSite, pilot_on: None
) -> None:
    agent = await _agent(e2e_home)
    other = await _agent(e2e_home)
    try:
        opened = await agent.ok("interact", {"action": "new_tab", "url": site.url("/opener.html")})
        clicked = await agent.ok("interact", {"action": "click", "selector": "#blank"})
        new = clicked["new_tab"]
        assert clicked["changed"].startswith(f"opened a new tab {new['tab_id']}"), clicked
        assert new["tab_id"] != opened["tab_id"]
        # The page counted a trusted click, and the new tab is the agent's: its calls go there now.
        assert await _status(agent, opened["tab_id"]) == "opened by a trusted click"
        page = await until(lambda: _titled(agent, "Second Page"), timeout=10, what="the new tab loaded")
        assert page["url"].endswith("/second.html?from=opener")
        tabs = {t["tab_id"]: t for t in (await agent.ok("observe", {"what": "tabs"}))["tabs"]}
        assert tabs[new["tab_id"]]["mine"] is True
        # Another agent may read it by its id, not act on it.
        refused = await other.error("interact", {"action": "close_tab", "tab_id": new["tab_id"]})
        assert refused["error"] == "tab_not_owned"
        closed = await agent.ok("interact", {"action": "close_tab", "tab_id": new["tab_id"]})
        assert closed["closed"] is True
        await agent.ok("interact", {"action": "close_tab", "tab_id": opened["tab_id"]})
    finally:
        await agent.close()
        await other.close()


async def test_a_new_tab_still_waiting_for_its_first_page_is_read_once_that_page_is_there(
    e2e_app: App, e2e_home: Path, site: FixtureSite, pilot_on: None
) -> None:
    agent = await _agent(e2e_home)
    try:
        opened = await agent.ok("interact", {"action": "new_tab", "url": site.url("/opener.html")})
        clicked = await agent.ok("interact", {"action": "click", "selector": "#slow"})  # the server answers in 1.5 s
        new = clicked["new_tab"]
        # Until then the tab has no address of its own, only a pending one: it is not a browser page.
        page = await agent.ok("observe", {"what": "page", "tab_id": new["tab_id"]})
        assert (page["title"], page["url"]) == ("Slow", site.url("/slow?s=1.5")), page
        for tab in (new, opened):
            await agent.ok("interact", {"action": "close_tab", "tab_id": tab["tab_id"]})
    finally:
        await agent.close()


async def _titled(agent: StdioMcp, title: str) -> dict[str, Any] | None:
    page = await agent.ok("observe", {"what": "page"})
    return page if page["title"] == title else None


async def test_back_and_forward_in_a_tab_the_agent_opened(e2e_app: App, site: FixtureSite, pilot_on: None) -> None:
    """Chrome's goBack skips entries no user gesture made: after two navigations in a new tab, `back` answered
    "Cannot find a next page in history" (found by a black-box review)."""
    engine = e2e_app.engine
    opened = await engine.call("interact", {"action": "new_tab", "url": site.url("/index.html")}, session="S")
    try:
        for path in ("/second.html", "/frames.html"):
            await engine.call("interact", {"action": "navigate", "url": site.url(path)}, session="S")
        back = await engine.call("interact", {"action": "back"}, session="S")
        assert back["url"] == site.url("/second.html")
        back = await engine.call("interact", {"action": "back"}, session="S")
        assert back["url"] == site.url("/index.html")
        forward = await engine.call("interact", {"action": "forward"}, session="S")
        assert forward["url"] == site.url("/second.html")
    finally:
        await engine.call("interact", {"action": "close_tab", "tab_id": opened["tab_id"]}, session="S")
