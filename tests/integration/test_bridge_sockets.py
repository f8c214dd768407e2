"""Sockets that never prove themselves cannot pile up: a fixed deadline, a cap, and a log that stays short.

Real sockets against the real aiohttp bridge. Only the forged Origin header of the extension is needed
to open one, so any local program can; none of this may cost the app its file descriptors or its log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator

import aiohttp
import pytest

from tabpilot.bridge import server
from tabpilot.bridge.protocol import PROTOCOL_VERSION
from tabpilot.resources import extension_id, extension_origin
from tests.conftest import AppFactory
from tests.support.waiting import until


class Intruder:
    """A socket that opens with the extension's Origin, keeps pinging and never authenticates."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.session = session
        self.ws = ws
        self.opened = time.monotonic()
        self.closed_at: float | None = None
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for _ in self.ws:
            pass  # answers the server's pings and sees its close
        self.closed_at = time.monotonic()

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        await self.ws.close()
        await self.session.close()


@contextlib.asynccontextmanager
async def intruders(port: int, count: int, *, say_hello: bool = False) -> AsyncIterator[list[Intruder]]:
    opened: list[Intruder] = []
    try:
        for _ in range(count):
            session = aiohttp.ClientSession()
            try:
                # heartbeat: the client pings every 0.2 s, which restarts aiohttp's receive timeout
                ws = await session.ws_connect(
                    f"http://127.0.0.1:{port}/ws", headers={"Origin": extension_origin()}, heartbeat=0.2
                )
            except BaseException:
                await session.close()
                raise
            if say_hello:  # a valid hello, then never the proof: the socket waits at its second step
                await ws.send_json(_hello())
            opened.append(Intruder(session, ws))
        yield opened
    finally:
        for intruder in opened:
            await intruder.close()


def _hello() -> dict[str, object]:
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "extension_version": "0.1.0",
        "extension_id": extension_id(),
        "instance_id": "intruder",
        "browser": {"name": "X", "version": "1", "user_agent": "x"},
        "client_nonce": "00" * 16,
        "auth": "none",
    }


async def _status(port: int, token: str) -> int:
    async with (
        aiohttp.ClientSession() as session,
        session.get(
            f"http://127.0.0.1:{port}/api/v1/status",
            headers={"Authorization": f"Bearer {token}"},
            timeout=aiohttp.ClientTimeout(total=3),
        ) as resp,
    ):
        return resp.status


async def test_unauthenticated_sockets_are_closed_by_their_deadline_even_while_pinging(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server, "AUTH_DEADLINE_S", 1.0)
    app = await make_app()
    assert app.bridge is not None
    port = app.bridge.port
    async with intruders(port, 3) as silent, intruders(port, 2, say_hello=True) as halfway:
        everyone = silent + halfway
        # aiohttp's own receive timeout (5 s) restarts with every ping: without a fixed deadline these
        # sockets would stay open for as long as they keep pinging.
        await until(lambda: all(i.closed_at is not None for i in everyone), timeout=4.0, what="the sockets closed")
        for intruder in everyone:
            assert intruder.closed_at is not None
            assert intruder.closed_at - intruder.opened < 1.0 + 2.0
    assert not app.link.connected


async def test_unauthenticated_sockets_are_capped_and_status_still_answers(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server, "AUTH_DEADLINE_S", 3.0)
    monkeypatch.setattr(server, "MAX_UNAUTHENTICATED", 4)
    app = await make_app()
    assert app.bridge is not None
    port = app.bridge.port
    async with intruders(port, 4) as crowd:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            async with intruders(port, 1):
                pass
        assert refused.value.status == 503
        assert await _status(port, app.token) == 200
        assert all(i.closed_at is None for i in crowd)  # the cap refused the newcomer, not the crowd
        await until(lambda: all(i.closed_at is not None for i in crowd), timeout=6.0, what="the crowd closed")
    # Once they are gone, a new socket is let in again (and closed in its turn).
    async with intruders(port, 1) as later:
        assert later[0].closed_at is None
    assert await _status(port, app.token) == 200


async def test_many_refused_sockets_write_a_few_log_lines(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(server, "_throttled", server.LogThrottle(server.log, burst=3, window_s=60))
    app = await make_app()
    assert app.bridge is not None
    url = f"http://127.0.0.1:{app.bridge.port}/ws"
    caplog.set_level(logging.WARNING, logger="tabpilot.bridge")
    async with aiohttp.ClientSession() as session:
        for n in range(25):
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await session.ws_connect(url, headers={"Origin": f"https://evil{n}.example"})
            async with session.ws_connect(url, headers={"Origin": extension_origin()}) as ws:
                await ws.send_str("not json")
                async for _ in ws:
                    pass
    lines = [r for r in caplog.records if r.name == "tabpilot.bridge"]
    # 25 of each kind: at most 3 lines each, plus one saying that the rest are counted
    assert 2 <= len(lines) <= 2 * (3 + 1), [r.getMessage() for r in lines]
    assert await _status(app.bridge.port, app.token) == 200
