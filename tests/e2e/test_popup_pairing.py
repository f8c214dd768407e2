"""The popup of the real extension in Chromium, pairing the user's own browser while Tabpilot's managed
browser is connected: the two work side by side — `observe tabs` says which browser each tab is in and a
command goes to the browser whose tab it names; when the app has all the browsers it takes, the browser
is paired even so, the popup says who is connected and what to do, and it connects by itself once it
can. The popup names the capabilities as the tray does, and says each thing once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from tabpilot.browser.discover import find_browser
from tabpilot.browser.managed import QUIET_ARGS
from tabpilot.engine.safety.capabilities import CAPABILITIES
from tabpilot.resources import extension_dir, extension_id
from tests.conftest import AppFactory
from tests.support.managed import managed_up
from tests.support.site import FixtureSite
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e]


async def _shows(page: Any, selector: str, text: str) -> bool:
    return bool(await page.locator(selector).inner_text() == text)


async def test_your_own_browser_pairs_and_works_beside_the_managed_one(make_app: AppFactory, tmp_path: Path) -> None:
    site = FixtureSite()
    await site.start()
    app = await make_app(browser="managed", headless=True, mode="tray")
    assert app.bridge is not None
    await until(lambda: managed_up(app), timeout=30, what="the managed browser")
    app.link.max_browsers = 1  # first: the app has all the browsers it takes
    ext = str(extension_dir())
    args = [f"--disable-extensions-except={ext}", f"--load-extension={ext}", *QUIET_ARGS]
    async with async_playwright() as pw:
        browser = await pw.chromium.launch_persistent_context(
            str(tmp_path / "my-chrome"), executable_path=find_browser(), headless=True, args=args
        )
        try:
            popup = await browser.new_page()
            await popup.goto(f"chrome-extension://{extension_id()}/popup/popup.html")
            await popup.fill("#port", str(app.bridge.port))
            await popup.click("#portform button")
            # Read as one look: the popup retries its link now and then, and says so (connecting…) meanwhile.
            body = await until(lambda: _unpaired_look(popup), timeout=15, what="the popup to say not paired")
            assert body.count("not paired") == 1, body  # the pill says it; the line below says what to do
            assert "To pair this browser with Tabpilot, type the code that Tabpilot's window" in body
            [pending] = await until(app.pairings.pending, timeout=5, what="the knock's code")
            assert pending.browser.get("os") == "Linux"

            await popup.fill("#code", pending.code)
            await popup.click("#pairform button")
            await until(lambda: _shows(popup, "#link", "waiting"), timeout=15, what="the popup to wait its turn")
            detail = await popup.inner_text("#detail")
            assert detail.startswith("Paired. Tabpilot has one browser connected (managed browser)"), detail
            assert "close the managed browser's window" in detail
            assert await popup.locator("#pairform").is_hidden()
            [mine] = app.pairings.paired()
            assert (mine.browser, mine.os, mine.name) == ("Chromium", "Linux", "Chromium on Linux")

            app.link.max_browsers = 4  # room again: it connects by itself, beside the managed browser
            await until(lambda: _shows(popup, "#link", "connected"), timeout=30, what="it to connect by itself")
            assert len(app.link.hellos()) == 2
            names = [line.split("\n")[0].strip() for line in await popup.locator("#caplist li").all_inner_texts()]
            assert names == [c.label for c in CAPABILITIES]
            body = await popup.inner_text("body")
            assert body.count("tray") == 1, body  # one line says where the pilot and capabilities are switched
            assert await popup.locator("#portform").is_hidden()  # "Port N" is said once, above

            # Both browsers' tabs, each saying its browser; a command goes to the browser of its tab.
            tabs = (await app.engine.call("observe", {"what": "tabs"}))["tabs"]
            by_browser = {t["browser"] for t in tabs}
            assert by_browser == {"managed browser", "Chromium on Linux"}, tabs
            [popup_tab] = [t for t in tabs if t["browser"] == "Chromium on Linux" and "popup.html" in t["url"]]
            app.set_pilot(True, remember=False)
            mine_page = await browser.new_page()
            await mine_page.goto(site.url("/actions.html?mine"))
            tabs = (await app.engine.call("observe", {"what": "tabs"}))["tabs"]
            [blank] = [t for t in tabs if t["url"].endswith("?mine")]
            assert blank["browser"] == "Chromium on Linux"
            assert blank["tab_id"] != popup_tab["tab_id"]
            done = await app.engine.call(
                "interact", {"action": "navigate", "url": site.url("/a11y.html"), "tab_id": blank["tab_id"]}
            )
            assert done["status"] == "complete"
            # In the person's own browser, not the managed one (Playwright hears of it on its own connection,
            # which can trail the extension's answer).
            await until(
                lambda: mine_page.url == site.url("/a11y.html"), timeout=5, what="the person's tab on the new page"
            )
            managed_urls = [p.url for p in app.managed.context.pages]  # type: ignore[union-attr]
            assert site.url("/a11y.html") not in managed_urls
        finally:
            await browser.close()
            await site.stop()


async def _unpaired_look(popup: Any) -> str | None:
    """The popup's whole text while its link says "not paired" (None while it says anything else)."""
    body = str(await popup.inner_text("body"))
    hint = "To pair this browser with Tabpilot, type the code that Tabpilot's window"  # once the app has the knock
    return body if "not paired" in body and hint in body else None
