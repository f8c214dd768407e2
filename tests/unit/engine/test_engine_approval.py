"""Approval: page-changing commands ask the human; a denial has no side effect; slow answers don't block."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest

from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tests.support.waiting import until
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeApprovals, FakeBrowser, FakeClock

JS = {"action": "execute_js", "script": "document.title = 'x'"}
PENDING = ("queued", "running", "awaiting_approval")


async def result_of(engine: Engine, correlation_id: str) -> dict[str, Any]:
    return await engine.call("observe", {"what": "command_result", "correlation_id": correlation_id})


async def final_result(engine: Engine, correlation_id: str) -> dict[str, Any]:
    async def done() -> dict[str, Any] | None:
        result = await result_of(engine, correlation_id)
        return None if result.get("status") in PENDING else result

    return await until(done, timeout=5, what=f"the final result of {correlation_id}")


async def test_allowed_mutation_runs(engine: Engine, browser: FakeBrowser, approvals: FakeApprovals) -> None:
    approvals.script = ["allow"]
    browser.replies["js.execute"] = {"success": True, "result": "x"}
    assert await engine.call("interact", JS, agent="claude") == {"success": True, "result": "x"}
    (request,) = approvals.requests
    assert (request.tool, request.mode, request.agent) == ("interact", "execute_js", "claude")
    assert request.params["script"] == JS["script"]
    assert request.tab_url == "https://example.test/"
    (call,) = browser.acting_calls
    assert call.op == "js.execute"
    assert call.params == {"script": JS["script"], "timeout_ms": 5000, "tab_id": 1}  # the approved tab
    assert call.timeout_s == pytest.approx(7.0)  # the page's timeout plus a margin for the round trip


async def test_denied_mutation_never_reaches_the_browser(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["deny"]
    with pytest.raises(TabpilotError) as info:
        await engine.call("interact", JS)
    assert info.value.code == "approval_denied"
    assert info.value.message == "The user denied interact.execute_js; nothing was done in the page."
    assert info.value.details["correlation_id"].startswith("corr-")
    assert browser.acting_calls == []
    finished = engine.activity.recent()[-1]
    assert (finished.phase, finished.outcome, finished.error) == ("finished", "denied", "approval_denied")


async def test_unanswered_prompt_is_approval_timeout(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["timeout"]
    with pytest.raises(TabpilotError) as info:
        await engine.call("interact", JS)
    assert info.value.code == "approval_timeout"
    assert browser.acting_calls == []


async def test_reads_and_navigation_never_ask(engine: Engine, browser: FakeBrowser, approvals: FakeApprovals) -> None:
    approvals.script = ["deny"] * 5
    browser.replies["tab.screenshot"] = {"data": base64.b64encode(b"png").decode(), "width": 8, "height": 6}
    browser.replies["tabs.track"] = {"tracked": {"tab_id": 3, "url": "https://a.test/", "title": "A"}}
    await engine.call("interact", {"action": "navigate", "url": "https://a.test/"})
    await engine.call("observe", {"what": "dom", "selector": "h1"})
    await engine.call("generate", {"type": "screenshot"})
    await engine.call("configure", {"action": "track_tab", "tab_id": 3})
    assert approvals.requests == []
    assert browser.ops == ["tab.navigate", "dom.query", "tab.screenshot", "tabs.track"]


async def test_the_prompt_shows_long_scripts_whole(engine: Engine, approvals: FakeApprovals) -> None:
    """Nothing may hide past a cut: a payload after 2000 harmless characters is shown too."""
    approvals.script = ["allow"]
    script = "x" * 2000 + "; steal()"
    await engine.call("interact", {"action": "execute_js", "script": script})
    assert approvals.requests[0].params["script"] == script
    assert approvals.requests[0].steps[0]["script"] == script
    assert "tab_id" not in approvals.requests[0].params  # unset values are not shown


async def test_slow_approval_answers_awaiting_approval_then_the_final_result(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    engine = make_engine(approval_wait_ms=30)
    browser.replies["js.execute"] = {"success": True, "result": 42}
    pending = await engine.call("interact", JS)
    assert pending["status"] == "awaiting_approval"
    cid = pending["correlation_id"]
    assert browser.acting_calls == []
    assert (await result_of(engine, cid))["status"] == "awaiting_approval"

    approvals.held[0].set_result("allow")
    assert await final_result(engine, cid) == {"success": True, "result": 42}
    assert [c.op for c in browser.acting_calls] == ["js.execute"]


async def test_the_approval_wait_counts_from_the_calls_arrival(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    """Time spent before the prompt (finding the tab, taking the crop) comes out of the approval wait:
    the agent's client started counting when it sent the call."""
    clock = FakeClock()
    engine = make_engine(clock=clock)  # the default 20 s wait
    decide = approvals.decide

    async def slow_to_show(request: Any) -> Any:
        clock.advance(19.95)  # the prompt appears just before the call's 20 s are up
        return await decide(request)

    approvals.decide = slow_to_show  # type: ignore[method-assign]
    pending = await asyncio.wait_for(engine.call("interact", JS), timeout=5)
    assert pending["status"] == "awaiting_approval"
    approvals.held[0].set_result("deny")


