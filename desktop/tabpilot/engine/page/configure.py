"""`configure`: settings of the session (which tab to work in, ...). Never turns the pilot on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import Args, arg
from tabpilot.engine.contract.commands import Cli, Command
from tabpilot.engine.errors import TabpilotError


@dataclass(frozen=True, kw_only=True)
class TrackTabArgs(Args):
    tab_id: int | None = arg("default: the active tab", default=None)
    clear: bool = arg("stop tracking", default=False)


class TabRef(TypedDict):
    tab_id: int
    url: str
    title: str


class Tracked(TypedDict):
    tracked: TabRef | None


async def _track_tab(ctx: CommandContext, a: TrackTabArgs) -> Tracked:
    if a.tab_id is not None and a.clear:
        raise TabpilotError("invalid_params", "Give either 'tab_id' or 'clear', not both.", param="clear")
    if a.tab_id is not None:
        # The tracked tab is where every agent's unnamed calls may go: not another agent's own tab.
        ctx.engine.tab_owners.check(ctx.session, a.tab_id, acting=True, named=True)
    return results.relayed(Tracked, await ctx.browser_request("tabs.track", {"tab_id": a.tab_id, "clear": a.clear}))


COMMANDS: list[Command[Any]] = [
    Command(
        "configure",
        "track_tab",
        "config",
        "pin the tab commands go to; clear:true unpins",
        _track_tab,
        TrackTabArgs,
        returns=Tracked,
        example={"tab_id": 12},
        example_result={"tracked": {"tab_id": 12, "url": "https://example.com/", "title": "Example Domain"}},
        ops=("tabs.track",),
        cli=Cli("track", positional=("tab_id",)),
    ),
]
