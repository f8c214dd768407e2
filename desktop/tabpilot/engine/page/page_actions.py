"""More `interact` actions on a page: check/uncheck, hover, focus, drag, upload, wait_for, back/forward/
reload, download and dismiss_overlays. Each needs AI Web Pilot ON; those that change the page need approval
(element actions); each answers what it changed in one line (`changed`) once the page settled."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict, TypeVar

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import FrameArgs, TabArgs, arg
from tabpilot.engine.contract.commands import ApprovalScope, Command, Handler
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.page.interact import (
    CHANGED_NOTE,
    SELECTOR_DOC,
    TIMEOUT_MARGIN_S,
    ElementArgs,
    Navigation,
    page_action,
)
from tabpilot.engine.safety import js_regex
from tabpilot.engine.safety.files import describe_uploads, read_uploads, safe_name, save_download
from tabpilot.engine.workflows.workflows import check_url

WAIT_STATES = ("visible", "hidden", "attached", "detached")
WAIT_CONDITIONS = ("selector", "text", "url", "network_idle", "load")
IN_A_FRAME = ("selector", "text")
"""The wait_for conditions `frame` applies to: a URL, the network and the load are the tab's."""
R = TypeVar("R")


@dataclass(frozen=True, kw_only=True)
class SelectorArgs(ElementArgs):
    selector: str = arg(SELECTOR_DOC)


@dataclass(frozen=True, kw_only=True)
class DragArgs(ElementArgs):
    selector: str = arg("what to drag: CSS selector or @ref")
    target: str = arg("where to drop it: CSS selector or @ref")


@dataclass(frozen=True, kw_only=True)
class UploadArgs(ElementArgs):
    selector: str = arg("<input type=file> (or its label): CSS selector or @ref")
    files: list[Any] = arg("paths (in uploads/ or allowed folders) and/or {name, content_base64, mime}", path=True)


@dataclass(frozen=True, kw_only=True)
class WaitForArgs(FrameArgs):
    selector: str | None = arg("until this CSS selector or @ref reaches `state`", default=None)
    state: str | None = arg("with selector; default visible", default=None, enum=WAIT_STATES)
    text: str | None = arg("until this text is on the page", default=None)
    url: str | None = arg("until the URL matches: glob (* **), /regex/ or substring", default=None)
    network_idle: bool | None = arg("until no request for 500 ms", default=None)
    load: bool | None = arg("until the page has loaded", default=None)
    timeout_ms: int = arg("default 10000", default=10_000, minimum=100, maximum=120_000)


@dataclass(frozen=True, kw_only=True)
class HistoryArgs(TabArgs):
    timeout_ms: int = arg("default 30000", default=30_000, minimum=100, maximum=300_000)


@dataclass(frozen=True, kw_only=True)
class DownloadArgs(FrameArgs):
    url: str | None = arg("http(s) URL (relative: to the page)", default=None)
    selector: str | None = arg("media element or link to save (CSS selector or @ref)", default=None)
    timeout_ms: int = arg("default 30000", default=30_000, minimum=100, maximum=300_000)


@dataclass(frozen=True, kw_only=True)
class DismissArgs(TabArgs):
    timeout_ms: int = arg("default 10000", default=10_000, minimum=100, maximum=120_000)


class Checked(TypedDict):
    checked: bool
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class Hovered(TypedDict):
    hovered: Literal[True]
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class Focused(TypedDict):
    focused: Literal[True]
    tag: str
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class Dragged(TypedDict):
    dragged: Literal[True]
    html5: bool
    """An HTML5 draggable: played as the browser's own drag events."""
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class File(TypedDict):
    name: str
    size: int


class Uploaded(TypedDict):
    files: list[File]
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


class WaitedFor(TypedDict):
    condition: str
    url: str
    waited_ms: int


class Went(TypedDict):
    status: Literal["complete"]
    url: str
    title: str
    changed: str


