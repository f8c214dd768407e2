"""Approval rules: the standing answers a person gave ("allow for this site", "always allow this
workflow"), each with what it covers, how long it lasts and a Revoke button. Updates live."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QTimer

from tabpilot.engine.policy import Rule
from tabpilot.ui.revocable import Revocable, RevocableList, open_one_per_app

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


class RulesWindow(RevocableList):
    def __init__(self, app: App) -> None:
        super().__init__(
            name="rulesWindow",
            title="Tabpilot — approval rules",
            size=(760, 260),
            intro=(
                "Agents act without asking where one of these rules applies. Everything else asks you first. "
                "Revoke a rule to be asked again."
            ),
            columns=COLUMNS,
            stretch=1,
            empty="No rules: every page change asks you first.",
        )
        self.app = app
        self.rules: list[Rule] = []
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
        shown = []
        for rule in rules:
            allows, scope = describe(rule)
            since = time.strftime("%Y-%m-%d %H:%M", time.localtime(rule.created_at))
            cells = (allows, scope, "", rule.agent or "—", since)
            shown.append(
                Revocable(rule.rule_id, cells, tooltip=rule.describe(), revoke_tooltip=f"Stop: {rule.describe()}")
            )
        self.show_rows(shown)

    def revoke(self, rule_id: str) -> None:
        if self.app.policy.revoke(rule_id):
            log.info("approval rule %s revoked by the user", rule_id)
        self.refresh()

    def stop(self) -> None:
        self._ticker.stop()
        if self._listening:
            self._listening = False
            self.app.policy.listeners.remove(self.refresh)


def open_rules_window(app: App) -> RulesWindow:
    """The app's rules window, shown and raised (one per app: a second call brings it to the front)."""
    return open_one_per_app(app, RulesWindow)


def show_rules_window(app: App) -> None:
    """For the tray menu: "Approval rules…"."""
    open_rules_window(app)
