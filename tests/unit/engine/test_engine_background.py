"""Long and background commands: an answer at once, the outcome later from observe command_result."""

from __future__ import annotations

import pytest

from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import Gate
from tests.unit.engine.test_engine_approval import final_result, result_of
from tests.unit.fakes import FakeApprovals, FakeBrowser


async def test_background_answers_queued_at_once_and_the_result_comes_later(engine: Engine, gate: Gate) -> None:
    answer = await engine.call("configure", {"action": "held", "background": True})
    assert answer == {"status": "queued", "correlation_id": answer["correlation_id"]}
    cid = answer["correlation_id"]
    await gate.entered.wait()
    assert await result_of(engine, cid) == {
        "status": "running",
        "correlation_id": cid,
        "steps_completed": 0,
        "steps_total": None,
    }
    gate.release.set()
    assert await final_result(engine, cid) == {"released": True}
    # The final result stays available.
    assert await result_of(engine, cid) == {"released": True}


async def test_background_mutation_still_needs_approval(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["deny"]
    answer = await engine.call("interact", {"action": "execute_js", "script": "1", "background": True})
    assert answer["status"] == "queued"
    with pytest.raises(TabpilotError) as info:
        await final_result(engine, answer["correlation_id"])
    assert info.value.code == "approval_denied"
    assert browser.acting_calls == []


async def test_a_call_past_its_wait_answers_running_with_progress(engine: Engine, gate: Gate) -> None:
    seen: list[tuple[int, int | None, str]] = []
    answer = await engine.call("configure", {"action": "stepper", "wait_ms": 20}, progress=lambda *a: seen.append(a))
    cid = answer["correlation_id"]
    assert answer == {"status": "running", "correlation_id": cid, "steps_completed": 1, "steps_total": 3}
    gate.release.set()
    assert await final_result(engine, cid) == {"steps": 3}
    assert seen == [(1, 3, "first step"), (3, 3, "done")]


async def test_a_call_within_its_wait_answers_the_result(engine: Engine, gate: Gate) -> None:
    gate.release.set()
    assert await engine.call("configure", {"action": "stepper", "wait_ms": 5000}) == {"steps": 3}


async def test_command_result_for_an_unknown_id(engine: Engine) -> None:
    with pytest.raises(TabpilotError) as info:
        await result_of(engine, "corr-doesnotexist")
    assert info.value.code == "invalid_params"
    assert "corr-doesnotexist" in info.value.message
    assert info.value.details["param"] == "correlation_id"
    assert info.value.details["correlation_id"] == "corr-doesnotexist"


async def test_stopping_the_engine_ends_waiting_calls_with_internal(engine: Engine, gate: Gate) -> None:
    cid = (await engine.call("configure", {"action": "held", "background": True}))["correlation_id"]
    await gate.entered.wait()
    await engine.close()
    job = engine.jobs.get(cid)
    assert job is not None and job.error is not None
    assert job.error.code == "internal"
    assert "stopping" in job.error.message
    finished = engine.activity.recent()[-1]
    assert (finished.phase, finished.outcome) == ("finished", "error")
