"""`tabpilot mcp`'s relay: a line longer than it takes is dropped with an answer, and the session goes on."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from tabpilot.agent import relay
from tests.conftest import AppFactory
from tests.support.waiting import until


class Collected:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)

    def flush(self) -> None:
        pass

    def lines(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.data.splitlines() if line.strip()]


async def test_an_overlong_line_is_answered_and_the_next_one_still_goes_through(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(relay, "MAX_MESSAGE", 1024)
    app = await make_app()
    assert app.bridge is not None
    read_fd, write_fd = os.pipe()
    stdin = os.fdopen(read_fd, "rb")
    stdout = Collected()
    task = asyncio.get_running_loop().create_task(
        relay.relay(f"ws://127.0.0.1:{app.bridge.port}/mcp/ws", app.token, stdin, stdout)  # type: ignore[arg-type]
    )
    try:
        os.write(write_fd, b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * 4000 + b'"}}\n')
        os.write(write_fd, b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
        await until(lambda: len(stdout.lines()) >= 2, timeout=10, what="two answers")
        first, second = stdout.lines()[:2]
        assert first["id"] is None
        assert "64 MB" in str(first["error"])
        assert second["id"] == 2
    finally:
        os.close(write_fd)
        await asyncio.wait_for(task, 10)
        stdin.close()


async def test_answers_still_owed_when_stdin_ends_are_delivered_before_the_relay_ends(make_app: AppFactory) -> None:
    """A script that pipes its requests in and closes stdin gets every answer (it used to get none)."""
    app = await make_app()
    assert app.bridge is not None
    read_fd, write_fd = os.pipe()
    stdin = os.fdopen(read_fd, "rb")
    stdout = Collected()
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    lines = [
        init,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": "two",
            "method": "tools/call",
            "params": {"name": "observe", "arguments": {"what": "pilot"}},
        },
    ]
    os.write(write_fd, b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    os.close(write_fd)  # stdin ends before any answer came back
    await asyncio.wait_for(
        relay.relay(f"ws://127.0.0.1:{app.bridge.port}/mcp/ws", app.token, stdin, stdout),  # type: ignore[arg-type]
        15,
    )
    stdin.close()
    answers = stdout.lines()
    assert [a["id"] for a in answers] == [1, "two"]
    assert "ai_web_pilot" in json.dumps(answers[1]["result"])
