"""The tray app: QApplication on a qasync loop, hosting the same App that `serve` runs."""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from tabpilot.paths import Paths

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade
    from tabpilot.ui.tray import TrayController


def open_managed_at_start(facade: AppFacade, tray: TrayController) -> asyncio.Task[None] | None:
    """The setting "Open it when Tabpilot starts": the managed browser launched through the tray, which holds
    the task and shows a launch that fails."""
    settings = facade.settings()
    if not settings.open_managed_at_start:
        return None
    return tray.open_managed_browser(headless=settings.managed_headless)


def run_tray(paths: Paths, *, verbose: bool = False) -> int:
    import qasync
    from PySide6.QtWidgets import QApplication, QSystemTrayIcon

    from tabpilot import logsetup
    from tabpilot.app import AlreadyRunning, App, AppOptions
    from tabpilot.ui.approval_dialog import ApprovalDialogs
    from tabpilot.ui.icons import app_icon
    from tabpilot.ui.pairing import watch_pairing_requests
    from tabpilot.ui.tray import TrayController
    from tabpilot.vault.keyring_store import KeyringUnavailable

    logsetup.configure(paths, verbose=verbose)
    qt_app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(qt_app, QApplication)
    qt_app.setQuitOnLastWindowClosed(False)
    qt_app.setApplicationName("Tabpilot")
    qt_app.setWindowIcon(app_icon())
    if not QSystemTrayIcon.isSystemTrayAvailable():
        print("tabpilot: this desktop has no system tray; use `tabpilot serve` instead.", file=sys.stderr)
        return 2
    loop = qasync.QEventLoop(qt_app)
    asyncio.set_event_loop(loop)
    dialogs = ApprovalDialogs()
    app = App(paths, AppOptions(mode="tray", browser="none"), dialogs)
    dialogs.attach(app.facade)  # the prompts show a picture of the target, which the app's browser link takes

    async def main() -> int:
        try:
            await app.start()
        except (AlreadyRunning, KeyringUnavailable) as exc:
            print(f"tabpilot: {exc}", file=sys.stderr)
            return 1
        tray = TrayController(app.facade, app.request_stop)
        open_managed_at_start(app.facade, tray)
        pairing_requests = watch_pairing_requests(app.facade)  # "A browser wants to connect", with its code
        await app.stopped.wait()
        pairing_requests.close()
        dialogs.close_all()
        tray.tray.hide()
        return 0

    with loop:
        code: int = loop.run_until_complete(main())
    return code
