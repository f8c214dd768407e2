"""`configure`: settings of the session (which tab to work in, ...). Never turns the pilot on."""

from __future__ import annotations

from typing import Any

from tabpilot.engine.commands import Command
from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.params import Param


async def _track_tab(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    if p["tab_id"] is not None and p["clear"]:
        raise TabpilotError("invalid_params", "Give either 'tab_id' or 'clear', not both.", param="clear")
    return await ctx.browser_request("tabs.track", {"tab_id": p["tab_id"], "clear": p["clear"]})


COMMANDS = [
    Command(
        "configure",
        "track_tab",
        "read",
        "pin the tab commands go to; clear:true unpins",
        _track_tab,
        params=(
            Param("tab_id", "integer", "default: the active tab"),
            Param("clear", "boolean", "stop tracking", default=False),
        ),
    ),
]
