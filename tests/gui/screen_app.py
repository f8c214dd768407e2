"""The app side of the screenshot tests: what a tests/gui/*_app.py script, run by a test on a real X
server (tests/gui/xserver.py), shares with the others.

A real QApplication on xcb with a qasync loop (`run`), the real App as the tray runs it (`tray_app`), and
the lines it talks to the test in: `say` what is on screen (`KIND {json}` on stdout), `next_line` waits for
the test to move it on (a line on stdin). Import it after putting the repository on sys.path.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Callable, Coroutine
from typing import Any

import qasync
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon, QWidget
from tests.support.waiting import until

from tabpilot.app import App, AppOptions
from tabpilot.engine.ports import ApprovalPort
from tabpilot.paths import Paths
from tabpilot.ui.icons import app_icon

TRAY_WAIT_S = 10.0
MENU_WAIT_S = 15.0


def run(main: Callable[[QApplication], Coroutine[Any, Any, int]]) -> int:
    """`main(qt_app)` on a qasync loop, in a QApplication set up as the tray app's; its exit code."""
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


def tray_app(approvals: ApprovalPort, **options: Any) -> App:
    """The real App in TABPILOT_HOME, as the tray runs it, with the pilot on (and no browser unless asked)."""
    options.setdefault("browser", "none")
    return App(
        Paths.resolve(os.environ["TABPILOT_HOME"]), AppOptions(mode="tray", port=0, pilot=True, **options), approvals
    )


def say(kind: str, **fields: Any) -> None:
    print(f"{kind} {json.dumps(fields)}", flush=True)


async def next_line() -> str:
    """The next line on stdin ("" at its end): the test moving on."""
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


def rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def item_texts(menu: QMenu) -> list[str]:
    return [a.text() for a in menu.actions() if not a.isSeparator()]


async def painted(widget: QWidget, *, sync: bool = True) -> None:
    """Once `widget` is exposed, paint it now; with `sync`, also wait for the X server to have it (sync runs
    the event loop re-entrantly, inside the calling task)."""
    await until(lambda: widget.windowHandle() is not None and widget.windowHandle().isExposed(), what="exposed")
    widget.repaint()
    if sync:
        QApplication.sync()


async def opened(menu: QMenu, what: str) -> None:
    """Wait for `menu` to open (the test's mouse opens it) and be painted."""
    await until(menu.isVisible, timeout=MENU_WAIT_S, what=what)
    await painted(menu)


async def wait_for_tray_host() -> bool:
    """trayer may still be claiming the tray selection when we start: poll it, with a deadline."""
    try:
        await until(QSystemTrayIcon.isSystemTrayAvailable, timeout=TRAY_WAIT_S, interval=0.05, what="a tray host")
    except AssertionError:
        return False
    return True


async def tray_icon_winid(qt_app: QApplication) -> int:
    """The tray icon's own X window, which the tray host embeds (and the test right-clicks)."""
    await until(lambda: _tray_icon_window(qt_app) is not None, what="the tray icon's window")
    icon_window = _tray_icon_window(qt_app)
    assert icon_window is not None
    return int(icon_window.winId())


def _tray_icon_window(qt_app: QApplication) -> QWidget | None:
    """Qt's X11 tray icon is a small top-level widget of this class (qsystemtrayicon_x11.cpp)."""
    for widget in qt_app.topLevelWidgets():
        if widget.metaObject().className() == "QSystemTrayIconSys" and widget.isVisible():
            return widget
    return None
