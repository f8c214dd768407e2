"""The fuzz check through the real MCP paths: the app's MCP server and the SDK's own client, over
streamable HTTP and through `tabpilot mcp` (stdio, relayed to the app's MCP socket).

Fewer calls than the engine's fuzz test, but these cross the boundary limits (nesting past what the
SDK's parser takes, NaN, huge strings): each still gets a result or a contract error, never silence.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import AppFactory
from tests.support import fuzz
from tests.support.mcp_stdio import StdioMcp

EXAMPLES = 150
RELAYED_EXAMPLES = 60
ANSWER_WITHIN_S = 30.0
MAX_DEPTH = 240
"""Past the SDK parser's limit (200); the SDK client itself cannot send more than about 250 (and its
transport dies trying, in a task of its own)."""


SETTINGS = settings(
    deadline=None,
    phases=[Phase.generate],  # no shrinking: a failing call shows as it came, in seconds
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def _check(result: Any, one: tuple[str, dict[str, Any]]) -> None:
    assert result.structured_content is not None, fuzz._short(one)
    if result.is_error:
        fuzz.check_error(result.structured_content, one)
    else:
        fuzz.check_result(result.structured_content, one)


async def test_hostile_calls_through_tabpilot_mcp_get_a_contract_answer(make_app: AppFactory, home: Path) -> None:
    app = await make_app(pilot=True)
    for name in app.engine.pilot.capabilities:
        app.engine.pilot.capabilities[name] = True
    client = StdioMcp({"TABPILOT_HOME": str(home)})
    await client.start()
    loop = asyncio.get_running_loop()
    try:

        @settings(SETTINGS, max_examples=RELAYED_EXAMPLES)
        @given(fuzz.tool_calls(app.engine.registry, max_depth=MAX_DEPTH))
        def calls(one: tuple[str, dict[str, Any]]) -> None:
            _check(asyncio.run_coroutine_threadsafe(client.call(*one), loop).result(ANSWER_WITHIN_S), one)

        await asyncio.to_thread(calls)
        assert not (await client.call("observe", {"what": "pilot"})).is_error
    finally:
        await client.close()


async def test_hostile_calls_through_streamable_http_get_a_contract_answer(make_app: AppFactory) -> None:
    app = await make_app(pilot=True)
    assert app.bridge is not None
    for name in app.engine.pilot.capabilities:
        app.engine.pilot.capabilities[name] = True
    url = f"http://127.0.0.1:{app.bridge.port}/mcp"
    loop = asyncio.get_running_loop()
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {app.token}"}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()

        async def call(tool: str, arguments: dict[str, Any]) -> Any:
            return await session.call_tool(tool, arguments)

        @settings(SETTINGS, max_examples=EXAMPLES)
        @given(fuzz.tool_calls(app.engine.registry, max_depth=MAX_DEPTH))
        def calls(one: tuple[str, dict[str, Any]]) -> None:
            _check(asyncio.run_coroutine_threadsafe(call(*one), loop).result(ANSWER_WITHIN_S), one)

        await asyncio.to_thread(calls)
        still = await session.call_tool("observe", {"what": "pilot"})
        assert not still.is_error
