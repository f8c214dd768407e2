"""interact scrape through MCP with the real extension: extraction, workflows, recording, replay."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import keyring
import pytest

from tabpilot.app import App
from tabpilot.vault.keyring_store import SECRETS_SERVICE
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.pyflakes_check import undefined_or_unused
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

TABLE = {"n": "td.n | number", "label": "td.label | text"}


def scrape(operation: str, **args: Any) -> dict[str, Any]:
    return {"action": "scrape", "operation": operation, **args}


async def finished(mcp: StdioMcp, correlation_id: str, timeout: float = 20) -> dict[str, Any]:
    """The final outcome of a background command (result or error envelope)."""

    async def outcome() -> dict[str, Any] | None:
        result = await mcp.call("observe", {"what": "command_result", "correlation_id": correlation_id})
        content = result.structured_content or {}
        if result.is_error or content.get("status") == "complete":
            return {"is_error": result.is_error, **content}
        return None

    return await until(outcome, timeout=timeout, interval=0.05, what=f"{correlation_id} to finish")


async def test_extract_follows_three_pages_with_typed_fields(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    await tab.goto(site.url("/table?page=1"))
    result = await mcp.ok(
        "interact",
        scrape(
            "extract",
            selector="#rows tr",
            schema=TABLE,
            options={"paginate": {"next_selector": "a.next-page", "max_pages": 5, "delay_ms": 0}},
        ),
    )
    assert result["status"] == "complete"
    assert result["correlation_id"].startswith("corr-")
    assert result["data"][0] == {"n": 1, "label": "Row 1 of page 1"}
    assert [row["n"] for row in result["data"]] == list(range(1, 16))
    meta = result["metadata"]
    assert meta["pages_scraped"] == 3
    assert meta["rows_extracted"] == 15
    assert meta["url"] == site.url("/table?page=3")
    assert meta["errors"] == []
    assert "truncated" not in meta
    assert meta["duration_ms"] >= 0


async def test_pagination_tells_a_load_more_that_appends_from_a_list_swapped_in_place_and_a_next_link(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    """Each row once, whatever the pages do: a "Load more" that appends 10 + 10 + 5 items gives 25 rows
    (it once gave 10 + 20 + 25 = 55), and metadata.pagination says which way the pages came."""
    items = {"text": ". | text"}

    async def paginate(path: str, next_selector: str, pages: int = 5) -> dict[str, Any]:
        await tab.goto(site.url(path))
        return await mcp.ok(
            "interact",
            scrape(
                "extract",
                selector="#items li.item",
                schema=items,
                options={"paginate": {"next_selector": next_selector, "max_pages": pages, "delay_ms": 0}},
            ),
        )

    appended = await paginate("/load-more.html", "#more")
    assert [row["text"] for row in appended["data"]] == [f"Item {n}" for n in range(1, 26)]
    assert appended["metadata"]["pagination"] == "append"
    assert appended["metadata"]["pages_scraped"] == 3

    swapped = await paginate("/swap.html", "#next")
    assert [row["text"] for row in swapped["data"]] == [f"Item {n}" for n in range(1, 16)]
    assert swapped["metadata"]["pagination"] == "replace"

    await tab.goto(site.url("/table?page=1"))
    linked = await mcp.ok(
        "interact",
        scrape(
            "extract",
            selector="#rows tr",
            schema=TABLE,
            options={"paginate": {"next_selector": "a.next-page", "max_pages": 5, "delay_ms": 0}},
        ),
    )
    assert linked["metadata"]["pagination"] == "navigate" and linked["metadata"]["rows_extracted"] == 15


async def test_max_pages_stops_pagination(mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite) -> None:
    await tab.goto(site.url("/table?page=1"))
    result = await mcp.ok(
        "interact",
        scrape(
            "extract",
            selector="#rows tr",
            schema=TABLE,
            options={"paginate": {"next_selector": "a.next-page", "max_pages": 2, "delay_ms": 0}},
        ),
    )
    assert result["metadata"]["pages_scraped"] == 2
    assert len(result["data"]) == 10


async def test_a_slow_list_is_waited_for(mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite) -> None:
    await tab.goto(site.url("/delayed.html?delay_ms=700"))
    result = await mcp.ok(
        "interact",
        scrape("extract", selector="#list li", schema={"item": ". | text"}, options={"wait_for": "#list li"}),
    )
    assert result["data"] == [{"item": "one"}, {"item": "two"}, {"item": "three"}]
    await tab.goto(site.url("/delayed.html"))
    err = await mcp.error(
        "interact",
        scrape(
            "extract",
            selector="#list li",
            schema={"item": ". | text"},
            options={"wait_for": "#list li", "timeout_ms": 500},
        ),
    )
    assert err["error"] == "timeout"


async def test_zero_matches_and_an_invalid_field_selector(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    await tab.goto(site.url("/table?page=1"))
    none = await mcp.ok("interact", scrape("extract", selector="table.missing tr", schema=TABLE))
    assert none["data"] == []
    assert none["metadata"]["rows_extracted"] == 0
    broken = await mcp.ok(
        "interact", scrape("extract", selector="#rows tr", schema={"n": "td.n | number", "bad": "td[[[ | text"})
    )
    assert broken["data"][0] == {"n": 1, "bad": None}
    assert len(broken["data"]) == 5
    assert any("bad" in w for w in broken["metadata"]["warnings"])


async def test_password_and_sensitive_fields_come_back_redacted(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    await tab.goto(site.url("/login"))
    await tab.fill("#password", "hunter2-typed")
    result = await mcp.ok(
        "interact",
        scrape("extract", selector="#login", schema={"pw": "#password | text", "pw_attr": "#password | attr:value"}),
    )
    assert result["data"] == [{"pw": "[REDACTED]", "pw_attr": "[REDACTED]"}]
    await tab.goto(site.url("/index.html"))
    account = await mcp.ok(
        "interact", scrape("extract", selector="#account", schema={"text": ". | text", "html": ". | html"})
    )
    row = account["data"][0]
    assert "SECRET-123" not in json.dumps(account) and "4111" not in json.dumps(account)
    assert row["text"].startswith("Account: [REDACTED]")


async def test_results_over_a_megabyte_are_cut(mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite) -> None:
    await tab.goto(site.url("/bigtable?rows=6000"))
    result = await mcp.ok(
        "interact", scrape("extract", selector="#big tr", schema={"row": ". | html", "name": "td.name | text"})
    )
    meta = result["metadata"]
    assert meta["truncated"] is True
    assert 0 < meta["rows_extracted"] < 6000
    assert len(json.dumps(result["data"], separators=(",", ":"), ensure_ascii=False).encode()) <= 1024 * 1024
    assert any("cut" in w for w in meta["warnings"])


async def test_json_schema_extraction_validates_rows(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    await tab.goto(site.url("/table?page=1"))
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "x-selector": "td.n"},
            "label": {"type": "string", "x-selector": "td.label"},
        },
        "required": ["n", "label"],
    }
    good = await mcp.ok("interact", scrape("extract", selector="#rows tr", schema=schema))
    assert good["data"][0] == {"n": 1, "label": "Row 1 of page 1"}
    assert good["metadata"]["validation_errors"] == []
    strict = {
        **schema,
        "properties": {**schema["properties"], "price": {"type": "number", "x-selector": "td.price"}},
        "required": ["n", "label", "price"],
    }
    bad = await mcp.ok("interact", scrape("extract", selector="#rows tr", schema=strict))
    assert bad["data"][0] == {"n": 1, "label": "Row 1 of page 1", "price": None}
    problems = bad["metadata"]["validation_errors"]
    assert len(problems) == 5
    assert problems[0] == {"row": 0, "path": "price", "message": "null is not of type number"}


async def test_a_workflow_reports_progress_and_answers_running_past_wait_ms(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    steps = [
        {"type": "navigate", "url": site.url("/table?page=1")},
        {"type": "wait", "selector": "#rows tr"},
        {"type": "delay", "ms": 800},
        {"type": "extract", "selector": "#rows tr", "schema": TABLE},
    ]
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    result = await mcp.call(
        "interact", scrape("workflow", name="progress", steps=steps, step_delay_ms=0), progress_callback=on_progress
    )
    assert not result.is_error
    final = result.structured_content
    assert final is not None
    assert (final["steps_completed"], final["steps_total"]) == (4, 4)
    assert len(final["data"]) == 5
    assert (4.0, 4.0) in seen and (1.0, 4.0) in seen

    running = await mcp.ok("interact", scrape("workflow", name="progress", steps=steps, step_delay_ms=0, wait_ms=200))
    assert running["status"] == "running"
    assert running["steps_total"] == 4
    assert 0 <= running["steps_completed"] < 4
    done = await finished(mcp, running["correlation_id"])
    assert done["status"] == "complete"
    assert len(done["data"]) == 5


async def test_a_login_redirect_stops_the_workflow_with_partial_data(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    steps = [
        {"type": "navigate", "url": site.url("/table?page=1")},
        {"type": "extract", "selector": "#rows tr", "schema": TABLE},
        {"type": "navigate", "url": site.url("/protected")},
        {"type": "extract", "selector": "h1", "schema": {"h": ". | text"}},
    ]
    err = await mcp.error("interact", scrape("workflow", name="members", steps=steps, step_delay_ms=0))
    assert err["error"] == "navigation_redirect"
    assert err["redirect_url"] == site.url("/login?next=/protected")
    assert len(err["data"]) == 5
    assert err["steps_completed"] == 2
    assert err["failed_step"] == "2"


async def test_retry_step_retries_a_navigation_that_timed_out(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    steps = [
        {"type": "navigate", "url": site.url("/slow?s=1.5"), "timeout_ms": 600},
        {"type": "extract", "selector": "h1", "schema": {"h": ". | text"}},
    ]
    recovery = {"on_timeout": "retry_step", "max_retries": 5}
    done = await mcp.ok(
        "interact", scrape("workflow", name="patient", steps=steps, error_recovery=recovery, step_delay_ms=0)
    )
    assert done["data"] == [{"h": "Slow page"}] and done["steps_completed"] == 2
    assert any("timed out; retry 1" in w for w in done["metadata"]["warnings"])

    steps[0]["url"] = site.url("/slow?s=5")
    recovery["max_retries"] = 1
    err = await mcp.error(
        "interact", scrape("workflow", name="impatient", steps=steps, error_recovery=recovery, step_delay_ms=0)
    )
    assert err["error"] == "timeout" and err["failed_step"] == "0"


async def test_closing_the_tab_mid_workflow_gives_tab_closed_with_partial_data(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    await tab.goto(site.url("/table?page=1"))
    steps = [
        {"type": "extract", "selector": "#rows tr", "schema": TABLE},
        {"type": "delay", "ms": 3000},
        {"type": "extract", "selector": "#rows tr", "schema": TABLE},
    ]
    queued = await mcp.ok("interact", scrape("workflow", name="closing", steps=steps, step_delay_ms=0, background=True))

    async def first_step_done() -> bool:
        view = await mcp.ok("observe", {"what": "command_result", "correlation_id": queued["correlation_id"]})
        return bool(view.get("steps_completed", 0) >= 1)

    await until(first_step_done, timeout=10, what="the first extract")
    await tab.close()
    outcome = await finished(mcp, queued["correlation_id"])
    assert outcome["is_error"] is True
    assert outcome["error"] == "tab_closed"
    assert len(outcome["data"]) == 5


async def test_a_second_workflow_in_the_same_tab_is_refused(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    await tab.goto(site.url("/table?page=1"))
    slow = [{"type": "delay", "ms": 1500}, {"type": "extract", "selector": "#rows tr", "schema": TABLE}]
    first = await mcp.ok("interact", scrape("workflow", name="first", steps=slow, step_delay_ms=0, background=True))

    async def running() -> bool:
        view = await mcp.ok("observe", {"what": "command_result", "correlation_id": first["correlation_id"]})
        return view.get("status") == "running"

    await until(running, timeout=10, what="the first workflow to run")
    err = await mcp.error("interact", scrape("workflow", name="second", steps=slow, step_delay_ms=0))
    assert err["error"] == "workflow_in_progress"
    assert err["active_workflow_id"].startswith("wf-first-")
    assert (await finished(mcp, first["correlation_id"]))["status"] == "complete"


async def test_record_then_replay_with_an_override_and_the_domain_lock(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite, e2e_home: Path
) -> None:
    steps = [
        {"type": "navigate", "url": site.url("/table?page=1")},
        {"type": "extract", "selector": "#rows tr", "schema": TABLE},
    ]
    recorded = await mcp.ok(
        "interact", scrape("workflow", name="table rows", steps=steps, record=True, step_delay_ms=0)
    )
    workflow_id = recorded["workflow_id"]
    assert workflow_id.startswith("wf-table_rows-")
    assert recorded["metadata"]["recorded"] is True
    saved = json.loads((e2e_home / "workflows" / f"{workflow_id}.json").read_text())
    assert saved["origin"] == site.origin
    assert saved["steps"] == steps

    replayed = await mcp.ok(
        "interact",
        scrape("replay", workflow_id=workflow_id, override_params={"steps[0].url": site.url("/table?page=2")}),
    )
    assert replayed["metadata"]["replayed_from"] == workflow_id
    assert replayed["data"][0] == {"n": 6, "label": "Row 6 of page 2"}
    assert set(replayed["data"][0]) == set(recorded["data"][0])

    other_site = f"http://localhost:{site.port}/table?page=2"
    locked = await mcp.error(
        "interact", scrape("replay", workflow_id=workflow_id, override_params={"steps[0].url": other_site})
    )
    assert locked["error"] == "domain_changed"
    allowed = await mcp.ok(
        "interact",
        scrape(
            "replay", workflow_id=workflow_id, override_params={"steps[0].url": other_site}, allow_domain_change=True
        ),
    )
    assert allowed["data"][0]["n"] == 6

    listed = await mcp.ok("observe", {"what": "workflows"})
    mine = next(w for w in listed["workflows"] if w["workflow_id"] == workflow_id)
    assert (mine["name"], mine["origin"], mine["steps"], mine["last_status"]) == (
        "table rows",
        site.origin,
        2,
        "complete",
    )
    detail = await mcp.ok("observe", {"what": "workflows", "workflow_id": workflow_id})
    assert len(detail["runs"]) == 3
    assert detail["runs"][0]["data"][0]["n"] == 6


async def test_a_hand_written_workflow_file_shows_up_and_a_broken_one_is_reported(
    mcp: StdioMcp, pilot_on: None, site: FixtureSite, e2e_home: Path
) -> None:
    folder = e2e_home / "workflows"
    doc = {
        "workflow_id": "wf-by-hand",
        "name": "by hand",
        "steps": [{"type": "navigate", "url": site.url("/second.html")}],
    }
    (folder / "wf-by-hand.json").write_text(json.dumps(doc))
    (folder / "wf-broken.json").write_text('{"workflow_id": "wf-broken", "name": "x", "steps": [{"type": "fly"}]}')

    async def listed() -> dict[str, dict[str, Any]] | None:
        entries = {w["workflow_id"]: w for w in (await mcp.ok("observe", {"what": "workflows"}))["workflows"]}
        return entries if {"wf-by-hand", "wf-broken"} <= set(entries) else None

    entries = await until(listed, timeout=2, interval=0.05, what="the new files to be listed within 2 s")
    assert entries["wf-by-hand"]["steps"] == 1
    assert "unknown step type 'fly'" in entries["wf-broken"]["error"]
    (folder / "wf-by-hand.json").unlink()

    async def gone() -> bool:
        entries = {w["workflow_id"] for w in (await mcp.ok("observe", {"what": "workflows"}))["workflows"]}
        return "wf-by-hand" not in entries

    await until(gone, timeout=2, interval=0.05, what="the deleted file to leave the list")
    (folder / "wf-broken.json").unlink()


async def test_export_import_delete(mcp: StdioMcp, pilot_on: None, site: FixtureSite) -> None:
    doc = {"workflow_id": "wf-imported", "name": "imported", "steps": [{"type": "scroll"}]}
    assert (await mcp.ok("configure", {"action": "import_workflow", "workflow": doc}))["imported"] is True
    exported = await mcp.ok("configure", {"action": "export_workflow", "workflow_id": "wf-imported"})
    assert exported["workflow"]["steps"] == [{"type": "scroll"}]
    assert (await mcp.ok("configure", {"action": "delete_workflow", "workflow_id": "wf-imported"}))["deleted"] is True
    err = await mcp.error("configure", {"action": "export_workflow", "workflow_id": "wf-imported"})
    assert err["error"] == "workflow_not_found"


async def test_the_exported_playwright_script_prints_the_same_rows(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite, e2e_home: Path
) -> None:
    steps = [
        {"type": "navigate", "url": site.url("/table?page=1")},
        {"type": "wait", "selector": "#rows tr"},
        {
            "type": "extract",
            "selector": "#rows tr",
            "schema": TABLE,
            "paginate": {"next_selector": "a.next-page", "max_pages": 3, "delay_ms": 0},
        },
    ]
    recorded = await mcp.ok("interact", scrape("workflow", name="export me", steps=steps, record=True, step_delay_ms=0))
    generated = await mcp.ok("generate", {"type": "playwright_script", "workflow_id": recorded["workflow_id"]})
    script = Path(generated["path"])
    assert script.read_text(encoding="utf-8") == generated["code"]
    assert script.parent == (e2e_home / "artifacts").resolve() and script.name == f"{recorded['workflow_id']}.py"
    # Code a person would write: Playwright's own API, nothing of the extension pasted in.
    assert "__tabpilot" not in generated["code"] and "add_init_script" not in generated["code"]
    assert len(generated["code"].encode()) < 10_000
    assert undefined_or_unused(generated["code"], script.name) == ""  # every name it uses is defined in it
    env = {**os.environ, "TABPILOT_BROWSER": os.environ.get("TABPILOT_BROWSER", "/usr/bin/chromium")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(script), env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert json.loads(out) == recorded["data"]
    assert len(recorded["data"]) == 15


async def test_a_secret_from_the_keyring_signs_in_and_is_written_nowhere(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite, e2e_home: Path, e2e_app: App
) -> None:
    secret = "correct horse battery staple"
    keyring.set_password(SECRETS_SERVICE, "fixture_password", secret)
    steps = [
        {"type": "navigate", "url": site.url("/login?next=/account")},
        {"type": "fill", "selector": "#user", "value": "alice"},
        {"type": "fill", "selector": "#password", "value": "{{secret:fixture_password}}"},
        {"type": "click", "selector": "#go"},
        {"type": "wait", "selector": "#orders"},
        {"type": "extract", "selector": "#orders tr", "schema": {"id": "td.id", "total": "td.total | number"}},
        {"type": "extract", "selector": "#hello", "schema": {"hello": ". | text"}},
    ]
    result = await mcp.call("interact", scrape("workflow", name="sign in", steps=steps, record=True, step_delay_ms=0))
    assert not result.is_error, result.structured_content
    data = result.structured_content["data"]  # type: ignore[index]
    assert data[:2] == [{"id": "A-101", "total": 1010.5}, {"id": "A-102", "total": 1020.5}]
    assert data[2] == {"hello": "Welcome, alice"}
    everything = result.model_dump_json()
    assert secret not in everything
    for path in e2e_home.rglob("*"):
        if path.is_file() and "browser-profile" not in path.parts:
            assert secret.encode() not in path.read_bytes(), f"the secret leaked into {path}"
    for event in e2e_app.engine.activity.recent():
        assert secret not in json.dumps(event.as_dict())
    saved = (e2e_home / "workflows" / f"{result.structured_content['workflow_id']}.json").read_text()  # type: ignore[index]
    assert "{{secret:fixture_password}}" in saved


async def test_extraction_and_its_pagination_work_inside_a_cross_origin_frame(
    mcp: StdioMcp, tab: Any, pilot_on: None, site: FixtureSite
) -> None:
    await tab.goto(site.url("/framed-list.html"))

    async def list_ready() -> bool:
        frame = next((f for f in tab.frames if f.url.endswith("/load-more.html")), None)
        return frame is not None and await frame.evaluate("document.querySelectorAll('li.item').length") == 10

    await until(list_ready, timeout=10, what="the framed list")
    rows = await mcp.ok(
        "interact",
        scrape(
            "extract",
            selector="#items li.item",
            schema={"text": ". | text"},
            frame="#list",
            options={"paginate": {"next_selector": "#more", "max_pages": 5, "delay_ms": 0}},
        ),
    )
    assert [row["text"] for row in rows["data"]] == [f"Item {n}" for n in range(1, 26)]
    assert rows["metadata"]["pagination"] == "append"
