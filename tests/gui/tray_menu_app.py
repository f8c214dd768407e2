"""Run by test_tray_screenshot.py as a subprocess on a real X display with a tray host (Xvfb + trayer).

A real QApplication on xcb, the real App (bridge, keyring token) with the pilot on, a FakeExtension
connected, and the real TrayController. Once the tray icon exists, `ICON {json}` names its X window; the
test right-clicks it (xdotool), as a user would, and once the context menu is up `READY {json}` goes to
stdout. A line on stdin (or its end) stops everything.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tests.support, when run as a script

import qasync  # noqa: E402
from PySide6.QtCore import QRect  # noqa: E402
from PySide6.QtWidgets import QApplication, QSystemTrayIcon, QWidget  # noqa: E402
from tests.support.fake_extension import paired_with  # noqa: E402
from tests.support.waiting import until  # noqa: E402

from tabpilot.app import App, AppOptions  # noqa: E402
from tabpilot.paths import Paths  # noqa: E402
from tabpilot.ui.approval_dialog import ApprovalDialogs  # noqa: E402
from tabpilot.ui.icons import app_icon  # noqa: E402
from tabpilot.ui.tray import TrayController  # noqa: E402

TRAY_WAIT_S = 10.0
MENU_WAIT_S = 15.0


def rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def tray_icon_window(qt_app: QApplication) -> QWidget | None:
    """Qt's X11 tray icon is a small top-level widget of this class (qsystemtrayicon_x11.cpp)."""
    for widget in qt_app.topLevelWidgets():
        if widget.metaObject().className() == "QSystemTrayIconSys" and widget.isVisible():
            return widget
    return None


async def wait_for_tray_host() -> bool:
    """trayer may still be claiming the tray selection when we start: poll it, with a deadline."""
    deadline = time.monotonic() + TRAY_WAIT_S
    while not QSystemTrayIcon.isSystemTrayAvailable():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def main(qt_app: QApplication) -> int:
    tray_available = await wait_for_tray_host()
    if not tray_available:
        print("READY " + json.dumps({"tray_available": False}), flush=True)
        return 3
    app = App(
        Paths.resolve(os.environ["TABPILOT_HOME"]),
        AppOptions(mode="tray", browser="none", port=0, pilot=True),
        ApprovalDialogs(),
    )
    await app.start()
    assert app.bridge is not None
    fake = paired_with(app)
    tray: TrayController | None = None
    try:
        await fake.connect()
        tray = TrayController(app, app.request_stop)
        controller = tray
        await until(lambda: controller.look == "pilot", what="the pilot look")
        # The icon's own X window, which the tray host embeds; the test right-clicks it with xdotool.
        await until(lambda: tray_icon_window(qt_app) is not None, what="the tray icon's window")
        icon_window = tray_icon_window(qt_app)
        assert icon_window is not None
        print("ICON " + json.dumps({"winid": int(icon_window.winId())}), flush=True)
        menu = tray.menu
        await until(menu.isVisible, timeout=MENU_WAIT_S, what="the context menu after the right-click")
        await until(lambda: menu.windowHandle() is not None and menu.windowHandle().isExposed(), what="paint")
        menu.repaint()
        qt_app.sync()
        ready = {
            "tray_available": tray_available,
            "tray_visible": tray.tray.isVisible(),
            "menu_geometry": rect(menu.geometry()),
            "look": tray.look,
            "pilot": app.engine.pilot.ai_web_pilot,
            "items": [a.text() for a in menu.actions() if not a.isSeparator()],
            "checked": [a.text() for a in menu.actions() if a.isChecked()],
            "platform": qt_app.platformName(),
        }
        print("READY " + json.dumps(ready), flush=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, sys.stdin.readline)
        return 0
    finally:
        if tray is not None:
            tray.close()
        await fake.close()
        await app.stop()


def run() -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    qt_app = QApplication(sys.argv)
    qt_app.setQuitOnLastWindowClosed(False)
    qt_app.setApplicationName("Tabpilot")
    qt_app.setWindowIcon(app_icon())
    loop = qasync.QEventLoop(qt_app)
    asyncio.set_event_loop(loop)
    with loop:
        code: int = loop.run_until_complete(main(qt_app))
    return code


if __name__ == "__main__":
    sys.exit(run())
