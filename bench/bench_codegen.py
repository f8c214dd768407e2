"""`generate playwright_test` and `generate playwright_script` through the whole path (MCP stdio → app),
after a recorded session of 10 page actions on the fixture catalog and for a saved 10-step workflow.

No target in issue 12 for these; the figures to watch are that generating stays a few milliseconds
(it reads the record in memory and writes one small file) and that the files stay small (≤ 10 KB).
Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_codegen [--calls 30]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from tests.support.mcp_stdio import StdioMcp
from tests.support.site import FixtureSite

from bench.common import line, median, served


async def timed(mcp: StdioMcp, tool: str, args: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    result = await mcp.call(tool, args)
    elapsed = (time.perf_counter() - started) * 1000
    assert not result.is_error, result.structured_content
    return elapsed, dict(result.structured_content or {})


async def session(mcp: StdioMcp, site: FixtureSite) -> None:
    """Sign in, search, open a result: 10 recorded actions and checks."""
    password = FixtureSite.USERS["alice"]
    for tool, args in [
        ("interact", {"action": "navigate", "url": site.url("/catalog/login")}),
        ("interact", {"action": "fill", "selector": "#user", "value": "alice"}),
        ("interact", {"action": "fill", "selector": "#password", "value": password}),
        ("interact", {"action": "click", "selector": "button[type=submit]"}),
        ("interact", {"action": "fill", "selector": "#q", "value": "hobbit"}),
        ("interact", {"action": "press", "key": "Enter", "selector": "#q"}),
        ("interact", {"action": "wait_for", "text": "1 found"}),
        ("observe", {"what": "text", "selector": "#status"}),
        ("interact", {"action": "click", "selector": "#results li a"}),
        ("observe", {"what": "text", "selector": "h1"}),
    ]:
        await timed(mcp, tool, args)


STEPS = [
    {"type": "navigate", "url": "/catalog/login"},
    {"type": "fill", "selector": "#user", "value": "{{user}}"},
    {"type": "fill", "selector": "#password", "value": "{{secret:catalog_password}}"},
    {"type": "click", "selector": "button[type=submit]"},
    {"type": "wait_for", "url": "**/catalog"},
    {"type": "fill", "selector": "#q", "value": "{{query}}"},
    {"type": "press", "key": "Enter", "selector": "#q"},
    {"type": "wait_for", "text": "found"},
    {"type": "wait", "selector": "#results li"},
    {"type": "extract", "selector": "#results li", "schema": {"title": "a", "link": "a | attr:href"}},
]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=30)
    opts = parser.parse_args()
    rows: list[str] = []
    async with served() as run:
        site, mcp = run.site, run.mcp
        assert mcp is not None
        await session(mcp, site)
        generate = {"type": "playwright_test", "path": "bench"}
        tests = [await timed(mcp, "generate", generate) for _ in range(opts.calls)]
        rows.append(line("playwright_test of 10 actions, median", f"{median([t for t, _ in tests]):.2f} ms", "(none)"))
        size = len(tests[-1][1]["code"].encode())
        rows.append(line("  its file", f"{size} bytes", "(none)"))
        workflow = {
            "workflow_id": "wf-bench",
            "name": "find a book",
            "steps": [{**s, "url": site.url(s["url"])} if s["type"] == "navigate" else s for s in STEPS],
            "params": {"user": "alice", "query": "hobbit"},
        }
        await timed(mcp, "configure", {"action": "import_workflow", "workflow": workflow})
        export = {"type": "playwright_script", "workflow_id": "wf-bench"}
        scripts = [await timed(mcp, "generate", export) for _ in range(opts.calls)]
        taken = median([t for t, _ in scripts])
        rows.append(line("playwright_script of 10 steps, median", f"{taken:.2f} ms", "(none)"))
        size = scripts[-1][1]["size_bytes"]
        rows.append(line("  its file", f"{size} bytes", "≤ 10000 bytes", size <= 10_000))
    print("\n".join(rows))


if __name__ == "__main__":
    asyncio.run(main())
