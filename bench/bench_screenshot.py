"""`generate screenshot` of the viewport through the whole path (MCP stdio → relay → app → extension →
CDP Page.captureScreenshot → an MCP image), on the coloured-blocks fixture page.

Target (issue 12): median ≤ 150 ms. Also shown, without targets: a scaled element shot and a full-page
shot of the same page. Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_screenshot [--calls 30]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from tests.support.mcp_stdio import StdioMcp

from bench.common import line, median, p95, served

TARGET_MS = 150.0


async def timed(mcp: StdioMcp, args: dict[str, object]) -> tuple[float, int]:
    started = time.perf_counter()
    result = await mcp.call("generate", {"type": "screenshot", **args})
    elapsed = (time.perf_counter() - started) * 1000
    assert not result.is_error, result.structured_content
    images = [c for c in result.content if c.type == "image"]
    assert len(images) == 1
    return elapsed, len(images[0].data)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=30)
    opts = parser.parse_args()

    rows: list[str] = []
    async with served() as run:
        site, mcp = run.site, run.mcp
        assert mcp is not None
        await mcp.ok("interact", {"action": "navigate", "url": site.url("/shots.html")})
        for args, name, target in (
            ({}, "viewport screenshot through MCP", TARGET_MS),
            ({"selector": "#green", "scale": 2}, "element screenshot at scale 2 through MCP", None),
            ({"full_page": True}, "full-page screenshot (2400 px tall) through MCP", None),
        ):
            for _ in range(3):
                await timed(mcp, args)
            runs = [await timed(mcp, args) for _ in range(opts.calls)]
            times = [t for t, _ in runs]
            ok = None if target is None else median(times) <= target
            rows.append(
                line(f"{name}, median", f"{median(times):.1f} ms", f"≤ {target:.0f} ms" if target else "(none)", ok)
            )
            rows.append(line(f"{name}, p95", f"{p95(times):.1f} ms", "(none)"))
            rows.append(f"  base64 image: {runs[-1][1]} chars")
    print("\n".join(rows))


if __name__ == "__main__":
    asyncio.run(main())
