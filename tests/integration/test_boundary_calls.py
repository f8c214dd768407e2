"""Every call gets an answer with a contract code: too deep, cut short, NaN, ids that cannot be file names.

Through the real transports of the app: the MCP socket `tabpilot mcp` relays to, streamable HTTP with
the SDK's own client, the HTTP API; and the app's real workflow folder.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tabpilot.app import App
from tabpilot.engine.contract import limits
from tabpilot.engine.errors import MAX_MESSAGE_CHARS
from tabpilot.resources import extension_origin
from tests.conftest import AppFactory


def nested(depth: int) -> Any:
    value: Any = "deep"
    for n in range(depth):
        value = [value] if n % 2 else {"k": value}
    return value


def _call_line(request_id: int, tool: str, arguments: dict[str, Any]) -> str:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool, "arguments": {}}}
    text = json.dumps(message)
    # placed by hand: json.dumps itself would fail on some of what the tests send
    return text.replace('"arguments": {}', '"arguments": ' + _dumps(arguments))


def _dumps(value: Any) -> str:
    if isinstance(value, str) and value.startswith("RAW:"):
        return value[4:]
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_dumps(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


@pytest_asyncio.fixture
async def app(make_app: AppFactory) -> App:
    return await make_app(pilot=True)


@pytest_asyncio.fixture
async def mcp_socket(app: App) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    assert app.bridge is not None
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(
            f"http://127.0.0.1:{app.bridge.port}/mcp/ws", headers={"Authorization": f"Bearer {app.token}"}
        ) as ws,
    ):
        yield ws


async def _reply(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    reply = await ws.receive_json(timeout=10)
    assert isinstance(reply, dict)
    return reply


def _tool_error(reply: dict[str, Any], request_id: int) -> dict[str, Any]:
    assert reply["id"] == request_id, reply
    result = reply["result"]
    assert result["isError"] is True, reply
    envelope = result["structuredContent"]
    assert isinstance(envelope, dict)
    assert json.loads(result["content"][0]["text"]) == envelope
    return envelope


async def test_the_mcp_socket_answers_a_truncated_line_with_a_parse_error(
    mcp_socket: aiohttp.ClientWebSocketResponse,
) -> None:
    line = _call_line(7, "observe", {"what": "page"})
    await mcp_socket.send_str(line[: len(line) // 2])
    reply = await _reply(mcp_socket)
    assert reply["id"] == 7  # the id is still readable: the caller's request is answered, not left waiting
    assert reply["error"]["code"] == -32700
    assert "Parse error" in reply["error"]["message"]


@pytest.mark.parametrize("depth", [70, 250, 5_000])
async def test_the_mcp_socket_refuses_deep_arguments_with_invalid_params(
    mcp_socket: aiohttp.ClientWebSocketResponse, depth: int
) -> None:
    deep = "RAW:" + "[" * depth + '"deep"' + "]" * depth
    await mcp_socket.send_str(_call_line(8, "observe", {"what": "dom", "selector": deep}))
    envelope = _tool_error(await _reply(mcp_socket), 8)
    assert envelope["error"] == "invalid_params"
    assert "deeper" in envelope["message"]


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
async def test_the_mcp_socket_refuses_nan_and_infinity(
    mcp_socket: aiohttp.ClientWebSocketResponse, constant: str
) -> None:
    await mcp_socket.send_str(_call_line(9, "interact", {"action": "execute_js", "timeout_ms": f"RAW:{constant}"}))
    envelope = _tool_error(await _reply(mcp_socket), 9)
    assert envelope["error"] == "invalid_params"
    assert "NaN and Infinity" in envelope["message"]
    await mcp_socket.send_str(
        '{"jsonrpc":"2.0","id":10,"method":"ping","params":{"x":' + constant + "}}"
    )  # not a tool call: a JSON-RPC error
    reply = await _reply(mcp_socket)
    assert reply["id"] == 10
    assert reply["error"]["code"] == -32602


async def test_a_session_goes_on_after_refused_lines(mcp_socket: aiohttp.ClientWebSocketResponse) -> None:
    await mcp_socket.send_str('{"jsonrpc":"2.0","id":1,')
    assert (await _reply(mcp_socket))["error"]["code"] == -32700
    await mcp_socket.send_str(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
    )
    reply = await _reply(mcp_socket)
    assert reply["id"] == 2
    assert reply["result"]["serverInfo"]["name"] == "tabpilot"


async def test_streamable_http_answers_deep_arguments_with_invalid_params(app: App) -> None:
    assert app.bridge is not None
    url = f"http://127.0.0.1:{app.bridge.port}/mcp"
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {app.token}"}) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for depth in (40, 250):
            result = await session.call_tool("observe", {"what": "dom", "selector": nested(depth)})
            assert result.is_error
            assert result.structured_content is not None
            assert result.structured_content["error"] == "invalid_params", depth
        # a call larger than 8 MB: refused like any other bad argument, not with a bare HTTP 413
        huge = await session.call_tool("observe", {"what": "dom", "selector": "x" * (limits.MAX_MESSAGE_BYTES + 1)})
        assert huge.is_error
        assert huge.structured_content is not None
        assert huge.structured_content["error"] == "invalid_params"
        assert "MB" in huge.structured_content["message"]
        # and the session still works
        fine = await session.call_tool("observe", {"what": "pilot"})
        assert not fine.is_error


async def test_streamable_http_answers_a_truncated_body_with_a_parse_error(app: App) -> None:
    assert app.bridge is not None
    headers = {
        "Authorization": f"Bearer {app.token}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    line = _call_line(3, "observe", {"what": "page"})
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"http://127.0.0.1:{app.bridge.port}/mcp", data=line[:40], headers=headers) as resp,
    ):
        assert resp.status == 400
        body = await resp.json()
    assert body["error"]["code"] == -32700


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ('{"tool":"observe","arguments":{"what":"pilot","x":NaN}}', "NaN"),
        ('{"tool":"observe","arguments":{"what":"pilot","x":' + "[" * 5000 + "]" * 5000 + "}}", "deeper"),
        ('{"tool":"observe","arguments":{"what":"pi', "JSON"),
        ('{"tool":"observe","arguments":{"what":"pilot","x":"' + "x" * limits.MAX_MESSAGE_BYTES + '"}}', "8 MB"),
    ],
    ids=["nan", "deep", "truncated", "large"],
)
async def test_the_http_api_refuses_bodies_it_cannot_take_with_invalid_params(app: App, body: str, said: str) -> None:
    assert app.bridge is not None
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{app.bridge.port}/api/v1/call",
            data=body,
            headers={"Authorization": f"Bearer {app.token}", "Content-Type": "application/json"},
        ) as resp,
    ):
        assert resp.status in (400, 413)
        answer = await resp.json()
    assert answer["error"] == "invalid_params"
    assert said in answer["message"]


async def _error(app: App, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = await app.api_call(tool, arguments, "test")
    assert answer["ok"] is False, (tool, answer)
    error = answer["error"]
    assert isinstance(error, dict)
    return error


LONG_ID = "w" * 300


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("observe", {"what": "workflows", "workflow_id": LONG_ID}),
        ("configure", {"action": "export_workflow", "workflow_id": LONG_ID}),
        ("configure", {"action": "delete_workflow", "workflow_id": LONG_ID}),
        ("generate", {"type": "playwright_script", "workflow_id": LONG_ID}),
        ("interact", {"action": "scrape", "operation": "replay", "workflow_id": LONG_ID}),
        ("configure", {"action": "export_workflow", "workflow_id": "a\x00b"}),
        ("configure", {"action": "export_workflow", "workflow_id": "../../etc/passwd"}),
        ("observe", {"what": "workflows", "workflow_id": "é" * 200}),
    ],
)
async def test_a_workflow_id_that_cannot_be_a_file_name_is_not_found(
    app: App, tool: str, arguments: dict[str, Any]
) -> None:
    """A workflow_id over 255 bytes once raised "File name too long" (internal) in each of these."""
    error = await _error(app, tool, arguments)
    assert error["error"] in ("workflow_not_found", "invalid_params"), error
    assert len(error["message"]) < 400


@pytest.mark.parametrize("kind", [["click"], {"a": 1}, None, 5, True])
async def test_a_step_whose_type_is_not_a_string_is_invalid_params(app: App, kind: Any) -> None:
    step = {"type": kind, "selector": "#x"}
    for tool, arguments in (
        ("interact", {"action": "scrape", "operation": "workflow", "name": "w", "steps": [step]}),
        ("configure", {"action": "import_workflow", "workflow": {"workflow_id": "w", "name": "w", "steps": [step]}}),
    ):
        error = await _error(app, tool, arguments)
        assert error["error"] == "invalid_params", (tool, error)
        assert "unknown step type" in error["message"]
        assert "None" not in error["message"] and "True" not in error["message"], error["message"]


async def test_a_huge_correlation_id_is_not_echoed_back_whole(app: App) -> None:
    huge = "c" * 1_700_000
    error = await _error(app, "observe", {"what": "command_result", "correlation_id": huge})
    assert len(json.dumps(error)) < MAX_MESSAGE_CHARS * 2


async def test_errors_speak_json_not_python(app: App) -> None:
    error = await _error(app, "interact", {"action": "navigate", "url": "http://x.test/", "wait_until": None})
    assert error["error"] != "internal"
    error = await _error(app, "observe", {"what": "logs", "level": {"a": None}})
    assert error["error"] == "invalid_params"
    error = await _error(app, "interact", {"action": "navigate", "url": "http://x.test/", "wait_until": True})
    assert error["error"] == "invalid_params"
    assert "True" not in error["message"]
    error = await _error(
        app,
        "configure",
        {"action": "import_workflow", "workflow": {"workflow_id": None, "name": "w", "steps": []}},
    )
    assert "None" not in error["message"] and "null" in error["message"], error["message"]


async def test_deep_arguments_through_the_engine_are_invalid_params(app: App) -> None:
    for depth in (limits.MAX_DEPTH + 1, 900):
        error = await _error(app, "interact", {"action": "execute_js", "script": "1", "x": nested(depth)})
        assert error["error"] == "invalid_params"
        error = await _error(
            app, "interact", {"action": "scrape", "operation": "extract", "selector": "tr", "schema": nested(depth)}
        )
        assert error["error"] == "invalid_params"
        assert "deeper" in error["message"]


async def test_every_http_api_body_nested_a_thousand_deep_is_invalid_params(app: App) -> None:
    """Not only the calls: `pairings revoke` parsed its body on its own and answered 500 (RecursionError)."""
    assert app.bridge is not None
    deep = '{"pair_id":' + "[" * 1000 + "]" * 1000 + "}"
    async with aiohttp.ClientSession() as session:
        for path in ("/api/v1/call", "/api/v1/chain", "/api/v1/pairings/revoke"):
            async with session.post(
                f"http://127.0.0.1:{app.bridge.port}{path}",
                data=deep,
                headers={"Authorization": f"Bearer {app.token}", "Content-Type": "application/json"},
            ) as resp:
                assert resp.status == 400, path
                answer = await resp.json()
            assert answer["error"] == "invalid_params", path
            assert "64 levels" in answer["message"], path


async def test_a_first_extension_frame_nested_a_thousand_deep_is_refused_with_a_reason(app: App) -> None:
    assert app.bridge is not None
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"http://127.0.0.1:{app.bridge.port}/ws", headers={"Origin": extension_origin()}) as ws,
    ):
        await ws.send_str('{"type":"hello","x":' + "[" * 1000 + "]" * 1000 + "}")
        refused = await ws.receive_json(timeout=10)
        assert refused["type"] == "refused"
        assert refused["code"] == "bad_hello"
        assert "deeper" in refused["reason"]
    assert await app.api_call("observe", {"what": "pilot"}, "test")
