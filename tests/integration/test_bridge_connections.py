"""What a local program's connections may cost the bridge: a restart on the same port right after
connections closed, and (below) connections that never authenticate."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest

from tabpilot.bridge import server
from tests.conftest import AppFactory
from tests.support.fake_extension import paired_with
from tests.support.waiting import until

TIME_WAIT = "06"


def _states(port: int) -> set[str]:
    """The TCP states of the sockets whose local port is `port` (from /proc/net/tcp)."""
    states = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port:
            states.add(fields[3])
    return states


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_serve_with_a_port_restarts_at_once_while_the_last_run_s_connections_wait(
    make_app: AppFactory,
) -> None:
    port = _free_port()
    first = await make_app(port=port)
    assert first.bridge is not None and first.bridge.port == port
    async with aiohttp.ClientSession() as session:
        async with session.get(
            f"http://127.0.0.1:{port}/api/v1/status", headers={"Authorization": f"Bearer {first.token}"}
        ) as resp:
            assert resp.status == 200
        # The app closes the kept-alive connection first as it stops: its end waits in TIME_WAIT (60 s).
        await first.stop()
    await until(lambda: TIME_WAIT in _states(port), timeout=5, what="a connection in TIME_WAIT on the port")
    second = await make_app(port=port)
    assert second.bridge is not None and second.bridge.port == port
    async with (
        aiohttp.ClientSession() as session,
        session.get(
            f"http://127.0.0.1:{port}/api/v1/status", headers={"Authorization": f"Bearer {second.token}"}
        ) as resp,
    ):
        assert resp.status == 200


# -- connections that never show the token ------------------------------------------------------------

ESTABLISHED = "01"


def _held(port: int) -> int:
    """Connections the app holds on `port` (or that wait in its accept queue), as the kernel counts them."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == ESTABLISHED:
            count += 1
    return count


async def _flood(port: int, count: int) -> list[socket.socket]:
    """`count` TCP connections to the bridge that never send a byte (the attack held 20,032)."""
    loop = asyncio.get_running_loop()
    opened: list[socket.socket] = []

    async def one() -> None:
        sock = socket.socket()
        sock.setblocking(False)
        opened.append(sock)
        await loop.sock_connect(sock, ("127.0.0.1", port))

    for start in range(0, count, 200):
        await asyncio.gather(*(one() for _ in range(min(200, count - start))))
    return opened


async def _cli(home: Path, *args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tabpilot",
        *args,
        env={**os.environ, "TABPILOT_HOME": str(home)},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


MCP_LIST = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
    )
    + "\n"
    + json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
    + "\n"
    + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    + "\n"
)


@pytest.mark.parametrize("cap", [64, server.MAX_PENDING_CONNECTIONS], ids=["low_cap", "default_cap"])
async def test_a_flood_of_idle_connections_past_the_cap_leaves_the_cli_mcp_and_extension_answering(
    make_app: AppFactory, home: Path, monkeypatch: pytest.MonkeyPatch, cap: int
) -> None:
    # A long deadline: what bounds the flood here is the cap, not the connections' deadline running out.
    monkeypatch.setattr(server, "HEADERS_DEADLINE_S", 120.0)
    monkeypatch.setattr(server, "MAX_PENDING_CONNECTIONS", cap)
    app = await make_app()
    assert app.bridge is not None
    port = app.bridge.port
    flood = await _flood(port, 3 * cap)
    try:
        # Each newcomer past the cap closed the oldest waiting one: the app holds at most `cap` of them.
        await until(lambda: _held(port) <= cap, timeout=20, what=f"the app to hold at most {cap} connections")
        # The CLI (a new TCP connection with the token), `tabpilot mcp` and the extension still get in.
        code, out, err = await _cli(home, "status", "--json")
        assert code == 0, err[-2000:]
        assert json.loads(out)["port"] == port
        code, out, err = await _cli(home, "mcp", stdin=MCP_LIST.encode())
        assert code == 0, err[-2000:]
        answers = [json.loads(line) for line in out.splitlines() if line.strip()]
        assert [a["id"] for a in answers] == [1, 2]
        assert len(answers[1]["result"]["tools"]) == 4
        ext = paired_with(app)
        try:
            await ext.connect()
            assert ext.welcome is not None
            assert app.link.connected
        finally:
            await ext.close()
        async with (
            aiohttp.ClientSession() as session,
            session.get(
                f"http://127.0.0.1:{port}/api/v1/status", headers={"Authorization": f"Bearer {app.token}"}
            ) as resp,
        ):
            assert resp.status == 200
        assert _held(port) <= cap + 1  # the session's connection may still be closing
    finally:
        for sock in flood:
            sock.close()


async def _answer(reader: asyncio.StreamReader) -> int:
    """One whole HTTP response off a kept-alive connection: its status."""
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).decode()
    length = next(int(h.split(":")[1]) for h in head.split("\r\n") if h.lower().startswith("content-length:"))
    await asyncio.wait_for(reader.readexactly(length), 10)
    return int(head.split(" ")[1])


async def _closed_within(reader: asyncio.StreamReader, timeout: float, trickle: Callable[[], None]) -> float | None:
    """Wait for the app to close the connection, calling `trickle` between waits of 0.1 s: when it closed
    (seconds from now), or None if it was still open after `timeout`."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            data = await asyncio.wait_for(reader.read(1024), 0.1)
        except TimeoutError:
            trickle()
            continue
        except ConnectionResetError:
            return time.monotonic() - started
        if not data:
            return time.monotonic() - started
    return None


async def test_idle_and_trickling_connections_are_closed_at_their_deadline_and_token_holders_stay(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server, "HEADERS_DEADLINE_S", 1.0)
    app = await make_app()
    assert app.bridge is not None
    port = app.bridge.port
    status = f"GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {app.token}\r\n\r\n"
    # A client with the token, its connection kept alive across the others' deadline.
    kept_reader, kept = await asyncio.open_connection("127.0.0.1", port)
    kept.write(status.encode())
    assert await _answer(kept_reader) == 200
    # A slowloris: a request line, then its headers one byte every 0.1 s, never finished.
    slow_reader, slow = await asyncio.open_connection("127.0.0.1", port)
    slow.write(f"GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode())
    sent = 0

    def trickle() -> None:
        nonlocal sent
        slow.write(b"a")
        sent += 1

    idle_reader, idle = await asyncio.open_connection("127.0.0.1", port)
    slow_closed = await _closed_within(slow_reader, 1.0 + 4.0, trickle)
    assert slow_closed is not None, "the trickling connection was never closed"
    assert sent >= 5  # it kept sending until the end
    idle_closed = await _closed_within(idle_reader, 4.0, lambda: None)
    assert idle_closed is not None, "the idle connection was never closed"
    # The token holder's connection outlived their deadline and still answers.
    kept.write(status.encode())
    assert await _answer(kept_reader) == 200
    for writer in (kept, slow, idle):
        writer.close()
