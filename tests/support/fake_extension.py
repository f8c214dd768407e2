"""A Python stand-in for the extension, speaking the real bridge protocol over a real WebSocket.

For integration tests of the bridge and the tray; the e2e tests use the real extension in Chromium.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp

from tabpilot.bridge import pairing
from tabpilot.bridge.protocol import PROTOCOL_VERSION
from tabpilot.resources import extension_id, extension_origin

Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]] | dict[str, Any]]


class FakeExtension:
    def __init__(
        self,
        port: int,
        *,
        origin: str | None = None,
        protocol: int = PROTOCOL_VERSION,
        auth: str = "none",
        secret: str = "",
        pair_id: str = "",
    ) -> None:
        self.port = port
        self.origin = origin or extension_origin()
        self.protocol = protocol
        self.auth = auth
        self.secret = secret
        self.pair_id = pair_id
        self.app_verified = False
        self.pairing: dict[str, Any] | None = None
        self.instance_id = str(uuid.uuid4())
        self.handlers: dict[str, Handler] = {}
        self.received: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None
        self.refused: dict[str, Any] | None = None
        self.states: list[dict[str, Any]] = []
        self._session: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    def on(self, op: str, handler: Handler) -> None:
        self.handlers[op] = handler

    async def connect(self, **hello_extra: Any) -> None:
        """The real handshake: hello, check the app's proof, prove our secret, welcome (or refused)."""
        self._session = aiohttp.ClientSession()
        self._ws = await self._session.ws_connect(f"http://127.0.0.1:{self.port}/ws", headers={"Origin": self.origin})
        nonce = secrets.token_hex(16)
        hello = {
            "type": "hello",
            "protocol": self.protocol,
            "extension_version": "0.1.0",
            "extension_id": extension_id(),
            "instance_id": self.instance_id,
            "browser": {"name": "FakeChrome", "version": "1.0", "user_agent": "fake"},
            "client_nonce": nonce,
            "auth": self.auth,
            **hello_extra,
        }
        if self.pair_id:
            hello["pair_id"] = self.pair_id
        await self._ws.send_json(hello)
        first = await self._ws.receive_json(timeout=5)
        if first["type"] == "challenge":
            key = pairing.key_of(self.secret)
            server_nonce = first["server_nonce"]
            expected = pairing.app_proof(key, nonce, server_nonce)
            by_code = self.auth == "pairing"  # with a code, this side proves first (as the extension does)
            self.app_verified = not by_code and expected in first["app_proofs"]
            if not by_code and not self.app_verified:
                self.refused = {"type": "refused", "code": "impostor", "reason": "the app's proof was wrong"}
                await self._ws.close()
                return
            proof = pairing.extension_proof(key, nonce, server_nonce)
            await self._ws.send_json({"type": "auth", "proof": proof})
            first = await self._ws.receive_json(timeout=5)
            # After a code the app proves it in its welcome, or in a `busy` refusal that keeps the pairing.
            if by_code and (first["type"] == "welcome" or "app_proof" in first):
                self.app_verified = first.get("app_proof") == expected
                if not self.app_verified:
                    self.refused = {"type": "refused", "code": "impostor", "reason": "the app's proof was wrong"}
                    await self._ws.close()
                    return
        if first["type"] == "welcome":
            self.welcome = first
            self.pairing = first.get("pairing")
            self._reader = asyncio.get_running_loop().create_task(self._read())
        else:
            self.refused = first

    async def _read(self) -> None:
        assert self._ws is not None
        async for frame in self._ws:
            if frame.type != aiohttp.WSMsgType.TEXT:
                continue
            msg = json.loads(frame.data)
            self.received.append(msg)
            if msg["type"] == "state":
                self.states.append(msg["state"])
            elif msg["type"] == "command":
                asyncio.get_running_loop().create_task(self._answer(msg))

    async def _answer(self, msg: dict[str, Any]) -> None:
        assert self._ws is not None
        handler = self.handlers.get(msg["op"])
        if handler is None:
            reply = {
                "type": "result",
                "id": msg["id"],
                "ok": False,
                "error": {"code": "not_supported", "message": f"fake has no {msg['op']}"},
            }
        else:
            try:
                data = handler(msg["params"])
                if asyncio.iscoroutine(data):
                    data = await data
                reply = {"type": "result", "id": msg["id"], "ok": True, "data": data}
            except Exception as exc:  # an error the handler raises on purpose
                code = getattr(exc, "code", "internal")
                reply = {
                    "type": "result",
                    "id": msg["id"],
                    "ok": False,
                    "error": {"code": code, "message": str(exc)},
                }
        with contextlib.suppress(ConnectionError):
            await self._ws.send_json(reply)

    async def send(self, msg: dict[str, Any]) -> None:
        assert self._ws is not None
        await self._ws.send_json(msg)

    @property
    def closed(self) -> bool:
        return self._ws is None or self._ws.closed

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._session is not None:
            await self._session.close()


def paired_with(app: Any, **kwargs: Any) -> FakeExtension:
    """A fake extension the app has paired (as if the user typed the app's code into its popup)."""
    record, token = app.pairings.pair(None, {"browser": {"name": "FakeChrome", "version": "1.0"}})
    return FakeExtension(app.bridge.port, auth="paired", secret=token, pair_id=record.pair_id, **kwargs)
