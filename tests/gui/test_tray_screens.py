"""Screenshots of the tray menu with its Workflows submenu open, and of the activity window with a
workflow running: Xvfb, a real tray host (trayer), the real tray app on xcb, driven with the mouse.

The pictures are kept under artifacts/screenshots/ for people to look at (not committed). Missing X tools
fail the test (never a skip), as in test_tray_screenshot.py, whose X plumbing this reuses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage
from tests.gui.test_tray_screenshot import (
    REPO,
    SCREENSHOTS,
    START_TIMEOUT_S,
    XServer,
    _distinct_colours,
    _embedded_icon,
    _grab_until,
    _need,
    _read_line,
    tray_host,
    x_server,
)

SCREENS_APP = Path(__file__).with_name("tray_screens_app.py")


def test_tray_workflows_menu_and_activity_window_screenshots(home: Path, secret_service: None) -> None:
    with x_server() as x, tray_host(x):
        _screens(x, home)


def _mouse(xdotool: str, x_server: XServer, *args: str) -> None:
    subprocess.run([xdotool, *args], check=True, timeout=10, env=x_server.env, capture_output=True)


def _send(app: subprocess.Popen[str], line: str) -> None:
    assert app.stdin is not None
    app.stdin.write(line + "\n")
    app.stdin.flush()


def _screens(x_server: XServer, home: Path) -> None:
    grab = _need("import", "imagemagick")
    xdotool = _need("xdotool", "xdotool")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    scratch = home.parent / "scratch.png"
    app = subprocess.Popen(
        [sys.executable, str(SCREENS_APP)],
        env={**x_server.env, "TABPILOT_HOME": str(home)},
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first: dict[str, Any] = json.loads(_read_line(app, ("ICON ",), START_TIMEOUT_S, "the tray icon"))
        if first.get("tray_available") is not True:
            pytest.fail(f"no system tray on {x_server.display}", pytrace=False)
        icon = _embedded_icon(x_server, first["winid"])
        _grab_until(grab, x_server, scratch, lambda shot: _distinct_colours(shot, icon) > 5, "the tray icon drawn")

        # Right-click the icon, then rest the mouse on "Workflows", as a person opens the submenu.
        _mouse(xdotool, x_server, "mousemove", "--sync", str(icon.center().x()), str(icon.center().y()), "click", "3")
        menu: dict[str, Any] = json.loads(_read_line(app, ("MENU ",), START_TIMEOUT_S, "the tray menu"))
        assert menu["platform"] == "xcb"
        assert menu["look"] == "busy", "a workflow is running"
        assert menu["items"][2] == "Running 1 command"
        hover_x, hover_y = menu["workflows_item"]
        _mouse(xdotool, x_server, "mousemove", "--sync", str(hover_x), str(hover_y))
        sub: dict[str, Any] = json.loads(_read_line(app, ("SUBMENU ",), START_TIMEOUT_S, "the Workflows submenu"))
        assert sub["items"] == [
            "Jobs",
            "Weekly prices",
            "old-export (invalid)",
            "Recent runs",
            "Import…",
            "Open workflows folder",
        ]
        assert sub["disabled"] == ["old-export (invalid)"]

        menu_area = QRect(*menu["menu_geometry"])
        sub_area = QRect(*sub["submenu_geometry"])
        shot = SCREENSHOTS / "tray-workflows-menu.png"
        image = _grab_until(
            grab,
            x_server,
            shot,
            lambda im: _distinct_colours(im, sub_area) > 20 and _distinct_colours(im, menu_area) > 20,
            "the menu and its Workflows submenu drawn",
        )
        area = menu_area.united(sub_area).united(icon).adjusted(-16, -8, 16, 16).intersected(image.rect())
        image.copy(area).save(str(SCREENSHOTS / "tray-workflows-menu-closeup.png"))

        _send(app, "activity")
        activity: dict[str, Any] = json.loads(_read_line(app, ("ACTIVITY ",), START_TIMEOUT_S, "the activity window"))
        rows = activity["rows"]
        assert rows[0][2] == "interact scrape" and rows[0][5] == "running 2/3", rows[0]
        assert [rows[3][2], rows[3][5], rows[3][6]] == ["interact click", "error", "element_not_found"], rows
        assert activity["count"] == "7 commands · 1 running"
        window = QRect(*activity["geometry"])
        shot = SCREENSHOTS / "activity-window-full.png"
        image = _grab_until(
            grab, x_server, shot, lambda im: _distinct_colours(im, window) > 50, "the activity window drawn"
        )
        image.copy(window.intersected(image.rect())).save(str(SCREENSHOTS / "activity-window.png"))
        shot.unlink()
        _send(app, "done")
    finally:
        if app.stdin is not None and app.poll() is None:
            app.stdin.close()
        try:
            code = app.wait(timeout=20)
        except subprocess.TimeoutExpired:
            app.kill()
            code = app.wait()
        stderr = app.stderr.read() if app.stderr is not None else ""
        scratch.unlink(missing_ok=True)
    assert code == 0, f"the tray app exited {code}:\n{stderr}"
    problems = ("WARNING", "ERROR", "CRITICAL", "Traceback")
    assert not [line for line in stderr.splitlines() if line.startswith(problems)], (
        "the tray app logged warnings or errors:\n" + stderr
    )
    picture = QImage(str(SCREENSHOTS / "activity-window.png"))
    assert not picture.isNull() and picture.width() > 600
