"""Telemetry reads: `observe` logs, errors, network, network_bodies, websocket_events, and
`configure clear_capture`. They read the capture buffers (engine/capture/capture.py) and never touch a page.

Which tab: `tab_id`, else the tab commands go to (tracked, else active; asked from the extension);
when no browser is connected, the buffers of every tab (entries carry their `tab_id`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from tabpilot.engine.capture.capture import BUFFER_SIZES, GATED, Kind, Match, Page, store_for
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import NoArgs, TabArgs, arg
from tabpilot.engine.contract.commands import Cli, Command
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.safety import scrubbing

LEVELS = ("debug", "log", "info", "warn", "error")
DIRECTIONS = ("incoming", "outgoing")
RANK = {"debug": 0, "log": 1, "info": 1, "warn": 2, "error": 3}

LEVELS_DOC = "minimum: debug|log|info|warn|error"


@dataclass(frozen=True, kw_only=True)
class ListingArgs(TabArgs):
    """A read of one capture buffer, newest first."""

    limit: int = arg("max entries (default 50)", default=50, minimum=1, maximum=1000, clamp=True)
    since_cursor: int | None = arg("only newer than this cursor", default=None)


@dataclass(frozen=True, kw_only=True)
class LogsArgs(ListingArgs):
    level: str | None = arg(LEVELS_DOC, default=None)


@dataclass(frozen=True, kw_only=True)
class NetworkArgs(ListingArgs):
    url_filter: str | None = arg("URL contains", default=None)
    method: str | None = arg("HTTP method", default=None)
    status_min: int | None = arg("lowest status", default=None)
    status_max: int | None = arg("highest status", default=None)


@dataclass(frozen=True, kw_only=True)
class BodiesArgs(NetworkArgs):
    limit: int = arg("default 20", default=20, minimum=1, maximum=1000, clamp=True)  # seed 003


@dataclass(frozen=True, kw_only=True)
class WebSocketArgs(ListingArgs):
    connection_id: str | None = arg("one connection", default=None)
    url_filter: str | None = arg("URL contains", default=None)
    direction: str | None = arg("incoming|outgoing", default=None)


OFF_NOTES = {
    "network_bodies": "Request and response bodies are not captured: the user can switch on 'Network bodies' "
    "under Capture in the Tabpilot tray menu. Requests made after that show up here.",
    "websocket_events": "WebSocket traffic is not captured: the user switched 'WebSockets' off under Capture in "
    "the Tabpilot tray menu.",
}


async def target_tab(ctx: CommandContext, tab_id: int | None) -> int | None:
    """The tab to read: the given one, else the one commands go to; None (every tab) without a browser."""
    if tab_id is not None:
        return tab_id
    if not ctx.browser.connected:
        return None
    try:
        tab = await ctx.browser.request("tabs.resolve", {}, timeout_s=3)
    except TabpilotError:
        return None
    found = tab.get("tab_id")
    return found if isinstance(found, int) and not isinstance(found, bool) else None


FLUSH_TIMEOUT_S = 2.0
"""How long a read waits for the tab's capture hand-over at most (the extension bounds it at 0.5 s)."""


async def flush_capture(ctx: CommandContext, tab_id: int | None) -> int | None:
    """Before a read of captured data: the tab hands over what its page has buffered (the page batches its
    capture for up to ~150 ms), and the answer comes only after the batch reached the app (events and
    results share one connection, in order). So a request that finished before the read is in it. Cheap:
    the extension asks the top frame, and other frames only when they said they hold something.

    Answers the tab to read, as `target_tab` does: without `tab_id` the extension flushes the tab commands
    go to and says which (one round trip, not two). Best effort: a browser that cannot (an older
    extension, a tab gone) leaves the read as it was."""
    if not ctx.browser.connected:
        return tab_id
    params = {} if tab_id is None else {"tab_id": tab_id}
    try:
        answer = await ctx.browser.request("capture.flush", params, timeout_s=FLUSH_TIMEOUT_S)
    except TabpilotError:
        answer = {}
    if tab_id is not None:
        return tab_id
    found = answer.get("tab_id")
    if isinstance(found, int) and not isinstance(found, bool):
        return found
    return await target_tab(ctx, None)


