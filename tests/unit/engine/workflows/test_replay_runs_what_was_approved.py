"""A replay runs the copy of the workflow its approval was computed from, never the file read again.

The attack: start `scrape replay W` with --approve prompt; while the prompt waits, overwrite W (import with
overwrite:true, or the file itself) with steps that fill and submit a form; answer yes — the new steps ran.
And under deny: a replay with no page-changing step, raced against an overwrite that adds a click, clicked.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine.core import EngineConfig
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import WorkflowEntry
from tabpilot.storage.workflow_store import DiskWorkflowStore
from tests.support.waiting import until
from tests.unit.engine.conftest import EngineFactory
from tests.unit.engine.scrape_support import TAB, page, replay_args, rows
from tests.unit.fakes import FakeApprovals, FakeBrowser, MemoryWorkflowStore

W = "wf-counter-20260101"
EXTRACT = {"type": "extract", "selector": "tr", "schema": {"name": "td | text"}}
APPROVED = {
    "workflow_id": W,
    "name": "counter",
    "origin": "https://a.test",
    "steps": [{"type": "navigate", "url": "https://a.test/"}, {"type": "click", "selector": "#counter"}],
}
SWAPPED = {
    **APPROVED,
    "steps": [
        {"type": "navigate", "url": "https://a.test/"},
        {"type": "fill", "selector": "#name", "value": "mallory"},
        {"type": "click", "selector": "#submit"},
    ],
}
READ_ONLY = {**APPROVED, "steps": [{"type": "navigate", "url": "https://a.test/"}, EXTRACT]}
WITH_CLICK = {
    **APPROVED,
    "steps": [{"type": "navigate", "url": "https://a.test/"}, {"type": "click", "selector": "#buy"}],
}


def _acted(browser: FakeBrowser) -> list[tuple[str, Any]]:
    return [(c.op, c.params.get("selector")) for c in browser.calls if c.op in ("dom.click", "dom.fill", "dom.type")]


@pytest.fixture
def wired(browser: FakeBrowser) -> FakeBrowser:
    browser.replies["tabs.resolve"] = TAB
    browser.replies["scrape.extract"] = page(rows("a"))
    browser.replies["dom.count"] = {"count": 1}
    return browser


async def test_an_overwrite_while_the_prompt_waits_changes_nothing_that_runs(
    make_engine: EngineFactory, wired: FakeBrowser, approvals: FakeApprovals
) -> None:
    store = MemoryWorkflowStore()
    store.put(APPROVED)
    engine = make_engine(config=EngineConfig(step_delay_ms=0), workflows=store)
    approvals.script = ["hold"]
    call = asyncio.ensure_future(engine.call("interact", replay_args(W)))
    await until(lambda: bool(approvals.held))
    (request,) = approvals.requests
    assert [s.get("selector") for s in request.steps] == ["#counter"]
    store.put(SWAPPED)  # what `configure import_workflow overwrite:true` or an edited file does
    approvals.held[0].set_result("allow")
    result = await call
    assert _acted(wired) == [("dom.click", "#counter")]  # what the person saw, and nothing else
    assert result["steps_total"] == 2


async def test_a_replay_without_a_prompt_runs_what_was_checked(
    make_engine: EngineFactory, wired: FakeBrowser, approvals: FakeApprovals
) -> None:
    """No page-changing step, so no prompt: a file changed right after the check must not add one."""

    class Swapping(MemoryWorkflowStore):
        """The file changes the moment after the approval check read it (the engine's second read of the
        call: the first names the params to hide in the activity row)."""

        reads = 0

        def get(self, workflow_id: str) -> WorkflowEntry | None:
            entry = super().get(workflow_id)
            self.reads += 1
            if self.reads == 2:
                self.put(WITH_CLICK)
            return entry

    store = Swapping()
    store.put(READ_ONLY)
    engine = make_engine(config=EngineConfig(step_delay_ms=0), workflows=store)
    approvals.script = ["deny"]
    result = await engine.call("interact", replay_args(W))
    assert approvals.requests == []  # the check saw no page-changing step
    assert _acted(wired) == []
    assert result.get("data") == [{"name": "a"}], result


async def test_fifty_races_under_deny_click_nothing(
    make_engine: EngineFactory, wired: FakeBrowser, approvals: FakeApprovals, tmp_path: Path
) -> None:
    """The standing check: replays with no page-changing step race against overwrites that add a click —
    through the engine (import overwrite:true) and by a program rewriting the file while the watcher's thread
    reloads it. Every prompt is denied, so nothing may ever be clicked."""
    folder = tmp_path / "workflows"
    store = DiskWorkflowStore(folder, tmp_path / "runs")
    store.load()
    store.watch()
    approvals.script = ["deny"] * 200
    # As `serve` is: no tray menu, so saving a workflow of its own asks nobody.
    engine = make_engine(config=EngineConfig(step_delay_ms=0, tray_runs_saved_workflows=False), workflows=store)

    async def resolve(params: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0)  # a round trip to the browser, as over the WebSocket
        return dict(TAB)

    wired.replies["tabs.resolve"] = resolve
    stop = threading.Event()

    def rewrite() -> None:  # another program flipping the file as fast as it can
        flip = 0
        while not stop.is_set():
            flip ^= 1
            tmp = folder / f".{W}.tmp"
            tmp.write_text(json.dumps(WITH_CLICK if flip else READ_ONLY))
            os.replace(tmp, folder / f"{W}.json")

    outcomes: list[str] = []
    writer = threading.Thread(target=rewrite, daemon=True)
    try:
        for i in range(50):
            if i == 25:
                writer.start()
            await engine.call("configure", {"action": "import_workflow", "workflow": READ_ONLY, "overwrite": True})
            replay = asyncio.ensure_future(engine.call("interact", replay_args(W)))
            for _ in range(i % 10):  # a different interleaving each round
                await asyncio.sleep(0)
            await engine.call("configure", {"action": "import_workflow", "workflow": WITH_CLICK, "overwrite": True})
            try:
                await replay
                outcomes.append("ran")
            except TabpilotError as exc:
                outcomes.append(exc.code)
    finally:
        stop.set()
        if writer.is_alive():
            writer.join(5)
        store.close()
    assert _acted(wired) == []
    assert "ran" in outcomes  # some replays read the read-only version and ran: what ran was that copy


async def test_overwriting_a_workflow_another_made_asks_the_person_even_in_serve(
    make_engine: EngineFactory, approvals: FakeApprovals
) -> None:
    store = MemoryWorkflowStore()
    store.put(APPROVED)  # written by hand: no agent made it
    engine = make_engine(config=EngineConfig(tray_runs_saved_workflows=False), workflows=store)  # as `serve`
    approvals.script = ["deny"]
    with pytest.raises(TabpilotError) as caught:
        await engine.call(
            "configure", {"action": "import_workflow", "workflow": SWAPPED, "overwrite": True}, session="A"
        )
    assert caught.value.code == "approval_denied"
    (request,) = approvals.requests
    assert request.steps[0]["type"] == "import_workflow" and request.steps[0]["overwrite"] is True
    assert [s.get("selector") for s in request.steps[1:]] == [None, "#name", "#submit"]  # what it would become
    entry = store.get(W)
    assert entry is not None and entry.workflow is not None and entry.workflow.steps == APPROVED["steps"]

    # A new workflow of its own, and overwriting that one again, ask nobody in serve.
    mine = {**READ_ONLY, "workflow_id": "wf-mine-20260101"}
    await engine.call("configure", {"action": "import_workflow", "workflow": mine}, session="A")
    await engine.call("configure", {"action": "import_workflow", "workflow": mine, "overwrite": True}, session="A")
    assert len(approvals.requests) == 1
    # Another agent overwriting it is asked about.
    approvals.script = ["deny"]
    with pytest.raises(TabpilotError):
        await engine.call("configure", {"action": "import_workflow", "workflow": mine, "overwrite": True}, session="B")
    assert len(approvals.requests) == 2


async def test_deleting_another_ones_workflow_asks_too_so_delete_then_import_is_no_way_around(
    make_engine: EngineFactory, approvals: FakeApprovals
) -> None:
    store = MemoryWorkflowStore()
    store.put(APPROVED)  # written by hand
    engine = make_engine(config=EngineConfig(tray_runs_saved_workflows=False), workflows=store)  # as `serve`
    approvals.script = ["deny"]
    with pytest.raises(TabpilotError) as caught:
        await engine.call("configure", {"action": "delete_workflow", "workflow_id": W}, session="bob")
    assert caught.value.code == "approval_denied"
    assert store.get(W) is not None
    (request,) = approvals.requests
    assert request.steps == ({"type": "delete_workflow", "workflow_id": W},)
    # Its own, saved this run, it deletes without asking.
    mine = {**READ_ONLY, "workflow_id": "wf-mine-20260101"}
    await engine.call("configure", {"action": "import_workflow", "workflow": mine}, session="bob")
    await engine.call("configure", {"action": "delete_workflow", "workflow_id": mine["workflow_id"]}, session="bob")
    assert len(approvals.requests) == 1
