"""Capture buffers: what the pages logged, threw, requested and sent over WebSockets, per tab.

The extension forwards the pages' capture batches as `capture` events (docs/bridge-protocol.md);
`CaptureStore.ingest` files each item into a ring buffer of fixed size per tab and per kind, so
memory stays bounded however much a page produces:

    logs 1000 · errors 200 · network 500 · network_bodies 100 · websocket_events 200   (per tab)

at most `MAX_TABS` tabs (the least recently active is forgotten first), and every item is bounded
too (strings, lists and nesting are cut, `truncated: true` says so). Every item gets a cursor from
one counter that only grows, so `since_cursor` answers exactly what came after an earlier answer,
without repeats or gaps. Pure: no I/O; the app feeds it from the extension link.
"""

from __future__ import annotations

import heapq
import itertools
import re
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from tabpilot.engine.per_engine import per_engine
from tabpilot.engine.safety.body_redact import redact_body
from tabpilot.engine.safety.pilot import PilotState

Kind = Literal["logs", "errors", "network", "network_bodies", "websocket_events"]
KINDS: tuple[Kind, ...] = ("logs", "errors", "network", "network_bodies", "websocket_events")

BUFFER_SIZES: dict[Kind, int] = {
    "logs": 1000,
    "errors": 200,
    "network": 500,
    "network_bodies": 100,
    "websocket_events": 200,
}
MAX_TABS = 20

WIRE_KINDS: dict[str, Kind] = {
    "log": "logs",
    "error": "errors",
    "network": "network",
    "body": "network_bodies",
    "ws": "websocket_events",
}
GATED: dict[Kind, str] = {
    "network_bodies": "capture_network_bodies",
    "websocket_events": "capture_websockets",
}
"""Kinds the user switches on and off (pilot capabilities); items of a kind that is off are dropped."""

SENSITIVE_HEADER = re.compile(
    r"^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$|token|secret|key|password|auth|session|signature",
    re.I,
)
SENSITIVE_PARAM = re.compile(
    r"token|secret|key|password|passwd|pwd|auth|session|sig|signature|credential|code$|^code", re.I
)
URL_FIELDS = frozenset({"url", "page", "source", "filename", "name", "initiator", "redirect_url"})

ITEM_BUDGET: dict[Kind, int] = {
    "logs": 16 * 1024,
    "errors": 16 * 1024,
    "network": 8 * 1024,
    "network_bodies": 32 * 1024,
    "websocket_events": 8 * 1024,
}
"""Characters of text one item may hold, all its strings together."""
RING_BYTES: dict[Kind, int] = {
    "logs": 2 * 1024 * 1024,
    "errors": 1024 * 1024,
    "network": 1024 * 1024,
    "network_bodies": 2 * 1024 * 1024,
    "websocket_events": 1024 * 1024,
}
"""Per tab and kind, on top of the count: a few large items cannot take more memory than this."""
STORE_BYTES = 48 * 1024 * 1024
"""All tabs together; beyond it the least recently active tab's oldest entries go first."""
BODY_FIELDS: dict[Kind, tuple[str, ...]] = {
    "network_bodies": ("requestBody", "responseBody", "request_body", "response_body"),
    "websocket_events": ("data",),
}
"""Text whose sensitive keys are redacted (JSON, form-encoded and multipart bodies; WebSocket JSON)."""
HEADER_FIELDS = ("requestHeaders", "responseHeaders", "request_headers", "response_headers")

# Bounds for one item (the page side cuts first; these hold whatever arrives).
MAX_STRING: dict[Kind, int] = {
    "logs": 4096,
    "errors": 4096,
    "network": 4096,
    "network_bodies": 16 * 1024,
    "websocket_events": 4096,
}
MAX_FIELDS = 30
MAX_ITEMS = 50
MAX_DEPTH = 4


def is_sensitive_header(name: str) -> bool:
    return bool(SENSITIVE_HEADER.search(name))


