"""Helpers for driving `interact {action:"scrape"}` through the engine with a scripted browser."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

import pytest

from tabpilot.engine.core import Engine
from tabpilot.engine.errors import TabpilotError
from tests.support.waiting import until
from tests.unit.fakes import BrowserCall, FakeBrowser

TAB = {"tab_id": 7, "url": "https://a.test/start", "title": "Start"}
URL = "https://a.test/list"


def rows(*names: str) -> list[dict[str, Any]]:
    return [{"name": n} for n in names]


def page(found: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A `scrape.extract` reply."""
    return {
        "rows": found,
        "matched": len(found),
        "returned": len(found),
        "truncated": False,
        "warnings": [],
        "url": URL,
        "title": "List",
        **extra,
    }


def extract_args(**extra: Any) -> dict[str, Any]:
    return {"action": "scrape", "operation": "extract", "selector": "tr", "schema": {"name": "td | text"}, **extra}


def workflow_args(steps: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"action": "scrape", "operation": "workflow", "name": "jobs", "steps": steps, **extra}


def replay_args(workflow_id: str, **extra: Any) -> dict[str, Any]:
    return {"action": "scrape", "operation": "replay", "workflow_id": workflow_id, **extra}


async def error_of(call: Awaitable[Any]) -> TabpilotError:
    with pytest.raises(TabpilotError) as info:
        await call
    return info.value


def page_calls(browser: FakeBrowser) -> list[BrowserCall]:
    """The calls that act on or read the page (not the tab look-ups)."""
    return [c for c in browser.calls if c.op != "tabs.resolve"]


@dataclass
class Blocker:
    """A browser reply that parks until the test releases it."""

    reply: dict[str, Any] = field(default_factory=dict)
    entered: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def __call__(self, params: dict[str, Any]) -> dict[str, Any]:
        self.entered.set()
        await self.release.wait()
        return dict(self.reply)


class SleepRecorder:
    """Stands in for a module's `asyncio` so that pauses are recorded instead of slept."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)


async def result_of(engine: Engine, correlation_id: str) -> dict[str, Any]:
    return await engine.call("observe", {"what": "command_result", "correlation_id": correlation_id})


async def final(engine: Engine, correlation_id: str) -> dict[str, Any]:
    """The final result of a command (raises its error), waiting with a deadline."""

    async def done() -> dict[str, Any] | None:
        result = await result_of(engine, correlation_id)
        return None if result.get("status") in ("queued", "running", "awaiting_approval") else result

    return await until(done, timeout=5, what=f"the final result of {correlation_id}")
