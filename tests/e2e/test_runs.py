"""Runs through MCP with the real extension (issue 20): a long run is stopped, keeps its rows and its record;
while it runs it owns its tab (an action there is refused naming the run, a read goes on)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

TABLE = {"n": "td.n | number", "label": "td.label | text"}


async def test_a_long_run_owns_its_tab_and_stops_at_once_with_its_rows(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite, e2e_app: App
) -> None:
    await tab.goto(site.url("/table?page=1"))
    steps = [
        {"type": "extract", "selector": "#rows tr", "schema": TABLE},
        {"type": "wait", "selector": "#never-there", "timeout_ms": 60_000},  # would wait a minute
        {"type": "click", "selector": "a.next-page"},
    ]
    queued = await mcp.ok(
        "interact",
        {
            "action": "scrape",
            "operation": "workflow",
            "name": "long",
            "steps": steps,
            "step_delay_ms": 0,
            "background": True,
        },
    )
    correlation_id = queued["correlation_id"]

    async def waiting_in_step_2() -> dict[str, Any] | None:
        runs = (await mcp.ok("observe", {"what": "runs"}))["runs"]
        mine = [r for r in runs if r["status"] == "running" and r["workflow_id"].startswith("wf-long-")]
        return mine[0] if mine and mine[0]["steps_completed"] == 1 else None

    run = await until(waiting_in_step_2, timeout=15, interval=0.05, what="the run to wait in its second step")

    # The run owns the tab: a click there is refused and names the run; a read works.
    refused = await mcp.error("interact", {"action": "click", "selector": "a.next-page"})
    assert refused["error"] == "workflow_in_progress"
    assert (refused["run_id"], refused["workflow_id"]) == (run["run_id"], run["workflow_id"])
    page = await mcp.ok("observe", {"what": "page"})
    assert "page=1" in page["url"], "the refused click did nothing"

    stopped = await mcp.ok("configure", {"action": "stop_run", "run_id": run["run_id"]})
    # The answer comes once the run has ended: the minute-long wait was interrupted.
    assert stopped["status"] == "cancelled"
    assert stopped["rows"] == 5

    outcome = await mcp.ok("observe", {"what": "command_result", "correlation_id": correlation_id})
    assert outcome["status"] == "cancelled"
    assert outcome["run_id"] == run["run_id"]
    assert len(outcome["data"]) == 5 and outcome["data"][0] == {"n": 1, "label": "Row 1 of page 1"}

    (detail,) = (await mcp.ok("observe", {"what": "runs", "run_id": run["run_id"]}))["runs"]
    assert [(s["type"], s["status"]) for s in detail["steps"]] == [("extract", "complete"), ("wait", "cancelled")]
    folder = e2e_app.paths.runs_dir / ".adhoc" / run["run_id"]  # a workflow never saved: runs kept apart
    assert json.loads((folder / "run.json").read_text())["status"] == "cancelled"
    data = (folder / "data.jsonl").read_text().splitlines()
    assert len(data) == 5

    # The tab is the agent's again.
    clicked = await mcp.ok("interact", {"action": "click", "selector": "a.next-page"})
    assert clicked["clicked"] is True
