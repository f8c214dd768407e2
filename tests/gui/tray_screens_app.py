"""Run by test_tray_screens.py as a subprocess on a real X display with a tray host (Xvfb + trayer).

The real App (pilot on) with saved workflows (one of them broken), a FakeExtension answering a "jobs"
site, a few commands already run (one failed, one workflow finished) and one workflow kept running at
step 2 of 3. Then, one after another:

- `ICON {json}`: the tray icon's X window, for the test to right-click;
- `MENU {json}`: the context menu is up; `workflows_item` is where its Workflows item is on screen, for the
  test to move the mouse over;
- `SUBMENU {json}`: the Workflows submenu has opened under the mouse; a line on stdin moves on;
- `ACTIVITY {json}`: the activity window, the running workflow selected; a line on stdin ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tests.support, when run as a script

from PySide6.QtWidgets import QApplication, QMenu  # noqa: E402
from tests.gui.screen_app import (  # noqa: E402
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
from tests.gui.ui_support import ORIGIN, JobsSite, PageError, jobs_workflow, save_workflow  # noqa: E402
from tests.support.fake_extension import paired_with  # noqa: E402
from tests.support.waiting import until  # noqa: E402

from tabpilot.app import App  # noqa: E402
from tabpilot.approvals import AutoApprove  # noqa: E402
from tabpilot.engine.errors import TabpilotError  # noqa: E402
from tabpilot.ui.activity_window import COLUMNS, ActivityWindow  # noqa: E402
from tabpilot.ui.tray import TrayController  # noqa: E402

AGENT = "Claude Code 2.1"
SECRET = "SHOP_PASSWORD"


def seed_workflows(app: App) -> None:
    save_workflow(app, jobs_workflow(secret=SECRET))
    save_workflow(
        app,
        {
            "workflow_id": "wf-prices",
            "name": "Weekly prices",
            "steps": [
                {"type": "navigate", "url": f"{ORIGIN}/prices"},
                {"type": "extract", "selector": "tr", "schema": {"item": "td | text"}},
            ],
        },
    )
    (app.paths.workflows_dir / "old-export.json").write_text('{"name": "half a file', encoding="utf-8")


async def run_commands(app: App, site: JobsSite) -> asyncio.Task[Any]:
    """A few finished commands, then a workflow held at its last step: returns that run's task."""
    await app.engine.call("observe", {"what": "page"}, agent=AGENT)
    await app.engine.call("interact", {"action": "navigate", "url": f"{ORIGIN}/search"}, agent=AGENT)
    await app.engine.call("observe", {"what": "tabs"}, agent=AGENT)
    with contextlib.suppress(TabpilotError):  # shown as an error row
        await app.engine.call("interact", {"action": "click", "selector": "button.apply-now"}, agent=AGENT)
    await app.run_workflow("wf-prices")
    await app.engine.call(
        "interact",
        {"action": "fill", "selector": "#password", "value": f"{{{{secret:{SECRET}}}}}"},
        agent=AGENT,
    )
    site.hold = asyncio.Event()
    held = asyncio.get_running_loop().create_task(app.run_workflow("wf-jobs", {"city": "Lyon"}))
    await until(lambda: any(j.steps_completed == 2 for j in app.engine.jobs.running()), what="step 2 of 3")
    return held


async def main(qt_app: QApplication) -> int:
    if not await wait_for_tray_host():
        say("ICON", tray_available=False)
        return 3
    app = tray_app(AutoApprove())
    await app.start()
    app.engine.config.step_delay_ms = 0
    await asyncio.to_thread(app.secrets.set, SECRET, "correct horse battery staple")
    seed_workflows(app)
    site = JobsSite()

    def missing(params: dict[str, Any]) -> dict[str, Any]:
        raise PageError("element_not_found", f"No element matches {params['selector']}.")

    def tabs(params: dict[str, Any]) -> dict[str, Any]:
        return {"tabs": [{"tab_id": 1, "url": f"{ORIGIN}/", "title": "Jobs", "active": True, "tracked": False}]}

    fake = paired_with(app)
    for op, handler in {**site.handlers(), "dom_click": missing, "tabs_list": tabs}.items():
        fake.on(op.replace("_", "."), handler)
    tray: TrayController | None = None
    held: asyncio.Task[Any] | None = None
    try:
        await fake.connect()
        # The commands run before the tray exists: its notifications of finished workflows would show as
        # balloons over the icon (no notification server here) and take the right-click.
        held = await run_commands(app, site)
        tray = TrayController(app.facade, app.request_stop)
        controller = tray
        await until(lambda: controller.look == "busy", what="the busy look")
        await until(lambda: controller.workflows.workflow_menu("Jobs") is not None, what="the workflows menu")
        say("ICON", tray_available=True, winid=await tray_icon_winid(qt_app))

        menu = tray.menu
        await opened(menu, "the context menu after the right-click")
        item = menu.actionGeometry(tray.workflows.menu.menuAction())
        center = menu.mapToGlobal(item.center())
        say(
            "MENU",
            menu_geometry=rect(menu.geometry()),
            workflows_item=[center.x(), center.y()],
            items=item_texts(menu),
            look=tray.look,
            platform=qt_app.platformName(),
        )
        submenu: QMenu = tray.workflows.menu
        await opened(submenu, "the Workflows submenu under the mouse")
        say(
            "SUBMENU",
            menu_geometry=rect(menu.geometry()),
            submenu_geometry=rect(submenu.geometry()),
            items=item_texts(submenu),
            disabled=[a.text() for a in submenu.actions() if not a.isEnabled()],
        )
        await next_line()

        menu.hide()
        window = tray.show_activity()
        assert isinstance(window, ActivityWindow)
        window.setGeometry(16, 70, 1248, 620)
        running = next(c for c in window.model.commands() if c.running)
        window.select(running.correlation_id)
        await until(lambda: '"steps_total": 3' in window.detail.toPlainText(), what="the running run's detail")
        await painted(window)
        say(
            "ACTIVITY",
            geometry=rect(window.frameGeometry()),
            rows=[
                [window.model.data(window.model.index(r, c)) for c in range(len(COLUMNS))]
                for r in range(window.model.rowCount())
            ],
            count=window.count_label.text(),
        )
        await next_line()
        return 0
    finally:
        if site.hold is not None:
            site.hold.set()  # let the held run finish, so the app stops with nothing in flight
        if held is not None:
            await asyncio.wait_for(asyncio.gather(held, return_exceptions=True), 10)
        if tray is not None:
            tray.close()
        await fake.close()
        await app.stop()


if __name__ == "__main__":
    sys.exit(run(main))
