"""`configure mock_route | block_urls | list_routes | clear_routes`: a fake backend for one tab.

A route answers the tab's requests whose URL it matches — with a made-up response (mock_route: status,
body, headers, after a delay) or a failure as an ad blocker's (block_urls) — before they reach the
network. The extension does it with CDP's Fetch domain (extension/background/routes.js) as standing
state of the tab (overrides.js): routes last across navigations in the tab until clear_routes, or until
the person presses Cancel on Chrome's debugging bar. The newest matching route answers.

A URL pattern is a glob as Playwright's (`**/api/items*`: `*` stops at `/`, `**` does not, `{a,b}`
either; the whole URL must match; a glob starting with `/` is a path on any site) or a regular
expression written `/…/flags` (matching anywhere in the URL). `observe network` marks what a route
answered `mocked: true` or `blocked: true`, with the route's pattern.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from tabpilot.engine.browser_state.emulation import check_headers
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import TabArgs, arg
from tabpilot.engine.contract.commands import ApprovalScope, Command
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.safety import js_regex

MAX_PATTERN = 2048
MAX_BODY = 1024 * 1024
MAX_PATTERNS = 50
MAX_DELAY_MS = 60_000
URL_DOC = "glob (**/api/items*) or /regex/"
_GATE: dict[str, Any] = {"pilot_gated": True}


@dataclass(frozen=True, kw_only=True)
class MockRouteArgs(TabArgs):
    url: str = arg(URL_DOC)
    status: int = arg("default 200", default=200, minimum=100, maximum=599)
    body: str | None = arg("response text; JSON text gets application/json", default=None)
    headers: dict[str, Any] | None = arg("response headers", default=None)
    delay_ms: int = arg("answer after this long", default=0, minimum=0, maximum=MAX_DELAY_MS)


@dataclass(frozen=True, kw_only=True)
class BlockUrlsArgs(TabArgs):
    patterns: list[str] = arg("globs or /regexes/: matching requests fail (BlockedByClient)")


class RouteShown(TypedDict):
    id: str
    url: str
    """The route's pattern."""
    action: Literal["mock", "block"]
    hits: int
    """Requests it answered so far."""
    status: NotRequired[int]
    body_size: NotRequired[int]
    header_names: NotRequired[list[str]]
    delay_ms: NotRequired[int]


class RoutesAdded(TypedDict):
    added: list[RouteShown]
    routes: list[RouteShown]
    """Every route of the tab now, oldest first (the newest matching one answers)."""


class RoutesListed(TypedDict):
    routes: list[RouteShown]
    headers: list[str]
    """Names of the extra headers set_headers added (never their values)."""


class RoutesCleared(TypedDict):
    cleared: int


def check_pattern(pattern: str, param: str) -> str:
    if not pattern.strip() or len(pattern) > MAX_PATTERN:
        raise TabpilotError(
            "invalid_params", f"'{param}' must be a URL glob or /regex/ of 1-{MAX_PATTERN} characters.", param=param
        )
    js_regex.check_pattern(pattern, param, bare_is_regex=False)
    return pattern


INERT_TYPES = frozenset(
    {
        "application/json",
        "text/plain",
        "text/csv",
        "application/octet-stream",
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/webp",
        "image/avif",
        "font/woff",
        "font/woff2",
    }
)
"""Content types a browser never runs as script nor renders as a document that could (image/svg+xml and
text/html can; so can anything a <script> element takes when the type is sniffed). The extension serves every
mock with `X-Content-Type-Options: nosniff` unless the mock sets that header, so these stay inert."""


_HTTP_SPACE = " \t"
"""What a browser trims around a header value; Python's str.strip() also takes \x1f, \v, NBSP and the like,
so `nosniff\x1f` read as "nosniff" here while Chrome saw no nosniff and ran a text/plain script."""


def _plain_ascii(value: str) -> bool:
    return all(ch == "\t" or " " <= ch <= "~" for ch in value)


def mock_runs_code(headers: dict[str, Any] | None) -> bool:
    """Could the page execute this mock's body? A mock that answers a document or a script is running
    JavaScript in the page, and is approved as that class: a rule for the site's network traffic does not
    cover it. Without a Content-Type the extension serves JSON or text/plain, with nosniff: inert. A value
    with anything but printable ASCII is read the browser's way or not at all: it counts as running code."""
    given = {str(k).strip(_HTTP_SPACE).lower(): str(v) for k, v in (headers or {}).items()}
    sniffing = given.get("x-content-type-options")
    if sniffing is not None and (
        not _plain_ascii(sniffing) or sniffing.strip(_HTTP_SPACE).split(",")[0].strip(_HTTP_SPACE).lower() != "nosniff"
    ):
        return True
    declared = given.get("content-type")
    if declared is None:
        return False
    if not _plain_ascii(declared):
        return True
    media = declared.split(";", 1)[0].strip(_HTTP_SPACE).lower()
    return not (media in INERT_TYPES or (media.startswith("application/") and media.endswith("+json")))


