"""The plain approval box: Deny means the step never reaches the browser; Allow once runs it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox
from tests.conftest import AppFactory
from tests.gui.conftest import ExtensionFactory, TrayFactory
from tests.support.fake_extension import FakeExtension
from tests.support.waiting import until

from tabpilot.app import App
from tabpilot.engine.errors import TabpilotError
from tabpilot.ui.approval_box import ApprovalBox

SCRIPT = "document.title = 'changed'; return 1 + 1"


def button(box: QMessageBox, text: str) -> QAbstractButton:
    found = [b for b in box.buttons() if b.text() == text]
    assert len(found) == 1, f"no {text!r} button; the box has {[b.text() for b in box.buttons()]}"
    return found[0]


def js_commands(fake: FakeExtension) -> list[dict[str, Any]]:
    return [m for m in fake.received if m["type"] == "command" and m["op"] == "js.execute"]


async def open_box(boxes: ApprovalBox) -> QMessageBox:
    await until(lambda: bool(boxes.open_boxes), what="the approval box")
    box = boxes.open_boxes[0]
    await until(box.isVisible, what="the box to show")
    return box


def execute_js(app: App) -> asyncio.Task[dict[str, Any]]:
    return asyncio.get_running_loop().create_task(
        app.engine.call("interact", {"action": "execute_js", "script": SCRIPT}, agent="Claude Code 1.0")
    )


async def test_deny_has_no_side_effect_and_allow_once_runs(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    boxes = ApprovalBox()
    app = await make_app(approvals=boxes, pilot=True)
    make_tray(app)
    ran: list[dict[str, Any]] = []

    def js_execute(params: dict[str, Any]) -> dict[str, Any]:
        ran.append(params)
        return {"success": True, "result": 2}

    fake = await connect_extension(app, js_execute=js_execute)

    # Deny: the call fails with approval_denied and the browser never hears of the script.
    call = execute_js(app)
    box = await open_box(boxes)
    assert "Claude Code 1.0 wants to run interact execute_js" in box.text()
    assert "return 1 + 1" in box.detailedText()
    deny = button(box, "Deny")
    assert box.defaultButton() is deny, "Deny must be the default"
    assert [job.status for job in app.engine.jobs.running()] == ["awaiting_approval"]
    QTest.mouseClick(deny, Qt.MouseButton.LeftButton)
    with pytest.raises(TabpilotError) as denied:
        await asyncio.wait_for(call, 5)
    assert denied.value.code == "approval_denied"
    assert boxes.open_boxes == []
    assert js_commands(fake) == []
    assert ran == []

    # Allow once: it runs, exactly once, with the script the box showed.
    call = execute_js(app)
    box = await open_box(boxes)
    QTest.mouseClick(button(box, "Allow once"), Qt.MouseButton.LeftButton)
    assert await asyncio.wait_for(call, 5) == {"success": True, "result": 2}
    assert boxes.open_boxes == []
    assert [c["params"]["script"] for c in js_commands(fake)] == [SCRIPT]
    assert [p["script"] for p in ran] == [SCRIPT]


async def test_escape_denies(
    make_app: AppFactory, make_tray: TrayFactory, connect_extension: ExtensionFactory, qapp: QApplication
) -> None:
    boxes = ApprovalBox()
    app = await make_app(approvals=boxes, pilot=True)
    make_tray(app)
    fake = await connect_extension(app, js_execute=lambda params: {"success": True, "result": 2})
    call = execute_js(app)
    box = await open_box(boxes)
    QTest.keyClick(box, Qt.Key.Key_Escape)
    with pytest.raises(TabpilotError) as denied:
        await asyncio.wait_for(call, 5)
    assert denied.value.code == "approval_denied"
    assert js_commands(fake) == []
