"""Run by test_hand_tab_screens.py as a subprocess on a real X display (Xvfb, trayer, openbox).

The real App (pilot on) with a FakeExtension listing three tabs, two agent sessions connected (one already
owns the docs tab, handed to it from the popup). Then, one after another, as the test's mouse goes:

- `ICON {json}`: the tray icon's X window, for the test to right-click;
- `MENU {json}`: the context menu is up; `hand_item` is where "Hand a tab to an agent" is on screen;
- `HAND {json}`: that submenu opened under the mouse; `agent_item` is where the first agent is;
- `AGENT {json}`: the agent's submenu of tabs opened and filled; `tab_item` is where "Sign in" is;
- `RESULT {json}`: the test clicked it: that agent's `observe tabs`, and the other agent's refused action.
The end of stdin stops it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tests.support, when run as a script

from PySide6.QtWidgets import QApplication, QMenu  # noqa: E402
from tests.gui.screen_app import (  # noqa: E402
    MENU_WAIT_S,
    item_texts,
    next_line,
    opened,
    painted,
    rect,
    run,
    say,
    tray_app,
    tray_icon_winid,
    wait_for_tray_host,
)
from tests.support.fake_extension import paired_with  # noqa: E402
from tests.support.waiting import until  # noqa: E402

from tabpilot.approvals import AutoApprove  # noqa: E402
from tabpilot.engine.errors import TabpilotError  # noqa: E402
from tabpilot.ui import dialogs  # noqa: E402
from tabpilot.ui.tray import TrayController  # noqa: E402

TABS = [
    {"tab_id": 7, "url": "https://shop.test/login?next=/orders", "title": "Sign in", "active": True},
    {"tab_id": 8, "url": "https://docs.test/guide/getting-started", "title": "Getting started — Docs"},
    {"tab_id": 9, "url": "https://news.test/", "title": "Front page"},
]
CLAUDE = ("claude-code 1.0", "mcp-1")
CURSOR = ("cursor", "mcp-2")


def centre(menu: QMenu, sub: QMenu) -> list[int]:
    at = menu.mapToGlobal(menu.actionGeometry(sub.menuAction()).center())
    return [at.x(), at.y()]


async def main(qt_app: QApplication) -> int:
    if not await wait_for_tray_host():
        say("ICON", tray_available=False)
        return 3
    app = tray_app(AutoApprove())
    await app.start()
    fake = paired_with(app)
    fake.on("tabs.list", lambda p: {"tabs": [{"active": False, "tracked": False, **t} for t in TABS]})
    tray: TrayController | None = None
    try:
        await fake.connect()
        for agent, session in (CLAUDE, CURSOR):
            await app.engine.call("observe", {"what": "pilot"}, agent=agent, session=session)
        app.engine.tab_owners.hand(8, CURSOR[1])  # as the popup would
        tray = TrayController(app.facade, app.request_stop)
        say("ICON", tray_available=True, winid=await tray_icon_winid(qt_app))

        menu = tray.menu
        hand = tray.hand_tab_menu
        await opened(menu, "the context menu after the right-click")
        say("MENU", items=item_texts(menu), hand_item=centre(menu, hand), platform=qt_app.platformName())

        # Opening it asks the browser for its tabs: let that finish before `painted` syncs with the X server
        # (QApplication.sync runs the loop re-entrantly, and a task step inside it fails under qasync).
        await until(hand.isVisible, timeout=MENU_WAIT_S, what="the hand-a-tab submenu under the mouse")
        await until(lambda: not dialogs.busy(), what="the browser's tabs asked for")
        await painted(hand)
        first = hand.agent_menus[CLAUDE[1]]
        say("HAND", items=item_texts(hand), agent_item=centre(hand, first))

        await until(lambda: len([a for a in first.actions() if a.isEnabled()]) == len(TABS), what="the tabs listed")
        await opened(first, "the agent's tabs under the mouse")
        sign_in = next(a for a in first.actions() if a.text().startswith("Sign in"))
        at = first.mapToGlobal(first.actionGeometry(sign_in).center())
        say(
            "AGENT",
            items=item_texts(first),
            checked=[a.text() for a in first.actions() if a.isChecked()],
            tab_item=[at.x(), at.y()],
            menu_geometry=rect(menu.geometry()),
            hand_geometry=rect(hand.geometry()),
            agent_geometry=rect(first.geometry()),
        )

        await until(lambda: app.engine.tab_owners.owner(7) is not None, what="the tab handed over")
        listed = await app.engine.call("observe", {"what": "tabs"}, agent=CLAUDE[0], session=CLAUDE[1])
        refused: dict[str, Any] = {}
        try:
            await app.engine.call(
                "interact", {"action": "click", "selector": "#buy", "tab_id": 7}, agent=CURSOR[0], session=CURSOR[1]
            )
        except TabpilotError as exc:
            refused = {"code": exc.code, "message": exc.message}
        say("RESULT", tabs=listed["tabs"], refused=refused, menu_open=menu.isVisible())
        await next_line()
        return 0
    finally:
        if tray is not None:
            tray.close()
        await fake.close()
        await app.stop()


if __name__ == "__main__":
    sys.exit(run(main))
