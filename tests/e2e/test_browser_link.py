"""The link to the browser survives the browser: a killed managed browser is relaunched, and the
user's own browser reconnects when it is started again."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from playwright.async_api import async_playwright

from tabpilot.browser.discover import find_browser
from tabpilot.browser.managed import QUIET_ARGS
from tabpilot.engine.errors import TabpilotError
from tabpilot.resources import extension_dir, extension_id
from tests.conftest import AppFactory
from tests.support.managed import managed_up
from tests.support.site import FixtureSite
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
    await until(lambda: managed_up(app), timeout=30, what="the managed browser to connect")
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

    await until(lambda: managed_up(app), timeout=30, what="the relaunched browser to reconnect")
    assert app.link.info()["instance_id"] == first_instance, "same persistent profile, same extension instance"
    assert browser_pids(app.paths.browser_profile) != [pid]
    tabs = await app.engine.call("observe", {"what": "tabs"})
    assert len(tabs["tabs"]) >= 1


async def test_your_own_browser_pairs_with_a_code_and_reconnects_after_a_restart(
    make_app: AppFactory, tmp_path: Path
) -> None:
    """The user's Chrome with the unpacked extension: no managed.json; port and pairing code typed in
    the popup; paired, it reconnects by itself after a restart; revoked, it is cut off."""
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
        # unpaired: refused, and the app shows the person a code
        await until(lambda: _shows(popup, "#link", "not paired"), timeout=15, what="the popup to say not paired")
        assert not app.link.connected
        [pending] = await until(app.pairings.pending, timeout=5, what="a pairing code")
        assert await popup.locator("#pairform").is_visible()
        await popup.fill("#code", "WRONG-CODE")
        await popup.click("#pairform button")
        await until(lambda: _shows(popup, "#link", "refused"), timeout=15, what="a wrong code to be refused")
        assert not app.link.connected
        assert app.pairings.paired() == []
        await popup.fill("#code", f"{pending.code[:4]}-{pending.code[4:].lower()}")
        await popup.click("#pairform button")
        await until(lambda: app.link.connected, timeout=15, what="the user's browser to pair and connect")
        [paired] = app.pairings.paired()
        assert paired.browser == "Chromium"
        assert app.link.info()["managed"] is False
        stored = await popup.evaluate("chrome.storage.local.get(null)")
        assert "pairing" not in stored, "the token stays out of the storage that content scripts can read"
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
        assert app.link.info()["instance_id"] == paired.instance_id

        assert app.revoke_pairing(paired.pair_id)
        await until(lambda: not app.link.connected, timeout=5, what="the revoked browser to be cut off")
        assert app.pairings.paired() == []
        await browser.close()


async def test_the_extension_obeys_no_program_that_cannot_prove_it_is_the_app(
    make_app: AppFactory, tmp_path: Path
) -> None:
    """A program squatting on the app's port while the app is away gets the extension's hello and
    nothing else: no command runs, however it words its frames."""
    app = await make_app(browser="managed", headless=True)
    await until(lambda: managed_up(app), timeout=30, what="the managed browser to connect")
    context = app.managed.context  # type: ignore[union-attr]
    page = await context.new_page()
    await page.goto("about:blank")
    await page.evaluate("document.title = 'untouched'")

    seen: list[dict[str, object]] = []

    async def squatter(request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for frame in ws:
            msg = json.loads(frame.data)
            seen.append(msg)
            if msg["type"] == "hello":
                await ws.send_json({"type": "challenge", "server_nonce": "0" * 32, "app_proofs": ["f" * 64]})
                await ws.send_json(
                    {"type": "welcome", "protocol": 2, "app_version": "x", "state": {"ai_web_pilot": True}}
                )
                await ws.send_json(
                    {
                        "type": "command",
                        "id": "m1",
                        "op": "js.execute",
                        "params": {"script": "document.title='pwned'"},
                        "timeout_ms": 2000,
                    }
                )
        return ws

    runner = web.AppRunner(web.Application())
    runner.app.router.add_get("/ws", squatter)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    squat_port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    # The extension now finds the squatter where it looks for the app (it reads its launch file anew
    # at each connect), and the app drops the link.
    launch = app.paths.managed_extension / "managed.json"
    launch.write_text(json.dumps({**json.loads(launch.read_text()), "port": squat_port}))
    await app.link.close("test: the app goes away")
    try:
        await until(lambda: any(m["type"] == "hello" for m in seen), timeout=20, what="the extension to knock")
        hello = next(m for m in seen if m["type"] == "hello")
        assert hello["auth"] == "managed"
        assert "managed_nonce" not in hello and "nonce" not in json.dumps(hello).replace("client_nonce", "")
        await until(
            lambda: len([m for m in seen if m["type"] == "hello"]) >= 2,
            timeout=30,
            what="the extension to give up on the squatter and knock again",
        )
        assert [m["type"] for m in seen if m["type"] not in ("hello",)] == [], seen
        assert await page.title() == "untouched"
    finally:
        await runner.cleanup()


async def _shows(page: Any, selector: str, text: str) -> bool:
    return bool(await page.locator(selector).inner_text() == text)


async def test_losing_the_extension_mid_workflow_keeps_the_data_of_completed_steps(make_app: AppFactory) -> None:
    site = FixtureSite()
    await site.start()
    try:
        app = await make_app(browser="managed", headless=True, pilot=True)
        await until(lambda: managed_up(app), timeout=30, what="the managed browser to connect")
        app.managed.relaunch = False  # type: ignore[union-attr]
        page = await app.managed.context.new_page()  # type: ignore[union-attr]
        await page.goto(site.url("/table?page=1"))
        await page.bring_to_front()
        steps = [
            {"type": "extract", "selector": "#rows tr", "schema": {"n": "td.n | number"}},
            {"type": "delay", "ms": 5000},
            {"type": "extract", "selector": "#rows tr", "schema": {"n": "td.n | number"}},
        ]
        run = asyncio.create_task(
            app.engine.call(
                "interact", {"action": "scrape", "operation": "workflow", "steps": steps, "step_delay_ms": 0}
            )
        )
        await until(
            lambda: any(j.steps_completed >= 1 for j in app.engine.jobs.running()), timeout=15, what="step 1 done"
        )
        [pid] = browser_pids(app.paths.browser_profile)
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(TabpilotError) as err:
            await run
        assert err.value.code == "extension_not_connected"
        assert err.value.details["data"] == [{"n": n} for n in range(1, 6)]
        assert err.value.details["steps_completed"] == 2  # the extract, and the delay (which needs no browser)
        assert err.value.details["failed_step"] == "2"
    finally:
        await site.stop()


async def test_an_updated_tabpilot_runs_its_new_extension_code_in_a_profile_that_ran_the_old(
    make_app: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chromium keeps an extension's service worker in the profile and runs it again while the manifest's
    version is unchanged: after an update, the managed browser must still run the new code."""

    def release(mark: str) -> Path:
        copy = tmp_path / f"extension-{mark}"
        shutil.copytree(extension_dir(), copy, ignore=shutil.ignore_patterns("node_modules"))
        worker = copy / "background" / "service_worker.js"
        worker.write_text(worker.read_text() + f'\nglobalThis.tabpilotRelease = "{mark}";\n')
        return copy

    async def running_release() -> str:
        app = await make_app(browser="managed", headless=True, root=tmp_path / "home")
        await until(lambda: managed_up(app), timeout=30, what="the managed browser to connect")
        assert app.managed is not None
        [worker] = [w for w in app.managed.context.service_workers if "service_worker.js" in w.url]
        mark = str(await worker.evaluate("globalThis.tabpilotRelease"))
        await app.stop()
        return mark

    monkeypatch.setenv("TABPILOT_EXTENSION_DIR", str(release("old")))
    assert await running_release() == "old"
    monkeypatch.setenv("TABPILOT_EXTENSION_DIR", str(release("new")))
    assert await running_release() == "new"
