"""`observe`: reads that never change the page, and work with the pilot off."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import FrameArgs, NoArgs, TabArgs, arg
from tabpilot.engine.contract.commands import Args, Cli, Command
from tabpilot.engine.errors import TabpilotError

DOM_LIMITS = {"max_matches": 50, "max_text": 500, "max_depth": 5}


@dataclass(frozen=True, kw_only=True)
class DomArgs(FrameArgs):
    selector: str = arg("CSS (pierces shadow roots; a >> b) or a snapshot ref @e5")
    include_styles: bool = arg("computed styles", default=False)
    include_children: bool = arg("child subtree", default=False)
    max_depth: int = arg("subtree depth (≤5)", default=3, minimum=0, maximum=5, clamp=True)
    properties: list[str] | None = arg("style names", default=None)


@dataclass(frozen=True, kw_only=True)
class CommandResultArgs(Args):
    correlation_id: str = arg("from a slow call")


@dataclass(frozen=True, kw_only=True)
class HelpArgs(Args):
    mode: str | None = arg("interact.click, scrape.extract, a tool, or steps; none: every mode", default=None)


class Viewport(TypedDict):
    width: int
    height: int


class Point(TypedDict):
    x: int
    y: int


class Box(TypedDict):
    x: int
    y: int
    width: int
    height: int


class FormBrief(TypedDict):
    id: str
    action: str
    fields: list[str]


class Page(TypedDict):
    url: str
    title: str
    viewport: Viewport
    scroll: Point
    documentHeight: int
    forms: list[FormBrief]
    headings: list[str]
    links: int
    images: int
    interactiveElements: int


class Child(TypedDict):
    tag: str
    attributes: dict[str, str]
    text: str
    children: NotRequired[list[dict[str, Any]]]
    """Its own children, alike, to max_depth."""


class Match(TypedDict):
    selector: str
    tag: str
    attributes: dict[str, str]
    text: str
    """At most 500 characters."""
    boundingBox: Box
    visible: bool
    styles: NotRequired[dict[str, str]]
    children: NotRequired[list[Child]]


class Dom(TypedDict):
    url: str
    title: str
    matches: list[Match]
    matchCount: int
    returnedCount: int


class Tab(TypedDict):
    tab_id: int
    url: str
    title: str
    active: bool
    tracked: bool
    browser: str
    """The browser it is in, as the tray names it."""
    owner: str | None
    mine: bool


class Tabs(TypedDict):
    tabs: list[Tab]


class Pilot(TypedDict):
    ai_web_pilot: bool
    capabilities: dict[str, bool]
    extension_connected: bool
    browser: dict[str, Any]
    """The default browser: name, version, extension_version, managed... ({} when none is connected)."""


class Pending(TypedDict):
    """A command still under way; once it is done, its own result (checked against its own declaration
    when it answered) comes back instead, as it is."""

    status: NotRequired[str]
    correlation_id: NotRequired[str]
    steps_completed: NotRequired[int]
    steps_total: NotRequired[int | None]


results.relays(Pending)


class HelpParam(TypedDict):
    name: str
    type: str
    required: bool
    doc: str
    items: NotRequired[str]
    default: NotRequired[Any]
    enum: NotRequired[list[Any]]
    minimum: NotRequired[float]
    maximum: NotRequired[float]
    capped: NotRequired[bool]


class HelpExample(TypedDict):
    tool: str
    arguments: dict[str, Any]


class StepHelp(TypedDict):
    type: str
    also: list[HelpParam]


class ModeHelp(TypedDict):
    mode: str
    tool: str
    what: NotRequired[str]
    action: NotRequired[str]
    type: NotRequired[str]
    operation: NotRequired[str]
    summary: str
    kind: str
    needs: str
    parameters: list[HelpParam]
    result: str
    example: HelpExample
    notes: NotRequired[str]
    capability: NotRequired[str]
    example_result: NotRequired[dict[str, Any]]
    workflow_step: NotRequired[StepHelp]


class StepKind(TypedDict):
    type: str
    summary: str
    changes_page: bool
    parameters: list[HelpParam]


class Help(TypedDict):
    """One mode's help; several modes' (`modes`); the step kinds (`steps`); or, with no mode, the
    overview (`tools`, `more`)."""

    mode: NotRequired[str]
    tool: NotRequired[str]
    what: NotRequired[str]
    action: NotRequired[str]
    type: NotRequired[str]
    operation: NotRequired[str]
    summary: NotRequired[str]
    kind: NotRequired[str]
    needs: NotRequired[str]
    parameters: NotRequired[list[HelpParam]]
    result: NotRequired[str]
    example: NotRequired[HelpExample]
    notes: NotRequired[str]
    capability: NotRequired[str]
    example_result: NotRequired[dict[str, Any]]
    workflow_step: NotRequired[StepHelp]
    modes: NotRequired[list[ModeHelp]]
    steps: NotRequired[list[StepKind]]
    tools: NotRequired[dict[str, dict[str, str]]]
    more: NotRequired[str]


async def _help(ctx: CommandContext, a: HelpArgs) -> Help:
    from tabpilot.engine.contract.help import help_for

    # help.py builds its answers generically from the definitions (mode, tool and discriminator keys).
    return results.relayed(Help, help_for(ctx.engine.registry, a.mode))


async def _page(ctx: CommandContext, a: TabArgs) -> Page:
    return results.relayed(Page, await ctx.browser_request("page.info", a.wire()))


async def _dom(ctx: CommandContext, a: DomArgs) -> Dom:
    redact = list(ctx.engine.config.redact_selectors)
    return results.relayed(Dom, await ctx.browser_request("dom.query", {**a.wire(), "redact": redact}))


async def _tabs(ctx: CommandContext, a: NoArgs) -> Tabs:
    listed = await ctx.browser_request("tabs.list", {})
    if not isinstance(listed.get("tabs"), list):
        return results.relayed(Tabs, listed)
    tabs = [t for t in listed["tabs"] if isinstance(t, dict)]
    owners = ctx.engine.tab_owners
    owners.existing(t["tab_id"] for t in tabs if isinstance(t.get("tab_id"), int))  # closed while unheard
    for tab in tabs:
        owner = owners.owner(tab.get("tab_id", -1))
        tab["owner"] = owner.label if owner is not None else None
        tab["mine"] = owner is not None and owner.key == ctx.session.key
    return results.relayed(Tabs, {**listed, "tabs": tabs})


async def _pilot(ctx: CommandContext, a: NoArgs) -> Pilot:
    browser = ctx.browser.info()
    browser.pop("active_url", None)
    pilot = ctx.engine.pilot
    return {
        "ai_web_pilot": pilot.ai_web_pilot,
        "capabilities": dict(pilot.capabilities),
        "extension_connected": ctx.browser.connected,
        "browser": browser,
    }


async def _command_result(ctx: CommandContext, a: CommandResultArgs) -> Pending:
    job = ctx.engine.jobs.get(a.correlation_id)
    if job is None:
        raise TabpilotError(
            "invalid_params",
            f"No command has correlation_id '{a.correlation_id}' (results are kept 15 minutes: the last 200 "
            "commands, fewer when their results are large).",
            param="correlation_id",
            correlation_id=a.correlation_id,  # the id asked about, not this observe call's own
        )
    # Another command's result, checked against its own declaration when it answered (Pending relays).
    return results.relayed(Pending, ctx.engine.outcome(job))


COMMANDS = [
    Command(
        "observe",
        "page",
        "read",
        "url, title, forms, headings, counts",
        _page,
        TabArgs,
        returns=Page,
        example_result={
            "url": "https://example.com/",
            "title": "Example Domain",
            "viewport": {"width": 1280, "height": 720},
            "scroll": {"x": 0, "y": 0},
            "documentHeight": 720,
            "forms": [{"id": "search", "action": "https://example.com/find", "fields": ["q"]}],
            "headings": ["Example Domain"],
            "links": 1,
            "images": 0,
            "interactiveElements": 3,
        },
        ops=("page.info",),
        cli=Cli("page"),
    ),
    Command(
        "observe",
        "dom",
        "read",
        "matching elements (≤50)",
        _dom,
        DomArgs,
        returns=Dom,
        example={"selector": "h1"},
        example_result={
            "url": "https://example.com/",
            "title": "Example Domain",
            "matches": [
                {
                    "selector": "body > div > h1",
                    "tag": "h1",
                    "attributes": {},
                    "text": "Example Domain",
                    "boundingBox": {"x": 8, "y": 133, "width": 600, "height": 38},
                    "visible": True,
                }
            ],
            "matchCount": 1,
            "returnedCount": 1,
        },
        ops=("dom.query",),
        cli=Cli("dom", positional=("selector",)),
    ),
    Command(
        "observe",
        "tabs",
        "read",
        "open tabs and their owners",
        _tabs,
        returns=Tabs,
        notes="`owner`: the agent session that opened the tab or was handed it (null: the person's, open to "
        "every agent); `mine`: it is yours. You act on your own tabs and the person's; another agent's is "
        "refused with tab_not_owned (reads naming its tab_id still work).",
        example_result={
            "tabs": [
                {
                    "tab_id": 12,
                    "url": "https://example.com/",
                    "title": "Example Domain",
                    "active": True,
                    "tracked": False,
                    "browser": "managed browser",
                    "owner": "claude-code 1.0 (mcp-1)",
                    "mine": True,
                }
            ]
        },
        ops=("tabs.list",),
        # `whose`: the owner in words (mine, agent <label>, person's, free), made by the shell from the row;
        # last, so that scripts reading the first five cells read what they did before.
        cli=Cli("tabs", show="rows:tabs:tab_id,active,tracked,url,title,whose"),
    ),
    Command(
        "observe",
        "pilot",
        "read",
        "AI Web Pilot state, browser link",
        _pilot,
        returns=Pilot,
        example_result={
            "ai_web_pilot": True,
            "capabilities": {"execute_js": True, "page_actions": True, "scrape": True},
            "extension_connected": True,
            "browser": {"name": "Chromium", "version": "131.0", "managed": True},
        },
        cli=Cli("pilot"),
    ),
    Command(
        "observe",
        "command_result",
        "read",
        "progress or final result",
        _command_result,
        CommandResultArgs,
        returns=Pending,
        result="the command's final result, or {status, correlation_id, steps_completed, steps_total}",
        example_result={
            "status": "running",
            "correlation_id": "corr-1a2b3c4d5e6f",
            "steps_completed": 2,
            "steps_total": 5,
        },
        cli=Cli("result", positional=("correlation_id",)),
    ),
    Command(
        "observe",
        "help",
        "read",
        "any mode's parameters, result and example",
        _help,
        HelpArgs,
        returns=Help,
        result="{mode, tool, summary, kind, needs, parameters:[{name, type, required, doc, default?, enum?, minimum?, "
        "maximum?}], result, example:{tool, arguments}, example_result, notes?}; no mode: {tools:{...}}",
        example={"mode": "interact.click"},
        example_result={
            "mode": "interact.click",
            "tool": "interact",
            "action": "click",
            "summary": "click (trusted events; waits until clickable)",
            "kind": "mutate",
            "needs": "pilot + approval",
            "parameters": [
                {"name": "selector", "type": "string", "required": True, "doc": "CSS selector (first match)"},
                {"name": "timeout_ms", "type": "integer", "required": False, "doc": "default 10000", "default": 10000},
            ],
            "result": "{clicked:true, navigation?:{url, title, status}}",
            "example": {"tool": "interact", "arguments": {"action": "click", "selector": "#search"}},
            "example_result": {"clicked": True},
        },
        cli=Cli("help", positional=("mode",)),
    ),
]
