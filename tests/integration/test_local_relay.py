"""`tabpilot mcp`'s fast path: the app's local socket (0600, beside the state file) and a relay made of
the standard library alone; where no socket can be made, the WebSocket relay as before."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from pathlib import Path

from tabpilot.agent import local_socket
from tests.conftest import AppFactory

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}},
}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


async def piped(home: Path, *messages: dict[str, object]) -> tuple[list[dict[str, object]], str]:
    """Run `tabpilot mcp` as an agent would, pipe the messages in, close stdin: its answers and stderr."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-X",
        "importtime",
        "-m",
        "tabpilot",
        "mcp",
        env={**os.environ, "TABPILOT_HOME": str(home)},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    data = "".join(json.dumps(m) + "\n" for m in messages).encode()
    out, err = await asyncio.wait_for(proc.communicate(data), 60)
    assert proc.returncode == 0, err.decode()[-2000:]
    return [json.loads(line) for line in out.splitlines() if line.strip()], err.decode()


def imported(importtime: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in importtime.splitlines() if line.startswith("import time:")}


async def test_the_socket_is_the_users_alone_and_goes_with_the_app(make_app: AppFactory, home: Path) -> None:
    app = await make_app()
    path = app.paths.local_socket
    assert path.parent == app.paths.state_file.parent
    assert stat.S_ISSOCK(path.stat().st_mode)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    await app.stop()
    assert not path.exists()


async def test_tabpilot_mcp_answers_through_the_socket_without_the_heavy_libraries(
    make_app: AppFactory, home: Path
) -> None:
    await make_app()
    answers, err = await piped(home, INIT, INITIALIZED, LIST)
    # Every answer owed when stdin closed was delivered before the relay ended.
    assert [a["id"] for a in answers] == [1, 2]
    assert answers[0]["result"]["serverInfo"]["name"] == "tabpilot"  # type: ignore[index]
    assert [t["name"] for t in answers[1]["result"]["tools"]] == ["observe", "interact", "configure", "generate"]  # type: ignore[index]
    modules = imported(err)
    assert "tabpilot.agent.local_relay" in modules
    heavy = {m for m in modules if m.split(".")[0] in ("aiohttp", "mcp", "keyring", "PySide6", "playwright")}
    assert heavy == set(), f"the relay imported {sorted(heavy)}"
    # Straight to the socket: no command-line parser, no engine, not even pathlib (home.py finds it).
    assert not {"argparse", "tabpilot.engine", "tabpilot.paths"} & modules


async def test_a_home_too_long_for_a_socket_still_relays_over_the_websocket(
    make_app: AppFactory, tmp_path: Path
) -> None:
    root = tmp_path / ("h" * (local_socket.MAX_PATH + 10))
    app = await make_app(root=root)
    assert not app.paths.local_socket.exists()
    answers, err = await piped(root, INIT, INITIALIZED, LIST)
    assert [a["id"] for a in answers] == [1, 2]
    assert "aiohttp" in imported(err)  # the WebSocket relay did it