@dataclass
class Ring:
    """A fixed-size buffer of items in cursor order, oldest first."""

    size: int
    max_bytes: int = 1 << 62
    items: deque[dict[str, Any]] = field(init=False)
    sizes: deque[int] = field(init=False)
    bytes: int = 0
    received: int = 0
    evicted: int = 0
    last_evicted: int = 0
    """The cursor of the newest item pushed out by a newer one (0: none yet)."""

    def __post_init__(self) -> None:
        self.items = deque()
        self.sizes = deque()

    def add(self, item: dict[str, Any], size: int) -> int:
        """Keep `item` (about `size` characters); returns the characters freed by pushing old ones out."""
        freed = 0
        while self.items and (len(self.items) >= self.size or self.bytes + size > self.max_bytes):
            freed += self.drop_oldest()
        self.items.append(item)
        self.sizes.append(size)
        self.bytes += size
        self.received += 1
        return freed

    def drop_oldest(self) -> int:
        self.evicted += 1
        self.last_evicted = self.items.popleft()["cursor"]
        size = self.sizes.popleft()
        self.bytes -= size
        return size

    def clear(self) -> int:
        count = len(self.items)
        self.items.clear()
        self.sizes.clear()
        self.bytes = 0
        return count


@dataclass
class TabCapture:
    tab_id: int
    sizes: Mapping[Kind, int]
    url: str = ""
    dropped: int = 0
    """Items the page side could not hand over (its queue was full)."""
    page_settings: dict[str, bool] | None = None
    """The toggles the page's capture confirmed it follows (top frame)."""
    rings: dict[Kind, Ring] = field(init=False)

    def __post_init__(self) -> None:
        self.rings = {kind: Ring(self.sizes[kind], RING_BYTES[kind]) for kind in KINDS}

    @property
    def bytes(self) -> int:
        return sum(r.bytes for r in self.rings.values())


@dataclass(frozen=True)
class Page:
    """One answer: matching entries newest first, and the cursor to ask from next time."""

    entries: list[dict[str, Any]]
    cursor: int
    more: bool
    """More matching entries exist than `limit` allowed (older ones; newer ones with since_cursor)."""
    buffered: int
    evicted: bool
    """Entries after `since_cursor` were pushed out of the buffer before anyone read them."""
    reset: bool = False
    """`since_cursor` is ahead of everything held: the app restarted (cursors begin again), so the
    answer starts from the oldest entry instead of skipping what came since."""


Match = Callable[[Mapping[str, Any]], bool]


