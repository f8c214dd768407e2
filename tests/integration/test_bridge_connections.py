"""What a local program's connections may cost the bridge: a restart on the same port right after
connections closed, and (below) connections that never authenticate."""

from __future__ import annotations

import socket
from pathlib import Path

import aiohttp

from tests.conftest import AppFactory
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
