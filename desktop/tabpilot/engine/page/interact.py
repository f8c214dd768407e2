"""`interact`: acts on the page. Every mode needs AI Web Pilot ON."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict, TypeVar

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import FrameArgs, TabArgs, arg, params_of
from tabpilot.engine.contract.commands import Cli, Command, Handler
from tabpilot.engine.contract.operations import WAIT_UNTIL
from tabpilot.engine.contract.params import Param
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.workflows.workflows import check_url, resolve, scrub

SELECTOR_DOC = "CSS (pierces shadow roots; a >> b) or a snapshot ref @e5"
MOUSE_BUTTONS = ("left", "right", "middle")
MODIFIERS = ("Alt", "Control", "Meta", "Shift")
TIMEOUT_MARGIN_S = 2.0


@dataclass(frozen=True, kw_only=True)
class NavigateArgs(TabArgs):
    url: str = arg("http(s) URL")
    wait_until: str = arg("default load", default="load", enum=WAIT_UNTIL)
    timeout_ms: int = arg("default 30000", default=30_000, minimum=100, maximum=300_000)


@dataclass(frozen=True, kw_only=True)
class ExecuteJsArgs(TabArgs):
    script: str = arg("JS source")
    timeout_ms: int = arg("default 5000", default=5_000, minimum=50, maximum=120_000)


@dataclass(frozen=True, kw_only=True)
class ElementArgs(FrameArgs):
    """An action on one element (a selector or a snapshot's ref, in `frame` or the top frame): it waits
    for the element up to timeout_ms."""

    timeout_ms: int = arg("default 10000", default=10_000, minimum=100, maximum=120_000)


@dataclass(frozen=True, kw_only=True)
class ClickArgs(ElementArgs):
    selector: str = arg(SELECTOR_DOC)
    button: str | None = arg("default left", default=None, enum=MOUSE_BUTTONS)
    click_count: int | None = arg("1-3 (2: double click); default 1", default=None, minimum=1, maximum=3)
    modifiers: list[str] | None = arg("keys held: Alt, Control, Meta, Shift", default=None)


@dataclass(frozen=True, kw_only=True)
class FillArgs(ElementArgs):
    selector: str = arg(SELECTOR_DOC)
    value: str = arg('text ("" clears the field); {{secret:NAME}} from the keyring', allow_empty=True)


@dataclass(frozen=True, kw_only=True)
class TypeArgs(ElementArgs):
    selector: str = arg(SELECTOR_DOC)
    text: str = arg("text; {{secret:NAME}} from the keyring")


@dataclass(frozen=True, kw_only=True)
class PressArgs(ElementArgs):
    key: str = arg("e.g. Enter, Tab, Control+A")
    selector: str | None = arg(SELECTOR_DOC, default=None)


@dataclass(frozen=True, kw_only=True)
class SelectArgs(ElementArgs):
    selector: str = arg(SELECTOR_DOC)
    value: str | None = arg("option value (else label); {{secret:NAME}} ok", default=None)
    label: str | None = arg("option label", default=None)
    text: str | None = arg("option's visible text", default=None)


@dataclass(frozen=True, kw_only=True)
class ScrollArgs(ElementArgs):
    selector: str | None = arg(SELECTOR_DOC, default=None)
    delta_x: int | None = arg("pixels right (left if < 0)", default=None, minimum=-100_000, maximum=100_000)
    delta_y: int | None = arg("pixels down (up if < 0)", default=None, minimum=-100_000, maximum=100_000)
    to: str | None = arg("page top or bottom (default bottom)", default=None, enum=("top", "bottom"))


E = TypeVar("E", bound=ElementArgs)
R = TypeVar("R")


class Navigated(TypedDict):
    status: Literal["complete"]
    url: str
    title: str


class Executed(TypedDict):
    """{success:true, result} or {success:false, error, stack}."""

    success: bool
    result: NotRequired[Any]
    truncated: NotRequired[Literal[True]]
    """The result was too large: `result` says so instead."""
    error: NotRequired[str]
    stack: NotRequired[str]


class Navigation(TypedDict):
    """A navigation the action started: `status` complete, loading (still, at the timeout) or failed."""

    url: str
    title: NotRequired[str]
    status: str
    error: NotRequired[str]


class Clicked(TypedDict):
    clicked: Literal[True]
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class Filled(TypedDict):
    filled: Literal[True]
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class Typed(TypedDict):
    typed: int
    """Characters typed."""
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class Pressed(TypedDict):
    pressed: str
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class Selected(TypedDict):
    selected: list[str]
    labels: list[str]
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class Point(TypedDict):
    x: int
    y: int


class Scrolled(TypedDict):
    scroll: Point
    documentHeight: int
    element_scroll: NotRequired[Point]


async def _navigate(ctx: CommandContext, a: NavigateArgs) -> Navigated:
    a = dataclasses.replace(a, url=check_url(a.url))
    answer = await ctx.browser_request("tab.navigate", a.wire(), timeout_s=a.timeout_ms / 1000 + TIMEOUT_MARGIN_S)
    return results.relayed(Navigated, answer)


async def _execute_js(ctx: CommandContext, a: ExecuteJsArgs) -> Executed:
    answer = await ctx.browser_request("js.execute", a.wire(), timeout_s=a.timeout_ms / 1000 + TIMEOUT_MARGIN_S)
    return results.relayed(Executed, answer)


def _with_secrets(ctx: CommandContext, a: E, key: str) -> tuple[E, dict[str, str]]:
    """`{{secret:NAME}}` in a typed value comes from the OS keyring; results never carry it."""
    if ctx.placeholders_resolved:
        return a, {}
    [step], secrets = resolve([{key: getattr(a, key)}], {}, ctx.engine.secrets.get)
    ctx.engine.known_secrets.update(secrets)
    return dataclasses.replace(a, **{key: step[key]}), secrets


async def _act(ctx: CommandContext, op: str, a: ElementArgs, returns: type[R], value_key: str | None = None) -> R:
    """`op` on the element; a `{{secret:NAME}}` in the parameter `value_key` never comes back in the answer."""
    secrets: dict[str, str] = {}
    if value_key is not None:
        a, secrets = _with_secrets(ctx, a, value_key)
    result = await ctx.browser_request(op, a.wire(), timeout_s=a.timeout_ms / 1000 + TIMEOUT_MARGIN_S)
    return results.relayed(returns, dict(scrub(result, secrets)))


async def _fill(ctx: CommandContext, a: FillArgs) -> Filled:
    return await _act(ctx, "dom.fill", a, Filled, "value")


async def _type(ctx: CommandContext, a: TypeArgs) -> Typed:
    return await _act(ctx, "dom.type", a, Typed, "text")


async def _press(ctx: CommandContext, a: PressArgs) -> Pressed:
    return await _act(ctx, "dom.press", a, Pressed)


async def _scroll(ctx: CommandContext, a: ScrollArgs) -> Scrolled:
    return await _act(ctx, "dom.scroll", a, Scrolled)


def check_modifiers(modifiers: list[str] | None) -> None:
    for name in modifiers or []:
        if name not in MODIFIERS:
            raise TabpilotError(
                "invalid_params",
                f"'modifiers' takes {', '.join(MODIFIERS)}; got {shown(name)}.",
                param="modifiers",
            )


async def _click(ctx: CommandContext, a: ClickArgs) -> Clicked:
    check_modifiers(a.modifiers)
    answer = await ctx.browser_request("dom.click", a.wire(), timeout_s=a.timeout_ms / 1000 + TIMEOUT_MARGIN_S)
    return results.relayed(Clicked, answer)


SELECT_BY = ("value", "label", "text")


async def _select(ctx: CommandContext, a: SelectArgs) -> Selected:
    given = [key for key in SELECT_BY if getattr(a, key) is not None]
    if len(given) != 1:
        raise TabpilotError(
            "invalid_params",
            "interact action=select: give exactly one of 'value', 'label' or 'text'"
            + (f"; got {', '.join(given)}." if given else "."),
            param=given[1] if len(given) > 1 else "value",
        )
    a, secrets = _with_secrets(ctx, a, given[0])
    result = await ctx.browser_request("dom.select", a.wire(), timeout_s=a.timeout_ms / 1000 + TIMEOUT_MARGIN_S)
    return results.relayed(Selected, dict(scrub(result, secrets)))


def page_action(
    mode: str,
    summary: str,
    op: str,
    args: type[ElementArgs],
    returns: type[Any],
    example_result: dict[str, Any],
    notes: str = "",
    cli: Cli | None = None,
    *,
    handler: Handler[Any],
) -> Command[Any]:
    """An action on one element: changes the page, so it needs the pilot, page actions and approval. In
    the shell it is a subcommand named after it, taking its required parameters in order unless `cli`
    says otherwise (`tabpilot drag SOURCE TARGET`). `handler` answers `returns` (a test holds it to that)."""
    if cli is None:
        cli = Cli(mode.replace("_", "-"), positional=tuple(p.name for p in params_of(args) if p.required))
    return Command(
        "interact",
        mode,
        "mutate",
        summary,
        handler,
        args,
        returns=returns,
        notes=notes,
        example_result=example_result,
        ops=(op,),
        pilot_gated=True,
        capability="page_actions",
        approval="element",
        step=True,
        cli=cli,
    )


CHANGED_NOTE = (
    "`changed` says in one line what the action changed once the page settled (the navigation it started, "
    "the DOM quiet for a moment, the requests it started done): URL, title, elements added or removed, text "
    "that appeared — or `no visible change`."
)

ALLOW_REDIRECT = Param(
    "allow_redirect", "boolean", "a login page met on the way is not an error (workflow steps only)", default=False
)

COMMANDS: list[Command[Any]] = [
    Command(
        "interact",
        "navigate",
        "navigate",
        "load url, wait for it",
        _navigate,
        NavigateArgs,
        returns=Navigated,
        example_result={"status": "complete", "url": "https://example.com/", "title": "Example Domain"},
        notes="A load that fails on the way (connection refused, a host that does not resolve, a download) is "
        "`navigation_failed` with the browser's `net_error`. The tab then shows the browser's error page: reads "
        "answer it as an empty page with its address and a note, and navigating again works.",
        ops=("tab.navigate",),
        pilot_gated=True,
        step=True,
        step_params=(ALLOW_REDIRECT,),
        cli=Cli("goto", positional=("url",)),
    ),
    Command(
        "interact",
        "execute_js",
        "mutate",
        "JS: expression or function body (return); await ok",
        _execute_js,
        ExecuteJsArgs,
        returns=Executed,
        result="{success:true, result, truncated?} or {success:false, error, stack}",
        notes="An expression (`1 + 1`) or a function body (`return ...`); `await` works; strict-CSP pages work; a "
        "runaway script is stopped with error `timeout` and the page stays usable; DOM nodes and other non-JSON "
        "values come back as readable strings.",
        example_result={"success": True, "result": "Example Domain"},
        ops=("js.execute",),
        pilot_gated=True,
        capability="execute_js",
        approval="javascript",
        cli=Cli("js", positional=("script",), show="result"),
    ),
    page_action(
        "click",
        "click (trusted events; waits until clickable)",
        "dom.click",
        ClickArgs,
        Clicked,
        {"clicked": True, "changed": "+1 element, text 'Saved' appeared"},
        "Waits until the first match is attached, visible, enabled and uncovered, then clicks it with trusted "
        "mouse events (`button`, `click_count`, `modifiers`); `element_not_found` when nothing matches, `timeout` "
        "(with the reason) when it never becomes clickable. When the click starts a navigation (a submit button, a "
        "link) the answer comes once that page has loaded (`navigation.status` `loading` at the timeout), so the "
        "next read sees it. " + CHANGED_NOTE,
        Cli("click", positional=("selector",)),
        handler=_click,
    ),
    page_action(
        "fill",
        "set an input's value",
        "dom.fill",
        FillArgs,
        Filled,
        {"filled": True, "changed": "no visible change"},
        "Replaces the whole content with trusted text input, as a person pasting (controlled inputs update "
        "their state; `change` fires when the focus leaves); `''` clears it. Date, time, color and range inputs "
        "are set in the page. The answer never echoes the value. " + CHANGED_NOTE,
        cli=Cli("fill", positional=("selector", "value")),
        handler=_fill,
    ),
    page_action(
        "type",
        "type with key events",
        "dom.type",
        TypeArgs,
        Typed,
        {"typed": 5, "changed": "text 'No results' appeared"},
        "Trusted key events, at the end of the field.",
        Cli("type", positional=("selector", "text")),
        handler=_type,
    ),
    page_action(
        "press",
        "key into selector or the focused element",
        "dom.press",
        PressArgs,
        Pressed,
        {"pressed": "Enter", "changed": "navigated to https://example.com/search?q=x 'Results'"},
        "`Enter`, `Tab`, `Escape`, arrows, `Control+A`, …: trusted key events, so Enter submits forms; a "
        "navigation it starts is waited for as with click.",
        Cli("press", positional=("key", "selector")),
        handler=_press,
    ),
    page_action(
        "select",
        "<select> option by value, label or text",
        "dom.select",
        SelectArgs,
        Selected,
        {"selected": ["hello"], "labels": ["Hello"], "changed": "no visible change"},
        "Exactly one of `value` (an option's value; an option whose label is that text when none has it), "
        "`label` or `text` (compared with whitespace collapsed); the answer names the options now selected. "
        "Set in the page with `input` and `change` events, as Playwright's select_option does (no trusted input "
        "picks a native option).",
        cli=Cli("select", positional=("selector", "value")),
        handler=_select,
    ),
    Command(
        "interact",
        "scroll",
        "navigate",
        "element into view, by a delta, or page to top/bottom",
        _scroll,
        ScrollArgs,
        returns=Scrolled,
        notes="`selector` alone: that element into view. `delta_x`/`delta_y`: scroll by pixels — the element's own "
        "scrolling box with `selector`, else the page. Neither: the page to its bottom (`to:'top'` for the top).",
        example_result={"scroll": {"x": 0, "y": 1200}, "documentHeight": 2400},
        ops=("dom.scroll",),
        pilot_gated=True,
        step=True,
        cli=Cli("scroll", positional=("selector",)),
    ),
]
