"""`observe` reading helpers: a page's visible text, HTML, links, forms, main content as Markdown,
structured data, media and an element's styles (content/read.js answers them all through one bridge
operation, `page.read`), and one of those reads on every tab at once (`across_tabs`).

Reads need no pilot and change nothing. Each honours the redaction rules of `observe dom` (the
`redact_selectors` setting): a redacted element reads as [REDACTED], a password's value never leaves
the page. Answers are cut at `max_bytes` with `truncated: true` and a note saying how to read the rest.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict, TypeVar
from urllib.parse import urlsplit

from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract import results
from tabpilot.engine.contract.args import Args, FrameArgs, TabArgs, arg
from tabpilot.engine.contract.commands import Cli, Command, Handler
from tabpilot.engine.errors import TabpilotError

READ_TIMEOUT_S = 15.0
ACROSS_TABS_AT_ONCE = 4
"""Tabs read at the same time by across_tabs: enough to be quick, few enough not to stall the browser."""
READABLE_SCHEMES = ("http", "https", "file")
R = TypeVar("R")
ACROSS_READS = ("text", "html", "links", "forms", "markdown", "structured_data", "media")


@dataclass(frozen=True, kw_only=True)
class ReadArgs(FrameArgs):
    selector: str | None = arg("CSS selector (first match; default: the page)", default=None)
    max_bytes: int = arg("answer cut here, with a note", default=50_000, minimum=1_000, maximum=2_000_000, clamp=True)


@dataclass(frozen=True, kw_only=True)
class StylesArgs(FrameArgs):
    selector: str = arg("CSS selector (first match)")
    properties: list[str] | None = arg("style names (default: layout, box, text)", default=None)


@dataclass(frozen=True, kw_only=True)
class AcrossTabsArgs(Args):
    read: str = arg("which read, on every tab", enum=ACROSS_READS)
    selector: str | None = arg("CSS selector (first match; default: the page)", default=None)
    max_bytes: int = arg("per tab", default=20_000, minimum=1_000, maximum=200_000, clamp=True)


class Text(TypedDict):
    url: str
    title: str
    text: str
    hidden: NotRequired[Literal[True]]
    """The element is hidden: no text."""
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]
    """How to read the rest, when cut at max_bytes."""


class Html(TypedDict):
    url: str
    title: str
    html: str
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]
    """How to read the rest, when cut at max_bytes."""


class Link(TypedDict):
    text: str
    href: str
    url: str
    visible: bool


class Links(TypedDict):
    url: str
    title: str
    links: list[Link]
    count: int
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]
    """How to read the rest, when cut at max_bytes."""


class Option(TypedDict):
    value: str
    text: str
    selected: bool


class Field(TypedDict):
    selector: str
    tag: str
    type: str
    name: str
    label: str
    id: NotRequired[str]
    value: NotRequired[str]
    checked: NotRequired[bool]
    multiple: NotRequired[bool]
    options: NotRequired[list[Option]]
    options_count: NotRequired[int]
    files: NotRequired[list[str]]
    text: NotRequired[str]
    """A button's text."""
    required: NotRequired[Literal[True]]
    disabled: NotRequired[Literal[True]]
    visible: NotRequired[Literal[False]]


class Form(TypedDict):
    selector: str
    id: str
    name: str
    action: str
    method: str
    fields: list[Field]
    outside_forms: NotRequired[Literal[True]]


class Forms(TypedDict):
    url: str
    title: str
    forms: list[Form]
    count: int
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]
    """How to read the rest, when cut at max_bytes."""


class Markdown(TypedDict):
    url: str
    title: str
    source: str
    """The main content's selector, or body."""
    markdown: str
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]
    """How to read the rest, when cut at max_bytes."""


class JsonLdError(TypedDict):
    error: str
    text: str


