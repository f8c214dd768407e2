"""A standing check: hostile arguments for every mode of every tool get a contract answer, fast.

The modes and their parameters come from the registry, so a new command is fuzzed the day it is added.
The browser is a fake that finds nothing in its page: what is under test is everything up to it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings

from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import ApprovalAnswer, ApprovalRequest
from tabpilot.engine.safety.pilot import PilotState
from tests.support import fuzz
from tests.unit.fakes import DictSecrets, FakeBrowser, MemoryWorkflowStore

EXAMPLES_PER_MODE = 25
ANSWER_WITHIN_S = 20.0
SETTINGS = settings(
    max_examples=EXAMPLES_PER_MODE,
    deadline=None,
    phases=[Phase.generate],  # no shrinking: a failing call shows as it came, in seconds
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


class EmptyPage(FakeBrowser):
    async def request(self, op: str, params: Mapping[str, Any], *, timeout_s: float) -> dict[str, Any]:
        if op == "tabs.resolve":
            return await super().request(op, params, timeout_s=timeout_s)
        raise TabpilotError("element_not_found", "The fake page has nothing in it.")


class AllowAll:
    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer:
        return "allow"


async def _answer(engine: Engine, call: tuple[str, dict[str, Any]]) -> tuple[str, Any]:
    tool, arguments = call
    try:
        return "result", await engine.call(tool, arguments, agent="fuzz")
    except TabpilotError as exc:
        return "error", exc.envelope()


async def test_every_mode_answers_hostile_arguments_with_a_contract_code() -> None:
    registry = build_registry()
    pilot = PilotState(ai_web_pilot=True)
    for name in pilot.capabilities:
        pilot.capabilities[name] = True
    store = MemoryWorkflowStore()
    store.put({"workflow_id": "wf-x", "name": "x", "steps": [{"type": "click", "selector": "#a"}]})
    engine = Engine(
        registry,
        EmptyPage(),
        AllowAll(),
        pilot=pilot,
        config=EngineConfig(step_delay_ms=0, approval_wait_ms=2_000),
        workflows=store,
        secrets=DictSecrets(x="s3cret-value"),
    )
    loop = asyncio.get_running_loop()

    def answer(call: tuple[str, dict[str, Any]]) -> None:
        kind, value = asyncio.run_coroutine_threadsafe(_answer(engine, call), loop).result(ANSWER_WITHIN_S)
        if kind == "error":
            fuzz.check_error(value, call)
        else:
            fuzz.check_result(value, call)

    def calls() -> None:
        # Mode by mode, so that every one gets its share however many modes there are.
        for command in registry.all():
            SETTINGS(given(fuzz.calls_of(command, max_depth=3_000))(lambda call: answer(call)))()

    try:
        await asyncio.to_thread(calls)
    finally:
        await engine.close()
