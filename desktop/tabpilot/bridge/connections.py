"""What a connection to the bridge may cost before it has shown the token: a few seconds, one of a bounded few.

Any local program can open TCP connections to 127.0.0.1 and send nothing, or trickle a header a byte at a
time. aiohttp holds each for as long as it lasts, so 20,000 of them once took every file descriptor the
app had, and with them the API, the CLI and `tabpilot mcp`. Here every connection starts *pending*: it
must send request headers that pass the bridge's guard (the bearer token, or the extension's Origin for
its socket, which then has its own deadline and cap in server.py) within `deadline_s`, or it is closed.
At most `cap` are pending at once; past that the *oldest* pending one is closed, not the newcomer, so a
flood cannot lock out a real client, which sends its headers at once and passes in milliseconds.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger("tabpilot.bridge")

FD_LIMIT_TARGET = 65536
"""How high the soft descriptor limit is raised at start (when the hard limit allows)."""


class Gate:
    """The pending connections, oldest first, each with the moment it is closed unless it passes."""

    def __init__(self, *, deadline_s: float, cap: int, dropped: Callable[[str], None] = lambda _why: None) -> None:
        self.deadline_s = deadline_s
        self.cap = max(1, cap)
        self._dropped = dropped
        self._pending: dict[asyncio.BaseTransport, asyncio.TimerHandle] = {}  # insertion order: oldest first
        self.closed = {"deadline": 0, "cap": 0}
        """How many were closed for each reason (the bench prints them)."""

    @property
    def pending(self) -> int:
        return len(self._pending)

    def admit(self, transport: asyncio.BaseTransport) -> None:
        while len(self._pending) >= self.cap:
            self._drop(next(iter(self._pending)), "cap")
        loop = asyncio.get_running_loop()
        self._pending[transport] = loop.call_later(self.deadline_s, self._drop, transport, "deadline")

    def passed(self, transport: asyncio.BaseTransport | None) -> None:
        """`transport` showed what it needed to (or is gone): no deadline, not counted."""
        handle = self._pending.pop(transport, None) if transport is not None else None
        if handle is not None:
            handle.cancel()

    def _drop(self, transport: asyncio.BaseTransport, why: str) -> None:
        self.passed(transport)
        self.closed[why] += 1
        self._dropped(why)
        # abort, not close: nothing is owed to it, and a close would wait on a peer that reads nothing.
        transport.abort()  # type: ignore[attr-defined]


class Counted(asyncio.Protocol):
    """aiohttp's protocol for one connection, with the gate told when it starts and ends."""

    def __init__(self, inner: asyncio.Protocol, gate: Gate) -> None:
        self._inner = inner
        self._gate = gate
        self._transport: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport
        self._gate.admit(transport)
        self._inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        self._gate.passed(self._transport)
        self._inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def counted(factory: Callable[[], asyncio.Protocol], gate: Gate) -> Callable[[], asyncio.Protocol]:
    """A protocol factory for `loop.create_server` whose connections the gate keeps count of."""
    return lambda: Counted(factory(), gate)


def raise_fd_limit() -> tuple[int, int] | None:
    """Raise the soft limit on open files to the hard one (at most FD_LIMIT_TARGET), as servers commonly
    do: the cap above bounds what strangers hold, this leaves room for everything else. (soft, hard)
    after, or None where there is no such limit (Windows)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = FD_LIMIT_TARGET if hard == resource.RLIM_INFINITY else min(hard, FD_LIMIT_TARGET)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:  # macOS refuses past kern.maxfilesperproc
            log.info("could not raise the open-file limit from %d to %d: %s", soft, target, exc)
    return soft, hard


def pending_cap(wanted: int, soft_limit: int | None) -> int:
    """`wanted`, or fewer where the descriptor limit is low: strangers get at most an eighth of it."""
    if soft_limit is None or soft_limit <= 0:
        return wanted
    return max(16, min(wanted, soft_limit // 8))