class StructuredData(TypedDict):
    url: str
    title: str
    lang: str
    json_ld: list[Any]
    open_graph: dict[str, Any]
    twitter: dict[str, Any]
    meta: dict[str, Any]
    links: dict[str, str]
    json_ld_errors: NotRequired[list[JsonLdError]]
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]
    """How to read the rest, when cut at max_bytes."""


class Image(TypedDict):
    src: str
    alt: str
    width: int
    height: int
    natural_width: int
    natural_height: int
    visible: bool


class Audio(TypedDict):
    src: str
    sources: NotRequired[list[str]]
    width: int
    height: int
    duration: float | None
    paused: bool
    visible: bool


class Video(Audio):
    poster: str


class Media(TypedDict):
    url: str
    title: str
    images: list[Image]
    video: list[Video]
    audio: list[Audio]
    count: int
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]
    """How to read the rest, when cut at max_bytes."""


class Rule(TypedDict):
    selector: str
    source: str
    media: NotRequired[str]
    declarations: str


class Styles(TypedDict):
    url: str
    title: str
    selector: str
    tag: str
    computed: dict[str, str]
    matched_rules: list[Rule]
    inline: NotRequired[str]
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]
    """How to read the rest, when cut at max_bytes."""


class TabRead(TypedDict):
    """One tab's row: its read's answer, or its error."""

    tab_id: int
    url: str
    title: str
    error: NotRequired[str]
    message: NotRequired[str]
    truncated: NotRequired[Literal[True]]
    note: NotRequired[str]
    text: NotRequired[str]
    hidden: NotRequired[Literal[True]]
    html: NotRequired[str]
    links: NotRequired[list[Link] | dict[str, str]]
    count: NotRequired[int]
    forms: NotRequired[list[Form]]
    source: NotRequired[str]
    markdown: NotRequired[str]
    lang: NotRequired[str]
    json_ld: NotRequired[list[Any]]
    open_graph: NotRequired[dict[str, Any]]
    twitter: NotRequired[dict[str, Any]]
    meta: NotRequired[dict[str, Any]]
    json_ld_errors: NotRequired[list[JsonLdError]]
    images: NotRequired[list[Image]]
    video: NotRequired[list[Video]]
    audio: NotRequired[list[Audio]]


class AcrossTabs(TypedDict):
    read: str
    tabs: list[TabRead]
    count: int
    skipped: int
    """Tabs not read: the browser's own pages."""


def _page_read(what: str, params: dict[str, Any], ctx: CommandContext) -> dict[str, Any]:
    return {"what": what, **params, "redact": list(ctx.engine.config.redact_selectors)}


async def _read_page(ctx: CommandContext, what: str, a: TabArgs, returns: type[R]) -> R:
    answer = await ctx.browser_request("page.read", _page_read(what, a.wire(), ctx), timeout_s=READ_TIMEOUT_S)
    return results.relayed(returns, answer)


# One handler per read, each typed by what it answers (tests/unit/engine/test_handler_types.py holds them to it).
async def _text(ctx: CommandContext, a: ReadArgs) -> Text:
    return await _read_page(ctx, "text", a, Text)


async def _html(ctx: CommandContext, a: ReadArgs) -> Html:
    return await _read_page(ctx, "html", a, Html)


async def _links(ctx: CommandContext, a: ReadArgs) -> Links:
    return await _read_page(ctx, "links", a, Links)


async def _forms(ctx: CommandContext, a: ReadArgs) -> Forms:
    return await _read_page(ctx, "forms", a, Forms)


async def _markdown(ctx: CommandContext, a: ReadArgs) -> Markdown:
    return await _read_page(ctx, "markdown", a, Markdown)


async def _structured_data(ctx: CommandContext, a: ReadArgs) -> StructuredData:
    return await _read_page(ctx, "structured_data", a, StructuredData)


async def _media(ctx: CommandContext, a: ReadArgs) -> Media:
    return await _read_page(ctx, "media", a, Media)


async def _styles(ctx: CommandContext, a: StylesArgs) -> Styles:
    return await _read_page(ctx, "styles", a, Styles)


