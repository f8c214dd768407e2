"""The aiohttp server on 127.0.0.1: the extension's WebSocket, the local HTTP API and the MCP endpoint."""

from __future__ import annotations

import asyncio
import errno
import hmac
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

from aiohttp import WSMsgType, web

from tabpilot.bridge import auth, connections, pairing
from tabpilot.bridge.link import ExtensionLink
from tabpilot.bridge.protocol import PROTOCOL_VERSION, Hello, ProtocolError, Refused, parse_incoming
from tabpilot.engine.contract import limits

log = logging.getLogger("tabpilot.bridge")

HELLO_TIMEOUT_S = 5.0
AUTH_DEADLINE_S = 10.0
"""A socket that has not proved itself by then is closed, however much it sends meanwhile (a ping
restarts aiohttp's receive timeout, so that timeout alone never ends a socket that keeps pinging)."""
MAX_UNAUTHENTICATED = 16
"""Sockets still in their handshake at once; more are refused before they cost a file descriptor for long."""
HEADERS_DEADLINE_S = 5.0
"""A connection must have sent request headers that pass the guard (the token, or the extension's Origin
for its socket) by then, or it is closed (bridge/connections.py): an idle or trickling one holds a file
descriptor for nothing."""
MAX_PENDING_CONNECTIONS = 512
"""Connections that have not passed the guard yet, at most; a newcomer past it closes the oldest of them.
Fewer where the descriptor limit is low (connections.pending_cap)."""
IDLE_TIMEOUT_S = 30.0
"""A kept-alive connection that sends no next request in this long is closed (aiohttp's keepalive_timeout;
its own default is an hour)."""
LOG_BURST = 5
LOG_WINDOW_S = 60.0
HEARTBEAT_S = 4.0
MAX_FRAME = 64 * 1024 * 1024
MCP_READY_TIMEOUT_S = 15.0

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class BridgeAuth(Protocol):
    """Which secrets a browser may prove, and what happens once it has (see bridge/pairing.py)."""

    def keys(self, hello: Hello) -> list[tuple[bytes, str]] | Refused:
        """(key, tag) pairs the browser's proof may match, or why it is refused outright."""
        ...

    def accepted(self, hello: Hello, tag: str) -> dict[str, Any]:
        """The browser proved the secret tagged `tag`; extra fields for its welcome (a new pairing)."""
        ...

    def failed(self, hello: Hello) -> None: ...

    def busy(self, hello: Hello) -> str:
        """Why `hello`'s browser, which proved its secret, cannot connect while others are, and what to do."""
        ...


@dataclass
class BridgeHooks:
    """What the composition root plugs in: the engine-facing API and who may be the browser."""

    api_call: Callable[[str, dict[str, Any], str, str | None], Awaitable[dict[str, Any]]]
    """A tool call: tool, arguments, the agent's name, and the session whose tabs it may act on."""
    api_chain: Callable[[Any, str, str | None], Awaitable[dict[str, Any]]]
    """`tabpilot chain`: the request's body (its calls), the agent's name and session; per-call results."""
    status: Callable[[], dict[str, Any]]
    stop: Callable[[], None]
    auth: BridgeAuth
    welcome_state: Callable[[], dict[str, Any]]
    pair: Callable[[], dict[str, Any]] = lambda: {}
    pairings: Callable[[], list[dict[str, Any]]] = lambda: []
    revoke_pairing: Callable[[str], bool] = lambda _pair_id: False


