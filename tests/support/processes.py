"""Running `tabpilot` commands as real subprocesses, each with its own TABPILOT_HOME."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tabpilot.cli import client
from tabpilot.paths import Paths
from tests.support.waiting import until


def env_for(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "TABPILOT_HOME": str(home), **extra}


def tabpilot(
    home: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tabpilot", *args],
        env=env or env_for(home),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def status(home: Path) -> dict[str, Any]:
    done = tabpilot(home, "status", "--json")
    return {"exit": done.returncode, **json.loads(done.stdout)}


def http_status(home: Path) -> dict[str, Any] | None:
    """The app's status over its HTTP API, from this process (cheaper than `tabpilot status`)."""
    try:
        target = client.find(Paths.resolve(home))
        reply: dict[str, Any] = client.request(target, "GET", "/api/v1/status", timeout=2)
        return reply
    except client.NotRunning:
        return None


class Serve:
    """`tabpilot serve ...` in the background; stopped (and reaped) at the end."""

    def __init__(self, home: Path, *args: str) -> None:
        self.home = home
        self.args = args
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, *, connected: bool = True, timeout: float = 45) -> dict[str, Any]:
        self.home.mkdir(parents=True, exist_ok=True)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tabpilot",
            "serve",
            *self.args,
            env=env_for(self.home),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )

        async def ready() -> dict[str, Any] | None:
            assert self.proc is not None
            if self.proc.returncode is not None:
                err = await self.proc.stderr.read() if self.proc.stderr else b""
                raise AssertionError(f"serve exited with {self.proc.returncode}: {err.decode()[-2000:]}")
            now = await asyncio.to_thread(http_status, self.home)
            if now is not None and (now["extension_connected"] or not connected):
                return now
            return None

        return await until(ready, timeout=timeout, interval=0.1, what=f"serve in {self.home} to be ready")

    async def wait_exit(self, timeout: float = 20) -> int:
        assert self.proc is not None
        return await asyncio.wait_for(self.proc.wait(), timeout)

    async def stop(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.proc.wait(), 20)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