def readable(tab: dict[str, Any]) -> bool:
    """A tab across_tabs reads: a web page or a local file (the browser's own pages are closed to it)."""
    return urlsplit(str(tab.get("url") or "")).scheme in READABLE_SCHEMES


async def _across_tabs(ctx: CommandContext, a: AcrossTabsArgs) -> AcrossTabs:
    listed = await ctx.browser_request("tabs.list", {})
    tabs = [t for t in listed.get("tabs", []) if isinstance(t, dict) and isinstance(t.get("tab_id"), int)]
    chosen = [t for t in tabs if readable(t)]
    gate = asyncio.Semaphore(ACROSS_TABS_AT_ONCE)
    params = {k: v for k, v in {"selector": a.selector, "max_bytes": a.max_bytes}.items() if v is not None}

    async def one(tab: dict[str, Any]) -> TabRead:
        head: TabRead = {"tab_id": tab["tab_id"], "url": tab.get("url", ""), "title": tab.get("title", "")}
        async with gate:
            try:
                read = await ctx.browser_request(
                    "page.read", _page_read(a.read, {**params, "tab_id": tab["tab_id"]}, ctx), timeout_s=READ_TIMEOUT_S
                )
            except TabpilotError as exc:  # one tab's failure is its own row, not the call's
                return {**head, "error": exc.code, "message": exc.message}
        return results.relayed(TabRead, {**head, **read})

    rows = await asyncio.gather(*(one(t) for t in chosen))
    return {"read": a.read, "tabs": list(rows), "count": len(rows), "skipped": len(tabs) - len(chosen)}


_READ_NOTES = "Hidden text (display:none, visibility:hidden, opacity 0, clipped to nothing) is left out. "
_REDACTION_NOTES = (
    "Elements matching the redaction rules (the `redact_selectors` setting, as for observe dom) read as "
    "[REDACTED]; a password's value never leaves the page."
)


def _read(
    mode: str,
    summary: str,
    handler: Handler[Any],
    returns: type[Any],
    example_result: dict[str, Any],
    notes: str,
    args: type[TabArgs] = ReadArgs,
    example: dict[str, Any] | None = None,
    cli: Cli | None = None,
) -> Command[Any]:
    return Command(
        "observe",
        mode,
        "read",
        summary,
        handler,
        args,
        returns=returns,
        notes=notes,
        example=example if example is not None else {},
        example_result=example_result,
        ops=("page.read",),
        cli=cli or Cli(mode, positional=("selector",)),
    )


PAGE = {"url": "https://example.com/", "title": "Example Domain"}

