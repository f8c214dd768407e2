"""Change notifications: one small observer type instead of a hand-written listener list per class.

    changed: Observers[[str]] = Observers("workflow list")
    unsubscribe = changed.subscribe(print)
    changed.notify("saved")
    unsubscribe()

Rules, the same everywhere:
- `subscribe` returns the call that ends that subscription; calling it again does nothing. Subscribing
  the same callback twice makes two subscriptions, each ended by its own call.
- `notify` calls the callbacks subscribed when it starts, in subscription order. One that raises is
  logged (ERROR, with the traceback) and the others are still called: a broken window must not keep the
  tray, the log or the browser from hearing of a change. Nothing is returned to the notifier.
- Safe to use from several threads (the workflow store notifies from its file watcher's thread): the
  subscriptions are an immutable tuple, replaced whole under a lock, so a notify reads it without one and
  never sees a half-made change. The callbacks run on the notifier's thread; a Qt callback must hop to
  the GUI thread itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, ParamSpec

P = ParamSpec("P")

log = logging.getLogger("tabpilot.observers")


class _Subscription(Generic[P]):
    """One subscribe() call: its own identity, so two subscriptions of one callback stay apart."""

    __slots__ = ("callback",)

    def __init__(self, callback: Callable[P, object]) -> None:
        self.callback = callback


class Observers(Generic[P]):
    """Callbacks told of one kind of change; `P` is what `notify` passes them."""

    def __init__(self, what: str) -> None:
        self.what = what
        """Names the change in the log line of a callback that failed."""
        self._subscriptions: tuple[_Subscription[P], ...] = ()
        self._lock = threading.Lock()

    def subscribe(self, callback: Callable[P, object]) -> Callable[[], None]:
        subscription = _Subscription(callback)
        with self._lock:
            self._subscriptions = (*self._subscriptions, subscription)

        def unsubscribe() -> None:
            with self._lock:
                self._subscriptions = tuple(s for s in self._subscriptions if s is not subscription)

        return unsubscribe

    def notify(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for subscription in self._subscriptions:
            try:
                subscription.callback(*args, **kwargs)
            except Exception:
                log.exception("a %s listener failed", self.what)

    def __len__(self) -> int:
        return len(self._subscriptions)
