"""Run by test_ui_screens.py as a subprocess on a real X display with a tray host and a window manager
(Xvfb + trayer + openbox): the real App, its tray and approval prompts, a FakeExtension answering a "jobs"
site. It shows, one after another, the windows and menus a person meets first:

- `ICON {json}`: the tray icon's X window (a line on stdin moves on); then `LOOK {json}` for each look of
  the icon (a line on stdin moves on);
- `SHOWN {json}` for each window or menu (its name, where it is on screen); a line on stdin moves on, but
  "where" asks for a new `SHOWN` of the same window (where it is now);
- `DONE` at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any, get_args

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tests.support, when run as a script

from PySide6.QtCore import QPoint, QRect  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel, QMenu, QWidget  # noqa: E402
from tests.gui.screen_app import (  # noqa: E402
    next_line,
    painted,
    rect,
    run,
    say,
    tray_app,
    tray_icon_winid,
    wait_for_tray_host,
)
from tests.gui.ui_support import ORIGIN, JobsSite, jobs_workflow, save_workflow  # noqa: E402
from tests.support.fake_extension import paired_with  # noqa: E402
from tests.support.waiting import until  # noqa: E402

from tabpilot.engine.errors import TabpilotError  # noqa: E402
from tabpilot.ui import dialogs as ui_dialogs  # noqa: E402
from tabpilot.ui.approval_dialog import ApprovalDialog, ApprovalDialogs  # noqa: E402
from tabpilot.ui.icons import TrayLook, tray_icon  # noqa: E402
from tabpilot.ui.tray import TrayController  # noqa: E402
from tabpilot.ui.workflows_menu import ParamsDialog  # noqa: E402

AGENT = "Claude Code 2.1"
SECRET = "SHOP_PASSWORD"
SCRIPT = """// Collect the open orders and their totals
const rows = [...document.querySelectorAll("#orders tr")];
const orders = rows.map((row) => ({
  id: row.querySelector(".id").textContent.trim(),
  total: Number(row.querySelector(".total").textContent.replace(/[^0-9.]/g, "")),
}));
return { count: orders.length, orders };"""


async def shown(name: str, window: QWidget, area: QRect | None = None) -> bool:
    """Say `name` is on screen (at `area`, else the window's frame); False when the test is done with us.

    The test may answer "where" when its screenshots do not show the window there yet (a window manager can
    still move a box after it was framed): we then say again where it is now, repainted."""
    while True:
        await painted(window, sync=False)
        say(
            "SHOWN",
            name=name,
            geometry=rect(area if area is not None else window.frameGeometry()),
            winid=int(window.winId()),
        )
        line = await next_line()
        if line.strip() != "where":
            return bool(line)


async def prompt(dialogs: ApprovalDialogs) -> ApprovalDialog:
    await until(lambda: dialogs.open, what="a prompt")
    dialog = dialogs.open[-1]
    await until(dialog.isVisible, what="the prompt on screen")
    return dialog


def visible_of(qt_app: QApplication, class_name: str) -> QWidget | None:
    return next((w for w in qt_app.topLevelWidgets() if w.isVisible() and w.inherits(class_name)), None)


def pop(menu: QMenu, at: QPoint) -> None:
    menu.popup(at)


def left_of(menu: QMenu, parent: QMenu, item: QMenu) -> QPoint:
    """Where a submenu opens to the left of its parent's item (the tray is at the top right)."""
    row = parent.actionGeometry(item.menuAction())
    return parent.mapToGlobal(QPoint(-menu.sizeHint().width(), row.top()))


def _texts(widget: QWidget) -> str:
    return " ".join(label.text() for label in widget.findChildren(QLabel))


async def _resumed(app: Any, cid: str) -> bool:
    result = await app.engine.call("observe", {"what": "command_result", "correlation_id": cid})
    return bool(result.get("status") == "resumed")


async def main(qt_app: QApplication) -> int:
    if not await wait_for_tray_host():
        say("ICON", tray_available=False)
        return 3
    dialogs = ApprovalDialogs(arm_delay_ms=0)
    app = tray_app(dialogs)
    dialogs.attach(app.facade)
    await app.start()
    app.engine.config.step_delay_ms = 0
    await asyncio.to_thread(app.secrets.set, SECRET, "correct horse battery staple")
    save_workflow(app, jobs_workflow(secret=SECRET))
    (app.paths.workflows_dir / "old-export.json").write_text('{"name": "half a file', encoding="utf-8")
    site = JobsSite()

    def tabs(params: dict[str, Any]) -> dict[str, Any]:
        return {
            "tabs": [
                {
                    "tab_id": 1,
                    "url": f"{ORIGIN}/search",
                    "title": "Python jobs in Lyon — Jobs",
                    "active": True,
                    "tracked": False,
                },
                {
                    "tab_id": 2,
                    "url": "https://shop.test/cart",
                    "title": "Your cart (3 items)",
                    "active": False,
                    "tracked": False,
                },
            ]
        }

    def handoff(params: dict[str, Any]) -> dict[str, Any]:
        return {"tab_id": 2, "url": "https://shop.test/login", "title": "Sign in — shop.test", "focused": True}

    fake = paired_with(app)
    handoffs = {
        "handoff_start": handoff,
        "handoff_end": lambda params: {"ended": True},
    }
    for op, handler in {**site.handlers(), "tabs_list": tabs, **handoffs}.items():
        fake.on(op.replace("_", "."), handler)
    tray: TrayController | None = None
    loop = asyncio.get_running_loop()
    try:
        await fake.connect()
        app.capture.ingest(
            {
                "tab_id": 1,
                "url": f"{ORIGIN}/search",
                "items": [{"kind": "log", "text": "ready"}, {"kind": "error", "message": "x is undefined"}],
            }
        )
        app.capture.ingest({"tab_id": 2, "url": "https://shop.test/cart", "items": [{"kind": "log", "text": "a"}] * 3})
        tray = TrayController(app.facade, app.request_stop)
        controller = tray
        await until(lambda: controller.workflows.workflow_menu("Jobs") is not None, what="the workflows menu")
        say("ICON", tray_available=True, winid=await tray_icon_winid(qt_app))
        if not await next_line():  # one line at a time: the test reads them with select()
            return 0

        # The icon's looks, one after another, as the tray host shows them.
        for look in get_args(TrayLook):
            tray.tray.setIcon(tray_icon(look))
            say("LOOK", look=look)
            if not await next_line():
                return 0

        # The windows and menus.
        settings = tray.show_settings()
        if not await shown("settings", settings):
            return 0
        settings.close()

        secrets = tray.show_secrets()
        await until(lambda: not ui_dialogs.busy(), what="the secrets list")
        if not await shown("secrets", secrets):
            return 0
        secrets.close()

        tray.workflows.ask_params("wf-jobs")
        form = tray.workflows.params_dialog
        assert isinstance(form, ParamsDialog)
        await until(form.isVisible, what="the parameters form")
        if not await shown("run-with-parameters", form):
            return 0
        form.close()

        call = loop.create_task(app.engine.call("interact", {"action": "execute_js", "script": SCRIPT}, agent=AGENT))
        dialog = await prompt(dialogs)
        go_on = await shown("approval-javascript", dialog)
        dialog.reject()
        await asyncio.gather(call, return_exceptions=True)
        if not go_on:
            return 0

        steps = [
            {"type": "navigate", "url": "https://shop.test/login?next={{page}}"},
            {"type": "fill", "selector": "#user", "value": "{{user}}"},
            {"type": "fill", "selector": "#password", "value": f"{{{{secret:{SECRET}}}}}"},
            {"type": "click", "selector": "button[type=submit]"},
            {"type": "navigate", "url": "https://shop.test/{{page}}"},
            {
                "type": "extract",
                "selector": "#orders tr",
                "schema": {"id": "td.id | text", "total": "td.total | number"},
                "paginate": {"next_selector": "a.next", "max_pages": 5},
            },
        ]
        args = {
            "action": "scrape",
            "operation": "workflow",
            "name": "Shop orders",
            "record": True,
            "params": {"user": "alice@example.com", "page": "orders"},
            "steps": steps,
        }
        call = loop.create_task(app.engine.call("interact", args, agent=AGENT))
        dialog = await prompt(dialogs)
        go_on = await shown("approval-workflow", dialog)
        dialog.reject()
        await asyncio.gather(call, return_exceptions=True)
        if not go_on:
            return 0

        replay = {"action": "scrape", "operation": "replay", "workflow_id": "wf-jobs", "params": {"city": "Lyon"}}
        call = loop.create_task(app.engine.call("interact", replay, agent=AGENT))
        dialog = await prompt(dialogs)
        go_on = await shown("approval-replay", dialog)
        dialog.reject()
        await asyncio.gather(call, return_exceptions=True)
        if not go_on:
            return 0

        # A mocked backend: the network class's prompt, header values never shown.
        mock = {"action": "mock_route", "url": "**/api/orders*", "status": 200, "body": '{"orders": []}'}
        call = loop.create_task(app.engine.call("configure", mock, agent=AGENT))
        dialog = await prompt(dialogs)
        go_on = await shown("approval-network", dialog)
        dialog.reject()
        await asyncio.gather(call, return_exceptions=True)
        if not go_on:
            return 0

        # The Capture menu, open beside the tray menu, with the tabs' titles in. (The denied workflows above
        # left a notification: out of the way first.)
        for balloon in [w for w in qt_app.topLevelWidgets() if w.isVisible() and w.inherits("QBalloonTip")]:
            balloon.close()
        menu = tray.menu
        area = qt_app.primaryScreen().availableGeometry()
        pop(menu, QPoint(area.right() - menu.sizeHint().width() - 8, area.top() + 4))
        await until(menu.isVisible, what="the tray menu")
        capture = tray.capture_menu
        pop(capture, left_of(capture, menu, capture))
        await until(
            lambda: capture.isVisible() and any("Python jobs" in a.text() for a in capture.actions()), what="titles"
        )
        go_on = await shown("menu-capture", capture, capture.geometry().united(menu.geometry()))
        capture.hide()
        if not go_on:
            return 0

        # An invalid workflow: its submenu, with the error.
        workflows = tray.workflows.menu
        pop(workflows, left_of(workflows, menu, workflows))
        await until(workflows.isVisible, what="the workflows menu")
        broken = tray.workflows.broken_menu("old-export")
        assert broken is not None
        pop(broken, left_of(broken, workflows, broken))
        await until(broken.isVisible, what="the invalid workflow's menu")
        go_on = await shown("menu-invalid-workflow", broken, broken.geometry().united(menu.geometry()))
        if not go_on:
            return 0
        broken.actions()[0].trigger()
        for open_menu in (broken, workflows, menu):
            open_menu.hide()
        box = await until(
            lambda: next((w for w in qt_app.topLevelWidgets() if w.isVisible() and w.inherits("QMessageBox")), None),
            what="the error",
        )
        # Where the box is once the window manager has framed and placed it, not where Qt first put it. Under
        # load Qt can hear of the frame late (seen: over 10 s): then the box's own area is said, and the test
        # asks again ("where") if its screenshots do not show it there.
        with contextlib.suppress(AssertionError):
            await until(lambda: box.frameGeometry() != box.geometry(), what="the window manager to frame the box")
        go_on = await shown("invalid-workflow-error", box)
        box.close()
        if not go_on:
            return 0

        # A run that fails at its first step: the notification and the run.
        site.fail_navigation = "The tab was closed."
        with contextlib.suppress(TabpilotError):
            await app.run_workflow("wf-jobs", {"city": "Lyon"})
        balloon = await until(lambda: visible_of(qt_app, "QBalloonTip"), what="the notification")
        go_on = await shown("notification-failed-run", balloon)
        balloon.close()
        if not go_on:
            return 0
        assert tray.last_run is not None
        viewer = tray.workflows.open_run(*tray.last_run)
        assert viewer is not None
        viewer.resize(760, 300)
        if not await shown("run-failed", viewer):
            return 0
        viewer.close()

        # A hand-off: the agent waits for the person at a login page. The notification says why; the tray
        # menu has a Resume item under its status lines.
        call = loop.create_task(
            app.engine.call(
                "interact", {"action": "handoff", "reason": "Sign in to shop.test (two-factor code)"}, agent=AGENT
            )
        )
        balloon = await until(
            lambda: (b := visible_of(qt_app, "QBalloonTip")) is not None and "needs you" in _texts(b) and b,
            what="the hand-off notification",
        )
        go_on = await shown("notification-handoff", balloon)
        balloon.close()
        if not go_on:
            return 0
        pop(menu, QPoint(area.right() - menu.sizeHint().width() - 8, area.top() + 4))
        await until(menu.isVisible, what="the tray menu")
        go_on = await shown("menu-handoff", menu)
        resume = next(a for a in menu.actions() if a.text().startswith("Resume"))
        menu.hide()
        resume.trigger()
        answer = await call
        await until(lambda: _resumed(app, answer["correlation_id"]), what="the resumed hand-off")
        if not go_on:
            return 0
        say("DONE")
        await next_line()
        return 0
    finally:
        if tray is not None:
            tray.close()
        await fake.close()
        await app.stop()


if __name__ == "__main__":
    sys.exit(run(main))
