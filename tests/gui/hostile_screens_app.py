"""Run by test_hostile_screenshots.py as a subprocess on a real X display (Xvfb, openbox): approval prompts
whose agent, workflow, selector and values are markup and long runs without spaces (issue 18, item 5), and
the delete confirmation of a workflow so named. No browser: the prompts are the tray's own ApprovalDialogs,
asked directly, as the engine asks them.

For each window, once it is on screen and painted, `SHOWN {json}` goes to stdout (its name, where it is,
its headline as Qt draws it); a line on stdin moves on. A line `DONE` ends it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # tests.support, when run as a script

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel, QWidget  # noqa: E402
from tests.gui.screen_app import next_line, painted, rect, run, say  # noqa: E402
from tests.support.waiting import until  # noqa: E402

from tabpilot.engine.ports import ApprovalRequest  # noqa: E402
from tabpilot.ui.approval_dialog import ApprovalDialog, ApprovalDialogs  # noqa: E402
from tabpilot.ui.dialogs import confirm  # noqa: E402
from tabpilot.ui.workflows_menu import delete_question  # noqa: E402

HOSTILE_AGENT = "Claude<br>wants to take a screenshot.<span style='font-size:1px'>"
LONG = "x" * 160
WORKFLOW_NAME = f"<b>Backup</b> &amp; <img src='/etc/x.png'> {LONG}"
SELECTOR = f"#go<br><b>here</b>{LONG}"


def drawn_text(label: QLabel) -> dict[str, Any]:
    return {"text": label.text(), "plain": label.textFormat() == Qt.TextFormat.PlainText}


async def shown(name: str, window: QWidget, **extra: Any) -> None:
    await painted(window, sync=False)
    say("SHOWN", name=name, geometry=rect(window.frameGeometry()), **extra)
    while True:  # "where": the window manager may have moved it since
        line = await next_line()
        if not line:
            raise SystemExit(0)
        if line.strip() != "where":
            return
        say("SHOWN", name=name, geometry=rect(window.frameGeometry()), winid=int(window.winId()), **extra)


async def prompt(dialogs: ApprovalDialogs, name: str, request: ApprovalRequest) -> None:
    asked = asyncio.get_running_loop().create_task(dialogs.decide(request))
    await until(lambda: dialogs.open, what=f"the {name} prompt")
    dialog: ApprovalDialog = dialogs.open[0]
    await until(dialog.allow_once_button.isEnabled, what="the allow buttons to arm")
    if request.selector:
        await until(lambda: dialog.picture_state != "loading", what="the picture's place to say why there is none")
    await shown(name, dialog, headline=drawn_text(dialog.title_label))
    dialog.reject()
    await asyncio.gather(asked, return_exceptions=True)


async def main(qt_app: QApplication) -> int:
    dialogs = ApprovalDialogs(timeout_s=600)
    await prompt(
        dialogs,
        "hostile-click",
        ApprovalRequest(
            "c-click",
            HOSTILE_AGENT,
            "interact",
            "click",
            {"selector": SELECTOR},
            tab_url=f"https://shop.test/login?next=<b>home</b>&amp;{LONG}",
            origin="https://shop.test",
            tab_id=1,
            selector=SELECTOR,
        ),
    )
    steps = [
        {"type": "navigate", "url": "https://shop.test/login"},
        {"type": "fill", "selector": SELECTOR, "value": "<b>bold</b><br><span style='font-size:1px'>tiny</span>"},
        {"type": "click", "selector": "#submit"},
    ]
    await prompt(
        dialogs,
        "hostile-workflow",
        ApprovalRequest(
            "c-workflow",
            HOSTILE_AGENT,
            "interact",
            "scrape",
            {"operation": "workflow", "name": WORKFLOW_NAME, "steps": steps, "record": True},
            steps=tuple(steps[1:]),
            origin="https://shop.test",
        ),
    )
    host = QWidget()
    details = "Its file (wf-backup.json) and its saved runs are removed."
    box = confirm(host, "Delete workflow", delete_question(WORKFLOW_NAME), "Delete", lambda: None, details=details)
    await until(box.isVisible, what="the delete confirmation")
    await shown("hostile-delete", box)
    box.reject()
    say("DONE")
    await next_line()
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
