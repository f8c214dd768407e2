"""A run owns its tab: while a workflow acts in a tab, nothing else acts there.

The workflows feature takes the lock for the tab a run acts in and gives it back when the run ends; the
engine's gate consults it for every command that would act in a tab (navigate, click, execute_js, …,
from any agent, the CLI or the tray) and refuses with `workflow_in_progress`, naming the run. Reads go
on: they change nothing the run relies on. The run's own steps do not pass the gate (the runner calls
their handlers directly), so the lock never stands in the run's way.

Without it a `goto` sent while a workflow ran in the same tab was obeyed, and the workflow then read
page 2 instead of page 1 and reported `complete` (issue 20).
"""

from __future__ import annotations

from dataclasses import dataclass

from tabpilot.engine.errors import TabpilotError


@dataclass(frozen=True)
class TabHold:
    """Who holds a tab: a run of a workflow."""

    run_id: str
    workflow_id: str


class TabLocks:
    def __init__(self) -> None:
        self._held: dict[int, TabHold] = {}

    def take(self, tab_id: int, hold: TabHold) -> None:
        """The tab is `hold`'s until released; refused when another run has it already."""
        current = self._held.get(tab_id)
        if current is not None and current != hold:
            raise busy(tab_id, current)
        self._held[tab_id] = hold

    def release(self, tab_id: int, hold: TabHold) -> None:
        if self._held.get(tab_id) == hold:
            del self._held[tab_id]

    def any(self) -> bool:
        return bool(self._held)

    def check(self, tab_id: int) -> None:
        """Refuse an action in `tab_id` while a run holds it."""
        hold = self._held.get(tab_id)
        if hold is not None:
            raise busy(tab_id, hold)


def busy(tab_id: int, hold: TabHold) -> TabpilotError:
    return TabpilotError(
        "workflow_in_progress",
        f"Workflow {hold.workflow_id} is running in this tab (run {hold.run_id}); nothing else may act in it "
        f"until the run ends. Wait for it, use another tab, or stop it with "
        f"configure {{action:'stop_run', run_id:'{hold.run_id}'}}. Reads still work.",
        run_id=hold.run_id,
        workflow_id=hold.workflow_id,
        active_workflow_id=hold.workflow_id,
        tab_id=tab_id,
    )
