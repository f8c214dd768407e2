"""`interact new_tab | switch_tab | close_tab`: an agent's own tabs (engine/safety/tab_owners.py has the rule).

Kinds: all three are `navigate` — they load, show or drop a tab, but change nothing inside a page the
person has open, so (like `navigate`) they need the pilot and no approval. `close_tab` is limited to the
caller's own tabs for that reason: the person's tabs and other agents' are not an agent's to close.
None is a workflow step: a saved workflow runs in one tab.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import Args, arg
from tabpilot.engine.contract.commands import Cli, Command
from tabpilot.engine.contract.operations import WAIT_UNTIL
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.page.interact import TIMEOUT_MARGIN_S
from tabpilot.engine.workflows.workflows import check_url


@dataclass(frozen=True, kw_only=True)
class NewTabArgs(Args):
    url: str = arg("http(s) URL (default about:blank)", default="about:blank")
    wait_until: str = arg("default load", default="load", enum=WAIT_UNTIL)
    timeout_ms: int = arg("default 30000", default=30_000, minimum=100, maximum=300_000)


@dataclass(frozen=True, kw_only=True)
class TabIdArgs(Args):
    tab_id: int = arg("the tab (observe tabs lists them)")


class TabRef(TypedDict):
    tab_id: int
    url: str
    title: str


class TabClosed(TypedDict):
    closed: Literal[True]
    tab_id: int


def _tab(answer: dict[str, Any]) -> TabRef:
    return {"tab_id": answer["tab_id"], "url": answer.get("url", ""), "title": answer.get("title", "")}


async def _new_tab(ctx: CommandContext, a: NewTabArgs) -> TabRef:
    params = {**a.wire(), "url": check_url(a.url)}
    answer = await ctx.browser_request("tabs.open", params, timeout_s=a.timeout_ms / 1000 + TIMEOUT_MARGIN_S)
    tab = _tab(answer)
    if not ctx.session.person:
        ctx.engine.tab_owners.claim(tab["tab_id"], ctx.session)
    return tab


async def _switch_tab(ctx: CommandContext, a: TabIdArgs) -> TabRef:
    ctx.engine.tab_owners.check(ctx.session, a.tab_id, acting=True, named=True)
    tab = _tab(await ctx.browser_request("tabs.activate", {"tab_id": a.tab_id}))
    ctx.engine.tab_owners.switched(ctx.session.key, a.tab_id)
    return tab


async def _close_tab(ctx: CommandContext, a: TabIdArgs) -> TabClosed:
    owners = ctx.engine.tab_owners
    owner = owners.owner(a.tab_id)
    if not ctx.session.person and (owner is None or owner.key != ctx.session.key):
        whose = f"another agent's, {owner.label}" if owner is not None else "the person's"
        raise TabpilotError(
            "tab_not_owned",
            f"Tab {a.tab_id} is {whose}: an agent closes only tabs it opened (new_tab) or was handed.",
            tab_id=a.tab_id,
            owner=owner.label if owner is not None else "person",
        )
    answer = await ctx.browser_request("tabs.close", {"tab_id": a.tab_id})
    owners.closed(a.tab_id)
    return {"closed": True, "tab_id": answer.get("tab_id", a.tab_id)}


TAB_RESULT = {"tab_id": 1073741825, "url": "https://example.com/", "title": "Example Domain"}

COMMANDS: list[Command[Any]] = [
    Command(
        "interact",
        "new_tab",
        "navigate",
        "open a tab of your own (loads url)",
        _new_tab,
        NewTabArgs,
        returns=TabRef,
        notes="The new tab is yours: calls that name no tab_id go to it, and other agents cannot act on it "
        "(tab_not_owned). It opens in front, in the browser commands go to by default.",
        example={"url": "https://example.com/"},
        example_result=TAB_RESULT,
        ops=("tabs.open",),
        pilot_gated=True,
        cli=Cli("new-tab", positional=("url",)),
    ),
    Command(
        "interact",
        "switch_tab",
        "navigate",
        "bring a tab to front; your calls go to it",
        _switch_tab,
        TabIdArgs,
        returns=TabRef,
        notes="Your own tab, or one nobody owns (the person's); another agent's is refused with tab_not_owned.",
        example={"tab_id": 1073741825},
        example_result=TAB_RESULT,
        ops=("tabs.activate",),
        pilot_gated=True,
        cli=Cli("switch-tab", positional=("tab_id",)),
    ),
    Command(
        "interact",
        "close_tab",
        "navigate",
        "close a tab you opened or were handed",
        _close_tab,
        TabIdArgs,
        returns=TabClosed,
        notes="Only your own tabs: the person's and other agents' are refused with tab_not_owned.",
        example={"tab_id": 1073741825},
        example_result={"closed": True, "tab_id": 1073741825},
        ops=("tabs.close",),
        pilot_gated=True,
        cli=Cli("close-tab", positional=("tab_id",)),
    ),
]
