"""The person hands a tab to an agent from the real tray on a real X desktop (Xvfb, trayer, openbox), with
the mouse: right-click the icon, "Hand a tab to an agent" ▸ the agent ▸ the tab. That agent then owns it
(`observe tabs`) and the other agent's click on it is refused with tab_not_owned.

The picture of the open submenus is kept as artifacts/screenshots/tray-hand-tab-menu.png (and a close-up)
for people to look at. Missing X tools fail the test, as in every test built on tests/gui/xserver.py."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, QRect
from tests.gui.window_manager import window_manager
from tests.gui.xserver import SCREENSHOTS, distinct_colours, screen_app, tray_host, x_server

SCREENS_APP = Path(__file__).with_name("hand_tab_screens_app.py")


def test_the_person_hands_a_tab_to_an_agent_with_the_mouse(home: Path, secret_service: None) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    scratch = home.parent / "scratch.png"
    with x_server() as x, tray_host(x) as host, window_manager(x), screen_app(SCREENS_APP, x, home) as app:
        icon, _ = app.tray_icon(x, host, scratch)
        x.right_click(icon.center())
        menu = app.read("MENU", what="the tray menu")
        assert menu["platform"] == "xcb"
        assert "Hand a tab to an agent" in menu["items"], menu["items"]

        x.move_mouse(QPoint(*menu["hand_item"]))
        hand = app.read("HAND", what="the hand-a-tab submenu")
        assert hand["items"] == ['agent says it is "claude-code 1.0" (mcp-1)', 'agent says it is "cursor" (mcp-2)']

        x.move_mouse(QPoint(*hand["agent_item"]))
        agent = app.read("AGENT", what="the agent's tabs")
        assert agent["items"] == [
            "Give it a tab (✓ its own: choose it again to take it back)",
            "Sign in — shop.test",
            "Getting started — Docs — docs.test (agent mcp-2's)",
            "Front page — news.test",
        ]
        assert agent["checked"] == [], "claude-code owns nothing yet"

        areas = [QRect(*agent[k]) for k in ("menu_geometry", "hand_geometry", "agent_geometry")]
        shot = SCREENSHOTS / "tray-hand-tab-menu.png"
        image = x.grab_until(
            shot, lambda im: all(distinct_colours(im, a) > 20 for a in areas), "the menu and both submenus drawn"
        )
        area = areas[0].united(areas[1]).united(areas[2]).united(icon).adjusted(-16, -8, 16, 16)
        image.copy(area.intersected(image.rect())).save(str(SCREENSHOTS / "tray-hand-tab-menu-closeup.png"))

        x.left_click(QPoint(*agent["tab_item"]))
        result = app.read("RESULT", what="the tab handed over")
        tabs = {t["tab_id"]: t for t in result["tabs"]}
        assert tabs[7]["mine"] is True and tabs[7]["owner"] == "claude-code 1.0 (mcp-1)"
        assert tabs[8]["owner"] == "cursor (mcp-2)" and tabs[9]["owner"] is None
        assert result["refused"]["code"] == "tab_not_owned", result["refused"]
        assert "claude-code 1.0 (mcp-1)" in result["refused"]["message"]
        assert result["menu_open"] is False, "choosing closes the menu"
