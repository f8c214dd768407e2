"""The small Protocols through which the engine meets the world. Tests drive the engine with fakes."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol


class BrowserPort(Protocol):
    """The link to the extension: one request, one reply, correlated by the adapter."""

    @property
    def connected(self) -> bool: ...

    def info(self) -> dict[str, Any]:
        """What is known of the connected browser and extension (empty when not connected)."""
        ...

    async def request(self, op: str, params: Mapping[str, Any], *, timeout_s: float) -> dict[str, Any]:
        """Run `op` in the extension. Raises TabpilotError (extension_not_connected, timeout, ...)."""
        ...


ApprovalAnswer = Literal["allow", "deny"]


@dataclass(frozen=True)
class ApprovalRequest:
    correlation_id: str
    agent: str
    tool: str
    mode: str
    params: Mapping[str, Any]
    """Already redacted: secrets appear as {{secret:NAME}}, never their values."""
    tab_url: str | None = None
    steps: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)
    """For a workflow: every step that changes a page, shown at once."""


class ApprovalPort(Protocol):
    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer: ...


class SecretStore(Protocol):
    def get(self, name: str) -> str | None: ...


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def time(self) -> float: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()
