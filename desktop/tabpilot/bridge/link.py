"""BrowserPort over the extension's WebSocket: requests matched to futures by id."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from tabpilot.bridge.protocol import OPS, CommandMsg, Hello, encode
from tabpilot.engine.errors import TabpilotError, coerce_code

log = logging.getLogger("tabpilot.bridge")


class Socket(Protocol):
    async def send_str(self, data: str) -> None: ...

    async def close(self, *, code: int = ..., message: bytes = ...) -> bool: ...


LinkListener = Callable[[bool], None]


class ExtensionLink:
    """The app's one live connection to a browser's extension (or none)."""

    def __init__(self) -> None:
        self._socket: Socket | None = None
        self._hello: Hello | None = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._listeners: list[LinkListener] = []
        self._event_handlers: list[Callable[[str, dict[str, Any]], Awaitable[None] | None]] = []
        self.connects = 0
        """How many times an extension has connected since the app started (reconnects show here)."""
        self.page: dict[str, Any] = {}
        """The latest tab the extension reported (url, title) — shown in approval prompts."""

    # -- BrowserPort ---------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._socket is not None

    def info(self) -> dict[str, Any]:
        if self._hello is None:
            return {}
        hello = self._hello
        return {
            **hello["browser"],
            "extension_version": hello["extension_version"],
            "extension_id": hello["extension_id"],
            "instance_id": hello["instance_id"],
            "managed": hello.get("auth") == "managed",
            "active_url": self.page.get("url"),
        }

    async def request(self, op: str, params: Mapping[str, Any], *, timeout_s: float) -> dict[str, Any]:
        if op not in OPS:
            raise ValueError(f"op {op!r} is not in the bridge protocol")
        socket = self._socket
        if socket is None:
            raise TabpilotError("extension_not_connected", "The browser extension is not connected.")
        msg_id = f"m{next(self._ids)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = future
        msg: CommandMsg = {
            "type": "command",
            "id": msg_id,
            "op": op,
            "params": dict(params),
            "timeout_ms": int(timeout_s * 1000),
        }
        try:
            await socket.send_str(encode(msg))
            return await asyncio.wait_for(future, timeout_s)
        except TimeoutError as exc:
            raise TabpilotError("timeout", f"The browser did not answer '{op}' within {timeout_s:g} s.", op=op) from exc
        except ConnectionError as exc:
            raise TabpilotError("extension_not_connected", "The connection to the browser extension was lost.") from exc
        finally:
            self._pending.pop(msg_id, None)

    # -- driven by the server -------------------------------------------------------------------

    @property
    def hello(self) -> Hello | None:
        return self._hello

    def attach(self, socket: Socket, hello: Hello) -> Socket | None:
        """Make `socket` the live link; returns the socket it replaces, which the caller closes."""
        previous = self._socket
        if previous is not None:
            self._fail_pending("The browser extension reconnected; the request was lost.")
        self._socket, self._hello = socket, hello
        self.connects += 1
        self.page = {}
        log.info(
            "extension connected: %s %s (extension %s)",
            hello["browser"].get("name", "browser"),
            hello["browser"].get("version", ""),
            hello["extension_version"],
        )
        self._notify(True)
        return previous

    def detach(self, socket: Socket) -> None:
        if socket is not self._socket:
            return
        self._socket, self._hello = None, None
        self._fail_pending("The browser extension disconnected.")
        log.info("extension disconnected")
        self._notify(False)

    async def close(self, reason: str) -> None:
        socket = self._socket
        if socket is not None:
            await socket.close(code=4001, message=reason.encode())

    def _fail_pending(self, message: str) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(TabpilotError("extension_not_connected", message))
        self._pending.clear()

    def is_current(self, socket: Socket) -> bool:
        return socket is self._socket

    async def send(self, msg: Mapping[str, Any]) -> None:
        socket = self._socket
        if socket is not None:
            try:
                await socket.send_str(encode(msg))
            except ConnectionError:
                log.debug("send on a closing socket dropped")

    def resolve(self, msg: Mapping[str, Any]) -> None:
        future = self._pending.get(msg["id"])
        if future is None or future.done():
            log.debug("result for unknown or finished request %s", msg["id"])
            return
        if msg["ok"]:
            future.set_result(msg.get("data") or {})
        else:
            err = msg["error"]
            details = err.get("details") if isinstance(err.get("details"), dict) else {}
            # The envelope's own keys cannot be overridden from the wire (nor clash with the arguments).
            details = {k: v for k, v in details.items() if k not in ("code", "message", "error")}
            future.set_exception(
                TabpilotError(coerce_code(err.get("code")), str(err.get("message") or "browser error"), **details)
            )

    async def handle_event(self, name: str, data: dict[str, Any]) -> None:
        if name == "page":
            self.page = data
        for handler in list(self._event_handlers):
            outcome = handler(name, data)
            if outcome is not None:
                await outcome

    def on_event(self, handler: Callable[[str, dict[str, Any]], Awaitable[None] | None]) -> None:
        self._event_handlers.append(handler)

    def subscribe(self, listener: LinkListener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _notify(self, connected: bool) -> None:
        for listener in list(self._listeners):
            listener(connected)
