"""The small Protocols through which the engine meets the world. Tests drive the engine with fakes."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from tabpilot.engine.workflows import Workflow


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
class ApprovalDecision:
    """A human's (or a rule's) answer. `remember` turns an allow into a standing rule."""

    allow: bool
    remember: Literal["site", "workflow"] | None = None
    minutes: int | None = None
    """How long an allow for a site lasts."""
    rule_id: str | None = None
    """Set when a standing rule answered instead of a person."""


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
    origin: str = ""
    """The site the action changes (the target tab's origin, or the workflow's)."""
    tab_id: int | None = None
    selector: str | None = None
    """The element acted on, for a picture of it in the prompt."""
    workflow_id: str = ""
    steps_hash: str = ""
    """A hash of the workflow's steps: an 'always allow' rule binds to it."""


class ApprovalPort(Protocol):
    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer | ApprovalDecision: ...


class SecretStore(Protocol):
    def get(self, name: str) -> str | None: ...


class NoSecrets:
    def get(self, name: str) -> str | None:
        return None


@dataclass(frozen=True)
class WorkflowEntry:
    """One file in workflows/: a valid workflow, or the reason it is not one."""

    workflow_id: str
    file: str
    workflow: Workflow | None = None
    error: str | None = None
    last_run: str | None = None
    last_status: str | None = None


class WorkflowStore(Protocol):
    """Saved workflows (the files are the source of truth) and the last runs of each."""

    def entries(self) -> list[WorkflowEntry]: ...

    def get(self, workflow_id: str) -> WorkflowEntry | None: ...

    def save(self, workflow: Workflow) -> None: ...

    def delete(self, workflow_id: str) -> bool: ...

    def add_run(self, workflow_id: str, run: Mapping[str, Any]) -> None: ...

    def runs(self, workflow_id: str) -> list[dict[str, Any]]: ...


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def time(self) -> float: ...


class SystemClock:
    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()
