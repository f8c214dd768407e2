"""The tray's "Hand a tab to an agent" submenu: the person gives one of the browser's tabs to an agent, as the
extension's popup does (engine/safety/tab_owners.py has the rule; issue 10, item 7).

    Hand a tab to an agent ▸
        agent says it is "claude-code 1.0" (mcp-1) ▸     (one submenu per agent session connected now)
            Give it a tab (✓ its own: …)                   (a header line, disabled)
            ✓ Sign in — shop.test                         (its own: checked; choosing it again takes it back)
              Jobs — jobs.test (agent mcp-2's)            (another agent's: choosing it moves it here)
              Docs — docs.test

Agents are named as the activity window names them: by the name their program gave, marked as its claim,
with the session key that tells two of the same program apart. The menu asks the browser for its tabs each
time it opens (a read, nothing changes) and fills the agents' submenus when the answer is in; tabs seen
before are shown at once. With no browser or no agent the entry is disabled and says why.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from tabpilot.engine.errors import TabpilotError
from tabpilot.engine.ports import reported_agent
from tabpilot.ui.dialogs import spawn
from tabpilot.ui.plain import menu_text

if TYPE_CHECKING:
    from tabpilot.app_facade import AgentView, AppFacade

log = logging.getLogger("tabpilot.ui")

TITLE = "Hand a tab to an agent"
MAX_TABS_SHOWN = 15
TITLE_CHARS = 40
TABS_TIMEOUT_S = 2.0
HEADER = "Give it a tab (✓ its own: choose it again to take it back)"


def agent_label(agent: AgentView) -> str:
    """`agent says it is "claude-code 1.0" (mcp-2)`: the key only when it adds something."""
    name = f"agent {reported_agent(agent.name)}"
    return name if agent.key == agent.name else f"{name} ({agent.key})"


def tab_label(tab: dict[str, Any]) -> str:
    """`Sign in — shop.test` (the title cut to fit a menu, the host); without a title, the address."""
    address = str(tab.get("url") or "").split("://", 1)[-1]
    title = " ".join(str(tab.get("title") or "").split())
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1] + "…"
    host = address.split("/", 1)[0]
    if title and host:
        return f"{title} — {host}"
    return title or address[:60] or "(no page yet)"


def unavailable(connected: bool, agents: int) -> str:
    """Why nothing can be handed over now ("" when something can)."""
    if not connected:
        return "no browser connected"
    if not agents:
        return "no agent connected"
    return ""


class HandTabMenu(QMenu):
    def __init__(self, facade: AppFacade, parent: QWidget | None = None) -> None:
        super().__init__(TITLE, parent)
        self.facade = facade
        self.setToolTipsVisible(True)
        self.tabs: list[dict[str, Any]] | None = None
        """The browser's tabs as last listed (None: not yet)."""
        self.problem = ""
        """Why the last listing failed ("" when it did not)."""
        self.agent_menus: dict[str, QMenu] = {}
        self.aboutToShow.connect(self._opening)
        self.update_entry()

    # -- the entry in the tray menu ----------------------------------------------------------------

    def update_entry(self) -> None:
        """Enabled when a browser and an agent are connected; otherwise disabled, saying why."""
        why = unavailable(self.facade.browser_connected(), len(self.facade.agents()))
        entry = self.menuAction()
        entry.setEnabled(not why)
        entry.setText(f"{TITLE} ({why})" if why else TITLE)
        entry.setToolTip(
            f"Nothing to hand over: {why}." if why else "Give one of your browser's tabs to an agent: it may act there."
        )

    # -- opening: the agents now, the tabs when the browser answers --------------------------------------

    def _opening(self) -> None:
        self.rebuild()
        if self.facade.browser_connected():
            spawn(self._ask_tabs())

    async def _ask_tabs(self) -> None:
        try:
            listed = await self.facade.browser_tabs(TABS_TIMEOUT_S)
        except (TabpilotError, TimeoutError) as exc:
            log.debug("no tabs for the hand-a-tab menu: %s", exc)
            self.problem = exc.message if isinstance(exc, TabpilotError) else "the browser did not answer"
        else:
            self.problem = ""
            self.tabs = [t for t in listed if isinstance(t, dict) and isinstance(t.get("tab_id"), int)]
        if shiboken6.isValid(self):
            self._fill_all()

    def rebuild(self) -> None:
        """One submenu per agent connected now (kept while its session lasts, so an open one stays open)."""
        agents = self.facade.agents()
        keys = [a.key for a in agents]
        for key in [k for k in self.agent_menus if k not in keys]:
            menu = self.agent_menus.pop(key)
            self.removeAction(menu.menuAction())
            menu.deleteLater()
        self.clear()
        if not agents:
            none = QAction("No agent is connected", self)
            none.setEnabled(False)
            self.addAction(none)
        for agent in agents:
            menu = self.agent_menus.get(agent.key) or self._agent_menu(agent.key)
            menu.setTitle(menu_text(agent_label(agent)))  # a name the agent gave
            self.addMenu(menu)
        self._fill_all()

    def _agent_menu(self, key: str) -> QMenu:
        menu = QMenu(self)
        menu.setToolTipsVisible(True)
        self.agent_menus[key] = menu
        return menu

    def _fill_all(self) -> None:
        agents = {a.key: a for a in self.facade.agents()}
        for key, menu in self.agent_menus.items():
            agent = agents.get(key)
            if agent is not None:
                self._fill(menu, agent, agents)

    def _fill(self, menu: QMenu, agent: AgentView, agents: dict[str, AgentView]) -> None:
        menu.clear()
        if self.tabs is None or self.problem:
            line = QAction(
                menu_text(
                    f"The browser did not list its tabs: {self.problem}" if self.problem else "Asking the browser…"
                ),
                menu,
            )
            line.setEnabled(False)
            menu.addAction(line)
            if self.tabs is None:
                return
        owner_of = {tab_id: key for key, a in agents.items() for tab_id in a.tabs}
        header = QAction(HEADER, menu)
        header.setEnabled(False)
        menu.addAction(header)
        if not self.tabs:
            empty = QAction("The browser has no tabs", menu)
            empty.setEnabled(False)
            menu.addAction(empty)
        for tab in self.tabs[:MAX_TABS_SHOWN]:
            tab_id = tab["tab_id"]
            owner = owner_of.get(tab_id)
            text = tab_label(tab)
            if owner is not None and owner != agent.key:
                text += f" (agent {owner}'s)"
            action = QAction(menu_text(text), menu)  # a page's title
            action.setCheckable(True)
            action.setChecked(owner == agent.key)
            action.setToolTip(
                "Its own: choose it again to take it back."
                if owner == agent.key
                else "Give it this tab: it may act there, other agents may not."
            )
            action.triggered.connect(partial(self._hand, tab_id, agent.key, action))
            menu.addAction(action)
        if len(self.tabs) > MAX_TABS_SHOWN:
            more = QAction(f"…and {len(self.tabs) - MAX_TABS_SHOWN} more (hand those from the popup)", menu)
            more.setEnabled(False)
            menu.addAction(more)

    def _hand(self, tab_id: int, key: str, action: QAction) -> None:
        """Checked: the tab is the agent's now; unchecked (it was its own): the person takes it back."""
        # Read from the action: PySide does not pass `checked` to a functools.partial slot.
        if not self.facade.hand_tab(tab_id, key if action.isChecked() else None):
            log.info("tab %s not handed: agent session %s has ended", tab_id, key)
