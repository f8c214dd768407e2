"""The popup of the real extension in Chromium, pairing the user's own browser while another browser is
connected: no dead end — the browser is paired, the popup says who is connected and what to do, and it
connects by itself once that one is gone; it names the capabilities as the tray does, each thing once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from tabpilot.browser.discover import find_browser
from tabpilot.browser.managed import QUIET_ARGS
from tabpilot.resources import extension_dir, extension_id
from tabpilot.ui.tray import CAPABILITIES
from tests.conftest import AppFactory
from tests.support.fake_extension import paired_with
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e]


async def _shows(page: Any, selector: str, text: str) -> bool:
    return bool(await page.locator(selector).inner_text() == text)


async def test_pairing_beside_a_connected_browser_waits_and_connects_and_the_popup_says_each_thing_once(
    make_app: AppFactory, tmp_path: Path
) -> None:
    app = await make_app(browser="none", mode="tray")
    assert app.bridge is not None
    ext = str(extension_dir())
    args = [f"--disable-extensions-except={ext}", f"--load-extension={ext}", *QUIET_ARGS]
    other = paired_with(app)  # stands for the managed browser, or another paired one
    await other.connect()
    await until(lambda: app.link.connected, what="the other browser")
    async with async_playwright() as pw:
        browser = await pw.chromium.launch_persistent_context(
            str(tmp_path / "my-chrome"), executable_path=find_browser(), headless=True, args=args
        )
        try:
            popup = await browser.new_page()
            await popup.goto(f"chrome-extension://{extension_id()}/popup/popup.html")
            await popup.fill("#port", str(app.bridge.port))
            await popup.click("#portform button")
            await until(lambda: _shows(popup, "#link", "not paired"), timeout=15, what="the popup to say not paired")
            body = await popup.inner_text("body")
            assert body.count("not paired") == 1, body  # the pill says it; the line below says what to do
            assert "To pair this browser with Tabpilot, type the code that Tabpilot's window" in body
            [pending] = await until(app.pairings.pending, timeout=5, what="the knock's code")
            assert pending.browser.get("os") == "Linux"

            await popup.fill("#code", pending.code)
            await popup.click("#pairform button")
            await until(lambda: _shows(popup, "#link", "waiting"), timeout=15, what="the popup to wait its turn")
            detail = await popup.inner_text("#detail")
            assert detail.startswith("Paired. Another browser (FakeChrome) is connected to Tabpilot"), detail
            assert "This browser connects by itself once that one is gone" in detail
            assert await popup.locator("#pairform").is_hidden()
            [_other, mine] = app.pairings.paired()
            assert (mine.browser, mine.os) == ("Chromium", "Linux")

            await other.close()
            await until(lambda: _shows(popup, "#link", "connected"), timeout=30, what="it to connect by itself")
            assert app.link.info()["instance_id"] == mine.instance_id
            names = [line.split("\n")[0].strip() for line in await popup.locator("#caplist li").all_inner_texts()]
            assert names == [label for _name, label, _tip in CAPABILITIES]
            body = await popup.inner_text("body")
            assert body.count("tray") == 1, body  # one line says where the pilot and capabilities are switched
            assert await popup.locator("#portform").is_hidden()  # "Port N" is said once, above
        finally:
            await browser.close()