class Listing(TypedDict):
    tab_id: int | None
    entries: list[dict[str, Any]]
    """Newest first, each with its cursor."""
    count: int
    cursor: int
    more: bool
    buffered: NotRequired[int]
    capture_enabled: NotRequired[bool]
    evicted: NotRequired[bool]
    reset: NotRequired[bool]
    note: NotRequired[str]


class Cleared(TypedDict):
    cleared: int
    cursor: int


async def _read(ctx: CommandContext, a: ListingArgs, kind: Kind, match: Match | None) -> Listing:
    store = store_for(ctx.engine)
    if not store.enabled(kind):
        return {
            "tab_id": await target_tab(ctx, a.tab_id),
            "entries": [],
            "count": 0,
            "cursor": store.cursor,
            "more": False,
            "capture_enabled": False,
            "note": OFF_NOTES[kind],
        }
    tab_id = await flush_capture(ctx, a.tab_id)
    page = store.entries(kind, tab_id=tab_id, match=match, limit=a.limit, since_cursor=a.since_cursor)
    # A page echoes what was typed into it, keystroke by keystroke ('S', 'S3', 'S3c', …): secrets Tabpilot
    # typed never come back in clear, nor the beginnings of them.
    scrubbed: Listing = scrubbing.scrub(_answer(page, tab_id, kind), ctx.engine.known_secrets, prefixes=True)
    return scrubbed


def _answer(page: Page, tab_id: int | None, kind: Kind) -> Listing:
    out: Listing = {
        "tab_id": tab_id,
        "entries": page.entries,
        "count": len(page.entries),
        "cursor": page.cursor,
        "more": page.more,
        "buffered": page.buffered,
    }
    if kind in GATED:
        out["capture_enabled"] = True
    if page.evicted:
        out["evicted"] = True
        out["note"] = (
            f"Some entries after since_cursor were pushed out before this read (the buffer keeps the last "
            f"{BUFFER_SIZES[kind]} per tab); read more often or with a narrower filter."
        )
    if page.reset:
        out["reset"] = True
        out["note"] = "since_cursor is from before Tabpilot restarted; these are all the entries it holds now."
    return out


def _one_of(value: str | None, name: str, allowed: tuple[str, ...]) -> str | None:
    if value is not None and value not in allowed:
        raise TabpilotError(
            "invalid_params", f"'{name}' must be one of {', '.join(allowed)}; got {shown(value)}.", param=name
        )
    return value if isinstance(value, str) else None


def _network_match(a: NetworkArgs) -> Match | None:
    url = (a.url_filter or "").lower()
    method = (a.method or "").upper()
    low, high = a.status_min, a.status_max
    if low is not None and high is not None and low > high:
        raise TabpilotError("invalid_params", "'status_min' is above 'status_max'.", param="status_min")
    if not (url or method or low is not None or high is not None):
        return None

    def match(item: Mapping[str, Any]) -> bool:
        if url and url not in str(item.get("url", "")).lower():
            return False
        if method and str(item.get("method", "")).upper() != method:
            return False
        if low is not None or high is not None:
            status = item.get("status")
            if not isinstance(status, int) or not status:
                return False
            if (low is not None and status < low) or (high is not None and status > high):
                return False
        return True

    return match


async def _logs(ctx: CommandContext, a: LogsArgs) -> Listing:
    level = _one_of(a.level, "level", LEVELS)
    match: Match | None = None
    if level is not None:
        floor = RANK[level]

        def match(item: Mapping[str, Any]) -> bool:
            return RANK.get(str(item.get("level")), 1) >= floor

    return await _read(ctx, a, "logs", match)


async def _errors(ctx: CommandContext, a: ListingArgs) -> Listing:
    return await _read(ctx, a, "errors", None)


async def _network(ctx: CommandContext, a: NetworkArgs) -> Listing:
    return await _read(ctx, a, "network", _network_match(a))


async def _network_bodies(ctx: CommandContext, a: BodiesArgs) -> Listing:
    return await _read(ctx, a, "network_bodies", _network_match(a))


