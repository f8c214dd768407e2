"""An engine wired to fakes: the real command catalog plus a few test commands whose timing tests control."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_asyncio

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import NoArgs
from tabpilot.engine.contract.commands import AnyCommand, Command, Registry
from tabpilot.engine.contract.params import Param
from tabpilot.engine.core import Engine
from tabpilot.engine.safety.pilot import PilotState
from tests.unit.fakes import FakeApprovals, FakeBrowser


@dataclass
class Gate:
    """Lets a test hold a command mid-run: `entered` is set when it starts, it ends once `release` is."""

    entered: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)


def _test_commands(gate: Gate) -> list[AnyCommand]:
    async def held(ctx: CommandContext, p: NoArgs) -> dict[str, Any]:
        gate.entered.set()
        await gate.release.wait()
        return {"released": True}

    async def stepper(ctx: CommandContext, p: NoArgs) -> dict[str, Any]:
        ctx.job.progress(1, 3, "first step")
        gate.entered.set()
        await gate.release.wait()
        ctx.job.progress(3, 3, "done")
        return {"steps": 3}

    async def boom(ctx: CommandContext, p: NoArgs) -> dict[str, Any]:
        raise RuntimeError("database password is hunter2")

    return [
        Command("configure", "held", "read", "waits for the test", held),
        Command(
            "configure",
            "stepper",
            "read",
            "reports progress, waits for the test",
            stepper,
            wait=Param("wait_ms", "integer", "how long the call waits"),
        ),
        Command("interact", "boom", "read", "fails with a bug", boom, pilot_gated=True),
    ]


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def registry(gate: Gate) -> Registry:
    registry = build_registry()
    registry.extend(_test_commands(gate))
    return registry


@pytest.fixture
def browser() -> FakeBrowser:
    return FakeBrowser()


@pytest.fixture
def approvals() -> FakeApprovals:
    return FakeApprovals()


EngineFactory = Callable[..., Engine]


@pytest_asyncio.fixture
async def make_engine(
    registry: Registry, browser: FakeBrowser, approvals: FakeApprovals
) -> AsyncIterator[EngineFactory]:
    engines: list[Engine] = []

    def factory(*, pilot_on: bool = True, **options: Any) -> Engine:
        engine = Engine(registry, browser, approvals, pilot=PilotState(ai_web_pilot=pilot_on), **options)
        engines.append(engine)
        return engine

    yield factory
    for engine in engines:
        await engine.close()


@pytest.fixture
def engine(make_engine: EngineFactory) -> Engine:
    """Pilot ON, default approval wait."""
    return make_engine()
