"""The activity stream: every command as it happens, for the tray, the activity window and the log."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from tabpilot.engine.ports import reported_agent
from tabpilot.observers import Observers

Phase = Literal["started", "awaiting_approval", "progress", "finished"]
Outcome = Literal["ok", "error", "denied"]
Actor = Literal["agent", "person"]
Decider = Literal["person", "rule", "auto", "policy", "timeout", "not_needed"]
"""Who decided whether a command may run: a person (a prompt, the terminal, or the person started it),
a standing rule, `serve --approve auto`, the policy (`serve --approve deny`: nobody could be asked),
nobody in time, or nobody had to (reads, navigation)."""

DECIDER_TEXT: dict[str, str] = {
    "person": "you",
    "rule": "a standing rule",
    "auto": "--approve auto",
    "policy": "policy (--approve deny)",
    "timeout": "nobody answered",
    "not_needed": "no approval needed",
}


@dataclass(frozen=True)
class ActivityEvent:
    correlation_id: str
    phase: Phase
    time: float
    agent: str
    """The name the agent's client reported (anyone can claim any name); for the person, "you"."""
    tool: str
    mode: str
    kind: str
    target: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    duration_ms: float | None = None
    outcome: Outcome | None = None
    error: str | None = None
    steps_completed: int | None = None
    steps_total: int | None = None
    actor: Actor = "agent"
    """Who sent the command: an agent (through MCP or the CLI) or the person (the tray)."""
    site: str = ""
    """The site (origin) the command acted on, when known."""
    decided_by: Decider | None = None
    """Set once it is known who decided the command may run (or may not)."""

    @property
    def who(self) -> str:
        """Who sent it, for people and logs: an agent's name is marked as its own claim."""
        return "you (tray)" if self.actor == "person" else f"agent {reported_agent(self.agent)}"

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


Subscriber = Callable[[ActivityEvent], None]


class ActivityStream:
    """Fan-out to subscribers plus a bounded history so a window opened late still sees recent work.

    The subscribers are an `Observers`: a failing window or log sink is logged and does not stop the
    command it reports on, and ending a subscription twice does nothing."""

    def __init__(self, history: int = 1000) -> None:
        self._history: deque[ActivityEvent] = deque(maxlen=history)
        self._subscribers: Observers[[ActivityEvent]] = Observers("activity stream")
        self.running = 0

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """`subscriber(event)` for every event from now on; returns the call that ends it."""
        return self._subscribers.subscribe(subscriber)

    def emit(self, event: ActivityEvent) -> None:
        if event.phase == "started":
            self.running += 1
        elif event.phase == "finished":
            self.running = max(0, self.running - 1)
        self._history.append(event)
        self._subscribers.notify(event)

    def recent(self, limit: int | None = None) -> list[ActivityEvent]:
        items = list(self._history)
        return items if limit is None else items[-limit:]