class BridgeServer:
    def __init__(self, link: ExtensionLink, token: str, extension_origin: str, hooks: BridgeHooks) -> None:
        self.link = link
        self._token = token
        self._origin = extension_origin
        self.hooks = hooks
        self.port = 0
        self._mcp_handler: Handler | None = None
        self._mcp_socket_handler: Handler | None = None
        self._mcp_ready = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self._unauthenticated = 0
        self.gate: connections.Gate | None = None
        """The connections that have not passed the guard yet (None before start)."""
        self.app = web.Application(client_max_size=limits.MAX_MESSAGE_BYTES, middlewares=[self._guard])
        self.app.router.add_get("/ws", self._ws)
        self.app.router.add_get("/api/v1/status", self._status)
        self.app.router.add_post(CALL_PATH, self._call)
        self.app.router.add_post(CHAIN_PATH, self._chain)
        self.app.router.add_post("/api/v1/stop", self._stop)
        self.app.router.add_post("/api/v1/pair", self._pair)
        self.app.router.add_get("/api/v1/pairings", self._pairings)
        self.app.router.add_post("/api/v1/pairings/revoke", self._revoke_pairing)
        self.app.router.add_route("*", "/mcp", self._mcp)
        self.app.router.add_get("/mcp/ws", self._mcp_socket)

    def serve_mcp(self, http: Handler, socket: Handler) -> None:
        """Plug in the MCP endpoint: streamable HTTP at /mcp, and the socket `tabpilot mcp` relays to."""
        self._mcp_handler, self._mcp_socket_handler = http, socket
        self._mcp_ready.set()

    def set_token(self, token: str) -> None:
        self._token = token

    async def start(self, port: int, *, fallback: bool = True) -> int:
        """Listen on 127.0.0.1:`port`; when it is taken and `fallback` holds, on a free port instead."""
        limit = connections.raise_fd_limit()
        self.gate = connections.Gate(
            deadline_s=HEADERS_DEADLINE_S,
            cap=connections.pending_cap(MAX_PENDING_CONNECTIONS, limit[0] if limit else None),
            dropped=lambda why: _throttled.warning(
                f"dropped:{why}",
                "closed a connection that did not show the token %s",
                "in time" if why == "deadline" else "before more came (too many waiting)",
            ),
        )
        self._runner = web.AppRunner(
            self.app,
            access_log=None,
            handle_signals=False,
            shutdown_timeout=2.0,
            keepalive_timeout=IDLE_TIMEOUT_S,
        )
        await self._runner.setup()
        for candidate in (port, 0) if fallback and port else (port,):
            # SO_REUSEADDR where it means "a port whose last connections wait in TIME_WAIT is free" (POSIX):
            # without it `serve --port N` failed for a minute after a restart. Never on Windows, where it
            # would let another program bind the port this app listens on.
            site = _GatedSite(self._runner, "127.0.0.1", candidate, self.gate, reuse_address=os.name == "posix")
            try:
                await site.start()
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE or candidate == 0:
                    raise
                log.info("port %d is taken; using a free port", candidate)
                continue
            server = cast(asyncio.base_events.Server, site._server)
            self.port = server.sockets[0].getsockname()[1]
            return self.port
        raise OSError(errno.EADDRINUSE, f"port {port} is in use")

    async def stop(self) -> None:
        for ws in list(self._sockets):
            await ws.close(code=1001, message=b"app stopping")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- guards ----------------------------------------------------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if not auth.host_ok(request.headers.get("Host"), self.port):
            return _refuse(403, "Host not allowed")
        if request.path == "/ws":
            if not auth.extension_origin_ok(request.headers.get("Origin"), self._origin):
                _throttled.warning(
                    "origin", "refused a WebSocket upgrade from origin %r", request.headers.get("Origin", "")[:100]
                )
                return _refuse(403, "Origin not allowed")
            # From here the extension's handshake has its own deadline and cap (_ws).
            self._passed(request)
            return await handler(request)
        if auth.web_origin(request.headers.get("Origin")):
            return _refuse(403, "Origin not allowed")
        if not auth.bearer_ok(request.headers, self._token):
            return web.json_response(
                {"error": "unauthorized", "message": "A valid bearer token is required."},
                status=401,
                headers={"WWW-Authenticate": 'Bearer realm="tabpilot"'},
            )
        self._passed(request)
        return await handler(request)

    def _passed(self, request: web.Request) -> None:
        if self.gate is not None:
            self.gate.passed(request.transport)

    # -- HTTP API --------------------------------------------------------------------------------

    async def _status(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.hooks.status())

    async def _json_body(self, request: web.Request) -> Any:
        """The request's JSON body, or the error response that refuses it."""
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return web.json_response(
                {"error": "invalid_params", "message": f"The body is larger than {limits.MAX_MESSAGE_BYTES >> 20} MB."},
                status=413,
            )
        try:
            text = raw.decode("utf-8")
            # Measured before parsing: a body nested thousands deep would fail in the parser.
            if limits.text_depth(text) > limits.MAX_WIRE_DEPTH:
                return web.json_response(
                    {
                        "error": "invalid_params",
                        "message": f"The body nests deeper than {limits.MAX_WIRE_DEPTH} levels.",
                    },
                    status=400,
                )
            return limits.loads(text)
        except ValueError as exc:  # not UTF-8, not JSON, or NaN/Infinity
            reason = str(exc)[:200]
            return web.json_response(
                {"error": "invalid_params", "message": f"Body must be JSON ({reason})."}, status=400
            )

    async def _call(self, request: web.Request) -> web.StreamResponse:
        body = await self._json_body(request)
        if isinstance(body, web.StreamResponse):
            return body
        status, answer = await answer_api(self.hooks, CALL_PATH, body)
        return web.json_response(answer, status=status)

    async def _chain(self, request: web.Request) -> web.StreamResponse:
        """Several calls in one request, run in order by the engine, stopping at the first failure."""
        body = await self._json_body(request)
        if isinstance(body, web.StreamResponse):
            return body
        status, answer = await answer_api(self.hooks, CHAIN_PATH, body)
        return web.json_response(answer, status=status)

    async def _stop(self, request: web.Request) -> web.StreamResponse:
        asyncio.get_running_loop().call_soon(self.hooks.stop)
        return web.json_response({"stopping": True})

    async def _pair(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self.hooks.pair())

    async def _pairings(self, request: web.Request) -> web.StreamResponse:
        return web.json_response({"pairings": self.hooks.pairings()})

    async def _revoke_pairing(self, request: web.Request) -> web.StreamResponse:
        """`tabpilot pairings revoke ID`: through the app, which holds the pairings and cuts the browser off."""
        body = await self._json_body(request)
        if isinstance(body, web.StreamResponse):
            return body
        pair_id = body.get("pair_id") if isinstance(body, dict) else None
        if not isinstance(pair_id, str) or not pair_id:
            return web.json_response({"error": "invalid_params", "message": "Body must be {pair_id}."}, status=400)
        return web.json_response({"pair_id": pair_id[:100], "revoked": self.hooks.revoke_pairing(pair_id)})

    async def _mcp(self, request: web.Request) -> web.StreamResponse:
        if not await self._wait_mcp():
            return _refuse(503, "The MCP endpoint is still starting.")
        assert self._mcp_handler is not None
        return await self._mcp_handler(request)

    async def _mcp_socket(self, request: web.Request) -> web.StreamResponse:
        if not await self._wait_mcp():
            return _refuse(503, "The MCP endpoint is still starting.")
        assert self._mcp_socket_handler is not None
        return await self._mcp_socket_handler(request)

    async def _wait_mcp(self) -> bool:
        try:
            await asyncio.wait_for(self._mcp_ready.wait(), MCP_READY_TIMEOUT_S)
        except TimeoutError:
            return False
        return True

    # -- the extension's socket --------------------------------------------------------------------

    async def _ws(self, request: web.Request) -> web.StreamResponse:
        if self._unauthenticated >= MAX_UNAUTHENTICATED:
            _throttled.warning(
                "crowd", "refused a WebSocket upgrade: %d sockets are still unauthenticated", self._unauthenticated
            )
            refused = _refuse(503, "Too many connections are still authenticating; try again shortly.")
            refused.force_close()
            return refused
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT_S, max_msg_size=MAX_FRAME, compress=False)
        try:
            self._unauthenticated += 1
            try:
                await ws.prepare(request)
                self._sockets.add(ws)
                hello = await self._handshake_in_time(ws)
            finally:
                self._unauthenticated -= 1
            if hello is not None:
                await self._serve(ws, hello)
        finally:
            self._sockets.discard(ws)
            self.link.detach(ws)
            if not ws.closed:
                await ws.close()
        return ws

    async def _handshake_in_time(self, ws: web.WebSocketResponse) -> Hello | None:
        deadline = asyncio.get_running_loop().time() + AUTH_DEADLINE_S
        try:
            # The handshake's receives end at the deadline; this backstop also ends a send that hangs
            # because the other side reads nothing.
            async with asyncio.timeout_at(deadline + 1.0):
                return await self._handshake(ws, deadline)
        except TimeoutError:
            await _send_refused(ws, "auth_deadline", f"No proof within {AUTH_DEADLINE_S:g} s.")
            return None

    async def _handshake(self, ws: web.WebSocketResponse, deadline: float) -> Hello | None:
        msg = await self._receive(ws, "hello", deadline)
        if msg is None:
            return None
        hello = cast(Hello, msg)
        if hello["protocol"] != PROTOCOL_VERSION:
            await _send_refused(
                ws,
                "protocol_mismatch",
                f"This Tabpilot app speaks bridge protocol {PROTOCOL_VERSION}; the extension speaks "
                f"{hello['protocol']}. Update the extension and the app to the same release.",
            )
            return None
        keys = self.hooks.auth.keys(hello)
        if isinstance(keys, dict):
            await _send_refused(ws, keys["code"], keys["reason"])
            return None
        server_nonce = secrets.token_hex(16)
        # A pairing code is short: proofs keyed by it must not be handed to whoever asks, or they could
        # be cracked offline. So for a pairing the browser proves first, and the app only then.
        by_code = hello["auth"] == "pairing"
        proofs = [] if by_code else [pairing.app_proof(key, hello["client_nonce"], server_nonce) for key, _ in keys]
        await ws.send_json({"type": "challenge", "server_nonce": server_nonce, "app_proofs": proofs})
        answer = await self._receive(ws, "auth", deadline)
        if answer is None:
            if by_code:
                self.hooks.auth.failed(hello)  # walking away counts as a wrong guess
            return None
        tag = next(
            (
                tag
                for key, tag in keys
                if hmac.compare_digest(
                    pairing.extension_proof(key, hello["client_nonce"], server_nonce), str(answer["proof"])
                )
            ),
            None,
        )
        if tag is None:
            self.hooks.auth.failed(hello)
            await _send_refused(ws, "bad_proof", "The extension could not prove it is paired with this app.")
            return None
        busy = not self.link.has_room(hello)
        if busy and not by_code:
            await _send_refused(ws, "busy", self.hooks.auth.busy(hello))
            return None
        extra = self.hooks.auth.accepted(hello, tag)
        if by_code:
            key = next(key for key, candidate in keys if candidate == tag)
            extra["app_proof"] = pairing.app_proof(key, hello["client_nonce"], server_nonce)
        if busy:
            # The person typed a right code while the app has all the browsers it takes: keep the pairing (the
            # browser connects by itself once one leaves) rather than waste the code and the person's effort.
            await _send_refused(ws, "busy", self.hooks.auth.busy(hello), **extra)
            return None
        await ws.send_json(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "app_version": _version(),
                "state": self.hooks.welcome_state(),
                **extra,
            }
        )
        return hello

    async def _receive(self, ws: web.WebSocketResponse, expected: str, deadline: float) -> dict[str, Any] | None:
        try:
            async with asyncio.timeout_at(deadline):
                frame = await ws.receive(timeout=HELLO_TIMEOUT_S)
        except TimeoutError:
            await _send_refused(ws, f"no_{expected}", f"No {expected} in time.")
            return None
        if frame.type != WSMsgType.TEXT:
            return None
        try:
            msg = parse_incoming(frame.data)
        except ProtocolError as exc:
            await _send_refused(ws, f"bad_{expected}", str(exc))
            return None
        if msg["type"] != expected:
            await _send_refused(ws, f"bad_{expected}", f"Expected {expected}, got {msg['type']}.")
            return None
        return msg

    async def _serve(self, ws: web.WebSocketResponse, hello: Hello) -> None:
        previous = self.link.attach(ws, hello)
        if previous is not None and previous is not ws:
            await previous.close(code=4001, message=b"replaced by a newer connection")
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                continue
            try:
                msg = parse_incoming(frame.data)
            except ProtocolError as exc:
                _throttled.warning("bad_frame", "dropped a bad frame from the extension: %s", exc)
                continue
            kind = msg["type"]
            if kind == "result":
                self.link.resolve(msg)
            elif kind == "ping":
                await ws.send_str('{"type":"pong"}')
            elif kind == "event":
                try:
                    await self.link.handle_event(msg["name"], msg["data"], ws)
                except Exception:
                    log.exception("handling extension event %s failed", msg["name"])


