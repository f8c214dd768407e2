"""A run owns its tab (issue 20): while a workflow acts in a tab, no other command acts there; reads go on."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tabpilot.engine.core import Engine, EngineConfig
from tests.unit.engine.conftest import EngineFactory
from tests.unit.engine.scrape_support import TAB, Blocker, error_of, final, workflow_args
from tests.unit.fakes import FakeApprovals, FakeBrowser


async def _running_in_tab_7(make_engine: EngineFactory, browser: FakeBrowser) -> tuple[Engine, Blocker, str]:
    async def resolve(params: dict[str, Any]) -> dict[str, Any]:
        return {**TAB, "tab_id": params.get("tab_id", 7)}  # no tab named: the extension picks tab 7

    browser.replies["tabs.resolve"] = resolve
    blocker = Blocker({"state": "visible"})
    browser.replies["dom.wait"] = blocker
    engine = make_engine(config=EngineConfig(step_delay_ms=0))
    started = await engine.call("interact", workflow_args([{"type": "wait", "selector": ".slow"}], background=True))
    await asyncio.wait_for(blocker.entered.wait(), 5)
    return engine, blocker, started["correlation_id"]


async def test_a_click_in_the_runs_tab_is_refused_naming_the_run(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["allow"] * 5
    engine, blocker, correlation_id = await _running_in_tab_7(make_engine, browser)

    for args in ({"action": "click", "selector": "#next", "tab_id": 7}, {"action": "click", "selector": "#next"}):
        error = await error_of(engine.call("interact", args))
        assert error.code == "workflow_in_progress"
        assert error.details["workflow_id"].startswith("wf-jobs-")
        assert error.details["run_id"].startswith("run-")
        assert error.details["run_id"] in error.message
    navigate = await error_of(engine.call("interact", {"action": "navigate", "url": "https://a.test/2", "tab_id": 7}))
    assert navigate.code == "workflow_in_progress"
    assert not [c for c in browser.calls if c.op in ("dom.click", "tab.navigate")], "nothing acted in the tab"
    assert approvals.requests == [], "a refused action is not asked about"

    text = '- button "Next" @e1'
    browser.replies["dom.snapshot"] = {"tab_id": 7, "url": TAB["url"], "title": "Start", "document": "d1", "text": text}
    read = await engine.call("observe", {"what": "snapshot", "tab_id": 7})  # reads go on
    assert "Next" in json.dumps(read)

    browser.replies["dom.click"] = {"clicked": True, "changed": "nothing"}
    other = await engine.call("interact", {"action": "click", "selector": "#next", "tab_id": 8})
    assert "error" not in other  # another tab is free

    blocker.release.set()
    assert (await final(engine, correlation_id))["status"] == "complete"
    await engine.call("interact", {"action": "click", "selector": "#next", "tab_id": 7})  # the tab is free again
    assert [c.params.get("tab_id") for c in browser.calls if c.op == "dom.click"] == [8, 7]


async def test_a_call_naming_no_tab_acts_in_the_tab_that_was_checked(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    """While a run holds tab 7, a navigate naming no tab (no prompt to pin it) is checked against the tab in
    front (8) and sent there by id: had the run's tab come to the front meanwhile, it would not land in it."""
    engine, blocker, correlation_id = await _running_in_tab_7(make_engine, browser)

    async def front_is_8(params: dict[str, Any]) -> dict[str, Any]:
        return {**TAB, "tab_id": params.get("tab_id", 8)}

    browser.replies["tabs.resolve"] = front_is_8
    browser.replies["tab.navigate"] = {"status": "complete", "url": "https://a.test/2", "title": "2"}
    await engine.call("interact", {"action": "navigate", "url": "https://a.test/2"})
    assert [c.params.get("tab_id") for c in browser.calls if c.op == "tab.navigate"] == [8]
    assert approvals.requests == []
    blocker.release.set()
    assert (await final(engine, correlation_id))["status"] == "complete"
