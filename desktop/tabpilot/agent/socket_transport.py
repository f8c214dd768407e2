"""MCP over a WebSocket (one JSON-RPC message per frame) or a local socket (one per line), read and
written by the SDK's own stdio code.

`tabpilot mcp` pumps stdin lines into frames and frames back to stdout without parsing anything,
so the relay adds almost nothing to a call and never needs to know the protocol's revisions.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from aiohttp import WSMsgType, web

from tabpilot import trace
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
            line, answer = _screened(text)
            if line is not None:
                yield line
            elif answer is not None and not self._ws.closed:
                await self._ws.send_str(answer)


class _Messages:
    """What the SDK writes, one message per flush (it flushes after every message), sent by `send`."""

    def __init__(self) -> None:
        self._pending: list[str] = []

    async def write(self, text: str) -> int:
        self._pending.append(text)
        return len(text)

    async def flush(self) -> None:
        if not self._pending:
            return
        data, self._pending = "".join(self._pending), []
        if trace.enabled and trace.FIELD in data:
            data = _stamped(data)
        await self.send(data)

    async def send(self, data: str) -> None:
        raise NotImplementedError


class FrameWriter(_Messages):
    """One WebSocket frame per message."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        super().__init__()
        self._ws = ws

    async def send(self, data: str) -> None:
        if not self._ws.closed:
            await self._ws.send_str(data)


def _screened(text: str) -> tuple[str | None, str | None]:
    """One incoming message, whichever socket brought it: (the line for the SDK, or None; else the answer
    to send back in its place, or None when it deserves none)."""
    verdict = screen(text)
    if verdict.passes:
        if trace.enabled:
            _note_received(text)
        return text, None
    if verdict.reply is None:
        return None, None
    return None, json.dumps(verdict.reply, ensure_ascii=False, separators=(",", ":"))


def _note_received(text: str) -> None:
    """When a tool call came in (TABPILOT_TRACE only: it parses the frame once more)."""
    try:
        message = json.loads(text)
    except ValueError:
        return
    if isinstance(message, dict) and message.get("method") == "tools/call":
        trace.received(message.get("id"))


def _stamped(data: str) -> str:
    """The answer with the moment it leaves the app added to its marks (TABPILOT_TRACE only)."""
    try:
        message = json.loads(data)
        marks = message["result"]["structuredContent"][trace.FIELD]
    except (ValueError, KeyError, TypeError):
        return data
    marks.append(["app_out", trace.now_ms()])
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


class StreamLines:
    """A local socket's lines (`tabpilot mcp`'s fast path), screened like the WebSocket's frames."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bytes = b"") -> None:
        self._reader = reader
        self._writer = writer
        self._first = first

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            try:
                raw, self._first = (self._first, b"") if self._first else (await self._reader.readline(), b"")
            except ValueError:  # a line past the reader's limit: it is dropped, and the client told so
                await StreamWriter(self._writer).send(TOO_LONG)
                continue
            if not raw:
                return
            text = raw.decode("utf-8", errors="replace")
            if not text.strip():
                continue
            line, answer = _screened(text)
            if line is not None:
                yield line
            elif answer is not None:
                await StreamWriter(self._writer).send(answer)


class StreamWriter(_Messages):
    """One line per message, onto a local socket."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        super().__init__()
        self._writer = writer

    async def send(self, data: str) -> None:
        if self._writer.is_closing():
            return
        # A lone surrogate (`"\ud800"` in a request is valid JSON) cannot be UTF-8: written out as its JSON
        # escape, it reads back as the same string; a strict encode raised and the session never answered.
        self._writer.write((data if data.endswith("\n") else data + "\n").encode("utf-8", "backslashreplace"))
        await self._writer.drain()


TOO_LONG = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"A message longer than 64 MB was dropped."}}'
