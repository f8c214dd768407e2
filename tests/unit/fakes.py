"""Fakes for the engine's ports: a scripted browser, scripted approvals and a clock that moves on demand."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tabpilot.engine.ports import ApprovalAnswer, ApprovalRequest

Reply = dict[str, Any] | BaseException | Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass
class BrowserCall:
    op: str
    params: dict[str, Any]
    timeout_s: float


class FakeBrowser:
    """A BrowserPort: records each request; answers from `replies` (a dict, an exception or a coroutine)."""

    def __init__(self, *, connected: bool = True, active_url: str | None = "https://example.test/") -> None:
        self._connected = connected
        self.connected_reads = 0
        self.active_url = active_url
        self.replies: dict[str, Reply] = {}
        self.calls: list[BrowserCall] = []

    @property
    def connected(self) -> bool:
        self.connected_reads += 1
        return self._connected

    def connect(self, on: bool = True) -> None:
        self._connected = on

    def info(self) -> dict[str, Any]:
        if not self._connected:
            return {}
        return {"name": "FakeChromium", "version": "1.0", "active_url": self.active_url}

    async def request(self, op: str, params: Mapping[str, Any], *, timeout_s: float) -> dict[str, Any]:
        self.calls.append(BrowserCall(op, dict(params), timeout_s))
        reply = self.replies.get(op, {"op": op, "params": dict(params)})
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            return await reply(dict(params))
        return dict(reply)

    @property
    def ops(self) -> list[str]:
        return [c.op for c in self.calls]


class FakeApprovals:
    """An ApprovalPort answering from a script: 'allow', 'deny', 'timeout' (raises), or 'hold'.

    'hold' (also used once the script runs out) parks the request on a future the test resolves.
    """

    def __init__(self, *script: str) -> None:
        self.script = list(script)
        self.requests: list[ApprovalRequest] = []
        self.held: list[asyncio.Future[ApprovalAnswer]] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.requests.append(request)
        answer = self.script.pop(0) if self.script else "hold"
        if answer == "timeout":
            raise TimeoutError
        if answer == "hold":
            future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
            self.held.append(future)
            return await future
        assert answer in ("allow", "deny")
        return answer  # type: ignore[return-value]


class FakeClock:
    """A Clock that only moves when told to."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return 1_700_000_000.0 + self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
