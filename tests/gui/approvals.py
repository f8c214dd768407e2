"""Helpers for the approval-dialog tests: find a prompt and press its buttons the way a person does."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton, QWidget
from tests.support.waiting import until

from tabpilot.app import App
from tabpilot.ui.approval_dialog import ApprovalDialog, ApprovalDialogs


class ShiftedClock:
    """The policy's clock, moved forward by a test to expire "allow for this site" rules."""

    def __init__(self) -> None:
        self.offset = 0.0

    def time(self) -> float:
        return time.time() + self.offset

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


async def next_dialog(dialogs: ApprovalDialogs, count: int = 1) -> ApprovalDialog:
    """The newest prompt once `count` are open and it is on screen."""
    await until(lambda: len(dialogs.open) >= count, what=f"{count} approval prompt(s)")
    dialog = dialogs.open[count - 1]
    await until(dialog.isVisible, what="the prompt to show")
    return dialog


def button(dialog: ApprovalDialog, text: str) -> QPushButton:
    found = [b for b in dialog.findChildren(QPushButton) if b.text() == text and b.isVisible()]
    assert len(found) == 1, f"no {text!r} button; it has {[b.text() for b in dialog.findChildren(QPushButton)]}"
    return found[0]


def button_texts(dialog: ApprovalDialog) -> list[str]:
    return [b.text() for b in dialog.findChildren(QPushButton) if b.isVisible()]


async def click(dialog: ApprovalDialog, text: str) -> None:
    """A person's click: on the button, once it is armed (enabled)."""
    target = button(dialog, text)
    await until(target.isEnabled, timeout=5, what=f"{text!r} to be armed")
    QTest.mouseClick(target, Qt.MouseButton.LeftButton)


async def no_prompt_for(dialogs: ApprovalDialogs, task: asyncio.Task[Any], timeout: float = 15) -> Any:
    """The call ends without anybody being asked."""
    result = await asyncio.wait_for(task, timeout)
    assert dialogs.open == []
    return result


def click_call(app: App, selector: str, agent: str = "test-agent") -> asyncio.Task[dict[str, Any]]:
    return asyncio.get_running_loop().create_task(
        app.engine.call("interact", {"action": "click", "selector": selector}, agent=agent)
    )


def outline_drawn(image: QImage, dialog: ApprovalDialog) -> bool:
    """The outline colour just outside the element's box on all four sides, and the element itself not
    painted over (its centre keeps the page's own colour)."""
    from tabpilot.ui.approval_dialog import OUTLINE_COLOUR

    box = dialog.outline
    assert box is not None
    mid_x, mid_y = box.center().x(), box.center().y()
    sides = [(box.left() - 2, mid_y), (box.right() + 2, mid_y), (mid_x, box.top() - 2), (mid_x, box.bottom() + 2)]
    inside = [p for p in sides if image.rect().contains(*p)]
    assert inside, "the outline is wholly outside the picture"
    return all(_close(QColor(image.pixel(x, y)), OUTLINE_COLOUR) for x, y in inside) and not _close(
        QColor(image.pixel(mid_x, mid_y)), OUTLINE_COLOUR
    )


def _close(a: QColor, b: QColor, tolerance: int = 24) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a.getRgb()[:3], b.getRgb()[:3], strict=True))


def our_windows() -> list[QWidget]:
    """Top-level windows this part of the UI opens (approval prompts, rules, pairing)."""
    from tabpilot.ui.pairing import PairedBrowsersWindow, PairingRequestWindow
    from tabpilot.ui.rules_window import RulesWindow

    kinds = (ApprovalDialog, RulesWindow, PairingRequestWindow, PairedBrowsersWindow)
    return [w for w in QApplication.topLevelWidgets() if isinstance(w, kinds)]


def close_our_windows() -> None:
    """At the end of a test: close what is still open and let Qt delete it now, on the GUI thread."""
    for window in our_windows():
        window.close()
    for window in our_windows():
        if shiboken6.isValid(window):
            shiboken6.delete(window)
