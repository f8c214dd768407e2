"""Issue 18: a read with the pilot off froze the whole extension. A frame pattern `*a*a…*Z` on a tab whose
iframe URL holds 40 a's backtracked in the service worker, and an assert pattern `^([\\s\\S]*e){14}QQQ$`
on a page with many e's hung its tab, so every later call timed out. Real MCP client, real extension,
real Chromium (tests/fixtures/site/long-frame.html): each hostile call gets its answer, and a normal
read right after still answers."""

from __future__ import annotations

from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.e2e.test_page_actions import open_page
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

HOSTILE_FRAME = "*a" * 18 + "*Z"
CATASTROPHIC = "^([\\s\\S]*e){14}QQQ$"


async def test_hostile_patterns_are_answered_and_the_extension_keeps_answering(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite
) -> None:
    await open_page(e2e_app, tab, site, "/long-frame.html")

    async def framed() -> bool:
        for frame in tab.frames:
            if "a" * 40 in frame.url and await frame.evaluate("document.readyState === 'complete'"):
                return True
        return False

    await until(framed, timeout=10, what="the frame with the long URL to load")

    missing = await mcp.error("observe", {"what": "text", "frame": HOSTILE_FRAME})
    assert missing["error"] == "element_not_found", missing
    found = await mcp.ok("observe", {"what": "text", "frame": "*a" * 18 + "*"})
    assert "Inner frame (long)" in found["text"]

    checks = [{"type": "text", "selector": "#many", "pattern": CATASTROPHIC}]
    asserted = await mcp.ok("observe", {"what": "assert", "checks": checks})
    assert asserted["passed"] is False and asserted["results"][0]["reason"].startswith("the text does not match")
    matching = [{"type": "text", "selector": "#many", "pattern": "^([\\s\\S]*e){14}"}]
    assert (await mcp.ok("observe", {"what": "assert", "checks": matching}))["passed"] is True

    refused = await mcp.error("observe", {"what": "assert", "checks": [{"type": "title", "pattern": "(?=L)Long"}]})
    assert refused["error"] == "invalid_params" and "lookahead" in refused["message"]

    # The extension and the tab still answer a normal read.
    read = await mcp.ok("observe", {"what": "text", "selector": "h1"})
    assert read["text"].strip() == "A frame with a long address"
