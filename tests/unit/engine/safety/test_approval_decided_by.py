"""Who decided: `approval_denied` says `decided_by` (person | rule | policy), with a message for the policy
that says nobody could be asked and how to change it; every activity row says who decided, what site and
what target it acted on, and marks an agent's name as its own claim."""

from __future__ import annotations

import pytest

from tabpilot.approvals import AutoApprove, DenyAll
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.events import ActivityEvent
from tabpilot.engine.ports import ApprovalPort
from tabpilot.engine.safety.pilot import PilotState
from tests.unit.fakes import FakeApprovals, FakeBrowser

FILL = {"action": "fill", "selector": "#password", "value": "hunter2-xyz"}
JS = {"action": "execute_js", "script": "document.title =\n  'x'"}


async def run(approvals: ApprovalPort, args: dict[str, object], **options: object) -> tuple[Engine, FakeBrowser]:
    browser = FakeBrowser(active_url="https://shop.test/cart")
    engine = Engine(build_registry(), browser, approvals, pilot=PilotState(True))
    try:
        await engine.call("interact", args, **options)  # type: ignore[arg-type]
    finally:
        await engine.close()
    return engine, browser


def finished(engine: Engine) -> ActivityEvent:
    return next(e for e in reversed(engine.activity.recent()) if e.phase == "finished")


async def test_a_policy_denial_says_nobody_could_be_asked_and_how_to_change_it() -> None:
    with pytest.raises(TabpilotError) as info:
        await run(DenyAll(), FILL)
    error = info.value
    assert error.code == "approval_denied"
    assert error.details["decided_by"] == "policy"
    assert "user denied" not in error.message
    assert "Nobody could be asked to approve interact.fill" in error.message
    assert "--approve prompt" in error.message and "--approve auto" in error.message
    assert set(error.envelope()) == {"error", "message", "decided_by", "correlation_id"}


async def test_a_person_denial_says_person() -> None:
    with pytest.raises(TabpilotError) as info:
        await run(FakeApprovals("deny"), FILL)
    assert info.value.details["decided_by"] == "person"
    assert info.value.message == "The user denied interact.fill; nothing was done in the page."


async def test_every_finished_row_says_who_decided() -> None:
    engine, _ = await run(AutoApprove(), FILL)
    assert finished(engine).decided_by == "auto"
    engine, _ = await run(FakeApprovals("allow"), FILL)
    assert finished(engine).decided_by == "person"
    browser = FakeBrowser(active_url="https://shop.test/cart")
    engine = Engine(build_registry(), browser, FakeApprovals("timeout"), pilot=PilotState(True))
    with pytest.raises(TabpilotError):
        await engine.call("interact", FILL)
    await engine.close()
    assert (finished(engine).error, finished(engine).decided_by) == ("approval_timeout", "timeout")
    engine, _ = await run(FakeApprovals(), {"action": "navigate", "url": "https://shop.test/"})
    assert (finished(engine).decided_by, finished(engine).site) == ("not_needed", "https://shop.test")


async def test_a_policy_denied_row_says_policy_and_its_site() -> None:
    browser = FakeBrowser(active_url="https://shop.test/cart")
    engine = Engine(build_registry(), browser, DenyAll(), pilot=PilotState(True))
    with pytest.raises(TabpilotError):
        await engine.call("interact", FILL)
    await engine.close()
    row = finished(engine)
    assert (row.outcome, row.decided_by, row.site) == ("denied", "policy", "https://shop.test")
    assert [e.phase for e in engine.activity.recent()] == ["started", "awaiting_approval", "finished"]


async def test_execute_js_rows_have_a_target_and_a_site() -> None:
    engine, _ = await run(FakeApprovals("allow"), JS)
    row = finished(engine)
    assert row.target == "script: document.title = 'x'"
    assert row.site == "https://shop.test"


async def test_an_agent_calling_itself_the_person_is_shown_as_an_agent() -> None:
    engine, _ = await run(FakeApprovals("allow"), JS, agent="you (tray)")
    row = finished(engine)
    assert row.actor == "agent"
    assert row.who == 'agent says it is "you (tray)"'
    engine, _ = await run(FakeApprovals(), JS, agent="you (tray)", approved=True)
    row = finished(engine)
    assert (row.actor, row.who, row.decided_by) == ("person", "you (tray)", "person")


async def test_a_name_cannot_break_a_log_line() -> None:
    engine, _ = await run(FakeApprovals("allow"), JS, agent="evil\nyou (tray) execute_js -> ok")
    assert "\n" not in finished(engine).who
