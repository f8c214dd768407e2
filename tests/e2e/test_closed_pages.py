"""Reads on a tab the browser keeps closed to extensions — a blank tab, a data: page, the browser's own
error page after a load that failed — answer the page as empty where that is what it is, or
`not_supported` with a sentence saying why and what to do; never `internal`. A navigation that fails on
the network is `navigation_failed`, and the tab stays usable after it."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

# Every read that goes into the page, with the least each needs.
READS: list[tuple[str, dict[str, Any]]] = [
    ("observe", {"what": "page"}),
    ("observe", {"what": "dom", "selector": "body"}),
    ("observe", {"what": "text"}),
    ("observe", {"what": "text", "selector": "main"}),
    ("observe", {"what": "html"}),
    ("observe", {"what": "links"}),
    ("observe", {"what": "forms"}),
    ("observe", {"what": "markdown"}),
    ("observe", {"what": "structured_data"}),
    ("observe", {"what": "media"}),
    ("observe", {"what": "styles", "selector": "body"}),
    ("observe", {"what": "across_tabs", "read": "text"}),
    ("observe", {"what": "a11y_audit"}),
    ("observe", {"what": "snapshot"}),
    ("observe", {"what": "assert", "checks": [{"type": "visible", "selector": "body"}]}),
    ("observe", {"what": "injection_check"}),
    ("observe", {"what": "performance"}),
    ("generate", {"type": "screenshot"}),
    ("generate", {"type": "archive"}),
]

# What an empty page reads as, per whole-page read.
EMPTY = {
    "text": {"text": ""},
    "html": {"html": ""},
    "links": {"links": [], "count": 0},
    "forms": {"forms": [], "count": 0},
    "markdown": {"markdown": ""},
    "media": {"images": [], "video": [], "audio": [], "count": 0},
    "structured_data": {"json_ld": [], "open_graph": {}, "meta": {}},
}


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def showing(app: App, tab: Any, url: str) -> None:
    await tab.goto(url)

    async def there() -> bool:
        return bool((await app.link.request("tabs.resolve", {}, timeout_s=5))["url"] == url)

    await until(there, timeout=10, what=f"commands to go to the tab showing {url}")


async def read_all(mcp: StdioMcp) -> dict[str, tuple[bool, dict[str, Any]]]:
    answers: dict[str, tuple[bool, dict[str, Any]]] = {}
    for tool, args in READS:
        result = await mcp.call(tool, args)
        body = result.structured_content or {}
        name = f"{tool} {args.get('what') or args.get('type')}{' ' + args['selector'] if 'selector' in args else ''}"
        assert body.get("error") != "internal", f"{name}: {body}"
        if result.is_error:
            assert body["error"] == "not_supported", f"{name}: {body}"
            # A sentence a person understands, with what to do — not Chrome's words alone.
            assert "Extension error" not in body["message"], f"{name}: {body}"
            assert "avigate" in body["message"], f"{name}: {body}"
        answers[name] = (not result.is_error, body)
    return answers


async def test_reads_on_a_blank_tab_answer_an_empty_page(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await showing(e2e_app, tab, "about:blank")
    answers = await read_all(mcp)
    for what, empty in EMPTY.items():
        ok, body = answers[f"observe {what}"]
        assert ok, f"{what}: {body}"
        assert body["url"] == "about:blank"
        assert {k: body[k] for k in empty} == empty, f"{what}: {body}"
    ok, snap = answers["observe snapshot"]
    assert ok and snap["url"] == "about:blank" and snap["refs"] == 0, snap
    ok, scan = answers["observe injection_check"]
    assert ok and scan["findings"] == [], scan


async def test_reads_on_a_page_closed_to_extensions_say_so(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    url = "data:text/html,<h1>Closed</h1>"
    await showing(e2e_app, tab, url)
    answers = await read_all(mcp)
    ok, body = answers["observe text"]
    assert not ok and "keeps extensions out" in body["message"], body


async def test_a_failed_navigation_is_navigation_failed_and_the_tab_stays_usable(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    nowhere = f"http://127.0.0.1:{closed_port()}/"
    err = await mcp.error("interact", {"action": "navigate", "url": nowhere})
    assert err["error"] == "navigation_failed", err
    assert "ERR_CONNECTION_REFUSED" in err["message"] and err["url"] == nowhere

    # The tab shows the browser's error page: reads answer it as the empty page it is to an extension,
    # with its address and what happened.
    answers = await read_all(mcp)
    ok, text = answers["observe text"]
    assert ok and text["url"] == nowhere and text["text"] == "", text
    assert "did not load" in text["note"], text
    ok, page = answers["observe page"]
    assert ok and page["url"] == nowhere, page

    # And it goes on: navigate again, and read the page that loaded.
    again = await mcp.ok("interact", {"action": "navigate", "url": site.url("/second.html")})
    assert again["title"] == "Second Page"
    read = await mcp.ok("observe", {"what": "text"})
    assert read["url"] == site.url("/second.html") and read["text"]
