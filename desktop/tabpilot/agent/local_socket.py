"""The app's local socket: MCP sessions for `tabpilot mcp`, one JSON-RPC message per line.

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
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

log = logging.getLogger("tabpilot.mcp")

MAX_LINE = 64 * 1024 * 1024
MAX_PATH = 100
"""sun_path holds 104-108 bytes depending on the system; longer homes use the WebSocket only."""

Session = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def usable(path: Path) -> bool:
    return hasattr(socket, "AF_UNIX") and len(os.fsencode(path)) <= MAX_PATH


class LocalSocket:
    def __init__(self, path: Path, session: Session) -> None:
        self.path = path
        self._session = session
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
            self._server = await asyncio.start_unix_server(self._session, path=str(self.path), limit=MAX_LINE)
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        return True

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self._server = None
