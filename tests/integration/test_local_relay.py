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
