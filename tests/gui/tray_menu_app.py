"""Run by test_tray_screenshot.py as a subprocess on a real X display with a tray host (Xvfb + trayer).

A real QApplication on xcb, the real App (bridge, keyring token) with the pilot on, a FakeExtension
connected, and the real TrayController. Once the tray icon exists, `ICON {json}` names its X window; the
test right-clicks it (xdotool), as a user would, and once the context menu is up `READY {json}` goes to
stdout. A line on stdin (or its end) stops everything.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tests.support, when run as a script

from PySide6.QtWidgets import QApplication  # noqa: E402
from tests.gui.screen_app import (  # noqa: E402
    item_texts,
    next_line,
    opened,
    rect,
    run,
    say,
    tray_app,
    tray_icon_winid,
    wait_for_tray_host,
)
from tests.support.fake_extension import paired_with  # noqa: E402
from tests.support.waiting import until  # noqa: E402

from tabpilot.ui.approval_dialog import ApprovalDialogs  # noqa: E402
from tabpilot.ui.tray import TrayController  # noqa: E402


async def main(qt_app: QApplication) -> int:
    if not await wait_for_tray_host():
        say("READY", tray_available=False)
        return 3
    app = tray_app(ApprovalDialogs())
    await app.start()
    assert app.bridge is not None
    fake = paired_with(app)
    tray: TrayController | None = None
    try:
        await fake.connect()
        tray = TrayController(app.facade, app.request_stop)
        controller = tray
        await until(lambda: controller.look == "pilot", what="the pilot look")
        say("ICON", winid=await tray_icon_winid(qt_app))
        menu = tray.menu
        await opened(menu, "the context menu after the right-click")
        say(
            "READY",
            tray_available=True,
            tray_visible=tray.tray.isVisible(),
            menu_geometry=rect(menu.geometry()),
            look=tray.look,
            pilot=app.engine.pilot.ai_web_pilot,
            items=item_texts(menu),
            checked=[a.text() for a in menu.actions() if a.isChecked()],
            platform=qt_app.platformName(),
        )
        await next_line()
        return 0
    finally:
        if tray is not None:
            tray.close()
        await fake.close()
        await app.stop()


if __name__ == "__main__":
    sys.exit(run(main))
