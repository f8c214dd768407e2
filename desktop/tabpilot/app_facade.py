"""What the tray's windows may do with the running app, and the changes they may follow.

ui/ reaches the app only through this (pure Python, no Qt): the windows never hold the App, never add to
another object's listener list and never read the engine's, the link's or the books' fields. Every
`watch_*` returns the call that ends that subscription (see observers.py for how callbacks are called);
callbacks run on the notifier's thread — the workflow list's on its file watcher's, the others' on the
event loop's (the GUI thread in the tray).

Methods that touch the OS keyring (the secrets, the token) block: windows call them off the GUI thread.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.events import ActivityEvent
from tabpilot.engine.jobs import JobStatus
from tabpilot.engine.page.handoffs import handoff_book
from tabpilot.engine.ports import ApprovalPort, WorkflowEntry

if TYPE_CHECKING:
    from tabpilot.app import App
    from tabpilot.bridge.pairing import Pairing, PendingRequest
    from tabpilot.engine.safety.policy import Rule
    from tabpilot.engine.workflows.workflows import Workflow
    from tabpilot.storage.settings import Settings

Unsubscribe = Callable[[], None]


@dataclass(frozen=True)
class JobOutcome:
    """Where a command stands, as the windows show it: not the job itself, which only the engine changes
    (the result is the job's own dict, to read, not to change)."""

    status: JobStatus
    result: dict[str, Any] | None
    error: TabpilotError | None

    @property
    def done(self) -> bool:
        return self.status in ("complete", "error")


@dataclass(frozen=True)
class HandoffView:
    """A hand-off waiting for the person, as the tray shows it."""

    correlation_id: str
    reason: str
    agent: str
    tab_id: int
    url: str
    title: str


@dataclass(frozen=True)
class AgentView:
    """An agent session the person can hand a tab to: its key (`mcp-2`, `cli`), the name its program gave
    (its own claim), and the tabs it owns now."""

    key: str
    name: str
    tabs: tuple[int, ...]


class AppFacade:
    def __init__(self, app: App) -> None:
        self._app = app

    @property
    def approvals(self) -> ApprovalPort:
        """Who the app asks before an agent changes a page (in the tray: the prompts, which are ui/'s own)."""
        return self._app.human_approvals

    # -- AI Web Pilot and the capabilities -------------------------------------------------------------

    def pilot_on(self) -> bool:
        return self._app.engine.pilot.ai_web_pilot

    def capabilities(self) -> dict[str, bool]:
        return dict(self._app.engine.pilot.capabilities)

    def set_pilot(self, on: bool) -> None:
        """The person's switch, remembered in the keyring; the state it already is in changes nothing."""
        if on != self._app.engine.pilot.ai_web_pilot:
            self._app.set_pilot(on, remember=True)

    def set_capability(self, name: str, on: bool) -> None:
        """The person's toggle, kept in the keyring; the state it already is in changes nothing."""
        if self._app.engine.pilot.capabilities.get(name) != on:
            self._app.set_capability(name, on)

    def watch_pilot(self, changed: Callable[[], None]) -> Unsubscribe:
        """The switch or a capability changed."""
        return self._app.engine.pilot.subscribe(lambda _state: changed())

    # -- the app and its browsers ----------------------------------------------------------------------

    def port(self) -> int:
        """The bridge's port (0 before it listens)."""
        return self._app.bridge.port if self._app.bridge is not None else 0

    def browser_connected(self) -> bool:
        return self._app.link.connected

    def browser_info(self) -> dict[str, Any]:
        """The default browser: name, version, whether it is the managed one, how many are connected."""
        return self._app.link.info()

    def connected_pairings(self) -> set[str]:
        """The pair ids of the paired browsers connected now."""
        return {str(h["pair_id"]) for h in self._app.link.hellos() if h.get("pair_id")}

    def browsers_full(self) -> str:
        """Why another browser cannot connect now, and what the person can do; "" while there is room."""
        return self._app.browsers_full() if self._app.link.full() else ""

    def watch_browsers(self, changed: Callable[[], None]) -> Unsubscribe:
        """A browser connected or left."""
        return self._app.link.subscribe(lambda _connected: changed())

    async def browser_tabs(self, timeout_s: float) -> list[Any]:
        """The connected browsers' tabs as the browser lists them (ids, titles, addresses); raises
        TabpilotError (or TimeoutError) when the browser does not answer."""
        answer = await self._app.link.request("tabs.list", {}, timeout_s=timeout_s)
        tabs = answer.get("tabs")
        return tabs if isinstance(tabs, list) else []

    def can_open_managed_browser(self) -> bool:
        """No managed browser is running or on its way."""
        managed = self._app.managed
        return managed is None or not (managed.running or managed.launching)

    async def open_managed_browser(self, headless: bool | None = None) -> None:
        await self._app.open_managed_browser(headless=headless)

    async def crop(self, tab_id: int | None, selector: str | None) -> dict[str, Any] | None:
        """A picture of the element an approval is about; None when unavailable."""
        return await self._app.crop(tab_id, selector)

    # -- activity --------------------------------------------------------------------------------------

    def running_commands(self) -> int:
        return self._app.engine.activity.running

    def recent_activity(self) -> list[ActivityEvent]:
        return self._app.engine.activity.recent()

    def watch_activity(self, event: Callable[[ActivityEvent], None]) -> Unsubscribe:
        """Each command's started, progress and finished events, as they happen."""
        return self._app.engine.activity.subscribe(event)

    def job_outcome(self, correlation_id: str) -> JobOutcome | None:
        """None once the engine no longer keeps the command's job (or never had it)."""
        job = self._app.engine.jobs.get(correlation_id)
        if job is None:
            return None
        return JobOutcome(job.status, job.result, job.error)

    # -- hand-offs: an agent waits for the person in a tab (interact handoff) -------------------------------

    def handoffs(self) -> list[HandoffView]:
        """Oldest first."""
        return [
            HandoffView(h.correlation_id, h.reason, h.agent, h.tab_id, h.url, h.title)
            for h in handoff_book(self._app.engine).pending()
        ]

    def resume_handoff(self, correlation_id: str) -> bool:
        """The person is done in the tab (the tray's Resume): the agent's command goes on. False if it had ended."""
        return handoff_book(self._app.engine).resume(correlation_id, "tray")

    def watch_handoffs(self, changed: Callable[[], None]) -> Unsubscribe:
        """A hand-off began or ended."""
        return handoff_book(self._app.engine).changed.subscribe(changed)

    # -- each agent its own tabs: the person hands a tab to one (as the popup does) ----------------------------

    def agents(self) -> list[AgentView]:
        """The agent sessions connected now (MCP, CLI), in the order they came, with the tabs each owns."""
        owners = self._app.engine.tab_owners
        owned = owners.owned()
        return [
            AgentView(s.key, s.name, tuple(t for t, o in owned.items() if o.key == s.key)) for s in owners.sessions()
        ]

    def hand_tab(self, tab_id: int, key: str | None) -> bool:
        """The person gives `tab_id` to the agent session `key` (None: takes it back, nobody owns it). False
        when that session has just ended (nothing changed)."""
        return self._app.engine.tab_owners.hand(tab_id, key) is not None or key is None

    def watch_tab_owners(self, changed: Callable[[], None]) -> Unsubscribe:
        """A tab changed hands, or an agent session came or went."""
        return self._app.engine.tab_owners.subscribe(changed)

    # -- capture ----------------------------------------------------------------------------------------

    def capture_status(self) -> dict[str, Any]:
        return self._app.capture_status()

    def clear_capture(self) -> None:
        self._app.capture.clear()

    # -- secrets (the OS keyring: these block) ------------------------------------------------------------

    def secret_names(self) -> list[str]:
        return self._app.secrets.names()

    def secret_values(self) -> dict[str, str]:
        """Every stored secret's value, by name: for scrubbing them out of what a window shows."""
        values: dict[str, str] = {}
        for name in self._app.secrets.names():
            value = self._app.secrets.get(name)
            if value:
                values[name] = value
        return values

    def set_secret(self, name: str, value: str) -> None:
        self._app.secrets.set(name, value)

    def rename_secret(self, old: str, new: str) -> None:
        self._app.secrets.rename(old, new)

    def delete_secret(self, name: str) -> None:
        self._app.secrets.delete(name)

    def secret_usage(self) -> dict[str, list[str]]:
        """Which saved workflows refer to each secret name."""
        return self._app.secret_usage()

    # -- settings ---------------------------------------------------------------------------------------

    def settings(self) -> Settings:
        """A copy: changes reach the app only through apply_settings."""
        return copy.deepcopy(self._app.settings)

    def apply_settings(self, settings: Settings) -> list[str]:
        """Save and use them; returns the names of those that need a restart."""
        return self._app.apply_settings(settings)

    def rotate_token(self) -> None:
        self._app.rotate_token()

    # -- saved workflows ----------------------------------------------------------------------------------

    def workflows_folder(self) -> Path:
        return self._app.paths.workflows_dir

    def workflows(self) -> list[WorkflowEntry]:
        return self._app.workflows.entries()

    def workflow(self, workflow_id: str) -> WorkflowEntry | None:
        return self._app.workflows.get(workflow_id)

    def workflow_runs(self, workflow_id: str) -> list[dict[str, Any]]:
        """Its last runs, newest first."""
        return self._app.workflows.runs(workflow_id)

    def save_workflow(self, workflow: Workflow) -> None:
        """An imported workflow, written to the folder (the list follows through watch_workflows)."""
        self._app.workflows.save(workflow)

    def delete_workflow(self, workflow_id: str) -> None:
        self._app.workflows.delete(workflow_id)

    async def run_workflow(self, workflow_id: str, params: dict[str, str] | None = None) -> dict[str, Any]:
        """A run the person starts: no prompts (they are acting), the workflow's domain lock kept."""
        return await self._app.run_workflow(workflow_id, params)

    def watch_workflows(self, changed: Callable[[], None]) -> Unsubscribe:
        """The list or a workflow's last run changed: called on the file watcher's thread."""
        return self._app.workflows.changed.subscribe(changed)

    # -- paired browsers and pairing codes -------------------------------------------------------------------

    def paired_browsers(self) -> list[Pairing]:
        return self._app.pairings.paired()

    def pairing_codes(self) -> list[PendingRequest]:
        """The codes open now (expired ones are dropped, which watch_pairings hears of)."""
        return self._app.pairings.pending()

    def offer_pairing_code(self) -> PendingRequest:
        """A new one-time code for a browser the person sets up now."""
        return self._app.offer_pairing()

    def seconds_left(self, pending: PendingRequest) -> float:
        return max(0.0, pending.expires_at - self._app.pairings.clock())

    def withdraw_pairing_code(self, code: str) -> None:
        self._app.pairings.cancel(code)

    def rename_pairing(self, pair_id: str, name: str) -> bool:
        """The person's name for a paired browser (blank: back to the default); False if it is gone."""
        return self._app.pairings.rename(pair_id, name)

    def revoke_pairing(self, pair_id: str) -> bool:
        """Forget a paired browser and cut it off if it is connected; False if it was not paired."""
        return self._app.revoke_pairing(pair_id)

    def watch_pairings(self, changed: Callable[[], None]) -> Unsubscribe:
        """A pairing or an open code came, went or changed."""
        return self._app.pairings.changed.subscribe(changed)

    # -- approval rules ----------------------------------------------------------------------------------------

    def approval_rules(self) -> list[Rule]:
        """The standing rules (expired ones are dropped, which watch_rules hears of)."""
        return self._app.policy.rules()

    def rules_clock(self) -> float:
        """The time the rules' expiry is measured against."""
        return self._app.policy.clock.time()

    def revoke_rule(self, rule_id: str) -> bool:
        return self._app.policy.revoke(rule_id)

    def watch_rules(self, changed: Callable[[], None]) -> Unsubscribe:
        return self._app.policy.changed.subscribe(changed)
