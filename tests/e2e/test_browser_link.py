"""The link to the browser survives the browser: a killed managed browser is relaunched, and the
user's own browser reconnects when it is started again."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from tabpilot.browser.discover import find_browser
from tabpilot.browser.managed import QUIET_ARGS
from tabpilot.engine.errors import TabpilotError
from tabpilot.resources import extension_dir, extension_id
from tests.conftest import AppFactory
from tests.support.waiting import until

pytestmark = [pytest.mark.e2e]


def browser_pids(profile: Path) -> list[int]:
    """Main Chromium processes (not renderers or helpers) running on `profile`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            # Chromium may rewrite its argv into one string, so look at the whole command line.
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if f"--user-data-dir={profile} ".encode() in cmdline + b" " and b"--type=" not in cmdline:
            found.append(int(proc.name))
    return found


async def test_a_killed_managed_browser_is_noticed_reported_and_relaunched(make_app: AppFactory) -> None:
    app = await make_app(browser="managed", headless=True)
    await until(lambda: app.link.connected, timeout=30, what="the managed browser to connect")
    first_instance = app.link.info()["instance_id"]
    [pid] = browser_pids(app.paths.browser_profile)

    os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    await until(lambda: not app.link.connected, timeout=5, what="the app to notice the browser is gone")
    assert time.monotonic() - killed < 5
    with pytest.raises(TabpilotError) as err:
        await app.engine.call("observe", {"what": "tabs"})
    assert err.value.code == "extension_not_connected"
    pilot = await app.engine.call("observe", {"what": "pilot"})
    assert pilot["extension_connected"] is False

    await until(lambda: app.link.connected, timeout=30, what="the relaunched browser to reconnect")
    assert app.link.info()["instance_id"] == first_instance, "same persistent profile, same extension instance"
    assert browser_pids(app.paths.browser_profile) != [pid]
    tabs = await app.engine.call("observe", {"what": "tabs"})
    assert len(tabs["tabs"]) >= 1


async def test_your_own_browser_connects_from_the_popup_and_reconnects_after_a_restart(
    make_app: AppFactory, tmp_path: Path
) -> None:
    """The user's Chrome with the unpacked extension: no managed.json, the port set in the popup."""
    app = await make_app(browser="none")
    port = app.bridge.port  # type: ignore[union-attr]
    profile = tmp_path / "my-chrome"
    ext = str(extension_dir())
    args = [f"--disable-extensions-except={ext}", f"--load-extension={ext}", *QUIET_ARGS]
    async with async_playwright() as pw:

        async def launch():  # type: ignore[no-untyped-def]
            return await pw.chromium.launch_persistent_context(
                str(profile), executable_path=find_browser(), headless=True, args=args
            )

        browser = await launch()
        popup = await browser.new_page()
        await popup.goto(f"chrome-extension://{extension_id()}/popup/popup.html")
        await popup.fill("#port", str(port))
        await popup.click("#portform button")
        await until(lambda: app.link.connected, timeout=15, what="the user's browser to connect")
        assert app.link.info()["managed"] is False
        await until(lambda: _shows(popup, "#link", "connected"), timeout=5, what="the popup to show the link")
        assert await popup.locator("#pilot").inner_text() == "off"
        app.set_pilot(True, remember=False)
        await until(lambda: _shows(popup, "#pilot", "ON"), timeout=5, what="the popup to show the pilot ON")

        [pid] = browser_pids(profile)
        os.kill(pid, signal.SIGKILL)
        await until(lambda: not app.link.connected, timeout=5, what="the app to notice the browser quit")
        with contextlib.suppress(Exception):  # already dead
            await browser.close()

        browser = await launch()
        await until(lambda: app.link.connected, timeout=15, what="the restarted browser to reconnect by itself")
        await browser.close()
    await until(lambda: not app.link.connected, timeout=5)


async def _shows(page: Any, selector: str, text: str) -> bool:
    return bool(await page.locator(selector).inner_text() == text)
