"""The activity stream on its own: bounded history, running counter, subscriptions."""

from __future__ import annotations

import logging

import pytest

from tabpilot.engine.events import ActivityEvent, ActivityStream, Phase


def event(n: int, phase: Phase = "started") -> ActivityEvent:
    return ActivityEvent(f"corr-{n}", phase, float(n), "agent", "observe", "page", "read")


def test_history_is_bounded_and_keeps_the_newest() -> None:
    stream = ActivityStream(history=3)
    for n in range(5):
        stream.emit(event(n, "progress"))
    assert [e.correlation_id for e in stream.recent()] == ["corr-2", "corr-3", "corr-4"]
    assert [e.correlation_id for e in stream.recent(2)] == ["corr-3", "corr-4"]


def test_running_counts_started_minus_finished_never_below_zero() -> None:
    stream = ActivityStream()
    stream.emit(event(1))
    stream.emit(event(2))
    assert stream.running == 2
    stream.emit(event(1, "progress"))
    stream.emit(event(1, "awaiting_approval"))
    assert stream.running == 2
    stream.emit(event(1, "finished"))
    stream.emit(event(2, "finished"))
    stream.emit(event(3, "finished"))  # a stray finish (history trimmed, restart) does not go negative
    assert stream.running == 0


def test_subscribe_and_unsubscribe() -> None:
    stream = ActivityStream()
    seen: list[str] = []
    unsubscribe = stream.subscribe(lambda e: seen.append(e.correlation_id))
    stream.emit(event(1))
    unsubscribe()
    stream.emit(event(2))
    assert seen == ["corr-1"]


def test_unsubscribing_twice_is_harmless_and_ends_only_its_own_subscription() -> None:
    stream = ActivityStream()
    seen: list[str] = []

    def listener(e: ActivityEvent) -> None:
        seen.append(e.correlation_id)

    first = stream.subscribe(listener)
    stream.subscribe(listener)  # the same window subscribed twice: two subscriptions
    first()
    first()
    stream.emit(event(1))
    assert seen == ["corr-1"]


def test_a_failing_subscriber_is_logged_and_the_others_still_hear(caplog: pytest.LogCaptureFixture) -> None:
    stream = ActivityStream()
    seen: list[str] = []

    def broken(e: ActivityEvent) -> None:
        raise RuntimeError("the activity window is gone")

    stream.subscribe(broken)
    stream.subscribe(lambda e: seen.append(e.correlation_id))
    with caplog.at_level(logging.ERROR, logger="tabpilot.observers"):
        stream.emit(event(1))
    assert seen == ["corr-1"]
    assert [e.correlation_id for e in stream.recent()] == ["corr-1"]
    assert any("activity stream listener failed" in r.getMessage() for r in caplog.records)


def test_as_dict_leaves_out_unset_fields() -> None:
    assert event(1).as_dict() == {
        "correlation_id": "corr-1",
        "phase": "started",
        "time": 1.0,
        "agent": "agent",
        "tool": "observe",
        "mode": "page",
        "kind": "read",
        "target": "",
        "params": {},
        "actor": "agent",
        "site": "",
    }