class CaptureStore:
    def __init__(
        self,
        pilot: PilotState | None = None,
        *,
        sizes: Mapping[Kind, int] | None = None,
        max_tabs: int = MAX_TABS,
    ) -> None:
        self.pilot = pilot
        self.sizes: dict[Kind, int] = {**BUFFER_SIZES, **(sizes or {})}
        self.max_tabs = max_tabs
        self.tabs: OrderedDict[int, TabCapture] = OrderedDict()
        self._cursors = itertools.count(1)
        self.cursor = 0
        """The newest cursor handed out (0: nothing captured yet)."""
        self.bytes = 0
        self.forgotten_upto = 0
        """The newest cursor of entries lost with a forgotten tab (so `evicted` can say so)."""
        if pilot is not None:
            pilot.subscribe(self._capabilities_changed)

    # -- in ------------------------------------------------------------------------------------

    def on_link_event(self, name: str, data: dict[str, Any]) -> None:
        """ExtensionLink event handler: files `capture` batches."""
        if name == "capture":
            self.ingest(data)

    def ingest(self, batch: Mapping[str, Any]) -> int:
        """File one batch `{tab_id, frame_id, url, items:[{kind, ...}], dropped?, settings?}`; returns
        how many items were kept."""
        tab_id = batch.get("tab_id")
        if not isinstance(tab_id, int) or isinstance(tab_id, bool):
            return 0
        tab = self._tab(tab_id)
        frame_id = batch.get("frame_id")
        top = not isinstance(frame_id, int) or frame_id == 0
        url = batch.get("url")
        page_url = url[:2048] if isinstance(url, str) else ""
        if top and page_url:
            tab.url = page_url
        dropped = batch.get("dropped")
        if isinstance(dropped, int) and dropped > 0:
            tab.dropped += dropped
        settings = batch.get("settings")
        if top and isinstance(settings, dict):
            tab.page_settings = {
                k: v for k, v in settings.items() if k in ("websockets", "bodies") and v in (True, False)
            }
        items = batch.get("items")
        if not isinstance(items, list):
            return 0
        kept = 0
        for raw in items:
            if not isinstance(raw, dict):
                continue
            kind = WIRE_KINDS.get(str(raw.get("kind")))
            if kind is None or not self._allowed(kind):
                continue
            item = _bounded_item(raw, kind)
            if kind in ("logs", "errors") and page_url:
                item["page"] = page_url
            if not top:
                item["frame_id"] = frame_id
            item["tab_id"] = tab_id
            self.cursor = item["cursor"] = next(self._cursors)
            size = _size(item)
            self.bytes += size - tab.rings[kind].add(item, size)
            kept += 1
        self._within_budget()
        return kept

    def _within_budget(self) -> None:
        """Past the overall budget: the least recently active tabs give up their oldest entries first."""
        for tab in list(self.tabs.values()):
            if self.bytes <= STORE_BYTES:
                return
            for ring in tab.rings.values():
                while ring.items and self.bytes > STORE_BYTES:
                    self.bytes -= ring.drop_oldest()

    def _tab(self, tab_id: int) -> TabCapture:
        tab = self.tabs.get(tab_id)
        if tab is None:
            tab = self.tabs[tab_id] = TabCapture(tab_id, self.sizes)
            while len(self.tabs) > self.max_tabs:
                _, gone = self.tabs.popitem(last=False)
                self.bytes -= gone.bytes
                newest = [r.items[-1]["cursor"] for r in gone.rings.values() if r.items]
                if newest:
                    self.forgotten_upto = max(self.forgotten_upto, *newest)
        else:
            self.tabs.move_to_end(tab_id)
        return tab

    def _allowed(self, kind: Kind) -> bool:
        capability = GATED.get(kind)
        return capability is None or self.pilot is None or self.pilot.allows(capability)

    def enabled(self, kind: Kind) -> bool:
        """Whether the user lets this kind be captured (bodies and WebSockets have toggles)."""
        return self._allowed(kind)

    def _capabilities_changed(self, pilot: PilotState) -> None:
        """Switching a capture toggle off also forgets what it captured."""
        for kind, capability in GATED.items():
            if not pilot.allows(capability):
                self.clear(kinds=(kind,))

    # -- out -----------------------------------------------------------------------------------

    def entries(
        self,
        kind: Kind,
        *,
        tab_id: int | None = None,
        match: Match | None = None,
        limit: int = 50,
        since_cursor: int | None = None,
    ) -> Page:
        """Matching entries, newest first. Without `since_cursor`: the newest `limit`. With it: those
        after it, oldest-first in chunks of `limit` (answered newest first), so that asking again from
        the returned `cursor` continues without a gap while `more` is true."""
        rings = self._rings(kind, tab_id)
        buffered = sum(len(r.items) for r in rings)
        reset = since_cursor is not None and since_cursor > self.cursor
        if reset:
            since_cursor = 0  # a cursor from before a restart: everything held is news
        newest_first = _newest_first(rings)
        if since_cursor is None:
            found: list[dict[str, Any]] = []
            more = False
            for item in newest_first:
                if match is None or match(item):
                    if len(found) == limit:
                        more = True
                        break
                    found.append(item)
            return Page([dict(i) for i in found], self.cursor, more, buffered, False)
        after: list[dict[str, Any]] = []
        for item in newest_first:
            if item["cursor"] <= since_cursor:
                break
            if match is None or match(item):
                after.append(item)
        more = len(after) > limit
        chunk = after[-limit:] if more else after
        cursor = chunk[0]["cursor"] if more else self.cursor
        evicted = any(r.last_evicted > since_cursor for r in rings) or self.forgotten_upto > since_cursor
        return Page([dict(i) for i in chunk], cursor, more, buffered, evicted, reset)

    def _rings(self, kind: Kind, tab_id: int | None) -> list[Ring]:
        if tab_id is not None:
            tab = self.tabs.get(tab_id)
            return [tab.rings[kind]] if tab is not None else []
        return [tab.rings[kind] for tab in self.tabs.values()]

    def clear(self, *, tab_id: int | None = None, kinds: Iterable[Kind] | None = None) -> int:
        """Empty the buffers (of one tab, of some kinds); cursors go on from where they were."""
        chosen = tuple(kinds) if kinds is not None else KINDS
        tabs = [self.tabs[tab_id]] if tab_id is not None and tab_id in self.tabs else []
        if tab_id is None:
            tabs = list(self.tabs.values())
        cleared = sum(tab.rings[kind].clear() for tab in tabs for kind in chosen)
        self.bytes = sum(tab.bytes for tab in self.tabs.values())
        return cleared

    def status(self) -> list[dict[str, Any]]:
        """Per tab, most recently active first: URL, entries buffered per kind, totals received."""
        out = []
        for tab in reversed(self.tabs.values()):
            out.append(
                {
                    "tab_id": tab.tab_id,
                    "url": tab.url,
                    "buffered": {kind: len(ring.items) for kind, ring in tab.rings.items()},
                    "received": {kind: ring.received for kind, ring in tab.rings.items()},
                    "dropped_in_page": tab.dropped,
                    "page_settings": tab.page_settings,
                }
            )
        return out


