"""MCP over a WebSocket: one JSON-RPC message per frame, read and written by the SDK's own stdio code.

`tabpilot mcp` pumps stdin lines into frames and frames back to stdout without parsing anything,
so the relay adds almost nothing to a call and never needs to know the protocol's revisions.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from aiohttp import WSMsgType, web

from tabpilot.agent.screen import screen


class FrameLines:
    """The socket's incoming text frames, as the lines the SDK's stdio reader expects. A frame the SDK
    would drop without an answer (not JSON, too deep, too large) is answered here instead."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self._ws = ws

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for frame in self._ws:
            if frame.type == WSMsgType.TEXT:
                text = frame.data
            elif frame.type == WSMsgType.BINARY:
                text = frame.data.decode("utf-8", errors="replace")
            else:
                continue
            verdict = screen(text)
            if verdict.passes:
                yield text
            elif verdict.reply is not None and not self._ws.closed:
                await self._ws.send_str(json.dumps(verdict.reply, ensure_ascii=False, separators=(",", ":")))


class FrameWriter:
    """What the SDK writes, one frame per flush (it flushes after every message)."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self._ws = ws
        self._pending: list[str] = []

    async def write(self, text: str) -> int:
        self._pending.append(text)
        return len(text)

    async def flush(self) -> None:
        if not self._pending:
            return
        data, self._pending = "".join(self._pending), []
        if not self._ws.closed:
            await self._ws.send_str(data)