class _GatedSite(web.TCPSite):
    """aiohttp's TCP site, each of whose connections is counted by the gate until it passes the guard."""

    def __init__(
        self, runner: web.AppRunner, host: str, port: int, gate: connections.Gate, *, reuse_address: bool
    ) -> None:
        super().__init__(runner, host, port, reuse_address=reuse_address)
        self._gate = gate

    async def start(self) -> None:
        await web.BaseSite.start(self)  # registers the site with its runner, as TCPSite.start does
        factory = self._runner.server
        assert factory is not None
        self._server = await asyncio.get_running_loop().create_server(
            connections.counted(factory, self._gate),
            self._host,
            self._port,
            backlog=self._backlog,
            reuse_address=self._reuse_address,
        )


def _version() -> str:
    from tabpilot import __version__

    return __version__


CALL_PATH = "/api/v1/call"
CHAIN_PATH = "/api/v1/chain"
LOCAL_API = (CALL_PATH, CHAIN_PATH)
"""What the app's local socket also answers (the shell CLI's fast path, agent/local_socket.py)."""


async def answer_api(hooks: BridgeHooks, path: str, body: Any) -> tuple[int, Any]:
    """A call or a chain, whichever transport brought it (HTTP here, or the local socket): status, answer."""
    # Whose tabs the calls may act on: one identity per agent name, or per named session.
    session = body.get("session") if isinstance(body, dict) else None
    session = session[:80] if isinstance(session, str) and session else None
    if path == CHAIN_PATH:
        return 200, await hooks.api_chain(body, _agent_of(body)[:80], session)
    if not isinstance(body, dict) or not isinstance(body.get("tool"), str):
        return 400, {"error": "invalid_params", "message": "Body must be {tool, arguments}."}
    arguments = body.get("arguments") or {}
    if not isinstance(arguments, dict):
        return 400, {"error": "invalid_params", "message": "'arguments' must be an object."}
    return 200, await hooks.api_call(body["tool"], arguments, _agent_of(body)[:80], session)


