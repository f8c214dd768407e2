"""`generate`: artifacts made from the page (screenshots now; PDFs, scripts and tests later)."""

from __future__ import annotations

import base64
from typing import Any

from tabpilot.engine.commands import Command
from tabpilot.engine.context import CommandContext
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


COMMANDS = [
    Command(
        "generate",
        "screenshot",
        "read",
        "PNG/JPEG of the viewport or full_page",
        _screenshot,
        params=(
            Param("format", "string", "png or jpeg", default="png", enum=("png", "jpeg")),
            Param("quality", "integer", "jpeg quality", default=80, minimum=1, maximum=100),
            Param("full_page", "boolean", "whole page, not just the viewport", default=False),
        ),
        targets_tab=True,
    ),
]
