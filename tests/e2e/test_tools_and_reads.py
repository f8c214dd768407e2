"""Agent → MCP (stdio) → app → extension → page and back: the tools and the reads, pilot off."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tabpilot.engine.catalog import build_registry
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


async def test_the_tools_are_exactly_the_four_and_compact(mcp: StdioMcp) -> None:
    listed = await mcp.list_tools()
    assert [t.name for t in listed.tools] == ["observe", "interact", "configure", "generate"]
    dumped = [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listed.tools]
    size = len(json.dumps(dumped, separators=(",", ":")))  # as the wire carries it
    assert size < 8 * 1024, f"tools/list is {size} bytes"
    modes = {t.name: t.input_schema["properties"][t.input_schema["required"][0]]["enum"] for t in listed.tools}
    # Every mode of the definitions, in their order, reaches the agent: the wire agrees with the registry.
    registry = build_registry()
    for tool in ("observe", "interact", "configure", "generate"):
        assert modes[tool] == registry.mode_names(tool), tool
    assert {"snapshot", "text", "dialogs"} <= set(modes["observe"])
    assert {"click", "upload", "new_tab", "handle_dialog", "handoff", "highlight"} <= set(modes["interact"])
    observe = next(t for t in listed.tools if t.name == "observe")
    interact = next(t for t in listed.tools if t.name == "interact")
    assert observe.annotations is not None and observe.annotations.read_only_hint is True
    assert interact.annotations is not None and interact.annotations.destructive_hint is True


async def test_the_help_mode_answers_through_mcp_with_the_pilot_off(mcp: StdioMcp) -> None:
    # The agent learns any mode's parameters from the tool itself (tools/list only names the modes).
    click = await mcp.ok("observe", {"what": "help", "mode": "interact.click"})
    assert (click["tool"], click["action"], click["kind"]) == ("interact", "click", "mutate")
    selector = next(p for p in click["parameters"] if p["name"] == "selector")
    assert selector["required"] is True and selector["type"] == "string"
    assert click["example"]["tool"] == "interact" and click["example"]["arguments"]["action"] == "click"
    unknown = await mcp.error("observe", {"what": "help", "mode": "interact.clik"})
    assert unknown["error"] == "invalid_params" and "interact.click" in unknown["message"]


async def test_observe_page_describes_the_fixture(mcp: StdioMcp, tab: Any, site: FixtureSite) -> None:
    page = await mcp.ok("observe", {"what": "page"})
    assert page["url"] == tab.url
    assert page["title"] == "Tabpilot Fixture"
    assert page["headings"] == ["Welcome to the fixture", "Users", "Sign in", "Links"]
    assert page["forms"] == [{"id": "login", "action": site.url("/login"), "fields": ["email", "password"]}]
    assert page["links"] == 2
    assert page["images"] == 1
    assert page["interactiveElements"] == 5  # two links, email, password, the button
    assert page["viewport"]["width"] > 0 and page["viewport"]["height"] > 0
    assert page["scroll"] == {"x": 0, "y": 0}
    assert page["documentHeight"] >= page["viewport"]["height"]


async def test_a_blank_new_tab_reads_as_an_empty_page(mcp: StdioMcp, tab: Any) -> None:
    blank = await tab.context.new_page()  # about:blank, where a fresh browser starts
    try:
        await blank.bring_to_front()
        blank_id = await until(lambda: _active_blank(mcp), timeout=10, what="the blank tab in front")
        page = await mcp.ok("observe", {"what": "page", "tab_id": blank_id})
        assert page["url"] == "about:blank" and page["forms"] == [] and page["headings"] == []
        assert page["viewport"]["width"] > 0 and page["links"] == page["interactiveElements"] == 0
        dom = await mcp.ok("observe", {"what": "dom", "selector": "h1", "tab_id": blank_id})
        assert (dom["matches"], dom["matchCount"]) == ([], 0)
    finally:
        await blank.close()


async def _active_blank(mcp: StdioMcp) -> int | None:
    tabs = (await mcp.ok("observe", {"what": "tabs"}))["tabs"]
    return next((t["tab_id"] for t in tabs if t["active"] and t["url"] == "about:blank"), None)


async def test_observe_dom_returns_matches_with_text_attributes_and_boxes(mcp: StdioMcp, tab: Any) -> None:
    dom = await mcp.ok("observe", {"what": "dom", "selector": "#users li"})
    assert dom["title"] == "Tabpilot Fixture"
    assert dom["matchCount"] == 3
    assert dom["returnedCount"] == 3
    first = dom["matches"][0]
    assert first["tag"] == "li"
    assert first["text"] == "Alice Johnson Online"
    assert first["attributes"] == {"class": "user active", "data-id": "1"}
    assert first["selector"] == "#users > li:nth-child(1)"
    assert first["visible"] is True
    assert first["boundingBox"]["width"] > 0 and first["boundingBox"]["height"] > 0
    assert "styles" not in first and "children" not in first


async def test_observe_dom_children_styles_visibility_and_redaction(mcp: StdioMcp, tab: Any) -> None:
    dom = await mcp.ok(
        "observe",
        {
            "what": "dom",
            "selector": "#users li.active",
            "include_children": True,
            "include_styles": True,
            "properties": ["display", "color"],
        },
    )
    match = dom["matches"][0]
    assert [c["text"] for c in match["children"]] == ["Alice Johnson", "Online"]
    assert match["children"][0]["attributes"] == {"class": "name"}
    assert set(match["styles"]) == {"display", "color"}
    hidden = await mcp.ok("observe", {"what": "dom", "selector": "#secret-note"})
    assert hidden["matches"][0]["visible"] is False
    account = await mcp.ok("observe", {"what": "dom", "selector": "#account", "include_children": True})
    assert account["matches"][0]["text"] == "Account: [REDACTED] (card [REDACTED] )"
    assert [c["text"] for c in account["matches"][0]["children"]] == ["[REDACTED]", "[REDACTED]"]
    assert "SECRET-123" not in json.dumps(account) and "4111" not in json.dumps(account)
    password = await mcp.ok("observe", {"what": "dom", "selector": "input[type=password]"})
    assert password["matches"][0]["attributes"]["value"] == "[REDACTED]"
    assert "hunter2" not in json.dumps(password)


async def test_observe_dom_limits_matches_text_and_depth(mcp: StdioMcp, tab: Any, site: FixtureSite) -> None:
    long = await mcp.ok("observe", {"what": "dom", "selector": "#long"})
    assert len(long["matches"][0]["text"]) == 500
    await tab.goto(site.url("/many.html"))
    many = await mcp.ok("observe", {"what": "dom", "selector": "li.row"})
    assert many["matchCount"] == 60
    assert many["returnedCount"] == 50
    assert len(many["matches"]) == 50
    deep = await mcp.ok("observe", {"what": "dom", "selector": "#deep", "include_children": True, "max_depth": 9})
    depth, node = 0, deep["matches"][0]
    while node.get("children"):
        depth, node = depth + 1, node["children"][0]
    assert depth == 5


async def test_bad_input_gets_a_clear_error_and_the_app_keeps_going(mcp: StdioMcp, tab: Any) -> None:
    bad_selector = await mcp.error("observe", {"what": "dom", "selector": "li[[["})
    assert bad_selector["error"] == "invalid_params"
    assert "li[[[" in bad_selector["message"]
    missing = await mcp.error("observe", {"what": "dom"})
    assert missing["error"] == "invalid_params" and missing["param"] == "selector"
    assert missing["message"].startswith("observe what=dom: 'selector' is required. Valid parameters: selector*")
    assert missing["valid_params"][0] == "selector"  # enough to correct the call without asking for help
    unknown = await mcp.error("observe", {"what": "everything"})
    assert unknown["error"] == "invalid_params"
    assert "page, dom, tabs, pilot, command_result" in unknown["message"]
    assert (await mcp.ok("observe", {"what": "page"}))["title"] == "Tabpilot Fixture"


async def test_with_the_pilot_off_interact_is_refused(mcp: StdioMcp, tab: Any, site: FixtureSite) -> None:
    before = site.requests.count("GET /second.html")
    for args in (
        {"action": "navigate", "url": site.url("/second.html")},
        {"action": "execute_js", "script": "1"},
    ):
        err = await mcp.error("interact", args)
        assert err["error"] == "ai_web_pilot_disabled"
        assert "tray" in err["message"]
    assert site.requests.count("GET /second.html") == before
    assert (await mcp.ok("observe", {"what": "pilot"}))["ai_web_pilot"] is False


async def test_observe_pilot_and_tabs(mcp: StdioMcp, tab: Any, site: FixtureSite) -> None:
    pilot = await mcp.ok("observe", {"what": "pilot"})
    assert pilot["extension_connected"] is True
    assert pilot["browser"]["managed"] is True
    assert pilot["browser"]["extension_id"] == "mlkkpgdajhikmngjhninkfngfhbknalp"
    assert pilot["capabilities"]["execute_js"] is True
    tabs = (await mcp.ok("observe", {"what": "tabs"}))["tabs"]
    mine = [t for t in tabs if t["url"] == tab.url]
    assert len(mine) == 1
    assert mine[0]["active"] is True
    assert mine[0]["title"] == "Tabpilot Fixture"
    assert mine[0]["tracked"] is False
    assert isinstance(mine[0]["tab_id"], int)


async def test_a_tracked_tab_receives_commands_while_another_is_in_front(
    mcp: StdioMcp, tab: Any, site: FixtureSite, e2e_app: Any
) -> None:
    tracked = await mcp.ok("configure", {"action": "track_tab"})
    assert tracked["tracked"]["url"] == tab.url
    other = await e2e_app.managed.context.new_page()
    try:
        await other.goto(site.url("/second.html"))
        await other.bring_to_front()
        assert (await mcp.ok("observe", {"what": "page"}))["title"] == "Tabpilot Fixture"
        tabs = (await mcp.ok("observe", {"what": "tabs"}))["tabs"]
        assert [t["url"] for t in tabs if t["tracked"]] == [tab.url]
    finally:
        await mcp.ok("configure", {"action": "track_tab", "clear": True})
        await other.close()
    assert (await mcp.ok("observe", {"what": "page"}))["title"] == "Tabpilot Fixture"


async def test_generate_screenshot_gives_a_png(mcp: StdioMcp, tab: Any) -> None:
    result = await mcp.call("generate", {"type": "screenshot"})
    assert not result.is_error
    shot = result.structured_content
    assert shot is not None and shot["format"] == "png" and shot["width"] > 0
    images = [c for c in result.content if c.type == "image"]
    assert len(images) == 1
    assert images[0].mime_type == "image/png"
    import base64

    assert base64.b64decode(images[0].data)[:8] == b"\x89PNG\r\n\x1a\n"
