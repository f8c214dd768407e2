"""Telemetry reads: `observe` logs, errors, network, network_bodies, websocket_events, and
`configure clear_capture`. They read the capture buffers (engine/capture.py) and never touch a page.

Which tab: `tab_id`, else the tab commands go to (tracked, else active; asked from the extension);
when no browser is connected, the buffers of every tab (entries carry their `tab_id`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabpilot.engine import scrubbing
from tabpilot.engine.capture import BUFFER_SIZES, GATED, Kind, Match, Page, store_for
from tabpilot.engine.commands import Command
from tabpilot.engine.context import CommandContext
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.params import Param

LEVELS = ("debug", "log", "info", "warn", "error")
DIRECTIONS = ("incoming", "outgoing")
RANK = {"debug": 0, "log": 1, "info": 1, "warn": 2, "error": 3}

LIMIT = Param("limit", "integer", "max entries (default 50)", default=50, minimum=1, maximum=1000, clamp=True)
BODIES_LIMIT = Param("limit", "integer", "default 20", default=20, minimum=1, maximum=1000, clamp=True)  # seed 003
SINCE = Param("since_cursor", "integer", "only newer than this cursor")
URL_FILTER = Param("url_filter", "string", "URL contains")
NETWORK_FILTERS = (
    URL_FILTER,
    Param("method", "string", "HTTP method"),
    Param("status_min", "integer", "lowest status"),
    Param("status_max", "integer", "highest status"),
)

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


async def _read(ctx: CommandContext, p: dict[str, Any], kind: Kind, match: Match | None) -> dict[str, Any]:
    store = store_for(ctx.engine)
    tab_id = await target_tab(ctx, p.get("tab_id"))
    if not store.enabled(kind):
        return {
            "tab_id": tab_id,
            "entries": [],
            "count": 0,
            "cursor": store.cursor,
            "more": False,
            "capture_enabled": False,
            "note": OFF_NOTES[kind],
        }
    page = store.entries(kind, tab_id=tab_id, match=match, limit=p["limit"], since_cursor=p["since_cursor"])
    # A page echoes what was typed into it, keystroke by keystroke ('S', 'S3', 'S3c', …): secrets Tabpilot
    # typed never come back in clear, nor the beginnings of them.
    return dict(scrubbing.scrub(_answer(page, tab_id, kind), ctx.engine.known_secrets, prefixes=True))


def _answer(page: Page, tab_id: int | None, kind: Kind) -> dict[str, Any]:
    out: dict[str, Any] = {
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


def _one_of(p: Mapping[str, Any], name: str, allowed: tuple[str, ...]) -> str | None:
    value = p.get(name)
    if value is not None and value not in allowed:
        raise TabpilotError(
            "invalid_params", f"'{name}' must be one of {', '.join(allowed)}; got {shown(value)}.", param=name
        )
    return value if isinstance(value, str) else None


def _network_match(p: Mapping[str, Any]) -> Match | None:
    url = (p.get("url_filter") or "").lower()
    method = (p.get("method") or "").upper()
    low, high = p.get("status_min"), p.get("status_max")
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


async def _logs(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    level = _one_of(p, "level", LEVELS)
    match: Match | None = None
    if level is not None:
        floor = RANK[level]

        def match(item: Mapping[str, Any]) -> bool:
            return RANK.get(str(item.get("level")), 1) >= floor

    return await _read(ctx, p, "logs", match)


async def _errors(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    return await _read(ctx, p, "errors", None)


async def _network(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    return await _read(ctx, p, "network", _network_match(p))


async def _network_bodies(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    return await _read(ctx, p, "network_bodies", _network_match(p))


async def _websocket_events(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    connection, direction = p.get("connection_id"), _one_of(p, "direction", DIRECTIONS)
    url = (p.get("url_filter") or "").lower()
    match: Match | None = None
    if connection or direction or url:

        def match(item: Mapping[str, Any]) -> bool:
            return (
                (not connection or item.get("connection_id") == connection)
                and (not direction or item.get("direction") == direction)
                and (not url or url in str(item.get("url", "")).lower())
            )

    return await _read(ctx, p, "websocket_events", match)


async def _clear_capture(ctx: CommandContext, p: dict[str, Any]) -> dict[str, Any]:
    store = store_for(ctx.engine)
    return {"cleared": store.clear(), "cursor": store.cursor}


def _listing(mode: str, summary: str, handler: Any, *filters: Param, limit: Param = LIMIT) -> Command:
    return Command("observe", mode, "read", summary, handler, params=(*filters, limit, SINCE), targets_tab=True)


COMMANDS = [
    _listing(
        "logs",
        "console messages",
        _logs,
        Param("level", "string", "minimum: debug|log|info|warn|error"),
    ),
    _listing("errors", "uncaught errors, rejections", _errors),
    _listing("network", "requests: status, timing, sizes", _network, *NETWORK_FILTERS),
    _listing(
        "network_bodies", "request/response bodies (opt-in)", _network_bodies, *NETWORK_FILTERS, limit=BODIES_LIMIT
    ),
    _listing(
        "websocket_events",
        "WebSocket messages",
        _websocket_events,
        Param("connection_id", "string", "one connection"),
        URL_FILTER,
        Param("direction", "string", "incoming|outgoing"),
    ),
    Command(
        "configure",
        "clear_capture",
        "read",
        "empty all capture buffers",
        _clear_capture,
    ),
]