def _agent_of(body: Any) -> str:
    agent = body.get("agent") if isinstance(body, dict) else None
    return agent if isinstance(agent, str) and agent else "cli"


def _refuse(status: int, message: str) -> web.Response:
    return web.json_response(
        {"error": "forbidden" if status == 403 else "unavailable", "message": message}, status=status
    )


async def _send_refused(ws: web.WebSocketResponse, code: str, reason: str, **extra: Any) -> None:
    _throttled.warning(f"refused:{code}", "refused an extension connection: %s (%s)", reason, code)
    if ws.closed:
        return
    try:
        await ws.send_json({"type": "refused", "code": code, "reason": reason, **extra})
    except ConnectionError:
        return  # the other side is gone already
    await ws.close(code=4000 + (3 if code == "protocol_mismatch" else 1), message=code.encode())


class LogThrottle:
    """At most `burst` lines per `window_s` for one kind of event; then one line saying how many were left
    out. Anyone can open sockets to the bridge: one line per socket would let them fill the log (and
    rotate away what matters) in seconds."""

    def __init__(self, logger: logging.Logger, burst: int = LOG_BURST, window_s: float = LOG_WINDOW_S) -> None:
        self._log = logger
        self._burst = burst
        self._window_s = window_s
        self._kinds: dict[str, list[float]] = {}  # kind -> [window start, lines written, lines left out]

    def warning(self, kind: str, message: str, *args: object) -> None:
        now = time.monotonic()
        entry = self._kinds.setdefault(kind, [now, 0, 0])
        if now - entry[0] >= self._window_s:
            if entry[2]:
                self._log.warning("%d more like '%s' were not logged in %.0f s", entry[2], message, now - entry[0])
            entry[:] = [now, 0, 0]
        if entry[1] < self._burst:
            entry[1] += 1
            self._log.warning(message, *args)
        else:
            entry[2] += 1
            if entry[2] == 1:
                self._log.warning("'%s' happens often; the next ones this minute are counted, not logged", message)


_throttled = LogThrottle(log)
