"""`tabpilot chain`'s engine side: calls run in order through Engine.call, stopping at the first failure."""

from __future__ import annotations

import pytest

from tabpilot.engine.chain import MAX_CHAIN, ChainCall, parse_calls, run_chain
from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeBrowser, page_info

NAV = ChainCall("interact", {"action": "navigate", "url": "https://a.test/"})
PAGE = ChainCall("observe", {"what": "page"})


async def test_a_chain_runs_every_call_in_order_as_single_calls_would(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine(pilot_on=True)
    browser.replies["tab.navigate"] = {"status": "complete", "url": "https://a.test/", "title": "A"}
    browser.replies["page.info"] = page_info(url="https://a.test/", title="A")
    answer = await run_chain(engine, [NAV, PAGE, PAGE], "cli")
    assert answer["ok"] is True and answer["completed"] == 3 and answer["total"] == 3
    assert [r["result"]["title"] for r in answer["results"]] == ["A", "A", "A"]
    assert browser.ops == ["tab.navigate", "page.info", "page.info"]
    finished = [e for e in engine.activity.recent() if e.phase == "finished"]
    assert [(e.agent, e.mode) for e in finished] == [("cli", "navigate"), ("cli", "page"), ("cli", "page")]


async def test_a_chain_stops_at_the_first_error(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine(pilot_on=False)  # navigate is refused: the pilot is off
    browser.replies["page.info"] = page_info(url="https://a.test/", title="A")
    answer = await run_chain(engine, [PAGE, NAV, PAGE], "cli")
    assert answer["ok"] is False and answer["completed"] == 1 and answer["total"] == 3
    assert answer["results"][1] == {"ok": False, "error": answer["results"][1]["error"]}
    assert answer["results"][1]["error"]["error"] == "ai_web_pilot_disabled"
    assert len(answer["results"]) == 2
    assert browser.ops == ["page.info"], "nothing after the failure ran"


def test_a_chain_request_is_checked_whole() -> None:
    assert parse_calls({"calls": [{"tool": "observe", "arguments": {"what": "page"}}]}) == [PAGE]
    for bad in (
        {},
        {"calls": []},
        {"calls": [{"tool": "observe"}] * (MAX_CHAIN + 1)},
        {"calls": [{"arguments": {}}]},
        {"calls": [{"tool": "observe", "arguments": []}]},
        [],
    ):
        with pytest.raises(TabpilotError) as caught:
            parse_calls(bad)
        assert caught.value.code == "invalid_params"
