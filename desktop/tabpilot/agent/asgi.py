"""Serve an ASGI app (the MCP SDK's streamable-HTTP manager) from an aiohttp handler.

The request body is streamed in; the response is prepared as soon as it starts and every chunk is
written at once, so server-sent events are not buffered. aiohttp does not cancel a handler when its
client goes away, so the bridge watches the transport and tells the app with `http.disconnect`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from aiohttp import web
from multidict import CIMultiDict

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

DISCONNECT_POLL_S = 0.1


def build_scope(request: web.Request) -> Scope:
    transport = request.transport
    peer = transport.get_extra_info("peername") if transport else None
    sock = transport.get_extra_info("sockname") if transport else None
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": f"{request.version.major}.{request.version.minor}",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.split("?", 1)[0].encode("latin-1"),
        "query_string": request.query_string.encode("latin-1"),
        "root_path": "",
        "headers": [(k.lower(), v) for k, v in request.raw_headers],
        "client": tuple(peer[:2]) if isinstance(peer, tuple) else None,
        "server": tuple(sock[:2]) if isinstance(sock, tuple) else None,
        "state": {},
        "extensions": {},
    }


class _Exchange:
    def __init__(self, request: web.Request, body: bytes | None = None) -> None:
        self.request = request
        self._body = body
        """The request body when it was read already (to look at it first)."""
        self.response: web.StreamResponse | None = None
        self.body_done = False
        self.complete = False
        self.gone = asyncio.Event()
        self._poller: asyncio.Task[None] | None = None

    def _client_gone(self) -> bool:
        transport = self.request.transport
        return transport is None or transport.is_closing()

    async def _poll(self) -> None:
        while not self.gone.is_set():
            if self._client_gone():
                self.gone.set()
                return
            await asyncio.sleep(DISCONNECT_POLL_S)

    async def receive(self) -> Message:
        if not self.body_done and self._body is not None:
            self.body_done = True
            return {"type": "http.request", "body": self._body, "more_body": False}
        if not self.body_done:
            try:
                chunk = await self.request.content.readany()
            except (ConnectionResetError, asyncio.IncompleteReadError):
                self.gone.set()
                return {"type": "http.disconnect"}
            more = bool(chunk) and not self.request.content.at_eof()
            self.body_done = not more
            return {"type": "http.request", "body": chunk, "more_body": more}
        if not self.complete and not self.gone.is_set():
            if self._poller is None:
                self._poller = asyncio.get_running_loop().create_task(self._poll())
            await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        if self.gone.is_set() and not self.complete:
            return
        try:
            if message["type"] == "http.response.start":
                headers: CIMultiDict[str] = CIMultiDict()
                for key, value in message.get("headers", []):
                    headers.add(key.decode("latin-1"), value.decode("latin-1"))
                self.response = web.StreamResponse(status=message["status"], headers=headers)
                await self.response.prepare(self.request)
            elif message["type"] == "http.response.body" and self.response is not None:
                body: bytes = message.get("body", b"")
                if body:
                    await self.response.write(body)
                if not message.get("more_body", False):
                    await self.response.write_eof()
                    self.complete = True
                    self.gone.set()
        except ConnectionResetError:
            self.gone.set()

    async def close(self) -> None:
        self.gone.set()
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller


class AsgiMount:
    """An aiohttp handler for one ASGI app, which can cancel its requests in flight at shutdown."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._inflight: set[asyncio.Task[Any]] = set()

    async def __call__(self, request: web.Request, body: bytes | None = None) -> web.StreamResponse:
        exchange = _Exchange(request, body)
        task = asyncio.current_task()
        if task is not None:
            self._inflight.add(task)
        try:
            await self._app(build_scope(request), exchange.receive, exchange.send)
        finally:
            if task is not None:
                self._inflight.discard(task)
            await exchange.close()
        if exchange.response is None:
            return web.Response(status=499 if exchange.gone.is_set() else 500)
        return exchange.response

    def cancel_inflight(self) -> None:
        for task in list(self._inflight):
            if not task.done():
                task.cancel()
