"""Hop timing for one call, off by default: `TABPILOT_TRACE=1` in the app's environment.

With it on, each MCP tool call collects wall-clock marks as it travels — the app's socket, the SDK's
dispatch, the engine (validated, approved, handler), the bridge, the extension's service worker and its
CDP calls, and back — and its result carries them as `_trace: [[name, epoch_ms], ...]`. bench/bench_hops.py
turns them into a table of medians per hop. Off, every function here is a cheap no-op: no mark is taken,
nothing is added to a result, no frame is parsed twice.
"""

from __future__ import annotations

import os
import time
from contextvars import ContextVar

ENV = "TABPILOT_TRACE"
FIELD = "_trace"

Events = list[list[object]]

enabled = os.environ.get(ENV) == "1"
_events: ContextVar[Events | None] = ContextVar("tabpilot_trace", default=None)
_received: dict[str, float] = {}
"""When the app's socket took each traced request, by its JSON-RPC id (the SDK runs it in another task)."""


def now_ms() -> float:
    return time.time_ns() / 1e6


def received(request_id: object) -> None:
    if enabled:
        _received[repr(request_id)] = now_ms()
        if len(_received) > 1000:  # requests that never reached a tool call (pings, lists)
            _received.clear()


def begin(request_id: object) -> Events | None:
    """Start the marks of one call (in the task that runs it and those it starts)."""
    if not enabled:
        return None
    events: Events = []
    at = _received.pop(repr(request_id), None)
    if at is not None:
        events.append(["app_in", at])
    events.append(["sdk_dispatch", now_ms()])
    _events.set(events)
    return events


def mark(name: str) -> None:
    if enabled:
        events = _events.get()
        if events is not None:
            events.append([name, now_ms()])


def extend(marks: object) -> None:
    """Marks another process took (the extension's), as it sent them."""
    events = _events.get() if enabled else None
    if events is not None and isinstance(marks, list):
        events.extend(m for m in marks if isinstance(m, list) and len(m) == 2)


def untraced() -> None:
    """The rest of this task takes no marks: for work that runs beside a traced call in a task of its own
    (the recorder's look at an element), whose marks would otherwise mix with the call's."""
    if enabled:
        _events.set(None)


def active() -> bool:
    return enabled and _events.get() is not None
