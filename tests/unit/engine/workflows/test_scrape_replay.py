"""`scrape` operation `replay`: saved workflows, overrides, params, the domain lock, kept runs."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import ApprovalDecision
from tabpilot.engine.safety.pilot import PilotState
from tabpilot.engine.safety.policy import ApprovalPolicy, MemoryRules, Rule
from tabpilot.engine.safety.tab_locks import TabHold
from tabpilot.storage.workflow_store import DiskWorkflowStore
from tests.unit.engine.conftest import EngineFactory
from tests.unit.engine.scrape_support import TAB, error_of, page, page_calls, replay_args, rows
from tests.unit.fakes import DictSecrets, FakeApprovals, FakeBrowser, MemoryWorkflowStore

WF = "wf-board-20260128"
EXTRACT = {"type": "extract", "selector": "tr", "schema": {"name": "td | text"}}
SAVED: dict[str, Any] = {
    "workflow_id": WF,
    "name": "board",
    "origin": "https://a.test",
    "created_at": "2026-01-28T10:00:00+00:00",
    "steps": [
        {"type": "navigate", "url": "https://a.test/boards/P1"},
        {"type": "wait", "selector": ".board"},
        {"type": "if_exists", "selector": ".more", "then": [{"type": "scroll", "selector": ".more"}]},
        EXTRACT,
    ],
    "error_recovery": {"on_timeout": "retry_step", "max_retries": 1, "on_failure": "abort_with_partial"},
    "params": {},
}


@pytest.fixture
def store() -> MemoryWorkflowStore:
    store = MemoryWorkflowStore()
    store.put(SAVED)
    return store


@pytest.fixture
def engine(make_engine: EngineFactory, browser: FakeBrowser, store: MemoryWorkflowStore) -> Engine:
    browser.replies["tabs.resolve"] = TAB
    browser.replies["scrape.extract"] = page(rows("a"))
    browser.replies["dom.count"] = {"count": 1}
    return make_engine(config=EngineConfig(step_delay_ms=0), workflows=store, secrets=DictSecrets(pw="s3cr3t-value"))


def urls(browser: FakeBrowser) -> list[str]:
    return [c.params["url"] for c in browser.calls if c.op == "tab.navigate"]


async def test_replay_runs_the_saved_steps(engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore) -> None:
    before = store.files[WF]
    result = await engine.call("interact", replay_args(WF))
    assert set(result) == {
        "status",
        "correlation_id",
        "run_id",
        "workflow_id",
        "steps_completed",
        "steps_total",
        "data",
        "metadata",
    }
    assert result["status"] == "complete"
    assert result["workflow_id"] == WF
    assert (result["steps_completed"], result["steps_total"]) == (4, 4)
    assert result["data"] == rows("a")
    assert result["metadata"]["replayed_from"] == WF
    assert "recorded" not in result["metadata"]
    assert [c.op for c in page_calls(browser)] == [
        "tab.navigate",
        "dom.wait",
        "dom.count",
        "dom.scroll",
        "scrape.extract",
    ]
    assert all(c.params.get("tab_id") == 7 for c in page_calls(browser))
    (run,) = store.runs(WF)
    assert run["status"] == "complete"
    assert run["correlation_id"] == result["correlation_id"]
    assert run["metadata"]["replayed_from"] == WF
    assert store.files[WF] == before  # replay never rewrites the file


async def test_an_unknown_workflow(engine: Engine, browser: FakeBrowser) -> None:
    error = await error_of(engine.call("interact", replay_args("wf-nope")))
    assert error.code == "workflow_not_found"
    assert error.details["workflow_id"] == "wf-nope"
    assert "observe {what:'workflows'}" in error.message
    assert page_calls(browser) == []


async def test_no_store_means_no_saved_workflows(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine()
    assert (await error_of(engine.call("interact", replay_args(WF)))).code == "workflow_not_found"


async def test_an_invalid_file_is_reported(engine: Engine, store: MemoryWorkflowStore, browser: FakeBrowser) -> None:
    store.put_invalid("wf-broken", "not valid JSON: Expecting value: line 1 column 1 (char 0)")
    error = await error_of(engine.call("interact", replay_args("wf-broken")))
    assert error.code == "invalid_params"
    assert "wf-broken.json is not valid: not valid JSON" in error.message
    assert page_calls(browser) == []


async def test_overrides_change_the_run_not_the_file(
    engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore
) -> None:
    overrides = {"steps[0].url": "https://a.test/boards/P2", "steps[2].then[0].selector": ".other"}
    await engine.call("interact", replay_args(WF, override_params=overrides))
    assert urls(browser) == ["https://a.test/boards/P2"]
    scroll = next(c for c in browser.calls if c.op == "dom.scroll")
    assert scroll.params["selector"] == ".other"
    assert store.get(WF).workflow.steps[0]["url"] == "https://a.test/boards/P1"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("overrides", "needle"),
    [
        ({"steps[0].type": "click"}, "'steps[0].type' cannot be changed"),
        ({"steps[9].url": "https://a.test/"}, "names a step that does not exist"),
        ({"steps[0].url": 5}, "steps[0] (navigate): 'url' must be a string"),
        ({"steps[1].selector": None}, "steps[1] (wait): 'selector' is required."),
        ({"steps[0].url": "ftp://a.test/x"}, "'url' must be an absolute http(s) URL"),
        (["steps[0].url"], "'override_params' must be an object"),
    ],
)
async def test_bad_overrides(engine: Engine, browser: FakeBrowser, overrides: Any, needle: str) -> None:
    error = await error_of(engine.call("interact", replay_args(WF, override_params=overrides)))
    assert error.code == "invalid_params"
    assert needle in error.message
    assert page_calls(browser) == []


async def test_replay_takes_only_its_own_parameters(engine: Engine) -> None:
    error = await error_of(engine.call("interact", replay_args(WF, steps=[EXTRACT])))
    assert error.code == "invalid_params"
    assert "operation=replay: unknown parameter 'steps'" in error.message
    assert (await error_of(engine.call("interact", replay_args(None)))).message == (
        "interact action=scrape operation=replay: 'workflow_id' is required. Valid parameters: workflow_id*, "
        "override_params, allow_domain_change, params, step_delay_ms, tab_id, wait_ms, background (* required)."
    )


PARAMETRIC: dict[str, Any] = {
    "workflow_id": "wf-param",
    "name": "param",
    "origin": "https://a.test",
    "steps": [{"type": "navigate", "url": "https://a.test/boards/{{board}}?s={{ sprint }}"}, EXTRACT],
    "params": {"board": "P1"},
}


async def test_params_from_the_file_the_call_and_overrides(
    engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore
) -> None:
    store.put(PARAMETRIC)
    error = await error_of(engine.call("interact", replay_args("wf-param")))
    assert error.code == "invalid_params"
    assert error.details["missing"] == ["sprint"]
    await engine.call("interact", replay_args("wf-param", params={"sprint": 4}))
    await engine.call("interact", replay_args("wf-param", params={"board": "P2", "sprint": "5"}))
    await engine.call("interact", replay_args("wf-param", override_params={"params.board": "P3", "params.sprint": "6"}))
    assert urls(browser) == [
        "https://a.test/boards/P1?s=4",
        "https://a.test/boards/P2?s=5",
        "https://a.test/boards/P3?s=6",
    ]


# -- the domain lock ----------------------------------------------------------------------------------


async def test_replay_on_another_site_is_refused(engine: Engine, browser: FakeBrowser) -> None:
    error = await error_of(
        engine.call("interact", replay_args(WF, override_params={"steps[0].url": "https://b.test/"}))
    )
    assert error.code == "domain_changed"
    assert error.details["recorded_origin"] == "https://a.test"
    assert error.details["origin"] == "https://b.test"
    assert "allow_domain_change:true" in error.message
    assert page_calls(browser) == []


async def test_allow_domain_change_lets_it_run(engine: Engine, browser: FakeBrowser) -> None:
    result = await engine.call(
        "interact", replay_args(WF, override_params={"steps[0].url": "https://b.test/"}, allow_domain_change=True)
    )
    assert result["status"] == "complete"
    assert urls(browser) == ["https://b.test/"]


async def test_another_page_of_the_same_site_is_fine(engine: Engine, browser: FakeBrowser) -> None:
    result = await engine.call("interact", replay_args(WF, override_params={"steps[0].url": "https://A.test/x?y"}))
    assert result["status"] == "complete"


async def test_a_param_that_moves_the_host_is_caught(engine: Engine, store: MemoryWorkflowStore) -> None:
    for url in ("https://{{host}}/list", "https://{{ host }}/list"):
        store.put(
            {
                "workflow_id": "wf-host",
                "name": "host",
                "origin": "https://a.test",
                "steps": [{"type": "navigate", "url": url}, EXTRACT],
                "params": {"host": "a.test"},
            }
        )
        assert (await engine.call("interact", replay_args("wf-host")))["status"] == "complete"
        for args in ({"params": {"host": "evil.test"}}, {"override_params": {"params.host": "evil.test"}}):
            error = await error_of(engine.call("interact", replay_args("wf-host", **args)))
            assert error.code == "domain_changed", url
            assert error.details["origin"] == "https://evil.test"


async def test_without_navigate_the_current_tab_is_checked(
    engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore
) -> None:
    store.put({"workflow_id": "wf-here", "name": "here", "origin": "https://a.test", "steps": [EXTRACT]})
    assert (await engine.call("interact", replay_args("wf-here")))["status"] == "complete"  # TAB is on a.test
    browser.replies["tabs.resolve"] = {"tab_id": 7, "url": "https://b.test/page", "title": "B"}
    error = await error_of(engine.call("interact", replay_args("wf-here")))
    assert error.code == "domain_changed"
    assert error.details["origin"] == "https://b.test"
    assert [c.op for c in page_calls(browser)] == ["scrape.extract"]
    result = await engine.call("interact", replay_args("wf-here", allow_domain_change=True))
    assert result["status"] == "complete"


async def test_a_hand_written_workflow_without_origin_runs_anywhere(
    engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore
) -> None:
    store.put({"workflow_id": "wf-any", "name": "any", "steps": [EXTRACT]})
    browser.replies["tabs.resolve"] = {"tab_id": 7, "url": "https://c.test/", "title": "C"}
    assert (await engine.call("interact", replay_args("wf-any")))["status"] == "complete"


# -- approval, secrets, tab lock --------------------------------------------------------------------

CLICKY: dict[str, Any] = {
    "workflow_id": "wf-login",
    "name": "login",
    "origin": "https://a.test",
    "steps": [
        {"type": "navigate", "url": "https://a.test/login"},
        {"type": "fill", "selector": "input[type=password]", "value": "{{secret:pw}}"},
        {"type": "click", "selector": "#submit"},
        EXTRACT,
    ],
}


async def test_replay_asks_once_for_its_page_changing_steps(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals, store: MemoryWorkflowStore
) -> None:
    store.put(CLICKY)
    approvals.script = ["allow"]
    await engine.call("interact", replay_args("wf-login", override_params={"steps[2].selector": "#go"}))
    (request,) = approvals.requests
    assert [dict(s) for s in request.steps] == [
        {"type": "fill", "selector": "input[type=password]", "value": "{{secret:pw}}"},
        {"type": "click", "selector": "#go"},
    ]
    assert request.workflow_id == "wf-login"
    fill = next(c for c in browser.calls if c.op == "dom.fill")
    assert fill.params["value"] == "s3cr3t-value"


async def test_a_denied_replay_does_nothing(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals, store: MemoryWorkflowStore
) -> None:
    store.put(CLICKY)
    approvals.script = ["deny"]
    error = await error_of(engine.call("interact", replay_args("wf-login")))
    assert error.code == "approval_denied"
    assert page_calls(browser) == []
    assert store.runs("wf-login") == []


async def test_a_replay_with_page_actions_off_is_refused_without_asking(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals, store: MemoryWorkflowStore
) -> None:
    store.put(CLICKY)
    engine.pilot.set_capability("page_actions", False)
    error = await error_of(engine.call("interact", replay_args("wf-login")))
    assert error.code == "ai_web_pilot_disabled"
    assert approvals.requests == []
    assert page_calls(browser) == []


async def test_a_replay_keeps_secrets_out_of_its_run(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals, store: MemoryWorkflowStore
) -> None:
    store.put(CLICKY)
    approvals.script = ["allow"]
    browser.replies["scrape.extract"] = page([{"name": "echo s3cr3t-value"}])
    result = await engine.call("interact", replay_args("wf-login"))
    assert result["data"] == [{"name": "echo {{secret:pw}}"}]
    assert "s3cr3t-value" not in json.dumps(store.runs("wf-login"))
    assert "s3cr3t-value" not in json.dumps([e.as_dict() for e in engine.activity.recent()])


async def test_replay_in_a_busy_tab(engine: Engine, browser: FakeBrowser) -> None:
    engine.tab_locks.take(7, TabHold("run-20260101-000000-000-abcdef", "wf-other"))
    error = await error_of(engine.call("interact", replay_args(WF)))
    assert error.code == "workflow_in_progress"
    assert error.details["active_workflow_id"] == "wf-other"
    assert page_calls(browser) == []


# -- kept runs, on disk -------------------------------------------------------------------------------


async def test_the_last_ten_runs_are_kept_with_their_status(
    make_engine: EngineFactory, browser: FakeBrowser, tmp_path: Path
) -> None:
    disk = DiskWorkflowStore(tmp_path / "workflows", tmp_path / "runs")
    disk.load()
    (tmp_path / "workflows" / f"{WF}.json").write_text(json.dumps(SAVED))
    browser.replies["tabs.resolve"] = TAB
    browser.replies["dom.count"] = {"count": 0}
    engine = make_engine(config=EngineConfig(step_delay_ms=0), workflows=disk)
    cids = []
    for i in range(12):
        browser.replies["scrape.extract"] = page(rows(f"r{i}"))
        cids.append((await engine.call("interact", replay_args(WF)))["correlation_id"])
    browser.replies["dom.wait"] = TabpilotError("tab_closed", "closed")
    failed = await error_of(engine.call("interact", replay_args(WF)))
    runs = disk.runs(WF)
    assert len(runs) == 10
    assert [r["correlation_id"] for r in runs] == [failed.details["correlation_id"], *reversed(cids[-9:])]
    assert [r["status"] for r in runs] == ["error"] + ["complete"] * 9
    assert runs[1]["data"] == rows("r11")
    entry = disk.get(WF)
    assert entry is not None
    assert (entry.last_status, entry.last_run) == ("error", runs[0]["finished_at"])
    disk.close()


# -- standing approval rules see the sites a run will really act on ----------------------------------


@pytest.fixture
async def ruled(browser: FakeBrowser, approvals: FakeApprovals, store: MemoryWorkflowStore) -> AsyncIterator[Engine]:
    """An engine whose approvals go through the policy, with 'the agent may do element actions on https://a.test'."""
    rules = MemoryRules()
    rules.rules = [
        Rule("rule-a", "site", created_at=0.0, origin="https://a.test", agent="agent", action_class="element")
    ]
    browser.replies["tabs.resolve"] = TAB
    browser.replies["scrape.extract"] = page(rows("a"))
    engine = Engine(
        build_registry(),
        browser,
        ApprovalPolicy(approvals, rules),
        pilot=PilotState(ai_web_pilot=True),
        config=EngineConfig(step_delay_ms=0),
        workflows=store,
        secrets=DictSecrets(pw="s3cr3t-value"),
    )
    store.put(CLICKY)
    approvals.script = ["deny"] * 5
    yield engine
    await engine.close()


async def test_a_site_rule_covers_a_replay_on_its_site(ruled: Engine, approvals: FakeApprovals) -> None:
    assert (await ruled.call("interact", replay_args("wf-login")))["status"] == "complete"
    assert approvals.requests == []


async def test_a_site_rule_does_not_cover_a_replay_moved_to_another_site(
    ruled: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    moved = replay_args(
        "wf-login", override_params={"steps[0].url": "https://evil.test/login"}, allow_domain_change=True
    )
    error = await error_of(ruled.call("interact", moved))
    assert error.code == "approval_denied"
    (request,) = approvals.requests
    assert request.origin == "https://evil.test"
    assert page_calls(browser) == []


async def test_a_site_rule_does_not_cover_a_param_moved_host(
    ruled: Engine, store: MemoryWorkflowStore, approvals: FakeApprovals
) -> None:
    store.put(
        {
            **CLICKY,
            "workflow_id": "wf-p",
            "steps": [{"type": "navigate", "url": "https://{{ host }}/"}, *CLICKY["steps"][1:]],
            "params": {"host": "a.test"},
        }
    )
    assert (await ruled.call("interact", replay_args("wf-p")))["status"] == "complete"
    assert approvals.requests == []
    await error_of(ruled.call("interact", replay_args("wf-p", params={"host": "evil.test"}, allow_domain_change=True)))
    assert approvals.requests[-1].origin == "https://evil.test"


async def test_a_workflow_over_several_sites_is_not_covered_by_one(ruled: Engine, approvals: FakeApprovals) -> None:
    steps = [*CLICKY["steps"], {"type": "navigate", "url": "https://b.test/"}, {"type": "click", "selector": "#x"}]
    error = await error_of(ruled.call("interact", {"action": "scrape", "operation": "workflow", "steps": steps}))
    assert error.code == "approval_denied"
    assert approvals.requests[-1].origin == "https://a.test https://b.test"


async def test_without_navigate_the_tab_decides(ruled: Engine, browser: FakeBrowser, approvals: FakeApprovals) -> None:
    steps = [{"type": "click", "selector": "#x"}]
    assert (await ruled.call("interact", {"action": "scrape", "operation": "workflow", "steps": steps}))["status"] == (
        "complete"
    )
    browser.replies["tabs.resolve"] = {"tab_id": 7, "url": "https://b.test/", "title": "B"}
    await error_of(ruled.call("interact", {"action": "scrape", "operation": "workflow", "steps": steps}))
    assert approvals.requests[-1].origin == "https://b.test"


async def test_always_allow_binds_to_the_steps_and_their_values(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals, store: MemoryWorkflowStore
) -> None:
    """'Always allow this workflow' covers the same steps with the same values; another host asks again."""
    store.put(
        {
            **CLICKY,
            "steps": [{"type": "navigate", "url": "https://{{host}}/login"}, *CLICKY["steps"][1:]],
            "params": {"host": "a.test"},
        }
    )
    browser.replies["tabs.resolve"] = TAB
    engine = Engine(
        build_registry(),
        browser,
        ApprovalPolicy(approvals, MemoryRules()),
        pilot=PilotState(ai_web_pilot=True),
        config=EngineConfig(step_delay_ms=0),
        workflows=store,
        secrets=DictSecrets(pw="pw"),
    )
    approvals.script = [ApprovalDecision(allow=True, remember="workflow")]
    await engine.call("interact", replay_args("wf-login"))
    await engine.call("interact", replay_args("wf-login"))
    assert len(approvals.requests) == 1, "the second run was covered by the rule"
    approvals.script = ["allow"]
    await engine.call("interact", replay_args("wf-login", params={"host": "b.test"}, allow_domain_change=True))
    assert len(approvals.requests) == 2, "another host is another approval"


async def test_a_change_before_the_first_navigate_counts_the_tab_site(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals, store: MemoryWorkflowStore
) -> None:
    store.put(
        {**CLICKY, "workflow_id": "wf-early", "steps": [{"type": "click", "selector": "#here"}, *CLICKY["steps"]]}
    )
    approvals.script = ["allow"]
    await engine.call("interact", replay_args("wf-early"))
    (request,) = approvals.requests
    assert request.origin == "https://a.test"  # the tab shows the workflow's own site
    browser.replies["tabs.resolve"] = {**TAB, "url": "https://bank.test/home"}
    approvals.script = ["allow"]
    await engine.call("interact", replay_args("wf-early", allow_domain_change=True))
    assert set(approvals.requests[1].origin.split()) == {"https://a.test", "https://bank.test"}
