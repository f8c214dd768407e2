"""`tabpilot mcp`: MCP on stdio, pumped line for frame to the app's MCP socket and back.

Each line from the client becomes one WebSocket frame and each frame from the app is written to
stdout as it came. The MCP server itself — the official SDK's — runs in the app. The relay only reads
the ids of requests and answers, so that when the client closes stdin after its last request (a script
piping a few lines in) the answers still owed are delivered before it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import BinaryIO

import aiohttp

from tabpilot.agent.local_relay import DRAIN_LIMIT_S, message_ids
from tabpilot.cli import client
from tabpilot.paths import Paths

MAX_MESSAGE = 64 * 1024 * 1024
TOO_LONG = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"A message longer than 64 MB was dropped."}}\n'


_background: set[asyncio.Task[None]] = set()


async def _stdin_lines(stdin: BinaryIO) -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_MESSAGE, loop=loop)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    except (ValueError, OSError, NotImplementedError):
        # stdin is a file or a console (or Windows): read it on a thread instead.
        async def feed() -> None:
            while line := await asyncio.to_thread(stdin.readline):
                reader.feed_data(line)
            reader.feed_eof()

        task = loop.create_task(feed())
        _background.add(task)
        task.add_done_callback(_background.discard)
    return reader


async def relay(url: str, token: str, stdin: BinaryIO, stdout: BinaryIO) -> None:
    lines = await _stdin_lines(stdin)
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(
            url, headers={"Authorization": f"Bearer {token}"}, max_msg_size=MAX_MESSAGE, autoping=True
        ) as ws,
    ):
        owed: set[str] = set()
        settled = asyncio.Event()
        settled.set()

        async def up() -> None:
            while True:
                try:
                    line = await lines.readline()
                except ValueError:  # longer than MAX_MESSAGE: dropped, and said so (the reader moved past it)
                    stdout.write(TOO_LONG)
                    stdout.flush()
                    continue
                if not line:
                    break
                if line.strip():
                    text = line.decode("utf-8", errors="replace")
                    owed.update(message_ids(text, answers=False))
                    if owed:
                        settled.clear()
                    await ws.send_str(text)
            # stdin ended: what the app still owes is delivered first (within a limit), then goodbye.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(settled.wait(), DRAIN_LIMIT_S)
            await ws.close()

        async def down() -> None:
            async for frame in ws:
                if frame.type == aiohttp.WSMsgType.TEXT:
                    data = frame.data if frame.data.endswith("\n") else frame.data + "\n"
                    stdout.write(data.encode("utf-8"))
                    stdout.flush()
                    owed.difference_update(message_ids(frame.data, answers=True))
                    if not owed:
                        settled.set()
                elif frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.ERROR):
                    break

        pump_up = asyncio.create_task(up())
        try:
            await down()
        finally:
            pump_up.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump_up


def run_relay(paths: Paths) -> int:
    try:
        try:
            target = client.find(paths)
        except client.Unreachable:
            raise  # it runs, out of this shell's reach: starting another would only fail
        except client.NotRunning:
            print(
                "tabpilot mcp: no Tabpilot app is running; starting `tabpilot serve --browser managed "
                "--headless` (AI Web Pilot off).",
                file=sys.stderr,
                flush=True,
            )
            target = client.start_background_serve(paths)
    except client.NotRunning as exc:
        print(f"tabpilot mcp: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # the keyring, most often: say so instead of a traceback
        print(f"tabpilot mcp: cannot reach Tabpilot: {exc}", file=sys.stderr)
        return 1
    url = f"ws://127.0.0.1:{target.port}/mcp/ws"
    try:
        asyncio.run(relay(url, target.token, sys.stdin.buffer, sys.stdout.buffer))
    except KeyboardInterrupt:
        pass
    except (aiohttp.ClientError, OSError) as exc:
        print(f"tabpilot mcp: the connection to Tabpilot ended: {exc}", file=sys.stderr)
        return 1
    return 0