class Downloaded(TypedDict):
    path: str
    size: int
    mime: str
    url: str


class Closed(TypedDict):
    what: str
    how: str


class Dismissed(TypedDict):
    closed: list[Closed]
    changed: str
    """What the action changed once the page settled, in one line."""
    navigation: NotRequired[Navigation]


def _frame_s(timeout_ms: int) -> float:
    return timeout_ms / 1000 + TIMEOUT_MARGIN_S


def _check(checked: bool) -> Handler[SelectorArgs]:
    async def run(ctx: CommandContext, a: SelectorArgs) -> Checked:
        answer = await ctx.browser_request(
            "dom.check", {**a.wire(), "checked": checked}, timeout_s=_frame_s(a.timeout_ms)
        )
        return results.relayed(Checked, answer)

    return run


async def _on_element(ctx: CommandContext, op: str, a: ElementArgs, returns: type[R]) -> R:
    return results.relayed(returns, await ctx.browser_request(op, a.wire(), timeout_s=_frame_s(a.timeout_ms)))


async def _hover(ctx: CommandContext, a: SelectorArgs) -> Hovered:
    return await _on_element(ctx, "dom.hover", a, Hovered)


async def _focus(ctx: CommandContext, a: SelectorArgs) -> Focused:
    return await _on_element(ctx, "dom.focus", a, Focused)


async def _drag(ctx: CommandContext, a: DragArgs) -> Dragged:
    return await _on_element(ctx, "dom.drag", a, Dragged)


def _upload_scope(engine: Any, params: dict[str, Any]) -> ApprovalScope:
    """The prompt names every file (a path as resolved, an inline file by name and size); a path outside
    the allowed folders is refused here, before anyone is asked."""
    config = engine.config
    names = describe_uploads(params.get("files"), config.uploads_dir, config.upload_folders)
    step = {"type": "upload", "selector": params.get("selector"), "files": names}
    return ApprovalScope(steps=[step], selector=params.get("selector"), acts_on_current_tab=True)


async def _upload(ctx: CommandContext, a: UploadArgs) -> Uploaded:
    config = ctx.engine.config
    files = read_uploads(a.files, config.uploads_dir, config.upload_folders)
    wire = {**a.wire(), "files": [f.wire() for f in files]}
    return results.relayed(
        Uploaded, await ctx.browser_request("dom.upload", wire, timeout_s=_frame_s(a.timeout_ms) + 5)
    )


async def _wait_for(ctx: CommandContext, a: WaitForArgs) -> WaitedFor:
    given = [name for name in WAIT_CONDITIONS if getattr(a, name) not in (None, False)]
    if len(given) != 1:
        raise TabpilotError(
            "invalid_params",
            "interact action=wait_for: give exactly one condition — selector (with state), text, url, "
            "network_idle:true or load:true" + (f"; got {', '.join(given)}." if given else "."),
            param=given[1] if len(given) > 1 else "selector",
        )
    if a.state is not None and a.selector is None:
        raise TabpilotError("invalid_params", "'state' goes with 'selector'.", param="state")
    if a.frame is not None and given[0] not in IN_A_FRAME:
        raise TabpilotError(
            "invalid_params",
            f"'frame' goes with 'selector' or 'text'; {given[0]} is the tab's, not a frame's.",
            param="frame",
        )
    if a.url is not None:
        js_regex.check_pattern(a.url, "url", bare_is_regex=False)
    answer = await ctx.browser_request("page.wait_for", a.wire(), timeout_s=_frame_s(a.timeout_ms))
    return results.relayed(WaitedFor, answer)


def _history(direction: str) -> Handler[HistoryArgs]:
    async def run(ctx: CommandContext, a: HistoryArgs) -> Went:
        params = {**a.wire(), "direction": direction}
        return results.relayed(Went, await ctx.browser_request("tab.history", params, timeout_s=_frame_s(a.timeout_ms)))

    return run


