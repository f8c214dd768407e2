"""The person's own browser, without Playwright: Chromium started as a plain program with the unpacked
extension loaded (as a person loads it by hand). Nothing else attaches to its pages — no Playwright, whose
own CDP session would answer (or hold) JavaScript dialogs — so what a page's dialog meets is exactly what
it meets in the person's Chrome: the browser and the Tabpilot extension.

The test still has to be the person's hands in the extension's popup (type the port and the pairing
code, press Resume). For that alone it speaks raw CDP over the browser's DevTools socket, attached to the
popup's own target and no other (Target.attachToTarget with `flatten`; no auto-attach to other targets).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path
from typing import Any

import aiohttp

from tabpilot.browser.discover import find_browser
from tabpilot.browser.managed import QUIET_ARGS
from tabpilot.resources import extension_dir, extension_id
from tests.support.waiting import until


class PlainChromium:
    def __init__(self, profile: Path, *, headless: bool = True) -> None:
        self.profile = profile
        self.headless = headless
        """False: a window on $DISPLAY (an X server such as Xvfb), as the person's Chrome has."""
        self.process: asyncio.subprocess.Process | None = None
        self._http: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def start(self) -> None:
        ext = str(extension_dir())
        self.profile.mkdir(parents=True, exist_ok=True)
        args = [
            find_browser(),
            *(["--headless=new"] if self.headless else []),
            "--no-sandbox",
            f"--user-data-dir={self.profile}",
            "--remote-debugging-port=0",
            f"--disable-extensions-except={ext}",
            f"--load-extension={ext}",
            *QUIET_ARGS,
            "about:blank",
        ]
        self.process = await asyncio.create_subprocess_exec(
            *args, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
        )
        port_file = self.profile / "DevToolsActivePort"
        await until(port_file.exists, timeout=30, what="Chromium's DevTools port")
        lines = await until(lambda: port_file.read_text().split(), timeout=5, what="the port file's lines")
        self._http = aiohttp.ClientSession()
        self._ws = await self._http.ws_connect(f"ws://127.0.0.1:{lines[0]}{lines[1]}", max_msg_size=0)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self._ws is not None
        async for frame in self._ws:
            msg = json.loads(frame.data)
            future = self._pending.pop(msg.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(msg)

    async def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        assert self._ws is not None
        msg_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        msg: dict[str, Any] = {"id": msg_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        await self._ws.send_str(json.dumps(msg))
        reply = await asyncio.wait_for(future, 10)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    async def open_tab(self, url: str) -> str:
        """A new tab (the person opens it); returns its target id. Nothing attaches to it."""
        return str((await self.send("Target.createTarget", {"url": url}))["targetId"])

    async def popup(self) -> Popup:
        """The extension's popup, opened in a tab of its own, with a CDP session to it alone."""
        target = await self.open_tab(f"chrome-extension://{extension_id()}/popup/popup.html")
        session = (await self.send("Target.attachToTarget", {"targetId": target, "flatten": True}))["sessionId"]
        popup = Popup(self, str(session))
        await until(lambda: popup.ready(), timeout=10, what="the popup to load")
        return popup

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self._ws is not None:
            await self._ws.close()
        if self._http is not None:
            await self._http.close()
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), 10)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


class Popup:
    """The person at the popup: reads what it shows, types and clicks (page script, in the popup only)."""

    def __init__(self, browser: PlainChromium, session: str) -> None:
        self.browser = browser
        self.session = session

    async def js(self, expression: str) -> Any:
        result = await self.browser.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, self.session
        )
        return result["result"].get("value")

    async def ready(self) -> bool:
        return bool(await self.js("document.readyState === 'complete' && !!document.querySelector('#link')"))

    async def text(self, selector: str) -> str:
        return str(await self.js(f"document.querySelector({json.dumps(selector)})?.innerText ?? ''"))

    async def submit(self, form: str, field: str, value: str) -> None:
        await self.js(
            f"(() => {{ const f = document.querySelector({json.dumps(field)}); f.value = {json.dumps(value)}; "
            f"document.querySelector({json.dumps(form)}).requestSubmit(); }})()"
        )
