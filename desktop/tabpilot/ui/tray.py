"""The tray icon and its menu: AI Web Pilot toggle, browser link, managed browser, Quit."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from tabpilot.bridge.pairing import show_code
from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.events import ActivityEvent
from tabpilot.ui.icons import TrayLook, tray_icon

if TYPE_CHECKING:
    from tabpilot.app import App

log = logging.getLogger("tabpilot.ui")

BUSY_HOLD_MS = 400
"""Keep the busy look long enough to be seen, even for a 2 ms command."""


class TrayController(QObject):
    def __init__(self, app: App, quit_app: Callable[[], None]) -> None:
        super().__init__()
        self.app = app
        self.tray = QSystemTrayIcon()
        self.menu = QMenu()
        self.menu.setToolTipsVisible(True)  # the pilot item's tooltip says what it does
        self.status_action = QAction("Tabpilot", self.menu)
        self.status_action.setEnabled(False)
        self.link_action = QAction("Browser: not connected", self.menu)
        self.link_action.setEnabled(False)
        self.pilot_action = QAction("AI Web Pilot", self.menu)
        self.pilot_action.setCheckable(True)
        self.pilot_action.setToolTip("Lets agents act in your browser. Only you can turn it on.")
        self.open_browser_action = QAction("Open managed browser", self.menu)
        self.pair_action = QAction("Pair your own browser…", self.menu)
        self.quit_action = QAction("Quit Tabpilot", self.menu)
        for action in (self.status_action, self.link_action):
            self.menu.addAction(action)
        self.menu.addSeparator()
        self.menu.addAction(self.pilot_action)
        self.menu.addSeparator()
        self.menu.addAction(self.open_browser_action)
        self.menu.addAction(self.pair_action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.tray.setContextMenu(self.menu)

        self._busy_until_idle = QTimer(self)
        self._busy_until_idle.setSingleShot(True)
        self._busy_until_idle.timeout.connect(self.refresh)
        self.look: TrayLook = "disconnected"
        self._tasks: set[asyncio.Task[None]] = set()

        self.pilot_action.toggled.connect(self._pilot_toggled)
        self.open_browser_action.triggered.connect(self._open_browser)
        self.pair_action.triggered.connect(self._offer_code)
        self._announced: set[str] = set()
        self.quit_action.triggered.connect(quit_app)
        app.pairings.listeners.append(self._pairing_changed)
        self._unsubscribe: list[Callable[[], None]] = [
            app.link.subscribe(lambda _connected: self.refresh()),
            app.engine.pilot.subscribe(lambda _pilot: self.refresh()),
            app.engine.activity.subscribe(self._activity),
            lambda: app.pairings.listeners.remove(self._pairing_changed),
        ]
        self.refresh()
        self.tray.show()

    def close(self) -> None:
        """Hide the icon and stop following the app (the app may go on, e.g. in tests)."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        self._busy_until_idle.stop()
        self.menu.hide()
        self.tray.hide()

    def _pilot_toggled(self, on: bool) -> None:
        if on != self.app.engine.pilot.ai_web_pilot:
            self.app.set_pilot(on, remember=True)

    def _open_browser(self) -> None:
        async def go() -> None:
            try:
                await self.app.open_managed_browser(headless=False)
            except TabpilotError as exc:
                self.tray.showMessage("Tabpilot", exc.message, QSystemTrayIcon.MessageIcon.Warning)
            finally:
                self.refresh()

        # Hold a reference: the loop keeps only a weak one, and a collected task stops mid-launch.
        task = asyncio.get_event_loop().create_task(go())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self.open_browser_action.setEnabled(False)  # until it has launched (or failed): no second click

    def _offer_code(self) -> None:
        offer = self.app.offer_pairing_code()
        self.tray.showMessage(
            "Pair your browser",
            f"Type {offer['code']} into the Tabpilot extension's popup (valid 5 minutes).",
            QSystemTrayIcon.MessageIcon.Information,
            60_000,
        )

    def _pairing_changed(self) -> None:
        for pending in self.app.pairings.pending():
            if pending.code in self._announced or not pending.instance_id:
                continue
            self._announced.add(pending.code)
            browser = f"{pending.browser.get('name', 'A browser')} {pending.browser.get('version', '')}".strip()
            self.tray.showMessage(
                "A browser wants to connect",
                f"{browser} (extension {pending.extension_id[:8]}…). To allow it, type "
                f"{show_code(pending.code)} into the Tabpilot extension's popup.",
                QSystemTrayIcon.MessageIcon.Information,
                120_000,
            )

    def _activity(self, event: ActivityEvent) -> None:
        if event.phase == "started":
            self._busy_until_idle.start(BUSY_HOLD_MS)
        self.refresh()

    def compute_look(self) -> TrayLook:
        if not self.app.link.connected:
            return "disconnected"
        if self.app.engine.activity.running > 0 or self._busy_until_idle.isActive():
            return "busy"
        return "pilot" if self.app.engine.pilot.ai_web_pilot else "connected"

    def refresh(self) -> None:
        pilot = self.app.engine.pilot.ai_web_pilot
        if self.pilot_action.isChecked() != pilot:
            self.pilot_action.blockSignals(True)
            self.pilot_action.setChecked(pilot)
            self.pilot_action.blockSignals(False)
        info = self.app.link.info()
        if self.app.link.connected:
            name = f"{info.get('name', 'browser')} {info.get('version', '')}".strip()
            link = f"Browser: connected — {name}" + (" (managed)" if info.get("managed") else "")
        else:
            link = "Browser: not connected"
        self.link_action.setText(link)
        port = self.app.bridge.port if self.app.bridge else 0
        self.status_action.setText(f"Tabpilot — port {port}")
        managed = self.app.managed
        self.open_browser_action.setEnabled(managed is None or not (managed.running or managed.launching))
        look = self.compute_look()
        if look != self.look or self.tray.icon().isNull():
            self.look = look
            self.tray.setIcon(tray_icon(look))
        self.tray.setToolTip(f"Tabpilot — {link.removeprefix('Browser: ')}; AI Web Pilot {'ON' if pilot else 'off'}")
