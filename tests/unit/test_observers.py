"""The observer type every change notification uses (tabpilot/observers.py)."""

from __future__ import annotations

import logging
import threading

import pytest

from tabpilot.observers import Observers


def test_notify_calls_each_callback_in_subscription_order_with_the_arguments() -> None:
    changed: Observers[[str, int]] = Observers("test")
    heard: list[tuple[str, str, int]] = []
    changed.subscribe(lambda text, n: heard.append(("first", text, n)))
    changed.subscribe(lambda text, n: heard.append(("second", text, n)))
    changed.notify("saved", 2)
    assert heard == [("first", "saved", 2), ("second", "saved", 2)]


def test_a_failing_callback_is_logged_and_the_others_are_still_called(caplog: pytest.LogCaptureFixture) -> None:
    changed: Observers[[]] = Observers("workflow list")
    heard: list[str] = []

    def broken() -> None:
        heard.append("broken")
        raise RuntimeError("a window's bug")

    changed.subscribe(lambda: heard.append("before"))
    changed.subscribe(broken)
    changed.subscribe(lambda: heard.append("after"))
    with caplog.at_level(logging.ERROR, logger="tabpilot.observers"):
        changed.notify()  # nothing reaches the notifier
    assert heard == ["before", "broken", "after"]
    [record] = caplog.records
    assert record.getMessage() == "a workflow list listener failed"
    assert record.exc_info is not None and "a window's bug" in str(record.exc_info[1])


def test_unsubscribe_ends_that_subscription_and_a_second_call_is_harmless() -> None:
    changed: Observers[[]] = Observers("test")
    heard: list[str] = []
    unsubscribe = changed.subscribe(lambda: heard.append("a"))
    changed.subscribe(lambda: heard.append("b"))
    unsubscribe()
    unsubscribe()
    changed.notify()
    assert heard == ["b"]
    assert len(changed) == 1


def test_one_callback_subscribed_twice_is_two_subscriptions() -> None:
    changed: Observers[[]] = Observers("test")
    heard: list[str] = []

    def hear() -> None:
        heard.append("x")

    first = changed.subscribe(hear)
    changed.subscribe(hear)
    changed.notify()
    assert heard == ["x", "x"]
    first()
    first()  # still only the first one's: the other stays
    changed.notify()
    assert heard == ["x", "x", "x"]


def test_changes_made_by_a_callback_take_effect_from_the_next_notify() -> None:
    changed: Observers[[]] = Observers("test")
    heard: list[str] = []

    def first() -> None:
        heard.append("first")
        if heard.count("first") == 1:
            changed.subscribe(lambda: heard.append("new"))
            unsubscribe_second()

    changed.subscribe(first)
    unsubscribe_second = changed.subscribe(lambda: heard.append("second"))
    changed.notify()
    assert heard == ["first", "second"], "the callbacks subscribed when notify started"
    heard.clear()
    changed.notify()
    assert heard == ["first", "new"]


def test_subscribing_and_unsubscribing_from_several_threads_loses_nothing() -> None:
    changed: Observers[[]] = Observers("test")
    kept: list[object] = []

    def churn() -> None:
        for _ in range(2000):
            changed.subscribe(lambda: None)()  # on and off again
        kept.append(changed.subscribe(lambda: None))

    threads = [threading.Thread(target=churn) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(changed) == 4
