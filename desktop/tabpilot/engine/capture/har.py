"""`generate har`: a tab's captured network (engine/capture/capture.py) as an HTTP Archive (HAR 1.2) file, which
Chrome DevTools, Firefox and HAR viewers open.

The capture is the page's own view (fetch, XMLHttpRequest and the resource timing of everything else),
already stripped of sensitive headers, credential-like URL parameters and secret body fields when it was
filed; bodies come along only while the person has "network bodies" on. So a HAR here never holds a
cookie, an Authorization header or a typed secret — and, for the same reason, no cookies at all.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict
from urllib.parse import parse_qsl, urlsplit

from tabpilot import __version__
from tabpilot.engine.artifacts.artifacts import write_artifact
from tabpilot.engine.capture.capture import BUFFER_SIZES, store_for
from tabpilot.engine.capture.telemetry import flush_capture, target_tab
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import TabArgs, arg
from tabpilot.engine.contract.commands import Command
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety import scrubbing

PAGE_ID = "page_1"
RESOURCE_TYPES = {
    "fetch": "fetch",
    "xhr": "xhr",
    "img": "image",
    "image": "image",
    "script": "script",
    "link": "stylesheet",
    "css": "stylesheet",
    "iframe": "document",
    "navigation": "document",
    "beacon": "ping",
}
"""How DevTools names a request's kind (`_resourceType`), from the capture's source or initiator."""


@dataclass(frozen=True, kw_only=True)
class HarArgs(TabArgs):
    url_filter: str | None = arg("only requests whose URL contains this", default=None)
    path: str | None = arg("file name inside the artifacts folder (default har-<time>.har)", default=None, path=True)


class Har(TypedDict):
    path: str
    entries: int
    bodies: int
    """Entries with a captured body (only while the person has network bodies on)."""
    size_bytes: int
    bodies_captured: bool


def _iso(epoch_ms: float) -> str:
    seconds, millis = divmod(int(epoch_ms), 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def _number(value: Any, default: float = -1) -> float:
    return value if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else default


def _headers(value: Any) -> list[dict[str, str]]:
    if not isinstance(value, Mapping):
        return []
    return [{"name": str(k), "value": str(v)} for k, v in value.items()]


def _query(url: str) -> list[dict[str, str]]:
    try:
        return [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True)]
    except ValueError:
        return []


def _body_key(item: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """The page side stamps a request's `network` and `body` items with the same source, method, URL and time."""
    return (str(item.get("source")), str(item.get("method")), str(item.get("url")), str(item.get("ts")))


def har_entry(item: Mapping[str, Any], body: Mapping[str, Any] | None) -> dict[str, Any]:
    """One captured request as a HAR entry (with its body item, when bodies were captured)."""
    url = str(item.get("url", ""))
    duration = _number(item.get("duration_ms"), 0)
    status = item.get("status") if isinstance(item.get("status"), int) else 0
    mime = str(item.get("content_type") or (body or {}).get("contentType") or "")
    request: dict[str, Any] = {
        "method": str(item.get("method") or "GET"),
        "url": url,
        "httpVersion": "",
        "cookies": [],
        "headers": _headers((body or {}).get("requestHeaders")),
        "queryString": _query(url),
        "headersSize": -1,
        "bodySize": int(_number(item.get("request_size"), 0 if item.get("method") == "GET" else -1)),
    }
    content: dict[str, Any] = {"size": int(_number(item.get("response_size"), 0)), "mimeType": mime}
    if body is not None:
        sent = body.get("requestBody")
        if isinstance(sent, str):
            headers = body.get("requestHeaders")
            sent_type = str(headers.get("content-type", "")) if isinstance(headers, Mapping) else ""
            request["postData"] = {"mimeType": sent_type, "text": sent}
        answered = body.get("responseBody")
        if isinstance(answered, str) and not answered.startswith("[Binary"):
            content["text"] = answered
        if body.get("responseTruncated"):
            content["comment"] = "body cut short by the capture"
    response = {
        "status": status,
        "statusText": "",
        "httpVersion": "",
        "cookies": [],
        "headers": _headers((body or {}).get("responseHeaders")),
        "content": content,
        "redirectURL": "",
        "headersSize": -1,
        "bodySize": int(_number(item.get("transfer_size"), -1)),
    }
    entry: dict[str, Any] = {
        "pageref": PAGE_ID,
        "startedDateTime": str(item.get("ts") or _iso(time.time() * 1000)),
        "time": duration,
        "request": request,
        "response": response,
        "cache": {},
        "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": duration, "receive": 0},
        "_source": str(item.get("source") or ""),
        "_resourceType": RESOURCE_TYPES.get(str(item.get("initiator") or item.get("source")), "other"),
    }
    if item.get("error"):
        entry["_error"] = str(item["error"])
    # A configure mock_route / block_urls route answered it: said so, never passed off as the server's answer.
    if item.get("mocked"):
        entry["_mocked"] = True
    if item.get("blocked"):
        entry["_blocked"] = True
        response["status"] = 0
        entry.setdefault("_error", "blocked by a configure block_urls route")
    if (item.get("mocked") or item.get("blocked")) and item.get("route"):
        entry["_route"] = str(item["route"])
    return entry


def document_entry(perf: Mapping[str, Any]) -> dict[str, Any] | None:
    """The page's own document as an entry, from its navigation timing (the capture sees only what the
    page requests after it started)."""
    nav = perf.get("navigation")
    if not isinstance(nav, Mapping) or not isinstance(perf.get("time_origin"), int | float):
        return None
    item = {
        "source": "navigation",
        "method": "GET",
        "url": perf.get("url", ""),
        "status": nav.get("status") or 200,
        "duration_ms": nav.get("response_end_ms") or 0,
        "transfer_size": nav.get("transfer_size"),
        "response_size": nav.get("decoded_body_size"),
        "content_type": "text/html",
        "ts": _iso(float(perf["time_origin"])),
    }
    entry = har_entry(item, None)
    ttfb = _number(nav.get("ttfb_ms"), 0)
    entry["timings"].update(wait=ttfb, receive=max(entry["time"] - ttfb, 0))
    return entry


