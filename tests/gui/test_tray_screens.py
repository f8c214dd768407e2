"""Screenshots of the tray menu with its Workflows submenu open, and of the activity window with a
workflow running: Xvfb, a real tray host (trayer), the real tray app on xcb, driven with the mouse.

The pictures are kept under artifacts/screenshots/ for people to look at (not committed). Missing X tools
fail the test (never a skip), as in every test built on tests/gui/xserver.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QImage
from tests.gui.xserver import SCREENSHOTS, XServer, distinct_colours, screen_app, tray_host, x_server

from tabpilot.ui.activity_window import COLUMNS

SCREENS_APP = Path(__file__).with_name("tray_screens_app.py")


def test_tray_workflows_menu_and_activity_window_screenshots(home: Path, secret_service: None) -> None:
    with x_server() as x, tray_host(x) as host:
        _screens(x, host, home)


def _screens(x: XServer, host: subprocess.Popen[bytes], home: Path) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    scratch = home.parent / "scratch.png"
    with screen_app(SCREENS_APP, x, home, name="the tray app") as app:
        icon, _ = app.tray_icon(x, host, scratch)
        scratch.unlink()

        # Right-click the icon, then rest the mouse on "Workflows", as a person opens the submenu.
        x.right_click(icon.center())
        menu = app.read("MENU", what="the tray menu")
        assert menu["platform"] == "xcb"
        assert menu["look"] == "busy", "a workflow is running"
        assert menu["items"][2] == "Running 1 command"
        x.move_mouse(QPoint(*menu["workflows_item"]))
        sub = app.read("SUBMENU", what="the Workflows submenu")
        assert sub["items"] == [
            "Jobs",
            "Weekly prices",
            "old-export (invalid)",
            "Recent runs",
            "Import…",
            "Open workflows folder",
        ]
        assert sub["disabled"] == [], "an invalid file opens a submenu that says what is wrong with it"

        menu_area = QRect(*menu["menu_geometry"])
        sub_area = QRect(*sub["submenu_geometry"])
        shot = SCREENSHOTS / "tray-workflows-menu.png"
        image = x.grab_until(
            shot,
            lambda im: distinct_colours(im, sub_area) > 20 and distinct_colours(im, menu_area) > 20,
            "the menu and its Workflows submenu drawn",
        )
        area = menu_area.united(sub_area).united(icon).adjusted(-16, -8, 16, 16).intersected(image.rect())
        image.copy(area).save(str(SCREENSHOTS / "tray-workflows-menu-closeup.png"))

        app.send("activity")
        activity = app.read("ACTIVITY", what="the activity window")
        rows = activity["rows"]
        by = {name: n for n, name in enumerate(COLUMNS)}
        assert rows[0][by["Command"]] == "interact scrape" and rows[0][by["Outcome"]] == "running 2/3", rows[0]
        assert rows[0][by["Who"]] == "you (tray)" and rows[0][by["Decided by"]] == "you", rows[0]
        click = [rows[3][by[c]] for c in ("Command", "Outcome", "Error", "Decided by")]
        assert click == ["interact click", "error", "element_not_found", "--approve auto"], rows
        assert rows[3][by["Who"]].startswith("agent says it is "), rows[3]
        assert activity["count"] == "7 commands · 1 running"
        window = QRect(*activity["geometry"])
        shot = SCREENSHOTS / "activity-window-full.png"
        image = x.grab_until(shot, lambda im: distinct_colours(im, window) > 50, "the activity window drawn")
        image.copy(window.intersected(image.rect())).save(str(SCREENSHOTS / "activity-window.png"))
        shot.unlink()
        app.send("done")
    picture = QImage(str(SCREENSHOTS / "activity-window.png"))
    assert not picture.isNull() and picture.width() > 600
