"""The tray's "Capture" submenu: what capture holds per tab, and a way to empty it.

The two capture toggles (WebSockets, network bodies) are capabilities and live with the others in the
Capabilities submenu; this menu shows their state in its first line. It is rebuilt each time it opens,
from `AppFacade.capture_status()`, so it costs nothing while closed.

Tabs are named by their titles, as the browser shows them. Capture does not keep titles, so the menu asks
the browser for its tabs when it opens (a read, nothing changes) and names them as soon as the answer is
in; titles seen before are used at once.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from tabpilot.engine.errors import TabpilotError
from tabpilot.ui.dialogs import spawn
from tabpilot.ui.plain import menu_text

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade

log = logging.getLogger("tabpilot.ui")

MAX_TABS_SHOWN = 10
TITLE_CHARS = 40
TITLES_TIMEOUT_S = 2.0
LABELS = (
    ("logs", "log", "logs"),
    ("errors", "error", "errors"),
    ("network", "request", "requests"),
    ("network_bodies", "body", "bodies"),
    ("websocket_events", "WebSocket event", "WebSocket events"),
)


def counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def describe_tab(tab: dict[str, Any], title: str = "") -> str:
    """`Jobs — example.com/app: 40 logs, 1 error, 15 requests` (kinds with nothing are left out); without a
    title, the address alone."""
    url = str(tab.get("url") or "").split("://", 1)[-1]
    title = " ".join(title.split())
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1] + "…"
    where = url.split("/", 1)[0] if title else url[:60]
    name = f"{title} — {where}" if title and where else title or where or "(no page yet)"
    counts = ", ".join(
        counted(tab["buffered"][kind], one, many) for kind, one, many in LABELS if tab["buffered"].get(kind)
    )
    return f"{name}: {counts or 'nothing'}"


class CaptureMenu(QMenu):
    def __init__(self, facade: AppFacade, parent: QWidget | None = None) -> None:
        super().__init__("Capture", parent)
        self.facade = facade
        self.titles: dict[int, str] = {}
        """The browser's tab titles, by tab id, as last heard."""
        self.tab_lines: dict[int, QAction] = {}
        self._tabs: list[dict[str, Any]] = []
        self.aboutToShow.connect(self._opening)
        self.rebuild()

    def _opening(self) -> None:
        self.rebuild()
        if self._tabs and self.facade.browser_connected():
            spawn(self._ask_titles())

    async def _ask_titles(self) -> None:
        try:
            tabs = await self.facade.browser_tabs(TITLES_TIMEOUT_S)
        except (TabpilotError, TimeoutError) as exc:  # a name is a nicety: the address stays
            log.debug("no tab titles for the capture menu: %s", exc)
            return
        for tab in tabs:
            if isinstance(tab, dict) and isinstance(tab.get("tab_id"), int) and isinstance(tab.get("title"), str):
                self.titles[tab["tab_id"]] = tab["title"]
        if shiboken6.isValid(self):
            self._name_tabs()

    def _name_tabs(self) -> None:
        for tab in self._tabs:
            line = self.tab_lines.get(tab["tab_id"])
            if line is not None:
                line.setText(menu_text(describe_tab(tab, self.titles.get(tab["tab_id"], ""))))

    def rebuild(self) -> None:
        self.clear()
        self.tab_lines = {}
        status = self.facade.capture_status()
        toggles = QAction(
            f"WebSockets {'on' if status['websockets'] else 'off'} · network bodies "
            f"{'on' if status['network_bodies'] else 'off'} (see Capabilities)",
            self,
        )
        toggles.setEnabled(False)
        self.addAction(toggles)
        self.addSeparator()
        tabs = status["tabs"]
        self._tabs = tabs[:MAX_TABS_SHOWN]
        if not tabs:
            empty = QAction("Nothing captured yet", self)
            empty.setEnabled(False)
            self.addAction(empty)
        for tab in self._tabs:
            line = QAction(menu_text(describe_tab(tab, self.titles.get(tab["tab_id"], ""))), self)  # a page's title
            line.setEnabled(False)
            self.addAction(line)
            self.tab_lines[tab["tab_id"]] = line
        self.addSeparator()
        clear = QAction("Clear captured data", self)
        clear.setEnabled(bool(tabs))
        clear.triggered.connect(self._clear)
        self.addAction(clear)

    def _clear(self) -> None:
        self.facade.clear_capture()
        self.rebuild()