async def _download(ctx: CommandContext, a: DownloadArgs) -> Downloaded:
    if (a.url is None) == (a.selector is None):
        raise TabpilotError(
            "invalid_params", "interact action=download: give exactly one of 'url' or 'selector'.", param="url"
        )
    folder = ctx.engine.config.downloads_dir
    if folder is None:
        raise TabpilotError("not_supported", "This Tabpilot has no downloads folder.")
    if a.url is not None and "://" in a.url:
        check_url(a.url)
    got = await ctx.browser_request("page.download", a.wire(), timeout_s=_frame_s(a.timeout_ms) + 5)
    try:
        data = base64.b64decode(str(got.get("content_base64", "")), validate=True)
    except (binascii.Error, ValueError):
        raise TabpilotError("internal", "The browser sent a download that is not valid base64.") from None
    url = str(got.get("url") or a.url or "")
    mime = str(got.get("mime") or "")
    path = save_download(folder, safe_name(str(got.get("name") or ""), url, mime), data)
    return {"path": str(path), "size": len(data), "mime": mime, "url": url}


async def _dismiss(ctx: CommandContext, a: DismissArgs) -> Dismissed:
    answer = await ctx.browser_request("page.dismiss_overlays", a.wire(), timeout_s=_frame_s(a.timeout_ms))
    return results.relayed(Dismissed, answer)


def _element_action(
    mode: str,
    summary: str,
    handler: Handler[Any],
    args: type[Any],
    returns: type[Any],
    example: dict[str, Any],
    notes: str,
    op: str,
) -> Command[Any]:
    return page_action(mode, summary, op, args, returns, example, notes, handler=handler)


def _history_command(direction: str, summary: str) -> Command[Any]:
    return Command(
        "interact",
        direction,
        "navigate",
        summary,
        _history(direction),
        HistoryArgs,
        returns=Went,
        notes="Answers once the page it went to has loaded; `navigation_failed` when there is no page to go to. "
        "As the browser's own buttons do, back and forward skip pages nobody interacted with (Chrome's history "
        "intervention against pages that trap the back button).",
        example_result={
            "status": "complete",
            "url": "https://example.com/",
            "title": "Example Domain",
            "changed": f"{direction} https://example.com/ 'Example Domain'",
        },
        ops=("tab.history",),
        pilot_gated=True,
        step=True,
    )


