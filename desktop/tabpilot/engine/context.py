"""What a command handler sees while it runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.jobs import Job
from tabpilot.engine.ports import BrowserPort
from tabpilot.engine.safety.tab_owners import PERSON_SESSION, Session

if TYPE_CHECKING:
    from tabpilot.engine.core import Engine

DEFAULT_BROWSER_TIMEOUT_S = 10.0


@dataclass
class CommandContext:
    engine: Engine
    job: Job
    agent: str
    placeholders_resolved: bool = False
    """A workflow's steps run as interact actions: their {{name}} and {{secret:NAME}} are filled in already."""
    session: Session = PERSON_SESSION
    """The agent session calling (it owns the tabs it opens); PERSON for what a person starts."""
    pinned: Any = None
    """What the approval was computed from (`ApprovalScope.pinned`): the handler runs exactly this."""

    @property
    def browser(self) -> BrowserPort:
        return self.engine.browser

    async def browser_request(
        self, op: str, params: dict[str, Any], *, timeout_s: float = DEFAULT_BROWSER_TIMEOUT_S
    ) -> dict[str, Any]:
        """Send `op` to the extension; `tab_id` (when the command has one) travels with it."""
        if not self.browser.connected:
            await self.engine.wait_for_browser()
        if not self.browser.connected:
            raise TabpilotError(
                "extension_not_connected",
                "No browser is connected to Tabpilot. Start the managed browser from the tray, or open "
                "your browser with the Tabpilot extension loaded.",
            )
        clean = {k: v for k, v in params.items() if v is not None}
        return await self.browser.request(op, clean, timeout_s=timeout_s)
