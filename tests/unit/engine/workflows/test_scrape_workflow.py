"""`scrape` operation `workflow` through the engine: steps → browser ops, recovery, partial data, recording."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.workflows import runner as runner_module
from tests.unit.engine.conftest import EngineFactory
from tests.unit.engine.scrape_support import (
    TAB,
    URL,
    Blocker,
    SleepRecorder,
    error_of,
    final,
    page,
    page_calls,
    result_of,
    rows,
    workflow_args,
)
from tests.unit.fakes import DictSecrets, FakeApprovals, FakeBrowser, FakeClock, MemoryWorkflowStore

TODAY = datetime.now(UTC).strftime("%Y%m%d")
WF_ID = f"wf-jobs-{TODAY}"
EXTRACT = {"type": "extract", "selector": "tr", "schema": {"name": "td | text"}}
PASSWORD = "hunter2-Secret!"
USER = "alice@corp.test"


@pytest.fixture
def store() -> MemoryWorkflowStore:
    return MemoryWorkflowStore()


@pytest.fixture
def secrets() -> DictSecrets:
    return DictSecrets(pw=PASSWORD, user=USER)


@pytest.fixture
def wf_engine(
    make_engine: EngineFactory, browser: FakeBrowser, store: MemoryWorkflowStore, secrets: DictSecrets
) -> Engine:
    browser.replies["tabs.resolve"] = TAB
    browser.replies["scrape.extract"] = page(rows("a"))
    return make_engine(config=EngineConfig(step_delay_ms=0), workflows=store, secrets=secrets)


@pytest.fixture
def allow(approvals: FakeApprovals) -> FakeApprovals:
    approvals.script = ["allow"] * 10
    return approvals


def ops(browser: FakeBrowser) -> list[str]:
    return [c.op for c in page_calls(browser)]


# -- steps to ops --------------------------------------------------------------------------------


async def test_every_step_maps_to_its_op_in_the_resolved_tab(
    wf_engine: Engine, browser: FakeBrowser, allow: FakeApprovals
) -> None:
    browser.replies["tab.navigate"] = {"status": "complete", "url": "https://a.test/list", "title": "List"}
    steps = [
        {"type": "navigate", "url": "https://a.test/list"},
        {"type": "navigate", "url": "https://a.test/list", "wait_until": "domcontentloaded", "timeout_ms": 5000},
        {"type": "wait", "selector": ".ready"},
        {"type": "wait", "selector": ".spinner", "state": "hidden", "timeout_ms": 2000},
        {"type": "click", "selector": "button.go"},
        {"type": "fill", "selector": "#q", "value": "term"},
        {"type": "type", "selector": "#q", "text": "more"},
        {"type": "press", "key": "Enter"},
        {"type": "press", "key": "Tab", "selector": "#q"},
        {"type": "select", "selector": "select#size", "value": "L"},
        {"type": "scroll"},
        {"type": "scroll", "selector": "footer"},
        {"type": "delay", "ms": 0},
        {**EXTRACT, "wait_for": ".rows"},
    ]
    result = await wf_engine.call("interact", workflow_args(steps))
    calls = [(c.op, c.params) for c in page_calls(browser)]
    base = {"tab_id": 7, "timeout_ms": 10_000}
    assert calls == [
        ("tab.navigate", {"tab_id": 7, "timeout_ms": 30_000, "url": "https://a.test/list", "wait_until": "load"}),
        (
            "tab.navigate",
            {"tab_id": 7, "timeout_ms": 5000, "url": "https://a.test/list", "wait_until": "domcontentloaded"},
        ),
        ("dom.wait", {**base, "selector": ".ready", "state": "visible"}),
        ("dom.wait", {"tab_id": 7, "timeout_ms": 2000, "selector": ".spinner", "state": "hidden"}),
        ("dom.click", {**base, "selector": "button.go"}),
        ("dom.fill", {**base, "selector": "#q", "value": "term"}),
        ("dom.type", {**base, "selector": "#q", "text": "more"}),
        ("dom.press", {**base, "key": "Enter"}),
        ("dom.press", {**base, "key": "Tab", "selector": "#q"}),
        ("dom.select", {**base, "selector": "select#size", "value": "L"}),
        ("dom.scroll", base),  # a scroll step is the scroll action: it waits up to its timeout
        ("dom.scroll", {**base, "selector": "footer"}),
        ("dom.wait", {**base, "selector": ".rows", "state": "visible"}),
        (
            "scrape.extract",
            {
                "tab_id": 7,
                "selector": "tr",
                "fields": [{"name": "name", "selector": "td", "ops": [{"op": "text"}]}],
                "redact": ["input[type=password]", "[data-sensitive]", "[data-private]", ".sensitive"],
                "max_bytes": 1024 * 1024,
            },
        ),
    ]
    timeouts = {c.op: c.timeout_s for c in page_calls(browser)}
    # A step is its interact action: the action's own margin over its timeout (2 s) for the frame.
    assert timeouts["dom.click"] == pytest.approx(12.0)
    assert page_calls(browser)[0].timeout_s == pytest.approx(32.0)
    assert result["status"] == "complete"
    assert result["steps_completed"] == result["steps_total"] == len(steps)


async def test_the_result_has_the_contract_shape(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page(rows("a", "b"))
    result = await wf_engine.call("interact", workflow_args([{"type": "scroll"}, EXTRACT]))
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
    assert result["correlation_id"].startswith("corr-")
    assert result["workflow_id"] == WF_ID
    assert (result["steps_completed"], result["steps_total"]) == (2, 2)
    assert result["data"] == rows("a", "b")
    metadata = result["metadata"]
    assert set(metadata) == {
        "duration_ms",
        "workflow_id",
        "pages_scraped",
        "rows_extracted",
        "url",
        "errors",
        "warnings",
    }
    assert metadata["workflow_id"] == WF_ID
    assert (metadata["pages_scraped"], metadata["rows_extracted"], metadata["url"]) == (1, 2, URL)
    assert metadata["errors"] == [] == metadata["warnings"]
    json.dumps(result)


async def test_rows_from_several_extract_steps_add_up(
    wf_engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["allow"]  # the next-page click
    browser.queue("scrape.extract", page(rows("a")), page(rows("b")), page(rows("c")), page(rows("d")))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    paginated = {**EXTRACT, "paginate": {"next_selector": "a.next", "max_pages": 2, "delay_ms": 0}}
    result = await wf_engine.call("interact", workflow_args([EXTRACT, paginated]))
    # the second step's own two pages, whatever the first step scraped
    assert [r["name"] for r in result["data"]] == ["a", "b", "c"]
    assert result["metadata"]["pages_scraped"] == 3


async def test_json_schema_failures_show_up_in_workflow_metadata(wf_engine: Engine, browser: FakeBrowser) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "x-selector": "td"}}, "required": ["n"]}
    browser.replies["scrape.extract"] = page([{"n": 1}, {"n": None}])
    result = await wf_engine.call("interact", workflow_args([{**EXTRACT, "schema": schema}]))
    assert result["metadata"]["validation_errors"] == [
        {"row": 1, "path": "n", "message": "null is not of type integer"}
    ]
    browser.replies["scrape.extract"] = page([{"n": 1}])
    result = await wf_engine.call("interact", workflow_args([{**EXTRACT, "schema": schema}]))
    assert "validation_errors" not in result["metadata"]


# -- rate limiting and progress ---------------------------------------------------------------------


async def test_step_delay_is_requested_between_steps(
    wf_engine: Engine, browser: FakeBrowser, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = SleepRecorder()
    monkeypatch.setattr(runner_module, "asyncio", recorder)
    steps = [{"type": "scroll"}, {"type": "delay", "ms": 1500}, {"type": "scroll"}]
    await wf_engine.call("interact", workflow_args(steps, step_delay_ms=250))
    assert recorder.slept == [0.25, 1.5, 0.25]


async def test_step_delay_defaults_to_the_engine_config(
    make_engine: EngineFactory, browser: FakeBrowser, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = SleepRecorder()
    monkeypatch.setattr(runner_module, "asyncio", recorder)
    browser.replies["tabs.resolve"] = TAB
    engine = make_engine()  # the default: 500 ms
    await engine.call("interact", workflow_args([{"type": "scroll"}] * 3))
    assert recorder.slept == [0.5, 0.5]
    recorder.slept.clear()
    await engine.call("interact", workflow_args([{"type": "scroll"}] * 3, step_delay_ms=0))
    assert recorder.slept == []


async def test_step_delay_applies_inside_branches(
    wf_engine: Engine, browser: FakeBrowser, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = SleepRecorder()
    monkeypatch.setattr(runner_module, "asyncio", recorder)
    browser.replies["dom.count"] = {"count": 1, "visible": 1}
    steps = [{"type": "if_exists", "selector": ".x", "then": [{"type": "scroll"}] * 3}]
    await wf_engine.call("interact", workflow_args(steps, step_delay_ms=100))
    assert recorder.slept == [0.1, 0.1]


async def test_progress_is_reported_per_step(wf_engine: Engine, browser: FakeBrowser) -> None:
    seen: list[tuple[int, int | None, str]] = []
    steps = [{"type": "navigate", "url": "https://a.test/"}, {"type": "wait", "selector": ".x"}, EXTRACT]
    await wf_engine.call("interact", workflow_args(steps), progress=lambda *a: seen.append(a))
    assert seen == [
        (0, 3, "starting"),
        (1, 3, "step 1/3: navigate done"),
        (2, 3, "step 2/3: wait done"),
        (2, 3, "page 1: 1 rows"),
        (3, 3, "step 3/3: extract done"),
    ]


async def test_a_long_run_answers_running_then_the_final_result(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    clock = FakeClock()
    engine = make_engine(clock=clock, config=EngineConfig(step_delay_ms=0))
    browser.replies["tabs.resolve"] = TAB
    browser.replies["scrape.extract"] = page(rows("a"))
    blocker = Blocker({"state": "visible"})
    browser.replies["dom.wait"] = blocker
    steps = [{"type": "scroll"}, {"type": "wait", "selector": ".slow"}, EXTRACT]
    call = asyncio.create_task(engine.call("interact", workflow_args(steps, wait_ms=50)))
    await asyncio.wait_for(blocker.entered.wait(), 5)
    clock.advance(1)  # past wait_ms
    answer = await asyncio.wait_for(call, 5)
    cid = answer["correlation_id"]
    assert answer == {"status": "running", "correlation_id": cid, "steps_completed": 1, "steps_total": 3}
    assert await result_of(engine, cid) == answer
    blocker.release.set()
    result = await final(engine, cid)
    assert result["status"] == "complete"
    assert result["correlation_id"] == cid
    assert (result["steps_completed"], result["steps_total"], result["data"]) == (3, 3, rows("a"))
    assert await result_of(engine, cid) == result


async def test_background_workflow_answers_queued(wf_engine: Engine, browser: FakeBrowser) -> None:
    answer = await wf_engine.call("interact", workflow_args([EXTRACT], background=True))
    assert answer == {"status": "queued", "correlation_id": answer["correlation_id"]}
    assert (await final(wf_engine, answer["correlation_id"]))["data"] == rows("a")


# -- error recovery ----------------------------------------------------------------------------------

TIMEOUT = TabpilotError("timeout", "'.x' was not visible within 10000 ms.")
NOT_FOUND = TabpilotError("element_not_found", "No element matches 'button.gone'.")


async def test_timeouts_are_retried_up_to_max_retries_then_fail(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.wait"] = TIMEOUT
    recovery = {"on_timeout": "retry_step", "max_retries": 2}
    error = await error_of(
        wf_engine.call(
            "interact", workflow_args([EXTRACT, {"type": "wait", "selector": ".x"}], error_recovery=recovery)
        )
    )
    assert error.code == "timeout"
    assert ops(browser) == ["scrape.extract", "dom.wait", "dom.wait", "dom.wait"]
    assert error.details["failed_step"] == "1"
    assert error.details["data"] == rows("a")  # abort_with_partial is the default
    assert error.message == "Step 1 (wait) failed: '.x' was not visible within 10000 ms."
    assert error.details["metadata"]["warnings"] == [
        "step 1 (wait) timed out; retry 1",
        "step 1 (wait) timed out; retry 2",
    ]


async def test_a_retry_that_succeeds_completes_the_run(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.queue("dom.wait", TIMEOUT, {"state": "visible"})
    result = await wf_engine.call("interact", workflow_args([{"type": "wait", "selector": ".x"}, EXTRACT]))
    assert result["status"] == "complete"
    assert ops(browser) == ["dom.wait", "dom.wait", "scrape.extract"]
    assert result["metadata"]["warnings"] == ["step 0 (wait) timed out; retry 1"]
    assert result["metadata"]["errors"] == []


async def test_no_retries_when_max_retries_is_zero(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.wait"] = TIMEOUT
    recovery = {"on_timeout": "retry_step", "max_retries": 0}
    error = await error_of(
        wf_engine.call("interact", workflow_args([{"type": "wait", "selector": ".x"}], error_recovery=recovery))
    )
    assert error.code == "timeout"
    assert ops(browser) == ["dom.wait"]


async def test_other_failures_are_not_retried(wf_engine: Engine, browser: FakeBrowser, allow: FakeApprovals) -> None:
    browser.replies["dom.click"] = NOT_FOUND
    error = await error_of(wf_engine.call("interact", workflow_args([{"type": "click", "selector": "button.gone"}])))
    assert error.code == "element_not_found"
    assert ops(browser) == ["dom.click"]


async def test_skip_records_the_timeout_and_goes_on(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.wait"] = TIMEOUT
    steps = [{"type": "wait", "selector": ".x"}, EXTRACT]
    result = await wf_engine.call("interact", workflow_args(steps, error_recovery={"on_timeout": "skip"}))
    assert result["status"] == "complete"
    assert result["steps_completed"] == 2
    assert result["data"] == rows("a")
    assert ops(browser) == ["dom.wait", "scrape.extract"]
    assert result["metadata"]["errors"] == [
        {"step": "0", "type": "wait", "error": "timeout", "message": TIMEOUT.message, "skipped": True}
    ]


async def test_on_timeout_abort_stops_even_when_failures_continue(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.wait"] = TIMEOUT
    steps = [EXTRACT, {"type": "wait", "selector": ".x"}, {"type": "scroll"}]
    recovery = {"on_timeout": "abort", "on_failure": "continue"}
    error = await error_of(wf_engine.call("interact", workflow_args(steps, error_recovery=recovery)))
    assert error.code == "timeout"
    assert ops(browser) == ["scrape.extract", "dom.wait"]
    assert error.details["data"] == rows("a")


async def test_abort_with_partial_keeps_earlier_rows(
    wf_engine: Engine, browser: FakeBrowser, allow: FakeApprovals
) -> None:
    browser.replies["dom.click"] = NOT_FOUND
    steps = [EXTRACT, {"type": "click", "selector": "button.gone"}, EXTRACT]
    error = await error_of(
        wf_engine.call("interact", workflow_args(steps, error_recovery={"on_failure": "abort_with_partial"}))
    )
    assert error.code == "element_not_found"
    assert error.message == "Step 1 (click) failed: No element matches 'button.gone'."
    details = error.details
    assert details["data"] == rows("a")
    assert details["steps_completed"] == 1
    assert details["steps_total"] == 3
    assert details["failed_step"] == "1"
    assert details["workflow_id"] == WF_ID
    assert details["correlation_id"].startswith("corr-")
    assert details["metadata"]["rows_extracted"] == 1
    assert ops(browser) == ["scrape.extract", "dom.click"]
    json.dumps(error.envelope())


async def test_abort_gives_no_data(wf_engine: Engine, browser: FakeBrowser, allow: FakeApprovals) -> None:
    browser.replies["dom.click"] = NOT_FOUND
    steps = [EXTRACT, {"type": "click", "selector": "button.gone"}]
    error = await error_of(wf_engine.call("interact", workflow_args(steps, error_recovery={"on_failure": "abort"})))
    assert error.code == "element_not_found"
    assert error.details["data"] == [] and error.details["metadata"]["rows_extracted"] == 0
    assert error.details["steps_completed"] == 1


async def test_continue_goes_on_and_lists_the_errors(
    wf_engine: Engine, browser: FakeBrowser, allow: FakeApprovals
) -> None:
    browser.replies["dom.click"] = NOT_FOUND
    browser.replies["dom.wait"] = TIMEOUT
    steps = [
        {"type": "click", "selector": "button.gone"},
        {"type": "wait", "selector": ".x"},
        EXTRACT,
    ]
    recovery = {"on_failure": "continue", "max_retries": 1}
    result = await wf_engine.call("interact", workflow_args(steps, error_recovery=recovery))
    assert result["status"] == "complete"
    assert result["steps_completed"] == 3
    assert result["data"] == rows("a")
    assert ops(browser) == ["dom.click", "dom.wait", "dom.wait", "scrape.extract"]
    assert result["metadata"]["errors"] == [
        {"step": "0", "type": "click", "error": "element_not_found", "message": NOT_FOUND.message, "skipped": True},
        {"step": "1", "type": "wait", "error": "timeout", "message": TIMEOUT.message, "skipped": True},
    ]


async def test_browser_error_details_cannot_clash_with_the_envelope(
    wf_engine: Engine, browser: FakeBrowser, allow: FakeApprovals
) -> None:
    browser.replies["dom.click"] = TabpilotError(
        "element_not_found", "gone", data="x", steps_total=99, failed_step="9", metadata={}, selector="b"
    )
    error = await error_of(wf_engine.call("interact", workflow_args([EXTRACT, {"type": "click", "selector": "b"}])))
    assert error.code == "element_not_found"
    assert error.details["data"] == rows("a")
    assert (error.details["steps_total"], error.details["failed_step"]) == (2, "1")
    assert error.details["selector"] == "b"


# -- stops no policy routes around ------------------------------------------------------------------


async def test_login_redirect_stops_with_partial_data(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["tab.navigate"] = {
        "status": "complete",
        "url": "https://a.test/login?next=/protected",
        "title": "Sign in",
    }
    steps = [EXTRACT, {"type": "navigate", "url": "https://a.test/protected"}, EXTRACT]
    recovery = {"on_failure": "continue"}  # not something recovery can route around
    error = await error_of(wf_engine.call("interact", workflow_args(steps, error_recovery=recovery)))
    assert error.code == "navigation_redirect"
    assert error.details["redirect_url"] == "https://a.test/login?next=/protected"
    assert error.details["data"] == rows("a")
    assert error.details["failed_step"] == "1"
    assert error.details["steps_completed"] == 1
    assert "https://a.test/protected" in error.message
    assert "sign in" in error.message
    assert ops(browser) == ["scrape.extract", "tab.navigate"]


async def test_login_redirect_keeps_partial_data_even_under_abort(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["tab.navigate"] = {
        "status": "complete",
        "url": "https://sso.corp.test/auth?return=x",
        "title": "SSO",
    }
    steps = [EXTRACT, {"type": "navigate", "url": "https://a.test/reports"}]
    error = await error_of(wf_engine.call("interact", workflow_args(steps, error_recovery={"on_failure": "abort"})))
    assert error.code == "navigation_redirect"
    assert error.details["data"] == rows("a")


async def test_an_ordinary_redirect_is_fine(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["tab.navigate"] = {"status": "complete", "url": "https://a.test/home", "title": "Home"}
    result = await wf_engine.call("interact", workflow_args([{"type": "navigate", "url": "https://a.test/"}]))
    assert result["status"] == "complete"
    assert result["metadata"]["url"] == "https://a.test/home"


async def test_allow_redirect_skips_the_check(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["tab.navigate"] = {
        "status": "complete",
        "url": "https://a.test/login?next=/protected",
        "title": "Login",
    }
    steps = [{"type": "navigate", "url": "https://a.test/protected", "allow_redirect": True}]
    result = await wf_engine.call("interact", workflow_args(steps))
    assert result["status"] == "complete"
    assert result["metadata"]["url"] == "https://a.test/login?next=/protected"


async def test_a_closed_tab_stops_with_partial_data(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.queue("scrape.extract", page(rows("a")), TabpilotError("tab_closed", "The tab was closed."))
    steps = [EXTRACT, {"type": "scroll"}, EXTRACT, {"type": "scroll"}]
    error = await error_of(wf_engine.call("interact", workflow_args(steps, error_recovery={"on_failure": "continue"})))
    assert error.code == "tab_closed"
    assert error.details["data"] == rows("a")
    assert error.details["failed_step"] == "2"
    assert error.details["steps_completed"] == 2
    assert ops(browser) == ["scrape.extract", "dom.scroll", "scrape.extract"]


@pytest.mark.parametrize("on_failure", ["abort_with_partial", "abort"])
async def test_a_lost_extension_stops_with_partial_data(
    wf_engine: Engine, browser: FakeBrowser, on_failure: str
) -> None:
    async def extract_then_disconnect(params: dict[str, Any]) -> dict[str, Any]:
        browser.connect(False)
        return page(rows("a"))

    browser.replies["scrape.extract"] = extract_then_disconnect
    steps = [EXTRACT, {"type": "wait", "selector": ".x"}]
    error = await error_of(wf_engine.call("interact", workflow_args(steps, error_recovery={"on_failure": on_failure})))
    assert error.code == "extension_not_connected"
    assert error.details["data"] == rows("a")
    assert error.details["steps_completed"] == 1
    assert ops(browser) == ["scrape.extract"]


async def test_a_link_lost_during_a_step(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.wait"] = TabpilotError("extension_not_connected", "The connection was lost.")
    recovery = {"on_failure": "continue", "on_timeout": "skip"}
    error = await error_of(
        wf_engine.call(
            "interact", workflow_args([EXTRACT, {"type": "wait", "selector": ".x"}], error_recovery=recovery)
        )
    )
    assert error.code == "extension_not_connected"
    assert error.details["data"] == rows("a")
    assert ops(browser) == ["scrape.extract", "dom.wait"]


# -- one workflow per tab ----------------------------------------------------------------------------


async def test_a_second_workflow_in_the_same_tab_is_refused(wf_engine: Engine, browser: FakeBrowser) -> None:
    async def resolve(params: dict[str, Any]) -> dict[str, Any]:
        return {**TAB, "tab_id": params.get("tab_id", 7)}

    browser.replies["tabs.resolve"] = resolve
    blocker = Blocker({"state": "visible"})
    browser.replies["dom.wait"] = blocker
    first = await wf_engine.call("interact", workflow_args([{"type": "wait", "selector": ".slow"}], background=True))
    await asyncio.wait_for(blocker.entered.wait(), 5)
    assert wf_engine.tab_locks.any()

    error = await error_of(wf_engine.call("interact", workflow_args([EXTRACT], name="other")))
    assert error.code == "workflow_in_progress"
    assert error.details["active_workflow_id"] == WF_ID
    assert WF_ID in error.message
    assert ops(browser).count("scrape.extract") == 0

    other_tab = await wf_engine.call("interact", workflow_args([EXTRACT], name="other", tab_id=8))
    assert other_tab["status"] == "complete"

    blocker.release.set()
    assert (await final(wf_engine, first["correlation_id"]))["status"] == "complete"
    assert not wf_engine.tab_locks.any()
    again = await wf_engine.call("interact", workflow_args([EXTRACT], name="other"))
    assert again["status"] == "complete"


async def test_the_tab_is_free_again_after_a_failure(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.wait"] = TabpilotError("tab_closed", "closed")
    await error_of(wf_engine.call("interact", workflow_args([{"type": "wait", "selector": ".x"}])))
    assert not wf_engine.tab_locks.any()


# -- branches -----------------------------------------------------------------------------------------

BRANCH = {
    "type": "if_exists",
    "selector": ".cookie-banner",
    "then": [
        {"type": "scroll", "selector": ".cookie-banner"},
        {"type": "wait", "selector": ".gone", "state": "hidden"},
    ],
    "else": [{"type": "scroll"}],
}


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (1, ["dom.count", "dom.scroll", "dom.wait", "scrape.extract"]),
        (0, ["dom.count", "dom.scroll", "scrape.extract"]),
    ],
)
async def test_if_exists_takes_the_matching_branch(
    wf_engine: Engine, browser: FakeBrowser, count: int, expected: list[str]
) -> None:
    browser.replies["dom.count"] = {"count": count, "visible": count}
    result = await wf_engine.call("interact", workflow_args([BRANCH, EXTRACT]))
    assert ops(browser) == expected
    assert page_calls(browser)[0].params == {"tab_id": 7, "selector": ".cookie-banner"}
    scroll = page_calls(browser)[1]
    base = {"tab_id": 7, "timeout_ms": 10_000}
    assert scroll.params == ({**base, "selector": ".cookie-banner"} if count else base)
    assert (result["steps_completed"], result["steps_total"]) == (2, 2)


async def test_a_failure_inside_a_branch_names_the_nested_step(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.count"] = {"count": 2}
    browser.replies["dom.wait"] = TabpilotError("element_not_found", "nope")
    recovery = {"on_failure": "abort_with_partial"}
    error = await error_of(wf_engine.call("interact", workflow_args([EXTRACT, BRANCH], error_recovery=recovery)))
    assert error.details["failed_step"] == "1.then[1]"
    assert error.message == "Step 1.then[1] (if_exists) failed: nope"
    assert error.details["data"] == rows("a")


async def test_continue_inside_a_branch(wf_engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.count"] = {"count": 1}
    browser.replies["dom.wait"] = TabpilotError("element_not_found", "nope")
    result = await wf_engine.call(
        "interact", workflow_args([BRANCH, EXTRACT], error_recovery={"on_failure": "continue"})
    )
    assert result["status"] == "complete"
    assert [e["step"] for e in result["metadata"]["errors"]] == ["0.then[1]"]


# -- approval and gates --------------------------------------------------------------------------------


async def test_a_workflow_is_approved_once_with_all_its_page_changing_steps(
    wf_engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["allow"]
    steps = [
        {"type": "navigate", "url": "https://a.test/"},
        {"type": "click", "selector": "#one"},
        {"type": "if_exists", "selector": ".more", "then": [{"type": "click", "selector": "#two"}]},
        EXTRACT,
    ]
    browser.replies["dom.count"] = {"count": 1}
    result = await wf_engine.call("interact", workflow_args(steps), agent="claude")
    assert result["status"] == "complete"
    (request,) = approvals.requests
    assert (request.tool, request.mode, request.agent) == ("interact", "scrape", "claude")
    assert [dict(s) for s in request.steps] == [
        {"type": "click", "selector": "#one"},
        {"type": "click", "selector": "#two"},
    ]
    assert ops(browser).count("dom.click") == 2


async def test_a_denied_workflow_does_nothing(
    wf_engine: Engine, browser: FakeBrowser, approvals: FakeApprovals, store: MemoryWorkflowStore
) -> None:
    approvals.script = ["deny"]
    steps = [{"type": "navigate", "url": "https://a.test/"}, {"type": "click", "selector": "#one"}, EXTRACT]
    error = await error_of(wf_engine.call("interact", workflow_args(steps, record=True)))
    assert error.code == "approval_denied"
    assert page_calls(browser) == []
    assert store.files == {}
    assert not wf_engine.tab_locks.any()


async def test_reading_workflows_never_ask(wf_engine: Engine, browser: FakeBrowser, approvals: FakeApprovals) -> None:
    approvals.script = ["deny"]
    browser.replies["dom.count"] = {"count": 0}
    steps = [
        {"type": "navigate", "url": "https://a.test/"},
        {"type": "wait", "selector": ".x"},
        {"type": "scroll"},
        {"type": "delay", "ms": 0},
        {"type": "if_exists", "selector": ".x", "then": [{"type": "scroll"}]},
        EXTRACT,
    ]
    result = await wf_engine.call("interact", workflow_args(steps))
    assert result["status"] == "complete"
    assert approvals.requests == []


async def test_page_actions_off_refuses_clicking_workflows_without_asking(
    wf_engine: Engine, browser: FakeBrowser, approvals: FakeApprovals, store: MemoryWorkflowStore
) -> None:
    wf_engine.pilot.set_capability("page_actions", False)
    steps = [{"type": "navigate", "url": "https://a.test/"}, {"type": "fill", "selector": "#q", "value": "x"}]
    error = await error_of(wf_engine.call("interact", workflow_args(steps, record=True)))
    assert error.code == "ai_web_pilot_disabled"
    assert error.details["capability"] == "page_actions"
    assert approvals.requests == []
    assert page_calls(browser) == []
    assert store.files == {}
    # a workflow that only reads still runs
    result = await wf_engine.call("interact", workflow_args([EXTRACT]))
    assert result["data"] == rows("a")


async def test_workflows_need_the_pilot(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine(pilot_on=False)
    error = await error_of(engine.call("interact", workflow_args([EXTRACT])))
    assert error.code == "ai_web_pilot_disabled"
    assert browser.calls == []


# -- request validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"steps": None}, "operation=workflow: 'steps' is required."),
        ({"steps": []}, "a workflow needs at least one step"),
        ({"selector": "tr"}, "operation=workflow: unknown parameter 'selector'"),
        ({"override_params": {"a": 1}}, "operation=workflow: unknown parameter 'override_params'"),
        ({"steps": [{"type": "levitate"}]}, "steps[0]: unknown step type 'levitate'"),
        ({"steps": [{"type": "scroll"}] * 51}, "51 steps; a workflow may have at most 50."),
        (
            {"steps": [{"type": "if_exists", "selector": ".x", "then": [{"type": "scroll"}] * 50}]},
            "51 steps; a workflow may have at most 50.",
        ),
        ({"error_recovery": {"on_timeout": "panic"}}, "error_recovery.on_timeout must be one of"),
        ({"params": {"a": [1]}}, "params.a must be a string or a number"),
        ({"steps": [{"type": "navigate", "url": "ftp://a.test/"}]}, "'url' must be an absolute http(s) URL"),
        ({"steps": [{"type": "navigate", "url": "{{u}}"}], "params": {"u": "javascript:alert(1)"}}, "absolute http(s)"),
        ({"step_delay_ms": 60_001}, "'step_delay_ms' must be at most 60000"),
    ],
)
async def test_bad_workflows_never_reach_the_page(
    wf_engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore, args: dict[str, Any], needle: str
) -> None:
    error = await error_of(wf_engine.call("interact", {**workflow_args([{"type": "scroll"}]), **args, "record": True}))
    assert error.code == "invalid_params"
    assert needle in error.message
    assert page_calls(browser) == []
    assert store.files == {}


async def test_missing_params_are_listed(wf_engine: Engine, browser: FakeBrowser) -> None:
    steps = [{"type": "navigate", "url": "https://a.test/{{board}}/{{sprint}}"}]
    error = await error_of(wf_engine.call("interact", workflow_args(steps, params={"board": "P"})))
    assert error.code == "invalid_params"
    assert error.details["missing"] == ["sprint"]
    assert page_calls(browser) == []


async def test_params_fill_the_steps(wf_engine: Engine, browser: FakeBrowser, allow: FakeApprovals) -> None:
    steps = [
        {"type": "navigate", "url": "https://a.test/b/{{board}}"},
        {"type": "fill", "selector": "#n", "value": "{{n}}"},
    ]
    await wf_engine.call("interact", workflow_args(steps, params={"board": "P1", "n": 3}))
    assert page_calls(browser)[0].params["url"] == "https://a.test/b/P1"
    assert page_calls(browser)[1].params["value"] == "3"


async def test_a_missing_secret_is_named(wf_engine: Engine, browser: FakeBrowser, allow: FakeApprovals) -> None:
    steps = [{"type": "fill", "selector": "#k", "value": "{{secret:api_key}}"}]
    error = await error_of(wf_engine.call("interact", workflow_args(steps)))
    assert error.code == "invalid_params"
    assert error.details["secret"] == "api_key"
    assert "api_key" in error.message
    assert page_calls(browser) == []


# -- recording ------------------------------------------------------------------------------------


async def test_record_saves_the_workflow_with_its_origin(wf_engine: Engine, store: MemoryWorkflowStore) -> None:
    steps = [{"type": "navigate", "url": "https://Jira.Corp.test/boards/P?x=1"}, EXTRACT]
    recovery = {"on_timeout": "skip", "max_retries": 1, "on_failure": "continue"}
    result = await wf_engine.call("interact", workflow_args(steps, record=True, error_recovery=recovery))
    assert result["workflow_id"] == WF_ID
    assert result["metadata"]["recorded"] is True
    assert "replayed_from" not in result["metadata"]
    doc = json.loads(store.files[WF_ID])
    assert set(doc) == {"workflow_id", "name", "origin", "created_at", "steps", "error_recovery", "params"}
    assert doc["workflow_id"] == WF_ID
    assert doc["name"] == "jobs"
    assert doc["origin"] == "https://jira.corp.test"
    assert doc["steps"] == steps
    assert doc["error_recovery"] == recovery
    assert doc["params"] == {}
    assert doc["created_at"].startswith(datetime.now(UTC).strftime("%Y-%m-%d"))
    (run,) = store.runs(WF_ID)
    assert run["status"] == "complete"
    assert run["correlation_id"] == result["correlation_id"]
    assert run["data"] == rows("a")
    assert (run["steps_completed"], run["steps_total"]) == (2, 2)
    assert (run["error"], run["message"]) == (None, None)
    assert store.get(WF_ID).last_status == "complete"  # type: ignore[union-attr]


async def test_record_ids_are_unique(wf_engine: Engine, store: MemoryWorkflowStore) -> None:
    ids = [(await wf_engine.call("interact", workflow_args([EXTRACT], record=True)))["workflow_id"] for _ in range(3)]
    assert ids == [WF_ID, f"{WF_ID}-2", f"{WF_ID}-3"]
    assert sorted(store.files) == sorted(ids)
    odd = await wf_engine.call("interact", workflow_args([EXTRACT], record=True, name="Export: Jira / Sprint"))
    assert odd["workflow_id"] == f"wf-Export_Jira_Sprint-{TODAY}"


async def test_record_without_navigate_takes_the_tab_origin(wf_engine: Engine, store: MemoryWorkflowStore) -> None:
    await wf_engine.call("interact", workflow_args([EXTRACT], record=True))
    assert json.loads(store.files[WF_ID])["origin"] == "https://a.test"


async def test_record_with_a_param_host_takes_the_filled_origin(wf_engine: Engine, store: MemoryWorkflowStore) -> None:
    steps = [{"type": "navigate", "url": "https://{{host}}/list"}, EXTRACT]
    await wf_engine.call("interact", workflow_args(steps, record=True, params={"host": "b.test"}))
    doc = json.loads(store.files[WF_ID])
    assert doc["origin"] == "https://b.test"
    assert doc["steps"][0]["url"] == "https://{{host}}/list"
    assert doc["params"] == {"host": "b.test"}


async def test_a_failed_recorded_run_is_kept_with_its_error(
    wf_engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore
) -> None:
    browser.replies["dom.wait"] = TabpilotError("tab_closed", "The tab was closed.")
    await error_of(
        wf_engine.call("interact", workflow_args([EXTRACT, {"type": "wait", "selector": ".x"}], record=True))
    )
    (run,) = store.runs(WF_ID)
    assert (run["status"], run["error"], run["data"]) == ("error", "tab_closed", rows("a"))
    assert run["message"].startswith("Step 1 (wait) failed")
    assert store.get(WF_ID).last_status == "error"  # type: ignore[union-attr]


async def test_unrecorded_runs_are_not_stored(wf_engine: Engine, store: MemoryWorkflowStore) -> None:
    await wf_engine.call("interact", workflow_args([EXTRACT]))
    assert store.files == {}
    assert store.runs(WF_ID) == []


async def test_a_password_typed_in_clear_is_not_recorded(
    wf_engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore, allow: FakeApprovals
) -> None:
    for step in (
        {"type": "fill", "selector": "input[type=password]", "value": "hunter2"},
        {"type": "type", "selector": "#Password", "text": "hunter2"},
    ):
        error = await error_of(wf_engine.call("interact", workflow_args([step], record=True)))
        assert error.code == "invalid_params"
        assert "{{secret:NAME}}" in error.message
        assert "hunter2" not in error.message
    assert store.files == {}
    assert page_calls(browser) == []
    # the same step by reference is fine, and so is a password field not recorded
    ok = {"type": "fill", "selector": "input[type=password]", "value": "{{secret:pw}}"}
    assert (await wf_engine.call("interact", workflow_args([ok], record=True)))["status"] == "complete"
    clear = {"type": "fill", "selector": "input[type=password]", "value": "hunter2"}
    assert (await wf_engine.call("interact", workflow_args([clear], name="once")))["status"] == "complete"


async def test_record_needs_a_store(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    browser.replies["tabs.resolve"] = TAB
    engine = make_engine(config=EngineConfig(step_delay_ms=0))
    error = await error_of(engine.call("interact", workflow_args([{"type": "scroll"}], record=True)))
    assert error.code == "not_supported"
    assert (await engine.call("interact", workflow_args([{"type": "scroll"}])))["status"] == "complete"


async def test_a_refused_run_is_not_recorded(
    wf_engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore
) -> None:
    blocker = Blocker({"state": "visible"})
    browser.replies["dom.wait"] = blocker
    first = await wf_engine.call("interact", workflow_args([{"type": "wait", "selector": ".x"}], background=True))
    await asyncio.wait_for(blocker.entered.wait(), 5)
    error = await error_of(wf_engine.call("interact", workflow_args([EXTRACT], name="second", record=True)))
    assert error.code == "workflow_in_progress"
    assert store.files == {}
    blocker.release.set()
    await final(wf_engine, first["correlation_id"])


# -- secrets -----------------------------------------------------------------------------------------

LOGIN = [
    {"type": "navigate", "url": "https://a.test/login"},
    {"type": "fill", "selector": "#user", "value": "{{secret:user}}"},
    {"type": "fill", "selector": "input[type=password]", "value": "{{secret:pw}}"},
    {"type": "click", "selector": "button[type=submit]"},
    EXTRACT,
]


def leaks(value: Any) -> bool:
    text = json.dumps(value, default=str)
    return PASSWORD in text or USER in text


async def test_secrets_reach_the_browser_and_nothing_else(
    wf_engine: Engine,
    browser: FakeBrowser,
    store: MemoryWorkflowStore,
    secrets: DictSecrets,
    approvals: FakeApprovals,
    allow: FakeApprovals,
) -> None:
    browser.replies["scrape.extract"] = page(
        [{"name": f"Welcome {USER}"}, {"name": f"pw was {PASSWORD}"}], warnings=[f"odd value {PASSWORD}"]
    )
    result = await wf_engine.call("interact", workflow_args(LOGIN, record=True))
    fills = [c.params["value"] for c in page_calls(browser) if c.op == "dom.fill"]
    assert fills == [USER, PASSWORD]
    assert sorted(secrets.asked) == ["pw", "user"]
    assert not leaks(result)
    assert result["data"] == [{"name": "Welcome {{secret:user}}"}, {"name": "pw was {{secret:pw}}"}]
    assert result["metadata"]["warnings"] == ["odd value {{secret:pw}}"]
    assert not leaks(store.files)
    assert "{{secret:pw}}" in store.files[WF_ID]
    assert not leaks(store.runs(WF_ID))
    assert not leaks([e.as_dict() for e in wf_engine.activity.recent()])
    assert not leaks([(r.params, r.steps) for r in approvals.requests])


async def test_secrets_never_show_in_an_error(
    wf_engine: Engine, browser: FakeBrowser, store: MemoryWorkflowStore, allow: FakeApprovals
) -> None:
    browser.replies["dom.click"] = TabpilotError(
        "element_not_found", f"No button near the field holding {PASSWORD}", near=f"value={PASSWORD}"
    )
    error = await error_of(wf_engine.call("interact", workflow_args(LOGIN, record=True)))
    assert error.code == "element_not_found"
    assert not leaks(error.envelope())
    assert "{{secret:pw}}" in error.message
    assert error.details["near"] == "value={{secret:pw}}"
    assert not leaks(store.runs(WF_ID))
    assert not leaks(store.files)
    assert not leaks([e.as_dict() for e in wf_engine.activity.recent()])
    cid = error.details["correlation_id"]
    with pytest.raises(TabpilotError) as again:
        await result_of(wf_engine, cid)
    assert not leaks(again.value.envelope())
