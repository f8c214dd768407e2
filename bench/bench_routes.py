"""What routes and emulation cost: `configure emulate_device` through the whole path (MCP stdio → app →
extension → CDP), and a page's fetch with no route, under a route that pauses every request
(a regex: the extension's Fetch handler answers each one, here by letting it through) and mocked.

Issue 12 sets no target for these; ours: emulate_device median ≤ 50 ms, a request let through a route
costs ≤ 5 ms more than with none (the round trip through the service worker), and a mocked request is
no slower than a real one. Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_routes [--calls 30] [--fetches 50]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from tests.support.mcp_stdio import StdioMcp

from bench.common import line, median, served

FETCHES = """
const times = [];
for (let i = 0; i < %d; i++) {
  const start = performance.now();
  await (await fetch('%s?n=' + i)).text();
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
return times[Math.floor(times.length / 2)];
"""


async def fetch_median(mcp: StdioMcp, path: str, fetches: int) -> float:
    done = await mcp.ok("interact", {"action": "execute_js", "script": FETCHES % (fetches, path), "timeout_ms": 60_000})
    return float(done["result"])


async def timed(mcp: StdioMcp, args: dict[str, Any]) -> float:
    started = time.perf_counter()
    await mcp.ok("configure", args)
    return (time.perf_counter() - started) * 1000


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--fetches", type=int, default=50)
    opts = parser.parse_args()

    rows: list[str] = []
    async with served() as run:
        site, mcp = run.site, run.mcp
        assert mcp is not None
        await mcp.ok("interact", {"action": "navigate", "url": site.url("/device.html")})
        devices = ["iPhone 15", "Pixel 7"]
        times = [await timed(mcp, {"action": "emulate_device", "device": devices[i % 2]}) for i in range(opts.calls)]
        await mcp.ok("configure", {"action": "emulate_device", "reset": True})
        rows.append(line("emulate_device, median", f"{median(times):.2f} ms", "≤ 50 ms (ours)", median(times) <= 50))

        plain = await fetch_median(mcp, "/api/data", opts.fetches)
        rows.append(line("page fetch, no route, median", f"{plain:.2f} ms", "(baseline)"))
        await mcp.ok("configure", {"action": "block_urls", "patterns": ["/never-requested-anywhere/"]})  # pauses all
        through = await fetch_median(mcp, "/api/data", opts.fetches)
        ok = through <= plain + 5
        rows.append(line("page fetch let through a route, median", f"{through:.2f} ms", "≤ baseline + 5 ms", ok))
        await mcp.ok("configure", {"action": "mock_route", "url": "**/api/data*", "body": '{"items": []}'})
        mocked = await fetch_median(mcp, "/api/data", opts.fetches)
        ok = mocked <= through
        rows.append(line("page fetch answered by a mock, median", f"{mocked:.2f} ms", "≤ let through", ok))
        await mcp.ok("configure", {"action": "clear_routes"})
    print("\n".join(rows))


if __name__ == "__main__":
    asyncio.run(main())
