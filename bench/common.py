"""Shared benchmark plumbing: a serve in a temporary home, the fixture site, an MCP stdio client."""

from __future__ import annotations

import os
import statistics
from pathlib import Path


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
