"""AI Web Pilot: the human's master switch and per-capability toggles. Only humans call `set_*`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tabpilot.engine.safety.capabilities import defaults as capability_defaults
from tabpilot.observers import Observers

Listener = Callable[["PilotState"], None]


@dataclass
class PilotState:
    ai_web_pilot: bool = False
    capabilities: dict[str, bool] = field(default_factory=lambda: capability_defaults())
    _changed: Observers[[PilotState]] = field(
        default_factory=lambda: Observers("AI Web Pilot"), init=False, repr=False, compare=False
    )

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """`listener(state)` whenever the switch or a capability changes; returns the call that stops it."""
        return self._changed.subscribe(listener)

    def set_pilot(self, on: bool) -> None:
        if on != self.ai_web_pilot:
            self.ai_web_pilot = on
            self._notify()

    def set_capability(self, name: str, on: bool) -> None:
        if name not in self.capabilities:
            raise KeyError(name)
        if self.capabilities[name] != on:
            self.capabilities[name] = on
            self._notify()

    def allows(self, capability: str | None) -> bool:
        return capability is None or self.capabilities.get(capability, False)

    def snapshot(self) -> dict[str, object]:
        return {"ai_web_pilot": self.ai_web_pilot, "capabilities": dict(self.capabilities)}

    def _notify(self) -> None:
        self._changed.notify(self)