def build_har(
    requests: Iterable[Mapping[str, Any]],
    bodies: Iterable[Mapping[str, Any]],
    *,
    title: str,
    perf: Mapping[str, Any] | None = None,
    document: bool = True,
) -> dict[str, Any]:
    """A HAR 1.2 document: `requests` (capture `network` items, oldest first), their `bodies` (capture
    `network_bodies` items) matched to them, the page's timings from `perf` and, with `document`, the
    page's own document as the first entry."""
    by_key = {_body_key(b): b for b in bodies}
    entries = [har_entry(item, by_key.get(_body_key(item))) for item in requests]
    first = document_entry(perf) if perf and document else None
    if first is not None:
        entries.insert(0, first)
    nav = perf.get("navigation") if perf else None
    timings = nav if isinstance(nav, Mapping) else {}
    started = entries[0]["startedDateTime"] if entries else _iso(time.time() * 1000)
    page = {
        "startedDateTime": started,
        "id": PAGE_ID,
        "title": title,
        "pageTimings": {
            "onContentLoad": _number(timings.get("dom_content_loaded_ms")),
            "onLoad": _number(timings.get("load_ms")),
        },
    }
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "Tabpilot", "version": __version__},
            "pages": [page],
            "entries": entries,
        }
    }


async def _page_timings(ctx: CommandContext, tab_id: int | None) -> dict[str, Any] | None:
    """The page's navigation timing, when the tab's page can be read (else the HAR goes without it)."""
    if tab_id is None:
        return None
    try:
        return await ctx.browser_request("page.performance", {"tab_id": tab_id}, timeout_s=10)
    except TabpilotError:
        return None


def _epoch_ms(ts: Any) -> float | None:
    """A capture item's `ts` (ISO 8601, UTC) in epoch milliseconds; None when it is not one."""
    if not isinstance(ts, str):
        return None
    try:
        return datetime.fromisoformat(ts).timestamp() * 1000
    except ValueError:
        return None


def since_navigation(perf: Mapping[str, Any] | None) -> float | None:
    """When the tab's current page began (its navigation's time origin, epoch ms): the HAR is that page's,
    and requests of pages the tab showed before stay out. None when the page could not tell."""
    origin = perf.get("time_origin") if perf else None
    return float(origin) if isinstance(origin, int | float) and not isinstance(origin, bool) else None


async def _har(ctx: CommandContext, a: HarArgs) -> Har:
    store = store_for(ctx.engine)
    tab_id = await target_tab(ctx, a.tab_id)
    wanted = (a.url_filter or "").lower()
    # The page's timings first (they say where the current page begins), then what the tab has buffered.
    perf = await _page_timings(ctx, tab_id)
    await flush_capture(ctx, tab_id)
    began = since_navigation(perf)

    def match(item: Mapping[str, Any]) -> bool:
        if wanted and wanted not in str(item.get("url", "")).lower():
            return False
        if began is None:
            return True
        at = _epoch_ms(item.get("ts"))
        return at is None or at >= began - 1  # the time origin is rounded to the millisecond

    requests = store.entries("network", tab_id=tab_id, match=match, limit=BUFFER_SIZES["network"]).entries
    captured = store.enabled("network_bodies")
    bodies = (
        store.entries("network_bodies", tab_id=tab_id, match=match, limit=BUFFER_SIZES["network_bodies"]).entries
        if captured
        else []
    )
    title = str(perf.get("title") or perf.get("url") or "") if perf else ""
    document = perf is not None and match(perf)
    har = build_har(reversed(requests), bodies, title=title or f"tab {tab_id}", perf=perf, document=document)
    # A page echoes what was typed into it, keystroke by keystroke: as in capture reads, no secret Tabpilot
    # typed (nor its beginnings) reaches the file.
    har = scrubbing.scrub(har, ctx.engine.known_secrets, prefixes=True)
    data = json.dumps(har, ensure_ascii=False, indent=1).encode("utf-8")
    path = write_artifact(ctx, a.path, data, kind="har", suffix="har")
    entries = har["log"]["entries"]
    return {
        "path": str(path),
        "entries": len(entries),
        "bodies": sum(1 for e in entries if "text" in e["response"]["content"] or "postData" in e["request"]),
        "size_bytes": len(data),
        "bodies_captured": captured,
    }


COMMANDS: list[Command[Any]] = [
    Command(
        "generate",
        "har",
        "read",
        "captured network as a HAR file",
        _har,
        HarArgs,
        returns=Har,
        notes="HAR 1.2 (opens in Chrome DevTools' Network panel) of the tab's current page: its document, its "
        "fetch/XHR calls and the resources it loaded since its navigation (the last 500; earlier pages of the tab "
        "are left out). Requests a configure mock_route/block_urls route answered carry `_mocked`/`_blocked` and "
        "`_route` (a blocked one: status 0 and `_error`). Bodies only while the "
        "person has 'Network bodies' on (`bodies_captured`); sensitive headers, cookies and secret values are "
        "never in it. Written under the home's artifacts folder.",
        example={"path": "checkout.har"},
        example_result={
            "path": "/home/me/.local/share/tabpilot/artifacts/checkout.har",
            "entries": 23,
            "bodies": 0,
            "size_bytes": 18230,
            "bodies_captured": False,
        },
        ops=("tabs.resolve", "page.performance", "capture.flush"),
    ),
]
