"""Approval rules: the standing answers a person gave ("allow for this site", "always allow this
workflow"), each with exactly what it covers — the agent (by the name it gave), the class of action, the
site or workflow — how long it lasts and a Revoke button. Updates live."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QTimer

from tabpilot.engine.ports import reported_agent
from tabpilot.engine.safety.policy import Rule, class_name
from tabpilot.ui.revocable import Revocable, RevocableList, open_one_per_app

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade

log = logging.getLogger("tabpilot.ui.rules")

COLUMNS = ("Agent (the name it gave)", "May do, without asking", "On", "Time left", "Since", "")
TIME_LEFT = COLUMNS.index("Time left")
TICK_MS = 1000


def time_left(rule: Rule, now: float) -> str:
    if rule.expires_at is None:
        return "until revoked"
    left = max(0, round(rule.expires_at - now))
    if left >= 3600:
        return f"{left // 3600}:{left % 3600 // 60:02d}:{left % 60:02d}"
    return f"{left // 60}:{left % 60:02d}"


def describe(rule: Rule) -> tuple[str, str, str]:
    """The agent, what it may do, and where (a site, or a saved workflow)."""
    where = rule.origin if rule.kind == "site" else f"workflow {rule.workflow_id}"
    return reported_agent(rule.agent), rule.allows(), where


class RulesWindow(RevocableList):
    def __init__(self, facade: AppFacade) -> None:
        super().__init__(
            name="rulesWindow",
            title="Tabpilot — approval rules",
            size=(1100, 300),
            intro=(
                "An agent acts without asking only where one of these rules covers it: that agent (by the name "
                "its program gave, which Tabpilot cannot check), that kind of action, on that site or workflow. "
                "Everything else asks you first. Revoke a rule to be asked again."
            ),
            columns=COLUMNS,
            stretch=1,
            empty="No rules: every page change asks you first.",
        )
        self.facade = facade
        self.rules: list[Rule] = []
        self._refreshing = False
        self._unsubscribe = facade.watch_rules(self.refresh)
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
        rules = self.facade.approval_rules()  # drops expired rules (telling the watchers: us, hence the guard)
        now = self.facade.rules_clock()
        if [r.rule_id for r in rules] != [r.rule_id for r in self.rules]:
            self._rebuild(rules)
        for row, rule in enumerate(rules):
            item = self.table.item(row, TIME_LEFT)
            if item is not None:
                item.setText(time_left(rule, now))
        self.rules = rules

    def _rebuild(self, rules: list[Rule]) -> None:
        shown = []
        for rule in rules:
            agent, allows, where = describe(rule)
            since = time.strftime("%Y-%m-%d %H:%M", time.localtime(rule.created_at))
            cells = (agent, allows, where, "", since)
            sentence = rule.describe()
            shown.append(
                Revocable(
                    rule.rule_id,
                    cells,
                    tooltip=sentence[0].upper() + sentence[1:] + ".",
                    revoke_tooltip=f"Revoke: from now on, ask before {_what_it_skips(rule)}.",
                )
            )
        self.show_rows(shown)

    def revoke(self, rule_id: str) -> None:
        if self.facade.revoke_rule(rule_id):
            log.info("approval rule %s revoked by the user", rule_id)
        self.refresh()

    def stop(self) -> None:
        self._ticker.stop()
        self._unsubscribe()


def _what_it_skips(rule: Rule) -> str:
    if rule.kind == "site":
        what = class_name(rule.action_class)
        return f"{what} on {rule.origin} by the agent that {reported_agent(rule.agent)}"
    return f"replays of workflow {rule.workflow_id} by the agent that {reported_agent(rule.agent)}"


def open_rules_window(facade: AppFacade) -> RulesWindow:
    """The app's rules window, shown and raised (one per app: a second call brings it to the front)."""
    return open_one_per_app(facade, RulesWindow)


def show_rules_window(facade: AppFacade) -> None:
    """For the tray menu: "Approval rules…"."""
    open_rules_window(facade)
