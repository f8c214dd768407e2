"""Each agent its own tabs: the engine's rule, with a fake browser (the extension's side is e2e)."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety.tab_owners import Session, TabOwners
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeApprovals, FakeBrowser


@pytest.fixture
def approvals() -> FakeApprovals:
    return FakeApprovals(*["allow"] * 20)


def _opens(browser: FakeBrowser, *tab_ids: int) -> None:
    browser.queue("tabs.open", *({"tab_id": t, "url": f"https://{t}.test/", "title": str(t)} for t in tab_ids))


async def _refused(engine: Engine, tool: str, args: dict[str, Any], session: str) -> TabpilotError:
    with pytest.raises(TabpilotError) as caught:
        await engine.call(tool, args, agent="bot 1.0", session=session)
    return caught.value


async def test_an_agent_acts_in_its_own_tab_and_not_in_anothers(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine()
    _opens(browser, 11, 22)
    assert (await engine.call("interact", {"action": "new_tab", "url": "https://a.test/"}, session="A"))["tab_id"] == 11
    await engine.call("interact", {"action": "new_tab", "url": "https://b.test/"}, session="B")

    await engine.call("interact", {"action": "click", "selector": "#go"}, session="A")
    assert browser.calls[-1].op == "dom.click" and browser.calls[-1].params["tab_id"] == 11  # its own, unnamed

    before = len(browser.acting_calls)
    refused = await _refused(engine, "interact", {"action": "click", "selector": "#go", "tab_id": 22}, "A")
    assert refused.code == "tab_not_owned"
    assert refused.details == {"tab_id": 22, "owner": "agent (B)", "correlation_id": refused.details["correlation_id"]}
    assert "new_tab" in refused.message and "hand" in refused.message
    assert len(browser.acting_calls) == before  # nothing reached the page
    assert (await _refused(engine, "interact", {"action": "close_tab", "tab_id": 22}, "A")).code == "tab_not_owned"
    assert (await _refused(engine, "interact", {"action": "switch_tab", "tab_id": 22}, "A")).code == "tab_not_owned"

    # A read that names the other's tab is allowed.
    await engine.call("observe", {"what": "page", "tab_id": 22}, session="A")
    assert browser.calls[-1].op == "page.info" and browser.calls[-1].params["tab_id"] == 22


async def test_an_agent_without_a_tab_is_refused_where_the_default_tab_is_anothers(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine()
    _opens(browser, 22)
    await engine.call("interact", {"action": "new_tab", "url": "https://b.test/"}, session="B")
    browser.replies["tabs.resolve"] = {"tab_id": 22, "url": "https://b.test/", "title": "B"}  # B's is in front
    for tool, args in (("interact", {"action": "click", "selector": "#go"}), ("observe", {"what": "page"})):
        refused = await _refused(engine, tool, args, "C")
        assert refused.code == "tab_not_owned"
        assert "pass its tab_id" in refused.message
    # The person's tab in front is open to everyone, and the call is pinned to it.
    browser.replies["tabs.resolve"] = {"tab_id": 5, "url": "https://mine.test/", "title": "Mine"}
    await engine.call("interact", {"action": "click", "selector": "#go"}, session="C")
    assert browser.calls[-1].params["tab_id"] == 5


async def test_with_no_owned_tabs_calls_go_where_the_extension_says_without_a_lookup(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine()
    await engine.call("observe", {"what": "page"}, session="C")
    assert browser.ops == ["page.info"]
    assert "tab_id" not in browser.calls[0].params


async def test_closing_releases_a_tab_and_the_person_may_use_any(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine()
    _opens(browser, 11)
    await engine.call("interact", {"action": "new_tab"}, session="A")
    browser.replies["tabs.close"] = {"tab_id": 11}
    refused = await _refused(engine, "interact", {"action": "close_tab", "tab_id": 5}, "A")
    assert refused.code == "tab_not_owned" and "the person's" in refused.message
    assert await engine.call("interact", {"action": "close_tab", "tab_id": 11}, session="A") == {
        "closed": True,
        "tab_id": 11,
    }
    assert engine.tab_owners.owner(11) is None and engine.tab_owners.current("A") is None

    _opens(browser, 12)
    await engine.call("interact", {"action": "new_tab"}, session="A")
    engine.tab_owners.on_browser_event("tab_closed", {"tab_id": 12})  # the extension saw it close
    assert engine.tab_owners.owner(12) is None


async def test_observe_tabs_names_owners_and_forgets_tabs_that_are_gone(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine()
    _opens(browser, 11, 22, 33)
    for session in ("A", "B", "B"):
        await engine.call("interact", {"action": "new_tab"}, agent="bot 1.0", session=session)
    browser.replies["tabs.list"] = {
        "tabs": [{"tab_id": t, "url": "", "title": "", "active": False, "tracked": False} for t in (5, 11, 22)]
    }
    tabs = {
        t["tab_id"]: t for t in (await engine.call("observe", {"what": "tabs"}, agent="bot 1.0", session="A"))["tabs"]
    }
    assert (tabs[5]["owner"], tabs[5]["mine"]) == (None, False)
    assert (tabs[11]["owner"], tabs[11]["mine"]) == ("bot 1.0 (A)", True)
    assert (tabs[22]["owner"], tabs[22]["mine"]) == ("bot 1.0 (B)", False)
    assert engine.tab_owners.owner(33) is None  # not in the browser any more


async def test_the_person_hands_tabs_over_and_takes_them_back(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine()
    await engine.call("observe", {"what": "pilot"}, agent="bot 1.0", session="A")
    owners = engine.tab_owners
    owners.on_browser_event("hand_tab", {"tab_id": 5, "to": "A"})
    assert owners.owner(5) == Session("A", "bot 1.0")
    await engine.call("interact", {"action": "click", "selector": "#go"}, agent="bot 1.0", session="A")
    assert browser.calls[-1].params["tab_id"] == 5  # its calls go there now
    owners.on_browser_event("hand_tab", {"tab_id": 5, "to": "nobody-known"})  # an ended session: no change
    assert owners.owner(5) == Session("A", "bot 1.0")
    owners.on_browser_event("hand_tab", {"tab_id": 5, "to": None})
    assert owners.owner(5) is None and owners.current("A") is None
    assert owners.view()["agents"] == [{"session": "A", "label": "bot 1.0 (A)"}]


async def test_a_person_started_run_is_not_limited(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine()
    _opens(browser, 22)
    await engine.call("interact", {"action": "new_tab"}, session="B")
    await engine.call(
        "interact", {"action": "click", "selector": "#go", "tab_id": 22}, agent="you (tray)", approved=True
    )
    assert browser.calls[-1].op == "dom.click"


def test_a_session_that_ends_gives_its_tabs_back() -> None:
    owners = TabOwners()
    changes: list[None] = []
    owners.subscribe(lambda: changes.append(None))
    owners.claim(1, Session("A", "bot"))
    owners.claim(2, Session("A", "bot"))
    owners.ended("A")
    assert owners.owned() == {} and owners.sessions() == [] and len(changes) == 3


async def test_an_agent_cannot_track_another_agents_tab(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine()
    _opens(browser, 22)
    await engine.call("interact", {"action": "new_tab"}, session="B")
    assert (await _refused(engine, "configure", {"action": "track_tab", "tab_id": 22}, "A")).code == "tab_not_owned"
    browser.replies["tabs.track"] = {"tracked": {"tab_id": 22, "url": "https://b.test/", "title": "B"}}
    await engine.call("configure", {"action": "track_tab", "tab_id": 22}, session="B")
    assert browser.calls[-1].op == "tabs.track"


def test_a_tab_a_page_opens_is_its_openers_owners() -> None:
    owners = TabOwners()
    agent = Session("mcp-1", "claude")
    owners.claim(5, agent)
    owners.on_browser_event("tab_opened", {"tab_id": 6, "opener_tab_id": 5})
    assert owners.owner(6) == agent
    assert owners.current("mcp-1") == 6  # in front, as the browser put it
    owners.on_browser_event("tab_opened", {"tab_id": 8, "opener_tab_id": 7})  # the person's tab opened it
    assert owners.owner(8) is None


@pytest.mark.parametrize("name", ["person", "you", "you (tray)"])
async def test_an_agent_that_calls_itself_the_person_is_still_an_agent(
    make_engine: EngineFactory, browser: FakeBrowser, name: str
) -> None:
    """Who is the person is decided by the channel (the tray), never by a name a client sends."""
    engine = make_engine()
    _opens(browser, 22)
    await engine.call("interact", {"action": "new_tab", "url": "https://b.test/"}, session="B")
    before = len(browser.acting_calls)
    for args in (
        {"action": "click", "selector": "#go", "tab_id": 22},
        {"action": "execute_js", "script": "1", "tab_id": 22},
    ):
        # As the HTTP API and the local socket call it: the body's agent name, no session of its own.
        with pytest.raises(TabpilotError) as caught:
            await engine.call("interact", args, agent=name)
        assert caught.value.code == "tab_not_owned"
        with pytest.raises(TabpilotError) as caught:
            await engine.call("interact", args, agent=name, session=name)
        assert caught.value.code == "tab_not_owned"
    assert len(browser.acting_calls) == before  # nothing reached B's page
