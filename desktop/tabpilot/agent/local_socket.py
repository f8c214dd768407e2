"""The app's local socket: MCP sessions for `tabpilot mcp`, one JSON-RPC message per line, and the shell
CLI's calls (`{"api": "/api/v1/call", "body": {...}}` per line, each answered `{"status", "body"}`).

Why beside the bridge's WebSocket: the relay that uses it needs nothing but Python's standard library
(no aiohttp, no keyring lookup for the token), so an agent's `tabpilot mcp` answers `initialize` in tens
of milliseconds. Who may connect is the file's business: a Unix socket, mode 0600, in the user's state
folder — the same-user boundary interface.md draws (a process running as this user can read the token
anyway). Where there is no such socket (Windows) or its path is too long for one, the relay uses the
WebSocket as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tabpilot import quickjson
from tabpilot.engine.contract import limits

log = logging.getLogger("tabpilot.mcp")

MAX_LINE = 64 * 1024 * 1024
MAX_PATH = 100
"""sun_path holds 104-108 bytes depending on the system; longer homes use the WebSocket only."""

Session = Callable[[asyncio.StreamReader, asyncio.StreamWriter, bytes], Awaitable[None]]
"""An MCP session on the stream, its first line already read."""
Api = Callable[[str, Any], Awaitable[tuple[int, Any]]]
"""A shell CLI request: its path (one of bridge/server.py LOCAL_API) and body → HTTP-like status, answer."""


def usable(path: Path) -> bool:
    return hasattr(socket, "AF_UNIX") and len(os.fsencode(path)) <= MAX_PATH


class LocalSocket:
    def __init__(self, path: Path, session: Session, api: Api, api_paths: tuple[str, ...]) -> None:
        self.path = path
        self._session = session
        self._api = api
        self._api_paths = api_paths
        self._server: asyncio.Server | None = None

    async def start(self) -> bool:
        if not usable(self.path):
            log.info("no local MCP socket (path too long or no Unix sockets): tabpilot mcp uses the WebSocket")
            return False
        # A socket file left by an app that crashed: this app holds the instance lock, so it is not in use.
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        old = os.umask(0o177)  # created 0600: no moment at which another user could connect
        try:
            self._server = await asyncio.start_unix_server(self._client, path=str(self.path), limit=MAX_LINE)
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        return True

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            first = await reader.readline()
        except ValueError:
            writer.close()
            return
        request = _api_request(first)
        if request is None:
            await self._session(reader, writer, first)
            return
        try:
            while request is not None:
                path, body = request
                if body is TOO_DEEP:
                    status, answer = (
                        400,
                        {
                            "error": "invalid_params",
                            "message": f"The body nests deeper than {limits.MAX_WIRE_DEPTH} levels.",
                        },
                    )
                elif path in self._api_paths:
                    status, answer = await self._api(path, body)
                else:
                    status, answer = 404, {"error": "not_supported", "message": f"No {path} on this socket."}
                line = json.dumps({"status": status, "body": answer}, ensure_ascii=False, separators=(",", ":"))
                writer.write(line.encode("utf-8", "backslashreplace") + b"\n")  # a lone surrogate: its JSON escape
                await writer.drain()
                request = _api_request(await reader.readline())
        except (ConnectionError, ValueError):
            log.debug("a shell client left mid-request")
        finally:
            writer.close()

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self._server = None


TOO_DEEP: Any = object()
"""The body of a shell CLI request nested deeper than limits.MAX_WIRE_DEPTH: refused unread."""


def _api_request(line: bytes) -> tuple[str, Any] | None:
    """`{"api": path, "body": ...}`: a shell CLI request. Anything else (a JSON-RPC message) is MCP."""
    if not line.strip():
        return None
    text = line.decode("utf-8", errors="replace")
    # Measured before parsing: the parser fails on a line nested a thousand deep (RecursionError), and
    # the client would get no answer. A deep JSON-RPC message goes on to the MCP session, which answers it.
    if limits.text_depth(text) > limits.MAX_WIRE_DEPTH:
        head = quickjson.head(text, ("api", "jsonrpc"))
        api = head.get("api")
        return (api, TOO_DEEP) if isinstance(api, str) and "jsonrpc" not in head else None
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(message, dict) and isinstance(message.get("api"), str) and "jsonrpc" not in message:
        return message["api"], message.get("body")
    return None
