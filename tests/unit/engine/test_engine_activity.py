"""The activity stream as the tray and activity window see it: one started and one finished per command."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.events import ActivityEvent
from tests.support.waiting import until
from tests.unit.engine.conftest import EngineFactory, Gate
from tests.unit.fakes import FakeApprovals, FakeBrowser, FakeClock, page_info


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def engine(make_engine: EngineFactory, clock: FakeClock) -> Engine:
    return make_engine(clock=clock)


def record(engine: Engine) -> list[ActivityEvent]:
    events: list[ActivityEvent] = []
    engine.activity.subscribe(events.append)
    return events


async def test_started_and_finished_with_outcome_duration_and_agent(
    engine: Engine, browser: FakeBrowser, clock: FakeClock
) -> None:
    async def slow_page(params: dict[str, Any]) -> dict[str, Any]:
        clock.advance(1.25)
        return page_info(url="https://a.test/")

    browser.replies["page.info"] = slow_page
    events = record(engine)
    await engine.call("observe", {"what": "page", "tab_id": 4}, agent="claude-code")
    started, finished = events
    assert started.phase == "started" and finished.phase == "finished"
    assert started.correlation_id == finished.correlation_id
    for event in events:
        assert (event.agent, event.tool, event.mode, event.kind) == ("claude-code", "observe", "page", "read")
        assert event.params == {"tab_id": 4}
    assert finished.outcome == "ok" and finished.error is None
    assert finished.duration_ms == 1250.0
    assert finished.time - started.time == pytest.approx(1.25)
    assert engine.activity.running == 0


async def test_target_is_the_url_or_selector(engine: Engine) -> None:
    events = record(engine)
    await engine.call("interact", {"action": "navigate", "url": "https://a.test/x"})
    await engine.call("observe", {"what": "dom", "selector": "#main"})
    assert [e.target for e in events if e.phase == "started"] == ["https://a.test/x", "#main"]


async def test_failures_and_denials_are_told_apart(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    events = record(engine)
    browser.replies["dom.query"] = TabpilotError("element_not_found", "none")
    approvals.script = ["deny"]
    with pytest.raises(TabpilotError):
        await engine.call("observe", {"what": "dom", "selector": "#x"})
    with pytest.raises(TabpilotError):
        await engine.call("interact", {"action": "execute_js", "script": "1"})
    finished = [e for e in events if e.phase == "finished"]
    assert [(e.outcome, e.error) for e in finished] == [
        ("error", "element_not_found"),
        ("denied", "approval_denied"),
    ]


async def test_running_counts_commands_in_flight(engine: Engine, gate: Gate) -> None:
    assert engine.activity.running == 0
    await engine.call("configure", {"action": "held", "background": True})
    await gate.entered.wait()
    assert engine.activity.running == 1
    gate.release.set()
    await until(lambda: engine.activity.running == 0, timeout=5, what="the held command to finish")


async def test_a_failing_subscriber_does_not_break_the_command(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(event: ActivityEvent) -> None:
        raise RuntimeError("the activity window is gone")

    engine.activity.subscribe(broken)
    events = record(engine)
    with caplog.at_level(logging.ERROR, logger="tabpilot.observers"):
        result = await asyncio.wait_for(engine.call("observe", {"what": "tabs"}), 5)
    assert result == {"tabs": []}
    assert [e.phase for e in events] == ["started", "finished"]
    assert any("activity stream listener failed" in r.getMessage() for r in caplog.records)
