"""`serve --approve deny|auto` end to end (a real serve, its managed Chromium with the real extension, an
MCP client over stdio): a page-changing step nobody could be asked about is refused by the policy and
says so; a pagination click is a click — never made unapproved; typed values stay out of the log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabpilot.paths import Paths
from tests.support.mcp_stdio import StdioMcp
from tests.support.processes import Serve
from tests.support.site import FixtureSite

pytestmark = [pytest.mark.e2e]

TYPED = "hunter2-xyz-typed"
DELETE = "POST /api/echo-body"
EXTRACT_ORDERS = {
    "action": "scrape",
    "operation": "extract",
    "selector": "tr.order",
    "schema": {"n": "td.n | number", "what": "td.what"},
}


@pytest.fixture
async def site() -> FixtureSite:  # type: ignore[misc]
    site = FixtureSite()
    await site.start()
    yield site
    await site.stop()


def paginated(next_selector: str, max_pages: int = 2) -> dict[str, object]:
    return {**EXTRACT_ORDERS, "options": {"paginate": {"next_selector": next_selector, "max_pages": max_pages}}}


async def test_under_approve_deny_the_policy_refuses_and_pagination_never_clicks(
    secret_service: None, tmp_path: Path, site: FixtureSite
) -> None:
    home = tmp_path / "home"
    serve = Serve(home, "--headless", "--pilot", "--port", "0")  # --approve deny is the default
    try:
        await serve.start()
        mcp = StdioMcp({"TABPILOT_HOME": str(home)})
        await mcp.start()
        try:
            await mcp.ok("interact", {"action": "navigate", "url": site.url("/orders-delete.html")})
            err = await mcp.error("interact", {"action": "fill", "selector": "#password", "value": TYPED})
            assert err["error"] == "approval_denied"
            assert err["decided_by"] == "policy"
            assert "user denied" not in err["message"]
            assert "Nobody could be asked" in err["message"]
            assert "--approve prompt" in err["message"] and "--approve auto" in err["message"]

            err = await mcp.error("interact", paginated("#del"))
            assert (err["error"], err["decided_by"]) == ("approval_denied", "policy")
            assert DELETE not in site.requests, "the next_selector was clicked without approval"
            extract_step = {**EXTRACT_ORDERS, "type": "extract", "paginate": {"next_selector": "#del"}}
            del extract_step["action"], extract_step["operation"]
            err = await mcp.error("interact", {"action": "scrape", "operation": "workflow", "steps": [extract_step]})
            assert (err["error"], err["decided_by"]) == ("approval_denied", "policy")
            assert DELETE not in site.requests, "a workflow's extract step clicked its next_selector unapproved"
            shown = await mcp.ok("observe", {"what": "dom", "selector": "#del"})
            assert shown["matches"][0]["text"] == "Delete all"

            # Without pagination, extract is a read: it runs.
            rows = await mcp.ok("interact", EXTRACT_ORDERS)
            assert [r["what"] for r in rows["data"]] == ["Lamp", "Desk"]
        finally:
            await mcp.close()
    finally:
        await serve.stop()
    assert DELETE not in site.requests
    log = Paths.resolve(home).log_file.read_text(encoding="utf-8")
    assert "nobody can be asked (serve --approve deny)" in log
    assert TYPED not in log


async def test_under_approve_auto_pagination_clicks_and_typed_values_stay_out_of_the_log(
    secret_service: None, tmp_path: Path, site: FixtureSite
) -> None:
    home = tmp_path / "home"
    serve = Serve(home, "--headless", "--pilot", "--approve", "auto", "--port", "0")
    try:
        await serve.start()
        mcp = StdioMcp({"TABPILOT_HOME": str(home)})
        await mcp.start()
        try:
            await mcp.ok("interact", {"action": "navigate", "url": site.url("/table?page=1")})
            table = {"action": "scrape", "operation": "extract", "selector": "tr.row", "schema": {"n": "td.n | number"}}
            table["options"] = {"paginate": {"next_selector": "a.next-page", "max_pages": 3, "delay_ms": 0}}
            result = await mcp.ok("interact", table)
            assert result["metadata"]["pages_scraped"] == 3
            assert "GET /table?page=3" in site.requests

            # The same click the deny policy refused reaches the page when approved: the fixture works.
            await mcp.ok("interact", {"action": "navigate", "url": site.url("/orders-delete.html")})
            await mcp.ok("interact", paginated("#del"))
            assert DELETE in site.requests

            await mcp.ok("interact", {"action": "fill", "selector": "#password", "value": TYPED})
            steps = [{"type": "type", "selector": "#password", "text": TYPED}]
            done = await mcp.ok("interact", {"action": "scrape", "operation": "workflow", "steps": steps})
            assert done["status"] == "complete"
        finally:
            await mcp.close()
    finally:
        await serve.stop()
    log = Paths.resolve(home).log_file.read_text(encoding="utf-8")
    assert "auto-approved interact.fill" in log
    assert f"[{len(TYPED)} characters]" in log
    assert TYPED not in log, "a typed value reached the log"
    assert 'says it is "' in log, "agent names are marked as reported"
    json.dumps(result)
