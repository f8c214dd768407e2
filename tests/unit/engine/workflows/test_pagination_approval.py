"""A pagination click is a click: `paginate.next_selector` (of scrape extract, and of a workflow's extract
step) is a page-changing step for the approval policy, the prompt and the activity stream."""

from __future__ import annotations

from tabpilot.approvals import DenyAll
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.safety.pilot import PilotState
from tests.unit.engine.conftest import EngineFactory
from tests.unit.engine.scrape_support import URL, error_of, extract_args, page, rows, workflow_args
from tests.unit.fakes import FakeApprovals, FakeBrowser

PAGINATE = {"next_selector": "#del", "max_pages": 3, "delay_ms": 0}
CLICK = {"type": "click", "selector": "#del", "purpose": "next page (pagination), up to 2 clicks"}


async def test_extract_with_pagination_asks_first_and_a_denial_clicks_nothing(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["deny"]
    browser.replies["scrape.extract"] = page(rows("a"))
    error = await error_of(engine.call("interact", extract_args(options={"paginate": PAGINATE})))
    assert (error.code, error.details["decided_by"]) == ("approval_denied", "person")
    [request] = approvals.requests
    assert request.steps == (CLICK,), "the prompt lists the click"
    assert (request.selector, request.action_class, request.origin) == ("#del", "element", "https://example.test")
    assert browser.acting_calls == [], "a denied step has no side effect: not even a read"
    kinds = {e.kind for e in engine.activity.recent() if e.phase != "started"}
    assert kinds == {"mutate"}, "the activity shows it as a page-changing command"
    assert engine.activity.recent()[-1].target == "tr, clicking #del for next pages"


async def test_under_the_deny_policy_the_next_selector_is_never_clicked(browser: FakeBrowser) -> None:
    engine = Engine(build_registry(), browser, DenyAll(), pilot=PilotState(True))
    browser.replies["scrape.extract"] = page(rows("a"))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    error = await error_of(engine.call("interact", extract_args(options={"paginate": PAGINATE})))
    await engine.close()
    assert (error.code, error.details["decided_by"]) == ("approval_denied", "policy")
    assert "scrape.next_page" not in browser.ops


async def test_allowed_pagination_clicks_through(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["allow"]
    browser.queue("scrape.extract", page(rows("a")), page(rows("b")), page(rows("c")))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    result = await engine.call("interact", extract_args(options={"paginate": PAGINATE}))
    assert [r["name"] for r in result["data"]] == ["a", "b", "c"]
    assert browser.ops.count("scrape.next_page") == 2


async def test_a_workflow_extract_step_lists_its_pagination_click(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    engine = make_engine(config=EngineConfig(step_delay_ms=0))
    approvals.script = ["deny"]
    steps = [
        {"type": "navigate", "url": "https://a.test/list"},
        {"type": "extract", "selector": "tr", "schema": {"name": "td"}, "paginate": PAGINATE},
    ]
    error = await error_of(engine.call("interact", workflow_args(steps)))
    assert error.code == "approval_denied"
    [request] = approvals.requests
    assert request.steps == (CLICK,)
    assert request.origin == "https://a.test"
    assert browser.acting_calls == []


async def test_a_workflow_paginating_before_any_navigate_counts_the_tabs_site(
    make_engine: EngineFactory, approvals: FakeApprovals
) -> None:
    engine = make_engine(config=EngineConfig(step_delay_ms=0))
    approvals.script = ["deny"]
    steps = [
        {"type": "extract", "selector": "tr", "schema": {"name": "td"}, "paginate": PAGINATE},
        {"type": "navigate", "url": "https://a.test/list"},
    ]
    await error_of(engine.call("interact", workflow_args(steps)))
    assert approvals.requests[0].origin == "https://a.test https://example.test"


async def test_with_page_actions_off_pagination_is_refused_without_asking(
    make_engine: EngineFactory, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    """The tray's "page-changing actions" switch covers next-page clicks too (a read stays allowed)."""
    engine = make_engine(config=EngineConfig(step_delay_ms=0))
    engine.pilot.set_capability("page_actions", False)
    browser.replies["scrape.extract"] = page(rows("a"))
    error = await error_of(engine.call("interact", extract_args(options={"paginate": PAGINATE})))
    assert (error.code, error.details["capability"]) == ("ai_web_pilot_disabled", "page_actions")
    steps = [{"type": "extract", "selector": "tr", "schema": {"name": "td"}, "paginate": PAGINATE}]
    error = await error_of(engine.call("interact", workflow_args(steps)))
    assert error.code == "ai_web_pilot_disabled"
    assert approvals.requests == []
    assert "scrape.next_page" not in browser.ops
    assert (await engine.call("interact", extract_args()))["data"] == rows("a")