async def test_slow_denial_is_reported_by_command_result(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    engine = make_engine(approval_wait_ms=30)
    cid = (await engine.call("interact", JS))["correlation_id"]
    approvals.held[0].set_result("deny")
    await until(lambda: engine.jobs.get(cid).done, timeout=5, what="the denied job to end")  # type: ignore[union-attr]
    with pytest.raises(TabpilotError) as info:
        await result_of(engine, cid)
    assert info.value.code == "approval_denied"
    assert info.value.details["correlation_id"] == cid
    assert browser.acting_calls == []


async def test_the_command_runs_in_the_tab_that_was_approved(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    """Another tab comes to the front while the prompt waits: the command still goes to the approved one."""
    approvals.script = ["hold"]
    browser.queue("tabs.resolve", {"tab_id": 7, "url": "https://shop.test/cart", "title": "Cart"})
    call = asyncio.get_running_loop().create_task(engine.call("interact", JS))
    await until(lambda: approvals.held, timeout=5, what="the prompt")
    browser.replies["tabs.resolve"] = {"tab_id": 7, "url": "https://shop.test/cart", "title": "Cart"}
    approvals.held[0].set_result("allow")
    await call
    [acting] = browser.acting_calls
    assert acting.params["tab_id"] == 7


async def test_a_tab_that_moved_to_another_site_while_the_prompt_waited_is_left_alone(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    clock = FakeClock()
    engine = make_engine(clock=clock)
    approvals.script = ["hold"]
    browser.queue("tabs.resolve", {"tab_id": 7, "url": "https://shop.test/cart", "title": "Cart"})
    call = asyncio.get_running_loop().create_task(engine.call("interact", JS))
    await until(lambda: approvals.held, timeout=5, what="the prompt")
    browser.replies["tabs.resolve"] = {"tab_id": 7, "url": "https://evil.test/", "title": "Evil"}
    clock.advance(4)  # the person reads the prompt
    approvals.held[0].set_result("allow")
    with pytest.raises(TabpilotError) as err:
        await call
    assert err.value.code == "domain_changed"
    assert err.value.details["approved_origin"] == "https://shop.test"
    assert browser.acting_calls == []


async def test_an_answer_given_at_once_does_not_look_at_the_tab_again(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    """A rule or `--approve auto` answers in no time: the tab seen for the question is the tab acted on."""
    approvals.script = ["allow"]
    browser.replies["js.execute"] = {"success": True, "result": 1}
    assert await engine.call("interact", JS) == {"success": True, "result": 1}
    assert [c.op for c in browser.calls].count("tabs.resolve") == 1


async def test_back_to_back_actions_look_the_tab_up_once_until_the_browser_says_it_moved(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["allow"] * 5
    browser.replies["js.execute"] = {"success": True, "result": "x"}
    await engine.call("interact", JS)
    await engine.call("interact", JS)
    assert browser.ops.count("tabs.resolve") == 1  # the second approval knew the tab and its site
    # The page moved on by itself: the browser says so, and the next approval looks at the tab again.
    browser.active_url = "https://elsewhere.test/"
    engine.on_browser_event("tab_updated", {"tab_id": 1})
    await engine.call("interact", JS)
    assert browser.ops.count("tabs.resolve") == 2
    assert approvals.requests[-1].tab_url == "https://elsewhere.test/"
    # Capture batches and the like say nothing about where a tab is.
    engine.on_browser_event("capture", {"tab_id": 1, "items": []})
    await engine.call("interact", JS)
    assert browser.ops.count("tabs.resolve") == 2


async def test_a_navigation_or_a_new_connection_makes_the_next_approval_look_again(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["allow"] * 5
    browser.replies["js.execute"] = {"success": True, "result": "x"}
    await engine.call("interact", JS)
    await engine.call("interact", {"action": "navigate", "url": "https://b.test/"})
    browser.active_url = "https://b.test/"
    await engine.call("interact", JS)
    assert approvals.requests[-1].tab_url == "https://b.test/"
    engine.set_browser_connected(False)
    engine.set_browser_connected(True)
    await engine.call("interact", JS)
    assert browser.ops.count("tabs.resolve") == 3
