"""The tray's "Capture" submenu: what capture holds per tab, and a way to empty it.

The two capture toggles (WebSockets, network bodies) are capabilities and live with the others in the
Capabilities submenu; this menu shows their state in its first line. It is rebuilt each time it opens,
from `App.capture_status()`, so it costs nothing while closed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

if TYPE_CHECKING:
    from tabpilot.app import App

MAX_TABS_SHOWN = 10
LABELS = (
    ("logs", "logs"),
    ("errors", "errors"),
    ("network", "requests"),
    ("network_bodies", "bodies"),
    ("websocket_events", "WebSocket events"),
)


def describe_tab(tab: dict[str, Any]) -> str:
    """`Tab 7 · example.com/app: 40 logs, 2 errors, 15 requests` (kinds with nothing are left out)."""
    url = str(tab.get("url") or "").split("://", 1)[-1][:60] or "(no page yet)"
    counts = ", ".join(f"{tab['buffered'][kind]} {label}" for kind, label in LABELS if tab["buffered"].get(kind))
    return f"Tab {tab['tab_id']} · {url}: {counts or 'nothing'}"


class CaptureMenu(QMenu):
    def __init__(self, app: App, parent: QWidget | None = None) -> None:
        super().__init__("Capture", parent)
        self.app = app
        self.aboutToShow.connect(self.rebuild)
        self.rebuild()

    def rebuild(self) -> None:
        self.clear()
        status = self.app.capture_status()
        toggles = QAction(
            f"WebSockets {'on' if status['websockets'] else 'off'} · network bodies "
            f"{'on' if status['network_bodies'] else 'off'} (see Capabilities)",
            self,
        )
        toggles.setEnabled(False)
        self.addAction(toggles)
        self.addSeparator()
        tabs = status["tabs"]
        if not tabs:
            empty = QAction("Nothing captured yet", self)
            empty.setEnabled(False)
            self.addAction(empty)
        for tab in tabs[:MAX_TABS_SHOWN]:
            line = QAction(describe_tab(tab), self)
            line.setEnabled(False)
            self.addAction(line)
        self.addSeparator()
        clear = QAction("Clear captured data", self)
        clear.setEnabled(bool(tabs))
        clear.triggered.connect(self._clear)
        self.addAction(clear)

    def _clear(self) -> None:
        self.app.capture.clear()
        self.rebuild()
