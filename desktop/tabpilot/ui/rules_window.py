"""Approval rules: the standing answers a person gave ("allow for this site", "always allow this
workflow"), each with what it covers, how long it lasts and a Revoke button. Updates live."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tabpilot.engine.policy import Rule
from tabpilot.ui.icons import app_icon

if TYPE_CHECKING:
    from tabpilot.app import App

log = logging.getLogger("tabpilot.ui.rules")

COLUMNS = ("Allows", "For", "Time left", "Asked by", "Since", "")
TICK_MS = 1000


def time_left(rule: Rule, now: float) -> str:
    if rule.expires_at is None:
        return "until revoked"
    left = max(0, round(rule.expires_at - now))
    if left >= 3600:
        return f"{left // 3600}:{left % 3600 // 60:02d}:{left % 60:02d}"
    return f"{left // 60}:{left % 60:02d}"


def describe(rule: Rule) -> tuple[str, str]:
    if rule.kind == "site":
        return "Page changes on a site", rule.origin
    return "A saved workflow, as it is now", rule.workflow_id


def read_only_table(columns: tuple[str, ...]) -> QTableWidget:
    """A list to read, with buttons in its last column (no cells to select or edit)."""
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    table.setWordWrap(False)
    return table


def centre(window: QWidget) -> None:
    """Where a window manager would put a new window: the middle of the screen."""
    layout = window.layout()
    if layout is not None and layout.sizeConstraint() == QLayout.SizeConstraint.SetFixedSize:
        window.adjustSize()  # its size follows its contents
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return
    area = screen.availableGeometry()
    size = window.size()
    window.move(area.center().x() - size.width() // 2, area.center().y() - size.height() // 2)


class RulesWindow(QWidget):
    def __init__(self, app: App) -> None:
        super().__init__(None)
        self.app = app
        self.setWindowTitle("Tabpilot — approval rules")
        self.setWindowIcon(app_icon())
        self.setObjectName("rulesWindow")
        self.resize(760, 260)
        layout = QVBoxLayout(self)
        intro = QLabel(
            "Agents act without asking where one of these rules applies. Everything else asks you first. "
            "Revoke a rule to be asked again."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.table = read_only_table(COLUMNS)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table)
        self.empty_label = QLabel("No rules: every page change asks you first.")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setStyleSheet("color: #5b6270; padding: 12px;")
        layout.addWidget(self.empty_label)
        bottom = QHBoxLayout()
        bottom.addStretch(1)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        bottom.addWidget(close)
        layout.addLayout(bottom)

        self.rules: list[Rule] = []
        self.revoke_buttons: dict[str, QPushButton] = {}
        self._listening = True
        self._refreshing = False
        app.policy.listeners.append(self.refresh)
        self._ticker = QTimer(self)
        self._ticker.setInterval(TICK_MS)
        self._ticker.timeout.connect(self.refresh)  # time left, and rules that expire
        self._ticker.start()
        self.refresh()

    def refresh(self) -> None:
        if self._refreshing or not shiboken6.isValid(self):
            return
        self._refreshing = True
        try:
            self._refresh()
        finally:
            self._refreshing = False

    def _refresh(self) -> None:
        rules = self.app.policy.rules()  # drops expired rules (telling the listeners: us, hence the guard)
        now = self.app.policy.clock.time()
        if [r.rule_id for r in rules] != [r.rule_id for r in self.rules]:
            self._rebuild(rules)
        for row, rule in enumerate(rules):
            item = self.table.item(row, 2)
            if item is not None:
                item.setText(time_left(rule, now))
        self.rules = rules

    def _rebuild(self, rules: list[Rule]) -> None:
        self.table.setRowCount(len(rules))
        self.revoke_buttons = {}
        for row, rule in enumerate(rules):
            allows, scope = describe(rule)
            since = time.strftime("%Y-%m-%d %H:%M", time.localtime(rule.created_at))
            for column, text in enumerate((allows, scope, "", rule.agent or "—", since)):
                item = QTableWidgetItem(text)
                item.setToolTip(rule.describe())
                self.table.setItem(row, column, item)
            button = QPushButton("Revoke")
            button.setToolTip(f"Stop: {rule.describe()}")
            button.clicked.connect(lambda _checked=False, rule_id=rule.rule_id: self.revoke(rule_id))
            self.table.setCellWidget(row, len(COLUMNS) - 1, button)
            self.revoke_buttons[rule.rule_id] = button
        self.table.setVisible(bool(rules))
        self.empty_label.setVisible(not rules)

    def revoke(self, rule_id: str) -> None:
        if self.app.policy.revoke(rule_id):
            log.info("approval rule %s revoked by the user", rule_id)
        self.refresh()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.stop()
        super().closeEvent(event)

    def stop(self) -> None:
        self._ticker.stop()
        if self._listening:
            self._listening = False
            self.app.policy.listeners.remove(self.refresh)


_open: dict[int, RulesWindow] = {}


def open_rules_window(app: App) -> RulesWindow:
    """The app's rules window, shown and raised (one per app: a second call brings it to the front)."""
    window = _open.get(id(app))
    if window is None or not shiboken6.isValid(window):
        window = RulesWindow(app)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        centre(window)
        key = id(app)
        window.destroyed.connect(lambda _obj=None, key=key: _open.pop(key, None))
        _open[key] = window
    window.show()
    window.raise_()
    window.activateWindow()
    return window


def show_rules_window(app: App) -> None:
    """For the tray menu: "Approval rules…"."""
    open_rules_window(app)
