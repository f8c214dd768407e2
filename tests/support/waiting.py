"""Waiting on a condition with a deadline, never a fixed sleep."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def until(
    condition: Callable[[], T | Awaitable[T]],
    *,
    timeout: float = 10.0,
    interval: float = 0.02,
    what: str = "",
) -> T:
    """Poll `condition` until it returns something truthy; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
            value = await value
        if value:
            return value  # type: ignore[return-value]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}")
        await asyncio.sleep(interval)


def until_sync(
    condition: Callable[[], T],
    *,
    timeout: float = 10.0,
    interval: float = 0.02,
    what: str = "",
    failed: Callable[[], str] = lambda: "",
) -> T:
    """`until` for code that cannot await (an external process polled from a fixture or a thread): the
    first truthy value of `condition`; fail after `timeout` seconds, saying `what` and `failed()`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what or condition}{failed()}")
        time.sleep(interval)
