"""The pilot switch and capability toggles: what an agent may do before anything reaches the page."""

from __future__ import annotations

import pytest

from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeApprovals, FakeBrowser, page_info

JS = {"action": "execute_js", "script": "document.title"}


async def test_interact_with_the_pilot_off_is_refused_before_anything_happens(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    engine = make_engine(pilot_on=False)
    for args in (JS, {"action": "navigate", "url": "https://a.test/"}):
        with pytest.raises(TabpilotError) as info:
            await engine.call("interact", args)
        assert info.value.code == "ai_web_pilot_disabled"
        assert "tray" in info.value.message and "agent cannot turn it on" in info.value.message
    assert browser.calls == []
    assert approvals.requests == []
    assert engine.activity.recent() == []


async def test_observe_works_with_the_pilot_off(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine(pilot_on=False)
    browser.replies["page.info"] = page_info(url="https://a.test/", title="A")
    assert await engine.call("observe", {"what": "page"}) == page_info(url="https://a.test/", title="A")
    assert browser.ops == ["page.info"]


async def test_observe_pilot_reports_the_switch(make_engine: EngineFactory) -> None:
    engine = make_engine(pilot_on=False)
    state = await engine.call("observe", {"what": "pilot"})
    assert state["ai_web_pilot"] is False
    assert state["extension_connected"] is True
    assert state["capabilities"]["execute_js"] is True
    assert state["browser"] == {"name": "FakeChromium", "version": "1.0"}  # no active_url leak


async def test_turning_the_pilot_on_lets_interact_through(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine(pilot_on=False)
    engine.pilot.set_pilot(True)
    await engine.call("interact", {"action": "navigate", "url": "https://a.test/"})
    assert browser.ops == ["tab.navigate"]


async def test_a_capability_turned_off_refuses_its_commands(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    engine = make_engine()
    engine.pilot.set_capability("execute_js", False)
    with pytest.raises(TabpilotError) as info:
        await engine.call("interact", JS)
    assert info.value.code == "ai_web_pilot_disabled"
    assert "'execute_js' capability is turned off" in info.value.message
    assert info.value.details == {"capability": "execute_js"}
    assert approvals.requests == [] and browser.calls == []
    # Other interact modes are not affected.
    await engine.call("interact", {"action": "navigate", "url": "https://a.test/"})
    assert browser.ops == ["tab.navigate"]


async def test_invalid_params_are_refused_before_any_job(make_engine: EngineFactory) -> None:
    engine = make_engine()
    with pytest.raises(TabpilotError) as info:
        await engine.call("interact", {"action": "execute_js"})
    assert info.value.code == "invalid_params"
    assert engine.jobs.running() == []
    assert engine.activity.recent() == []
