"""`scrape` operation `extract` through the engine: shape, pagination, waiting, the 1 MB cap, JSON Schema."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.engine.core import DEFAULT_REDACT, Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.workflows import extract as extract_module
from tests.unit.engine.conftest import EngineFactory
from tests.unit.engine.scrape_support import URL, SleepRecorder, error_of, extract_args, final, page, rows
from tests.unit.fakes import FakeApprovals, FakeBrowser

NEXT = {"next_selector": "a.next", "delay_ms": 0}


@pytest.fixture
def approvals() -> FakeApprovals:
    """The person allows the next-page clicks (their approval: test_pagination_approval.py)."""
    return FakeApprovals(*["allow"] * 20)


def paginated(**paginate: Any) -> dict[str, Any]:
    return extract_args(options={"paginate": {**NEXT, **paginate}})


async def test_one_page_answers_exactly_the_contract_shape(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page(rows("Alice", "Bob"))
    result = await engine.call("interact", extract_args())
    assert set(result) == {"status", "correlation_id", "data", "metadata"}
    assert result["status"] == "complete"
    assert result["correlation_id"].startswith("corr-")
    assert result["data"] == [{"name": "Alice"}, {"name": "Bob"}]
    metadata = result["metadata"]
    assert set(metadata) == {"pages_scraped", "rows_extracted", "duration_ms", "url", "errors", "warnings"}
    assert metadata["pages_scraped"] == 1
    assert metadata["rows_extracted"] == 2
    assert isinstance(metadata["duration_ms"], int)
    assert metadata["duration_ms"] >= 0
    assert metadata["url"] == URL
    assert metadata["errors"] == []
    assert metadata["warnings"] == []
    (call,) = browser.calls
    assert call.op == "scrape.extract"
    assert call.params == {
        "selector": "tr",
        "fields": [{"name": "name", "selector": "td", "ops": [{"op": "text"}]}],
        "redact": list(DEFAULT_REDACT),
        "max_bytes": 1024 * 1024,
    }
    json.dumps(result)  # plain JSON all the way down


async def test_tab_id_and_configured_redaction_travel_with_the_request(
    make_engine: EngineFactory, browser: FakeBrowser
) -> None:
    engine = make_engine(config=EngineConfig(redact_selectors=(".ssn", "[data-secret]")))
    browser.replies["scrape.extract"] = page([])
    await engine.call("interact", extract_args(tab_id=12, schema={"row": ". | html", "n": "td | attr:data-n | number"}))
    (call,) = browser.calls
    assert call.params["tab_id"] == 12
    assert call.params["redact"] == [".ssn", "[data-secret]"]
    assert call.params["fields"] == [
        {"name": "row", "selector": "", "ops": [{"op": "html"}]},
        {"name": "n", "selector": "td", "ops": [{"op": "attr", "name": "data-n"}, {"op": "number"}]},
    ]


async def test_zero_matches_is_an_empty_list_not_an_error(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page([])
    result = await engine.call("interact", extract_args())
    assert result["data"] == []
    assert result["metadata"]["rows_extracted"] == 0
    assert result["metadata"]["pages_scraped"] == 1


async def test_invalid_field_selector_warning_is_passed_through_once(engine: Engine, browser: FakeBrowser) -> None:
    warning = "Field 'bad': 'td[' is not a valid selector; the field is null."
    found = [{"name": "A", "bad": None}]
    browser.queue("scrape.extract", page(found, warnings=[warning]), page(found, warnings=[warning, "other"]))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    result = await engine.call("interact", paginated(max_pages=2))
    assert result["data"] == [{"name": "A", "bad": None}, {"name": "A", "bad": None}]
    assert result["metadata"]["warnings"] == [warning, "other"]


async def test_pagination_stops_at_max_pages(engine: Engine, browser: FakeBrowser) -> None:
    browser.queue("scrape.extract", page(rows("a")), page(rows("b")), page(rows("c")), page(rows("d")))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    result = await engine.call("interact", paginated(max_pages=3))
    assert [r["name"] for r in result["data"]] == ["a", "b", "c"]
    assert result["metadata"]["pages_scraped"] == 3
    assert result["metadata"]["rows_extracted"] == 3
    assert [c.op for c in browser.acting_calls] == ["scrape.extract", "scrape.next_page"] * 2 + ["scrape.extract"]
    assert browser.acting_calls[1].params == {
        "tab_id": 1,  # the tab whose next-page clicks were approved
        "next_selector": "a.next",
        "rows_selector": "tr",
        "timeout_ms": 10_000,
    }


async def test_pagination_defaults_to_five_pages(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page(rows("x"))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    result = await engine.call("interact", paginated())
    assert result["metadata"]["pages_scraped"] == 5


async def test_pagination_stops_on_an_empty_page(engine: Engine, browser: FakeBrowser) -> None:
    browser.queue("scrape.extract", page(rows("a", "b")), page([]), page(rows("never")))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    result = await engine.call("interact", paginated(max_pages=10))
    assert [r["name"] for r in result["data"]] == ["a", "b"]
    assert result["metadata"]["pages_scraped"] == 2
    assert [c.op for c in browser.acting_calls] == ["scrape.extract", "scrape.next_page", "scrape.extract"]
    assert result["metadata"]["warnings"] == []


@pytest.mark.parametrize(
    ("reason", "warned"),
    [("no_change", True), ("no_next", False), ("disabled", False)],
)
async def test_pagination_stops_when_the_page_does_not_move(
    engine: Engine, browser: FakeBrowser, reason: str, warned: bool
) -> None:
    browser.queue("scrape.extract", page(rows("a")), page(rows("b")))
    browser.queue("scrape.next_page", {"moved": True, "url": URL}, {"moved": False, "reason": reason, "url": URL})
    result = await engine.call("interact", paginated(max_pages=5, timeout_ms=2000))
    assert [r["name"] for r in result["data"]] == ["a", "b"]
    assert result["metadata"]["pages_scraped"] == 2
    assert browser.calls[-1].params["timeout_ms"] == 2000
    assert browser.calls[-1].timeout_s == pytest.approx(7.0)
    warnings = result["metadata"]["warnings"]
    assert warnings == (["Clicking 'a.next' did not change the page; pagination stopped."] if warned else [])


async def test_pagination_pauses_between_pages(
    engine: Engine, browser: FakeBrowser, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = SleepRecorder()
    monkeypatch.setattr(extract_module, "asyncio", recorder)
    browser.replies["scrape.extract"] = page(rows("a"))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    await engine.call("interact", paginated(max_pages=3, delay_ms=250))
    assert recorder.slept == [0.25, 0.25]


async def test_pagination_delay_defaults_to_half_a_second(
    engine: Engine, browser: FakeBrowser, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = SleepRecorder()
    monkeypatch.setattr(extract_module, "asyncio", recorder)
    browser.replies["scrape.extract"] = page(rows("a"))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    await engine.call("interact", extract_args(options={"paginate": {"next_selector": "a", "max_pages": 2}}))
    assert recorder.slept == [0.5]


async def test_wait_for_comes_first(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.wait"] = {"state": "visible", "waited_ms": 120}
    browser.replies["scrape.extract"] = page(rows("a"))
    await engine.call("interact", extract_args(options={"wait_for": ".loaded", "timeout_ms": 3000}))
    assert browser.ops == ["dom.wait", "scrape.extract"]
    wait = browser.calls[0]
    assert wait.params == {"selector": ".loaded", "state": "visible", "timeout_ms": 3000}
    assert wait.timeout_s == pytest.approx(8.0)


async def test_wait_for_timeout_is_a_timeout_error(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["dom.wait"] = TabpilotError("timeout", "'.loaded' was not visible within 3000 ms.")
    error = await error_of(engine.call("interact", extract_args(options={"wait_for": ".loaded", "timeout_ms": 3000})))
    assert error.code == "timeout"
    assert error.details["correlation_id"].startswith("corr-")
    assert browser.ops == ["dom.wait"]


async def test_the_result_is_cut_at_one_megabyte(engine: Engine, browser: FakeBrowser) -> None:
    big = [{"name": f"{i:05d}" + "x" * 1000} for i in range(1100)]  # ~1.1 MB
    browser.replies["scrape.extract"] = page(big)
    result = await engine.call("interact", extract_args())
    metadata = result["metadata"]
    assert metadata["truncated"] is True
    assert 0 < len(result["data"]) < 1100
    assert result["data"] == big[: len(result["data"])]
    assert metadata["rows_extracted"] == len(result["data"])
    assert len(json.dumps(result["data"], separators=(",", ":"))) <= 1024 * 1024
    assert len(json.dumps(big[: len(result["data"]) + 1], separators=(",", ":"))) > 1024 * 1024
    assert any("1024 KB" in w and "cut" in w for w in metadata["warnings"])


async def test_the_budget_is_shared_by_all_pages(engine: Engine, browser: FakeBrowser) -> None:
    half = [{"name": "y" * 1000} for _ in range(600)]  # ~600 KB a page
    browser.replies["scrape.extract"] = page(half)
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    result = await engine.call("interact", paginated(max_pages=5))
    assert result["metadata"]["truncated"] is True
    assert result["metadata"]["pages_scraped"] == 2
    assert 600 < len(result["data"]) < 1200
    first, second = (c for c in browser.calls if c.op == "scrape.extract")
    assert first.params["max_bytes"] == 1024 * 1024
    assert 0 < second.params["max_bytes"] < 1024 * 1024 - 600 * 1000
    assert browser.ops.count("scrape.next_page") == 1


async def test_a_page_cut_in_the_browser_is_truncated(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page(rows("a"), truncated=True)
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    result = await engine.call("interact", paginated(max_pages=3))
    assert result["metadata"]["truncated"] is True
    assert result["data"] == rows("a")
    assert [c.op for c in browser.acting_calls] == ["scrape.extract"]


async def test_not_truncated_leaves_the_key_out(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page(rows("a"))
    result = await engine.call("interact", extract_args())
    assert "truncated" not in result["metadata"]


JSON_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "x-selector": "td.name"},
            "points": {"type": "integer", "x-selector": "td.points"},
        },
        "required": ["name", "points"],
    },
}


async def test_json_schema_rows_are_validated(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page([{"name": "A", "points": 3}, {"name": "B", "points": None}])
    result = await engine.call("interact", extract_args(schema=JSON_SCHEMA))
    assert browser.calls[0].params["fields"] == [
        {"name": "name", "selector": "td.name", "ops": [{"op": "text"}]},
        {"name": "points", "selector": "td.points", "ops": [{"op": "text"}, {"op": "number"}]},
    ]
    assert result["data"] == [{"name": "A", "points": 3}, {"name": "B", "points": None}]
    assert result["metadata"]["validation_errors"] == [
        {"row": 1, "path": "points", "message": "null is not of type integer"}
    ]


async def test_json_schema_without_failures_still_says_so(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page([{"name": "A", "points": 3}])
    result = await engine.call("interact", extract_args(schema=JSON_SCHEMA))
    assert result["metadata"]["validation_errors"] == []


async def test_plain_field_specs_have_no_validation_errors_key(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page([{"name": 5}])
    result = await engine.call("interact", extract_args())
    assert "validation_errors" not in result["metadata"]


async def test_progress_is_reported_per_page(engine: Engine, browser: FakeBrowser) -> None:
    seen: list[tuple[int, int | None, str]] = []
    browser.queue("scrape.extract", page(rows("a", "b")), page(rows("c")))
    browser.replies["scrape.next_page"] = {"moved": True, "url": URL}
    await engine.call("interact", paginated(max_pages=2), progress=lambda *a: seen.append(a))
    assert seen == [(0, None, "page 1: 2 rows"), (0, None, "page 2: 3 rows")]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"selector": None}, "operation=extract: 'selector' is required."),
        ({"schema": None}, "operation=extract: 'schema' is required."),
        ({"schema": {"a": "td | cents"}}, "unknown operation 'cents'"),
        ({"schema": []}, "'schema' must be an object"),
        ({"steps": [{"type": "scroll"}]}, "operation=extract: unknown parameter 'steps'"),
        ({"workflow_id": "wf-a", "name": "n"}, "operation=extract: unknown parameter 'name', 'workflow_id'"),
        ({"options": []}, "'options' must be an object"),
        ({"options": {"wait": ".x"}}, "options: unknown field 'wait'"),
        ({"options": {"wait_for": 3}}, "options.wait_for must be a CSS selector"),
        ({"options": {"timeout_ms": 0}}, "options.timeout_ms must be between 1 and 300000"),
        ({"options": {"timeout_ms": True}}, "options.timeout_ms must be between 1 and 300000"),
        ({"options": {"paginate": {"max_pages": 2}}}, "options.paginate: 'next_selector' is required"),
        ({"options": {"paginate": {"next_selector": "a", "max_pages": 500}}}, "'max_pages' must be a whole number"),
        ({"operation": "crawl"}, "'operation' must be one of extract, workflow, replay"),
        ({"schedule": "daily"}, "unknown parameter 'schedule'"),
    ],
)
async def test_bad_requests_never_reach_the_browser(
    engine: Engine, browser: FakeBrowser, args: dict[str, Any], needle: str
) -> None:
    error = await error_of(engine.call("interact", extract_args(**args)))
    assert error.code == "invalid_params"
    assert needle in error.message
    assert browser.calls == []


async def test_needs_the_pilot(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    engine = make_engine(pilot_on=False)
    error = await error_of(engine.call("interact", extract_args()))
    assert error.code == "ai_web_pilot_disabled"
    assert browser.calls == []


async def test_needs_the_scrape_capability(engine: Engine, browser: FakeBrowser) -> None:
    engine.pilot.set_capability("scrape", False)
    error = await error_of(engine.call("interact", extract_args()))
    assert error.code == "ai_web_pilot_disabled"
    assert error.details["capability"] == "scrape"
    assert browser.calls == []


async def test_extract_without_pagination_never_asks_for_approval(
    engine: Engine, browser: FakeBrowser, approvals: FakeApprovals
) -> None:
    approvals.script = ["deny"]
    browser.replies["dom.wait"] = {"state": "visible"}
    browser.replies["scrape.extract"] = page(rows("a"))
    result = await engine.call("interact", extract_args(options={"wait_for": ".x"}))
    assert result["data"] == rows("a")
    assert approvals.requests == []


async def test_without_a_browser(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    browser.connect(False)
    engine = make_engine()
    error = await error_of(engine.call("interact", extract_args()))
    assert error.code == "extension_not_connected"


async def test_a_lost_browser_mid_pagination(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page(rows("a"))
    browser.replies["scrape.next_page"] = TabpilotError("extension_not_connected", "The connection was lost.")
    error = await error_of(engine.call("interact", paginated(max_pages=3)))
    assert error.code == "extension_not_connected"


async def test_background_extract_is_fetched_later(engine: Engine, browser: FakeBrowser) -> None:
    browser.replies["scrape.extract"] = page(rows("a"))
    answer = await engine.call("interact", extract_args(background=True))
    assert answer == {"status": "queued", "correlation_id": answer["correlation_id"]}
    result = await final(engine, answer["correlation_id"])
    assert result["data"] == rows("a")
    assert result["correlation_id"] == answer["correlation_id"]
