"""`observe`: reads that never change the page, and work with the pilot off."""

from __future__ import annotations

from typing import Any

from tabpilot.engine.commands import Command
from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.params import Param

DOM_LIMITS = {"max_matches": 50, "max_text": 500, "max_depth": 5}


async def _page(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    return await ctx.browser_request("page.info", p)


async def _dom(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    return await ctx.browser_request("dom.query", {**p, "redact": list(ctx.engine.config.redact_selectors)})


async def _tabs(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    return await ctx.browser_request("tabs.list", p)


async def _pilot(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    browser = ctx.browser.info()
    browser.pop("active_url", None)
    return {
        **ctx.engine.pilot.snapshot(),
        "extension_connected": ctx.browser.connected,
        "browser": browser,
    }


async def _command_result(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    job = ctx.engine.jobs.get(p["correlation_id"])
    if job is None:
        raise TabpilotError(
            "invalid_params",
            f"No command has correlation_id '{p['correlation_id']}' (results are kept 15 minutes, the "
            "last 200 commands).",
            param="correlation_id",
            correlation_id=p["correlation_id"],  # the id asked about, not this observe call's own
        )
    return ctx.engine.outcome(job)


COMMANDS = [
    Command(
        "observe",
        "page",
        "read",
        "url, title, forms, headings, counts",
        _page,
        targets_tab=True,
    ),
    Command(
        "observe",
        "dom",
        "read",
        "matching elements (≤50)",
        _dom,
        params=(
            Param("selector", "string", "CSS selector", required=True),
            Param("include_styles", "boolean", "computed styles", default=False),
            Param("include_children", "boolean", "child subtree", default=False),
            Param("max_depth", "integer", "subtree depth (≤5)", default=3, minimum=0, maximum=5, clamp=True),
            Param("properties", "array", "style names", items="string"),
        ),
        targets_tab=True,
    ),
    Command("observe", "tabs", "read", "open tabs", _tabs),
    Command("observe", "pilot", "read", "AI Web Pilot state, browser link", _pilot),
    Command(
        "observe",
        "command_result",
        "read",
        "progress or final result",
        _command_result,
        params=(Param("correlation_id", "string", "from a slow call", required=True),),
    ),
]
