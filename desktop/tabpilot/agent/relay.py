"""`tabpilot mcp`: MCP on stdio, relayed message by message to the app's streamable-HTTP endpoint.

The relay does not interpret tools. It only adds the HTTP headers that the SDK's own client session
would add (protocol version, method, name), because a relay has no session of its own.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.server.stdio import stdio_server
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
    find_invalid_x_mcp_header,
    mcp_param_headers,
    x_mcp_header_map,
)
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp_types import PROTOCOL_VERSION_META_KEY, JSONRPCError, JSONRPCRequest, JSONRPCResponse

from tabpilot import client
from tabpilot.paths import Paths

log = logging.getLogger("tabpilot.relay")


class HeaderStamper:
    def __init__(self) -> None:
        self.legacy_version: str | None = None
        self._pending_init: set[Any] = set()
        self._pending_list: set[Any] = set()
        self._param_maps: dict[str, dict[tuple[str, ...], str]] = {}

    def _legacy(self, message: Any) -> SessionMessage:
        assert self.legacy_version is not None
        return SessionMessage(
            message, ClientMessageMetadata(headers={MCP_PROTOCOL_VERSION_HEADER: self.legacy_version})
        )

    def upstream(self, msg: SessionMessage) -> SessionMessage:
        m = msg.message
        if not isinstance(m, JSONRPCRequest):
            return self._legacy(m) if self.legacy_version else msg
        params = m.params if isinstance(m.params, dict) else {}
        meta = params.get("_meta")
        if m.method == "initialize":
            self._pending_init.add(m.id)
            return msg
        if m.method == "tools/list":
            self._pending_list.add(m.id)
        if isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta:
            headers = {
                MCP_PROTOCOL_VERSION_HEADER: str(meta[PROTOCOL_VERSION_META_KEY]),
                MCP_METHOD_HEADER: m.method,
            }
            name_key = NAME_BEARING_METHODS.get(m.method)
            if name_key is not None and isinstance(params.get(name_key), str):
                headers[MCP_NAME_HEADER] = encode_header_value(params[name_key])
            if m.method == "tools/call" and params.get("name") in self._param_maps:
                headers.update(
                    mcp_param_headers(self._param_maps[params["name"]], params.get("arguments") or {})
                )
            return SessionMessage(m, ClientMessageMetadata(headers=headers))
        return self._legacy(m) if self.legacy_version else msg

    def downstream(self, msg: SessionMessage) -> None:
        m = msg.message
        if not isinstance(m, JSONRPCResponse | JSONRPCError):
            return
        if m.id in self._pending_init:
            self._pending_init.discard(m.id)
            if isinstance(m, JSONRPCResponse):
                self.legacy_version = m.result.get("protocolVersion")
        elif m.id in self._pending_list:
            self._pending_list.discard(m.id)
            if isinstance(m, JSONRPCResponse):
                for tool in m.result.get("tools", []):
                    schema = tool.get("inputSchema")
                    if find_invalid_x_mcp_header(schema) is None:
                        self._param_maps[tool["name"]] = x_mcp_header_map(schema)


async def relay(url: str, token: str) -> None:
    stamper = HeaderStamper()
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30.0, read=3600.0)
    )
    async with (
        http,
        stdio_server() as (in_read, in_write),
        streamable_http_client(url, http_client=http, max_sse_event_size=None) as (up_read, up_write),
        anyio.create_task_group() as tg,
    ):

        async def pump_up() -> None:
            async with up_write:
                async for item in in_read:
                    if isinstance(item, Exception):
                        log.warning("dropped an unparsable line from the MCP client: %s", item)
                        continue
                    await up_write.send(stamper.upstream(item))
            tg.cancel_scope.cancel()

        async def pump_down() -> None:
            async with in_write:
                async for item in up_read:
                    if isinstance(item, Exception):
                        log.warning("transport error from the app: %r", item)
                        continue
                    stamper.downstream(item)
                    await in_write.send(item)

        tg.start_soon(pump_up)
        tg.start_soon(pump_down)


def run_relay(paths: Paths) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="tabpilot mcp: %(message)s")
    for noisy in ("httpx2", "httpx", "mcp"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        try:
            target = client.find(paths)
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
    try:
        anyio.run(relay, f"{target.base}/mcp", target.token)
    except KeyboardInterrupt:
        pass
    except BaseExceptionGroup as group:
        log.warning(
            "the connection to Tabpilot ended: %s", group.exceptions[0] if group.exceptions else group
        )
        return 1
    return 0