COMMANDS: list[Command[Any]] = [
    _element_action(
        "check",
        "check a checkbox, radio or role=checkbox",
        _check(True),
        SelectorArgs,
        Checked,
        {"checked": True, "changed": "checked"},
        "A trusted click when it is unchecked (on its label when the input itself is hidden), then waits until it "
        "is checked; when it already is, nothing is clicked and `changed` says so. " + CHANGED_NOTE,
        "dom.check",
    ),
    _element_action(
        "uncheck",
        "uncheck a checkbox or role=checkbox",
        _check(False),
        SelectorArgs,
        Checked,
        {"checked": False, "changed": "already unchecked; nothing done"},
        "As check, the other way; a radio button cannot be unchecked (`invalid_params`: check another).",
        "dom.check",
    ),
    _element_action(
        "hover",
        "move the pointer over an element",
        _hover,
        SelectorArgs,
        Hovered,
        {"hovered": True, "changed": "+3 elements, text 'Edit' appeared"},
        "A trusted mouse move to the element's centre once it is visible, enabled and uncovered: :hover styles, "
        "mouseover/mouseenter and menus that open on hover follow. " + CHANGED_NOTE,
        "dom.hover",
    ),
    _element_action(
        "focus",
        "give an element the keyboard focus",
        _focus,
        SelectorArgs,
        Focused,
        {"focused": True, "tag": "input", "changed": "no visible change"},
        "Waits until it is visible and enabled; `invalid_params` when it cannot take the focus.",
        "dom.focus",
    ),
    _element_action(
        "drag",
        "drag an element onto `target`",
        _drag,
        DragArgs,
        Dragged,
        {"dragged": True, "html5": True, "changed": "-1 element, +1 element"},
        "Trusted mouse events: press on the source, moves in steps, release on the target, so pointer-driven "
        "sortables follow; an HTML5 draggable gets the browser's own drag events (`html5:true`). " + CHANGED_NOTE,
        "dom.drag",
    ),
    Command(
        "interact",
        "upload",
        "mutate",
        "set a file input's files",
        _upload,
        UploadArgs,
        returns=Uploaded,
        notes="Each item of `files` is a path — relative paths are in the home's uploads/ folder; absolute ones "
        "must lie in it or in a folder the person allowed in settings (`upload_folders`), else `invalid_params` — "
        "or an inline file `{name, content_base64, mime}`. The approval prompt names every file. The app reads the "
        "files and the page's input gets them as if chosen by the person (input and change fire), so a form "
        "submits them. At most 32 MB together.",
        example={"selector": "#avatar", "files": ["photo.png"]},
        example_result={"files": [{"name": "photo.png", "size": 48213}], "changed": "text 'photo.png' appeared"},
        ops=("dom.upload",),
        pilot_gated=True,
        capability="page_actions",
        approval="element",
        approval_steps=lambda engine, params, _caller: _upload_scope(engine, params),
    ),
    Command(
        "interact",
        "wait_for",
        "read",
        "until one condition holds",
        _wait_for,
        WaitForArgs,
        returns=WaitedFor,
        notes="Exactly one of: `selector` with `state` (visible — the default —, hidden, attached, detached), "
        "`text` (on the page, visible), `url` (the tab's URL matches a glob with * and **, a /regex/, or contains "
        "the text; then waits for the load), `network_idle:true` (no request for 500 ms), `load:true`. With "
        "`frame`, a selector or text is looked for in that iframe (cross-origin ones too). Changes nothing, so no "
        "approval; it needs the pilot like every interact action. `timeout` when it does not hold in time.",
        example={"text": "Saved"},
        example_result={"condition": "text 'Saved'", "url": "https://example.com/", "waited_ms": 140},
        ops=("page.wait_for",),
        pilot_gated=True,
        step=True,
    ),
    _history_command("back", "back one page in the tab's history"),
    _history_command("forward", "forward one page in the tab's history"),
    _history_command("reload", "reload the page"),
    Command(
        "interact",
        "download",
        "read",
        "save a URL or media element into downloads/",
        _download,
        DownloadArgs,
        returns=Downloaded,
        notes="Exactly one of `url` or `selector` (an <img>, <video>, <audio>, <source>, <a> or <object>: its "
        "address), in `frame` when given (a relative `url` is then the frame's). Fetched by the browser with its "
        "cookies for that site (HttpOnly ones too) and saved under the "
        "home's downloads/ folder (a new name when one is taken); at most 32 MB. Changes no page, so no approval.",
        example={"url": "https://example.com/report.pdf"},
        example_result={
            "path": "/home/me/.local/share/tabpilot/downloads/report.pdf",
            "size": 48213,
            "mime": "application/pdf",
            "url": "https://example.com/report.pdf",
        },
        ops=("page.download",),
        pilot_gated=True,
    ),
    _element_action(
        "dismiss_overlays",
        "close cookie banners and modals",
        _dismiss,
        DismissArgs,
        Dismissed,
        {
            "closed": [{"what": "cookie banner 'We use cookies'", "how": "clicked 'Accept all'"}],
            "changed": "-4 elements",
        },
        "Cookie and consent banners, open modal dialogs ([aria-modal], role=dialog, <dialog open>) and fixed layers "
        "over most of the viewport: each one's accept or close button is clicked (trusted); one that stays is "
        "hidden, and a page scroll it had locked is unlocked.",
        "page.dismiss_overlays",
    ),
]
