"""An MCP SDK client over stdio to `tabpilot mcp`, owned by one task so that pytest fixtures can hold it.

anyio's cancel scopes must be left by the task that entered them; pytest-asyncio sets fixtures up and
tears them down in different tasks, so the client lives in its own task and takes calls by queue.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

Job = Callable[[ClientSession], Awaitable[Any]]


class StdioMcp:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = {**os.environ, **env}
        self._jobs: asyncio.Queue[tuple[Job, asyncio.Future[Any]] | None] = asyncio.Queue()
        self._ready: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self.server_name = ""

    async def start(self, timeout: float = 60.0) -> None:
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._task = loop.create_task(self._own())
        await asyncio.wait_for(asyncio.shield(self._ready), timeout)

    async def _own(self) -> None:
        assert self._ready is not None
        params = StdioServerParameters(command=sys.executable, args=["-m", "tabpilot", "mcp"], env=self.env)
        try:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                init = await session.initialize()
                self.server_name = init.server_info.name
                self._ready.set_result(None)
                while (item := await self._jobs.get()) is not None:
                    job, future = item
                    try:
                        future.set_result(await job(session))
                    except Exception as exc:
                        future.set_exception(exc)
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            raise

    async def run(self, job: Job, timeout: float = 120.0) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self._jobs.put((job, future))
        return await asyncio.wait_for(future, timeout)

    async def list_tools(self) -> types.ListToolsResult:
        return await self.run(lambda s: s.list_tools())

    async def call(self, tool: str, args: dict[str, Any], **kw: Any) -> types.CallToolResult:
        return await self.run(lambda s: s.call_tool(tool, args, **kw))

    async def ok(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """Call a tool that must succeed; return its structured content."""
        result = await self.call(tool, args)
        assert not result.is_error, f"{tool} {args} failed: {result.structured_content}"
        assert result.structured_content is not None
        return result.structured_content

    async def error(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """Call a tool that must fail; return its error envelope."""
        result = await self.call(tool, args)
        assert result.is_error, f"{tool} {args} unexpectedly succeeded: {result.structured_content}"
        assert result.structured_content is not None
        return result.structured_content

    async def close(self) -> None:
        if self._task is None:
            return
        await self._jobs.put(None)
        try:
            await asyncio.wait_for(self._task, 15)
        except (TimeoutError, Exception):
            self._task.cancel()
