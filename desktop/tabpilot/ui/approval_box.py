"""A plain Allow/Deny box: the tray's ApprovalPort until the full approval dialog exists."""

from __future__ import annotations

import asyncio
import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from tabpilot.engine.ports import ApprovalAnswer, ApprovalRequest
from tabpilot.ui.icons import app_icon

TIMEOUT_S = 60.0


class ApprovalBox:
    """Non-blocking: the box is shown and the coroutine awaits its answer; Deny is the default."""

    def __init__(self) -> None:
        self.open_boxes: list[QMessageBox] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalAnswer:
        box = QMessageBox()
        box.setWindowIcon(app_icon())
        box.setWindowTitle("Tabpilot — allow this action?")
        box.setIcon(QMessageBox.Icon.Question)
        where = f"\non {request.tab_url}" if request.tab_url else ""
        box.setText(f"{request.agent} wants to run {request.tool} {request.mode}{where}")
        box.setDetailedText(json.dumps(dict(request.params), indent=2, ensure_ascii=False))
        allow = box.addButton("Allow once", QMessageBox.ButtonRole.AcceptRole)
        deny = box.addButton("Deny", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(deny)
        box.setEscapeButton(deny)
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint, True)
        future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()

        def answered(_: int) -> None:
            if not future.done():
                future.set_result("allow" if box.clickedButton() is allow else "deny")

        box.finished.connect(answered)
        self.open_boxes.append(box)
        box.show()
        try:
            return await asyncio.wait_for(future, TIMEOUT_S)  # TimeoutError: the engine says approval_timeout
        finally:
            self.open_boxes.remove(box)
            box.close()
            box.deleteLater()