async def shell(home: Path, *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-X",
        "importtime",
        "-m",
        "tabpilot",
        *args,
        env={**os.environ, "TABPILOT_HOME": str(home)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_shell_calls_go_through_the_socket_without_a_keyring_lookup(make_app: AppFactory, home: Path) -> None:
    await make_app()
    code, out, err = await shell(home, "call", "observe", '{"what": "pilot"}')
    assert code == 0, err[-2000:]
    assert json.loads(out)["ai_web_pilot"] is False
    code, out, err = await shell(home, "pilot")
    assert code == 0, err[-2000:]
    assert "ai_web_pilot: false" in out
    heavy = {m for m in imported(err) if m.split(".")[0] in ("aiohttp", "mcp", "keyring", "secretstorage", "PySide6")}
    assert heavy == set(), f"the shell CLI imported {sorted(heavy)}"
    # A refusal comes back as the app's own answer, not as a transport failure.
    code, out, err = await shell(home, "call", "observe", '{"what": "nope"}')
    assert code == 1
    assert json.loads(out)["error"] == "invalid_params"


def _deep(depth: int) -> str:
    """A JSON value nested `depth` levels (written by hand: Python's own encoder gives up long before)."""
    return "[" * depth + "]" * depth


DEEP_CALL = (
    '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"observe","arguments":{"what":"pilot","x":'
    + _deep(1000)
    + "}}}"
)
DEEP_REQUEST = '{"jsonrpc":"2.0","id":"eight","method":"tools/list","params":{"cursor":' + _deep(1000) + "}}"


async def piped_lines(home: Path, *lines: str) -> list[dict[str, object]]:
    """`tabpilot mcp` with raw lines piped in (some not writable by json.dumps); its answers."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tabpilot",
        "mcp",
        env={**os.environ, "TABPILOT_HOME": str(home)},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate("".join(line + "\n" for line in lines).encode()), 60)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert "Traceback" not in err.decode(), err.decode()[-2000:]
    return [json.loads(line) for line in out.splitlines() if line.strip()]


async def test_a_request_nested_a_thousand_deep_is_answered_invalid_params_and_the_session_goes_on(
    make_app: AppFactory, home: Path
) -> None:
    await make_app()
    opening = [json.dumps(INIT), json.dumps(INITIALIZED)]
    answers = await piped_lines(home, *opening, DEEP_CALL, DEEP_REQUEST, json.dumps(LIST))
    by_id = {a["id"]: a for a in answers}
    assert set(by_id) == {1, 7, "eight", 2}, answers
    # A tool call: a tool error like any other bad argument.
    call = by_id[7]["result"]
    assert call["isError"] is True  # type: ignore[index]
    assert call["structuredContent"]["error"] == "invalid_params"  # type: ignore[index]
    assert "64 levels" in call["structuredContent"]["message"]  # type: ignore[index]
    # Any other request: JSON-RPC's invalid params.
    assert by_id["eight"]["error"]["code"] == -32602  # type: ignore[index]
    assert len(by_id[2]["result"]["tools"]) == 4  # type: ignore[index]


async def _socket_lines(path: Path, *lines: str) -> list[dict[str, object]]:
    """One line up, one answer down, in turn, on one connection to the app's local socket."""
    reader, writer = await asyncio.open_unix_connection(str(path), limit=1 << 24)
    answers = []
    try:
        for line in lines:
            writer.write(line.encode() + b"\n")
            await writer.drain()
            answer = await asyncio.wait_for(reader.readline(), 30)
            assert answer, f"the socket closed without answering {line[:80]}…"
            answers.append(json.loads(answer))
    finally:
        writer.close()
    return answers


async def test_the_local_socket_answers_a_request_nested_a_thousand_deep(make_app: AppFactory) -> None:
    app = await make_app()
    path = app.paths.local_socket
    # The shell CLI's requests: refused with a reason, and the connection still takes the next one.
    deep_api = '{"api":"/api/v1/call","body":{"tool":"observe","arguments":{"what":"pilot","x":' + _deep(1000) + "}}}"
    plain_api = json.dumps({"api": "/api/v1/call", "body": {"tool": "observe", "arguments": {"what": "pilot"}}})
    refused, fine = await _socket_lines(path, deep_api, plain_api)
    assert refused["status"] == 400
    assert refused["body"]["error"] == "invalid_params"  # type: ignore[index]
    assert "64 levels" in refused["body"]["message"]  # type: ignore[index]
    assert fine["status"] == 200
    assert fine["body"]["result"]["ai_web_pilot"] is False  # type: ignore[index]
    # An MCP session whose first line is too deep: a JSON-RPC answer, and the session goes on.
    (deep,) = await _socket_lines(path, DEEP_REQUEST)
    assert deep["id"] == "eight"
    assert deep["error"]["code"] == -32602  # type: ignore[index]


async def test_a_lone_surrogate_in_a_request_gets_an_answer(make_app: AppFactory, home: Path) -> None:
    """`"\\ud800"` is valid JSON but no UTF-8 can carry it: `tabpilot mcp` never answered such a request."""
    await make_app()
    lone = (
        '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"configure","arguments":'
        '{"action":"mock_route","url":"**/x\\ud800","body":"\\ud800"}}}'
    )
    answers = await piped_lines(home, json.dumps(INIT), json.dumps(INITIALIZED), lone, json.dumps(LIST))
    by_id = {a["id"]: a for a in answers}
    assert set(by_id) == {1, 9, 2}, answers
    result = by_id[9]["result"]
    assert result["isError"] is True  # type: ignore[index]
    assert result["structuredContent"]["error"] in ("invalid_params", "ai_web_pilot_disabled")  # type: ignore[index]
