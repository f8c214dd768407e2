"""`tabpilot mcp` spawned against a running app → its `initialize` answered (issue 11: ≤ 100 ms).

What an agent pays each time it starts a session: the process starts (the installed `tabpilot` script,
as agents' configs name it), connects, relays `initialize`, and the app answers. Measured as the time from
spawn to the answer's line on stdout, median of N, with the app already running (`serve --browser none`).
Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_mcp_spawn [--runs 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from tests.support.processes import Serve

from bench.common import line, median

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


def command() -> list[str]:
    """The installed `tabpilot` script beside this Python (what agents' configs name), else `python -m`."""
    script = Path(sys.executable).parent / "tabpilot"
    if script.exists():
        return [str(script), "mcp"]
    return [sys.executable, "-m", "tabpilot", "mcp"]


async def once(home: Path) -> float:
    began = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *command(),
        env={**os.environ, "TABPILOT_HOME": str(home)},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write((json.dumps(INIT) + "\n").encode())
    answer = json.loads(await proc.stdout.readline())
    elapsed = (time.perf_counter() - began) * 1000
    assert answer.get("id") == 1, answer
    assert "result" in answer, answer
    proc.stdin.close()
    await proc.wait()
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        serve = Serve(home, "--browser", "none", "--port", "0")
        await serve.start(connected=False)
        try:
            for _ in range(3):
                await once(home)
            times = [await once(home) for _ in range(opts.runs)]
        finally:
            await serve.stop()
    print(
        line(
            f"tabpilot mcp spawn → initialize answered, median of {len(times)}",
            f"{median(times):.1f} ms",
            "≤ 100 ms",
            median(times) <= 100,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
