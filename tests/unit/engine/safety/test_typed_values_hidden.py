"""Values typed into fields (fill, type, and workflow steps of those kinds) never reach the log, the
activity stream or run records: `[N characters]` instead. The person's prompt still shows them, and
`{{secret:NAME}}` references stay as references."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from tabpilot.approvals import AutoApprove, DenyAll, TerminalPrompt
from tabpilot.engine.catalog import build_registry
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.ports import ApprovalPort, ApprovalRequest
from tabpilot.engine.safety.pilot import PilotState
from tabpilot.engine.safety.redact import redact_params
from tests.unit.fakes import DictSecrets, FakeApprovals, FakeBrowser, MemoryWorkflowStore

TYPED = "hunter2-xyz"
STEPS = [
    {"type": "navigate", "url": "https://shop.test/login"},
    {"type": "fill", "selector": "#user", "value": "{{user}}"},
    {"type": "type", "selector": "#password", "text": TYPED},
    {"type": "fill", "selector": "#pin", "value": "{{secret:pin}}"},
    {"type": "if_exists", "selector": "#otp", "then": [{"type": "fill", "selector": "#otp", "value": "991122"}]},
]


def engine_with(approvals: ApprovalPort, store: MemoryWorkflowStore | None = None) -> Engine:
    browser = FakeBrowser(active_url="https://shop.test/login")
    browser.replies["tab.navigate"] = {"status": "complete", "url": "https://shop.test/login", "title": "Login"}
    browser.replies["dom.count"] = {"count": 1}
    return Engine(
        build_registry(),
        browser,
        approvals,
        pilot=PilotState(True),
        config=EngineConfig(step_delay_ms=0),
        secrets=DictSecrets(pin="4321-secret"),
        workflows=store,
    )


def test_redact_params_hides_typed_values_and_keeps_references() -> None:
    assert redact_params({"selector": "#p", "value": TYPED, "timeout_ms": 5}, "fill") == {
        "selector": "#p",
        "value": "[11 characters]",
        "timeout_ms": 5,
    }
    assert redact_params({"selector": "#p", "text": "{{secret:pw}}"}, "type")["text"] == "{{secret:pw}}"
    assert redact_params({"selector": "#p", "value": "pre {{secret:pw}}"}, "fill")["value"] == "[17 characters]"
    assert redact_params({"selector": "select", "value": "de"}, "select")["value"] == "de"  # a choice, not typing
    shown = redact_params(
        {
            "operation": "replay",
            "params": {"user": "alice@example.test", "n": 3},
            "override_params": {"steps[2].text": TYPED, "steps[0].url": "https://shop.test/", "params.user": "bob"},
        },
        "scrape",
    )
    assert shown["params"] == {"user": "[18 characters]", "n": "[1 characters]"}
    assert shown["override_params"] == {
        "steps[2].text": "[11 characters]",
        "steps[0].url": "https://shop.test/",
        "params.user": "[3 characters]",
    }


def test_only_the_params_a_step_types_are_hidden() -> None:
    steps = [
        {"type": "navigate", "url": "https://{{host}}/"},
        {"type": "if_exists", "selector": "#u", "then": [{"type": "fill", "selector": "#u", "value": "{{user}}"}]},
    ]
    shown = redact_params({"operation": "workflow", "steps": steps, "params": {"host": "a.test", "user": "al"}})
    assert shown["params"] == {"host": "a.test", "user": "[2 characters]"}
    replay = {"operation": "replay", "params": {"host": "b.test", "user": "bo", "q": "x"}}
    assert redact_params(replay, "scrape", {"user"})["params"] == {"host": "b.test", "user": "[2 characters]", "q": "x"}
    moved = {**replay, "override_params": {"steps[1].value": "{{q}}"}}
    assert redact_params(moved, "scrape", {"user"})["params"]["q"] == "[1 characters]"


async def test_auto_approve_logs_no_typed_value(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    engine = engine_with(AutoApprove())
    await engine.call("interact", {"action": "fill", "selector": "#password", "value": TYPED}, agent="mcp 0.1.0")
    await engine.call(
        "interact", {"action": "scrape", "operation": "workflow", "steps": STEPS, "params": {"user": "alice"}}
    )
    await engine.close()
    assert TYPED not in caplog.text and "991122" not in caplog.text and "alice" not in caplog.text
    assert "[11 characters]" in caplog.text
    assert 'auto-approved interact.fill on https://shop.test for the agent that says it is "mcp 0.1.0"' in caplog.text


async def test_the_activity_stream_shows_no_typed_value() -> None:
    approvals = FakeApprovals("allow", "allow")
    engine = engine_with(approvals)
    await engine.call("interact", {"action": "type", "selector": "#password", "text": TYPED})
    await engine.call(
        "interact", {"action": "scrape", "operation": "workflow", "steps": STEPS, "params": {"user": "alice"}}
    )
    await engine.close()
    streamed = json.dumps([e.as_dict() for e in engine.activity.recent()])
    for value in (TYPED, "991122", "alice", "4321-secret"):
        assert value not in streamed
    assert "{{secret:pin}}" in streamed and "{{user}}" in streamed
    # The person's prompt shows what will be typed.
    prompt = json.dumps([dict(r.params) for r in approvals.requests] + [list(r.steps) for r in approvals.requests])
    assert TYPED in prompt and "991122" in prompt


async def test_run_records_hold_no_typed_value() -> None:
    store = MemoryWorkflowStore()
    engine = engine_with(FakeApprovals("allow"), store)
    result = await engine.call(
        "interact",
        {
            "action": "scrape",
            "operation": "workflow",
            "steps": STEPS[:2] + STEPS[3:],
            "params": {"user": "alice"},
            "record": True,
        },
    )
    await engine.close()
    runs = store.runs(result["workflow_id"])
    assert runs, "the recorded run was kept"
    assert "alice" not in json.dumps(runs) and "991122" not in json.dumps(runs)


class TypedAfterThePrompt(asyncio.Queue[str]):
    """The terminal: the person types "n" once the question is on screen."""

    def __init__(self) -> None:
        super().__init__()
        self.put_nowait("n\n")
        self.asked = False

    def empty(self) -> bool:
        if not self.asked:  # the prompt first drops what was typed before it: nothing
            self.asked = True
            return True
        return super().empty()


@pytest.mark.parametrize("headless", [DenyAll, TerminalPrompt])
async def test_headless_answers_log_no_typed_value(
    headless: type[DenyAll] | type[TerminalPrompt], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.DEBUG)
    request = ApprovalRequest(
        "corr-1", "claude", "interact", "fill", {"selector": "#p", "value": TYPED}, origin="https://shop.test"
    )
    answer = headless()
    if isinstance(answer, TerminalPrompt):
        monkeypatch.setattr(answer, "_reader", lambda: TypedAfterThePrompt())
    decision = await answer.decide(request)
    assert not decision.allow
    assert TYPED not in caplog.text
    assert 'says it is "claude"' in caplog.text


async def test_the_terminal_prompt_writes_out_controls_an_agent_or_page_chose(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A right-to-left override in an agent's name reordered the serve terminal's prompt line."""
    request = ApprovalRequest(
        "corr-1",
        "claude\u202ekcilc\u202c\x1b[2J",
        "interact",
        "click",
        {"selector": "#p"},
        tab_url="https://shop.test/\u202egnp.exe",
        origin="https://shop.test",
    )
    prompt = TerminalPrompt()
    monkeypatch.setattr(prompt, "_reader", lambda: TypedAfterThePrompt())
    await prompt.decide(request)
    shown = capsys.readouterr().err
    assert "\u202e" not in shown and "\x1b" not in shown and "\u202c" not in shown
    assert "\\u202e" in shown and "\\u001b" in shown


def test_an_activity_row_keeps_a_bounded_copy_of_a_calls_parameters() -> None:
    """Each of the last 1,000 activity rows held its call's lists and objects whole (10,000 items each)."""
    big = {"patterns": [f"**/{n}" for n in range(10_000)], "headers": {f"X-{n}": "v" for n in range(5_000)}}
    shown = redact_params(big, "block_urls")
    assert len(shown["patterns"]) == 51 and shown["patterns"][-1] == "… 9950 more"
    assert len(shown["headers"]) == 51
    deep: object = "leaf"
    for _ in range(60):
        deep = [deep]
    assert len(json.dumps(redact_params({"x": deep}, "click"))) < 100
