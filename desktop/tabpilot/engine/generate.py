"""`generate`: artifacts made from the page (screenshots now; PDFs, scripts and tests later)."""

from __future__ import annotations

import base64
from typing import Any

from tabpilot.engine.commands import Command
from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.params import Param

ATTACHMENTS = "_attachments"
"""Binary payloads (base64) that adapters deliver as MCP image/resource content, not inside the JSON."""


async def _screenshot(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    shot = await ctx.browser_request("tab.screenshot", p, timeout_s=20)
    data = str(shot.pop("data"))
    mime = "image/png" if p["format"] == "png" else "image/jpeg"
    return {
        **shot,
        "format": p["format"],
        "size_bytes": len(base64.b64decode(data)),
        ATTACHMENTS: [{"mime_type": mime, "data": data}],
    }


async def _playwright_script(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    from tabpilot.engine.codegen import playwright_script

    store = ctx.engine.workflows
    entry = store.get(p["workflow_id"]) if store is not None else None
    if entry is None:
        raise TabpilotError(
            "workflow_not_found",
            f"No saved workflow has the id '{p['workflow_id']}'; observe {{what:'workflows'}} lists them.",
            workflow_id=p["workflow_id"],
        )
    if entry.workflow is None:
        raise TabpilotError("invalid_params", f"{entry.file} is not a valid workflow: {entry.error}")
    library = ctx.engine.config.page_library
    if library is None:
        raise TabpilotError("not_supported", "This Tabpilot cannot find its in-page code to put in a script.")
    script = playwright_script(entry.workflow, library(), step_delay_ms=ctx.engine.config.step_delay_ms)
    return {
        "workflow_id": entry.workflow_id,
        "filename": f"{entry.workflow_id}.py",
        "language": "python",
        "script": script,
    }


COMMANDS = [
    Command(
        "generate",
        "screenshot",
        "read",
        "PNG/JPEG of viewport or full_page",
        _screenshot,
        params=(
            Param("format", "string", "default png", default="png", enum=("png", "jpeg")),
            Param("quality", "integer", "jpeg quality", default=80, minimum=1, maximum=100),
            Param("full_page", "boolean", "not just the viewport", default=False),
        ),
        targets_tab=True,
    ),
    Command(
        "generate",
        "playwright_script",
        "read",
        "a saved workflow as a Playwright Python script",
        _playwright_script,
        params=(Param("workflow_id", "string", "a saved workflow's id", required=True),),
    ),
]
