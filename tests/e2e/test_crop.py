"""tab.crop, the picture of an approval's target: taken only when the tab, its page and the element stayed
put from reading the element's box to the capture; otherwise no picture rather than one of something else.
Real Chromium, real extension."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tabpilot.app import App
from tests.e2e.conftest import E2E
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e, E2E]

PNG = b"\x89PNG\r\n\x1a\n"


async def crop(app: App, tab_id: int, selector: str) -> dict[str, Any]:
    return await app.link.request("tab.crop", {"tab_id": tab_id, "selector": selector}, timeout_s=15)


async def test_a_still_element_is_pictured_and_one_the_page_scrolls_away_meanwhile_is_not(
    tab: Any, e2e_app: App, site: FixtureSite
) -> None:
    await tab.goto(site.url("/crop.html"))
    tab_id = (await e2e_app.link.request("tabs.resolve", {}, timeout_s=5))["tab_id"]

    still = await crop(e2e_app, tab_id, "#still")
    assert still["found"] is True and still["on_screen"] is True, {k: v for k, v in still.items() if k != "data"}
    assert base64.b64decode(still["data"]).startswith(PNG) and still["width"] > 0 and still["height"] > 0
    assert still["box"]["width"] > 0 and still["box"]["height"] > 0

    # From now on the page scrolls on every frame. Chrome's capture quota makes each capture wait about
    # half a second after the previous one (the crop above), so many frames — many scrolls — pass between
    # the box being read and the picture being taken, in both tries.
    await tab.evaluate("window.scroll_on_every_frame()")
    await until(lambda: tab.evaluate("window.frames_scrolled > 2"), what="the page to scroll on its own")
    moving = await crop(e2e_app, tab_id, "#tall")
    assert moving == {"found": True, "on_screen": False}, {k: v for k, v in moving.items() if k != "data"}
    box = await tab.evaluate(
        "(() => { const r = document.querySelector('#tall').getBoundingClientRect();"
        " return { bottom: r.bottom, top: r.top, vh: innerHeight }; })()"
    )
    assert box["top"] < box["vh"] and box["bottom"] > 0, "it was on screen all along: the re-check withheld it"
    assert await tab.evaluate("window.frames_scrolled") > 2

    assert await crop(e2e_app, tab_id, "#nowhere") == {"found": False}