def _newest_first(rings: list[Ring]) -> Iterator[dict[str, Any]]:
    if len(rings) == 1:
        newest: Iterator[dict[str, Any]] = reversed(rings[0].items)
        return newest
    merged: Iterator[dict[str, Any]] = heapq.merge(*(reversed(r.items) for r in rings), key=_cursor_of, reverse=True)
    return merged


def _cursor_of(item: Mapping[str, Any]) -> int:
    cursor: int = item["cursor"]
    return cursor


def _bounded_item(raw: Mapping[str, Any], kind: Kind) -> dict[str, Any]:
    """A copy of a page's item within fixed bounds (per string, and all strings together), without
    sensitive headers, and with credentials taken out of its URLs."""
    limit = MAX_STRING[kind]
    cut = [False]
    budget = [ITEM_BUDGET[kind]]
    item: dict[str, Any] = {}
    for key, value in itertools.islice(raw.items(), MAX_FIELDS):
        if key in ("kind", "cursor", "tab_id", "frame_id", "page") or not isinstance(key, str):
            continue
        if key in HEADER_FIELDS:
            item[key] = _safe_headers(value)
            continue
        if key in URL_FIELDS and isinstance(value, str):
            value = safe_url(value)
        if key in BODY_FIELDS.get(kind, ()) and isinstance(value, str):
            value = redact_body(value)  # a password or session token inside the body itself
        item[key] = _bounded(value, limit, 0, cut, budget)
    if cut[0]:
        item["truncated"] = True
    return item


def safe_url(url: str) -> str:
    """An address without user:password@ and with the values of credential-like parameters hidden
    (`?token=`, `access_token`, `api_key`, `sig`, OAuth `code`, also in the fragment)."""
    if "://" not in url[:16] and not url.startswith("//"):
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1] if "@" in parts.netloc else parts.netloc
    return urlunsplit((parts.scheme, netloc, parts.path, _safe_query(parts.query), _safe_query(parts.fragment)))


def _safe_query(query: str) -> str:
    if "=" not in query:
        return query
    out = []
    for pair in query.split("&"):
        name, sep, value = pair.partition("=")
        out.append(f"{name}=[REDACTED]" if sep and value and SENSITIVE_PARAM.search(name) else pair)
    return "&".join(out)


def _size(item: Mapping[str, Any]) -> int:
    """About how many characters an item holds (what the budgets count)."""
    total = 0
    stack: list[Any] = [item]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, dict):
            total += 8 * len(value)
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            total += 2 * len(value)
            stack.extend(value)
        else:
            total += 8
    return total


def _bounded(value: Any, limit: int, depth: int, cut: list[bool], budget: list[int]) -> Any:
    if isinstance(value, str):
        allowed = min(limit, max(budget[0], 0))
        if len(value) > allowed:
            cut[0] = True
            value = value[:allowed]
        budget[0] -= len(value)
        return value
    if value is None or isinstance(value, bool | int | float):
        return value
    if depth >= MAX_DEPTH:
        cut[0] = True
        return "[…]"
    if isinstance(value, list):
        if len(value) > MAX_ITEMS:
            cut[0] = True
        return [_bounded(v, min(limit, 4096), depth + 1, cut, budget) for v in value[:MAX_ITEMS]]
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            cut[0] = True
        return {
            str(k)[:200]: _bounded(v, min(limit, 4096), depth + 1, cut, budget)
            for k, v in itertools.islice(value.items(), MAX_ITEMS)
        }
    return str(value)[:200]


def _safe_headers(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {
        str(k)[:200].lower(): str(v)[:1000]
        for k, v in itertools.islice(value.items(), MAX_ITEMS)
        if not is_sensitive_header(str(k))
    }


store_for = per_engine(lambda engine: CaptureStore(getattr(engine, "pilot", None)))
"""The capture store of an engine, created on first use (one per engine; it follows the engine's capture
toggles). Kept beside the engine rather than in it, so that capture stays a module of its own."""
