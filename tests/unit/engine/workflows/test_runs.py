"""Runs (issue 20, interface §5): a record for every run written as it goes, `observe runs`, `stop_run`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tabpilot.storage.run_records import DiskRunRecords
from tests.unit.engine.conftest import EngineFactory
from tests.unit.engine.scrape_support import TAB, Blocker, error_of, final, page, replay_args, rows, workflow_args
from tests.unit.fakes import DictSecrets, FakeBrowser, MemoryWorkflowStore

WF = "wf-board-20260128"
EXTRACT = {"type": "extract", "selector": "tr", "schema": {"name": "td | text"}}
WAIT = {"type": "wait", "selector": ".slow"}
SAVED: dict[str, Any] = {
    "workflow_id": WF,
    "name": "board",
    "origin": "https://a.test",
    "created_at": "2026-01-28T10:00:00+00:00",
    "steps": [
        EXTRACT,
        WAIT,
        {"type": "fill", "selector": "#q", "value": "{{query}}"},
        {"type": "fill", "selector": "#pw", "value": "{{password}}"},
    ],
    "error_recovery": {"on_timeout": "abort", "max_retries": 0, "on_failure": "abort_with_partial"},
    "params": {"query": "private words", "password": "{{secret:pw}}", "board": "P1"},
}


@pytest.fixture
def store() -> MemoryWorkflowStore:
    store = MemoryWorkflowStore()
    store.put(SAVED)
    return store


@pytest.fixture
def blocker() -> Blocker:
    return Blocker({"state": "visible"})


@pytest.fixture
def disk(tmp_path: Path) -> DiskRunRecords:
    return DiskRunRecords(tmp_path / "runs")


@pytest.fixture
def engine(
    make_engine: EngineFactory, browser: FakeBrowser, store: MemoryWorkflowStore, disk: DiskRunRecords, blocker: Blocker
) -> Engine:
    browser.replies["tabs.resolve"] = TAB
    browser.replies["scrape.extract"] = page(rows("a", "b"))
    browser.replies["dom.wait"] = blocker
    browser.replies["dom.fill"] = {"filled": True, "changed": "nothing"}
    return make_engine(
        config=EngineConfig(step_delay_ms=0),
        workflows=store,
        run_records=disk,
        secrets=DictSecrets(pw="s3cr3t-value"),
    )


async def _started(engine: Engine, blocker: Blocker, **extra: Any) -> str:
    """A replay of WF, parked on its wait step (step 1, after the extract): its correlation id."""
    started = await engine.call(
        "interact", replay_args(WF, background=True, **extra), agent="you (tray)", approved=True
    )
    await asyncio.wait_for(blocker.entered.wait(), 5)
    return str(started["correlation_id"])


def _run_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("*/run-*") if p.is_dir())


# -- the record -----------------------------------------------------------------------------------------


async def test_a_replay_is_recorded_step_by_step_as_it_goes(
    engine: Engine, blocker: Blocker, disk: DiskRunRecords, tmp_path: Path
) -> None:
    correlation_id = await _started(engine, blocker)
    (folder,) = _run_dirs(tmp_path / "runs")
    assert folder.parent.name == WF
    mid = json.loads((folder / "run.json").read_text())  # on disk while the run waits in step 1
    assert mid["status"] == "running" and mid["finished_at"] is None
    assert mid["run_id"] == folder.name and mid["workflow_id"] == WF
    assert [(s["index"], s["type"], s["status"]) for s in mid["steps"]] == [(0, "extract", "complete")]
    assert mid["rows"] == 2
    assert [json.loads(line) for line in (folder / "data.jsonl").read_text().splitlines()] == rows("a", "b")

    blocker.release.set()
    result = await final(engine, correlation_id)
    assert result["run_id"] == folder.name
    done = json.loads((folder / "run.json").read_text())
    assert done["status"] == "complete" and done["finished_at"]
    assert done["trigger"] == "tray" and done["started_by"] == "you (tray)"
    assert done["steps_total"] == 4
    assert [(s["index"], s["type"], s["status"], s["attempts"]) for s in done["steps"]] == [
        (0, "extract", "complete", 1),
        (1, "wait", "complete", 1),
        (2, "fill", "complete", 1),
        (3, "fill", "complete", 1),
    ]
    assert all(isinstance(s["duration_ms"], int) for s in done["steps"])
    # Secrets as names, typed values as their length only, other params as they are.
    assert done["params"]["password"] == "{{secret:pw}}"
    assert done["params"]["board"] == "P1"
    assert "private words" not in json.dumps(done)
    assert "s3cr3t-value" not in (folder / "run.json").read_text() + (folder / "data.jsonl").read_text()


async def test_a_failed_step_is_in_the_record_and_the_error_names_the_run(
    engine: Engine, browser: FakeBrowser, blocker: Blocker, disk: DiskRunRecords
) -> None:
    browser.replies["dom.wait"] = TabpilotError("timeout", "'.slow' did not appear in 5000 ms.")
    error = await error_of(engine.call("interact", replay_args(WF), approved=True))
    assert error.code == "timeout"
    record = disk.record(error.details["run_id"])
    assert record is not None
    assert record["status"] == "partial"  # ended early, the rows of step 0 kept
    assert record["error"]["code"] == "timeout"
    assert [(s["type"], s["status"]) for s in record["steps"]] == [("extract", "complete"), ("wait", "failed")]
    assert record["steps"][1]["error"]["code"] == "timeout"
    assert disk.rows(error.details["run_id"]) == rows("a", "b")


async def test_an_unsaved_workflows_runs_are_kept_apart(
    engine: Engine, browser: FakeBrowser, disk: DiskRunRecords, tmp_path: Path
) -> None:
    result = await engine.call("interact", workflow_args([EXTRACT]), approved=True)
    (folder,) = _run_dirs(tmp_path / "runs")
    assert folder.parent.name == ".adhoc"  # its generated id names no saved workflow
    assert folder.name == result["run_id"]
    listed = await engine.call("observe", {"what": "runs", "workflow_id": result["workflow_id"]})
    assert [r["run_id"] for r in listed["runs"]] == [result["run_id"]]


# -- observe runs -------------------------------------------------------------------------------------


async def test_observe_runs_lists_newest_first_and_shows_one_with_its_steps(engine: Engine, blocker: Blocker) -> None:
    blocker.release.set()
    first = await engine.call("interact", replay_args(WF), approved=True)
    second = await engine.call("interact", replay_args(WF), approved=True)
    listed = (await engine.call("observe", {"what": "runs", "workflow_id": WF}))["runs"]
    assert [r["run_id"] for r in listed] == [second["run_id"], first["run_id"]]
    assert set(listed[0]) == {
        "run_id",
        "workflow_id",
        "status",
        "trigger",
        "started_at",
        "finished_at",
        "steps_completed",
        "steps_total",
        "rows",
        "warnings",
    }
    assert (listed[0]["status"], listed[0]["steps_completed"], listed[0]["steps_total"], listed[0]["rows"]) == (
        "complete",
        4,
        4,
        2,
    )
    (one,) = (await engine.call("observe", {"what": "runs", "run_id": first["run_id"]}))["runs"]
    assert [s["type"] for s in one["steps"]] == ["extract", "wait", "fill", "fill"]
    assert (await engine.call("observe", {"what": "runs", "workflow_id": "wf-none"}))["runs"] == []
    missing = await error_of(engine.call("observe", {"what": "runs", "run_id": "run-20990101-000000-000-000000"}))
    assert missing.code == "run_not_found"
    # observe workflows still lists the workflow's runs
    detail = await engine.call("observe", {"what": "workflows", "workflow_id": WF})
    assert [r["run_id"] for r in detail["runs"]] == [second["run_id"], first["run_id"]]


# -- stop --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("by", ["run_id", "correlation_id"])
async def test_stop_interrupts_the_wait_keeps_the_rows_and_ends_cancelled(
    engine: Engine, browser: FakeBrowser, blocker: Blocker, disk: DiskRunRecords, by: str
) -> None:
    correlation_id = await _started(engine, blocker)
    (running,) = (await engine.call("observe", {"what": "runs", "workflow_id": WF}))["runs"]
    assert running["status"] == "running"
    key = running["run_id"] if by == "run_id" else correlation_id

    stopped = await engine.call("configure", {"action": "stop_run", by: key})
    assert stopped["status"] == "cancelled"
    assert (stopped["run_id"], stopped["rows"], stopped["steps_completed"]) == (running["run_id"], 2, 1)
    result = await final(engine, correlation_id)
    assert result["status"] == "cancelled"
    assert result["data"] == rows("a", "b")  # rows kept
    assert not [c for c in browser.calls if c.op == "dom.fill"], "no step after the stop ran"
    record = disk.record(running["run_id"])
    assert record is not None and record["status"] == "cancelled" and record["finished_at"]
    assert [s["status"] for s in record["steps"]] == ["complete", "cancelled"]
    assert not engine.tab_locks.any()  # the tab is free again

    again = await engine.call("configure", {"action": "stop_run", "run_id": running["run_id"]})
    assert again["status"] == "cancelled"  # a run that has ended answers with its status


async def test_stop_of_an_unknown_run(engine: Engine) -> None:
    error = await error_of(engine.call("configure", {"action": "stop_run", "run_id": "run-20990101-000000-000-abc"}))
    assert error.code == "run_not_found"
    error = await error_of(engine.call("configure", {"action": "stop_run"}))
    assert error.code == "invalid_params"