async def _websocket_events(ctx: CommandContext, a: WebSocketArgs) -> Listing:
    connection, direction = a.connection_id, _one_of(a.direction, "direction", DIRECTIONS)
    url = (a.url_filter or "").lower()
    match: Match | None = None
    if connection or direction or url:

        def match(item: Mapping[str, Any]) -> bool:
            return (
                (not connection or item.get("connection_id") == connection)
                and (not direction or item.get("direction") == direction)
                and (not url or url in str(item.get("url", "")).lower())
            )

    return await _read(ctx, a, "websocket_events", match)


async def _clear_capture(ctx: CommandContext, a: NoArgs) -> Cleared:
    store = store_for(ctx.engine)
    return {"cleared": store.clear(), "cursor": store.cursor}


def _listing(
    mode: str, summary: str, handler: Any, args: type[ListingArgs], entry: dict[str, Any], entries: str
) -> Command[Any]:
    return Command(
        "observe",
        mode,
        "read",
        summary,
        handler,
        args,
        returns=Listing,
        notes=f"Entries: {entries}. Newest first; pass the answer's `cursor` as `since_cursor` next time for exactly "
        "what came after (`more: true`: ask again; `evicted: true`: a buffer overflowed in between).",
        example_result={"tab_id": 12, "entries": [entry], "count": 1, "cursor": 42, "more": False, "buffered": 1},
        cli=Cli(mode.replace("_", "-")),
        ops=("tabs.resolve", "capture.flush"),
    )


COMMANDS: list[Command[Any]] = [
    _listing(
        "logs",
        "console messages",
        _logs,
        LogsArgs,
        {
            "level": "warn",
            "text": "slow",
            "args": ["slow"],
            "source": "app.js:10:5",
            "ts": "2026-01-15T10:30:00.000Z",
            "cursor": 42,
        },
        "`{level, text, args, source, stack?, ts, page, cursor, tab_id}`",
    ),
    _listing(
        "errors",
        "uncaught errors, rejections",
        _errors,
        ListingArgs,
        {"type": "error", "message": "x is undefined", "url": "app.js", "line": 3, "column": 9, "cursor": 42},
        "`{type: error|unhandledrejection, message, stack, url, line, column, ts, page, cursor}`",
    ),
    _listing(
        "network",
        "requests: status, timing, sizes",
        _network,
        NetworkArgs,
        {
            "source": "fetch",
            "method": "GET",
            "url": "https://example.com/api",
            "status": 200,
            "duration_ms": 31,
            "cursor": 42,
        },
        "`{source: fetch|xhr|resource, method, url, status, ok, duration_ms, request_size, response_size, "
        "content_type, initiator?, error?, mocked?|blocked? (a configure mock_route/block_urls route answered "
        "it; route: its pattern), ts, cursor}`; the tab's earlier pages stay listed (generate har keeps to the "
        "current page)",
    ),
    _listing(
        "network_bodies",
        "request/response bodies (opt-in)",
        _network_bodies,
        BodiesArgs,
        {
            "method": "POST",
            "url": "https://example.com/api",
            "status": 200,
            "responseBody": '{"ok":true}',
            "cursor": 42,
        },
        "`{method, url, status, contentType, duration, requestHeaders, responseHeaders, requestBody, "
        "responseBody, truncated?, source, ts, cursor}`; `entries: []` and a `note` until the user switches bodies on",
    ),
    _listing(
        "websocket_events",
        "WebSocket messages",
        _websocket_events,
        WebSocketArgs,
        {"event": "message", "connection_id": "ws-1a2b-1", "direction": "incoming", "data": "hi", "cursor": 42},
        "`{event: connecting|open|message|close|error|evicted, connection_id, url, direction?, data?, "
        "size?, binary?, truncated?, code?, reason?, ts, cursor}`",
    ),
    Command(
        "configure",
        "clear_capture",
        "config",
        "empty all capture buffers",
        _clear_capture,
        returns=Cleared,
        example_result={"cleared": 120, "cursor": 42},
        cli=Cli("clear-capture"),
    ),
]