def _mock_scope(engine: Any, params: dict[str, Any], _caller: Any) -> ApprovalScope:
    step = {"type": "mock_route", **{k: v for k, v in params.items() if v is not None and k != "tab_id"}}
    headers = params.get("headers")
    runs = mock_runs_code(headers if isinstance(headers, dict) else None)
    return ApprovalScope(steps=[step], action_class="javascript" if runs else None)


async def _mock_route(ctx: CommandContext, a: MockRouteArgs) -> RoutesAdded:
    body = a.body or ""
    if len(body.encode()) > MAX_BODY:
        raise TabpilotError("invalid_params", f"'body' is larger than {MAX_BODY // 1024} KB.", param="body")
    route: dict[str, Any] = {
        "url": check_pattern(a.url, "url"),
        "action": "mock",
        "status": a.status,
        "body": body,
        "headers": check_headers(a.headers or {}),
        "delay_ms": a.delay_ms,
    }
    answer = await ctx.browser_request("network.add_routes", {"routes": [route], "tab_id": a.tab_id})
    return _added(answer)


async def _block_urls(ctx: CommandContext, a: BlockUrlsArgs) -> RoutesAdded:
    if not a.patterns or len(a.patterns) > MAX_PATTERNS:
        raise TabpilotError("invalid_params", f"'patterns' takes 1-{MAX_PATTERNS} patterns.", param="patterns")
    routes = [{"url": check_pattern(p, "patterns"), "action": "block"} for p in a.patterns]
    answer = await ctx.browser_request("network.add_routes", {"routes": routes, "tab_id": a.tab_id})
    return _added(answer)


def _added(answer: dict[str, Any]) -> RoutesAdded:
    return {"added": list(answer.get("added") or []), "routes": list(answer.get("routes") or [])}


async def _list_routes(ctx: CommandContext, a: TabArgs) -> RoutesListed:
    answer = await ctx.browser_request("network.routes", {"tab_id": a.tab_id})
    return {"routes": list(answer.get("routes") or []), "headers": list(answer.get("headers") or [])}


async def _clear_routes(ctx: CommandContext, a: TabArgs) -> RoutesCleared:
    answer = await ctx.browser_request("network.clear_routes", {"tab_id": a.tab_id})
    return {"cleared": int(answer.get("cleared") or 0)}


MOCK_EXAMPLE: dict[str, Any] = {
    "id": "r1",
    "url": "**/api/items*",
    "action": "mock",
    "hits": 0,
    "status": 200,
    "body_size": 27,
    "header_names": [],
}
BLOCK_EXAMPLE: dict[str, Any] = {"id": "r2", "url": "**/*.{png,jpg}", "action": "block", "hits": 0}

COMMANDS: list[Command[Any]] = [
    Command(
        "configure",
        "mock_route",
        "mutate",
        "answer the tab's matching requests with a made-up response",
        _mock_route,
        MockRouteArgs,
        returns=RoutesAdded,
        notes="The url is a glob as Playwright's (`**` crosses `/`, `*` does not, `{a,b}`; a leading `/` is a "
        "path on any site) or `/regex/flags`. JSON text as body is served as application/json unless headers "
        "say otherwise; a cross-origin mock passes the page's CORS checks. Routes last across navigations in "
        "the tab until clear_routes; the newest match answers; observe network marks answered requests "
        "mocked:true. A mock is served with X-Content-Type-Options: nosniff unless it sets that header; one whose "
        "Content-Type the page could run or render as a document (text/html, JavaScript, SVG, XML, CSS, ...) "
        "is approved as running JavaScript, not as network.",
        example={"url": "**/api/items*", "body": json.dumps({"items": ["mocked"]})},
        example_result={"added": [MOCK_EXAMPLE], "routes": [MOCK_EXAMPLE]},
        ops=("network.add_routes",),
        approval="network",
        approval_steps=_mock_scope,
        **_GATE,
    ),
    Command(
        "configure",
        "block_urls",
        "mutate",
        "make the tab's matching requests fail (as an ad blocker)",
        _block_urls,
        BlockUrlsArgs,
        returns=RoutesAdded,
        notes="Patterns as mock_route's url. A blocked request fails with net::ERR_BLOCKED_BY_CLIENT; observe "
        "network marks it blocked:true.",
        example={"patterns": ["**/*.{png,jpg}"]},
        example_result={"added": [BLOCK_EXAMPLE], "routes": [BLOCK_EXAMPLE]},
        ops=("network.add_routes",),
        approval="network",
        **_GATE,
    ),
    Command(
        "configure",
        "list_routes",
        "read",
        "the tab's mocked and blocked routes, and its extra header names",
        _list_routes,
        TabArgs,
        returns=RoutesListed,
        example={},
        example_result={"routes": [MOCK_EXAMPLE, BLOCK_EXAMPLE], "headers": ["Authorization"]},
        ops=("network.routes",),
    ),
    Command(
        "configure",
        "clear_routes",
        "config",
        "remove every route of the tab (its requests reach the network again)",
        _clear_routes,
        TabArgs,
        returns=RoutesCleared,
        notes="Undoes mock_route and block_urls only (set_headers {} removes extra headers). Needs the pilot, "
        "not an approval: it gives the page its real backend back.",
        example={},
        example_result={"cleared": 2},
        ops=("network.clear_routes",),
        **_GATE,
    ),
]