COMMANDS: list[Command[Any]] = [
    _read(
        "text",
        "visible text (of selector)",
        _text,
        Text,
        {**PAGE, "text": "Example Domain\nThis domain is for use in illustrative examples."},
        _READ_NOTES + "A line per block; table cells are separated by tabs. " + _REDACTION_NOTES,
        cli=Cli("text", positional=("selector",), show="text"),
    ),
    _read(
        "html",
        "outer HTML of page or selector",
        _html,
        Html,
        {**PAGE, "html": "<h1>Example Domain</h1>"},
        "The page's (or the first match's) outer HTML as it is now. " + _REDACTION_NOTES,
        example={"selector": "h1"},
        cli=Cli("html", positional=("selector",), show="html"),
    ),
    _read(
        "links",
        "links: text, href, resolved url",
        _links,
        Links,
        {
            **PAGE,
            "links": [
                {"text": "More information", "href": "/about", "url": "https://example.com/about", "visible": True}
            ],
            "count": 1,
        },
        "`href` as written in the page, `url` resolved against it; a link without text is named by its "
        "aria-label, title or image alt.",
        cli=Cli("links", positional=("selector",), show="rows:links:text,url"),
    ),
    _read(
        "forms",
        "form fields: labels, types, selectors, values",
        _forms,
        Forms,
        {
            **PAGE,
            "forms": [
                {
                    "selector": "#login",
                    "id": "login",
                    "name": "",
                    "action": "https://example.com/login",
                    "method": "post",
                    "fields": [
                        {
                            "selector": "#user",
                            "tag": "input",
                            "type": "email",
                            "name": "user",
                            "label": "Email",
                            "value": "",
                        },
                        {
                            "selector": "#pw",
                            "tag": "input",
                            "type": "password",
                            "name": "pw",
                            "label": "Password",
                            "value": "[REDACTED]",
                        },
                    ],
                }
            ],
            "count": 1,
        },
        "Fields outside any form are listed under one more entry with `outside_forms: true`. A password's value "
        'reads as [REDACTED] when there is one ("" when empty), so is a hidden field named like a token '
        "(csrf, session, nonce...). " + _REDACTION_NOTES,
    ),
    _read(
        "markdown",
        "main content as Markdown",
        _markdown,
        Markdown,
        {**PAGE, "source": "main", "markdown": "# Example Domain\n\nThis domain is for use in illustrative examples."},
        "The main content is picked readability-style (main/article, else where the paragraphs are, less "
        "navigation and link lists); `source` names it; `selector` picks it yourself. "
        + _READ_NOTES
        + _REDACTION_NOTES,
        cli=Cli("markdown", positional=("selector",), show="markdown"),
    ),
    _read(
        "structured_data",
        "JSON-LD, Open Graph, Twitter, meta",
        _structured_data,
        StructuredData,
        {
            **PAGE,
            "lang": "en",
            "json_ld": [{"@context": "https://schema.org", "@type": "Organization", "name": "Example"}],
            "open_graph": {"title": "Example Domain", "type": "website"},
            "twitter": {},
            "meta": {"description": "An example."},
            "links": {"canonical": "https://example.com/"},
        },
        "JSON-LD blocks are parsed (an array's items each count); one that does not parse is in json_ld_errors.",
        cli=Cli("data"),
    ),
    _read(
        "media",
        "images, video, audio: src, alt, size",
        _media,
        Media,
        {
            **PAGE,
            "images": [
                {
                    "src": "https://example.com/logo.png",
                    "alt": "Logo",
                    "width": 120,
                    "height": 40,
                    "natural_width": 240,
                    "natural_height": 80,
                    "visible": True,
                }
            ],
            "video": [],
            "audio": [],
            "count": 1,
        },
        "`src` is what the browser loaded (currentSrc); sizes are as rendered, natural_* as the file is.",
    ),
    _read(
        "styles",
        "computed styles and matched CSS rules",
        _styles,
        Styles,
        {
            **PAGE,
            "selector": "body > div > h1",
            "tag": "h1",
            "computed": {"display": "block", "font-size": "32px"},
            "matched_rules": [{"selector": "h1", "source": "<style> #1", "declarations": "font-size: 2em;"}],
        },
        "Rules in cascade order from every stylesheet the page may read (another origin's are counted in `note`).",
        args=StylesArgs,
        example={"selector": "h1", "properties": ["display", "font-size"]},
    ),
    Command(
        "observe",
        "across_tabs",
        "read",
        "one read (text, links...) on every tab",
        _across_tabs,
        AcrossTabsArgs,
        returns=AcrossTabs,
        result="{read, tabs:[{tab_id, url, title, ...that read's answer} | {tab_id, url, title, error, message}], "
        "count, skipped}",
        notes="Reads every web page tab at once (the browser's own pages are skipped and counted); a tab that "
        "fails has its error in its row and the others still answer.",
        example={"read": "text"},
        example_result={
            "read": "text",
            "tabs": [
                {"tab_id": 12, "url": "https://example.com/", "title": "Example Domain", "text": "Example Domain"}
            ],
            "count": 1,
            "skipped": 0,
        },
        ops=("tabs.list", "page.read"),
        cli=Cli("across-tabs", positional=("read", "selector")),
    ),
]
