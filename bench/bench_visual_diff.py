"""`generate visual_diff`: the comparison of two 1280x720 captures, and the whole call through MCP.

Target (issue 12): the diff of two 1280x720 captures ≤ 100 ms. The captures are real: the fixture shop
page (tests/fixtures/site/visual.html) as the managed headless Chromium draws it, before and after one
element changes colour, cut to 1280x720. "The diff itself" is engine/artifacts/imagediff.py's compare() plus
drawing the diff image (numpy, in memory); the PNG decoding and encoding around it, and the whole MCP
call (capture, files, answer), are shown beside it. Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_visual_diff [--runs 30]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import time

import numpy as np
from tests.support.mcp_stdio import StdioMcp

from bench.common import line, median, p95, served
from tabpilot.engine.artifacts import imagediff

WIDTH, HEIGHT = 1280, 720
CHANGE = "document.querySelector('#price').style.background = '#c62828'"


async def capture(mcp: StdioMcp) -> bytes:
    result = await mcp.call("generate", {"type": "screenshot"})
    assert not result.is_error, result.structured_content
    (image,) = [c for c in result.content if c.type == "image"]
    return base64.b64decode(image.data)


def cut(png: bytes) -> imagediff.Pixels:
    """The capture as a 1280x720 picture (the viewport may be another size: cut, or padded with white)."""
    pixels = imagediff.decode_png(png)
    out = np.full((HEIGHT, WIDTH, 4), 255, np.uint8)
    h, w = min(HEIGHT, pixels.shape[0]), min(WIDTH, pixels.shape[1])
    out[:h, :w] = pixels[:h, :w]
    return out


def ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def time_diff(before: imagediff.Pixels, after: imagediff.Pixels, runs: int) -> tuple[list[float], imagediff.Diff]:
    times, diff = [], imagediff.compare(before, after)
    for _ in range(runs):
        began = time.perf_counter()
        diff = imagediff.compare(before, after)
        if diff.diff_pixels or diff.aa_pixels:  # as the command: no picture when nothing changed
            imagediff.diff_image(after, diff)
        times.append(ms(began))
    return times, diff


async def timed_call(mcp: StdioMcp, args: dict[str, object]) -> tuple[float, dict[str, object]]:
    began = time.perf_counter()
    result = await mcp.call("generate", {"type": "visual_diff", **args})
    elapsed = ms(began)
    assert not result.is_error, result.structured_content
    return elapsed, dict(result.structured_content or {})


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    opts = parser.parse_args()

    rows: list[str] = []
    async with served() as run:
        site, mcp = run.site, run.mcp
        assert mcp is not None
        await mcp.ok("interact", {"action": "navigate", "url": site.url("/visual.html")})
        before_png = await capture(mcp)
        await mcp.ok("interact", {"action": "execute_js", "script": CHANGE})
        after_png = await capture(mcp)
        before, after = cut(before_png), cut(after_png)

        times, diff = time_diff(before, after, opts.runs)
        rows.append(
            line(
                "diff of two 1280x720 captures, one element changed, median",
                f"{median(times):.1f} ms",
                "≤ 100 ms",
                median(times) <= 100,
            )
        )
        rows.append(line("  the same, p95", f"{p95(times):.1f} ms", "(none)"))
        rows.append(
            f"  changed pixels: {diff.diff_pixels}, anti-aliasing: {diff.aa_pixels}, regions: {list(diff.regions)}"
        )
        same, _ = time_diff(before, before.copy(), opts.runs)
        rows.append(line("diff of two identical 1280x720 captures, median", f"{median(same):.1f} ms", "(none)"))
        scrolled = np.concatenate([after[40:], np.full((40, WIDTH, 4), 255, np.uint8)])
        moved, moved_diff = time_diff(before, scrolled, max(5, opts.runs // 3))
        rows.append(
            line(
                f"diff, whole page moved 40 px ({moved_diff.diff_pixels} px changed), median",
                f"{median(moved):.1f} ms",
                "(none)",
            )
        )
        codec = []
        for _ in range(opts.runs):
            began = time.perf_counter()
            imagediff.decode_png(before_png)
            imagediff.decode_png(after_png)
            imagediff.encode_png(imagediff.diff_image(after, diff))
            codec.append(ms(began))
        rows.append(
            line("  PNG decode of both + encode of the diff image, median", f"{median(codec):.1f} ms", "(none)")
        )

        await mcp.ok("interact", {"action": "navigate", "url": site.url("/visual.html")})
        await timed_call(mcp, {"name": "bench", "update_baseline": True})
        calls = [(await timed_call(mcp, {"name": "bench"}))[0] for _ in range(opts.runs)]
        rows.append(
            line("whole MCP call, page unchanged (capture + compare), median", f"{median(calls):.1f} ms", "(none)")
        )
        await mcp.ok("interact", {"action": "execute_js", "script": CHANGE})
        changed = [await timed_call(mcp, {"name": "bench"}) for _ in range(opts.runs)]
        rows.append(
            line(
                "whole MCP call, one element changed (+ diff image), median",
                f"{median([t for t, _ in changed]):.1f} ms",
                "(none)",
            )
        )
        last = changed[-1][1]
        rows.append(
            f"  last answer: { {k: last[k] for k in ('match', 'similarity', 'diff_pixels', 'width', 'height')} }"
        )
    print("\n".join(rows))


if __name__ == "__main__":
    asyncio.run(main())
