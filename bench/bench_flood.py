"""A local program floods the bridge with idle TCP connections: what the app holds, and whether it answers.

The attack of issue 18 opened 20,032 idle connections to 127.0.0.1:<port> and kept them; the app held
every one until its descriptor limit, after which the API, the CLI and `tabpilot mcp` hung. Here N
connections (20,000 by default, fewer if this process's descriptor limit is lower) are opened against a
running `serve --browser none`, each reopened as soon as the app closes it, for a bounded time. Meanwhile:
the descriptors the app holds (/proc/<pid>/fd) and the connections the kernel counts on its port, the
wall time of a whole `tabpilot status` (a new TCP connection with the token) and of a `tabpilot mcp`
session's initialize + tools/list (the local socket). Loopback only. Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_flood [--connections 20000] [--seconds 15]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import sys
import tempfile
import time
from pathlib import Path

from tests.support.processes import Serve
from tests.support.waiting import until

from bench.common import line, median
from tabpilot.bridge import server

MCP_LIST = "".join(
    json.dumps(message) + "\n"
    for message in (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": ""}},
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    )
).encode()
ANSWER_TARGET_MS = 5000.0
"""The CLI's own timeout for `status`: what matters is that it answers (calm figures are printed beside)."""
ACCEPT_BURST = 128
"""asyncio accepts up to the listen backlog (128) in one turn, and the connections those newcomers evicted
close on the next; the kernel also counts up to as many waiting in the accept queue. So what the app holds
is bounded by the cap plus two such bursts, whatever the flood's size."""
HEADROOM = 300
"""Descriptors this process keeps for itself (the serve's pipes, the CLI's subprocesses)."""


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def held(port: int) -> int:
    """Connections on the app's port in ESTABLISHED state (held, or waiting in its accept queue)."""
    count = 0
    for row in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = row.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "01":
            count += 1
    return count


async def timed(home: Path, *args: str, stdin: bytes = b"") -> tuple[float, str]:
    """A whole `tabpilot ...` process: wall time in ms, and its stdout (fails loudly if it failed)."""
    began = time.perf_counter()
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
    elapsed = (time.perf_counter() - began) * 1000
    assert proc.returncode == 0, err.decode()[-1000:]
    return elapsed, out.decode()


async def status_ms(home: Path) -> float:
    elapsed, out = await timed(home, "status", "--json")
    assert json.loads(out)["running"] is True
    return elapsed


async def tools_list_ms(home: Path) -> float:
    elapsed, out = await timed(home, "mcp", stdin=MCP_LIST)
    answers = [json.loads(row) for row in out.splitlines() if row.strip()]
    assert [a["id"] for a in answers] == [1, 2], answers
    return elapsed


class Flood:
    """`count` idle connections, each reopened as soon as the app closes it, until stopped."""

    def __init__(self, port: int, count: int) -> None:
        self.port = port
        self.count = count
        self.connects = 0
        self.closed_by_app = 0
        self.failed = 0
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._connecting = asyncio.Semaphore(500)

    async def _one(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._stop.is_set():
            sock = socket.socket()
            sock.setblocking(False)
            try:
                async with self._connecting:
                    await loop.sock_connect(sock, ("127.0.0.1", self.port))
                self.connects += 1
                await loop.sock_recv(sock, 1)  # returns (or raises) once the app closes it
                self.closed_by_app += 1
            except OSError:
                self.failed += 1
                await asyncio.sleep(0.05)
            finally:
                sock.close()

    async def start(self) -> float:
        """Open them all; the time it took in seconds."""
        began = time.perf_counter()
        self._tasks = [asyncio.create_task(self._one()) for _ in range(self.count)]
        await until(lambda: self.connects + self.failed >= self.count, timeout=120, what="the flood to connect")
        return time.perf_counter() - began

    async def stop(self) -> None:
        self._stop.set()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def descriptor_budget(wanted: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return max(100, min(wanted, soft - HEADROOM))


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=15.0, help="how long the flood is kept up")
    opts = parser.parse_args()
    count = descriptor_budget(opts.connections)
    cap = server.MAX_PENDING_CONNECTIONS
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        serve = Serve(home, "--browser", "none", "--port", "0")
        state = await serve.start(connected=False)
        assert serve.proc is not None
        pid, port = serve.proc.pid, int(state["port"])
        try:
            await status_ms(home)
            calm_fds = open_fds(pid)
            calm_status = [await status_ms(home) for _ in range(3)]
            calm_list = [await tools_list_ms(home) for _ in range(3)]

            flood = Flood(port, count)
            opened_s = await flood.start()
            fds, ports, flooded_status, flooded_list = [], [], [], []
            ends = time.perf_counter() + opts.seconds
            while time.perf_counter() < ends:
                fds.append(open_fds(pid))
                ports.append(held(port))
                flooded_status.append(await status_ms(home))
                flooded_list.append(await tools_list_ms(home))
            await flood.stop()
            calm_again = time.perf_counter()
            await until(lambda: open_fds(pid) <= calm_fds + 5, timeout=30, what="the app's descriptors to settle")
            settled_s = time.perf_counter() - calm_again
            after_fds = open_fds(pid)
        finally:
            await serve.stop()

    print(
        f"{count} idle connections opened in {opened_s:.1f} s and reopened as the app closed them for "
        f"{opts.seconds:g} s: {flood.connects} connects, {flood.closed_by_app} closed by the app, "
        f"{flood.failed} refused by the kernel"
    )
    print(line("app's open descriptors, calm", f"{calm_fds}", "—"))
    worst = max(fds)
    bound = cap + 2 * ACCEPT_BURST
    print(line("app's descriptors while flooded, most", str(worst), f"≤ calm + {bound}", worst <= calm_fds + bound))
    print(line("connections on the app's port while flooded, most", f"{max(ports)}", f"≤ {bound}", max(ports) <= bound))
    settled = f"{after_fds} ({settled_s:.1f} s)"
    print(line("app's open descriptors after the flood", settled, "≤ calm + 5", after_fds <= calm_fds + 5))
    for name, calm, flooded in (
        ("`tabpilot status` (TCP, token)", calm_status, flooded_status),
        ("`tabpilot mcp` initialize + tools/list", calm_list, flooded_list),
    ):
        print(line(f"{name}, calm, median of {len(calm)}", f"{median(calm):.0f} ms", "—"))
        print(
            line(
                f"{name}, flooded, median of {len(flooded)} (max)",
                f"{median(flooded):.0f} ms ({max(flooded):.0f})",
                f"≤ {ANSWER_TARGET_MS:.0f} ms",
                max(flooded) <= ANSWER_TARGET_MS,
            )
        )


if __name__ == "__main__":
    asyncio.run(main())
