"""`frame` on the reads and actions that take a selector but had none: `interact wait_for` and `interact
download`, inside a cross-origin frame (tests/fixtures/site/framed-media.html at 127.0.0.1 holding
frame-media.html from localhost). Real MCP client, real extension, real Chromium: the receipt the test
waits for shows only after a trusted click in the frame, and the report a download fetches is served
only with the frame's site's HttpOnly cookie, so a wait that looked in the wrong document or a download
without the cookie fails."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.e2e.test_page_actions import open_page
from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]


async def act(mcp: StdioMcp, action: str, **params: Any) -> dict[str, Any]:
    return await mcp.ok("interact", {"action": action, **params})


async def player_page(e2e_app: App, tab: Any, site: FixtureSite) -> Any:
    """framed-media.html with its cross-origin player frame loaded: that frame."""
    await open_page(e2e_app, tab, site, "/framed-media.html")

    def frame() -> Any:
        return next((f for f in tab.frames if f.url.startswith("http://localhost:")), None)

    async def ready() -> bool:
        f = frame()
        return f is not None and bool(await f.evaluate("document.readyState === 'complete' && 'prepared' in window"))

    await until(ready, timeout=10, what="the player frame to load")
    return frame()


async def test_wait_for_a_text_and_a_selector_inside_the_cross_origin_frame(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    player = await player_page(e2e_app, tab, site)
    await act(mcp, "click", selector="#prepare", frame="media")
    assert await player.evaluate("window.prepared") == 1  # a trusted click reached the frame
    waited = await act(mcp, "wait_for", text="Receipt ready", frame="media", timeout_ms=5000)
    assert waited["condition"] == "text 'Receipt ready' in frame 'media'"
    assert await player.evaluate("!document.getElementById('receipt').hidden")
    shown = await act(mcp, "wait_for", selector="#receipt", frame="#player", timeout_ms=5000)
    assert shown["condition"].endswith("#receipt visible")
    # The receipt is visible now: waiting in the frame for it to hide times out.
    stays = await mcp.error(
        "interact",
        {"action": "wait_for", "selector": "#receipt", "state": "hidden", "frame": "media", "timeout_ms": 300},
    )
    assert stays["error"] == "timeout"


async def test_wait_for_looks_only_in_the_frame_it_names(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    await player_page(e2e_app, tab, site)
    # The top page has no "Prepare receipt" and no #prepare: only the frame does.
    top = await mcp.error("interact", {"action": "wait_for", "text": "Prepare receipt", "timeout_ms": 300})
    assert top["error"] == "timeout"
    found = await act(mcp, "wait_for", text="Prepare receipt", frame="localhost:*/frame-media.html", timeout_ms=3000)
    assert "in frame" in found["condition"]
    hidden = await mcp.error(
        "interact",
        {"action": "wait_for", "selector": "#receipt", "state": "visible", "frame": "media", "timeout_ms": 300},
    )
    assert hidden["error"] == "timeout"  # nobody clicked Prepare in this page: the receipt stays hidden
    url = await mcp.error("interact", {"action": "wait_for", "url": "**/done", "frame": "media"})
    assert url["error"] == "invalid_params" and "frame" in url["message"]
    missing = await mcp.error("interact", {"action": "wait_for", "text": "x", "frame": "no-such-frame"})
    assert missing["error"] == "element_not_found" and "frame" in missing["message"]


async def test_download_a_media_element_and_a_relative_url_inside_the_cross_origin_frame(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    assert e2e_app.managed is not None
    await e2e_app.managed.context.clear_cookies()
    # The report is served only with the frame's site's HttpOnly cookie (set here on localhost alone).
    await tab.goto(f"http://localhost:{site.port}/download-login")
    await player_page(e2e_app, tab, site)

    clip = await act(mcp, "download", selector="#clip", frame="media")
    assert clip["url"] == f"http://localhost:{site.port}/files/report.txt"
    assert Path(clip["path"]).read_bytes() == FixtureSite.REPORT
    assert Path(clip["path"]).parent == e2e_app.paths.downloads_dir

    relative = await act(mcp, "download", url="/files/report.txt", frame="media")
    assert relative["url"] == clip["url"] and Path(relative["path"]).read_bytes() == FixtureSite.REPORT
    # Without `frame` the same relative URL is the top page's site's, which has no cookie.
    top = await mcp.error("interact", {"action": "download", "url": "/files/report.txt"})
    assert top["error"] == "navigation_failed" and "403" in top["message"]
    no_clip = await mcp.error("interact", {"action": "download", "selector": "#clip", "timeout_ms": 300})
    assert no_clip["error"] in ("element_not_found", "timeout")  # the clip is only in the frame


async def test_visual_diff_of_an_element_inside_the_cross_origin_frame(
    mcp: StdioMcp, e2e_app: App, tab: Any, site: FixtureSite, pilot_on: None
) -> None:
    player = await player_page(e2e_app, tab, site)
    name = f"framed-{uuid.uuid4().hex[:6]}"
    diff = {"type": "visual_diff", "name": name, "selector": "#prepare", "frame": "media"}
    first = await mcp.ok("generate", diff)
    assert first["baseline_created"] is True
    # The capture is the frame's button, not the top page's viewport: its size in device pixels.
    box = await player.evaluate("(() => { const r = prepare.getBoundingClientRect(); return [r.width, r.height]; })()")
    scale = await tab.evaluate("devicePixelRatio")
    assert abs(first["width"] - box[0] * scale) <= 2 and abs(first["height"] - box[1] * scale) <= 2
    assert (await mcp.ok("generate", diff))["match"] is True
    await player.evaluate("document.getElementById('prepare').style.background = 'rgb(198, 40, 40)'")
    changed = await mcp.ok("generate", diff)
    assert changed["match"] is False and changed["diff_pixels"] > 0
    no_selector = await mcp.error("generate", {"type": "visual_diff", "name": name, "frame": "media"})
    assert no_selector["error"] == "invalid_params" and no_selector["param"] == "frame"
