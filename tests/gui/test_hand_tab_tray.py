"""The tray's "Hand a tab to an agent" menu (issue 10, item 7): the person picks an agent and one of the
browser's tabs; that agent's `observe tabs` then shows the tab as its own and another agent's action on it is
refused with tab_not_owned. Without a browser or an agent the entry is disabled and says why."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QMenu
from tests.conftest import AppFactory
from tests.gui.conftest import ExtensionFactory, TrayFactory, click_menu_item, find_action
from tests.gui.ui_support import ui_settled
from tests.support.waiting import until

from tabpilot.engine.errors import TabpilotError

TABS = [
    {"tab_id": 7, "url": "https://shop.test/login", "title": "Sign in", "active": True, "tracked": False},
    {
        "tab_id": 8,
        "url": "https://docs.test/guide/start",
        "title": "Getting started",
        "active": False,
        "tracked": False,
    },
]
CLAUDE = ("claude-code 1.0", "mcp-1")
CURSOR = ("cursor", "mcp-2")


def tab_items(menu: QMenu) -> list[str]:
    """The tabs one can choose (the header line above them is not)."""
    return [a.text() for a in menu.actions() if a.isEnabled()]


async def test_the_person_hands_a_tab_to_an_agent_from_the_tray(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory
) -> None:
    app = await make_app(pilot=True)
    tray = make_tray(app)
    entry = find_action(tray.menu, "Hand a tab to an agent")
    assert not entry.isEnabled() and entry.text() == "Hand a tab to an agent (no browser connected)"

    await connect_extension(app, tabs_list=lambda p: {"tabs": TABS})
    await until(lambda: entry.text() == "Hand a tab to an agent (no agent connected)", what="the reason to change")
    assert not entry.isEnabled()

    async def call(agent: tuple[str, str], tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return await app.engine.call(tool, args, agent=agent[0], session=agent[1])

    for agent in (CLAUDE, CURSOR):  # two agent sessions say hello
        await call(agent, "observe", {"what": "pilot"})
    await until(entry.isEnabled, what="the entry to be enabled once agents are connected")
    assert entry.text() == "Hand a tab to an agent"

    hand = entry.menu()
    assert isinstance(hand, QMenu)
    hand.popup(QPoint(40, 40))  # opening it asks the browser for its tabs
    await until(lambda: hand.isVisible(), what="the hand-a-tab menu")
    agents = [a.text() for a in hand.actions()]
    assert agents == ['agent says it is "claude-code 1.0" (mcp-1)', 'agent says it is "cursor" (mcp-2)']
    to_claude = find_action(hand, 'agent says it is "claude-code 1.0"').menu()
    assert isinstance(to_claude, QMenu)
    await until(
        lambda: tab_items(to_claude) == ["Sign in — shop.test", "Getting started — docs.test"],
        what="the browser's tabs under the agent",
    )
    assert not any(a.isChecked() for a in to_claude.actions()), "nobody owns them yet"

    await click_menu_item(to_claude, find_action(to_claude, "Sign in — shop.test"))
    hand.hide()

    tabs = {t["tab_id"]: t for t in (await call(CLAUDE, "observe", {"what": "tabs"}))["tabs"]}
    assert tabs[7]["mine"] is True and tabs[7]["owner"] == "claude-code 1.0 (mcp-1)"
    assert tabs[8]["owner"] is None
    seen_by_cursor = {t["tab_id"]: t for t in (await call(CURSOR, "observe", {"what": "tabs"}))["tabs"]}
    assert seen_by_cursor[7]["mine"] is False and seen_by_cursor[7]["owner"] == "claude-code 1.0 (mcp-1)"

    with pytest.raises(TabpilotError) as refused:
        await call(CURSOR, "interact", {"action": "navigate", "url": "https://evil.test/", "tab_id": 7})
    assert refused.value.code == "tab_not_owned"
    assert "claude-code 1.0 (mcp-1)" in refused.value.message and "Tabpilot popup or tray" in refused.value.message

    # Opened again, the menu shows who owns the tab: checked under its agent, named under the other.
    hand.popup(QPoint(40, 40))
    to_cursor = find_action(hand, 'agent says it is "cursor"').menu()
    assert isinstance(to_cursor, QMenu)
    await until(
        lambda: tab_items(to_cursor)[:1] == ["Sign in — shop.test (agent mcp-1's)"],
        what="the owner shown under the other agent",
    )
    claude_menu = find_action(hand, 'agent says it is "claude-code 1.0"').menu()
    assert isinstance(claude_menu, QMenu)
    assert find_action(claude_menu, "Sign in").isChecked()
    hand.hide()
    await ui_settled()  # the menu's question to the browser


async def test_choosing_its_own_tab_again_takes_it_back_and_a_gone_agent_leaves_the_menu(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory
) -> None:
    app = await make_app(pilot=True)
    tray = make_tray(app)
    await connect_extension(app, tabs_list=lambda p: {"tabs": TABS})
    await app.engine.call("observe", {"what": "pilot"}, agent=CLAUDE[0], session=CLAUDE[1])
    app.engine.tab_owners.hand(8, CLAUDE[1])  # as if from the popup
    hand = find_action(tray.menu, "Hand a tab to an agent").menu()
    assert isinstance(hand, QMenu)
    hand.popup(QPoint(40, 40))
    agent_menu = find_action(hand, "agent says it is").menu()
    assert isinstance(agent_menu, QMenu)
    await until(lambda: len(tab_items(agent_menu)) == 2, what="the tabs")
    own = find_action(agent_menu, "Getting started — docs.test")
    assert own.isChecked()
    await click_menu_item(agent_menu, own)
    hand.hide()
    assert app.engine.tab_owners.owner(8) is None, "the person's again"
    await ui_settled()

    app.engine.tab_owners.ended(CLAUDE[1])  # its MCP connection closed
    entry = find_action(tray.menu, "Hand a tab to an agent")
    assert not entry.isEnabled() and entry.text() == "Hand a tab to an agent (no agent connected)"
