"""Run by test_approval_screenshots.py as a subprocess on a real X display (Xvfb): the real App with its
managed (headless) Chromium and the fixture site, and the windows a person sees one after another: the
approval prompt for an agent's click (with the picture of the target), the prompt for a workflow, a
browser that wants to connect, the approval rules and the paired browsers.

For each, once it is on screen and painted, `SHOWN {json}` goes to stdout (its name, where it is, what
the test checks in the picture); a line on stdin moves on. A line `DONE` ends it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tests.support, when run as a script

from PySide6.QtCore import QPoint, QRect  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402
from tests.gui.screen_app import next_line, painted, rect, run, say, tray_app  # noqa: E402
from tests.support.fake_extension import FakeExtension  # noqa: E402
from tests.support.managed import managed_up  # noqa: E402
from tests.support.site import FixtureSite  # noqa: E402
from tests.support.waiting import until  # noqa: E402

from tabpilot.engine.ports import ApprovalDecision, ApprovalRequest  # noqa: E402
from tabpilot.ui.approval_dialog import ApprovalDialog, ApprovalDialogs  # noqa: E402
from tabpilot.ui.pairing import open_paired_browsers, watch_pairing_requests  # noqa: E402
from tabpilot.ui.rules_window import open_rules_window  # noqa: E402

AGENT = "Claude Code 2.1"


async def shown(name: str, window: QWidget, **extra: Any) -> None:
    # (not synced with the X server: QApplication.sync runs the event loop re-entrantly, inside this task)
    await painted(window, sync=False)
    say("SHOWN", name=name, geometry=rect(window.frameGeometry()), **extra)
    if not await next_line():
        raise SystemExit(0)


def outline_on_screen(dialog: ApprovalDialog) -> list[int]:
    """Where the element's outline is on the screen: the pixmap is centred in the picture frame."""
    assert dialog.outline is not None
    label = dialog.picture
    pixmap = label.pixmap()
    offset = QPoint((label.width() - pixmap.width()) // 2, (label.height() - pixmap.height()) // 2)
    top_left = label.mapToGlobal(offset + dialog.outline.topLeft())
    return [top_left.x(), top_left.y(), dialog.outline.width(), dialog.outline.height()]


async def main(qt_app: QApplication) -> int:
    site = FixtureSite()
    await site.start()
    dialogs = ApprovalDialogs()
    app = tray_app(dialogs, browser="managed", headless=True)
    dialogs.attach(app.facade)
    await app.start()
    watcher = watch_pairing_requests(app.facade)
    loop = asyncio.get_running_loop()
    try:
        await until(lambda: managed_up(app), timeout=30, what="the managed browser")
        assert app.managed is not None
        page = await app.managed.context.new_page()
        url = site.url("/actions.html?from=screenshot")
        await page.goto(url)
        await page.bring_to_front()

        async def in_front() -> bool:
            tab = await app.link.request("tabs.resolve", {}, timeout_s=5)
            return bool(tab.get("url") == url)

        await until(in_front, timeout=10, what="the tab in front")

        # 1. An agent's click: the prompt, with the picture of the button outlined.
        call = loop.create_task(app.engine.call("interact", {"action": "click", "selector": "#change"}, agent=AGENT))
        await until(lambda: dialogs.open, what="the prompt")
        dialog = dialogs.open[0]
        await until(lambda: dialog.picture_state == "shown", timeout=10, what="the picture")
        await until(dialog.allow_once_button.isEnabled, what="the allow buttons to arm")
        await shown("approval-click", dialog, outline=outline_on_screen(dialog), picture=rect(_global(dialog.picture)))
        dialog.allow_site_button.click()  # leaves a site rule for the rules window below
        await call

        # 2. A workflow (not on this site, so it asks): every page-changing step at once.
        steps = [
            {"type": "navigate", "url": f"http://localhost:{site.port}/login"},
            {"type": "fill", "selector": "#user", "value": "alice"},
            {"type": "fill", "selector": "#password", "value": "{{secret:SHOP_PASSWORD}}"},
            {"type": "click", "selector": "#go"},
            {"type": "extract", "selector": "#orders tr", "schema": {"id": "td.id | text"}},
        ]
        call = loop.create_task(
            app.engine.call(
                "interact", {"action": "scrape", "operation": "workflow", "name": "orders", "steps": steps}, agent=AGENT
            )
        )
        await until(lambda: dialogs.open, what="the workflow prompt")
        dialog = dialogs.open[0]
        await until(dialog.allow_once_button.isEnabled, what="the allow buttons to arm")
        await shown("approval-workflow", dialog)
        dialog.reject()
        await asyncio.gather(call, return_exceptions=True)

        # 3. The rules window: the site rule from 1., and a workflow rule.
        app.policy.human = _Answer(ApprovalDecision(allow=True, remember="workflow"))
        await app.policy.decide(
            ApprovalRequest(
                "corr-screens",
                "Cursor 1.4",
                "interact",
                "scrape",
                {"operation": "replay", "workflow_id": "wf-orders-20260101"},
                origin="http://localhost:8080",
                workflow_id="wf-orders-20260101",
                steps_hash="0" * 64,
            )
        )
        app.policy.human = _Answer(ApprovalDecision(allow=True, remember="site", minutes=60))
        script = ({"type": "execute_js", "script": "document.title"},)
        await app.policy.decide(  # a JavaScript rule: another class of action, listed on its own
            ApprovalRequest(
                "corr-js",
                "Cursor 1.4",
                "interact",
                "execute_js",
                {"script": "document.title"},
                origin="http://localhost:8080",
                steps=script,
                action_class="javascript",
            )
        )
        app.policy.human = dialogs
        rules = open_rules_window(app.facade)
        await shown("approval-rules", rules)
        rules.close()

        # 4. A browser that wants to connect, with its code.
        knock = FakeExtension(app.bridge.port if app.bridge else 0, auth="none")
        browser = {"name": "Chrome", "version": "131.0.6778.85", "user_agent": "Mozilla/5.0", "profile": "Work"}
        await knock.connect(browser=browser)
        await knock.close()
        await until(lambda: watcher.windows, what="the pairing window")
        [request] = watcher.windows.values()
        await shown("pairing-request", request, code=request.code_label.text())

        # 5. Paired browsers, once the person typed that code into the browser (which the app then pairs; the
        # browser itself would be refused now anyway: the managed one is connected).
        app.pairings.pair(
            request.pending,
            {"browser": browser, "extension_id": request.pending.extension_id, "instance_id": knock.instance_id},
        )
        paired = open_paired_browsers(app.facade)
        await until(lambda: paired.table.rowCount() == 1, what="the paired browser")
        await shown("paired-browsers", paired)
        paired.close()
        say("DONE")
        return 0
    finally:
        watcher.close()
        await app.stop()
        await site.stop()


class _Answer:
    def __init__(self, decision: ApprovalDecision) -> None:
        self.decision = decision

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        return self.decision


def _global(widget: QWidget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


if __name__ == "__main__":
    sys.exit(run(main))
