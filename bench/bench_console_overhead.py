"""Console capture's cost per console.log in a browser as a person runs it: no DevTools client attached.

Playwright keeps a DevTools client on every page of the browsers it launches, and with one attached
any console wrapper becomes much dearer (bench_capture measures that case too). Here Chromium runs as
a plain process with the extension loaded, the page times its own loop, and the figure is read with
an ordinary DOM query: nothing attaches. Twice: with the extension's capture, and with a copy of the
extension whose capture scripts are removed.

Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_console_overhead
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path

from tests.support.site import FixtureSite
from tests.support.waiting import until

from bench.common import line
from tabpilot.app import App, AppOptions
from tabpilot.approvals import AutoApprove
from tabpilot.browser.discover import find_browser
from tabpilot.browser.managed import QUIET_ARGS, ManagedBrowser
from tabpilot.engine.errors import TabpilotError
from tabpilot.paths import Paths


async def measure(site: FixtureSite, *, capture: bool) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        app = App(Paths.resolve(Path(tmp) / "home"), AppOptions(browser="none", port=0), AutoApprove())
        await app.start()
        assert app.bridge is not None
        # The app's own managed-browser launch file, without Playwright doing the launching.
        managed = ManagedBrowser(app.paths, headless=True, port=app.bridge.port)
        folder = managed._prepare_extension()
        app.managed = managed
        if not capture:
            manifest = json.loads((folder / "manifest.json").read_text())
            manifest["content_scripts"] = [
                block for block in manifest["content_scripts"] if not any("capture/" in f for f in block["js"])
            ]
            (folder / "manifest.json").write_text(json.dumps(manifest))
        url = site.url("/bench-console.html?n=2000&runs=7")
        browser = await asyncio.create_subprocess_exec(
            find_browser() or "chromium",
            "--headless=new",
            "--no-sandbox",
            f"--user-data-dir={Path(tmp) / 'profile'}",
            f"--disable-extensions-except={folder}",
            f"--load-extension={folder}",
            *QUIET_ARGS,
            "about:blank",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            await until(lambda: app.link.connected, timeout=30, what="the extension to connect")
            # Opened through the extension once it is there: a page given on the command line sometimes
            # never loads while the unpacked extension is still being installed.
            app.set_pilot(True, remember=False)
            await app.engine.call("interact", {"action": "navigate", "url": url})

            async def result() -> float | None:
                tabs = (await app.engine.call("observe", {"what": "tabs"}))["tabs"]
                bench = [t["tab_id"] for t in tabs if "bench-console" in t["url"]]
                if not bench:
                    return None  # the browser has not opened the page yet
                query = {"what": "dom", "selector": "#result", "tab_id": bench[0]}
                try:
                    found = await app.engine.call("observe", query)
                except TabpilotError:
                    return None  # still loading
                text = found["matches"][0]["text"] if found["matches"] else "running"
                return None if text == "running" else float(text)

            value = await until(result, timeout=60, interval=0.2, what="the page's timing")
            return float(value)
        finally:
            browser.kill()
            await browser.wait()
            await app.stop()
            shutil.rmtree(folder, ignore_errors=True)


async def main() -> None:
    site = FixtureSite()
    await site.start()
    try:
        on = [await measure(site, capture=True) for _ in range(3)]
        off = [await measure(site, capture=False) for _ in range(3)]
    finally:
        await site.stop()
    on.sort()
    off.sort()
    cost_ms = (on[1] - off[1]) / 1000
    print(line("console.log with capture (median of 3 browsers)", f"{on[1]:.2f} µs", "reported"))
    print(line("console.log without capture", f"{off[1]:.2f} µs", "reported"))
    print(
        line(
            "capture's cost per console call, no DevTools attached",
            f"{cost_ms * 1000:.1f} µs",
            "≤ 100 µs",
            cost_ms <= 0.1,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
