"""The one log line per finished command names who sent it (an agent by the name it gave, never as the
person) and who decided."""

from __future__ import annotations

import logging

import pytest

from tabpilot.app import _log_finished
from tabpilot.engine.events import ActivityEvent


def finished(**extra: object) -> ActivityEvent:
    base: dict[str, object] = {
        "correlation_id": "corr-1",
        "phase": "finished",
        "time": 1.0,
        "agent": "you (tray)",
        "tool": "interact",
        "mode": "click",
        "kind": "mutate",
        "outcome": "denied",
        "error": "approval_denied",
        "decided_by": "policy",
    }
    return ActivityEvent(**{**base, **extra})  # type: ignore[arg-type]


def test_an_agent_calling_itself_you_is_logged_as_an_agent(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tabpilot.app")
    _log_finished(finished())
    [line] = caplog.messages
    assert line.startswith('agent says it is "you (tray)" interact.click -> denied (approval_denied)')
    assert "decided by policy (--approve deny)" in line


def test_the_person_is_logged_as_the_person(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="tabpilot.app")
    _log_finished(finished(actor="person", outcome="ok", error=None, decided_by="person"))
    [line] = caplog.messages
    assert line.startswith("you (tray) interact.click -> ok, decided by you in ")
