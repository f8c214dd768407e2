"""What tools/list costs an agent in every conversation, beside the 8 KB target (issue 9).

Measured twice: the tools the running app's MCP server sends (a real serve, `tabpilot mcp` over stdio,
the SDK client's tools/list, dumped as compact JSON), and the same built from the definitions with the
surface tripled by imagined modes (each of those must still be named there).
Run from the repository:
    scripts/with-keyring .venv/bin/python -m bench.bench_tools_list
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import tempfile
from pathlib import Path
from typing import Any

from tests.support.mcp_stdio import StdioMcp
from tests.support.processes import Serve

from bench.common import line
from tabpilot.agent.tools import MAX_TOOLS_BYTES, build_tools, size_of
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.contract.args import Args, arg
from tabpilot.engine.contract.commands import Command

EXTRA_MODES = 60


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Imagined(Args):
    selector: str = arg("CSS selector or snapshot ref of the element")
    timeout_ms: int = arg("default 10000", default=10_000, minimum=100, maximum=120_000)
    frame: str | None = arg("frame: selector, ref, name or URL pattern", default=None)


async def _nothing(ctx: Any, a: _Imagined) -> dict[str, Any]:
    return {}


async def served() -> tuple[int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        serve = Serve(home, "--browser", "none", "--port", "0")
        await serve.start(connected=False)
        mcp = StdioMcp({"TABPILOT_HOME": str(home)})
        await mcp.start()
        try:
            listed = await mcp.list_tools()
            dumped = [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]
            size = len(json.dumps(dumped, ensure_ascii=False, separators=(",", ":")).encode())
            modes = sum(
                len(t.input_schema["properties"][k]["enum"])
                for t in listed.tools
                for k in ("what", "action", "type")
                if k in t.input_schema["properties"]
            )
            return size, modes
        finally:
            await mcp.close()
            await serve.stop()


def grown() -> tuple[int, int, bool]:
    registry = build_registry()
    for n in range(EXTRA_MODES):
        registry.add(Command("interact", f"imagined_{n}", "navigate", f"imagined page action {n}", _nothing, _Imagined))
    tools = build_tools(registry)
    interact = next(t for t in tools if t.name == "interact")
    named = all(f"imagined_{n}" in (interact.description or "") for n in range(EXTRA_MODES))
    return size_of(tools), len(registry.all()), named


async def main() -> None:
    size, modes = await served()
    print(
        line(
            "tools/list from the running app (bytes)",
            f"{size} B, {modes} modes",
            f"≤ {MAX_TOOLS_BYTES} B",
            size <= MAX_TOOLS_BYTES,
        )
    )
    big, count, named = grown()
    print(
        line(
            f"tools/list with {EXTRA_MODES} more modes (bytes)",
            f"{big} B, {count} modes",
            f"≤ {MAX_TOOLS_BYTES} B, every mode named",
            big <= MAX_TOOLS_BYTES and named,
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
