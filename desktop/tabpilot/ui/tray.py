"""The tray icon and its menu: status, AI Web Pilot and capability toggles, workflows, the windows, Quit.

Menu:
    Tabpilot — port N / Browser: … / what runs now      (status lines)
    Resume: <reason> …                                  (one per hand-off waiting for you; none: hidden)
    AI Web Pilot                                        (the master switch)
    Capabilities ▸                                      (one toggle per capability, kept in the keyring)
    Capture ▸                                           (what capture holds per tab: capture_menu.py)
    Hand a tab to an agent ▸                            (agents ▸ the browser's tabs: hand_tab_menu.py)
    Workflows ▸  Activity…  Secrets…
    Paired browsers…  Pair your own browser…  Approval rules…
    Settings…  Open managed browser
    Quit Tabpilot
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QWidget

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.events import ActivityEvent
from tabpilot.engine.safety.capabilities import CAPABILITIES
from tabpilot.ui.approval_dialog import ApprovalDialogs
from tabpilot.ui.capture_menu import CaptureMenu
from tabpilot.ui.dialogs import close_on_escape, steps_from_one
from tabpilot.ui.hand_tab_menu import HandTabMenu
from tabpilot.ui.icons import TrayLook, app_icon, tray_icon
from tabpilot.ui.pairing import show_paired_browsers, show_pairing_code
from tabpilot.ui.plain import menu_text, notification, tooltip
from tabpilot.ui.rules_window import show_rules_window
from tabpilot.ui.workflows_menu import WorkflowsMenu

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade, HandoffView

log = logging.getLogger("tabpilot.ui")

BUSY_HOLD_MS = 400
"""Keep the busy look long enough to be seen, even for a 2 ms command."""
NOTIFY_MS = 10_000


def is_workflow(event: ActivityEvent) -> bool:
    """A workflow run (new or replayed), or any command that reports steps."""
    if event.tool == "interact" and event.mode == "scrape":
        return event.params.get("operation") in ("workflow", "replay")
    return event.steps_total is not None


class TrayController(QObject):
    def __init__(self, facade: AppFacade, quit_app: Callable[[], None]) -> None:
        super().__init__()
        self.facade = facade
        self.tray = QSystemTrayIcon()
        self.host = QWidget()
        """Never shown: the parent of the windows and dialogs the menu opens, so they go with the tray."""
        self.host.setWindowIcon(app_icon())
        self.menu = QMenu()
        self.menu.setToolTipsVisible(True)  # the pilot item's tooltip says what it does
        self.status_action = QAction("Tabpilot", self.menu)
        self.link_action = QAction("Browser: not connected", self.menu)
        self.running_action = QAction("Nothing running", self.menu)
        self.pilot_action = QAction("AI Web Pilot", self.menu)
        self.pilot_action.setCheckable(True)
        self.pilot_action.setToolTip("Lets agents act in your browser. Only you can turn it on.")

        self.capabilities_menu = QMenu("Capabilities", self.menu)
        self.capabilities_menu.setToolTipsVisible(True)
        self.capability_actions: dict[str, QAction] = {}
        for capability in CAPABILITIES:
            action = QAction(capability.label, self.capabilities_menu)
            action.setCheckable(True)
            action.setToolTip(capability.tip)
            action.toggled.connect(partial(self._capability_toggled, capability.name))
            self.capabilities_menu.addAction(action)
            self.capability_actions[capability.name] = action

        self.workflows = WorkflowsMenu(facade, self.host, self.notify, self, self.menu)
        self.activity_action = QAction("Activity…", self.menu)
        self.secrets_action = QAction("Secrets…", self.menu)
        self.paired_action = QAction("Paired browsers…", self.menu)
        self.pair_action = QAction("Pair your own browser…", self.menu)
        self.rules_action = QAction("Approval rules…", self.menu)
        self.settings_action = QAction("Settings…", self.menu)
        self.open_browser_action = QAction("Open managed browser", self.menu)
        self.quit_action = QAction("Quit Tabpilot", self.menu)

        for action in (self.status_action, self.link_action, self.running_action):
            action.setEnabled(False)
            self.menu.addAction(action)
        self.handoff_actions: dict[str, QAction] = {}
        """One "Resume" item per hand-off waiting for the person, under the status lines."""
        self._handoffs_end = self.menu.addSeparator()
        self.menu.addAction(self.pilot_action)
        self.menu.addMenu(self.capabilities_menu)
        self.capture_menu = CaptureMenu(facade, self.menu)  # capture status per tab (issue 5)
        self.menu.addMenu(self.capture_menu)
        self.hand_tab_menu = HandTabMenu(facade, self.menu)  # each agent its own tabs (issue 10, item 7)
        self.menu.addMenu(self.hand_tab_menu)
        self.menu.addSeparator()
        self.menu.addMenu(self.workflows.menu)
        self.menu.addAction(self.activity_action)
        self.menu.addAction(self.secrets_action)
        self.menu.addSeparator()
        self.menu.addAction(self.paired_action)
        self.menu.addAction(self.pair_action)
        self.menu.addAction(self.rules_action)
        self.menu.addSeparator()
        self.menu.addAction(self.settings_action)
        self.menu.addAction(self.open_browser_action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.tray.setContextMenu(self.menu)

        self._busy_until_idle = QTimer(self)
        self._busy_until_idle.setSingleShot(True)
        self._busy_until_idle.timeout.connect(self.refresh)
        self.look: TrayLook = "disconnected"
        self._tasks: set[asyncio.Task[None]] = set()
        self.windows: dict[str, QWidget] = {}
        self.last_run: tuple[str, str] | None = None
        """(workflow_id, correlation_id) of the last workflow notification: clicking it opens the run."""

        self.pilot_action.toggled.connect(self._pilot_toggled)
        self.activity_action.triggered.connect(self.show_activity)
        self.secrets_action.triggered.connect(self.show_secrets)
        self.settings_action.triggered.connect(self.show_settings)
        # Windows of the approval and pairing UI: one per app, kept by their modules.
        self.paired_action.triggered.connect(lambda: show_paired_browsers(self.facade))
        self.pair_action.triggered.connect(lambda: show_pairing_code(self.facade))
        self.rules_action.triggered.connect(lambda: show_rules_window(self.facade))
        self.open_browser_action.triggered.connect(self._open_browser)
        self.quit_action.triggered.connect(quit_app)
        self.tray.messageClicked.connect(self._message_clicked)
        self._unsubscribe: list[Callable[[], None]] = [
            facade.watch_browsers(self.refresh),
            facade.watch_pilot(self.refresh),
            facade.watch_activity(self._activity),
            facade.watch_handoffs(self._handoffs_changed),
            facade.watch_tab_owners(self.refresh),
        ]
        self.prompts = facade.approvals if isinstance(facade.approvals, ApprovalDialogs) else None
        """The approval prompts (the tray app's), whose waiting for the person the icon shows."""
        if self.prompts is not None:
            self._unsubscribe.append(self.prompts.changed.subscribe(self.refresh))
        self.refresh()
        self.tray.show()
        if facade.handoffs():  # begun before the tray was there
            self._handoffs_changed()

    def close(self) -> None:
        """Hide the icon, stop following the app (it may go on, e.g. in tests), and delete the windows the
        menu opened, here on the GUI thread."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        self._busy_until_idle.stop()
        self.workflows.close()
        for window in self.windows.values():
            if shiboken6.isValid(window):
                dispose = getattr(window, "dispose", None)
                if callable(dispose):
                    dispose()
                window.close()
        self.windows.clear()
        self.menu.hide()
        self.tray.hide()
        if shiboken6.isValid(self.host):
            shiboken6.delete(self.host)

    # -- toggles ---------------------------------------------------------------------------------

    def _pilot_toggled(self, on: bool) -> None:
        self.facade.set_pilot(on)

    def _capability_toggled(self, name: str, on: bool) -> None:
        self.facade.set_capability(name, on)

    # -- windows -----------------------------------------------------------------------------------

    def _show(self, key: str, make: Callable[[], QWidget]) -> QWidget:
        window = self.windows.get(key)
        if window is None or not shiboken6.isValid(window):
            window = make()
            close_on_escape(window)
            self.windows[key] = window
        window.show()
        window.raise_()
        window.activateWindow()
        return window

    def show_activity(self) -> QWidget:
        from tabpilot.ui.activity_window import ActivityWindow

        return self._show("activity", lambda: ActivityWindow(self.facade, self.host))

    def show_secrets(self) -> QWidget:
        from tabpilot.ui.secrets_window import SecretsWindow

        return self._show("secrets", lambda: SecretsWindow(self.facade, self.host))

    def show_settings(self) -> QWidget:
        from tabpilot.ui.settings_dialog import SettingsDialog

        return self._show("settings", lambda: SettingsDialog(self.facade, self.host))

    def _open_browser(self) -> None:
        self.open_managed_browser(headless=False)

    def open_managed_browser(self, headless: bool | None = None) -> asyncio.Task[None]:
        """Launch the managed browser (the menu item, or the setting "Open it when Tabpilot starts"); a launch
        that fails is shown as a tray message."""

        async def go() -> None:
            try:
                await self.facade.open_managed_browser(headless=headless)
            except TabpilotError as exc:  # logged by the app, with the log ref the message gives
                self.tray.showMessage("Tabpilot", notification(exc.message), QSystemTrayIcon.MessageIcon.Warning)
            except Exception as exc:  # a boundary: whatever went wrong is shown, not lost in a task
                log.exception("the managed browser could not start")
                self.tray.showMessage(
                    "Tabpilot",
                    notification(f"The managed browser could not start: {exc}"),
                    QSystemTrayIcon.MessageIcon.Warning,
                )
            finally:
                if shiboken6.isValid(self):
                    self.refresh()

        # Hold a reference: the loop keeps only a weak one, and a collected task stops mid-launch.
        task = asyncio.get_event_loop().create_task(go())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self.open_browser_action.setEnabled(False)  # until it has launched (or failed): no second click
        return task

    # -- notifications ---------------------------------------------------------------------------

    def notify(self, text: str, warning: bool = False) -> None:
        """`text` may quote a workflow's name, an agent's reason, a page's error: shown as it is."""
        icon = QSystemTrayIcon.MessageIcon.Warning if warning else QSystemTrayIcon.MessageIcon.Information
        self.tray.showMessage("Tabpilot", notification(text), icon, NOTIFY_MS)

    def _workflow_finished(self, event: ActivityEvent) -> None:
        workflow_id = str(event.params.get("workflow_id") or "")
        name = str(event.params.get("name") or workflow_id or event.correlation_id)
        entry = self.facade.workflow(workflow_id) if workflow_id else None
        if entry is not None and entry.workflow is not None:
            name = entry.workflow.name
        job = self.facade.job_outcome(event.correlation_id)
        if event.outcome == "ok":
            result = job.result if job is not None and job.result is not None else {}
            if not workflow_id:
                workflow_id = str(result.get("workflow_id") or "")
            rows = result.get("data")
            count = len(rows) if isinstance(rows, list) else 0
            self.notify(f"Workflow {name} finished: {count} row{'' if count == 1 else 's'}")
        else:
            reason = job.error.message if job is not None and job.error is not None else event.error or "error"
            self.notify(f"Workflow {name} failed: {steps_from_one(reason)}", True)
        self.last_run = (workflow_id, event.correlation_id) if workflow_id else None

    # -- hand-offs -----------------------------------------------------------------------------------

    def _handoffs_changed(self) -> None:
        """A hand-off began (the person is told why, and gets a Resume item) or ended (its item goes)."""
        waiting = {h.correlation_id: h for h in self.facade.handoffs()}
        for cid in [cid for cid in self.handoff_actions if cid not in waiting]:
            action = self.handoff_actions.pop(cid)
            self.menu.removeAction(action)
            action.deleteLater()
        for cid, handoff in waiting.items():
            if cid in self.handoff_actions:
                continue
            action = QAction(menu_text(resume_label(handoff)), self.menu)  # the agent's reason
            action.setToolTip(tooltip(f"Done in the page ({handoff.title or handoff.url}): let the agent go on."))
            action.triggered.connect(partial(self.facade.resume_handoff, cid))
            self.menu.insertAction(self._handoffs_end, action)
            self.handoff_actions[cid] = action
            self.notify(
                f"An agent needs you in the browser: {handoff.reason or 'it asked you to take over'}. "
                "Click Resume in the Tabpilot menu (or the extension's popup) when you are done."
            )
        self.refresh()

    def _message_clicked(self) -> None:
        if self.last_run is not None:
            self.workflows.open_run(*self.last_run)

    # -- state -------------------------------------------------------------------------------------

    def _activity(self, event: ActivityEvent) -> None:
        if event.phase == "started":
            self._busy_until_idle.start(BUSY_HOLD_MS)
        elif event.phase == "finished" and is_workflow(event):
            self._workflow_finished(event)
        if event.phase != "progress":
            self.refresh()

    def waiting_for_you(self) -> int:
        """How many approval prompts wait for the person's answer."""
        return len(self.prompts.open) if self.prompts is not None else 0

    def compute_look(self) -> TrayLook:
        if self.waiting_for_you() or self.handoff_actions:
            return "waiting"  # before anything else: the one look that asks the person to act
        if not self.facade.browser_connected():
            return "disconnected"
        if self.facade.running_commands() > 0 or self._busy_until_idle.isActive():
            return "busy"
        return "pilot" if self.facade.pilot_on() else "connected"

    def refresh(self) -> None:
        pilot = self.facade.pilot_on()
        _set_checked(self.pilot_action, pilot)
        capabilities = self.facade.capabilities()
        for name, action in self.capability_actions.items():
            _set_checked(action, capabilities.get(name, False))
        info = self.facade.browser_info()
        if self.facade.browser_connected():
            name = f"{info.get('name', 'browser')} {info.get('version', '')}".strip()
            link = f"Browser: connected — {name}" + (" (managed)" if info.get("managed") else "")
        else:
            link = "Browser: not connected"
        self.link_action.setText(menu_text(link))  # the browser's name, as it gave it
        self.status_action.setText(f"Tabpilot — port {self.facade.port()}")
        running = self.facade.running_commands()
        self.running_action.setText(
            "Nothing running" if not running else f"Running {running} command{'' if running == 1 else 's'}"
        )
        self.open_browser_action.setEnabled(self.facade.can_open_managed_browser())
        self.hand_tab_menu.update_entry()
        look = self.compute_look()
        if look != self.look or self.tray.icon().isNull():
            self.look = look
            self.tray.setIcon(tray_icon(look))
        waiting = self.waiting_for_you()
        asking = f"; {waiting} prompt{'s wait' if waiting > 1 else ' waits'} for your answer" if waiting else ""
        if self.handoff_actions:
            asking += "; an agent waits for you in the browser (Resume in this menu)"
        # (the browser names itself: where the tray's tooltip is HTML, as on X11, it must not be read as such;
        # elsewhere it is plain text, so it gets no escapes either: look-alikes of < > & instead)
        self.tray.setToolTip(
            notification(
                f"Tabpilot — {link.removeprefix('Browser: ')}; AI Web Pilot {'ON' if pilot else 'off'}{asking}"
            )
        )


RESUME_REASON_CHARS = 60


def resume_label(handoff: HandoffView) -> str:
    """The menu item: `Resume — log in to the shop` (the reason cut to fit a menu)."""
    reason = handoff.reason or handoff.title or "the agent"
    if len(reason) > RESUME_REASON_CHARS:
        reason = reason[: RESUME_REASON_CHARS - 1] + "…"
    return f"Resume — {reason}"


def _set_checked(action: QAction, on: bool) -> None:
    """Show the app's state without it counting as the person's click."""
    if action.isChecked() != on:
        action.blockSignals(True)
        action.setChecked(on)
        action.blockSignals(False)
