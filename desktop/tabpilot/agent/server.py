"""The MCP server inside the app: the official SDK's low-level Server over streamable HTTP at /mcp."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
import weakref
from typing import Any

import mcp_types as types
from aiohttp import web
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CLIENT_INFO_META_KEY

from tabpilot import __version__, trace
from tabpilot.agent import results
from tabpilot.agent.asgi import AsgiMount
from tabpilot.agent.screen import screen
from tabpilot.agent.socket_transport import FrameLines, FrameWriter, StreamLines, StreamWriter
from tabpilot.agent.tools import build_tools
from tabpilot.engine.contract import limits
from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError, new_log_ref

log = logging.getLogger("tabpilot.mcp")

INSTRUCTIONS = (
    "Tabpilot works in the user's own browser, on localhost. Reads (observe) always work; actions (interact) "
    "need the user to switch AI Web Pilot on in the Tabpilot tray, and page-changing steps may wait for the "
    "user's approval. Never ask the user for secrets: workflows refer to them as {{secret:NAME}}."
)


def agent_name(ctx: ServerRequestContext[Any]) -> str:
    params = ctx.session.client_params
    info: Any = params.client_info if params is not None else (ctx.meta or {}).get(CLIENT_INFO_META_KEY)
    if isinstance(info, dict):
        name, version = info.get("name"), info.get("version")
    elif info is not None:
        name, version = info.name, info.version
    else:
        return "agent"
    return f"{name} {version}".strip() if name else "agent"


_SOCKET_SESSION: contextvars.ContextVar[str | None] = contextvars.ContextVar("mcp_socket_session", default=None)
"""The session key of the MCP-over-WebSocket connection a call came on (set for the connection's tasks)."""


HARD_BODY_LIMIT = 2 * limits.MAX_MESSAGE_BYTES
"""Bodies up to this are read and, past MAX_MESSAGE_BYTES, answered like any bad call (a tool error);
only beyond it does the request itself fail."""


async def _read_capped(request: web.Request, cap: int) -> bytes | None:
    """The body, or None once it passes `cap` (read past aiohttp's own limit, which answers bare 413s)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.content.iter_any():
        size += len(chunk)
        if size > cap:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


class _ProgressRelay:
    """Engine progress (sync callbacks) to MCP progress notifications, in order, without blocking the job."""

    def __init__(self, ctx: ServerRequestContext[Any]) -> None:
        self._ctx = ctx
        self._queue: asyncio.Queue[tuple[float, float | None, str] | None] = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._pump())

    def __call__(self, completed: int, total: int | None, message: str) -> None:
        self._queue.put_nowait((float(completed), None if total is None else float(total), message))

    async def _pump(self) -> None:
        while (item := await self._queue.get()) is not None:
            completed, total, message = item
            try:
                await self._ctx.session.report_progress(completed, total, message or None)
            except Exception:
                log.debug("progress notification dropped", exc_info=True)

    async def close(self) -> None:
        """Deliver what is queued before the result goes out."""
        self._queue.put_nowait(None)
        await self._task


class McpEndpoint:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._tools = build_tools(engine.registry)
        self.server: Server[Any] = Server(
            "tabpilot",
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        self.server.middleware = []
        self.manager = StreamableHTTPSessionManager(
            app=self.server,
            json_response=False,
            stateless=False,
            # The same limit as the socket's: a larger call is answered by screen() as a tool error.
            max_request_body_size=limits.MAX_MESSAGE_BYTES,
            security_settings=TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
                allowed_origins=[],
            ),
        )
        self._mount = AsgiMount(self.manager.handle_request)
        self._sockets: set[asyncio.Task[Any]] = set()
        self._session_numbers = itertools.count(1)
        self._http_sessions: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._owner: asyncio.Task[None] | None = None
        self._started = asyncio.Event()
        self._stop = asyncio.Event()
        self.closing = False

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self._tools)

    def session_key(self, ctx: ServerRequestContext[Any]) -> str:
        """Which agent session a call is from, for the tabs it owns: one per `tabpilot mcp` connection, one
        per streamable-HTTP session."""
        key = _SOCKET_SESSION.get()
        if key is not None:
            return key
        key = self._http_sessions.get(ctx.session)
        if key is None:
            key = self._http_sessions[ctx.session] = f"mcp-http-{next(self._session_numbers)}"
        return key

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        progress = _ProgressRelay(ctx) if (ctx.meta or {}).get("progress_token") is not None else None
        marks = trace.begin(ctx.request_id)
        try:
            result = await self.engine.call(
                params.name,
                dict(params.arguments or {}),
                agent=agent_name(ctx),
                progress=progress,
                session=self.session_key(ctx),
            )
            if marks is not None:
                marks.append(["engine_done", trace.now_ms()])
                result = {**result, trace.FIELD: marks}
            return results.success(result)
        except TabpilotError as exc:
            return results.failure(exc.envelope())
        except Exception:
            ref = new_log_ref()
            log.exception("MCP call %s failed [%s]", params.name, ref)
            return results.failure(
                {
                    "error": "internal",
                    "message": f"Tabpilot hit an internal error; see its log under {ref}.",
                    "log_ref": ref,
                }
            )
        finally:
            if progress is not None:
                await progress.close()

    # -- lifecycle: the manager's run() must be entered and left by one task -----------------------

    async def _own(self) -> None:
        async with self.manager.run():
            self._started.set()
            await self._stop.wait()

    async def start(self) -> None:
        self._owner = asyncio.get_running_loop().create_task(self._own())
        waiter = asyncio.ensure_future(self._started.wait())
        done, _ = await asyncio.wait({self._owner, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if self._owner in done:
            waiter.cancel()
            self._owner.result()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.closing:
            return web.json_response({"error": "unavailable", "message": "Tabpilot is stopping."}, status=503)
        if request.method != "POST":
            return await self._mount(request)
        # Looked at before the SDK parses it: what it would refuse without a useful answer (too deep,
        # NaN) is answered here, a tool call with a tool error like any other bad argument.
        body = await _read_capped(request, HARD_BODY_LIMIT)
        if body is None:
            return web.json_response(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "The request is far too large."}},
                status=413,
            )
        verdict = screen(body.decode("utf-8", errors="replace"))
        if verdict.passes:
            return await self._mount(request, body)
        if verdict.reply is None:
            return web.Response(status=202)
        return web.json_response(verdict.reply, status=200 if "result" in verdict.reply else 400)

    async def handle_socket(self, request: web.Request) -> web.StreamResponse:
        """MCP over a WebSocket (what `tabpilot mcp` relays stdio to where there is no local socket)."""
        if self.closing:
            return web.json_response({"error": "unavailable", "message": "Tabpilot is stopping."}, status=503)
        ws = web.WebSocketResponse(max_msg_size=64 * 1024 * 1024, compress=False)
        await ws.prepare(request)
        try:
            await self._session(FrameLines(ws), FrameWriter(ws))
        finally:
            await ws.close()
        return ws

    async def serve_stream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bytes) -> None:
        """MCP over the app's local socket, one message per line (`tabpilot mcp`'s fast path); its first
        line was read already (to tell it from a shell CLI request)."""
        try:
            if not self.closing:
                await self._session(StreamLines(reader, writer, first), StreamWriter(writer))
        finally:
            writer.close()

    async def _session(self, lines: Any, out: Any) -> None:
        """One `tabpilot mcp` connection, whichever socket brought it: a session of the same server, with
        an identity of its own (the tabs it opens are its own until it goes)."""
        task = asyncio.current_task()
        if task is not None:
            self._sockets.add(task)
        key = f"mcp-{next(self._session_numbers)}"
        _SOCKET_SESSION.set(key)  # this handler's task: the server's tasks for the connection inherit it
        try:
            async with stdio_server(stdin=lines, stdout=out) as (read, write):
                await self.server.run(read, write, self.server.create_initialization_options())
        finally:
            if task is not None:
                self._sockets.discard(task)
            self.engine.tab_owners.ended(key)  # the agent went away: its tabs are the person's again

    @property
    def open_sessions(self) -> int:
        """Agents connected through `tabpilot mcp` right now."""
        return len(self._sockets)

    async def stop(self) -> None:
        self.closing = True
        for task in list(self._sockets):
            task.cancel()
        self._mount.cancel_inflight()
        self._stop.set()
        if self._owner is not None:
            try:
                await asyncio.wait_for(self._owner, 5)
            except (TimeoutError, asyncio.CancelledError):
                log.debug("MCP session manager did not stop in time")
