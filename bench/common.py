"""Shared benchmark plumbing: a serve in a temporary home, the fixture site, an MCP stdio client."""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from tests.support.mcp_stdio import StdioMcp
from tests.support.processes import Serve
from tests.support.site import FixtureSite

PILOTED = ("--headless", "--pilot", "--approve", "auto", "--port", "0")
"""The serve a bench drives: managed headless browser, pilot on, approvals answered at once."""


@dataclass
class Served:
    site: FixtureSite
    home: Path
    mcp: StdioMcp | None


@contextlib.asynccontextmanager
async def served(*args: str, mcp: bool = True) -> AsyncIterator[Served]:
    """The fixture site, `tabpilot serve` (PILOTED unless `args`) in a temporary home, and an MCP stdio
    client to it (`mcp=False`: none); all stopped at the end."""
    site = FixtureSite()
    await site.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            serve = Serve(home, *(args or PILOTED))
            await serve.start()
            client = StdioMcp({"TABPILOT_HOME": str(home)}) if mcp else None
            try:
                if client is not None:
                    await client.start()
                yield Served(site, home, client)
            finally:
                if client is not None:
                    await client.close()
                await serve.stop()
    finally:
        await site.stop()


def median(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def line(name: str, measured: str, target: str, ok: bool | None = None) -> str:
    verdict = "" if ok is None else ("  ok" if ok else "  MISSED")
    return f"{name:<58} {measured:>22}   target {target}{verdict}"


def proc_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def proc_rss_mb(pid: int) -> float:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1]) / 1024
    return float("nan")
